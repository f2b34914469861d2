"""Subsets of the generators. Configured (`generators` in [tool.kgen]): whatever subset it
is, the package written imports, its `__init__` and `register.py` importing only the modules
of that subset. Selected for one run (`--only`) on a generated tree: the run rewrites only
its own files and the tree stays wired as a full run leaves it (`--check` finds nothing)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from kgen import pipeline
from kgen.emit import Mode, emit
from kgen.generators import GENERATORS, PYTHON_GENERATORS
from kgen.options import resolve_options

from conftest import REPO

# Each subset is imported by a Python interpreter of its own.
pytestmark = pytest.mark.slow

_PYTHON = [name for name in PYTHON_GENERATORS if name != "models"]
SUBSETS = (
    [("models",)]
    + [("models", name) for name in _PYTHON]
    + [tuple(n for n in GENERATORS if n != left_out) for left_out in _PYTHON]
    + [("models", "deepcopy", "protobuf")]
)


@pytest.fixture(scope="module")
def example_options():
    options = resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS))
    return options


def _modules(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


@pytest.mark.parametrize("subset", SUBSETS, ids=lambda s: "+".join(s) if len(s) < 4 else "all-but-" + "".join(
    sorted(set(GENERATORS) - set(s))))  # fmt: skip
def test_every_configured_subset_imports(subset, example_options, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    options = dataclasses.replace(example_options, generators=subset)
    result = pipeline.generate(options, use_cache=False)
    out = tmp_path / "out"
    emit(result.files, out, Mode.WRITE, options.selected)
    produced = {f.generator for f in result.files}
    assert produced <= set(subset)
    init = (out / "example" / "v1" / "__init__.py").read_text()
    for module in ("deepcopy", "defaulters", "conversion", "register", "validation", "strategies"):
        if f"import {module}" in init or f"from . import {module}" in init:
            assert (out / "example" / "v1" / f"{module}.py").exists(), f"__init__ imports {module}, which was not generated"
    modules = _modules(out)
    program = "import importlib, sys\nsys.path[:0] = [sys.argv[1], sys.argv[2]]\n" + "".join(
        f"importlib.import_module({m!r})\n" for m in modules
    )
    done = subprocess.run([sys.executable, "-c", program, str(tmp_path), str(REPO)], capture_output=True, text=True)
    assert done.returncode == 0, f"--only {','.join(subset)}: {done.stderr[-1500:]}"


@pytest.mark.parametrize("only", [("models",), ("models", "crd"), ("deepcopy",), ("scheme", "openapi")], ids="+".join)
def test_only_on_a_generated_tree_changes_nothing_it_did_not_regenerate(only, example_options, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    full = pipeline.generate(example_options, use_cache=False)
    out = tmp_path / "out"
    emit(full.files, out, Mode.WRITE, example_options.selected)
    partial = pipeline.generate(dataclasses.replace(example_options, only=only), use_cache=False)
    report = emit(partial.files, out, Mode.WRITE, only)
    assert report.written == [] and report.deleted == []
    check = emit(full.files, out, Mode.CHECK, example_options.selected)
    assert not (check.stale or check.missing or check.orphaned)
