"""`python -m bench.clients [--counts 500 5000]`: listing objects from kgen serve and decoding
them, with the generated typed client beside the official `kubernetes` client and lightkube,
on the same server and the same payload.

The server (`kgen serve`, SQLite in memory) holds N Frobbers of about 1 KiB each. Each
client lists them once per round (best of several rounds), each as its users would for a
custom resource: kgen's `client.frobbers(ns).list()` (a typed FrobberList), the official
client's `CustomObjectsApi.list_namespaced_custom_object` (JSON data: it has no models for
custom resources) and lightkube's generic resource (`create_namespaced_resource`, objects
of its generic class). Ratios are their time over kgen's (above 1: kgen is faster).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bench.serve import NAMESPACE, Connection, Server, frobber


def _best(function, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


async def _fill(server: Server, count: int) -> None:
    connections = [await Connection.open(server.host, server.port) for _ in range(8)]
    import json

    await connections[0].request("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}).encode())
    path = f"/apis/example.kgen.dev/v1/namespaces/{NAMESPACE}/frobbers"

    async def create(worker: int) -> None:
        for index in range(worker, count, len(connections)):
            status, body = await connections[worker].request("POST", path, json.dumps(frobber(f"f-{index:05}")).encode())
            if status != 201:
                raise RuntimeError(body[:300])

    await asyncio.gather(*(create(w) for w in range(len(connections))))
    for connection in connections:
        connection.close()


def run(counts: list[int], rounds: int = 5) -> list[str]:
    """Report lines: time to list and decode N objects with each client."""
    from kgen.runtime.client import ClientConfig, Transport
    from generated.example.v1 import client as v1_client

    lines = ["Clients: list and decode N Frobbers from kgen serve (ratio = their time / kgen's; higher is better)"]
    for count in counts:
        directory = Path(tempfile.mkdtemp(prefix="kgen-bench-clients-"))
        server = Server("sqlite::memory:", directory)
        try:
            asyncio.run(_fill(server, count))
            url = f"http://{server.host}:{server.port}"
            ours = v1_client.Client(Transport(ClientConfig(server=url, namespace=NAMESPACE), rate_limiter=None)).frobbers()
            assert len(ours.list().items or []) == count

            import kubernetes.client

            configuration = kubernetes.client.Configuration()
            configuration.host = url
            official = kubernetes.client.CustomObjectsApi(kubernetes.client.ApiClient(configuration))

            def list_official() -> None:
                data = official.list_namespaced_custom_object("example.kgen.dev", "v1", NAMESPACE, "frobbers")
                assert len(data["items"]) == count

            from lightkube import Client as LightClient
            from lightkube import KubeConfig
            from lightkube.generic_resource import create_namespaced_resource

            LightFrobber = create_namespaced_resource("example.kgen.dev", "v1", "Frobber", "frobbers")
            from lightkube.config.models import Cluster, User

            light = LightClient(KubeConfig.from_one(cluster=Cluster(server=url), user=User(), namespace=NAMESPACE))

            def list_light() -> None:
                assert len(list(light.list(LightFrobber))) == count

            timings = {
                "kgen typed client": _best(lambda: ours.list(), rounds),
                "kubernetes (dicts)": _best(list_official, rounds),
                "lightkube (generic)": _best(list_light, rounds),
            }
            kgen = timings.pop("kgen typed client")
            lines.append(
                f"  list {count:>5}  kgen {kgen * 1e3:8.1f} ms   "
                + "   ".join(f"{name} {value * 1e3:8.1f} ms ({value / kgen:4.2f}x)" for name, value in timings.items())
            )
        finally:
            server.stop()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.clients")
    parser.add_argument("--counts", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("\n".join(run(args.counts, args.rounds)), flush=True)


if __name__ == "__main__":
    main()
