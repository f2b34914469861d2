"""Hypothesis strategies for generated models, derived from the IR (tests only)."""

from __future__ import annotations

import importlib
from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from kgen.generators.python import underlying
from kgen.ir.model import TypeDef, TypeRef, Universe
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import FieldsV1, RawExtension
from kgen.runtime.timeutil import Duration, MicroTime, Time

_INT_RANGES = {
    "int8": 7, "int16": 15, "int32": 31, "int64": 63, "int": 63,
    "uint8": -8, "uint16": -16, "uint32": -32, "uint64": -64, "uint": -64, "uintptr": -64,
}  # fmt: skip
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=8,
)
_TIMES = st.datetimes(datetime(1970, 1, 1), datetime(2100, 1, 1), timezones=st.just(timezone.utc))
_PYTHON = {
    "kgen.runtime.quantity:Quantity": st.sampled_from(["0", "1", "100m", "1.5Gi", "1k", "12e6", "-3"]).map(Quantity),
    "kgen.runtime.intstr:IntOrString": (st.integers(-(2**31), 2**31 - 1) | st.text(max_size=5)).map(IntOrString),
    "kgen.runtime.timeutil:Time": _TIMES.map(Time.from_datetime),
    "kgen.runtime.timeutil:MicroTime": _TIMES.map(MicroTime.from_datetime),
    "kgen.runtime.timeutil:Duration": st.integers(-(10**6), 10**6).map(lambda s: Duration(seconds=s)),
    "kgen.runtime.rawjson:RawExtension": st.dictionaries(st.text(max_size=4), _JSON, max_size=3).map(RawExtension),
    "kgen.runtime.rawjson:FieldsV1": st.dictionaries(st.text(max_size=4), _JSON, max_size=3).map(FieldsV1),
}


def model_class(universe: Universe, typedef: TypeDef, generated_root: str = "generated"):
    package = universe.package(typedef.package)
    prefix = "" if package.builtin else generated_root + "."
    module = importlib.import_module(f"{prefix}{package.python_package}.models")
    return getattr(module, typedef.python_name)


class Strategies:
    """Build strategies for a universe's types; depth keeps recursive types finite."""

    def __init__(self, universe: Universe, generated_root: str = "generated", max_depth: int = 4):
        self.universe = universe
        self.root = generated_root
        self.max_depth = max_depth

    def for_type(self, typedef: TypeDef, depth: int = 0):
        cls = model_class(self.universe, typedef, self.root)
        fields = {f.python_name: self.for_ref(f.type, depth + 1) for f in typedef.fields}
        return st.fixed_dictionaries({}, optional=fields).map(lambda values: cls(**values))

    def for_ref(self, ref: TypeRef, depth: int):
        base = underlying(self.universe, ref)
        deep = depth > self.max_depth
        if base.kind == "basic":
            return self._basic(base.basic)
        if base.kind == "pointer":
            return st.none() if deep else st.none() | self.for_ref(base.elem, depth)
        if base.kind == "slice":
            return st.none() if deep else st.none() | st.lists(self.for_ref(base.elem, depth + 1), max_size=3)
        if base.kind == "map":
            keys = st.text(min_size=1, max_size=5)
            return st.none() if deep else st.none() | st.dictionaries(keys, self.for_ref(base.elem, depth + 1), max_size=3)
        if base.kind == "any":
            return _JSON
        typedef = self.universe.resolve(base)
        if typedef.kind == "python":
            return st.none() | _PYTHON[typedef.python_class]
        if typedef.kind == "named":  # an enum over a basic type
            values = [v.value for v in typedef.enum_values]
            scalar = self._basic(underlying(self.universe, typedef.underlying).basic)
            return st.sampled_from(values) | scalar if values else scalar
        if deep:
            return st.just(model_class(self.universe, typedef, self.root)())
        return st.deferred(lambda: self.for_type(typedef, depth))

    @staticmethod
    def _basic(name: str):
        if name == "string":
            return st.text(max_size=8)
        if name == "bool":
            return st.booleans()
        if name in ("float32", "float64"):
            return st.floats(allow_nan=False, allow_infinity=False, width=32 if name == "float32" else 64)
        if name == "bytes":
            return st.none() | st.binary(max_size=8)
        bits = _INT_RANGES[name]
        return st.integers(-(2 ** (bits)), 2**bits - 1) if bits > 0 else st.integers(0, 2 ** (-bits) - 1)
