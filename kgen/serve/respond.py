"""Writing responses: objects, lists and Status errors in the negotiated representation.

JSON (compact, or indented with `?pretty=true`), YAML and protobuf (the generated
converters, in the `k8s\\0` envelope); a body over 128 KiB is gzipped when the client
accepts it, as kube-apiserver compresses; warnings go in `Warning: 299 - "..."` headers;
an error's Status carries `Retry-After` when its details say when to retry.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from kgen.runtime.errors import APIError
from kgen.serve.negotiation import JSON, PROTOBUF, YAML, Representation

#: kube-apiserver's threshold for compressing a response (defaultGzipThresholdBytes).
GZIP_THRESHOLD = 128 * 1024


def warning_header(text: str) -> str:
    """A `Warning` header value with code 299, as the API server writes one."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'


def encode_json(obj: Any, pretty: bool = False) -> bytes:
    """JSON as the API server writes it (compact, or indented two spaces with pretty).

    A list's items are encoded one at a time: the encoder holds the interpreter for the
    whole of one call, and a megabyte of list would keep every other request waiting."""
    if pretty:
        return json.dumps(obj, indent=2, ensure_ascii=False).encode() + b"\n"
    if type(obj) is dict and type(obj.get("items")) is list:
        members = (
            _compact(key) + ":" + ("[" + ",".join(map(_compact, value)) + "]" if key == "items" else _compact(value))
            for key, value in obj.items()
        )
        return ("{" + ",".join(members) + "}\n").encode()
    return (_compact(obj) + "\n").encode()


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def encode_yaml(obj: Any) -> bytes:
    """Block YAML, as the API server writes it."""
    from kgen.runtime import yamlio

    return yamlio.dump(obj, sort_keys=True).encode()


def _accepts_gzip(request: Request | None) -> bool:
    if request is None:
        return False
    for part in request.headers.get("accept-encoding", "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() == "gzip" and "q=0" not in params.replace(" ", ""):
            return True
    return False


def respond(
    request: Request | None,
    body: bytes,
    content_type: str,
    status_code: int = 200,
    warnings: Iterable[str] = (),
    headers: dict[str, str] | None = None,
) -> Response:
    """A response with `body`, gzipped when large and accepted, with warnings."""
    response_headers = dict(headers or {})
    if len(body) > GZIP_THRESHOLD and _accepts_gzip(request):
        body = gzip.compress(body, compresslevel=4)
        response_headers["Content-Encoding"] = "gzip"
        response_headers["Vary"] = "Accept-Encoding"
    response = Response(body, status_code=status_code, headers=response_headers, media_type=content_type)
    for warning in warnings:
        response.headers.append("Warning", warning_header(warning))
    return response


def object_response(
    request: Request | None,
    obj: dict[str, Any],
    representation: Representation,
    *,
    status_code: int = 200,
    warnings: Iterable[str] = (),
    protobuf_body: Callable[[], bytes] | None = None,
) -> Response:
    """An object (or list) as JSON, YAML, or protobuf (`protobuf_body()` encodes it)."""
    pretty = request is not None and request.query_params.get("pretty") in ("true", "1")
    if representation.media_type == YAML:
        body = encode_yaml(obj)
    elif representation.media_type == PROTOBUF:
        if protobuf_body is None:
            raise APIError(
                406, "NotAcceptable", "only the following media types are accepted: application/json, application/yaml"
            )
        body = protobuf_body()
    else:
        body = encode_json(obj, pretty)
    return respond(request, body, representation.content_type, status_code, warnings)


def status_dict(error: APIError) -> dict[str, Any]:
    """The Status object of an error, as JSON data."""
    status = error.to_status()
    data = status.to_dict()
    data.setdefault("metadata", {})
    return data


def error_response(request: Request | None, error: APIError, representation: Representation | None = None) -> Response:
    """The Status of an error, with Retry-After when the details carry a delay."""
    data = status_dict(error)
    headers = {}
    retry = (data.get("details") or {}).get("retryAfterSeconds")
    if retry:
        headers["Retry-After"] = str(retry)
    media = representation.media_type if representation is not None else JSON
    body, content_type = encode_json(data), JSON
    if media == PROTOBUF:
        body, content_type = status_protobuf(error), PROTOBUF
    elif media == YAML:
        body, content_type = encode_yaml(data), YAML
    return respond(request, body, content_type, error.code or 500, headers=headers)


def status_protobuf(error: APIError) -> bytes:
    """An error's Status as an `application/vnd.kubernetes.protobuf` body: in the envelope
    under the core group's v1, as the API server sends it."""
    from kgen.runtime import protobuf

    # Status is a pydantic model: its converters are imported here, not by a msgspec package.
    from kgen.runtime.apimachinery.meta.v1 import protobuf as _meta  # noqa: F401 - registers them

    return protobuf.encode_envelope("v1", "Status", protobuf.marshal(error.to_status()))


def success_status(details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Status of success (what some deletes answer)."""
    status: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if details:
        status["details"] = details
    return status
