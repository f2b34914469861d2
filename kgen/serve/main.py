"""`kgen serve`: load the API, open the storage, listen, write the kubeconfig, shut down cleanly.

Storage is named by a URL: `sqlite:PATH` (a file; every acknowledged write is synced to
disk), `sqlite::memory:` (the default: gone when the server stops) or
`etcd:http://HOST:PORT` (etcd v3). On SIGINT or SIGTERM the server stops accepting
connections, ends every watch, lets running requests finish, then closes the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from kgen.runtime.store import Engine, Retention
from kgen.runtime.store.backend import Backend
from kgen.serve import kubeconfig, security


class ServeError(Exception):
    """Settings the server cannot start with (exit code 2)."""


@dataclass
class ServeOptions:
    """How `kgen serve` runs."""

    address: str = "127.0.0.1"
    port: int | None = None
    """None: 6443 with TLS, 8080 without; 0: any free port."""
    storage: str = "sqlite::memory:"
    kubeconfig: Path | None = None
    tls: bool | None = None
    """None: TLS (kubectl sends its token over TLS only)."""
    token: str | None = None
    """The bearer token clients must send; None: a random one."""
    auth: bool = True
    """Require the token (False only by an explicit flag: any local process, or a web page
    reaching 127.0.0.1 through DNS rebinding, could then read and write)."""
    allow_plain_http_on_network: bool = False
    """Serve a non-loopback address without TLS (the token would cross the network in the clear)."""
    feature_gates: dict[str, bool] = field(default_factory=dict)
    storage_prefix: str = "/registry/"
    max_requests_inflight: int = 400
    max_mutating_requests_inflight: int = 200
    compaction_interval: float = 300.0
    """Seconds between compactions of history (kube-apiserver's --etcd-compaction-interval); 0: never."""
    history_seconds: float = 300.0
    """How much history (in seconds) compaction keeps for watches and paging."""
    bookmark_interval: float = 60.0
    """How often watches that allow bookmarks get one, in seconds."""
    access_log: bool = False
    request_timeout: float = 60.0
    """Seconds a request that is not a watch may take, its body included (kube-apiserver's
    --request-timeout); 0: none."""
    webhook_services: dict[str, str] = field(default_factory=dict)
    """`namespace/name` of a Service -> `host:port` where its webhook listens on this machine."""


SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the interpreter while others wait (Python's default is 0.005)."""

_MAX_HEADER_BYTES = 1 << 20
"""The request line and headers a request may bring (Go's http.DefaultMaxHeaderBytes, what
kube-apiserver takes): a long selector or URL reaches the API, which answers it with a Status."""


def default_kubeconfig() -> Path:
    """Where the kubeconfig goes unless told: kgen's cache directory (else the temp directory)."""
    from kgen.render import cache_root

    root = cache_root()
    return (root if root is not None else Path(tempfile.gettempdir()) / "kgen") / "serve" / "kubeconfig"


def open_storage(url: str) -> Backend:
    """The backend a storage URL names."""
    if url in ("sqlite::memory:", "memory"):
        from kgen.runtime.store import SqliteBackend

        # A new epoch each start: versions of an earlier run are compacted history here.
        return SqliteBackend(":memory:", epoch=time.time_ns() // 1000)
    if url.startswith("sqlite:"):
        from kgen.runtime.store import SqliteBackend

        path = Path(url[len("sqlite:") :]).expanduser()
        if not str(path):
            raise ServeError("--storage sqlite:PATH needs a file path (or sqlite::memory:)")
        path.parent.mkdir(parents=True, exist_ok=True)
        # FULL: a write the server acknowledged survives a crash of the machine too.
        return SqliteBackend(path, synchronous="FULL")
    if url.startswith("etcd:"):
        from kgen.runtime.store.etcd import EtcdBackend

        endpoint = url[len("etcd:") :]
        if not endpoint.startswith(("http://", "https://")):
            raise ServeError(f"--storage {url}: give etcd's client URL, as in etcd:http://127.0.0.1:2379")
        backend = EtcdBackend(endpoint)
        try:
            backend.current_revision()
        except Exception as error:  # noqa: BLE001 - say which store cannot be reached
            raise ServeError(f"--storage {url}: etcd does not answer: {error}") from None
        return backend
    raise ServeError(f"--storage {url}: expected sqlite:PATH, sqlite::memory: or etcd:http://HOST:PORT")


def serve(api_options: Any, options: ServeOptions, say: Callable[[str], None] = print) -> None:
    """Load the API for `api_options` (kgen's Options) and serve it until interrupted."""
    prepare(api_options, options, say).run()


@dataclass
class PreparedServer:
    """A server whose API is loaded and storage open, ready to listen; `run()` it on the
    main thread (uvicorn stops gracefully on SIGINT and SIGTERM only there)."""

    config: Any
    app: Any
    engine: Engine
    backend: Backend
    started: Any
    secrets_dir: Path | None = None

    def run(self) -> None:
        """Serve until interrupted, then close the store."""
        # Worker threads hand the interpreter to each other (and to the event loop) every
        # millisecond rather than every five: a GET of one object then waits for a list
        # being encoded a few milliseconds, not tens (bench/starvation.py).
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            _Server(self.config, self.started, self.app.state.watches).run()
        except SystemExit as stop:
            if stop.code:  # uvicorn could not start (it said why): a setting, not a crash
                raise ServeError(
                    f"cannot serve on {self.config.host}:{self.config.port} (the reason is above); if the port is "
                    "taken, pass another --port, or --port 0 for any free one (the kubeconfig names it)"
                ) from None
            raise
        finally:
            self.close()

    def close(self) -> None:
        """Close the store (and remove the TLS key)."""
        self.engine.close()
        self.backend.close()
        if self.secrets_dir is not None:
            shutil.rmtree(self.secrets_dir, ignore_errors=True)


def prepare(api_options: Any, options: ServeOptions, say: Callable[[str], None] = print) -> PreparedServer:
    """Load the API (generating its code), open the storage, build the application."""
    from kgen.serve.api import ServedAPI
    from kgen.serve.app import create_app, startup
    from kgen.serve.loader import LoadError, load

    try:
        loaded = load(api_options)
    except LoadError as error:
        raise ServeError(str(error)) from None
    loopback = security.is_loopback(options.address)
    # kubectl (client-go) sends no bearer token over plain HTTP: a server that requires one
    # serves TLS, on loopback too, with a certificate the kubeconfig names as its authority.
    tls = options.tls if options.tls is not None else True
    if not loopback and not tls and not options.allow_plain_http_on_network:
        raise ServeError(
            f"--address {options.address} --no-tls would send the API and its token over the network unencrypted; "
            "serve TLS (drop --no-tls), or say so with --allow-plain-http-on-network"
        )
    if not loopback and not options.auth:
        raise ServeError(
            f"--address {options.address} with --no-auth would let anyone who reaches the address read and write; "
            "authentication can only be turned off on a loopback address"
        )
    token = (options.token or security.new_token()) if options.auth else None
    port = options.port if options.port is not None else (6443 if tls else 8080)
    backend = open_storage(options.storage)
    engine = Engine(
        backend,
        prefix=options.storage_prefix if options.storage_prefix.endswith("/") else options.storage_prefix + "/",
        retention=Retention(seconds=options.history_seconds),
        compaction_interval=options.compaction_interval or None,
        bookmark_interval=options.bookmark_interval,
    )
    secrets_dir = None
    try:
        from kgen.serve.webhooks import WebhookCaller

        api = ServedAPI(loaded, engine, options.feature_gates, WebhookCaller(services=options.webhook_services))
        startup(api)
        app = create_app(
            api, token=token, max_requests_inflight=options.max_requests_inflight,
            max_mutating_requests_inflight=options.max_mutating_requests_inflight,
            allowed_hosts=security.LOOPBACK_HOSTS if loopback else None, request_timeout=options.request_timeout or None,
        )  # fmt: skip
        certificate = None
        ssl: dict[str, Any] = {}
        if tls:
            certificate = security.self_signed_certificate(options.address)
            secrets_dir = security.private_directory()
            (secrets_dir / "tls.crt").write_bytes(certificate.cert_pem)
            key = secrets_dir / "tls.key"
            key.touch(mode=0o600)
            key.write_bytes(certificate.key_pem)
            ssl = {"ssl_certfile": str(secrets_dir / "tls.crt"), "ssl_keyfile": str(key)}
        config = uvicorn.Config(
            app, host=options.address, port=port, lifespan="on", log_level="info" if options.access_log else "warning",
            access_log=options.access_log,
            http=_HTTPProtocol, loop="asyncio", timeout_graceful_shutdown=10, timeout_keep_alive=30, server_header=False,
            h11_max_incomplete_event_size=_MAX_HEADER_BYTES, **ssl,
        )  # fmt: skip
        path = options.kubeconfig or default_kubeconfig()

        def started(bound_port: int) -> None:
            host = "127.0.0.1" if options.address in ("0.0.0.0", "::", "") else options.address
            host = f"[{host}]" if ":" in host else host
            url = f"{'https' if tls else 'http'}://{host}:{bound_port}"
            app.state.server_address = f"{host}:{bound_port}"
            kubeconfig.write(
                path,
                kubeconfig.document(
                    url, certificate_authority=certificate.cert_pem if certificate else None, token=token
                ),
            )
            served = ", ".join(sorted({f"{e.api_version}" for e in api.endpoints.values()}))
            say(f"kgen: serving {served} at {url} (storage: {options.storage}; models: {loaded.models})")
            say(f"kgen: kubeconfig written to {path}; try: KUBECONFIG={path} kubectl api-resources")

        return PreparedServer(config, app, engine, backend, started, secrets_dir)
    except BaseException:
        engine.close()
        backend.close()
        if secrets_dir is not None:
            shutil.rmtree(secrets_dir, ignore_errors=True)
        raise


class _HTTPProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, answering a request it cannot parse with the API's Status
    rather than plain text: 431 for a request line and headers past the limit (the code Go's
    server gives), 400 BadRequest for anything else malformed."""

    def send_400_response(self, msg: str) -> None:
        from kgen.serve.respond import encode_json

        if len(self.conn.trailing_data[0]) > self.config.h11_max_incomplete_event_size:
            code, reason, message = 431, "", "Request Header Fields Too Large"
        else:
            code, reason, message = 400, "BadRequest", "malformed HTTP request"
        body = encode_json(
            {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
             "reason": reason, "code": code}
        )  # fmt: skip
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        for event in (
            h11.Response(status_code=code, headers=headers, reason=HTTPStatus(code).phrase),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()


class _Server(uvicorn.Server):
    """uvicorn's Server, telling us the port it bound and ending watches before it drains."""

    def __init__(self, config: uvicorn.Config, started: Callable[[int], None], watches: Any):
        super().__init__(config)
        self._started = started
        self._watches = watches

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and not self.should_exit:
            port = self.servers[0].sockets[0].getsockname()[1] if self.servers else self.config.port
            self._started(port)
            sys.stdout.flush()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._watches.close_all()  # a watch is a request that would never end by itself
        reaper = asyncio.ensure_future(self._abort_idle_connections())
        try:
            await super().shutdown(sockets)
        finally:
            reaper.cancel()

    async def _abort_idle_connections(self) -> None:
        """Drop connections with no request in flight while the shutdown drains. Closing a
        TLS connection waits for the peer's close_notify, which an idle keep-alive client
        never sends until it next reads: the shutdown would wait out its whole timeout."""
        await asyncio.sleep(0.2)  # uvicorn asks every connection to close first
        while True:
            for connection in list(self.server_state.connections):
                cycle = getattr(connection, "cycle", None)
                transport = getattr(connection, "transport", None)
                if transport is not None and (cycle is None or cycle.response_complete):
                    transport.abort()
            await asyncio.sleep(0.1)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn raises the signal again after shutting down, which would kill the process
        # before the store is closed; a stop by signal is a clean exit here.
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)
