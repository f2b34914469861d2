"""generated/ and kgen's own runtime models are exactly what kgen generates now."""

from __future__ import annotations

from kgen import pipeline
from kgen.cli import runtime_options
from kgen.emit import Mode, emit
from kgen.generators import GENERATORS
from kgen.options import resolve_options

from conftest import REPO


def _drift_message(report, command: str) -> str:
    return (
        "stale generated files:\n" + "".join(report.diffs) + f"\nrun `{command}` to regenerate them"
    )


def test_example_api_generated_tree_is_up_to_date(monkeypatch):
    monkeypatch.chdir(REPO)
    options = resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS))
    result = pipeline.generate(options, use_cache=False)
    report = emit(result.files, options.output, Mode.CHECK, options.selected)
    assert not report.drifted, _drift_message(report, "make generate")


def test_runtime_models_are_up_to_date():
    """The pydantic models and the msgspec structs of kgen's well-known types."""
    for options in runtime_options():
        result = pipeline.generate(options, bootstrap=True, use_cache=False)
        report = emit(result.files, options.output, Mode.CHECK, options.selected)
        assert not report.drifted, _drift_message(report, "make bootstrap-runtime")


def test_example_api_has_no_warnings(monkeypatch):
    monkeypatch.chdir(REPO)
    options = resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS))
    _, diagnostics = pipeline.build(options)
    assert [str(d) for d in diagnostics.sorted()] == []
