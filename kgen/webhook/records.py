"""What the webhook application serves: its resources, its admission paths, and the review
that is being answered (for hooks that want to know).

`Resource` is one kind of an API as the webhook manifests name it (group, kind, plural,
scope, versions, storage version); `Route` is one admission path and the kinds it admits.
The generated `webhook.py` of an API lists both; `AdmissionRequest` is the request part of
an AdmissionReview, which hooks read through `current_request()` while a review runs.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kgen.runtime.errors import APIError, bad_request


@dataclass(frozen=True)
class Resource:
    """One kind the webhook converts and admits."""

    group: str
    kind: str
    plural: str
    namespaced: bool
    versions: tuple[str, ...]
    """The served versions, as the CRD lists them."""
    storage: str
    """The storage version (the version admission webhooks are registered for)."""


@dataclass(frozen=True)
class Route:
    """An admission path: mutating (defaulting) or validating, for these (group, kind)s."""

    path: str
    mutating: bool
    kinds: tuple[tuple[str, str], ...]


class ReviewError(APIError):
    """A request body that is not a review this webhook answers (HTTP 400 with a Status)."""


def malformed(message: str) -> ReviewError:
    """The 400 of a body that is not a well-formed review."""
    error = bad_request(message)
    return ReviewError(error.code, error.reason, error.message)


def review_api_version(body: Any, kind: str, group: str, versions: Sequence[str]) -> str:
    """The apiVersion of a review `body` that is a `kind` of one of `group`'s `versions`;
    `ReviewError` for a body that is not one."""
    named = f"{'an' if kind[:1] in 'AEIOU' else 'a'} {kind}"
    if not isinstance(body, dict):
        raise malformed(f"the body must be {named} (a JSON object)")
    api_version, given = body.get("apiVersion"), body.get("kind")
    accepted = [f"{group}/{version}" for version in versions]
    if given != kind or api_version not in accepted:
        raise malformed(
            f"expected {named} of {' or '.join(accepted)}, got kind {json.dumps(given)} "
            f"of apiVersion {json.dumps(api_version)}"
        )
    return str(api_version)


@dataclass(frozen=True)
class AdmissionRequest:
    """The request of an AdmissionReview (admission.k8s.io/v1 AdmissionRequest), as read."""

    uid: str
    kind: tuple[str, str, str]
    """(group, version, kind) of `object`: the version the webhook is registered for."""
    resource: tuple[str, str, str]
    """(group, version, resource)."""
    operation: str
    """CREATE, UPDATE, DELETE or CONNECT."""
    name: str = ""
    namespace: str = ""
    sub_resource: str = ""
    request_kind: tuple[str, str, str] | None = None
    """What the client sent, when the API server converted it (matchPolicy Equivalent)."""
    dry_run: bool = False
    user_info: dict[str, Any] = field(default_factory=dict)
    object: dict[str, Any] | None = None
    old_object: dict[str, Any] | None = None
    options: dict[str, Any] | None = None

    @classmethod
    def parse(cls, request: Any) -> AdmissionRequest:
        """The request part of a review; a `ReviewError` naming what is missing or wrong."""
        if not isinstance(request, dict):
            raise malformed("the AdmissionReview has no request")
        uid = request.get("uid")
        if not isinstance(uid, str) or not uid:
            raise malformed("request.uid: Required value: the AdmissionReview request has no uid")
        operation = request.get("operation")
        if operation not in ("CREATE", "UPDATE", "DELETE", "CONNECT"):
            raise malformed(
                f"request.operation: Unsupported value: {_shown(operation)}: supported values: "
                '"CREATE", "UPDATE", "DELETE", "CONNECT"'
            )
        objects: dict[str, dict[str, Any] | None] = {}
        for key in ("object", "oldObject", "options"):
            value = request.get(key)
            if value is not None and not isinstance(value, dict):
                raise malformed(f"request.{key}: Invalid value: it must be a JSON object")
            objects[key] = value
        request_kind = request.get("requestKind")
        dry_run = request.get("dryRun", False)
        user_info = request.get("userInfo") or {}
        for name, value, kind in (("dryRun", dry_run, bool), ("userInfo", user_info, dict)):
            if not isinstance(value, kind):
                raise malformed(f"request.{name}: Invalid value: {_shown(value)}: must be a {kind.__name__}")
        return cls(
            uid=uid,
            kind=_group_version_x(request.get("kind"), "kind", "request.kind"),
            resource=_group_version_x(request.get("resource"), "resource", "request.resource"),
            operation=operation,
            name=_string(request, "name"),
            namespace=_string(request, "namespace"),
            sub_resource=_string(request, "subResource"),
            request_kind=(
                _group_version_x(request_kind, "kind", "request.requestKind") if request_kind is not None else None
            ),
            dry_run=dry_run,
            user_info=user_info,
            object=objects["object"],
            old_object=objects["oldObject"],
            options=objects["options"],
        )


def _string(request: dict[str, Any], key: str) -> str:
    value = request.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise malformed(f"request.{key}: Invalid value: {_shown(value)}: must be a string")
    return value


def _group_version_x(value: Any, last: str, where: str) -> tuple[str, str, str]:
    """A GroupVersionKind or GroupVersionResource of the request as (group, version, kind/resource)."""
    if not isinstance(value, dict):
        raise malformed(f"{where}: Required value: the AdmissionReview request names no {last}")
    parts = (value.get("group", ""), value.get("version"), value.get(last))
    if not all(isinstance(part, str) for part in parts) or not parts[1] or not parts[2]:
        raise malformed(f"{where}: Invalid value: {_shown(value)}: needs a version and a {last}")
    return parts  # type: ignore[return-value]


def _shown(value: Any) -> str:
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


_CURRENT: contextvars.ContextVar[AdmissionRequest | None] = contextvars.ContextVar("kgen_admission", default=None)


def current_request() -> AdmissionRequest | None:
    """The admission request being answered, for hooks that depend on it (a dry run, the
    user, the operation); None outside an admission review (conversion, direct calls)."""
    return _CURRENT.get()
