"""Generated code, kgen.runtime and the code users write with them pass `mypy --strict`,
with no plugin: models are built by their Python names (`api_version=`, not `apiVersion=`).

Checking protobuf output needs the stubs of the dev dependencies (types-protobuf).
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

USER_SCRIPT = REPO / "tests/testdata/typing/user_script.py"


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module's runs: the second reuses what the first read (pydantic, typeshed)."""
    return tmp_path_factory.mktemp("mypy-cache")


def mypy_strict(targets: list[str], cwd: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` (the venv's) on `targets`, run in `cwd` (whose pyproject.toml it reads)."""
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *extra, *targets]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_generated_example_runtime_and_user_code_pass_mypy_strict(mypy_cache):
    result = mypy_strict(
        ["generated", "kgen/runtime", str(USER_SCRIPT.relative_to(REPO))],
        REPO,
        mypy_cache,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


@pytest.mark.slow
def test_kgen_init_project_passes_mypy_strict(cli, tmp_path, mypy_cache):
    assert cli(["init"], tmp_path).exit_code == 0
    generated = cli(["generate"], tmp_path)
    assert generated.exit_code == 0, generated.output
    result = mypy_strict(["generated"], tmp_path, mypy_cache)
    assert result.returncode == 0, result.stdout + result.stderr


def test_user_script_runs(capsys):
    runpy.run_path(str(USER_SCRIPT), run_name="__main__")
    assert capsys.readouterr().out == "ok\n"
