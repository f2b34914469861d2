"""The REST transport against a fake API server on loopback: Status errors as client-go maps
them, Warning headers, retries (client-go's rules, with sleeps recorded instead of taken),
rate limiting on a fake clock, watch streams (JSON and protobuf), query parameters, and the
async transport doing the same through the same core.

`FakeAPI` (and the `serve` fixture that starts it) is used by test_kubeconfig.py too.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from generated.example import v1
from generated.example.v1 import protobuf as _v1_protobuf  # noqa: F401  (registers Frobber's converters)
from kgen.runtime import protobuf
from kgen.runtime.apimachinery.meta.v1 import generated_pb2 as meta_pb2
from kgen.runtime.apimachinery.meta.v1 import protobuf as _meta_protobuf  # noqa: F401
from kgen.runtime.apimachinery.meta.v1.models import Status
from kgen.runtime.client import (
    APPLY_PATCH,
    AlreadyExists,
    APIStatusError,
    APIWarning,
    AsyncTransport,
    BadRequest,
    ClientConfig,
    Conflict,
    Expired,
    Forbidden,
    Gone,
    InternalError,
    Invalid,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    RequestEntityTooLarge,
    ResourceRef,
    RetryPolicy,
    ServerTimeout,
    ServiceUnavailable,
    StorageReadError,
    Timeout,
    TokenBucket,
    TooManyRequests,
    Transport,
    TransportError,
    TransportTimeout,
    Unauthorized,
    UnsupportedMediaType,
    WatchEvent,
    apply_query,
    create_query,
    delete_options,
    get_query,
    list_query,
    patch_query,
    resource_path,
    retry_on_conflict,
    retry_on_conflict_async,
    watch_query,
)
from kgen.runtime.client import errors
from kgen.runtime.client.config import default_user_agent
from kgen.runtime.client.errors import ConfigError
from kgen.runtime.client.retry import Backoff, retry_after_seconds
from kgen.runtime.client.transport import http2_available
from kgen.runtime.client.warning import PythonWarnings, WarningHeader, parse_warning_headers
from kgen.runtime.client.watch import WatchDecoder

# -- a fake API server ----------------------------------------------------------------------------


@dataclass
class Recorded:
    """A request the fake server received."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes
    client_cn: str = ""


@dataclass
class Reply:
    """What the fake server answers."""

    status: int = 200
    body: Any = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    content_type: str = "application/json"
    chunks: list[bytes] | None = None
    """Send these as a chunked stream (a watch), `delay` seconds apart."""
    delay: float = 0.0
    reset: bool = False
    """Close the connection without answering."""


def status_body(code: int, reason: str, message: str = "boom", **details: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up (timeouts, closed watches) are part of the tests


class FakeAPI:
    """A loopback HTTP (or HTTPS) server answering each request with `handler(request)`."""

    def __init__(self, handler: Callable[[Recorded], Reply], tls: ssl.SSLContext | None = None):
        self.handler = handler
        self.requests: list[Recorded] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as two writes

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                url = urlsplit(self.path)
                cn = ""
                if isinstance(self.connection, ssl.SSLSocket):
                    peer = self.connection.getpeercert() or {}
                    for rdn in peer.get("subject", ()):
                        for key, value in rdn:
                            if key == "commonName":
                                cn = value
                recorded = Recorded(
                    self.command,
                    url.path,
                    parse_qsl(url.query, keep_blank_values=True),
                    dict(self.headers.items()),
                    body,
                    cn,
                )
                fake.requests.append(recorded)
                reply = fake.handler(recorded)
                if reply.reset:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(reply.status)
                if reply.content_type:
                    self.send_header("Content-Type", reply.content_type)
                for name, value in reply.headers:
                    self.send_header(name, value)
                if reply.chunks is not None:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for chunk in reply.chunks:
                        time.sleep(reply.delay)
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    return
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                time.sleep(reply.delay)
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.scheme = "https" if tls is not None else "http"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeAPI]]:
    """Start fake servers for a test; they stop when it ends."""
    started: list[FakeAPI] = []

    def start(handler: Callable[[Recorded], Reply], tls: ssl.SSLContext | None = None) -> FakeAPI:
        fake = FakeAPI(handler, tls).__enter__()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.__exit__(None, None, None)


# -- helpers ----------------------------------------------------------------------------------------


def transport_for(fake: FakeAPI, **options: Any) -> Transport:
    options.setdefault("rate_limiter", None)
    options.setdefault("warning_handler", lambda warning: None)
    return Transport(ClientConfig(server=fake.url), **options)


