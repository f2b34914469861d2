"""The request/response core that the sync and async transports share.

Nothing here does I/O. `exchange()` is a generator that says what to do next (sleep, get
credentials, send, read a body) and receives the results; `Transport` and `AsyncTransport`
each carry those actions out in their own way, so retries, rate limiting, re-authentication
after a 401 and the interpretation of responses are written once. `build_http_request`
turns an `APIRequest` into an httpx request; `interpret` turns a final response into an
`APIResponse` or raises the `APIStatusError` its Status (or its body) calls for.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, Union

import httpx

from kgen.runtime.client.codec import decode_body, decode_status, encode_body, media_type
from kgen.runtime.client.config import ClientConfig, default_user_agent
from kgen.runtime.client.credentials import Credentials
from kgen.runtime.client.errors import (
    APIStatusError,
    ConfigError,
    ResourceRef,
    TransportError,
    TransportTimeout,
    error_from_status,
    generic_server_response,
)
from kgen.runtime.client.options import JSON, PROTOBUF, Query
from kgen.runtime.client.ratelimit import TokenBucket
from kgen.runtime.client.retry import Mode, RetryPolicy, retry_after_seconds, retry_delay
from kgen.runtime.client.warning import WarningHeader, parse_warning_headers

__all__ = [
    "APIRequest",
    "APIResponse",
    "Endpoint",
    "build_request",
    "build_http_request",
    "exchange",
    "interpret",
    "status_error",
    "transport_error",
    "Sleep",
    "GetCredentials",
    "RefreshCredentials",
    "Send",
    "ReadBody",
    "Discard",
    "Action",
]

T = TypeVar("T")

#: client-go's cap on the body text quoted in the error of a response that is not a Status.
MAX_ERROR_TEXT = 2048


@dataclass(frozen=True)
class APIRequest:
    """One API call: what generated clients ask the transport for."""

    method: str
    path: str
    """The path under the server's URL: `/apis/example.com/v1/namespaces/ns/widgets`."""
    query: Query = ()
    body: bytes | None = None
    content_type: str = JSON
    """The body's content type (a patch type for PATCH)."""
    accept: str = JSON
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float | None = None
    """Seconds for this call (None: the configuration's timeout; a watch's read timeout)."""
    resource: ResourceRef | None = None
    """What the call is about, for the errors of responses that are not a Status."""
    mode: Mode = "request"


@dataclass(frozen=True)
class APIResponse:
    """A success response, its body read."""

    status_code: int
    headers: httpx.Headers
    body: bytes = field(repr=False)
    warnings: tuple[WarningHeader, ...] = ()

    @property
    def content_type(self) -> str:
        """The response's `Content-Type`."""
        return str(self.headers.get("content-type", ""))

    def decode(self, result_type: type[T] | None = None) -> Any:
        """The body as `result_type` (see `codec.decode_body`)."""
        return decode_body(self.body, self.content_type, result_type, self.headers, self.warnings)


def accept_header(prefer_protobuf: bool) -> str:
    """The Accept header: JSON, or protobuf with JSON as fallback (for custom resources)."""
    return f"{PROTOBUF}, {JSON}" if prefer_protobuf else JSON


def build_request(
    method: str,
    path: str,
    *,
    query: Query = (),
    body: Any = None,
    content_type: str | None = None,
    prefer_protobuf: bool = False,
    headers: Sequence[tuple[str, str]] = (),
    timeout: float | None = None,
    resource: ResourceRef | None = None,
    mode: Mode = "request",
) -> APIRequest:
    """An APIRequest with its body encoded: a model as JSON, or in the protobuf envelope when
    `prefer_protobuf`; other data as JSON; bytes (a patch) as they are, of `content_type`."""
    if not path.startswith("/"):
        raise ValueError(f"an API path starts with '/', not {path!r}")
    is_model = callable(getattr(body, "to_json", None))
    body_type = content_type or (PROTOBUF if prefer_protobuf and is_model else JSON)
    encoded = None if body is None else encode_body(body, body_type)
    return APIRequest(
        method=method.upper(),
        path=path,
        query=tuple(query),
        body=encoded,
        content_type=body_type,
        accept=accept_header(prefer_protobuf),
        headers=tuple(headers),
        timeout=timeout,
        resource=resource,
        mode=mode,
    )


