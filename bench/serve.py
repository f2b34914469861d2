"""`python -m bench.serve [sqlite etcd] [--quick]`: kgen serve over loopback HTTP.

Per storage (SQLite in a file, etcd from a throwaway server, data in /dev/shm when there
is one): requests per second and 99th-percentile latency of get, list (1,000 objects),
create and update (each client replaces an object of its own) at 1, 10 and 50 concurrent
clients; then the time from one write until the last of 100 and of 1,000 watchers has
the event (median of three rounds). Objects are the example API's Frobbers, about 1 KiB
of JSON each, in the storage version (v1).

The clients are a few lines of asyncio speaking HTTP/1.1 over keep-alive connections, so
that the numbers are the server's, not a client library's; client and server share the
machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kgen.runtime.store.testing import EtcdServer, etcd_binary

REPO = Path(__file__).resolve().parent.parent
NAMESPACE = "bench"
LISTED = 1000
CONCURRENCY = (1, 10, 50)
WATCHERS = (100, 1000)
PATH = f"/apis/example.kgen.dev/v1/namespaces/{NAMESPACE}/frobbers"


def frobber(name: str, replicas: int = 1) -> dict:
    """A ~1 KiB Frobber."""
    return {
        "apiVersion": "example.kgen.dev/v1",
        "kind": "Frobber",
        "metadata": {
            "name": name,
            "labels": {f"app.kgen.dev/label-{i}": f"value-{i}" for i in range(4)},
            "annotations": {f"note.kgen.dev/{i}": "x" * 60 for i in range(4)},
        },
        "spec": {
            "replicas": replicas,
            "mode": "Gentle",
            "params": [f"--flag-{i}" for i in range(6)],
            "ports": [{"name": f"port-{i}", "port": 8000 + i} for i in range(3)],
            "description": "a frobber for the benchmark",
        },
    }


# -- a minimal HTTP/1.1 client ------------------------------------------------------------------


class Connection:
    """One keep-alive connection; `request()` returns (status, body)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str):
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port, limit=2**24)
        return cls(reader, writer, f"{host}:{port}")

    async def request(self, method: str, path: str, body: bytes | None = None, content_type: str = "application/json") -> tuple[int, bytes]:
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: application/json\r\n"
        if body is not None:
            head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + (body or b""))
        status, headers = await self._head()
        length = int(headers.get("content-length", "0"))
        return status, await self.reader.readexactly(length)

    async def _head(self) -> tuple[int, dict[str, str]]:
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
        return int(lines[0].split()[1]), headers

    async def open_watch(self, path: str) -> None:
        """Send a watch request and read its response head (the stream then follows, chunked)."""
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: application/json\r\n\r\n".encode())
        status, _ = await self._head()
        assert status == 200, status

    async def next_chunk(self) -> bytes:
        size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
        data = await self.reader.readexactly(size + 2)
        return data[:-2]

    def close(self) -> None:
        self.writer.close()


# -- the server ----------------------------------------------------------------------------------


