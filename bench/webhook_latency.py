"""`python -m bench.webhook_latency [--requests N]`: what webhooks add to a request in kgen serve.

Two `kgen serve`s (plain HTTP on loopback, SQLite in memory) serve the example API: one as
generated (conversions in process, no admission webhooks), the other with the generated
webhook configurations and the Frobber CRD's conversion webhook pointing at a `kgen
webhook` of the same API, over TLS on the same machine, as a cluster would call it.
One client sends requests one after another (so the figures are latencies, not
throughput): create, get and update of Frobbers through v1 (the storage version: admission
webhooks only) and through v1beta1 (conversion webhook calls too). Printed: the median
and 99th percentile of each, and what the webhooks add to the median.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench.serve import REPO, Connection, Server, frobber

SERVICE = "example-webhook-service.example-system.svc"


def _webhook(directory: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    """`kgen webhook` with a certificate for the example's Service: the process, its port, the CA."""
    from kgen.serve.security import self_signed_certificate

    certificate = self_signed_certificate(SERVICE)
    (directory / "tls.crt").write_bytes(certificate.cert_pem)
    (directory / "tls.key").write_bytes(certificate.key_pem)
    log = directory / "webhook.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "kgen.webhook", "--module", "generated.webhook", "--app-dir", str(REPO),
         "--address", "127.0.0.1", "--port", "0", "--cert-dir", str(directory)],
        cwd=REPO, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"serving on https://127\.0\.0\.1:(\d+)", log.read_text())
        if found:
            return process, int(found.group(1)), base64.b64encode(certificate.cert_pem).decode()
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(log.read_text())


async def _configure(server: Server, ca: str) -> None:
    """The generated webhook configurations and the CRD's conversion webhook, with the CA."""
    connection = await Connection.open(server.host, server.port)
    for document in yaml.safe_load_all((REPO / "generated/webhooks/manifests.yaml").read_text()):
        if not document:
            continue
        for hook in document["webhooks"]:
            hook["clientConfig"]["caBundle"] = ca
        plural = document["kind"].lower() + "s"
        status, data = await connection.request("POST", f"/apis/admissionregistration.k8s.io/v1/{plural}", json.dumps(document).encode())
        assert status == 201, data
    patch = [{"op": "add", "path": "/spec/conversion/webhook/clientConfig/caBundle", "value": ca}]
    status, data = await connection.request(
        "PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/frobbers.example.kgen.dev",
        json.dumps(patch).encode(), content_type="application/json-patch+json",
    )  # fmt: skip
    assert status == 200, data
    connection.close()


async def _measure(server: Server, label: str, requests: int) -> dict[str, list[float]]:
    """Latencies in ms of create, get and update through v1 and v1beta1."""
    connection = await Connection.open(server.host, server.port)
    namespace = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": label}}).encode()
    await connection.request("POST", "/api/v1/namespaces", namespace)
    found: dict[str, list[float]] = {}
    for version in ("v1", "v1beta1"):
        path = f"/apis/example.kgen.dev/{version}/namespaces/{label}/frobbers"

        async def timed(operation: str, method: str, url: str, body: bytes | None = None) -> bytes:
            started = time.perf_counter()
            status, data = await connection.request(method, url, body)
            found.setdefault(f"{operation} {version}", []).append((time.perf_counter() - started) * 1000)
            assert status < 300, (method, url, status, data[:300])
            return data

        for index in range(requests):
            name = f"{version}-{index}"
            obj = frobber(name)
            obj["apiVersion"] = f"example.kgen.dev/{version}"
            if version == "v1beta1":
                obj["spec"] = {"param": "--fast", "replicas": 2}
            created = json.loads(await timed("create", "POST", path, json.dumps(obj).encode()))
            await timed("get", "GET", f"{path}/{name}")
            created["spec"]["replicas"] = 3
            await timed("update", "PUT", f"{path}/{name}", json.dumps(created).encode())
    connection.close()
    return found


def run(requests: int = 200) -> list[str]:
    """The report lines."""
    directory = Path(tempfile.mkdtemp(prefix="kgen-bench-webhooks-"))
    webhook, port, ca = _webhook(directory)
    try:
        plain = Server("sqlite::memory:", directory)
        try:
            asyncio.run(_measure(plain, "warmup", 20))
            before = asyncio.run(_measure(plain, "plain", requests))
        finally:
            plain.stop()
        hooked = Server("sqlite::memory:", directory, "--webhook", f"example-system/example-webhook-service=127.0.0.1:{port}")
        try:
            asyncio.run(_configure(hooked, ca))
            asyncio.run(_measure(hooked, "warmup", 20))
            after = asyncio.run(_measure(hooked, "hooked", requests))
        finally:
            hooked.stop()
    finally:
        webhook.terminate()
        webhook.wait(30)
    lines = [
        f"kgen serve with and without the example's webhooks ({requests} requests each, one client, TLS to the webhook)",
        f"{'request':<18}{'no webhooks p50':>18}{'p99':>10}{'webhooks p50':>16}{'p99':>10}{'added p50':>12}",
    ]
    for key in before:
        p50, p50_hooked = statistics.median(before[key]), statistics.median(after[key])
        lines.append(
            f"{key:<18}{p50:>15.2f} ms{_p99(before[key]):>7.1f} ms{p50_hooked:>13.2f} ms{_p99(after[key]):>7.1f} ms"
            f"{p50_hooked - p50:>9.2f} ms"
        )
    return lines


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.webhook_latency")
    parser.add_argument("--requests", type=int, default=200, help="requests of each kind and version (default 200)")
    args = parser.parse_args(argv)
    print("\n".join(run(args.requests)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