FROBBER = {
    "apiVersion": "example.kgen.dev/v1",
    "kind": "Frobber",
    "metadata": {"name": "a", "namespace": "default", "resourceVersion": "7"},
    "spec": {"params": ["x"]},
}
PATH = resource_path("example.kgen.dev", "v1", "frobbers", "default", "a")


# -- Status errors ---------------------------------------------------------------------------------

STATUS_CASES = [
    (400, "BadRequest", BadRequest),
    (401, "Unauthorized", Unauthorized),
    (403, "Forbidden", Forbidden),
    (404, "NotFound", NotFound),
    (405, "MethodNotAllowed", MethodNotAllowed),
    (406, "NotAcceptable", NotAcceptable),
    (409, "AlreadyExists", AlreadyExists),
    (409, "Conflict", Conflict),
    (410, "Gone", Gone),
    (410, "Expired", Expired),
    (413, "RequestEntityTooLarge", RequestEntityTooLarge),
    (415, "UnsupportedMediaType", UnsupportedMediaType),
    (422, "Invalid", Invalid),
    (429, "TooManyRequests", TooManyRequests),
    (500, "InternalError", InternalError),
    (500, "StorageReadError", StorageReadError),
    (503, "ServiceUnavailable", ServiceUnavailable),
    (504, "Timeout", Timeout),
    (504, "ServerTimeout", ServerTimeout),
    # A reason apimachinery does not know: the code decides.
    (404, "SomethingNew", NotFound),
    (422, "", Invalid),
    (418, "", APIStatusError),
]


@pytest.mark.parametrize("code,reason,expected", STATUS_CASES)
def test_a_status_becomes_the_exception_of_its_reason_then_of_its_code(serve, code, reason, expected):
    fake = serve(lambda r: Reply(code, status_body(code, reason, "it failed"), headers=[("Audit-Id", "abc")]))
    with transport_for(fake, retry=RetryPolicy(max_retries=0)) as transport, pytest.raises(APIStatusError) as caught:
        transport.request("GET", PATH)
    assert type(caught.value) is expected
    assert (caught.value.code, caught.value.reason, str(caught.value)) == (code, reason, "it failed")
    assert caught.value.headers["audit-id"] == "abc"
    assert isinstance(caught.value.status, Status)


def test_invalid_keeps_the_causes_and_details(serve):
    causes = [{"reason": "FieldValueInvalid", "message": "Invalid value: -1", "field": "spec.replicas"}]
    body = status_body(
        422, "Invalid", 'Frobber.example.kgen.dev "a" is invalid', name="a", kind="Frobber", causes=causes
    )
    fake = serve(lambda r: Reply(422, body))
    with transport_for(fake) as transport, pytest.raises(Invalid) as caught:
        transport.request("POST", PATH, body=FROBBER)
    assert [(c.reason, c.field) for c in caught.value.causes] == [("FieldValueInvalid", "spec.replicas")]
    assert caught.value.details is not None and caught.value.details.name == "a"
    assert errors.is_invalid(caught.value) and errors.has_status_cause(caught.value, "FieldValueInvalid")
    assert (
        repr(caught.value) == "Invalid(code=422, reason='Invalid', message='Frobber.example.kgen.dev \"a\" is invalid')"
    )


def test_a_protobuf_status_is_decoded(serve):
    status = Status.from_dict(status_body(404, "NotFound", 'frobbers.example.kgen.dev "a" not found'))
    data = protobuf.encode_envelope("v1", "Status", protobuf.marshal(status))
    fake = serve(lambda r: Reply(404, data, content_type="application/vnd.kubernetes.protobuf"))
    with transport_for(fake, prefer_protobuf=True) as transport, pytest.raises(NotFound) as caught:
        transport.request("GET", PATH)
    assert str(caught.value) == 'frobbers.example.kgen.dev "a" not found'
    assert fake.requests[0].headers["Accept"] == "application/vnd.kubernetes.protobuf, application/json"


UNSTRUCTURED_CASES = [
    # (code, method, content type, body, class, message) as client-go's NewGenericServerResponse writes them
    (404, "GET", "text/plain", b"404 page not found\n", NotFound,
     "the server could not find the requested resource (get frobbers.example.kgen.dev a)"),
    (502, "GET", "text/html", b"<html>Bad Gateway</html>", InternalError,
     'an error on the server ("<html>Bad Gateway</html>") has prevented the request from succeeding '
     "(get frobbers.example.kgen.dev a)"),
    (409, "POST", "application/json", b'{"kind": "Frobber"}', AlreadyExists,
     "the server reported a conflict (post frobbers.example.kgen.dev a)"),
    (409, "PUT", "", b"", Conflict, "the server reported a conflict (put frobbers.example.kgen.dev a)"),
    (403, "GET", "application/json", b"{}", Forbidden, "unknown (get frobbers.example.kgen.dev a)"),
    (418, "GET", "text/plain", b"teapot", APIStatusError,
     "the server responded with the status code 418 but did not return more information (get frobbers.example.kgen.dev a)"),
]  # fmt: skip


