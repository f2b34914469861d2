"""`python -m bench.starvation [--expensive 12] [--reads 60]`: how fast a plain GET of one
object stays while expensive requests run on `kgen serve` (SQLite in memory, plain HTTP).

The expensive requests are GETs of a resourceVersion the store has not reached: each
waits up to 3 s, then gets 504, as the API server answers them. While they wait, one client
GETs an unrelated object again and again; reported: the p50 and p99 of those GETs, alone
and beside the waiting requests, and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.serve import NAMESPACE, PATH, Connection, Server, frobber


async def _reads(port: int, count: int) -> list[float]:
    connection = await Connection.open("127.0.0.1", port)
    times = []
    try:
        for _ in range(count):
            start = time.perf_counter()
            status, _ = await connection.request("GET", f"{PATH}/plain")
            assert status == 200, status
            times.append(time.perf_counter() - start)
    finally:
        connection.close()
    return times


async def _future_read(port: int, version: int) -> int:
    connection = await Connection.open("127.0.0.1", port)
    try:
        status, _ = await connection.request("GET", f"{PATH}/plain?resourceVersion={version}")
        return status
    finally:
        connection.close()


async def scenario(server: Server, expensive: int, reads: int) -> dict[str, list[float]]:
    port = server.port
    setup = await Connection.open("127.0.0.1", port)
    await setup.request("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}).encode())
    status, body = await setup.request("POST", PATH, json.dumps(frobber("plain")).encode())
    assert status == 201, body
    version = int(json.loads(body)["metadata"]["resourceVersion"])
    setup.close()
    quiet = await _reads(port, reads)
    waits = [asyncio.create_task(_future_read(port, version + 1_000_000)) for _ in range(expensive)]
    await asyncio.sleep(0.2)  # the expensive requests are in
    busy = await _reads(port, reads)
    await asyncio.gather(*waits)
    return {"quiet": quiet, "busy": busy}


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) >= 2 else values[0]


def run(expensive: int = 12, reads: int = 60) -> list[str]:
    directory = Path(tempfile.mkdtemp(prefix="kgen-bench-starvation-"))
    server = Server("sqlite::memory:", directory)
    try:
        times = asyncio.run(scenario(server, expensive, reads))
    finally:
        server.stop()
    quiet, busy = times["quiet"], times["busy"]
    return [
        f"GET of one object while {expensive} GETs wait for a future resourceVersion ({reads} reads each)",
        f"  alone: p50 {_p(quiet, 50) * 1000:.1f} ms, p99 {_p(quiet, 99) * 1000:.1f} ms",
        f"  busy:  p50 {_p(busy, 50) * 1000:.1f} ms, p99 {_p(busy, 99) * 1000:.1f} ms",
        f"  busy/alone p99: {_p(busy, 99) / _p(quiet, 99):.1f}x",
    ]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.starvation")
    parser.add_argument("--expensive", type=int, default=12)
    parser.add_argument("--reads", type=int, default=60)
    args = parser.parse_args(argv)
    print("\n".join(run(args.expensive, args.reads)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