@dataclass(frozen=True)
class Endpoint:
    """What every request to one server shares, computed once from a ClientConfig."""

    base_url: str
    headers: tuple[tuple[str, str], ...]
    sni_hostname: str
    connect_timeout: float
    timeout: float | None
    authenticated: bool

    @classmethod
    def of(cls, config: ClientConfig, user_agent: str = "") -> Endpoint:
        """The endpoint of a configuration."""
        if not config.server.startswith(("https://", "http://")):
            raise ConfigError(
                f"{config.source or 'the configuration'}: the server URL must start with https:// (or http://), "
                f"not {config.server!r}"
            )
        headers = [("User-Agent", user_agent or config.user_agent or default_user_agent())]
        if config.disable_compression:
            headers.append(("Accept-Encoding", "identity"))
        if config.impersonate is not None:
            headers.extend(config.impersonate.headers())
        return cls(
            base_url=config.server.rstrip("/"),
            headers=tuple(headers),
            sni_hostname=config.tls.server_name,
            connect_timeout=config.connect_timeout,
            timeout=config.timeout,
            authenticated=config.credentials is not None,
        )


def build_http_request(endpoint: Endpoint, request: APIRequest, credentials: Credentials | None) -> httpx.Request:
    """The httpx request of an API request, with the endpoint's headers and the credentials."""
    headers = httpx.Headers(endpoint.headers)
    headers["Accept"] = request.accept
    if request.body is not None:
        headers["Content-Type"] = request.content_type
    for name, value in request.headers:
        headers[name] = value
    if credentials is not None:
        authorization = credentials.authorization()
        if authorization is not None:
            headers["Authorization"] = authorization
    read = request.timeout if request.timeout is not None or request.mode == "watch" else endpoint.timeout
    extensions: dict[str, Any] = {
        "timeout": httpx.Timeout(read, connect=endpoint.connect_timeout).as_dict(),
    }
    if endpoint.sni_hostname:
        extensions["sni_hostname"] = endpoint.sni_hostname
    return httpx.Request(
        request.method,
        endpoint.base_url + request.path,
        params=list(request.query),
        headers=headers,
        content=request.body,
        extensions=extensions,
    )


# -- the actions the transports carry out ------------------------------------------------------


@dataclass(frozen=True)
class Sleep:
    """Wait this many seconds (a retry's backoff, the rate limiter)."""

    seconds: float


@dataclass(frozen=True)
class GetCredentials:
    """Answer with the provider's current `Credentials`."""


@dataclass(frozen=True)
class RefreshCredentials:
    """The server rejected these credentials (401): answer whether new ones are worth a try."""

    rejected: Credentials


@dataclass(frozen=True)
class Send:
    """Send the request; answer with the response (its body read unless `stream`) or the
    `httpx.TransportError` that ended it."""

    request: httpx.Request
    stream: bool


@dataclass(frozen=True)
class ReadBody:
    """Read the whole body of a streamed response (an error response of a watch)."""

    response: httpx.Response


@dataclass(frozen=True)
class Discard:
    """Close a response that will not be used (one that is retried)."""

    response: httpx.Response


Action = Union[Sleep, GetCredentials, RefreshCredentials, Send, ReadBody, Discard]