@pytest.mark.parametrize("code,method,content_type,body,expected,message", UNSTRUCTURED_CASES)
def test_a_body_that_is_no_status_gets_client_gos_generated_message(
    serve, code, method, content_type, body, expected, message
):
    fake = serve(lambda r: Reply(code, body, content_type=content_type))
    resource = ResourceRef("example.kgen.dev", "frobbers", "a")
    with transport_for(fake) as transport, pytest.raises(APIStatusError) as caught:
        transport.request(method, PATH, resource=resource)
    assert type(caught.value) is expected
    assert str(caught.value) == message
    assert errors.is_unexpected_server_error(caught.value)


def test_a_status_error_pickles_and_an_empty_success_is_none(serve):
    import pickle

    error = errors.error_from_status(Status.from_dict(status_body(409, "Conflict", "stale")), {"audit-id": "1"})
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is Conflict and str(copy) == "stale" and copy.headers == {"audit-id": "1"}
    fake = serve(lambda r: Reply(204, b"", content_type=""))
    with transport_for(fake) as transport:
        assert transport.request("DELETE", PATH) is None


def test_the_is_helpers_answer_as_apimachinery():
    def error(code: int, reason: str) -> APIStatusError:
        return errors.error_from_status(Status.from_dict(status_body(code, reason)))

    assert errors.is_not_found(error(404, "")) and errors.is_not_found(error(404, "Weird"))
    assert not errors.is_not_found(error(404, "Conflict"))  # a known reason wins over the code
    assert errors.is_too_many_requests(error(429, "ServerTimeout"))  # 429 counts whatever the reason
    assert errors.is_request_entity_too_large(error(413, "Invalid"))
    assert errors.is_resource_expired(error(410, "Expired")) and not errors.is_gone(error(410, "Expired"))
    assert isinstance(error(410, "Expired"), Gone)  # but `except Gone` catches both 410s
    assert errors.is_server_timeout(error(500, "ServerTimeout")) and not errors.is_server_timeout(error(504, ""))
    wrapped = RuntimeError("while syncing")
    wrapped.__cause__ = error(409, "Conflict")
    assert errors.is_conflict(wrapped) and errors.reason_for_error(wrapped) == "Conflict"
    assert not errors.is_not_found(None) and not errors.is_not_found(ValueError())
    delayed = errors.error_from_status(Status.from_dict(status_body(500, "ServerTimeout", retryAfterSeconds=3)))
    assert errors.suggests_client_delay(delayed) == 3


# -- decoding successes ----------------------------------------------------------------------------


def test_a_response_decodes_into_the_model_and_json_data(serve):
    fake = serve(lambda r: Reply(200, FROBBER))
    with transport_for(fake) as transport:
        frobber = transport.request("GET", PATH, query=get_query(resource_version="7"), result_type=v1.Frobber)
        data = transport.request("GET", PATH)
        raw = transport.request("GET", PATH, result_type=bytes)
    assert isinstance(frobber, v1.Frobber) and frobber.metadata.resource_version == "7"
    assert data == FROBBER and json.loads(raw) == FROBBER
    assert fake.requests[0].query == [("resourceVersion", "7")]
    assert fake.requests[0].headers["Accept"] == "application/json"


def test_a_protobuf_response_decodes_into_the_model(serve):
    frobber = v1.Frobber.from_dict(FROBBER)
    fake = serve(lambda r: Reply(200, protobuf.encode(frobber), content_type="application/vnd.kubernetes.protobuf"))
    with transport_for(fake, prefer_protobuf=True) as transport:
        assert transport.request("GET", PATH, result_type=v1.Frobber) == frobber


def test_a_body_is_encoded_from_a_model_data_or_bytes(serve):
    fake = serve(lambda r: Reply(201, r.body))
    with transport_for(fake) as transport:
        created = transport.request("POST", PATH, body=v1.Frobber.from_dict(FROBBER), result_type=v1.Frobber)
        transport.request(
            "PATCH",
            PATH,
            body=b"metadata: {}",
            content_type=APPLY_PATCH,
            query=apply_query(field_manager="me"),
            result_type=bytes,
        )
    assert created.metadata.name == "a"
    assert fake.requests[0].headers["Content-Type"] == "application/json"
    assert fake.requests[1].headers["Content-Type"] == "application/apply-patch+yaml"
    assert fake.requests[1].query == [("fieldManager", "me")]


