"""The transports generated clients call: `Transport` (httpx.Client) and `AsyncTransport`
(httpx.AsyncClient).

Both run the same `core.exchange()` flow and `core.interpret()`; each only sleeps, sends
and reads in its own way. A transport is built from a `ClientConfig`:

    transport = Transport(load_config())
    frobber = transport.request("GET", resource_path("example.kgen.dev", "v1", "frobbers", "ns", "a"),
                                result_type=Frobber)
    with transport.watch(path, query=watch_query(resource_version=rv), result_type=Frobber) as events:
        for event in events:
            ...

Every `Warning` header of every response goes to the warning handler (by default Python's
`warnings`, each text once). HTTP/2 is used when the server offers it and the `h2` package
is installed; otherwise HTTP/1.1.
"""

from __future__ import annotations

import importlib.util
import random
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator, Sequence
from types import TracebackType
from typing import Any, Generic, TypeVar, overload

import httpx

from kgen.runtime.client.config import ClientConfig, build_ssl_context, load_client_identity
from kgen.runtime.client.core import (
    APIRequest,
    APIResponse,
    Discard,
    Endpoint,
    GetCredentials,
    ReadBody,
    RefreshCredentials,
    Send,
    Sleep,
    build_request,
    exchange,
    interpret,
    response_warnings,
    transport_error,
)
from kgen.runtime.client.credentials import Credentials
from kgen.runtime.client.errors import ConfigError, ResourceRef
from kgen.runtime.client.options import Query
from kgen.runtime.client.ratelimit import DEFAULT_BURST, DEFAULT_QPS, TokenBucket
from kgen.runtime.client.retry import RetryPolicy
from kgen.runtime.client.warning import PythonWarnings, WarningHandler
from kgen.runtime.client.watch import WatchDecoder, WatchEvent

__all__ = ["Transport", "AsyncTransport", "WatchStream", "AsyncWatchStream", "http2_available"]

T = TypeVar("T")
_UNSET: Any = object()


def http2_available() -> bool:
    """Whether httpx can speak HTTP/2 here (the optional `h2` package is installed)."""
    return importlib.util.find_spec("h2") is not None


