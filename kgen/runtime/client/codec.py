"""Bodies in and out: JSON by default, the Kubernetes protobuf envelope when asked for.

`encode_body` writes a request body (a model, JSON data, or bytes as they are);
`decode_body` reads a success response into the type a client asked for, and turns a
failure `Status` that came with a 2xx into its error, as client-go's `Result.Into` does;
`decode_status` finds the Status in an error response.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

from kgen.runtime.client.errors import APIStatusError, ClientError, error_from_status
from kgen.runtime.client.options import JSON, PROTOBUF

if TYPE_CHECKING:
    from kgen.runtime.apimachinery.meta.v1.models import Status
    from kgen.runtime.client.warning import WarningHeader

__all__ = [
    "ResponseDecodeError",
    "status_class",
    "media_type",
    "is_json",
    "is_protobuf",
    "encode_body",
    "decode_body",
    "decode_status",
]

T = TypeVar("T")

#: The API groups whose `Status` is metav1's (client-go's FromObject accepts these).
_STATUS_VERSIONS = ("", "v1", "meta.k8s.io/v1")


class ResponseDecodeError(ClientError):
    """A success response whose body is not what the client asked for."""


def media_type(content_type: str) -> str:
    """`application/json` of `application/json; charset=utf-8` (lower case)."""
    return content_type.split(";", 1)[0].strip().lower()


def is_json(content_type: str) -> bool:
    """Whether a content type is JSON (`application/json`, `application/merge-patch+json`, ...)."""
    kind = media_type(content_type)
    return kind == JSON or kind.endswith("+json")


def is_protobuf(content_type: str) -> bool:
    """Whether a content type is the Kubernetes protobuf envelope."""
    return media_type(content_type) == PROTOBUF


def encode_body(body: Any, content_type: str) -> bytes:
    """A request body: bytes and text as they are, a model as JSON (or in the protobuf
    envelope when `content_type` is protobuf), other data as compact JSON."""
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    if is_protobuf(content_type):
        from kgen.runtime import protobuf

        return protobuf.encode(body)
    to_json = getattr(body, "to_json", None)
    if callable(to_json):
        data: bytes = to_json()
        return data
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def status_class() -> type[Status]:
    """metav1's Status model (imported when first needed)."""
    from kgen.runtime.apimachinery.meta.v1.models import Status

    return Status


def _status_from_json(data: Any) -> Status | None:
    if not isinstance(data, dict) or data.get("kind") != "Status" or data.get("apiVersion", "") not in _STATUS_VERSIONS:
        return None
    try:
        return status_class().from_dict(data)
    except ValueError:
        return None


def _status_from_protobuf(body: bytes) -> Status | None:
    from kgen.runtime import protobuf
    from kgen.runtime.apimachinery.meta.v1 import protobuf as _meta_converters  # noqa: F401  (registers Status)

    try:
        envelope = protobuf.decode_envelope(body)
        if envelope.kind != "Status" or envelope.api_version not in _STATUS_VERSIONS:
            return None
        status: Status = protobuf.unmarshal(status_class(), envelope.raw)
    except protobuf.ProtobufError:
        return None
    return status


def decode_status(body: bytes, content_type: str) -> Status | None:
    """The failure Status an error response carries, or None when its body is none (client-go's
    `Result.Error`: a Status whose `status` is not `Failure` does not count)."""
    if not body:
        return None
    status: Status | None
    if is_protobuf(content_type):
        status = _status_from_protobuf(body)
    elif is_json(content_type) or not content_type:
        try:
            status = _status_from_json(json.loads(body))
        except ValueError:
            return None
    else:
        return None
    if status is None or status.status != "Failure":
        return None
    return status


@overload
def decode_body(
    body: bytes,
    content_type: str,
    result_type: type[T],
    headers: Mapping[str, str] = ...,
    warnings: Sequence[WarningHeader] = ...,
) -> T: ...
@overload
def decode_body(
    body: bytes,
    content_type: str,
    result_type: None = ...,
    headers: Mapping[str, str] = ...,
    warnings: Sequence[WarningHeader] = ...,
) -> Any: ...
def decode_body(
    body: bytes,
    content_type: str,
    result_type: type[Any] | None = None,
    headers: Mapping[str, str] | None = None,
    warnings: Sequence[WarningHeader] = (),
) -> Any:
    """A success body as `result_type` (a model class; `bytes` for the body itself; None for
    the JSON data, the registered kind of a protobuf body, or None for an empty body). A failure Status raises its
    error; a success Status is returned as a Status when `result_type` is not Status itself."""
    if result_type is bytes:
        return body
    if not body:
        if result_type is None:
            return None
        raise ResponseDecodeError(f"0-length response with content type: {content_type or 'none'}")
    try:
        if is_protobuf(content_type):
            return _decode_protobuf(body, result_type, headers, warnings)
        if is_json(content_type) or not content_type:
            return _decode_json(body, result_type, headers, warnings)
    except (ValueError, TypeError) as err:  # pydantic's ValidationError and ProtobufError are ValueErrors
        name = result_type.__name__ if result_type is not None else "JSON"
        raise ResponseDecodeError(f"the response is not a valid {name}: {err}") from err
    raise ResponseDecodeError(f"no decoder for content type {content_type!r}; kgen reads JSON and protobuf")


def _decode_json(
    body: bytes, result_type: type[Any] | None, headers: Mapping[str, str] | None, warnings: Sequence[WarningHeader]
) -> Any:
    status_type = status_class()
    if result_type is None or (result_type is not status_type and b'"Status"' in body):
        data = json.loads(body)
        status = _status_from_json(data)
        if status is not None:
            if status.status not in ("Success", ""):
                raise _error(status, headers, warnings)
            return status
        if result_type is None:
            return data
        return result_type.from_dict(data)
    return result_type.from_json(body)


def _decode_protobuf(
    body: bytes, result_type: type[Any] | None, headers: Mapping[str, str] | None, warnings: Sequence[WarningHeader]
) -> Any:
    from kgen.runtime import protobuf

    status_type = status_class()
    if result_type is not status_type:
        status = _status_from_protobuf(body)
        if status is not None:
            if status.status not in ("Success", ""):
                raise _error(status, headers, warnings)
            return status
    return protobuf.decode(body, result_type)


def _error(status: Status, headers: Mapping[str, str] | None, warnings: Sequence[WarningHeader]) -> APIStatusError:
    return error_from_status(status, headers, warnings)