def exchange(
    endpoint: Endpoint,
    request: APIRequest,
    policy: RetryPolicy,
    limiter: TokenBucket | None,
    rand: Callable[[], float] = random.random,
) -> Generator[Action, Any, httpx.Response]:
    """Send a request until it has a final response, as client-go's `Request.request` does:
    throttled by the rate limiter (not a watch, as client-go), repeated as `retry_delay`
    allows, and sent once more with new credentials after a 401 when the provider has them.
    Returns the final response (a watch's success unread); raises TransportError when the
    server cannot be reached."""
    streaming = request.mode != "request"
    throttle = limiter if request.mode != "watch" else None
    yield from _throttle(throttle)
    attempt = 0
    reauthenticated = False
    while True:
        credentials = (yield GetCredentials()) if endpoint.authenticated else None
        http_request = build_http_request(endpoint, request, credentials)
        outcome: httpx.Response | Exception = yield Send(http_request, streaming)
        if isinstance(outcome, httpx.Response):
            if outcome.status_code == 401 and credentials is not None and not reauthenticated:
                reauthenticated = True
                if (yield RefreshCredentials(credentials)):
                    yield Discard(outcome)
                    continue
            if outcome.status_code < 300:
                return outcome
        attempt += 1
        delay = retry_delay(policy, attempt, request.method, outcome, request.mode, rand)
        if delay is None:
            if isinstance(outcome, Exception):
                raise _transport_error(request, http_request, outcome)
            if streaming:
                yield ReadBody(outcome)
            return outcome
        if isinstance(outcome, httpx.Response):
            yield Discard(outcome)
        yield Sleep(delay)
        yield from _throttle(throttle)  # a retry waits for the rate limiter too, as in client-go


def _throttle(limiter: TokenBucket | None) -> Generator[Action, Any, None]:
    if limiter is not None:
        wait = limiter.reserve()
        if wait > 0:
            yield Sleep(wait)


def _transport_error(request: APIRequest, http_request: httpx.Request, error: Exception) -> TransportError:
    return transport_error(f"{request.method} {http_request.url.copy_with(query=None)}", error)


def transport_error(where: str, error: Exception) -> TransportError:
    """The TransportError (TransportTimeout for a timeout) of httpx's error, caused by it."""
    detail = str(error) or type(error).__name__
    if isinstance(error, httpx.TimeoutException):
        failure: TransportError = TransportTimeout(f"{where}: timed out ({detail})")
    else:
        failure = TransportError(f"{where}: {detail}")
    failure.__cause__ = error
    return failure


# -- interpreting the final response -----------------------------------------------------------


def _is_text(content_type: str) -> bool:
    """client-go's isTextResponse: no content type, or text/*."""
    return not content_type or media_type(content_type).startswith("text/")


def status_error(
    request: APIRequest, response: httpx.Response, warnings: Sequence[WarningHeader] = ()
) -> APIStatusError:
    """The error of a response that is not a success: its Status's, or the one client-go's
    `newUnstructuredResponseError` makes up from the code and the body's text."""
    content_type = response.headers.get("content-type", "")
    body = response.content
    status = decode_status(body, content_type)
    if status is None:
        text = "unknown"
        if _is_text(content_type):
            text = body[:MAX_ERROR_TEXT].decode("utf-8", errors="replace").strip()
        retry_after = retry_after_seconds(response.headers) or 0
        status = generic_server_response(response.status_code, request.method, request.resource, text, retry_after)
    return error_from_status(status, response.headers, warnings)


def interpret(request: APIRequest, response: httpx.Response) -> APIResponse:
    """The APIResponse of a final response (its body read), or the error it means."""
    warnings = tuple(parse_warning_headers(response.headers.get_list("warning")))
    if not 200 <= response.status_code <= 206:
        raise status_error(request, response, warnings)
    return APIResponse(response.status_code, response.headers, response.content, warnings)


def response_warnings(headers: Mapping[str, str] | httpx.Headers) -> list[WarningHeader]:
    """The warnings of a response's headers."""
    values = headers.get_list("warning") if isinstance(headers, httpx.Headers) else [headers.get("warning", "")]
    return parse_warning_headers(v for v in values if v)