def test_a_failure_status_in_a_success_response_is_an_error_and_a_success_status_is_returned(serve):
    bodies = iter([{**status_body(200, "", "done"), "status": "Success"}, status_body(500, "InternalError")])
    fake = serve(lambda r: Reply(200, next(bodies)))
    with transport_for(fake) as transport:
        deleted = transport.request("DELETE", PATH, body=delete_options(), result_type=v1.Frobber)
        assert isinstance(deleted, Status) and deleted.status == "Success"
        with pytest.raises(InternalError):
            transport.request("DELETE", PATH, result_type=v1.Frobber)


def test_an_undecodable_success_says_what_it_expected(serve):
    fake = serve(lambda r: Reply(200, b"not json"))
    with transport_for(fake) as transport, pytest.raises(errors.ClientError, match="not a valid Frobber"):
        transport.request("GET", PATH, result_type=v1.Frobber)


# -- warnings --------------------------------------------------------------------------------------


def test_warnings_reach_the_callback(serve):
    headers = [("Warning", '299 - "v1beta1 Frobber is deprecated"'), ("Warning", '299 - "a, b", 299 kgen "second"')]
    fake = serve(lambda r: Reply(200, FROBBER, headers=headers))
    received: list[WarningHeader] = []
    with transport_for(fake, warning_handler=received.append) as transport:
        response = transport.request_raw("GET", PATH)
    assert [w.text for w in received] == ["v1beta1 Frobber is deprecated", "a, b", "second"]
    assert received[2].agent == "kgen" and response.warnings == tuple(received)


def test_warnings_go_to_python_warnings_once_each_by_default(serve):
    fake = serve(lambda r: Reply(200, FROBBER, headers=[("Warning", '299 - "deprecated"')]))
    with Transport(ClientConfig(server=fake.url), rate_limiter=None) as transport:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            transport.request("GET", PATH)
            transport.request("GET", PATH)
    assert [(w.category, str(w.message)) for w in caught] == [(APIWarning, "deprecated")]


def test_warnings_of_error_and_retried_responses_are_not_lost(serve):
    replies = iter([Reply(429, b"", headers=[("Retry-After", "0"), ("Warning", '299 - "first try"')]),
                    Reply(404, status_body(404, "NotFound"), headers=[("Warning", '299 - "second try"')])])  # fmt: skip
    fake = serve(lambda r: next(replies))
    received: list[WarningHeader] = []
    with transport_for(fake, warning_handler=received.append, sleep=lambda s: None) as transport:
        with pytest.raises(NotFound) as caught:
            transport.request("GET", PATH)
    assert [w.text for w in received] == ["first try", "second try"]
    assert [w.text for w in caught.value.warnings] == ["second try"]


@pytest.mark.parametrize(
    "headers,expected",
    [
        (['299 - "text"'], [(299, "-", "text")]),
        (['299 - "with \\"quotes\\"" "Wed, 21 Oct 2015 07:28:00 GMT", 199 agent "two"'], [(299, "-", 'with "quotes"'), (199, "agent", "two")]),
        (["299 -", '299 - "after a bad one"'], [(299, "-", "after a bad one")]),
        (['29 - "short code"', '299 - "unterminated'], []),
        (['299 - "=?UTF-8?Q?caf=C3=A9?="'], [(299, "-", "café")]),
    ],
)  # fmt: skip
def test_warning_headers_parse_as_apimachinery(headers, expected):
    assert [(w.code, w.agent, w.text) for w in parse_warning_headers(headers)] == expected


def test_the_default_warning_handler_skips_non_299_and_duplicates():
    handler = PythonWarnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for warning in (WarningHeader(199, "-", "misc"), WarningHeader(299, "-", "x"), WarningHeader(299, "-", "x")):
            handler(warning)
    assert [str(w.message) for w in caught] == ["x"]


# -- retries ---------------------------------------------------------------------------------------


def scripted(*replies: Reply) -> Callable[[Recorded], Reply]:
    """Answer with these replies in turn, then 200 with a Frobber."""
    queue = list(replies)
    return lambda r: queue.pop(0) if queue else Reply(200, FROBBER)


def test_429_and_503_with_retry_after_are_retried_after_the_delay_the_server_asked(serve):
    fake = serve(scripted(Reply(429, status_body(429, "TooManyRequests"), headers=[("Retry-After", "2")]),
                          Reply(503, b"", headers=[("Retry-After", "3")])))  # fmt: skip
    sleeps: list[float] = []
    with transport_for(fake, sleep=sleeps.append, rand=lambda: 0.0) as transport:
        assert transport.request("GET", PATH, result_type=v1.Frobber).metadata.name == "a"
    assert len(fake.requests) == 3 and sleeps == [2.0, 3.0]


