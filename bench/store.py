"""`python -m bench.store [memory sqlite-memory sqlite-file etcd]`: the store engine's
throughput per backend, and how long one change takes to reach many watchers.

Per backend: creates, gets, updates (read-modify-write with optimistic concurrency) and
lists of 1,000 objects per second, one client thread, objects of ~1 KiB. Fan-out: N
watchers on one resource (threads, and asyncio tasks as an ASGI server runs them), one
update, the time until the last watcher has the event (median of several rounds).
etcd runs from a throwaway server on loopback with its data in /dev/shm.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable

from kgen.runtime.store import Engine, ResourceInfo, ResourceStore
from kgen.runtime.store.testing import BACKEND_KINDS, EtcdServer, etcd_binary, make_backend

INFO = ResourceInfo("bench.kgen.dev", "v1", "widgets", "Widget", has_status=True)
OBJECTS = 1000
FANOUT = (100, 1000)


def widget(index: int) -> dict:
    """A ~1 KiB object with labels, annotations and a spec."""
    return {
        "apiVersion": "bench.kgen.dev/v1",
        "kind": "Widget",
        "metadata": {
            "name": f"widget-{index:05d}",
            "namespace": "bench",
            "labels": {f"app.kgen.dev/label-{i}": f"value-{i}" for i in range(6)},
            "annotations": {f"note.kgen.dev/{i}": "x" * 60 for i in range(6)},
        },
        "spec": {"replicas": index % 7, "image": "registry.example.com/app:v1.2.3", "args": [f"--flag-{i}" for i in range(8)]},
    }


def _rate(count: int, action: Callable[[int], object]) -> float:
    started = time.perf_counter()
    for index in range(count):
        action(index)
    return count / (time.perf_counter() - started)


def throughput(store: ResourceStore) -> dict[str, float]:
    """Operations per second: create, get, update, list of OBJECTS."""
    rates = {"create": _rate(OBJECTS, lambda i: store.create(widget(i)))}
    rates["get"] = _rate(OBJECTS, lambda i: store.get(f"widget-{i:05d}", "bench"))

    def update(index: int) -> None:
        current = store.get(f"widget-{index:05d}", "bench")
        current["spec"]["replicas"] += 1
        store.update(current)

    rates["update (get + put)"] = _rate(OBJECTS, update)
    lists = 20
    rates[f"list of {OBJECTS}"] = _rate(lists, lambda i: store.list("bench"))
    return rates


def fanout_threads(store: ResourceStore, watchers: int, rounds: int = 5) -> float:
    """Median seconds from an update to its arrival at the last of `watchers` thread watchers."""
    samples = []
    for _ in range(rounds):
        start = str(store.engine.current_revision())
        watches = [store.watch("bench", resource_version=start) for _ in range(watchers)]
        arrived: list[float] = []
        lock = threading.Lock()
        ready = threading.Barrier(watchers + 1)

        def consume(watch) -> None:
            ready.wait()
            event = watch.next_event(timeout=30)
            assert event is not None and event.type == "MODIFIED"
            with lock:
                arrived.append(time.perf_counter())

        threads = [threading.Thread(target=consume, args=(w,)) for w in watches]
        for thread in threads:
            thread.start()
        ready.wait()
        time.sleep(0.05)  # let every consumer block
        current = store.get("widget-00000", "bench")
        current["spec"]["replicas"] += 1
        sent = time.perf_counter()
        store.update(current)
        for thread in threads:
            thread.join()
        samples.append(max(arrived) - sent)
        for watch in watches:
            watch.close()
    return statistics.median(samples)


def fanout_async(store: ResourceStore, watchers: int, rounds: int = 5) -> float:
    """As `fanout_threads`, with asyncio tasks iterating the watches."""

    async def one_round() -> float:
        start = str(store.engine.current_revision())
        watches = [store.watch("bench", resource_version=start) for _ in range(watchers)]

        async def consume(watch) -> float:
            event = await watch.__anext__()
            assert event.type == "MODIFIED"
            return time.perf_counter()

        tasks = [asyncio.create_task(consume(w)) for w in watches]
        await asyncio.sleep(0.05)  # let every task wait
        current = store.get("widget-00000", "bench")
        current["spec"]["replicas"] += 1
        sent = time.perf_counter()
        await asyncio.to_thread(store.update, current)
        arrived = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        for watch in watches:
            watch.close()
        return max(arrived) - sent

    return statistics.median(asyncio.run(one_round()) for _ in range(rounds))


def run(kinds: tuple[str, ...] = BACKEND_KINDS) -> list[str]:
    """Run the store benchmarks on `kinds`; return report lines."""
    lines = ["Store engine: operations per second (one thread, ~1 KiB objects); watch fan-out latency"]
    etcd = None
    try:
        for kind in kinds:
            if kind == "etcd":
                if etcd_binary() is None:
                    lines.append("  etcd: skipped (apt-get install -y etcd-server)")
                    continue
                etcd = EtcdServer().start()
            with tempfile.TemporaryDirectory(prefix="kgen-bench-store-") as directory:
                backend = make_backend(kind, directory, etcd.endpoint if etcd else "")
                engine = Engine(backend, compaction_interval=None, watch_cache_capacity=50_000)
                store = engine.resource(INFO)
                rates = throughput(store)
                lines.append(f"  {kind}: " + ", ".join(f"{name} {rate:,.0f}/s" for name, rate in rates.items()))
                for watchers in FANOUT:
                    threads = fanout_threads(store, watchers)
                    tasks = fanout_async(store, watchers)
                    lines.append(
                        f"  {kind}: one update to {watchers:,} watchers: "
                        f"{threads * 1000:.1f} ms (threads), {tasks * 1000:.1f} ms (asyncio tasks)"
                    )
                engine.close()
                backend.close()
            if etcd is not None:
                etcd.stop()
                etcd = None
    finally:
        if etcd is not None:
            etcd.stop()
    return lines


def main(argv: list[str]) -> None:
    """Print the report for the backends named in `argv` (default: all)."""
    kinds = tuple(argv) or BACKEND_KINDS
    for line in run(kinds):
        print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
