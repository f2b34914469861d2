"""The API change guide's serialization test, over every kind of the example API (on its
pydantic models, and on its msgspec structs).

For random objects from kgen's generated strategies: defaulting is idempotent; external
-> internal -> external is lossless after defaulting (semantically equal); JSON encoding
and strict decoding round-trip. All feature gates are on, as upstream's round-trip
tests run.
"""

from __future__ import annotations

import importlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO
from kgen.generators.strategies import strategy_name
from kgen.runtime.conversion import Scope
from kgen.runtime.scheme import SCHEME, GroupVersion, Scheme
from kgen.runtime.semantic import semantic_diff, semantic_equal
from kgen.runtime.structs import Struct

sys.path.insert(0, str(REPO))
from generated.example import register as internal_register  # noqa: E402
from generated.example.v1 import register as v1_register  # noqa: E402
from generated.example.v1beta1 import models as beta_models  # noqa: E402
from generated.example.v1beta1 import register as beta_register  # noqa: E402

# Hypothesis runs of hundreds of objects per kind: over a minute in all.
pytestmark = pytest.mark.slow

ALL_GATES = Scope({"FrobberTurbo": True})
SERVED = [
    (register, kind)
    for register in (v1_register, beta_register)
    for kind in register.KINDS
]


def strategy(register, kind: str):
    package = register.__name__.rsplit(".", 1)[0]
    strategies = importlib.import_module(f"{package}.strategies")
    return getattr(strategies, strategy_name(register.KINDS[kind].__name__))()


def consistent_params(obj, beta=beta_models):
    """v1beta1's rule for the singular field made plural (validation enforces it): when both
    are set, the singular is the first of the plural. Upstream's fuzzer functions keep
    generated objects within such rules the same way."""
    specs = [obj.spec] if isinstance(obj, beta.Frobber) else [i.spec for i in obj.items or []] if isinstance(obj, beta.FrobberList) else []
    for spec in specs:
        if spec.params:
            spec.param = spec.params[0]
    return obj


EXAMPLES = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@pytest.mark.parametrize("register, kind", SERVED, ids=[f"{r.GROUP_VERSION.version}.{k}" for r, k in SERVED])
@EXAMPLES
@given(data=st.data())
def test_round_trip(register, kind, data):
    round_trip(SCHEME, register, consistent_params(data.draw(strategy(register, kind))))


def round_trip(scheme: Scheme, register, original) -> None:
    scheme.default(original)

    again = original.deep_copy()
    scheme.default(again)
    assert again == original, "defaulting is not idempotent: " + "; ".join(semantic_diff(original, again))

    internal = scheme.to_internal(original, ALL_GATES)
    back = scheme.convert(internal, register.GROUP_VERSION.api_version, ALL_GATES)
    assert semantic_equal(back, original), "lossy round trip: " + "; ".join(semantic_diff(original, back))

    decoded = scheme.decode(original.to_json(), default=False).object
    assert semantic_equal(decoded, original), "JSON round trip: " + "; ".join(semantic_diff(original, decoded))


@pytest.fixture(scope="module")
def structs(msgspec_example):
    """The example API on msgspec structs, in a Scheme of its own: its registers by version."""
    scheme = Scheme()
    registers = {}
    for version in ("", ".v1", ".v1beta1"):
        register = importlib.import_module(f"{msgspec_example.package}.example{version}.register")
        register.add_to_scheme(scheme)
        registers[version.lstrip(".")] = register
    return scheme, registers


@pytest.mark.parametrize("version, kind", [(r.GROUP_VERSION.version, k) for r, k in SERVED])
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_round_trip_on_structs(structs, version, kind, data):
    scheme, registers = structs
    register = registers[version]
    beta = importlib.import_module(registers["v1beta1"].__name__.rsplit(".", 1)[0] + ".models")
    original = data.draw(strategy(register, kind))
    assert isinstance(original, Struct)
    round_trip(scheme, register, consistent_params(original, beta))


@pytest.mark.parametrize("kind", list(internal_register.KINDS))
@EXAMPLES
@given(data=st.data())
def test_internal_objects_round_trip_through_json(kind, data):
    original = data.draw(strategy(internal_register, kind))
    cls = internal_register.KINDS[kind]
    assert semantic_equal(cls.from_json(original.to_json()), original)


def test_every_served_kind_is_fuzzed():
    served = {(r.GROUP_VERSION.version, k) for r, k in SERVED}
    assert served == {
        ("v1", "Frobber"), ("v1", "FrobberList"), ("v1", "FrobberClass"), ("v1", "FrobberClassList"),
        ("v1beta1", "Frobber"), ("v1beta1", "FrobberList"),
    }  # fmt: skip
    assert GroupVersion.parse(v1_register.GROUP_VERSION.api_version) == v1_register.GROUP_VERSION