def test_jitter_lengthens_and_never_shortens_the_wait(serve):
    fake = serve(scripted(Reply(429, b"", headers=[("Retry-After", "2")])))
    sleeps: list[float] = []
    with transport_for(fake, sleep=sleeps.append, rand=lambda: 0.5, retry=RetryPolicy(jitter=0.1)) as transport:
        transport.request("GET", PATH)
    assert sleeps == [pytest.approx(2.1)]


def test_retry_after_zero_backs_off_exponentially(serve):
    fake = serve(scripted(*[Reply(503, b"", headers=[("Retry-After", "0")])] * 4))
    sleeps: list[float] = []
    policy = RetryPolicy(backoff_base=0.1, backoff_max=0.3, jitter=0.0)
    with transport_for(fake, sleep=sleeps.append, retry=policy) as transport:
        transport.request("GET", PATH)
    assert sleeps == pytest.approx([0.1, 0.2, 0.3, 0.3])


def test_5xx_and_429_without_retry_after_are_not_retried(serve):
    for reply in (Reply(503, b"down"), Reply(429, b"", headers=[("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")])):
        fake = serve(scripted(reply))
        with transport_for(fake, sleep=lambda s: None) as transport, pytest.raises(APIStatusError):
            transport.request("GET", PATH)
        assert len(fake.requests) == 1


def test_a_write_is_retried_only_when_the_server_says_retry_after(serve):
    # client-go repeats any verb the server answers 429/5xx with Retry-After (it did not take
    # the request); without the header a POST that failed with 5xx is the caller's error.
    fake = serve(scripted(Reply(500, status_body(500, "InternalError"))))
    with transport_for(fake, sleep=lambda s: None) as transport, pytest.raises(InternalError):
        transport.request("POST", PATH, body=FROBBER)
    assert len(fake.requests) == 1
    fake = serve(scripted(Reply(503, b"", headers=[("Retry-After", "1")])))
    with transport_for(fake, sleep=lambda s: None) as transport:
        transport.request("POST", PATH, body=FROBBER)
    assert len(fake.requests) == 2 and fake.requests[0].body == fake.requests[1].body


def test_a_broken_connection_is_retried_for_get_only(serve):
    fake = serve(scripted(Reply(reset=True)))
    sleeps: list[float] = []
    with transport_for(fake, sleep=sleeps.append, rand=lambda: 0.0) as transport:
        transport.request("GET", PATH)
    assert len(fake.requests) == 2 and sleeps == [1.0]  # client-go's made-up `Retry-After: 1`
    fake = serve(scripted(Reply(reset=True)))
    with transport_for(fake, sleep=lambda s: None) as transport, pytest.raises(TransportError):
        transport.request("PUT", PATH, body=FROBBER)
    assert len(fake.requests) == 1


def test_retries_stop_after_max_retries(serve):
    fake = serve(lambda r: Reply(429, status_body(429, "TooManyRequests"), headers=[("Retry-After", "1")]))
    sleeps: list[float] = []
    with transport_for(fake, sleep=sleeps.append, retry=RetryPolicy(max_retries=3)) as transport:
        with pytest.raises(TooManyRequests) as caught:
            transport.request("GET", PATH)
    assert len(fake.requests) == 4 and len(sleeps) == 3
    assert caught.value.headers["retry-after"] == "1"


def test_a_wait_can_be_capped(serve):
    fake = serve(scripted(Reply(429, b"", headers=[("Retry-After", "3600")])))
    sleeps: list[float] = []
    with transport_for(fake, sleep=sleeps.append, retry=RetryPolicy(max_wait=5.0)) as transport:
        transport.request("GET", PATH)
    assert sleeps == [5.0]


def test_retry_after_is_read_as_client_go_reads_it():
    assert [retry_after_seconds(httpx.Headers({"Retry-After": v})) for v in ("5", "+5", "0", "1.5", "soon", "")] == [
        5, 5, 0, None, None, None,
    ]  # fmt: skip
    assert retry_after_seconds(httpx.Headers()) is None


def test_a_server_that_cannot_be_reached_is_a_transport_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with Transport(ClientConfig(server=f"http://127.0.0.1:{port}"), rate_limiter=None) as transport:
        with pytest.raises(TransportError, match=f"GET http://127.0.0.1:{port}/api/v1/nodes") as caught:
            transport.request("GET", "/api/v1/nodes")
    assert isinstance(caught.value.__cause__, httpx.ConnectError)


def test_a_request_that_takes_too_long_times_out(serve):
    fake = serve(lambda r: Reply(200, FROBBER, delay=0.5))
    with transport_for(fake, retry=RetryPolicy(max_retries=0)) as transport, pytest.raises(TransportTimeout):
        transport.request("GET", PATH, timeout=0.05)


# -- read-modify-write loops -----------------------------------------------------------------------


