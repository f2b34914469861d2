"""Serving the webhook application over TLS with uvicorn (the `webhook` extra).

The API server calls webhooks over HTTPS only. The certificate and key are read from files,
as a cluster mounts them: cert-manager (or any Secret of type kubernetes.io/tls) puts
`tls.crt` and `tls.key` in one directory, by default controller-runtime's
`<tmp>/k8s-webhook-server/serving-certs`. When either file changes (a renewed certificate),
the new pair is loaded into the listening TLS context: connections made after that get the
new certificate, without a restart. A pair that does not load (caught between the two files
being replaced) keeps the old one until the next look.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgen.extras import require

#: controller-runtime's default certificate directory and file names.
DEFAULT_CERT_DIR = Path(tempfile.gettempdir()) / "k8s-webhook-server" / "serving-certs"
CERT_NAME, KEY_NAME = "tls.crt", "tls.key"
#: controller-runtime's webhook server port.
DEFAULT_PORT = 9443


def _fingerprint(paths: tuple[Path, ...]) -> tuple[tuple[int, int, int], ...]:
    """What changes when a file is replaced or rewritten: inode, size and modification time."""
    out = []
    for path in paths:
        try:
            status = path.stat()
        except OSError:
            out.append((0, 0, 0))
        else:
            out.append((status.st_ino, status.st_size, status.st_mtime_ns))
    return tuple(out)


class CertificateReloader:
    """Keeps a server's TLS context on the current certificate and key files."""

    def __init__(self, context: ssl.SSLContext, cert_file: Path, key_file: Path, say: Callable[[str], None]):
        self.context = context
        self.files = (cert_file, key_file)
        self.say = say
        self.seen = _fingerprint(self.files)

    def check(self) -> bool:
        """Load the pair again when either file changed; whether a new pair was loaded.

        The files are read once, and the pair tried on a context of its own first: loading
        a certificate whose key has not been replaced yet into the serving context would
        leave it unable to complete a handshake (OpenSSL sets the certificate before it
        finds that the key does not match). Handshakes run on the event loop, as this does,
        so none sees the serving context half loaded."""
        now = _fingerprint(self.files)
        if now == self.seen:
            return False
        try:
            with tempfile.TemporaryDirectory(prefix="kgen-webhook-") as directory:
                copies = [Path(directory) / name for name in (CERT_NAME, KEY_NAME)]
                for source, copy in zip(self.files, copies):
                    copy.write_bytes(source.read_bytes())
                ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(str(copies[0]), str(copies[1]))
                self.context.load_cert_chain(str(copies[0]), str(copies[1]))
        except (OSError, ssl.SSLError) as error:
            self.say(f"kgen webhook: the certificate files changed but do not load yet ({error}); keeping the old pair")
            return False
        self.seen = now
        self.say(f"kgen webhook: loaded the new certificate from {self.files[0]}")
        return True

    async def watch(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            self.check()


def serve(
    app: Any,
    *,
    host: str,
    port: int,
    cert_file: Path | None,
    key_file: Path | None,
    reload_interval: float = 10.0,
    access_log: bool = False,
    say: Callable[[str], None] = print,
) -> None:
    """Serve an ASGI application until SIGINT or SIGTERM: over TLS with the certificate and
    key files (reloaded when they change), or plain HTTP when both are None."""
    require("webhook", "kgen webhook")
    import uvicorn

    tls: dict[str, Any] = {}
    if cert_file is not None and key_file is not None:
        tls = {"ssl_certfile": str(cert_file), "ssl_keyfile": str(key_file)}
    # An API server keeps its connections to a webhook open: a shutdown waits a few seconds
    # for calls in flight, then closes them (a pod's termination grace period is longer).
    config = uvicorn.Config(
        app, host=host, port=port, lifespan="off", access_log=access_log, log_level="info" if access_log else "warning",
        timeout_graceful_shutdown=5, **tls,
    )  # fmt: skip

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.should_exit:
                return
            scheme = "https" if tls else "http"
            bound = [s.getsockname() for server in self.servers for s in server.sockets]
            address = bound[0] if bound else (host, port)
            say(f"kgen webhook: serving on {scheme}://{_shown(address[0])}:{address[1]}")
            if tls and config.ssl is not None and reload_interval > 0:
                reloader = CertificateReloader(config.ssl, Path(tls["ssl_certfile"]), Path(tls["ssl_keyfile"]), say)
                self._reloading = asyncio.get_running_loop().create_task(reloader.watch(reload_interval))

        async def shutdown(self, sockets: Any = None) -> None:
            task = getattr(self, "_reloading", None)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await super().shutdown(sockets)

    Server(config).run()


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def certificate_files(cert_dir: Path, cert_name: str = CERT_NAME, key_name: str = KEY_NAME) -> tuple[Path, Path]:
    """The certificate and key in a directory, as controller-runtime finds them."""
    return cert_dir / cert_name, cert_dir / key_name


def readable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.R_OK)
