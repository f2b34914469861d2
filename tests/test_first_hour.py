"""The first hour of a new user, each surprise they met as a test: a project `kgen init`
makes, the extras, the settings file, fields without json tags and opt-in strategies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

KGEN = Path(sys.executable).parent / "kgen"


def _kgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KGEN), *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    done = _kgen("init", "--group", "shop.example.com", "--kind", "Order", "--module", "example.com/shop/apis", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


@pytest.mark.slow
def test_init_ignores_what_git_should_not_stage(project):
    ignored = (project / ".gitignore").read_text().splitlines()
    assert {".venv/", "__pycache__/", ".pytest_cache/"} <= set(ignored)


TEST_WITH_FAKE_CLUSTER = '''
from kgen.serve.fake import FakeCluster
{first}


def test_an_order_round_trips_through_the_fake_cluster():
    cluster = FakeCluster()
    {second}
    orders = Client(cluster.transport()).orders("default")
    created = orders.create(Order(metadata={{"name": "tea"}}, spec={{"image": "tea:1"}}))
    assert isinstance(created, Order) and created.spec.image == "tea:1"
    assert orders.get("tea").metadata.resource_version == created.metadata.resource_version
'''


@pytest.mark.slow
@pytest.mark.parametrize("order", ["generated first", "fake cluster first"])
def test_a_project_from_init_runs_its_tests_with_plain_pytest(project, order):
    """`pytest`, not only `python -m pytest`: the tests import generated/ from the project
    root, and the test and FakeCluster see one copy of it whichever imports it first."""
    assert _kgen("generate", cwd=project).returncode == 0
    imports = "from generated.shop.v1 import Order\nfrom generated.shop.v1.client import Client"
    first, second = (imports, "") if order == "generated first" else ("", imports.replace("\n", "\n    "))
    (project / "tests").mkdir()
    (project / "tests" / "test_orders.py").write_text(TEST_WITH_FAKE_CLUSTER.format(first=first, second=second))
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(Path(sys.executable).parent / "pytest"), "-q", "-p", "no:cacheprovider"],
                          cwd=project, capture_output=True, text=True, env=environment)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout


@pytest.mark.slow
def test_serve_without_its_extra_says_which_to_install(project):
    """The serve extra missing (uvicorn not importable): exit 2 and the install command, not
    an internal error."""
    program = "import sys; sys.modules['uvicorn'] = None\nfrom kgen.cli import main\nmain(['serve', '--port', '0'])"
    done = subprocess.run([sys.executable, "-c", program], cwd=project, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "kgen serve needs the serve extra (uvicorn not installed): pip install 'kgen-k8s[serve]'" in done.stderr
    assert "internal error" not in done.stderr


@pytest.mark.slow
def test_a_setting_in_the_wrong_table_is_refused_at_its_line(project):
    """`strict` written below `[tool.kgen.import-map]` belongs to that table in TOML."""
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.kgen.import-map]\n"k8s.io/api/core/v1" = "third_party/core"\nstrict = true\n')
    line = pyproject.read_text().splitlines().index("strict = true") + 1
    done = _kgen("generate", cwd=project)
    assert done.returncode == 2, done.stderr
    assert f"pyproject.toml:{line}: [tool.kgen.import-map] maps an import path to a directory (a string), got strict = True" in done.stderr
    assert "move it above the first [tool.kgen.*] table" in done.stderr
    pyproject.write_text(pyproject.read_text().replace("strict = true", "strict = 1").replace(
        '"k8s.io/api/core/v1" = "third_party/core"\n', ""))
    done = _kgen("generate", cwd=project)
    assert done.returncode == 2 and "internal error" not in done.stderr


@pytest.mark.slow
def test_a_field_without_a_json_tag_is_a_located_warning_and_strict_makes_it_an_error(project):
    types = project / "apis/shop/v1/types.go"
    text = types.read_text()
    types.write_text(text.replace("type OrderSpec struct {", "type OrderSpec struct {\n\tCarrier string", 1))
    line = types.read_text().splitlines().index("\tCarrier string") + 1
    done = _kgen("generate", cwd=project)
    assert done.returncode == 0, done.stderr
    assert f"apis/shop/v1/types.go:{line}:2: warning: field Carrier has no json tag" in done.stderr
    strict = _kgen("generate", "--strict", cwd=project)
    assert strict.returncode == 2 and "field Carrier has no json tag" in strict.stderr


@pytest.mark.slow
def test_strategies_are_generated_only_when_asked_for(project):
    """They import hypothesis (the test extra), which a project's runtime does not have."""
    assert _kgen("generate", cwd=project).returncode == 0
    assert not (project / "generated/shop/v1/strategies.py").exists()
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "[tool.kgen]\n", '[tool.kgen]\ngenerators = ["models", "deepcopy", "defaulters", "scheme", "strategies"]\n'))
    assert _kgen("generate", cwd=project).returncode == 0
    assert (project / "generated/shop/v1/strategies.py").exists()
    assert "hypothesis" in (project / "generated/shop/v1/strategies.py").read_text()


