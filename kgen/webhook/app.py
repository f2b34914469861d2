"""The webhook application: one object that answers every review of an API, in process
(`review(path, body)`) and as an ASGI application (`asgi()`).

Paths: the conversion webhook at `/convert` (kubebuilder's, and what the CRD generator
writes), and each admission webhook at its own path (`/mutate-<group>-<version>-<kind>`
and `/validate-...`, as kubebuilder names them, or what a `+kubebuilder:webhook` marker
says). `/healthz` and `/readyz` answer 200 for probes.

The ASGI application needs no web framework: it reads a POST body of `application/json`
(up to 7 MiB for admission, as controller-runtime's pkg/webhook/admission/http.go
`maxRequestSize` allows two objects of the API server's 3 MiB; 64 MiB for conversion, whose
lists are longer), answers 200 with the review, and a `Status` (400, 404, 405, 413, 415)
for a request that is not a review of one of its paths.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

import orjson

from kgen.runtime import gojson
from kgen.runtime.errors import APIError
from kgen.runtime.scheme import SCHEME, Scheme
from kgen.webhook.admission import Admission, Hooks
from kgen.webhook.conversion import Converter
from kgen.webhook.records import Resource, Route, malformed

#: The largest admission review body read (controller-runtime's limit).
MAX_ADMISSION_BODY = 7 * 1024 * 1024
#: The largest conversion review body read (the objects of a whole list page).
MAX_CONVERSION_BODY = 64 * 1024 * 1024

HEALTH_PATHS = ("/healthz", "/readyz")

ASGIScope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def kubebuilder_path(mutating: bool, group: str, version: str, kind: str) -> str:
    """kubebuilder's admission path: `/mutate-example-kgen-dev-v1-frobber` (or `/validate-...`)."""
    verb = "mutate" if mutating else "validate"
    return f"/{verb}-{group.replace('.', '-')}-{version}-{kind.lower()}"


class Webhooks:
    """The conversion and admission webhooks of an API's custom resources."""

    def __init__(
        self,
        resources: Iterable[Resource],
        routes: Iterable[Route] | None = None,
        *,
        scheme: Scheme = SCHEME,
        conversion_path: str = "/convert",
        feature_gates: Mapping[str, bool] | None = None,
        delete_validators: Hooks | None = None,
        create_warnings: Hooks | None = None,
        update_warnings: Hooks | None = None,
        preserve: bool = True,
    ):
        """`routes` default to kubebuilder's two paths per kind and served version;
        `feature_gates` are what admission sees (conversion sees every gate on); `preserve`
        keeps what a version cannot hold in an annotation (`kgen.webhook.conversion`)."""
        self.resources = tuple(resources)
        if routes is None:
            routes = default_routes(self.resources)
        self.routes = {route.path: route for route in routes}
        self.conversion_path = conversion_path
        self.converter = Converter(self.resources, scheme, preserve)
        self.admission = Admission(
            self.resources, scheme, feature_gates, delete_validators, create_warnings, update_warnings
        )

    def convert(self, body: Any) -> dict[str, Any]:
        """Answer a ConversionReview."""
        return self.converter.review(body)

    def mutate(self, body: Any, kinds: Iterable[tuple[str, str]] | None = None) -> dict[str, Any]:
        """Answer an AdmissionReview as the mutating (defaulting) webhook."""
        return self.admission.review(body, True, kinds)

    def validate(self, body: Any, kinds: Iterable[tuple[str, str]] | None = None) -> dict[str, Any]:
        """Answer an AdmissionReview as the validating webhook."""
        return self.admission.review(body, False, kinds)

    def review(self, path: str, body: Any) -> dict[str, Any]:
        """Answer the review sent to `path`; `APIError` 404 for a path this app does not
        serve, `ReviewError` (400) for a body that is not the review the path answers."""
        if path == self.conversion_path:
            return self.convert(body)
        route = self.routes.get(path)
        if route is None:
            raise APIError(404, "NotFound", f"the webhook serves no path {path!r}")
        return self.admission.review(body, route.mutating, route.kinds)

    @property
    def paths(self) -> list[str]:
        """Every review path, the conversion path first."""
        return [self.conversion_path, *sorted(self.routes)]

    def asgi(self) -> WebhookASGI:
        """This application as an ASGI application (for uvicorn, or httpx's ASGITransport)."""
        return WebhookASGI(self)


def default_routes(resources: Iterable[Resource]) -> list[Route]:
    """kubebuilder's mutating and validating path for every kind in every served version."""
    return [
        Route(kubebuilder_path(mutating, r.group, version, r.kind), mutating, ((r.group, r.kind),))
        for r in resources
        for version in r.versions
        for mutating in (True, False)
    ]


class WebhookASGI:
    """The ASGI application of `Webhooks`."""

    def __init__(self, webhooks: Webhooks):
        self.webhooks = webhooks

    async def __call__(self, scope: ASGIScope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path, method = scope.get("path", ""), scope.get("method", "")
        if path in HEALTH_PATHS:
            await _respond(send, 200, b"ok", b"text/plain; charset=utf-8")
            return
        try:
            body = await self._answer(scope, receive, path, method)
        except APIError as error:
            await _respond(send, error.code, error.to_status().to_json())
            return
        await _respond(send, 200, body)

    async def _answer(self, scope: ASGIScope, receive: Receive, path: str, method: str) -> bytes:
        if path != self.webhooks.conversion_path and path not in self.webhooks.routes:
            raise APIError(404, "NotFound", f"the webhook serves no path {path!r}")
        if method != "POST":
            raise APIError(405, "MethodNotAllowed", f"{method} is not supported: reviews are POSTed")
        content_type = _header(scope, b"content-type").split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            raise APIError(
                415, "UnsupportedMediaType", f"the content type {content_type or '(none)'!r} is not application/json"
            )
        limit = MAX_CONVERSION_BODY if path == self.webhooks.conversion_path else MAX_ADMISSION_BODY
        data = await _read_body(receive, limit)
        if not data:
            raise malformed("the request body is empty")
        try:
            body = orjson.loads(data)
        except orjson.JSONDecodeError as error:
            raise malformed(f"the request body is not JSON: {error}") from None
        return gojson.marshal_struct(self.webhooks.review(path, body))


def _header(scope: ASGIScope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise APIError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _respond(send: Send, code: int, body: bytes, content_type: bytes = b"application/json") -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": code, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
