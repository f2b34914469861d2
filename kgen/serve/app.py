"""The ASGI application: routes, dispatch to the verbs, errors as Status objects.

    /healthz /livez /readyz /version                    health and version
    /api /apis /apis/<g> /api/v1 /apis/<g>/<v>          discovery (aggregated on request)
    /openapi/v2 /openapi/v3 /openapi/v3/<path>          OpenAPI documents
    /api/v1/...  /apis/<g>/<v>/...                      resources:
        <plural>                                        list, watch (all namespaces), create (cluster-scoped)
        namespaces/<ns>/<plural>                        list, watch, create, deletecollection
        [namespaces/<ns>/]<plural>/<name>[/status]      get, update, patch, delete
        watch/...                                       the deprecated watch paths

Every failure is a `Status` with the code and reason of the API conventions; a path the
server does not know is 404, a verb a path does not take is 405. Middleware: the bearer
token (when the server requires one), then the in-flight limits (429).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.exceptions import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from kgen import __version__
from kgen.runtime.errors import APIError
from kgen.serve import discovery, handlers, namespaces, patching, watching
from kgen.serve.api import ServedAPI
from kgen.serve.limits import InflightLimit
from kgen.serve.negotiation import JSON, SERIALIZERS, Representation, negotiate, parse_accept
from kgen.serve.openapi import Documents
from kgen.serve.respond import encode_json, error_response, respond, warning_header
from kgen.serve.security import BearerTokenAuth, HostCheck

log = logging.getLogger("kgen.serve")

#: The Kubernetes release whose API the server speaks (what /version reports): its error texts
#: and custom resource behaviour are checked against that release's API server
#: (`python -m bench.conformance.cluster`).
KUBERNETES_MAJOR, KUBERNETES_MINOR = "1", "36"
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def not_found() -> APIError:
    """404 for a path the server does not serve."""
    return APIError(404, "NotFound", "the server could not find the requested resource")


def method_not_allowed() -> APIError:
    """405 for a verb the path does not take."""
    return APIError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


@dataclass
class ServerState:
    """What the routes share."""

    api: ServedAPI
    documents: Documents
    server_address: str = ""
    watches: watching.WatchRegistry = field(default_factory=watching.WatchRegistry)


def _json(request: Request, data: Any, content_type: str = JSON) -> Response:
    pretty = request.query_params.get("pretty") in ("true", "1")
    return respond(request, encode_json(data, pretty), content_type)


def _guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Errors as Status responses; anything unexpected is a logged 500."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except APIError as error:
            response = error_response(request, error, _error_representation(request))
        except Exception as error:  # noqa: BLE001 - the last line of defence: a Status, logged
            log.exception("%s %s failed", request.method, request.url.path)
            internal = APIError(500, "InternalError", f"Internal error occurred: {type(error).__name__}: {error}")
            response = error_response(request, internal, _error_representation(request))
        # Warnings found before the failure (unknown fields with fieldValidation=Warn) still count.
        for warning in getattr(request.state, "warnings", ()):
            response.headers.append("Warning", warning_header(warning))
        return response

    return endpoint


def _error_representation(request: Request) -> Representation | None:
    """How a Status is written: in the first of the endpoint's serializers the client accepts,
    else JSON (a custom resource's errors are never protobuf)."""
    try:
        return negotiate(request.headers.get("accept", ""), allowed=getattr(request.state, "serializers", SERIALIZERS))
    except APIError:
        return None


def create_app(
    api: ServedAPI,
    *,
    token: str | None = None,
    server_address: str = "",
    max_requests_inflight: int = 400,
    max_mutating_requests_inflight: int = 200,
    allowed_hosts: frozenset[str] | None = None,
    request_timeout: float | None = 60.0,
) -> Any:
    """The ASGI application serving `api` (wrapped in the token check, the Host check of a
    loopback server when `allowed_hosts` names its names, and the in-flight limits)."""
    state = ServerState(api, Documents(api), server_address)

    async def health(request: Request) -> Response:
        return Response(b"ok", media_type="text/plain")

    async def ready(request: Request) -> Response:
        # Ready when the storage answers (kube-apiserver's readyz checks etcd the same way).
        try:
            await asyncio.wait_for(asyncio.to_thread(api.engine.current_revision), timeout=5)
        except Exception as error:  # noqa: BLE001 - any failure means not ready
            return Response(
                f"[-]storage failed: {error}\nreadyz check failed".encode(), status_code=500, media_type="text/plain"
            )
        return Response(b"ok", media_type="text/plain")

    async def version(request: Request) -> Response:
        return _json(request, {
            "major": KUBERNETES_MAJOR, "minor": KUBERNETES_MINOR, "gitVersion": f"v{KUBERNETES_MAJOR}.{KUBERNETES_MINOR}.0+kgen.{__version__}",
            "gitCommit": "", "gitTreeState": "clean", "buildDate": "", "goVersion": "", "compiler": "kgen",
            "platform": "python",
        })  # fmt: skip

    async def core_root(request: Request) -> Response:
        _get_only(request)
        aggregated = discovery.wants_aggregated(request.headers.get("accept", ""))
        if aggregated:
            return _json(
                request,
                discovery.aggregated(api, core=True, version=aggregated),
                discovery.aggregated_content_type(aggregated),
            )
        return _json(request, discovery.api_versions(state.server_address or request.url.netloc))

    async def groups_root(request: Request) -> Response:
        _get_only(request)
        aggregated = discovery.wants_aggregated(request.headers.get("accept", ""))
        if aggregated:
            return _json(
                request,
                discovery.aggregated(api, core=False, version=aggregated),
                discovery.aggregated_content_type(aggregated),
            )
        return _json(request, discovery.api_group_list(api))

    async def group_root(request: Request) -> Response:
        _get_only(request)
        found = discovery.api_group(api, request.path_params["group"])
        if found is None:
            raise not_found()
        return _json(request, found)

    async def group_version_root(request: Request) -> Response:
        _get_only(request)
        group = request.path_params.get("group", "")
        found = discovery.api_resource_list(api, group, request.path_params["version"])
        if found is None:
            raise not_found()
        return _json(request, found)

    async def openapi_v2(request: Request) -> Response:
        _get_only(request)
        accepted = [m.type for m in parse_accept(request.headers.get("accept", ""))]
        if accepted and not any(t in ("application/json", "*/*", "application/*") for t in accepted):
            raise APIError(406, "NotAcceptable", "only the following media types are accepted: application/json")
        return respond(request, state.documents.v2, JSON)

    async def openapi_v3_index(request: Request) -> Response:
        _get_only(request)
        return _json(request, state.documents.index())

    async def openapi_v3(request: Request) -> Response:
        _get_only(request)
        key = request.path_params["path"].strip("/")
        body = state.documents.v3.get(key)
        if body is None:
            raise not_found()
        digest = state.documents.v3_hashes[key]
        headers = {"ETag": f'"{digest}"'}
        if request.query_params.get("hash") == digest:
            headers["Cache-Control"] = "public, immutable"
            headers["Expires"] = "Thu, 31 Dec 2099 23:59:59 GMT"
        elif request.query_params.get("hash"):
            return Response(status_code=301, headers={"Location": f"/openapi/v3/{key}?hash={digest}"})
        return respond(request, body, JSON, headers=headers)

    async def resources(request: Request) -> Response:
        group = request.path_params.get("group", "")
        version = request.path_params["version"]
        rest = [segment for segment in request.path_params["rest"].split("/") if segment != ""]
        writes = request.method in ("POST", "PUT", "PATCH", "DELETE")
        if not writes or (group != "apiextensions.k8s.io" and group not in state.api.terminating_groups):
            return await _dispatch(request, state, group, version, rest)
        try:
            return await _dispatch(request, state, group, version, rest)
        finally:  # what the CRDs now define is served, as the API server's CRD controllers do
            await asyncio.to_thread(state.api.sync_custom_resources)
            state.documents = Documents(state.api)

    async def unknown(request: Request) -> Response:
        raise not_found()

    routes = [
        Route("/healthz", _guarded(health), methods=["GET", "HEAD"]),
        Route("/livez", _guarded(health), methods=["GET", "HEAD"]),
        Route("/readyz", _guarded(ready), methods=["GET", "HEAD"]),
        # Discovery with and without the trailing slash, as kube-apiserver serves it (the
        # official Python client asks for /apis/ and /version/).
        *(
            Route(path + slash, _guarded(handler), methods=methods)
            for path, handler, methods in (
                ("/version", version, ["GET"]),
                ("/api", core_root, _ALL_METHODS),
                ("/apis", groups_root, _ALL_METHODS),
                ("/api/{version}", group_version_root, _ALL_METHODS),
                ("/apis/{group}", group_root, _ALL_METHODS),
                ("/apis/{group}/{version}", group_version_root, _ALL_METHODS),
            )
            for slash in ("", "/")
        ),
        Route("/openapi/v2", _guarded(openapi_v2), methods=_ALL_METHODS),
        Route("/openapi/v3", _guarded(openapi_v3_index), methods=_ALL_METHODS),
        Route("/openapi/v3/{path:path}", _guarded(openapi_v3), methods=_ALL_METHODS),
        Route("/api/{version}/{rest:path}", _guarded(resources), methods=_ALL_METHODS),
        Route("/apis/{group}/{version}/{rest:path}", _guarded(resources), methods=_ALL_METHODS),
        Route("/{path:path}", _guarded(unknown), methods=_ALL_METHODS),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        state.watches.close_all()
        api.stopping.set()

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: _routing_error})
    app.state.kgen = state
    wrapped: Any = InflightLimit(app, max_requests_inflight, max_mutating_requests_inflight, request_timeout)
    if token:
        wrapped = BearerTokenAuth(wrapped, token)
    if allowed_hosts is not None:
        wrapped = HostCheck(wrapped, allowed_hosts)
    wrapped.state = state
    return wrapped


