"""The fake cluster of unit tests: `kgen serve`'s application in process, no sockets.

    cluster = FakeCluster()                     # the API of [tool.kgen]'s input, in memory
    cluster = FakeCluster(models="msgspec")     # the same API served on msgspec structs
    client = Client(cluster.transport())        # a generated client, as against a cluster
    cluster.add_reactor("create", "frobbers", lambda call: APIError(500, "InternalError", "boom"))

Requests go from the generated clients through the same `Transport` they use against a
real API server, then into the server's ASGI application through an httpx transport that
calls it directly (and streams watches), so revisions, 404/409, selectors, paging, watch
events, patches and server-side apply behave exactly as `kgen serve` does, on the same
store engine. Reactors see each call first and may answer it with an error, as client-go's
fake clientset's reactors do; `actions` records every call.

It needs what `kgen serve` needs (`pip install "kgen-k8s[codegen,serve]"`, a test dependency).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from kgen.runtime.client import AsyncTransport, ClientConfig, Transport
from kgen.runtime.errors import APIError
from kgen.runtime.store import Engine, MemoryBackend

__all__ = ["Action", "FakeCluster"]

_VERBS = {"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass(frozen=True)
class Action:
    """One call the fake cluster received: its verb as client-go names them (get, list,
    watch, create, update, patch, delete, deletecollection), resource, namespace, name,
    subresource, and the request."""

    verb: str
    resource: str
    namespace: str
    name: str
    subresource: str
    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


Reactor = Callable[[Action], Exception | None]


def _action(request: httpx.Request, body: bytes) -> Action:
    parts = [p for p in request.url.path.split("/") if p]
    # /api/v1/... or /apis/group/version/...
    rest = parts[2:] if parts[:1] == ["api"] else parts[3:]
    namespace = ""
    if len(rest) >= 2 and rest[0] == "namespaces" and len(rest) > 2:
        namespace, rest = rest[1], rest[2:]
    resource = rest[0] if rest else ""
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    query = dict(request.url.params)
    verb = _VERBS.get(request.method, request.method.lower())
    if verb == "get" and not name:
        verb = "watch" if query.get("watch") in ("true", "1") else "list"
    elif verb == "delete" and not name:
        verb = "deletecollection"
    return Action(verb, resource, namespace, name, subresource, request.method, request.url.path, query, body)


class _ASGICall:
    """One request through the application: the response starts as soon as the application
    sends its headers, and its body arrives chunk by chunk (watches never end on their own)."""

    def __init__(self, app: Any, request: httpx.Request, body: bytes) -> None:
        self.app = app
        self.request = request
        self.body = body
        self.chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.started: asyncio.Future[tuple[int, list[tuple[bytes, bytes]]]] = asyncio.get_running_loop().create_future()
        self.disconnected = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> tuple[int, list[tuple[bytes, bytes]]]:
        url = self.request.url
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": self.request.method,
            "scheme": url.scheme, "path": url.path, "raw_path": url.raw_path.split(b"?")[0],
            "query_string": url.query, "root_path": "",
            "headers": [(k.lower(), v) for k, v in self.request.headers.raw],
            "server": ("fake.cluster", 443), "client": ("127.0.0.1", 0),
        }  # fmt: skip
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": self.body, "more_body": False}
            await self.disconnected.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                self.started.set_result((message["status"], list(message.get("headers", []))))
            elif message["type"] == "http.response.body":
                if message.get("body"):
                    await self.chunks.put(message["body"])
                if not message.get("more_body", False):
                    await self.chunks.put(None)

        async def run() -> None:
            try:
                await self.app(scope, receive, send)
            except Exception as error:  # noqa: BLE001 - a crash of the application is a 500
                if not self.started.done():
                    self.started.set_exception(error)
            finally:
                await self.chunks.put(None)

        self.task = asyncio.get_running_loop().create_task(run())
        return await self.started

    async def next_chunk(self) -> bytes | None:
        return await self.chunks.get()

    async def close(self) -> None:
        self.disconnected.set()
        if self.task is not None and not self.task.done():
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing
                pass


class _AsyncBody(httpx.AsyncByteStream):
    def __init__(self, call: _ASGICall) -> None:
        self.call = call

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (chunk := await self.call.next_chunk()) is not None:
            yield chunk

    async def aclose(self) -> None:
        await self.call.close()


class _SyncBody(httpx.SyncByteStream):
    def __init__(self, call: _ASGICall, loop: asyncio.AbstractEventLoop) -> None:
        self.call = call
        self.loop = loop

    def __iter__(self) -> Iterator[bytes]:
        while (chunk := asyncio.run_coroutine_threadsafe(self.call.next_chunk(), self.loop).result()) is not None:
            yield chunk

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.call.close(), self.loop).result()


class FakeCluster:
    """An in-memory API server of the input's API, for tests."""

    def __init__(
        self,
        input: str | Path | None = None,
        *,
        config: str | Path | None = None,
        feature_gates: dict[str, bool] | None = None,
        namespace: str = "default",
        models: str | None = None,
        crds: list[str | Path] | None = None,
        webhooks: dict[str, Any] | None = None,
    ) -> None:
        """Load the API of `input` (default: the nearest pyproject.toml's [tool.kgen] input),
        generating its code as `kgen serve` does, on a new in-memory store. `models` is the
        model backend the server works on ("pydantic" or "msgspec"; default: the
        configuration's `models`). The generated package is imported into this process
        under the configuration's output name: to serve msgspec beside an imported pydantic
        package of the same name, configure another output name. `crds`: YAML files of
        CustomResourceDefinitions (a third party's, with no Go types here) installed before
        the first request, as `kubectl apply -f` would install them. `webhooks`: where the
        webhooks the API names are, by `namespace/name` of their Service or by URL: an ASGI
        application (called in process) or `host:port` (called over HTTPS)."""
        from kgen.generator_names import DEFAULTS, NAMES
        from kgen.options import MODEL_BACKENDS, find_config, resolve_options
        from kgen.serve.api import ServedAPI
        from kgen.serve.app import create_app, startup
        from kgen.serve.loader import load

        if models is not None and models not in MODEL_BACKENDS:
            raise ValueError(f"models={models!r} is not a model backend (one of: {', '.join(MODEL_BACKENDS)})")
        found = Path(config) if config is not None else find_config(Path.cwd())
        options = resolve_options(
            config_path=found if found is not None else Path.cwd() / "pyproject.toml",
            input=str(input) if input is not None else None,
            registered=NAMES,
            defaults=DEFAULTS,
            models=models,
        )  # fmt: skip
        self.namespace = namespace
        self.backend = MemoryBackend()
        self.engine = Engine(self.backend, compaction_interval=None)
        from kgen.serve.webhooks import WebhookCaller

        hooks = webhooks or {}
        caller = WebhookCaller(
            services={key: value for key, value in hooks.items() if isinstance(value, str)},
            apps={key: value for key, value in hooks.items() if not isinstance(value, str)},
        )
        self.api = ServedAPI(load(options), self.engine, feature_gates, caller)
        startup(self.api)
        if crds:
            from kgen.serve.crds import load_documents

            for document in load_documents(list(crds)):
                self.api.definitions.create(document)
            self.api.sync_custom_resources()
        self.app = create_app(self.api, max_requests_inflight=0, max_mutating_requests_inflight=0)
        self.reactors: list[tuple[str, str, Reactor]] = []
        self.actions: list[Action] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fake-cluster", daemon=True)
        self._thread.start()

    # -- reactors ------------------------------------------------------------------------

    def add_reactor(self, verb: str, resource: str, reaction: Reactor) -> None:
        """Answer calls of `verb` on `resource` ("*" for any) with the error `reaction` returns
        (an APIError is sent as its Status); None lets the call through. Reactors added last
        are asked first."""
        self.reactors.insert(0, (verb, resource, reaction))

    def _react(self, action: Action) -> httpx.Response | None:
        self.actions.append(action)
        for verb, resource, reaction in self.reactors:
            if verb in ("*", action.verb) and resource in ("*", action.resource):
                error = reaction(action)
                if error is None:
                    continue
                if not isinstance(error, APIError):
                    error = APIError(500, "InternalError", str(error))
                status = error.to_status()
                return httpx.Response(status.code or 500, content=status.to_json(),
                                      headers={"content-type": "application/json"})  # fmt: skip
        return None

    # -- transports -----------------------------------------------------------------------

    def config(self) -> ClientConfig:
        """A client configuration naming the fake cluster."""
        return ClientConfig(server="http://fake.cluster", namespace=self.namespace)

    def transport(self, **options: Any) -> Transport:
        """A sync transport whose requests reach the fake cluster (options as Transport's)."""
        return Transport(self.config(), rate_limiter=None, http_transport=_SyncBridge(self), **options)

    def async_transport(self, **options: Any) -> AsyncTransport:
        """An async transport (on the caller's event loop) whose requests reach the fake cluster."""
        return AsyncTransport(self.config(), rate_limiter=None, http_transport=_AsyncBridge(self), **options)

    def close(self) -> None:
        """Stop the cluster's loop and close its store."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self.engine.close()
        self.backend.close()

    def __enter__(self) -> FakeCluster:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class _SyncBridge(httpx.BaseTransport):
    """Sync requests into the application, run on the cluster's own event loop."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        reacted = self.cluster._react(_action(request, body))
        if reacted is not None:
            return reacted
        loop = self.cluster._loop

        async def start() -> tuple[_ASGICall, tuple[int, list[tuple[bytes, bytes]]]]:
            call = _ASGICall(self.cluster.app, request, body)
            return call, await call.start()

        call, (status, headers) = asyncio.run_coroutine_threadsafe(start(), loop).result()
        return httpx.Response(status, headers=headers, stream=_SyncBody(call, loop), request=request)


class _AsyncBridge(httpx.AsyncBaseTransport):
    """Async requests into the application, on the caller's loop."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        reacted = self.cluster._react(_action(request, body))
        if reacted is not None:
            return reacted
        call = _ASGICall(self.cluster.app, request, body)
        status, headers = await call.start()
        return httpx.Response(status, headers=headers, stream=_AsyncBody(call), request=request)
