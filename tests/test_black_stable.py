"""The black shortcut gives exactly black's output, over every corpus kgen generates."""

from __future__ import annotations

import black
import pytest

import kgen.pipeline as pipeline_module
from conftest import REPO, TESTDATA
from kgen import pipeline
from kgen.generators import GENERATORS
from kgen.ir.build import WELLKNOWN_ROOT
from kgen.options import Options
from kgen.render import pystable
from bench.synthetic import write_synthetic_api


def _raw_files(monkeypatch, options, bootstrap=False):
    monkeypatch.setattr(pipeline_module, "format_files", lambda files, always_black=False: files)
    files = pipeline.generate(options, bootstrap=bootstrap, use_cache=False).files
    # protoc's modules are black-formatted whole; the shortcut is for kgen's own shapes
    return [f for f in files if f.path.endswith(".py") and not f.path.endswith("_pb2.py")]


def _corpus(tmp_path, name):
    if name == "example":
        return Options(REPO / "apis", tmp_path, "kgen.dev/example/apis", generators=tuple(GENERATORS)), False
    if name == "runtime":
        return Options(WELLKNOWN_ROOT, tmp_path, "", generators=tuple(GENERATORS)), True
    if name == "realworld":
        return Options(
            TESTDATA / "realworld/apis", tmp_path, "example.com/shop/apis", generators=tuple(GENERATORS),
            import_map={"example.com/gateway/apis/v1": TESTDATA / "realworld/third_party/gateway/v1"},
        ), False  # fmt: skip
    write_synthetic_api(tmp_path / "synthetic")
    return Options(tmp_path / "synthetic", tmp_path, "bench.example.com/apis", generators=tuple(GENERATORS)), False


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["example", "runtime", "realworld", "synthetic"])
def test_shortcut_equals_black_on_every_generated_file(tmp_path, monkeypatch, corpus):
    options, bootstrap = _corpus(tmp_path, corpus)
    files = _raw_files(monkeypatch, options, bootstrap)
    if corpus == "synthetic":
        files = files[:: max(1, len(files) // 24)]  # a sample keeps the test quick
    vouched = 0
    for generated in files:
        shortcut = pystable.format_known_shape(generated.content)
        if shortcut is None:
            continue
        vouched += 1
        assert shortcut == black.format_str(generated.content, mode=pystable._MODE), generated.path
    assert vouched >= len(files) * 0.8, f"only {vouched} of {len(files)} files took the shortcut"


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",
        "class A:\n    value: Annotated[SomeVeryLongTypeName, AnotherVeryLongValidatorName(argument_one, argument_two)] = None\n",
        "def f():\n    out['key'] = {key0: None if item0 is None else item0.copy() for key0, item0 in sorted(value.items())}\n",
        "__kgen_values__ = (" + ", ".join(f'"Value{i}"' for i in range(20)) + ")\n",
        "_finish_models(" + ", ".join(f"ClassNumber{i}" for i in range(12)) + ")\n",
        'x = "tab\tinside"\n',
        "class A:\n    if condition_that_is_really_long_and_goes_on_and_on_and_on_and_on_and_on_and_on_and_on:\n        pass\n",
        # shapes of real APIs' generated modules
        'class A:\n    """The set is \u2208 {a, b} \u2264 max; ok."""\n',
        'class A:\n    """Wide \u6f22\u5b57 text in a docstring that is long enough to reach the line length limit of black."""\n',
        'class A:\n    """Tabs.\n\n    \thttps://example.com\n    a\tb\n    """\n',
        "def f():\n    if (value := values[\"required_during_scheduling_ignored_during_execution_of_it\"]) is not None:\n        pass\n",
        "x = f(\n    persistent_volume_claim_retention_policy=field_persistent_volume_claim_retention_policy_x,\n)\n",
        "x = f(a, 'minimum', b)\ny = \"can't\"\nz = f'{a}'\n",
        "x = f(a, 'minimum', b)\ny = \"can't\"\n",
        'class A:\n    """Tabs.\n\n    a\tb\n    """\n',
        "def f():\n    errors.append(_v.invalid((path, \"error\"), value, \"must match the regular expression '^[a-z]+$'\", \"pattern\"))\n",
        "if old is None or (obj.a, obj.b,) != (old.a,):\n    pass\n",
        "if old is None or (obj.a,) != (old.a,):\n    pass\nf(a,)\nx = [a,]\n",
        "class A:\n    x: int\n    def f(self, name: str, body: Any, *, field_manager: str, force: bool = False) -> Any: ...\n",
        "class A:\n    x: int\n\n    def f(self, name: str, body: Any, *, field_manager: str, force: bool = False) -> Any:\n        pass\n",
        "class A:\n    x: int\n\n\n    def f(self):\n        pass\n",
    ],
)
def test_shortcut_never_disagrees_with_black(source):
    shortcut = pystable.format_known_shape(source)
    assert shortcut is None or shortcut == black.format_str(source, mode=pystable._MODE)
