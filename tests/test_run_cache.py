"""Memoised runs: a hit is exactly the earlier run; any change to the input is a miss."""

from __future__ import annotations

from conftest import write_tree
from kgen import pipeline
from kgen.generators import GENERATORS
from kgen.options import resolve_options

FILES = {
    "apis/w/v1/types.go": """
        package v1

        // Widget is a widget.
        type Widget struct {
            // +k8s:frobnicate=1
            Size int32 `json:"size"`
        }
    """,
}


def _options(root):
    return resolve_options(
        config_path=root / "pyproject.toml", input=str(root / "apis"), output=str(root / "out"),
        module="example.com/apis", registered=tuple(GENERATORS),
    )  # fmt: skip


def test_hit_returns_the_same_files_and_warnings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, FILES)
    first = pipeline.generate(_options(tmp_path))
    second = pipeline.generate(_options(tmp_path))
    assert first.universe is not None and second.universe is None  # the second was not parsed
    assert second.files == first.files
    assert [str(d) for d in second.diagnostics.items] == [str(d) for d in first.diagnostics.items] == [
        "apis/w/v1/types.go:5:8: warning: unknown marker +k8s:frobnicate; did you mean +k8s:format?"
    ]


def test_any_change_to_an_input_file_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, FILES)
    pipeline.generate(_options(tmp_path))
    types = tmp_path / "apis/w/v1/types.go"
    types.write_text(types.read_text().replace("int32", "int64"))
    again = pipeline.generate(_options(tmp_path))
    assert again.universe is not None
    assert "_Int64" in next(f.content for f in again.files if f.path.endswith("models.py"))


def test_options_are_part_of_the_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, FILES)
    pipeline.generate(_options(tmp_path))
    only_models = resolve_options(
        config_path=tmp_path / "pyproject.toml", input="apis", output="out", module="example.com/apis",
        only="models", registered=tuple(GENERATORS),
    )  # fmt: skip
    result = pipeline.generate(only_models)
    assert result.universe is not None
    assert {f.generator for f in result.files} == {"models"}


def test_a_damaged_cache_entry_is_a_miss(tmp_path, monkeypatch):
    import os
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, FILES)
    first = pipeline.generate(_options(tmp_path))
    for blob in (Path(os.environ["KGEN_CACHE_DIR"]) / "blobs").rglob("*"):
        if blob.is_file():
            blob.unlink()
    again = pipeline.generate(_options(tmp_path))
    assert again.universe is not None and again.files == first.files


def test_every_option_that_is_not_hashed_another_way_changes_the_key(tmp_path, monkeypatch):
    """A new option is part of the key unless `OPTIONS_NOT_IN_KEY` says why not: no option
    that changes the output can be forgotten by the cache."""
    import dataclasses

    from kgen import cache

    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, FILES)
    options = _options(tmp_path)
    base = cache.run_key(options, False)
    probes = {
        "module": "example.com/other", "generators": ("models",), "only": ("models",),
        "tags": frozenset({"other"}), "hooks_package": "hooks", "crd_max_description_length": 10,
        "crd_embedded_object_meta": True, "crd_conversion": {"strategy": "Webhook"}, "models": "msgspec",
        "webhook": {"service-name": "w", "service-namespace": "n"},
    }  # fmt: skip
    fields = {f.name for f in dataclasses.fields(options)}
    assert fields == set(probes) | set(cache.OPTIONS_NOT_IN_KEY), "give a new option a probe here"
    for name, value in probes.items():
        assert cache.run_key(dataclasses.replace(options, **{name: value}), False) != base, name
    for name in ("output", "crd_output", "strict"):
        changed = {"output": tmp_path / "elsewhere", "crd_output": tmp_path / "crds", "strict": True}[name]
        assert cache.run_key(dataclasses.replace(options, **{name: changed}), False) == base, name
