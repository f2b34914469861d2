"""`python -m bench.startup [--warm 3]`: seconds from starting `kgen serve` until `/readyz`
answers, cold (an empty kgen cache: the API is generated and imported) and warm (the cache
of an earlier start is reused), on the repository's example API, plain HTTP on loopback:
what a test suite pays for each server it starts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench.serve import REPO


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _start(cache: str) -> float:
    """Seconds until /readyz of one `kgen serve` started with `cache` as kgen's cache."""
    port = _free_port()
    command = [sys.executable, "-m", "kgen.cli", "serve", "--port", str(port), "--no-tls", "--no-auth",
               "--kubeconfig", os.path.join(cache, "kubeconfig")]  # fmt: skip
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, env={**os.environ, "KGEN_CACHE_DIR": cache},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        while process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
                    if answer.read() == b"ok":
                        return time.perf_counter() - started
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"kgen serve exited with {process.returncode}")
    finally:
        process.terminate()
        process.wait(20)


def run(warm: int = 3) -> list[str]:
    cache = tempfile.mkdtemp(prefix="kgen-bench-startup-")
    try:
        cold = _start(cache)
        warm_times = [_start(cache) for _ in range(warm)]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return [
        "kgen serve until /readyz (the example API, plain HTTP on loopback)",
        f"  cold cache: {cold:.2f} s",
        f"  warm cache: best {min(warm_times):.2f} s, worst {max(warm_times):.2f} s of {warm}",
    ]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.startup")
    parser.add_argument("--warm", type=int, default=3)
    args = parser.parse_args(argv)
    print("\n".join(run(args.warm)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
