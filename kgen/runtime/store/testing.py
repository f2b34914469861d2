"""Helpers for tests and benchmarks of code built on the store: a throwaway etcd, backends.

`EtcdServer` runs an `etcd` binary (Debian's `etcd-server` package puts it in
/usr/bin/etcd) on free loopback ports with a temporary data directory (in /dev/shm when
there is one: etcd syncs every write, which a RAM disk makes cheap) and removes it on stop:

    with EtcdServer() as etcd:
        backend = EtcdBackend(etcd.endpoint)

`make_backend(kind, ...)` builds any backend by name, so one test suite can run on all.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from kgen.runtime.store.backend import Backend

BACKEND_KINDS = ("memory", "sqlite-memory", "sqlite-file", "etcd")


def etcd_binary() -> str | None:
    """The etcd executable (`$KGEN_ETCD`, else `etcd` on PATH, else /usr/bin/etcd), or None."""
    for candidate in (os.environ.get("KGEN_ETCD"), shutil.which("etcd"), "/usr/bin/etcd"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class EtcdServer:
    """One etcd member on loopback; start() it (or use `with`), then stop() it."""

    def __init__(self, binary: str | None = None, data_dir: str | os.PathLike[str] | None = None):
        found = binary or etcd_binary()
        if found is None:
            raise FileNotFoundError("etcd is not installed (apt-get install -y etcd-server, or set KGEN_ETCD)")
        self.binary = found
        self._given_dir = Path(data_dir) if data_dir else None
        self._dir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None
        self.endpoint = ""

    def start(self, timeout: float = 30.0) -> EtcdServer:
        """Start etcd and wait until it answers; a port taken meanwhile is retried."""
        for _ in range(3):
            if self._start_once(timeout):
                return self
            self.stop()
        log = self._log.read_text(errors="replace")[-2000:] if self._log and self._log.exists() else ""
        raise RuntimeError(f"etcd did not start: {log}")

    def _start_once(self, timeout: float) -> bool:
        shm = Path("/dev/shm")
        parent = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
        self._dir = self._given_dir or Path(tempfile.mkdtemp(prefix="kgen-etcd-", dir=parent))
        self._log = self._dir / "etcd.log"
        client, peer = free_port(), free_port()
        self.endpoint = f"http://127.0.0.1:{client}"
        peer_url = f"http://127.0.0.1:{peer}"
        command = [
            self.binary,
            "--name", "kgen",
            "--data-dir", str(self._dir / "data"),
            "--listen-client-urls", self.endpoint,
            "--advertise-client-urls", self.endpoint,
            "--listen-peer-urls", peer_url,
            "--initial-advertise-peer-urls", peer_url,
            "--initial-cluster", f"kgen={peer_url}",
            "--logger", "zap",
            "--log-level", "error",
        ]  # fmt: skip
        with open(self._log, "wb") as log:
            self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                return False
            try:
                response = httpx.post(f"{self.endpoint}/v3/kv/range", json={"key": "AA=="}, timeout=1.0)
                if response.status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        """Stop etcd and remove its data directory (unless it was given)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._dir is not None and self._given_dir is None:
            shutil.rmtree(self._dir, ignore_errors=True)
        self._dir = None

    def __enter__(self) -> EtcdServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def make_backend(kind: str, directory: str | os.PathLike[str] | None = None, etcd_endpoint: str = "") -> Backend:
    """A backend by name: `memory`, `sqlite-memory`, `sqlite-file` (a database file in
    `directory`) or `etcd` (the server at `etcd_endpoint`)."""
    if kind == "memory":
        from kgen.runtime.store.memory import MemoryBackend

        return MemoryBackend()
    if kind in ("sqlite-memory", "sqlite-file"):
        from kgen.runtime.store.sqlite import SqliteBackend

        if kind == "sqlite-memory":
            return SqliteBackend(":memory:")
        return SqliteBackend(Path(directory or tempfile.mkdtemp(prefix="kgen-sqlite-")) / "store.db")
    if kind == "etcd":
        from kgen.runtime.store.etcd import EtcdBackend

        if not etcd_endpoint:
            raise ValueError("the etcd backend needs an endpoint (start an EtcdServer)")
        return EtcdBackend(etcd_endpoint)
    raise ValueError(f"unknown backend {kind!r}; one of {', '.join(BACKEND_KINDS)}")