def _conflict() -> Conflict:
    return Conflict(Status.from_dict(status_body(409, "Conflict")))


def test_retry_on_conflict_repeats_until_the_update_goes_through():
    calls: list[int] = []
    sleeps: list[float] = []

    def update() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise _conflict()
        return "updated"

    assert retry_on_conflict(update, sleep=sleeps.append, rand=lambda: 0.0) == "updated"
    assert len(calls) == 3 and sleeps == [0.01, 0.01]


def test_retry_on_conflict_gives_up_after_the_steps_and_passes_other_errors():
    calls: list[int] = []

    def always_conflicts() -> None:
        calls.append(1)
        raise _conflict()

    with pytest.raises(Conflict):
        retry_on_conflict(always_conflicts, sleep=lambda s: None)
    assert len(calls) == 5  # DefaultRetry: 5 steps

    def not_found() -> None:
        calls.append(1)
        raise NotFound(Status.from_dict(status_body(404, "NotFound")))

    calls.clear()
    with pytest.raises(NotFound):
        retry_on_conflict(not_found, sleep=lambda s: None)
    assert len(calls) == 1


def test_backoff_steps_as_apimachinery():
    assert list(Backoff(duration=0.01, factor=5.0, jitter=0.0, steps=4).sleeps()) == pytest.approx([0.01, 0.05, 0.25])
    assert list(Backoff(duration=1, factor=2.0, jitter=0.5, steps=3).sleeps(lambda: 1.0)) == [1.5, 3.0]
    # Reaching the cap ends the steps: Go sleeps once more and stops, kgen stops at once.
    assert list(Backoff(duration=1, factor=10.0, jitter=0.0, steps=5, cap=50).sleeps()) == [1]


def test_retry_on_conflict_async():
    calls: list[int] = []

    async def update() -> str:
        calls.append(1)
        if len(calls) < 2:
            raise _conflict()
        return "ok"

    async def no_sleep(seconds: float) -> None:
        pass

    assert asyncio.run(retry_on_conflict_async(update, sleep=no_sleep)) == "ok"
    assert len(calls) == 2


# -- rate limiting ---------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_the_token_bucket_allows_a_burst_then_the_rate():
    clock = FakeClock()
    bucket = TokenBucket(qps=2, burst=3, clock=clock)
    assert [bucket.reserve() for _ in range(5)] == [0, 0, 0, 0.5, 1.0]
    clock.now += 10  # tokens refill up to the burst, not beyond
    assert [bucket.reserve() for _ in range(4)] == [0, 0, 0, 0.5]


def test_requests_wait_for_the_rate_limiter_but_watches_do_not(serve):
    clock = FakeClock()
    fake = serve(lambda r: Reply(200, FROBBER) if ("watch", "true") not in r.query else Reply(200, chunks=[]))
    bucket = TokenBucket(qps=5, burst=1, clock=clock)
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.sleep(seconds)

    with transport_for(fake, rate_limiter=bucket, sleep=sleep) as transport:
        for _ in range(3):
            transport.request("GET", PATH)
        list(transport.watch(PATH, query=watch_query()))
    assert sleeps == pytest.approx([0.2, 0.2])


def test_the_async_transport_waits_for_the_same_limiter(serve):
    clock = FakeClock()
    fake = serve(lambda r: Reply(200, FROBBER))
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.sleep(seconds)

    async def main() -> None:
        bucket = TokenBucket(qps=10, burst=2, clock=clock)
        async with async_transport(fake, rate_limiter=bucket, sleep=sleep) as transport:
            for _ in range(4):
                await transport.request("GET", PATH)

    asyncio.run(main())
    assert sleeps == pytest.approx([0.1, 0.1])


def test_the_default_limiter_is_kubectls_and_negative_qps_disables_it(serve):
    fake = serve(lambda r: Reply(200, FROBBER))
    with Transport(ClientConfig(server=fake.url)) as transport:
        assert transport.rate_limiter is not None
        assert (transport.rate_limiter.qps, transport.rate_limiter.burst) == (50.0, 300)
    with Transport(ClientConfig(server=fake.url, qps=-1)) as transport:
        assert transport.rate_limiter is None


# -- watch -----------------------------------------------------------------------------------------


def _event(kind: str, obj: dict[str, Any]) -> bytes:
    return json.dumps({"type": kind, "object": obj}).encode() + b"\n"


def _frobber(rv: str) -> dict[str, Any]:
    return {**FROBBER, "metadata": {**FROBBER["metadata"], "resourceVersion": rv}}


