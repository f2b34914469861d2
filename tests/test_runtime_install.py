"""`pip install kgen-k8s` is the runtime alone: generated code imports and works in a fresh
virtual environment that has none of the code generator's dependencies, and the `kgen`
command there says how to get the generator."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from conftest import REPO
from kgen.extras import EXTRAS

# Builds a wheel and pip-installs it, with its dependencies from the registry, into a new venv.
pytestmark = [pytest.mark.slow, pytest.mark.network]

USE = """
import importlib.util, json, sys
from generated.example import v1, v1beta1
from kgen.runtime.scheme import SCHEME
from kgen.runtime import yamlio

frobber = v1.Frobber.from_yaml('''
apiVersion: example.kgen.dev/v1
kind: Frobber
metadata: {name: a, namespace: default}
spec: {params: [a, b], ports: [{name: http, port: 80}]}
''')
v1.defaulters.default_Frobber(frobber)
errors = v1.validation.validate_Frobber(frobber)
old = SCHEME.convert(frobber, "example.kgen.dev/v1beta1")
import generated.webhook
review = generated.webhook.webhooks().review("/convert", {"apiVersion": "apiextensions.k8s.io/v1",
    "kind": "ConversionReview", "request": {"uid": "u", "desiredAPIVersion": "example.kgen.dev/v1beta1",
    "objects": [frobber.to_dict()]}})
converted = review["response"]["convertedObjects"][0]["apiVersion"]
missing = [m for m in sys.argv[1:] if importlib.util.find_spec(m) is not None]
print(json.dumps({"errors": [str(e) for e in errors], "old": type(old).__name__, "present": missing,
                  "converted": converted}))
"""


def _site_packages(python: Path) -> Path:
    return Path(subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())


@pytest.fixture(scope="module")
def runtime_venv(tmp_path_factory):
    """A new virtual environment with kgen's wheel installed without extras."""
    work = tmp_path_factory.mktemp("runtime")
    wheels = work / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(REPO)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    environment = work / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    wheel = next(wheels.glob("kgen_k8s-*.whl"))
    installed = subprocess.run([python, "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-2000:]
    return python


def test_the_runtime_alone_runs_generated_code(runtime_venv, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(REPO / "generated", project / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "apis", project / "apis", ignore=shutil.ignore_patterns("__pycache__", "*.go"))
    done = subprocess.run([runtime_venv, "-c", USE, *sorted(EXTRAS["codegen"])], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    import json

    result = json.loads(done.stdout)
    assert result == {"errors": [], "old": "Frobber", "present": [], "converted": "example.kgen.dev/v1beta1"}


def test_the_kgen_command_of_the_runtime_says_how_to_get_the_generator(runtime_venv):
    done = subprocess.run([runtime_venv.parent / "kgen", "generate"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "install it with: pip install 'kgen-k8s[codegen]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_kgen_webhook_of_the_runtime_says_how_to_get_the_server(runtime_venv, tmp_path):
    """The webhook application loads on the runtime alone; serving it asks for the webhook extra."""
    project = tmp_path / "project"
    shutil.copytree(REPO / "generated", project / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "apis", project / "apis", ignore=shutil.ignore_patterns("__pycache__", "*.go"))
    command = [runtime_venv.parent / "kgen", "webhook", "--no-tls", "--address", "127.0.0.1"]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True)
    assert done.returncode == 2
    assert "needs the webhook extra (uvicorn not installed): pip install 'kgen-k8s[webhook]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_wheel_ships_the_templates(runtime_venv):
    templates = _site_packages(runtime_venv) / "kgen" / "templates"
    assert (templates / "models" / "models.py.j2").is_file()