async def _routing_error(request: Request, error: Exception) -> Response:
    """What routing refuses before a handler runs (a method no route takes, such as FOO), as
    the API's Status rather than the framework's plain text."""
    code = error.status_code if isinstance(error, HTTPException) else 500
    refused = {404: not_found(), 405: method_not_allowed()}.get(code) or APIError(
        code, "BadRequest" if code < 500 else "InternalError", str(getattr(error, "detail", "")) or "bad request"
    )
    return error_response(request, refused, _error_representation(request))


def _get_only(request: Request) -> None:
    if request.method not in ("GET", "HEAD"):
        raise method_not_allowed()


async def _dispatch(request: Request, state: ServerState, group: str, version: str, rest: list[str]) -> Response:
    """Route a resource URL to its verb."""
    api = state.api
    if not api.has_group_version(group, version):
        raise not_found()
    watch_path = bool(rest) and rest[0] == "watch"
    if watch_path:
        rest = rest[1:]
    namespace = ""
    if len(rest) >= 3 and rest[0] == "namespaces" and (group, version, rest[2]) in api.endpoints:
        candidate = api.endpoints[(group, version, rest[2])]
        if candidate.namespaced:
            namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        raise not_found()
    endpoint = api.endpoint(group, version, rest[0])
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    if subresource and subresource not in endpoint.subresources():
        raise not_found()
    if namespace and not endpoint.namespaced:
        raise not_found()
    call = handlers.Call(request, api, endpoint, namespace, name, subresource)
    request.state.warnings = call.warnings
    request.state.serializers = handlers.serializers(call)
    method = request.method
    if watch_path or (method == "GET" and not name and request.query_params.get("watch", "").lower() in ("true", "1")):
        if method != "GET" or subresource:
            raise method_not_allowed()
        if name:  # /watch/.../<name>: one object, as a field selector on its name
            raise not_found()
        return await watching.watch(call, state.watches)
    if not name:
        if method in ("GET", "HEAD"):
            return await handlers.list_objects(call)
        if endpoint.namespaced and not namespace:
            raise method_not_allowed()
        if method == "POST":
            return await handlers.create(call)
        if method == "DELETE":
            return await handlers.delete_collection(call)
        raise method_not_allowed()
    if endpoint.namespaced and not namespace:
        raise not_found()
    if subresource == "scale":
        from kgen.serve import scale

        handler = {
            "GET": scale.get_scale,
            "HEAD": scale.get_scale,
            "PUT": scale.update_scale,
            "PATCH": scale.patch_scale,
        }
        if method not in handler:
            raise method_not_allowed()
        return await handler[method](call)
    if method in ("GET", "HEAD"):
        return await handlers.get(call)
    if method == "PUT":
        return await handlers.update(call)
    if method == "PATCH":
        return await patching.patch(call)
    if method == "DELETE" and not subresource:
        return await handlers.delete(call)
    raise method_not_allowed()


def startup(api: ServedAPI) -> None:
    """What the server does before it takes requests: the namespaces every cluster has, the
    garbage collector of ownerReferences, and the status controller of admission policies."""
    namespaces.ensure_initial(api)
    from kgen.serve.collector import GarbageCollector
    from kgen.serve.policies.status import StatusController

    GarbageCollector(api).start()
    StatusController(api).start()