class Server:
    """`kgen serve` in a subprocess."""

    def __init__(self, storage: str, directory: Path, *extra: str):
        self.kubeconfig = directory / "kubeconfig"
        # Plain HTTP without a token: the numbers are the server's, not TLS's.
        command = [sys.executable, "-m", "kgen.cli", "serve", "--port", "0", "--kubeconfig", str(self.kubeconfig),
                   "--storage", storage, "--max-requests-inflight", "0", "--max-mutating-requests-inflight", "0",
                   "--no-tls", "--no-auth", *extra]  # fmt: skip
        self.log = open(directory / "serve.log", "wb")
        self.process = subprocess.Popen(command, cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while not self.kubeconfig.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((directory / "serve.log").read_text())
            time.sleep(0.05)
        import yaml

        url = yaml.safe_load(self.kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        host, port = url.rsplit("//", 1)[1].rsplit(":", 1)
        self.host, self.port = host, int(port)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


# -- measurements --------------------------------------------------------------------------------


async def _load(server: Server, clients: int, requests: int, make, seen: dict | None = None) -> tuple[float, float]:
    """(requests/s, p99 ms) of `requests` requests spread over `clients` connections;
    `make(client, index)` gives (method, path, body); `seen`, when given, gets each client's
    last response body."""
    connections = [await Connection.open(server.host, server.port) for _ in range(clients)]
    latencies: list[float] = []
    per_client = max(requests // clients, 1)

    async def run(client: int) -> None:
        connection = connections[client]
        for index in range(per_client):
            method, path, body = make(client, index)
            started = time.perf_counter()
            status, data = await connection.request(method, path, body)
            latencies.append(time.perf_counter() - started)
            if status >= 300:
                raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
            if seen is not None:
                seen[client] = data

    started = time.perf_counter()
    await asyncio.gather(*(run(c) for c in range(clients)))
    elapsed = time.perf_counter() - started
    for connection in connections:
        connection.close()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return len(latencies) / elapsed, p99 * 1000


async def _prepare(server: Server) -> None:
    connection = await Connection.open(server.host, server.port)
    namespace = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}).encode()
    await connection.request("POST", "/api/v1/namespaces", namespace)
    sem = asyncio.Semaphore(16)
    pool = [await Connection.open(server.host, server.port) for _ in range(16)]

    async def create(index: int) -> None:
        async with sem:
            conn = pool.pop()
            try:
                status, data = await conn.request("POST", PATH, json.dumps(frobber(f"listed-{index:04d}")).encode())
                assert status == 201, data
            finally:
                pool.append(conn)

    await asyncio.gather(*(create(i) for i in range(LISTED)))
    for conn in pool:
        conn.close()
    connection.close()


async def throughput(server: Server, quick: bool) -> dict[str, dict[int, tuple[float, float]]]:
    await _prepare(server)
    results: dict[str, dict[int, tuple[float, float]]] = {}
    scale = 0.3 if quick else 1.0
    run_id = random.randrange(10**6)
    for clients in CONCURRENCY:
        total = int(600 * scale)

        def get(client, index):
            return "GET", f"{PATH}/listed-{(client * 37 + index) % LISTED:04d}", None

        def create(client, index):
            return "POST", PATH, json.dumps(frobber(f"c{run_id}-{clients}-{client}-{index}")).encode()

        last: dict[int, bytes] = {}

        def update(client, index):
            # An update names the resourceVersion it replaces (a custom resource must): the
            # one of the client's last answer; a client's first request reads it.
            if client not in last:
                return "GET", f"{PATH}/listed-{client:04d}", None
            body = frobber(f"listed-{client:04d}", replicas=index % 50 + 2)
            body["metadata"]["resourceVersion"] = json.loads(last[client])["metadata"]["resourceVersion"]
            return "PUT", f"{PATH}/listed-{client:04d}", json.dumps(body).encode()

        def listing(client, index):
            return "GET", PATH, None

        row = results.setdefault("get", {})
        row[clients] = await _load(server, clients, total, get)
        results.setdefault("create", {})[clients] = await _load(server, clients, total, create)
        results.setdefault("update", {})[clients] = await _load(server, clients, total, update, last)
        results.setdefault(f"list {LISTED}", {})[clients] = await _load(server, clients, max(int(60 * scale), clients), listing)
    return results


async def fanout(server: Server, watchers: int, rounds: int = 3) -> float:
    """Median seconds from an update until the last of `watchers` watchers has its event."""
    probe = await Connection.open(server.host, server.port)
    status, data = await probe.request("GET", f"{PATH}/listed-0000")
    current = json.loads(data)
    connections = []
    for _ in range(watchers):
        connection = await Connection.open(server.host, server.port)
        await connection.open_watch(f"{PATH}?watch=true&fieldSelector=metadata.name%3Dlisted-0000&resourceVersion={current['metadata']['resourceVersion']}")
        connections.append(connection)
    times = []
    for round_ in range(rounds):
        changed = frobber("listed-0000", replicas=100 + round_)
        changed["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        started = time.perf_counter()
        status, data = await probe.request("PUT", f"{PATH}/listed-0000", json.dumps(changed).encode())
        assert status == 200, status
        current = json.loads(data)
        await asyncio.gather(*(c.next_chunk() for c in connections))
        times.append(time.perf_counter() - started)
    for connection in connections:
        connection.close()
    probe.close()
    return statistics.median(times)


def run(backends: list[str], quick: bool = False) -> list[str]:
    """Benchmark each backend; the report lines."""
    lines = [f"kgen serve over loopback HTTP ({os.cpu_count()} cores shared by server and clients)"]
    shm = Path("/dev/shm")
    parent = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    results: dict[str, dict] = {}
    fan: dict[str, dict[int, float]] = {}
    for backend in backends:
        directory = Path(tempfile.mkdtemp(prefix="kgen-bench-serve-", dir=parent))
        etcd = None
        try:
            if backend == "etcd":
                if etcd_binary() is None:
                    lines.append("etcd: not installed, skipped")
                    continue
                etcd = EtcdServer().start()
                storage = f"etcd:{etcd.endpoint}"
            else:
                storage = f"sqlite:{directory / 'store.db'}"
            server = Server(storage, directory)
            try:
                results[backend] = asyncio.run(throughput(server, quick))
                fan[backend] = {n: asyncio.run(fanout(server, n)) for n in WATCHERS}
            finally:
                server.stop()
        finally:
            if etcd is not None:
                etcd.stop()
            shutil.rmtree(directory, ignore_errors=True)
    header = f"{'operation':<12}{'clients':>8}" + "".join(f"{b + ' req/s':>16}{b + ' p99 ms':>16}" for b in results)
    lines.append(header)
    operations = next(iter(results.values())).keys() if results else []
    for operation in operations:
        for clients in CONCURRENCY:
            cells = "".join(f"{results[b][operation][clients][0]:>16.0f}{results[b][operation][clients][1]:>16.1f}" for b in results)
            lines.append(f"{operation:<12}{clients:>8}{cells}")
    for watchers in WATCHERS:
        cells = "".join(f"{b + ':':>10}{fan[b][watchers] * 1000:>8.1f} ms" for b in fan)
        lines.append(f"one event to {watchers} watchers{cells}")
    return lines


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.serve")
    parser.add_argument("backends", nargs="*", metavar="{sqlite,etcd}", help="the storages to measure (default: both)")
    parser.add_argument("--quick", action="store_true", help="fewer requests (a smoke run)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.backends) - {"sqlite", "etcd"})
    if unknown:
        parser.error(f"unknown storage {', '.join(unknown)}: choose sqlite or etcd")
    print("\n".join(run(args.backends or ["sqlite", "etcd"], args.quick)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
