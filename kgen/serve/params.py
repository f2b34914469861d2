"""Query parameters and request options, checked as the API server checks them.

Malformed values are 400 BadRequest; values the options' validation refuses (dryRun other
than `All`, a field manager over 128 bytes, `force` on a patch that is not an apply) are
422 Invalid on `CreateOptions.meta.k8s.io`, `UpdateOptions`, `PatchOptions` or `DeleteOptions`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request

from kgen.runtime.errors import APIError, bad_request
from kgen.runtime.scheme import MAX_DOCUMENT_DEPTH, MAX_REQUEST_BODY_BYTES, text_nested_deeper_than
from kgen.runtime.store import Preconditions
from kgen.runtime.validation.field import (
    FieldError,
    Path,
    forbidden,
    invalid,
    invalid_error,
    not_supported,
    required,
    too_long,
)

FIELD_MANAGER_MAX_LENGTH = 128


def integer(query: QueryParams, name: str, default: int = 0) -> int:
    """An integer parameter as Go's strconv.ParseInt reads an int64 (a sign and ASCII
    digits); 400 when it is not one or does not fit."""
    value = query.get(name)
    if value in (None, ""):
        return default
    if not _INT64.fullmatch(value):
        raise bad_request(f'{name}: strconv.ParseInt: parsing "{value}": invalid syntax')
    number = int(value)
    if not -(2**63) <= number < 2**63:
        raise bad_request(f'{name}: strconv.ParseInt: parsing "{value}": value out of range')
    return number


_INT64 = re.compile(r"[+-]?[0-9]+")


def boolean(query: QueryParams, name: str) -> bool | None:
    """A boolean parameter (None when absent); 400 when it is not one."""
    value = query.get(name)
    if value is None:
        return None
    lowered = value.lower()
    if lowered in ("", "1", "t", "true"):
        return True if lowered else None
    if lowered in ("0", "f", "false"):
        return False
    raise bad_request(f'{name}: strconv.ParseBool: parsing "{value}": invalid syntax')


def _options_error(kind: str, errors: list[FieldError]) -> APIError:
    return invalid_error("meta.k8s.io", kind, "", errors)


def dry_run(values: list[str], kind: str) -> bool:
    """Whether the request is a dry run (`dryRun=All`); 422 for any other value."""
    problems = [not_supported(Path.root("dryRun"), v, ["All"]) for v in values if v != "All"]
    if problems:
        raise _options_error(kind, problems)
    return bool(values)


def field_manager(query: QueryParams, kind: str) -> str:
    """The fieldManager parameter; 422 when it is too long or not printable."""
    manager = query.get("fieldManager", "")
    problems = []
    if len(manager.encode()) > FIELD_MANAGER_MAX_LENGTH:
        problems.append(too_long(Path.root("fieldManager"), manager, FIELD_MANAGER_MAX_LENGTH))
    elif any(not ch.isprintable() for ch in manager):
        problems.append(invalid(Path.root("fieldManager"), manager, "must only contain printable characters"))
    if problems:
        raise _options_error(kind, problems)
    return manager


def check_patch_options(is_apply: bool, manager: str, force: bool | None) -> None:
    """ValidatePatchOptions: apply needs a field manager; only apply takes force."""
    problems = []
    if is_apply and not manager:
        problems.append(required(Path.root("fieldManager"), "is required for apply patch"))
    if not is_apply and force is not None:
        problems.append(forbidden(Path.root("force"), "may not be specified for non-apply patch"))
    if problems:
        raise _options_error("PatchOptions", problems)


async def read_body(request: Request, limit: int = MAX_REQUEST_BODY_BYTES) -> bytes:
    """The request body; 413 RequestEntityTooLarge beyond `limit` bytes (3 MiB by default),
    400 BadRequest for JSON nested deeper than any decoder here reads (whatever the verb or
    body: an object, a patch, DeleteOptions)."""
    body = await _read(request, limit)
    if body[:1] in (b"{", b"[") or body.lstrip()[:1] in (b"{", b"["):
        if text_nested_deeper_than(body):
            raise bad_request(f"invalid JSON: nested more than {MAX_DOCUMENT_DEPTH} levels deep")
    return body


async def _read(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    too_large = APIError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")
    if declared and declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    """What a delete was asked to do (query parameters and the DeleteOptions body)."""

    preconditions: Preconditions | None = None
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None
    dry_run: bool = False


def delete_options(query: QueryParams, body: bytes, content_type: str = "") -> DeleteOptions:
    """The DeleteOptions of a delete (the body's, JSON or protobuf, overridden by query parameters)."""
    document: dict[str, Any] = {}
    if body.strip() and content_type.split(";")[0].strip() == "application/vnd.kubernetes.protobuf":
        from kgen.runtime import protobuf
        from kgen.runtime.apimachinery.meta.v1 import protobuf as _meta  # noqa: F401 - registers DeleteOptions
        from kgen.runtime.apimachinery.meta.v1.models import DeleteOptions as Options

        try:
            document = protobuf.unmarshal(Options, protobuf.decode_envelope(body).raw).to_dict()
        except protobuf.ProtobufError as error:
            raise bad_request(f"invalid DeleteOptions: {error}") from None
    elif body.strip():
        try:
            document = json.loads(body)
        except ValueError as error:
            raise bad_request(f"invalid DeleteOptions: {error}") from None
        if not isinstance(document, dict):
            raise bad_request("invalid DeleteOptions: must be an object")
        kind = document.get("kind")
        if kind not in (None, "", "DeleteOptions"):
            raise bad_request(f"expected DeleteOptions, got {kind}")
    preconditions = None
    given = document.get("preconditions")
    if isinstance(given, dict) and (given.get("uid") is not None or given.get("resourceVersion") is not None):
        preconditions = Preconditions(uid=given.get("uid"), resource_version=given.get("resourceVersion"))
    policy = query.get("propagationPolicy") or document.get("propagationPolicy")
    orphan = boolean(query, "orphanDependents")
    if orphan is None and isinstance(document.get("orphanDependents"), bool):
        orphan = document["orphanDependents"]
    runs = query.getlist("dryRun") or list(document.get("dryRun") or [])
    grace = query.get("gracePeriodSeconds")
    if grace is not None and grace != "":
        integer(query, "gracePeriodSeconds")
    return DeleteOptions(preconditions, policy, orphan, dry_run(runs, "DeleteOptions"))
