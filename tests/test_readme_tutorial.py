"""The README's five-minute tutorial, run exactly as written: its shell blocks, in order,
in one shell, in an empty directory. pip finds kgen-k8s as the wheel of this checkout (as
it will on PyPI once released), and nothing else is changed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

OPERATOR_VENV = Path("/tmp/shop-operator")  # as the tutorial names it


def tutorial_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Your own API repository in five minutes") : text.index("## Working on kgen")]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def test_the_tutorial_has_the_steps_it_promises():
    script = "\n".join(tutorial_blocks())
    for step in ("pip install --quiet \"kgen-k8s[codegen]\"", "kgen init", "cat > apis/shop/v1/types.go",
                 "kgen generate", "pip install --quiet kgen-k8s", "pre-commit run"):
        assert step in script


@pytest.mark.slow
@pytest.mark.network
def test_the_tutorial_runs_as_written(tmp_path):
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(REPO)],
                           capture_output=True, text=True)  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    version = next(wheels.glob("kgen_k8s-*.whl")).name.split("-")[1]
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(f"kgen-k8s=={version}\n")
    project = tmp_path / "shop"
    project.mkdir()
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))},
        "PIP_FIND_LINKS": str(wheels),
        "PIP_CONSTRAINT": str(constraints),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "NO_COLOR": "1",
        # the first python3 on PATH is the one a user has, not this test's venv
        "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not p.startswith(str(REPO))),
    }
    shutil.rmtree(OPERATOR_VENV, ignore_errors=True)
    script = "set -euo pipefail\n" + "\n".join(tutorial_blocks())
    try:
        done = subprocess.run(["bash", "-c", script], cwd=project, env=environment, capture_output=True, text=True, timeout=900)
    finally:
        shutil.rmtree(OPERATOR_VENV, ignore_errors=True)
    assert done.returncode == 0, f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    out = done.stdout
    assert "spec.item: Invalid value: \"Green-Tea\": must match the regular expression '^[a-z0-9-]+$'" in out
    yaml_part = out[out.index("apiVersion: shop.example.com/v1") :]
    assert yaml_part.splitlines()[:4] == ["apiVersion: shop.example.com/v1", "kind: Order", "metadata:", "  name: tea"]
    assert "  item: green-tea" in yaml_part and "  quantity: 1" in yaml_part
    assert (project / "generated" / "crds" / "shop.example.com_orders.yaml").is_file()
    assert "kgen generate" in done.stdout + done.stderr  # pre-commit ran the hook
