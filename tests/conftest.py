"""Shared helpers: parse Go snippets, build a universe from files on disk, run the CLI."""

from __future__ import annotations

import os
import tempfile
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgen.cli import main
from kgen.diagnostics import Diagnostics
from kgen.ir.build import BuildOptions, build_universe
from kgen.source.parser import parse_go_file

# Tests never depend on what an earlier run left in the user's cache.
os.environ["KGEN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kgen-test-cache-")

REPO = Path(__file__).resolve().parent.parent
TESTDATA = Path(__file__).resolve().parent / "testdata"


def parse(source: str, path: str = "types.go", tags=None):
    """Parse a Go snippet; return (GoFile or None, diagnostics)."""
    diagnostics = Diagnostics()
    kwargs = {"tags": tags} if tags is not None else {}
    parsed = parse_go_file(path, textwrap.dedent(source).lstrip().encode(), diagnostics, **kwargs)
    return parsed, diagnostics


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def build(root: Path, module: str = "example.com/apis", import_map=None):
    """Build a universe from a directory; return (universe, diagnostics)."""
    diagnostics = Diagnostics()
    universe = build_universe(
        BuildOptions(input=root, module=module, import_map=import_map or {}), diagnostics
    )
    return universe, diagnostics


def messages(diagnostics: Diagnostics) -> list[str]:
    return [str(d) for d in diagnostics.sorted()]


# Parameters of the fixtures that pick a backend (`backend` of store_fixtures and of
# test_typed_clients, `server` of test_serve_http) that need a server process: a loopback
# etcd, or `kgen serve` on uvicorn. Their tests are slow; the same tests on the in-process
# backends (memory, SQLite, the fake cluster) stay in `make test-fast`.
_SERVER_PARAMETERS = frozenset({"etcd", "serve"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None:
            continue
        for name in ("backend", "server"):
            value = callspec.params.get(name)
            parts = value if isinstance(value, tuple) else (value,)
            if any(isinstance(part, str) and part in _SERVER_PARAMETERS for part in parts):
                item.add_marker(pytest.mark.slow)
                break


@pytest.fixture
def cli(monkeypatch):
    """Run `kgen ...` in-process in a given directory; returns the click Result."""

    def run(args: list[str], cwd: Path):
        monkeypatch.chdir(cwd)
        return CliRunner().invoke(main, args, catch_exceptions=False)

    return run


@pytest.fixture(scope="session")
def msgspec_example(tmp_path_factory):
    """The example API generated on msgspec models, once per session, importable as
    `generated_msgspec` (see `serve_fixtures.generate_msgspec_example`)."""
    import importlib
    import sys

    from kgen.runtime.scheme import SCHEME
    from tests.serve_fixtures import generate_msgspec_example

    root = tmp_path_factory.mktemp("msgspec-example")
    example = generate_msgspec_example(root)
    sys.path.insert(0, str(root))
    # Importing a generated package registers its kinds in the process-wide SCHEME, where
    # other tests decode the repository's pydantic kinds: those are registered again after.
    # (A server of either package decodes with a Scheme of its own.)
    for package in (example.package, "generated"):
        for version in ("", ".v1", ".v1beta1"):
            register = importlib.import_module(f"{package}.example{version}.register")
            if package == "generated":
                register.add_to_scheme(SCHEME)
    yield example
    sys.path.remove(str(root))


_projects = 0


@pytest.fixture
def generate_project(tmp_path, monkeypatch):
    """Write API files (and hook modules), generate, and return an importer for the output.

    Each project gets unique package names, so tests can import many side by side. With
    `models="msgspec"`, the generators that run on msgspec models run (unless `generators` says)."""
    import importlib

    from kgen import pipeline
    from kgen.generators import GENERATORS, unavailable_for
    from kgen.options import resolve_options

    def run(files: dict[str, str], generators=None, models="pydantic"):
        global _projects
        _projects += 1
        api, out = f"api{_projects}", f"out{_projects}"
        write_tree(tmp_path, {f"{api}/{path}": text for path, text in files.items()})
        monkeypatch.chdir(tmp_path)
        options = resolve_options(
            config_path=tmp_path / "none.toml", input=api, output=out, module="example.com/apis",
            registered=tuple(GENERATORS), models=models,
        )  # fmt: skip
        if not generators and models != "pydantic":
            generators = [name for name in options.selected if not unavailable_for(models, (name,))]
        if generators:
            from dataclasses import replace

            options = replace(options, generators=tuple(generators))
        result = pipeline.generate(options, use_cache=False)
        from kgen.emit import Mode, emit

        emit(result.files, options.output, Mode.WRITE, options.selected)
        monkeypatch.syspath_prepend(str(tmp_path))
        return lambda module: importlib.import_module(f"{out}.{module}"), result

    return run