def test_a_json_watch_yields_typed_events_across_chunk_boundaries(serve):
    stream = (
        _event("ADDED", _frobber("8"))
        + _event("MODIFIED", _frobber("9"))
        + _event(
            "BOOKMARK", {"kind": "Frobber", "apiVersion": "example.kgen.dev/v1", "metadata": {"resourceVersion": "12"}}
        )
    )
    chunks = [stream[:17], stream[17:100], stream[100:]]
    fake = serve(lambda r: Reply(200, chunks=chunks, content_type="application/json;stream=watch"))
    with transport_for(fake) as transport:
        query = watch_query(resource_version="7", allow_watch_bookmarks=True, timeout_seconds=30)
        with transport.watch(
            resource_path("example.kgen.dev", "v1", "frobbers", "default"), query=query, result_type=v1.Frobber
        ) as events:
            seen = [(e.type, e.object.metadata.resource_version) for e in events]
    assert seen == [("ADDED", "8"), ("MODIFIED", "9"), ("BOOKMARK", "12")]
    assert fake.requests[0].query == [
        ("watch", "true"),
        ("allowWatchBookmarks", "true"),
        ("resourceVersion", "7"),
        ("timeoutSeconds", "30"),
    ]


def test_an_error_event_raises_the_error_of_its_status(serve):
    expired = status_body(410, "Expired", "too old resource version: 7 (12)")
    fake = serve(lambda r: Reply(200, chunks=[_event("ADDED", _frobber("8")), _event("ERROR", expired)]))
    with transport_for(fake) as transport:
        events = transport.watch(PATH, query=watch_query(), result_type=v1.Frobber)
        received: list[WatchEvent[v1.Frobber]] = []
        with pytest.raises(Gone) as caught:
            for event in events:
                received.append(event)
    assert len(received) == 1 and isinstance(caught.value, Expired)
    assert str(caught.value) == "too old resource version: 7 (12)"


def test_a_watch_that_cannot_start_raises_the_status_error(serve):
    fake = serve(lambda r: Reply(403, status_body(403, "Forbidden", "frobbers is forbidden")))
    with transport_for(fake) as transport, pytest.raises(Forbidden, match="frobbers is forbidden"):
        transport.watch(PATH, query=watch_query())


def test_an_undecodable_event_is_client_gos_internal_error(serve):
    fake = serve(lambda r: Reply(200, chunks=[b'{"type": "ADDED", "object": {"metadata": 5}}\n']))
    with transport_for(fake) as transport, pytest.raises(InternalError) as caught:
        list(transport.watch(PATH, query=watch_query(), result_type=v1.Frobber))
    assert errors.has_status_cause(caught.value, "ClientWatchDecoding")


def test_a_silent_watch_ends_at_its_read_timeout(serve):
    fake = serve(lambda r: Reply(200, chunks=[_event("ADDED", _frobber("8")), b""], delay=0.3))
    with transport_for(fake) as transport:
        stream = transport.watch(PATH, query=watch_query(), result_type=v1.Frobber, read_timeout=0.1)
        assert list(stream) == []
    assert isinstance(stream.ended_by, httpx.ReadTimeout)


def _protobuf_frame(kind: str, raw: bytes) -> bytes:
    message = meta_pb2.WatchEvent(type=kind)
    message.object.raw = raw
    data = message.SerializeToString()
    return len(data).to_bytes(4, "big") + data


def test_a_protobuf_watch_decodes_length_prefixed_frames():
    frames = b"".join(
        _protobuf_frame("ADDED", protobuf.encode(v1.Frobber.from_dict(_frobber(str(rv))))) for rv in (8, 9)
    )
    decoder: WatchDecoder[v1.Frobber] = WatchDecoder("application/vnd.kubernetes.protobuf;stream=watch", v1.Frobber)
    events = [e for i in range(0, len(frames), 7) for e in decoder.feed(frames[i : i + 7])]
    assert [(e.type, e.object.metadata.resource_version) for e in events] == [("ADDED", "8"), ("ADDED", "9")]
    status = Status.from_dict(status_body(410, "Gone", "gone"))
    with pytest.raises(Gone):
        decoder.feed(_protobuf_frame("ERROR", protobuf.encode_envelope("v1", "Status", protobuf.marshal(status))))


def test_a_protobuf_watch_through_the_transport(serve):
    frames = [_protobuf_frame("ADDED", protobuf.encode(v1.Frobber.from_dict(_frobber("8"))))]
    fake = serve(lambda r: Reply(200, chunks=frames, content_type="application/vnd.kubernetes.protobuf;stream=watch"))
    with transport_for(fake, prefer_protobuf=True) as transport:
        events = list(transport.watch(PATH, query=watch_query(), result_type=v1.Frobber))
    assert [(e.type, e.object.metadata.resource_version) for e in events] == [("ADDED", "8")]
    assert fake.requests[0].headers["Accept"].startswith("application/vnd.kubernetes.protobuf")