@pytest.mark.slow
def test_the_distribution_is_named_so_that_pip_install_finds_it(project):
    """`kgen` on PyPI is another project; the runtime, the extras and init's dependency use kgen-k8s."""
    import tomllib

    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"] == "kgen-k8s"
    assert tomllib.loads((project / "pyproject.toml").read_text())["project"]["dependencies"] == ["kgen-k8s"]


KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: shop}}]
current-context: x
"""


def test_typed_clients_do_not_throttle_ordinary_use_and_take_their_limits_as_arguments(tmp_path, monkeypatch):
    from generated.example.v1.client import AsyncClient, Client

    (tmp_path / "config").write_text(KUBECONFIG)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "config"))
    with Client.from_config() as client:
        limiter = client.transport.rate_limiter
        assert (limiter.qps, limiter.burst) == (50, 300)  # kubectl's, not client-go's 5 and 10
        assert client.transport.config.timeout is None and client.transport.config.namespace == "shop"
    assert client.transport._client.is_closed
    tuned = Client.from_config(qps=5, burst=10, timeout=2.5)
    assert (tuned.transport.rate_limiter.qps, tuned.transport.rate_limiter.burst) == (5, 10)
    assert tuned.transport.config.timeout == 2.5
    tuned.close()

    import asyncio

    async def use() -> bool:
        async with AsyncClient.from_config(qps=20) as client:
            assert client.transport.rate_limiter.qps == 20
        return client.transport._client.is_closed

    assert asyncio.run(use())


def test_the_apimachinery_types_are_importable_from_one_place():
    from generated.example.v1 import Frobber
    from kgen.meta import Condition, ObjectMeta, Quantity, Time

    frobber = Frobber(metadata=ObjectMeta(name="a", labels={"app": "web"}))
    assert frobber.metadata.name == "a" and isinstance(frobber.metadata, ObjectMeta)
    assert {Condition, Quantity, Time}


@pytest.mark.slow
def test_the_command_line_says_what_each_command_does(project, tmp_path):
    top = _kgen("--help", cwd=project).stdout
    assert "bootstrap-runtime" not in top  # kgen's own maintenance, not a user's command
    for command in ("serve", "init"):
        text = _kgen(command, "--help", cwd=project).stdout
        assert "Exit codes" in text and "drifted" not in text
    assert "the access log" in _kgen("serve", "--help", cwd=project).stdout
    assert _kgen("-v", "generate", cwd=project).returncode == 0  # -v before the command, as after it
    assert _kgen("-q", "generate", "--check", cwd=project).returncode == 0


@pytest.mark.slow
def test_an_occupied_port_says_how_to_pick_another(project):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _kgen("serve", "--port", str(port), "--kubeconfig", str(project / "k"), cwd=project)
    assert done.returncode == 2, done.stderr
    assert f"cannot serve on 127.0.0.1:{port}" in done.stderr and "--port 0 for any free one" in done.stderr
