"""`python -m bench.starvation [--load wait,list,patch] [--expensive 12] [--reads 60]`: how
fast a plain GET of one object stays while expensive requests run on `kgen serve` (SQLite
in memory, plain HTTP).

The expensive requests, `--expensive` clients at once, are one of:
- wait: GETs of a resourceVersion the store has not reached (each waits up to 3 s, then
  gets 504, as the API server answers them);
- list: LISTs of 1,000 Frobbers (about 1 MB of JSON each), again and again;
- patch: strategic merge patches, again and again, that replace 2,000 labels of an
  object of the client's own.
While they run, one client GETs an unrelated object again and again; reported: the p50
and p99 of those GETs, alone and beside the expensive requests, and their ratio.
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


LISTED = 1000
LABELS = 2000
SMP = "application/strategic-merge-patch+json"


async def _repeat(port: int, stop: asyncio.Event, method: str, path: str, body: bytes | None = None) -> int:
    """Send one request again and again until `stop`; the number answered."""
    connection = await Connection.open("127.0.0.1", port)
    answered = 0
    try:
        while not stop.is_set():
            status, _ = await connection.request(method, path, body, content_type=SMP)
            assert status == 200, status
            answered += 1
    finally:
        connection.close()
    return answered


def _labels(round_: int) -> dict[str, str]:
    return {f"bulk.kgen.dev/label-{i}": f"v{round_}-{i}" for i in range(LABELS)}


async def scenario(server: Server, load: str, expensive: int, reads: int) -> dict[str, list[float]]:
    port = server.port
    setup = await Connection.open("127.0.0.1", port)
    await setup.request("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}).encode())
    status, body = await setup.request("POST", PATH, json.dumps(frobber("plain")).encode())
    assert status == 201, body
    version = int(json.loads(body)["metadata"]["resourceVersion"])
    if load == "list":
        for i in range(LISTED):
            await setup.request("POST", PATH, json.dumps(frobber(f"listed-{i}")).encode())
    if load == "patch":
        for i in range(expensive):
            await setup.request("POST", PATH, json.dumps(frobber(f"patched-{i}")).encode())
    setup.close()
    quiet = await _reads(port, reads)
    stop = asyncio.Event()
    if load == "wait":
        tasks = [asyncio.create_task(_future_read(port, version + 1_000_000)) for _ in range(expensive)]
    elif load == "list":
        tasks = [asyncio.create_task(_repeat(port, stop, "GET", PATH)) for _ in range(expensive)]
    else:
        patch = json.dumps({"metadata": {"labels": _labels(1)}}).encode()
        tasks = [asyncio.create_task(_repeat(port, stop, "PATCH", f"{PATH}/patched-{i}", patch)) for i in range(expensive)]
    await asyncio.sleep(0.5)  # the expensive requests are in
    busy = await _reads(port, reads)
    stop.set()
    await asyncio.gather(*tasks)
    return {"quiet": quiet, "busy": busy}


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) >= 2 else values[0]


_LOADS = {
    "wait": "GETs wait for a future resourceVersion",
    "list": f"clients LIST {LISTED} objects",
    "patch": f"clients patch {LABELS} labels",
}


def run(loads: tuple[str, ...] = tuple(_LOADS), expensive: int = 12, reads: int = 60) -> list[str]:
    lines = []
    for load in loads:
        directory = Path(tempfile.mkdtemp(prefix="kgen-bench-starvation-"))
        server = Server("sqlite::memory:", directory)
        try:
            times = asyncio.run(scenario(server, load, expensive, reads))
        finally:
            server.stop()
        quiet, busy = times["quiet"], times["busy"]
        lines += [
            f"GET of one object while {expensive} {_LOADS[load]} ({reads} reads each)",
            f"  alone: p50 {_p(quiet, 50) * 1000:.1f} ms, p99 {_p(quiet, 99) * 1000:.1f} ms",
            f"  busy:  p50 {_p(busy, 50) * 1000:.1f} ms, p99 {_p(busy, 99) * 1000:.1f} ms",
            f"  busy/alone p99: {_p(busy, 99) / _p(quiet, 99):.1f}x",
        ]
    return lines


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.starvation")
    parser.add_argument("--load", default=",".join(_LOADS), help="comma-separated: " + ", ".join(_LOADS))
    parser.add_argument("--expensive", type=int, default=12)
    parser.add_argument("--reads", type=int, default=60)
    args = parser.parse_args(argv)
    print("\n".join(run(tuple(args.load.split(",")), args.expensive, args.reads)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
