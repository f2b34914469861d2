"""Start `kgen serve` for a test: a subprocess on a free loopback port, its own kubeconfig.

    with ServeProcess(storage="sqlite:/tmp/x.db") as server:
        httpx.get(server.url + "/apis")
        server.kubectl("get", "frobbers")

    @pytest.fixture(scope="module", params=MODELS)
    def server(request):                        # the example API on each model backend
        with ServeProcess(config=example_api(request, request.param).config) as process:
            yield process

The server runs in a subprocess (it imports the generated package it writes for itself,
which must not meet the repository's `generated` package in the test process). It binds
port 0 and the test learns the port from the kubeconfig the server writes once it
listens. `kubectl()` runs kubectl with that kubeconfig and a private HOME (kubectl keeps
a discovery cache in ~/.kube/cache).

The example API is served on pydantic models (this repository's configuration) and on
msgspec structs (`generate_msgspec_example`, run once per session by conftest's
`msgspec_example` fixture).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


class ServeProcess:
    """One `kgen serve` subprocess; use as a context manager."""

    def __init__(self, *args: str, storage: str = "sqlite::memory:", cwd: Path = REPO, env: dict[str, str] | None = None,
                 timeout: float = 90.0, config: Path | None = None):  # fmt: skip
        self.directory = Path(tempfile.mkdtemp(prefix="kgen-serve-test-"))
        self.kubeconfig = self.directory / "kubeconfig"
        self.home = self.directory / "home"
        self.home.mkdir()
        self.args = [sys.executable, "-m", "kgen.cli", "serve", "--port", "0", "--kubeconfig", str(self.kubeconfig),
                     "--storage", storage, *(("--config", str(config)) if config is not None else ()), *args]  # fmt: skip
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
            self.process = subprocess.Popen(
                self.args, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
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

    def kubectl(
        self, *args: str, input: str | None = None, check: bool = True, timeout: float = 60.0
    ) -> subprocess.CompletedProcess[str]:
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
    return {
        "apiVersion": api_version,
        "kind": "Frobber",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


# -- the example API on each model backend ------------------------------------------------------

MODELS = ("pydantic", "msgspec")
"""The model backends the example API is served on."""


@dataclass(frozen=True)
class ExampleAPI:
    """The example API generated on one model backend."""

    models: str
    config: Path
    """The pyproject.toml a server of it loads (`kgen serve --config`, `FakeCluster(config=)`)."""
    package: str
    """The generated package's name (`generated`, or `generated_msgspec`)."""


PYDANTIC_EXAMPLE = ExampleAPI("pydantic", REPO / "pyproject.toml", "generated")

MSGSPEC_PACKAGE, MSGSPEC_HOOKS = "generated_msgspec", "apis_msgspec"