class _Base:
    """What the sync and async transports share: configuration, TLS, limiter, warnings."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        prefer_protobuf: bool = False,
        retry: RetryPolicy | None = None,
        rate_limiter: TokenBucket | None = _UNSET,
        warning_handler: WarningHandler | None = None,
        user_agent: str = "",
        http2: bool | None = None,
        rand: Callable[[], float] = random.random,
        http_transport: Any = None,
    ) -> None:
        self.config = config
        self._http_transport = http_transport
        self.prefer_protobuf = prefer_protobuf
        self.retry = retry or RetryPolicy()
        if rate_limiter is _UNSET:  # client-go: 0 means the default, a negative QPS no limit
            qps, burst = config.qps or DEFAULT_QPS, config.burst or DEFAULT_BURST
            rate_limiter = TokenBucket(qps, burst) if qps > 0 else None
        self.rate_limiter: TokenBucket | None = rate_limiter
        self.warning_handler: WarningHandler = warning_handler or PythonWarnings()
        self._endpoint = Endpoint.of(config, user_agent)
        self._rand = rand
        self._secure = config.server.startswith("https://")
        origin = config.source or config.server
        self._ssl = build_ssl_context(config.tls, origin) if self._secure else None
        self._identity: tuple[bytes, bytes] | None = None
        self._identity_lock = threading.Lock()
        if http2 and not http2_available():
            raise ConfigError(
                "HTTP/2 needs the http2 extra (the h2 package): pip install 'kgen-k8s[http2]' (or pass http2=None)"
            )
        self.http2 = http2_available() if http2 is None else http2

    @property
    def namespace(self) -> str:
        """The namespace calls use when they name none (the kubeconfig context's, or the pod's)."""
        return self.config.namespace

    def _client_options(self) -> dict[str, Any]:
        if self._http_transport is not None:  # an in-process server (the fake cluster of tests)
            return {"transport": self._http_transport, "follow_redirects": False, "timeout": None}
        return {
            "verify": self._ssl if self._ssl is not None else True,
            "http2": self.http2,
            "proxy": self.config.proxy_url or None,
            "trust_env": True,  # HTTP(S)_PROXY and NO_PROXY when the kubeconfig names no proxy
            "follow_redirects": False,
            "timeout": None,  # each request carries its own
        }

    def _received(self, response: httpx.Response) -> None:
        """Every response's warnings go to the handler, those of retried responses too."""
        for warning in response_warnings(response.headers):
            self.warning_handler(warning)

    def _identity_rotated(self, credentials: Credentials) -> bool:
        """Load a client certificate an exec plugin returned; True when it replaced another
        (open connections then use the old one: the caller starts a new connection pool)."""
        if not credentials.client_certificate or self._ssl is None:
            return False
        identity = (credentials.client_certificate, credentials.client_key)
        with self._identity_lock:
            if identity == self._identity:
                return False
            load_client_identity(self._ssl, *identity, origin=self.config.source or self.config.server)
            rotated = self._identity is not None
            self._identity = identity
            return rotated

    def _build(
        self,
        method: str,
        path: str,
        query: Query,
        body: Any,
        content_type: str | None,
        headers: Sequence[tuple[str, str]],
        timeout: float | None,
        resource: ResourceRef | None,
        watch: bool = False,
    ) -> APIRequest:
        return build_request(
            method,
            path,
            query=query,
            body=body,
            content_type=content_type,
            prefer_protobuf=self.prefer_protobuf,
            headers=headers,
            timeout=timeout,
            resource=resource,
            mode="watch" if watch else "request",
        )

    def _flow(self, request: APIRequest) -> Generator[Any, Any, httpx.Response]:
        return exchange(self._endpoint, request, self.retry, self.rate_limiter, self._rand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"


def _new_client(factory: Callable[..., Any], options: dict[str, Any]) -> Any:
    try:
        return factory(**options)
    except ImportError as err:  # a socks5 proxy without socksio, HTTP/2 without h2
        raise ConfigError(
            f"the client needs an optional package: {err}; install it (pip install 'httpx[socks]')"
        ) from None


class Transport(_Base):
    """The synchronous transport (one connection pool, safe to share between threads)."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        prefer_protobuf: bool = False,
        retry: RetryPolicy | None = None,
        rate_limiter: TokenBucket | None = _UNSET,
        warning_handler: WarningHandler | None = None,
        user_agent: str = "",
        http2: bool | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rand: Callable[[], float] = random.random,
        http_transport: httpx.BaseTransport | None = None,
    ) -> None:
        """A transport for `config`. `prefer_protobuf` asks for protobuf (JSON is the fallback);
        `retry` says how to repeat; `rate_limiter` defaults to the config's qps and burst (None:
        no limit); `warning_handler` receives each Warning header; `sleep` and `rand` are for tests;
        `http_transport` sends requests somewhere other than the network (an in-process server)."""
        super().__init__(
            config,
            prefer_protobuf=prefer_protobuf,
            retry=retry,
            rate_limiter=rate_limiter,
            warning_handler=warning_handler,
            user_agent=user_agent,
            http2=http2,
            rand=rand,
            http_transport=http_transport,
        )
        self._sleep = sleep
        self._client: httpx.Client = _new_client(httpx.Client, self._client_options())

    @overload
    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = ...,
        body: Any = ...,
        content_type: str | None = ...,
        result_type: type[T],
        resource: ResourceRef | None = ...,
        timeout: float | None = ...,
        headers: Sequence[tuple[str, str]] = ...,
    ) -> T: ...
    @overload
    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = ...,
        body: Any = ...,
        content_type: str | None = ...,
        result_type: None = ...,
        resource: ResourceRef | None = ...,
        timeout: float | None = ...,
        headers: Sequence[tuple[str, str]] = ...,
    ) -> Any: ...
    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str | None = None,
        result_type: type[Any] | None = None,
        resource: ResourceRef | None = None,
        timeout: float | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> Any:
        """Call the API and decode the answer as `result_type` (a model class; None: JSON data;
        `bytes`: the body). `body` is a model, JSON data or bytes of `content_type` (a patch).
        Raises the APIStatusError of a failure, TransportError when the server is unreachable."""
        response = self.request_raw(
            method,
            path,
            query=query,
            body=body,
            content_type=content_type,
            resource=resource,
            timeout=timeout,
            headers=headers,
        )
        return response.decode(result_type)

    def request_raw(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str | None = None,
        resource: ResourceRef | None = None,
        timeout: float | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> APIResponse:
        """`request` without decoding: the status code, headers, body and warnings of a success."""
        api_request = self._build(method, path, query, body, content_type, headers, timeout, resource)
        return interpret(api_request, self._run(self._flow(api_request)))

    def watch(
        self,
        path: str,
        *,
        query: Query = (),
        result_type: type[T] | None = None,
        resource: ResourceRef | None = None,
        read_timeout: float | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> WatchStream[T]:
        """Open a watch (`query` from `watch_query()`): an iterable of WatchEvents that ends when
        the server ends the watch (`timeoutSeconds`) or the connection breaks or stays silent for
        `read_timeout` seconds. Not rate limited, as client-go's watches."""
        api_request = self._build("GET", path, query, None, None, headers, read_timeout, resource, watch=True)
        response = self._run(self._flow(api_request))
        if response.status_code >= 300:
            interpret(api_request, response)  # raises the error
        decoder: WatchDecoder[T] = WatchDecoder(response.headers.get("content-type", ""), result_type)
        return WatchStream(response, decoder)

    def _run(self, flow: Generator[Any, Any, httpx.Response]) -> httpx.Response:
        value: Any = None
        try:
            while True:
                value = self._perform(flow.send(value))
        except StopIteration as done:
            response: httpx.Response = done.value
            return response
        finally:
            flow.close()

    def _perform(self, action: Any) -> Any:
        if isinstance(action, Send):
            try:
                response = self._client.send(action.request, stream=action.stream)
            except httpx.TransportError as err:
                return err
            self._received(response)
            return response
        if isinstance(action, Sleep):
            self._sleep(action.seconds)
            return None
        if isinstance(action, GetCredentials):
            assert self.config.credentials is not None
            credentials = self.config.credentials.get()
            if self._identity_rotated(credentials):
                old, self._client = self._client, _new_client(httpx.Client, self._client_options())
                old.close()
            return credentials
        if isinstance(action, RefreshCredentials):
            assert self.config.credentials is not None
            return self.config.credentials.refresh(action.rejected)
        if isinstance(action, ReadBody):
            try:
                action.response.read()
            finally:
                action.response.close()
            return None
        if isinstance(action, Discard):
            action.response.close()
            return None
        raise TypeError(f"unknown transport action {action!r}")

    def close(self) -> None:
        """Close the connections."""
        self._client.close()

    def __enter__(self) -> Transport:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class AsyncTransport(_Base):
    """The asynchronous transport (asyncio or trio, through httpx and anyio)."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        prefer_protobuf: bool = False,
        retry: RetryPolicy | None = None,
        rate_limiter: TokenBucket | None = _UNSET,
        warning_handler: WarningHandler | None = None,
        user_agent: str = "",
        http2: bool | None = None,
        sleep: Callable[[float], Awaitable[object]] | None = None,
        rand: Callable[[], float] = random.random,
        http_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """As `Transport`; `sleep` defaults to `anyio.sleep`. Credential plugins run in a thread."""
        super().__init__(
            config,
            prefer_protobuf=prefer_protobuf,
            retry=retry,
            rate_limiter=rate_limiter,
            warning_handler=warning_handler,
            user_agent=user_agent,
            http2=http2,
            rand=rand,
            http_transport=http_transport,
        )
        if sleep is None:
            import anyio

            sleep = anyio.sleep
        self._sleep = sleep
        self._client: httpx.AsyncClient = _new_client(httpx.AsyncClient, self._client_options())

    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = ...,
        body: Any = ...,
        content_type: str | None = ...,
        result_type: type[T],
        resource: ResourceRef | None = ...,
        timeout: float | None = ...,
        headers: Sequence[tuple[str, str]] = ...,
    ) -> T: ...
    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = ...,
        body: Any = ...,
        content_type: str | None = ...,
        result_type: None = ...,
        resource: ResourceRef | None = ...,
        timeout: float | None = ...,
        headers: Sequence[tuple[str, str]] = ...,
    ) -> Any: ...
    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str | None = None,
        result_type: type[Any] | None = None,
        resource: ResourceRef | None = None,
        timeout: float | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> Any:
        """As `Transport.request`."""
        response = await self.request_raw(
            method,
            path,
            query=query,
            body=body,
            content_type=content_type,
            resource=resource,
            timeout=timeout,
            headers=headers,
        )
        return response.decode(result_type)

    async def request_raw(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str | None = None,
        resource: ResourceRef | None = None,
        timeout: float | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> APIResponse:
        """As `Transport.request_raw`."""
        api_request = self._build(method, path, query, body, content_type, headers, timeout, resource)
        return interpret(api_request, await self._run(self._flow(api_request)))

    async def watch(
        self,
        path: str,
        *,
        query: Query = (),
        result_type: type[T] | None = None,
        resource: ResourceRef | None = None,
        read_timeout: float | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> AsyncWatchStream[T]:
        """As `Transport.watch`: `async with await transport.watch(...) as events: async for ...`."""
        api_request = self._build("GET", path, query, None, None, headers, read_timeout, resource, watch=True)
        response = await self._run(self._flow(api_request))
        if response.status_code >= 300:
            interpret(api_request, response)
        decoder: WatchDecoder[T] = WatchDecoder(response.headers.get("content-type", ""), result_type)
        return AsyncWatchStream(response, decoder)

    async def _run(self, flow: Generator[Any, Any, httpx.Response]) -> httpx.Response:
        value: Any = None
        try:
            while True:
                value = await self._perform(flow.send(value))
        except StopIteration as done:
            response: httpx.Response = done.value
            return response
        finally:
            flow.close()

    async def _perform(self, action: Any) -> Any:
        if isinstance(action, Send):
            try:
                response = await self._client.send(action.request, stream=action.stream)
            except httpx.TransportError as err:
                return err
            self._received(response)
            return response
        if isinstance(action, Sleep):
            await self._sleep(action.seconds)
            return None
        if isinstance(action, GetCredentials):
            credentials = await self._call_provider(lambda p: p.get())
            if self._identity_rotated(credentials):
                old, self._client = self._client, _new_client(httpx.AsyncClient, self._client_options())
                await old.aclose()
            return credentials
        if isinstance(action, RefreshCredentials):
            rejected = action.rejected
            return await self._call_provider(lambda p: p.refresh(rejected))
        if isinstance(action, ReadBody):
            try:
                await action.response.aread()
            finally:
                await action.response.aclose()
            return None
        if isinstance(action, Discard):
            await action.response.aclose()
            return None
        raise TypeError(f"unknown transport action {action!r}")

    async def _call_provider(self, call: Callable[[Any], T]) -> T:
        provider = self.config.credentials
        assert provider is not None
        if not provider.blocking:
            return call(provider)
        import anyio.to_thread

        return await anyio.to_thread.run_sync(call, provider)

    async def aclose(self) -> None:
        """Close the connections."""
        await self._client.aclose()

    async def __aenter__(self) -> AsyncTransport:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


def _quiet_end(error: httpx.TransportError) -> bool:
    """client-go's stream watcher ends quietly when the connection breaks or times out (the
    caller watches again from the last resource version); other errors are raised."""
    return isinstance(error, (httpx.TimeoutException, httpx.RemoteProtocolError, httpx.ReadError))


class WatchStream(Generic[T]):
    """The events of a watch; iterate once, close when done (or use `with`)."""

    def __init__(self, response: httpx.Response, decoder: WatchDecoder[T]) -> None:
        self.response = response
        self._decoder = decoder
        self.ended_by: Exception | None = None
        """The connection error that ended the stream quietly, if one did."""

    def __iter__(self) -> Iterator[WatchEvent[T]]:
        try:
            for chunk in self.response.iter_bytes():
                for event in self._decoder.feed(chunk):
                    yield event
            for event in self._decoder.finish():
                yield event
        except httpx.TransportError as err:
            if not _quiet_end(err):
                raise transport_error(f"watch {self.response.request.url.copy_with(query=None)}", err) from err
            self.ended_by = err
        finally:
            self.close()

    def close(self) -> None:
        """Stop watching: close the connection."""
        self.response.close()

    def __enter__(self) -> WatchStream[T]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class AsyncWatchStream(Generic[T]):
    """The events of an async watch; `async for`, close when done (or use `async with`)."""

    def __init__(self, response: httpx.Response, decoder: WatchDecoder[T]) -> None:
        self.response = response
        self._decoder = decoder
        self.ended_by: Exception | None = None
        """The connection error that ended the stream quietly, if one did."""

    async def __aiter__(self) -> AsyncIterator[WatchEvent[T]]:
        try:
            async for chunk in self.response.aiter_bytes():
                for event in self._decoder.feed(chunk):
                    yield event
            for event in self._decoder.finish():
                yield event
        except httpx.TransportError as err:
            if not _quiet_end(err):
                raise transport_error(f"watch {self.response.request.url.copy_with(query=None)}", err) from err
            self.ended_by = err
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Stop watching: close the connection."""
        await self.response.aclose()

    async def __aenter__(self) -> AsyncWatchStream[T]:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()
