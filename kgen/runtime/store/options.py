"""Request options the engine checks: resourceVersion, resourceVersionMatch, continue
tokens, delete options; with the API server's validation messages.
"""

from __future__ import annotations

import base64
import binascii
import json

from kgen.runtime.store import errors
from kgen.runtime.validation.field import Path, forbidden, invalid, not_supported

NOT_OLDER_THAN = "NotOlderThan"
EXACT = "Exact"

ORPHAN = "Orphan"
BACKGROUND = "Background"
FOREGROUND = "Foreground"

#: The finalizers the garbage collector acts on (metav1.FinalizerOrphanDependents, ...).
FINALIZER_ORPHAN = "orphan"
FINALIZER_FOREGROUND = "foregroundDeletion"

_CONTINUE_VERSION = "meta.k8s.io/v1"


def parse_resource_version(value: str) -> int:
    """A resourceVersion as a revision ("" and "0" are 0); 400 when it is not a number."""
    if value in ("", "0"):
        return 0
    if value.isascii() and value.isdigit():
        if int(value) < 2**64:
            return int(value)
        detail = f'strconv.ParseUint: parsing "{value}": value out of range'
    else:
        detail = f'strconv.ParseUint: parsing "{value}": invalid syntax'
    raise errors.bad_request(f"invalid resource version: {invalid(Path.root('resourceVersion'), value, detail)}")


def validate_list_options(resource_version: str, match: str, continue_token: str) -> None:
    """ValidateListOptions for a list: 422 Invalid on a bad resourceVersionMatch."""
    problems = []
    if match:
        path = Path.root("resourceVersionMatch")
        if not resource_version:
            problems.append(forbidden(path, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if continue_token:
            problems.append(forbidden(path, "resourceVersionMatch is forbidden when continue is provided"))
        if match not in (EXACT, NOT_OLDER_THAN):
            problems.append(not_supported(path, match, [EXACT, NOT_OLDER_THAN, ""]))
        if match == EXACT and resource_version == "0":
            problems.append(forbidden(path, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    if problems:
        raise errors.invalid_options("ListOptions", problems)


def validate_watch_options(match: str, send_initial_events: bool | None) -> None:
    """ValidateListOptions for a watch (the WatchList feature is on)."""
    problems = []
    path = Path.root("resourceVersionMatch")
    if send_initial_events is not None and match != NOT_OLDER_THAN:
        problems.append(forbidden(path, f"sendInitialEvents requires setting resourceVersionMatch to {NOT_OLDER_THAN}"))
    if match:
        if send_initial_events is None:
            problems.append(
                forbidden(path, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
            )
        if match != NOT_OLDER_THAN:
            problems.append(not_supported(path, match, [NOT_OLDER_THAN]))
    if problems:
        raise errors.invalid_options("ListOptions", problems)


def validate_delete_options(propagation_policy: str | None, orphan_dependents: bool | None) -> None:
    """ValidateDeleteOptions' checks of the propagation options."""
    problems = []
    path = Path.root("propagationPolicy")
    if propagation_policy is not None:
        if orphan_dependents is not None:
            problems.append(
                invalid(path, propagation_policy, "orphanDependents and deletionPropagation cannot be both set")
            )
        if propagation_policy not in (ORPHAN, BACKGROUND, FOREGROUND):
            problems.append(not_supported(path, propagation_policy, [FOREGROUND, BACKGROUND, ORPHAN, "nil"]))
    if problems:
        raise errors.invalid_options("DeleteOptions", problems)


def encode_continue(key: str, prefix: str, revision: int) -> str:
    """A continue token: where the next page starts (relative to the list's key prefix) and
    the revision of the snapshot (-1: continue at the latest revision); storage.EncodeContinue."""
    token = {"v": _CONTINUE_VERSION, "rv": revision, "start": key[len(prefix) :]}
    data = json.dumps(token, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode_continue(token: str, prefix: str) -> tuple[str, int]:
    """The start key and revision of a continue token; 400 BadRequest when it is not one of
    ours or would range outside the prefix (storage.DecodeContinue)."""

    def invalid_token(reason: str) -> Exception:
        return errors.bad_request(f"invalid continue token: {reason}")

    try:
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        parsed = json.loads(data)
    except (binascii.Error, ValueError) as error:
        raise invalid_token(f"continue key is not valid: {error}") from None
    if not isinstance(parsed, dict) or parsed.get("v") != _CONTINUE_VERSION:
        version = parsed.get("v", "") if isinstance(parsed, dict) else ""
        raise invalid_token(f"continue key is not valid: server does not recognize this encoded version {version}")
    revision, start = parsed.get("rv"), parsed.get("start")
    if isinstance(revision, int) and not -(2**63) <= revision < 2**63:  # Go decodes it into an int64
        raise invalid_token(
            f"continue key is not valid: json: cannot unmarshal number {revision} into Go struct field "
            "continueToken.rv of type int64"
        )
    if not isinstance(revision, int) or isinstance(revision, bool) or revision == 0:
        raise invalid_token(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        )
    if not isinstance(start, str) or not start:
        raise invalid_token("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
    key = start if start.startswith("/") else "/" + start
    if not _is_clean(key):
        # No `..`, `.` or `//`: the token must not reach outside the list's prefix.
        raise invalid_token(f"continue key is not valid: {start}")
    return prefix + key[1:], revision


def _is_clean(path: str) -> bool:
    """Whether Go's path.Clean leaves an absolute path unchanged."""
    if path == "/":
        return True
    if path.endswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in path[1:].split("/"))
