"""Generated deep copies: equal to the original and sharing nothing mutable with it."""

from __future__ import annotations

import importlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from conftest import REPO
from kgen import pipeline
from kgen.generators import GENERATORS
from kgen.options import resolve_options
from kgen.generators.strategies import strategy_name
from kgen.runtime.rawjson import _RawJSON

sys.path.insert(0, str(REPO))


def _universe():
    options = resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS))
    universe, _ = pipeline.build(options)
    return universe


UNIVERSE = _universe()
KINDS = [
    t for p in UNIVERSE.generated_packages for t in p.types if t.kind == "struct" and (t.is_kind or t.is_list)
]


def strategy(typedef):
    """kgen's generated hypothesis strategy for a type of the example API."""
    package = UNIVERSE.package(typedef.package)
    module = importlib.import_module(f"generated.{package.python_package}.strategies")
    return getattr(module, strategy_name(typedef.python_name))()


def mutable_objects(value, found=None):
    """Every mutable object reachable from `value` (models, lists, dicts, raw JSON holders)."""
    found = {} if found is None else found
    if isinstance(value, BaseModel):
        found[id(value)] = value
        for item in value.__dict__.values():
            mutable_objects(item, found)
    elif isinstance(value, (list, dict)):
        found[id(value)] = value
        for item in value.values() if isinstance(value, dict) else value:
            mutable_objects(item, found)
    elif isinstance(value, _RawJSON):
        found[id(value)] = value
        mutable_objects(value.raw, found)
    return found


def mutate_everything(value) -> None:
    """Change every container reachable from `value`, in place."""
    for obj in list(mutable_objects(value).values()):
        if isinstance(obj, list):
            obj.append("mutated")
        elif isinstance(obj, dict):
            obj["mutated-key"] = "mutated"
        elif isinstance(obj, _RawJSON):
            obj.raw = {"mutated": True}
        else:
            for name, item in list(obj.__dict__.items()):
                if isinstance(item, str):
                    obj.__dict__[name] = item + "-mutated"


@pytest.mark.slow
@pytest.mark.parametrize("typedef", KINDS, ids=[f"{t.package.rsplit('/', 1)[-1]}.{t.name}" for t in KINDS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_deep_copy_is_equal_and_independent(typedef, data):
    original = data.draw(strategy(typedef))
    snapshot = original.to_json()
    copy = original.deep_copy()
    assert copy == original
    assert type(copy) is type(original)
    assert copy.__pydantic_fields_set__ == original.__pydantic_fields_set__
    assert copy.to_json() == snapshot
    shared = mutable_objects(original).keys() & mutable_objects(copy).keys()
    assert not shared, "the copy shares mutable objects with the original"
    mutate_everything(copy)
    assert original.to_json() == snapshot
    # Assigning fields marks them set on the copy only (the two share their fields set
    # until one of them changes it).
    present = set(original.__pydantic_fields_set__)
    for name in type(copy).model_fields:
        setattr(copy, name, getattr(copy, name))
    assert original.__pydantic_fields_set__ == present
    assert copy.__pydantic_fields_set__ == set(type(copy).model_fields)
    assert copy.__pydantic_fields_set__ is not original.__pydantic_fields_set__


def test_every_kind_of_the_example_api_is_covered():
    names = sorted(f"{t.package.rsplit('/', 1)[-1]}.{t.name}" for t in KINDS)
    assert names == [
        "example.Frobber", "example.FrobberClass", "example.FrobberClassList", "example.FrobberList",
        "v1.Frobber", "v1.FrobberClass", "v1.FrobberClassList", "v1.FrobberList",
        "v1beta1.Frobber", "v1beta1.FrobberList",
    ]  # fmt: skip


def test_deep_copy_shares_immutable_values():
    from generated.example.v1 import Frobber

    original = Frobber.from_json(
        b'{"metadata":{"name":"n","creationTimestamp":"2024-01-01T00:00:00Z"},'
        b'"spec":{"description":"d","resources":{"cpu":"1"},"maxUnavailable":"10%"}}'
    )
    copy = original.deep_copy()
    assert copy.metadata.name is original.metadata.name
    assert copy.metadata.creation_timestamp is original.metadata.creation_timestamp
    assert copy.spec.max_unavailable is original.spec.max_unavailable
    assert copy.spec.resources is not original.spec.resources
    assert copy.spec.resources["cpu"] is original.spec.resources["cpu"]


def test_copies_share_the_fields_set_until_one_of_them_assigns_a_field():
    from generated.example.v1 import FrobberPort

    original = FrobberPort(name="web", port=80)
    first, second = original.deep_copy(), original.deep_copy()
    assert first.__pydantic_fields_set__ is original.__pydantic_fields_set__
    assert second.deep_copy().__pydantic_fields_set__ is original.__pydantic_fields_set__

    first.protocol = "UDP"
    assert first.model_fields_set == {"name", "port", "protocol"}
    assert original.model_fields_set == second.model_fields_set == {"name", "port"}
    original.target_port = 8080
    assert original.model_fields_set == {"name", "port", "target_port"}
    assert second.model_fields_set == {"name", "port"}


def test_model_fields_set_of_a_copy_is_its_own():
    from generated.example.v1 import FrobberPort

    original = FrobberPort(name="web", port=80)
    copy = original.deep_copy()
    copy.model_fields_set.add("protocol")
    assert original.model_fields_set == {"name", "port"}
    assert copy.model_dump(exclude_unset=True) == {"name": "web", "port": 80, "protocol": ""}


def test_a_shared_fields_set_works_with_pydantic_copies_pickling_and_dumps():
    import copy as stdlib_copy
    import pickle

    from generated.example.v1 import FrobberPort

    original = FrobberPort(name="web", port=80)
    copy = original.deep_copy()
    assert copy.model_dump(exclude_unset=True) == {"name": "web", "port": 80}
    assert copy.model_dump_json(exclude_unset=True) == '{"name":"web","port":80}'
    for other in (stdlib_copy.copy(copy), stdlib_copy.deepcopy(copy), pickle.loads(pickle.dumps(copy))):
        assert type(other.__pydantic_fields_set__) is set
        assert other == original
        assert other.__pydantic_fields_set__ == {"name", "port"}
    updated = copy.model_copy(update={"protocol": "UDP"})
    assert updated.model_fields_set == {"name", "port", "protocol"}
    assert original.model_fields_set == {"name", "port"}


def test_a_subclass_with_private_attributes_is_built_and_copied_as_itself():
    from pydantic import PrivateAttr

    from generated.example.v1 import FrobberPort

    class Tracked(FrobberPort):
        _seen: int = PrivateAttr(default=0)

        def __init__(self, **data):
            self._seen = 1  # before super().__init__, as pydantic allows
            super().__init__(**data)

    tracked = Tracked(name="web")
    tracked._seen = 2
    copy = tracked.deep_copy()
    assert type(copy) is Tracked and copy._seen == 2 and copy == tracked
    copy.port = 8080
    assert tracked.model_fields_set == {"name"} and copy.model_fields_set == {"name", "port"}