# -- requests as client-go sends them --------------------------------------------------------------


def test_query_parameters_leave_zero_values_out():
    assert list_query() == ()
    assert list_query(label_selector="app=web", limit=500, continue_="tok", resource_version="0",
                      resource_version_match="NotOlderThan") == (
        ("labelSelector", "app=web"), ("resourceVersion", "0"), ("resourceVersionMatch", "NotOlderThan"),
        ("limit", "500"), ("continue", "tok"),
    )  # fmt: skip
    assert watch_query(send_initial_events=False) == (("watch", "true"), ("sendInitialEvents", "false"))
    assert create_query(dry_run=True, field_manager="ctl", field_validation="Strict") == (
        ("dryRun", "All"), ("fieldManager", "ctl"), ("fieldValidation", "Strict"),
    )  # fmt: skip
    assert patch_query(force=True, field_manager="ctl") == (("force", "true"), ("fieldManager", "ctl"))
    assert apply_query(field_manager="ctl", force=True) == (("force", "true"), ("fieldManager", "ctl"))
    with pytest.raises(ValueError, match="field manager"):
        apply_query(field_manager="")
    assert delete_options(propagation_policy="Foreground", grace_period_seconds=0, precondition_resource_version="7") == {
        "kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": 0,
        "preconditions": {"resourceVersion": "7"}, "propagationPolicy": "Foreground",
    }  # fmt: skip


def test_resource_paths():
    assert resource_path("", "v1", "pods", "ns", "p", "status") == "/api/v1/namespaces/ns/pods/p/status"
    assert resource_path("example.kgen.dev", "v1", "widgets") == "/apis/example.kgen.dev/v1/widgets"
    assert resource_path("rbac.authorization.k8s.io", "v1", "clusterroles", name="system:admin") == (
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:admin"
    )
    for bad in ("..", "a/b", "50%"):
        with pytest.raises(ValueError):
            resource_path("", "v1", "pods", "ns", bad)


def test_the_user_agent_is_shaped_like_client_gos(serve):
    fake = serve(lambda r: Reply(200, FROBBER))
    with transport_for(fake) as transport:
        transport.request("GET", PATH)
    agent = fake.requests[0].headers["User-Agent"]
    assert agent == default_user_agent()
    assert __import__("re").fullmatch(r"kgen/\d+\.\d+\.\d+\S* \([a-z0-9]+/[a-z0-9_]+\) python/3\.\d+\.\d+\S*", agent)


def test_http2_is_used_only_when_h2_is_installed(serve):
    fake = serve(lambda r: Reply(200, FROBBER))
    with transport_for(fake) as transport:
        assert transport.http2 is http2_available()
        transport.request("GET", PATH)  # HTTP/1.1 servers still answer
    if not http2_available():
        with pytest.raises(ConfigError, match="h2"):
            transport_for(fake, http2=True)


# -- async -----------------------------------------------------------------------------------------


def async_transport(fake: FakeAPI, **options: Any) -> AsyncTransport:
    options.setdefault("rate_limiter", None)
    options.setdefault("warning_handler", lambda warning: None)
    return AsyncTransport(ClientConfig(server=fake.url), **options)


def test_the_async_transport_decodes_raises_and_retries_the_same_way(serve):
    fake = serve(scripted(Reply(429, b"", headers=[("Retry-After", "4"), ("Warning", '299 - "slow down"')]),
                          Reply(404, status_body(404, "NotFound", "nope"))))  # fmt: skip
    sleeps: list[float] = []
    received: list[WarningHeader] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def main() -> v1.Frobber:
        async with async_transport(fake, sleep=sleep, rand=lambda: 0.0, warning_handler=received.append) as transport:
            with pytest.raises(NotFound, match="nope"):
                await transport.request("GET", PATH)
            return await transport.request("GET", PATH, result_type=v1.Frobber)

    assert asyncio.run(main()).metadata.name == "a"
    assert sleeps == [4.0] and [w.text for w in received] == ["slow down"]


def test_the_async_watch(serve):
    expired = status_body(410, "Expired", "too old")
    chunks = [_event("ADDED", _frobber("8"))[:10], _event("ADDED", _frobber("8"))[10:], _event("ERROR", expired)]
    fake = serve(lambda r: Reply(200, chunks=chunks))

    async def main() -> list[str]:
        seen: list[str] = []
        async with async_transport(fake) as transport:
            async with await transport.watch(PATH, query=watch_query(), result_type=v1.Frobber) as events:
                with pytest.raises(Expired):
                    async for event in events:
                        seen.append(event.object.metadata.resource_version)
        return seen

    assert asyncio.run(main()) == ["8"]