def generate_msgspec_example(root: Path) -> ExampleAPI:
    """Generate the example API on msgspec models into `root/generated_msgspec` (every
    generator, the typed client too), from a copy of `apis/` in `root/apis_msgspec`.

    The fake cluster imports the package it serves into the test process, beside the
    repository's pydantic `generated`, so the msgspec package has a name of its own; the
    input's hooks import the package they are generated into (and each other) by name, so
    the copy's hooks import the copy."""
    from kgen import pipeline
    from kgen.emit import Mode, emit
    from kgen.generators import GENERATORS
    from kgen.options import resolve_options

    source = REPO / "apis"
    for path in sorted(source.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        target = root / MSGSPEC_HOOKS / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            text = re.sub(r"^(\s*)from (generated|apis)\.", r"\1from \2_msgspec.", text, flags=re.M)
        target.write_text(text, encoding="utf-8")
    settings, table = [], ""
    for line in (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        table = line if line.startswith("[") else table
        if table == "[tool.kgen]" and line.startswith(("input =", "output =")):
            continue
        if table.startswith("[tool.kgen"):
            settings.append(line)
        if line == "[tool.kgen]":
            settings += [f'input = "{MSGSPEC_HOOKS}"', f'output = "{MSGSPEC_PACKAGE}"', 'models = "msgspec"']
    config = root / "pyproject.toml"
    config.write_text("\n".join(settings) + "\n", encoding="utf-8")
    options = resolve_options(config_path=config, registered=tuple(GENERATORS))
    assert options.models == "msgspec" and options.output == root / MSGSPEC_PACKAGE, options
    emit(pipeline.generate(options).files, options.output, Mode.WRITE, options.selected)
    return ExampleAPI("msgspec", config, MSGSPEC_PACKAGE)


def example_api(request: pytest.FixtureRequest, models: str) -> ExampleAPI:
    """The example API on `models` (the msgspec one is generated once per session)."""
    return PYDANTIC_EXAMPLE if models == "pydantic" else request.getfixturevalue("msgspec_example")


# -- one API served three ways --------------------------------------------------------------------

CLUSTER_ENV = "KGEN_TEST_CLUSTER"
"""The kubeconfig of a real API server to run the behavioural suites against as well (the
answer key they imitate); `python -m bench.conformance.cluster` sets it and scores the run."""

SERVERS = (
    "fake",
    pytest.param("serve-sqlite", marks=pytest.mark.slow),
    pytest.param("serve-etcd", marks=pytest.mark.slow),
    *((pytest.param("cluster", marks=pytest.mark.slow),) if os.environ.get(CLUSTER_ENV) else ()),
)
"""How a behavioural suite's API is served: `FakeCluster` in process (memory storage), and
`kgen serve` in a subprocess over TLS on SQLite and on etcd; with `KGEN_TEST_CLUSTER` set, a
real API server too. Parametrize a module-scoped fixture with these and open it with
`served_api`."""


class ServedClient(httpx.Client):
    """An HTTP client of a served API (an attribute or two of the suite's may ride along)."""


@contextlib.contextmanager
def served_api(request: pytest.FixtureRequest, config: Path, directory: Path) -> Iterator[Callable[..., ServedClient]]:
    """The API of `config` served as `request.param` (one of `SERVERS`) says; yields a factory
    of clients. kgen serve runs without authentication (as FakeCluster does, so requests
    are `system:anonymous` on both), still over TLS."""
    import uuid

    if request.param == "cluster":
        with external_cluster(os.environ[CLUSTER_ENV], config) as connect:
            yield connect
        return
    if request.param == "fake":
        from kgen.serve.fake import FakeCluster, _SyncBridge

        with FakeCluster(config=config) as fake:
            yield lambda **kwargs: ServedClient(transport=_SyncBridge(fake), base_url="https://fake.cluster", **kwargs)
        return
    if request.param == "serve-etcd":
        storage = f"etcd:{request.getfixturevalue('etcd_server').endpoint}"
        extra: tuple[str, ...] = ("--storage-prefix", f"/kgen-test-{uuid.uuid4().hex[:8]}/registry/")
    else:
        storage, extra = f"sqlite:{directory / 'store.db'}", ()
    with ServeProcess("--no-auth", *extra, storage=storage, config=config) as server:
        yield lambda **kwargs: ServedClient(base_url=server.url, verify=server.verify(), timeout=30.0, **kwargs)


# -- a real API server ---------------------------------------------------------------------------


@contextlib.contextmanager
def external_cluster(kubeconfig: str, config: Path | None) -> Iterator[Callable[..., ServedClient]]:
    """A real API server, as its kubeconfig (current context) says, with the CRDs `config`
    generates (if any) installed on it as `kubectl apply -f generated/crds/` would (what kgen serve
    does at start); they are deleted again at the end, and their objects with them."""
    import base64
    import ssl

    document = yaml.safe_load(Path(kubeconfig).read_text())
    context = next(
        c["context"] for c in document["contexts"] if c["name"] == document.get("current-context", c["name"])
    )
    cluster = next(c["cluster"] for c in document["clusters"] if c["name"] == context["cluster"])
    user = next((u["user"] for u in document.get("users") or () if u["name"] == context.get("user")), {})
    verify: ssl.SSLContext | bool = not cluster.get("insecure-skip-tls-verify", False)
    if verify and "certificate-authority-data" in cluster:
        verify = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
    elif verify and "certificate-authority" in cluster:
        verify = ssl.create_default_context(cafile=cluster["certificate-authority"])
    directory = Path(tempfile.mkdtemp(prefix="kgen-cluster-test-"))
    cert: tuple[str, str] | None = None
    if "client-certificate-data" in user:
        (directory / "client.crt").write_bytes(base64.b64decode(user["client-certificate-data"]))
        (directory / "client.key").write_bytes(base64.b64decode(user["client-key-data"]))
        cert = (str(directory / "client.crt"), str(directory / "client.key"))
    elif "client-certificate" in user:
        cert = (user["client-certificate"], user["client-key"])
    headers = {"Authorization": f"Bearer {user['token']}"} if user.get("token") else {}

    def connect(**kwargs) -> ServedClient:
        kwargs["headers"] = {**headers, **kwargs.get("headers", {})}
        return ServedClient(base_url=cluster["server"], verify=verify, cert=cert, timeout=30.0, **kwargs)

    crds = generated_crds(config) if config is not None else []
    with connect() as http:
        for crd in crds:
            install_crd(http, crd)
    try:
        yield connect
    finally:
        with connect() as http:
            for crd in crds:
                delete_crd(http, crd["metadata"]["name"])
        shutil.rmtree(directory, ignore_errors=True)


def generated_crds(config: Path) -> list[dict]:
    """The CustomResourceDefinitions kgen generates for the API of `config`."""
    from kgen import pipeline
    from kgen.generators import GENERATORS
    from kgen.options import resolve_options

    options = resolve_options(config_path=config, registered=tuple(GENERATORS))
    files = pipeline.generate(options, use_cache=False).files
    return [
        document
        for file in sorted(files, key=lambda f: str(f.path))
        if str(file.path).startswith("crds/") and str(file.path).endswith(".yaml")
        for document in yaml.safe_load_all(file.content)
        if document and document.get("kind") == "CustomResourceDefinition"
    ]


CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def install_crd(http: httpx.Client, crd: dict, timeout: float = 60.0) -> None:
    """Create `crd` (replacing one of its name) and wait until it is Established and its
    versions are in discovery, as `kubectl wait --for=condition=Established` and a client's
    discovery refresh would."""
    name = crd["metadata"]["name"]
    delete_crd(http, name)
    created = http.post(CRDS, json=crd)
    assert created.status_code == 201, created.text[:1000]
    deadline = time.monotonic() + timeout
    while True:
        current = http.get(f"{CRDS}/{name}").json()
        conditions = {c["type"]: c["status"] for c in current.get("status", {}).get("conditions") or ()}
        group, plural = crd["spec"]["group"], crd["spec"]["names"]["plural"]
        served = [v["name"] for v in crd["spec"]["versions"] if v.get("served")]
        discovered = conditions.get("Established") == "True" and all(
            any(r["name"] == plural for r in http.get(f"/apis/{group}/{version}").json().get("resources", ()))
            for version in served
        )
        if discovered:
            return
        assert time.monotonic() < deadline, f"{name} was not established in {timeout}s: {current.get('status')}"
        time.sleep(0.1)


def delete_crd(http: httpx.Client, name: str, timeout: float = 60.0) -> None:
    """Delete the CRD `name` if it exists, and wait until it is gone (with its objects)."""
    if http.delete(f"{CRDS}/{name}").status_code == 404:
        return
    deadline = time.monotonic() + timeout
    while http.get(f"{CRDS}/{name}").status_code != 404:
        assert time.monotonic() < deadline, f"{name} was not deleted in {timeout}s"
        time.sleep(0.1)
