"""Start `kgen serve` for a test: a subprocess on a free loopback port, its own kubeconfig.

    with ServeProcess(storage="sqlite:/tmp/x.db") as server:
        httpx.get(server.url + "/apis")
        server.kubectl("get", "frobbers")

The server runs in a subprocess (it imports the generated package it writes for itself,
which must not meet the repository's `generated` package in the test process). It binds
port 0 and the test learns the port from the kubeconfig the server writes once it
listens. `kubectl()` runs kubectl with that kubeconfig and a private HOME (kubectl keeps
a discovery cache in ~/.kube/cache).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


class ServeProcess:
    """One `kgen serve` subprocess; use as a context manager."""

    def __init__(self, *args: str, storage: str = "sqlite::memory:", cwd: Path = REPO, env: dict[str, str] | None = None, timeout: float = 90.0):
        self.directory = Path(tempfile.mkdtemp(prefix="kgen-serve-test-"))
        self.kubeconfig = self.directory / "kubeconfig"
        self.home = self.directory / "home"
        self.home.mkdir()
        self.args = [sys.executable, "-m", "kgen.cli", "serve", "--port", "0", "--kubeconfig", str(self.kubeconfig),
                     "--storage", storage, *args]  # fmt: skip
        self.cwd = cwd
        self.env = {**os.environ, **(env or {})}
        self.timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.directory / "serve.log"
        self.url = ""
        self.token = ""
        self.ca = b""

    def start(self) -> ServeProcess:
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(self.args, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"kgen serve exited with {self.process.returncode}:\n{self.output()}")
            if self.kubeconfig.exists():
                config = yaml.safe_load(self.kubeconfig.read_text())
                cluster = config["clusters"][0]["cluster"]
                self.url = cluster["server"]
                self.token = config["users"][0]["user"].get("token", "")
                if "certificate-authority-data" in cluster:
                    import base64

                    self.ca = base64.b64decode(cluster["certificate-authority-data"])
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"kgen serve did not start in {self.timeout}s:\n{self.output()}")

    def output(self) -> str:
        """What the server printed."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def verify(self):
        """What an HTTP client verifies the server with: its certificate, when it has one."""
        if not self.ca:
            return True
        import ssl

        return ssl.create_default_context(cadata=self.ca.decode())

    def client(self, **kwargs) -> httpx.Client:
        """An HTTP client for the server (with its token, when it has one)."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return httpx.Client(base_url=self.url, headers=headers, verify=self.verify(), timeout=30.0, **kwargs)

    def kubectl(self, *args: str, input: str | None = None, check: bool = True, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """Run kubectl against the server; with `check`, fail the test on a non-zero exit."""
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig), "HOME": str(self.home)}
        result = subprocess.run([KUBECTL, *args], input=input, env=env, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            pytest.fail(f"kubectl {' '.join(args)} exited with {result.returncode}:\n{result.stdout}\n{result.stderr}")
        return result

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int | None:
        """Stop the server (SIGTERM: a graceful shutdown) and return its exit code."""
        process, self.process = self.process, None
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


def kubectl_available() -> bool:
    """Whether kubectl is installed."""
    return os.access(KUBECTL, os.X_OK)


requires_kubectl = pytest.mark.skipif(not kubectl_available(), reason="kubectl is not installed")


def frobber(name: str, namespace: str = "default", api_version: str = "example.kgen.dev/v1", **spec) -> dict:
    """A Frobber object as JSON data."""
    return {"apiVersion": api_version, "kind": "Frobber", "metadata": {"name": name, "namespace": namespace}, "spec": spec}
