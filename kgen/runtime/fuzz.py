"""Hypothesis strategies for the well-known values, used by generated `strategies.py`.

Values are drawn at the precision their JSON form keeps (Time to the second, MicroTime to
the microsecond), so round trips through JSON compare equal, as the upstream fuzzers
arrange for the API's round-trip tests. Requires hypothesis (a development dependency).
"""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import strategies as st

from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import FieldsV1, RawExtension
from kgen.runtime.timeutil import Duration, MicroTime, Time

#: How deep generated strategies nest structs before they stop (pointers become None,
#: lists empty), so that recursive types stay finite.
MAX_DEPTH = 3


def text() -> st.SearchStrategy[str]:
    return st.text(max_size=8)


def integers(bits: int, signed: bool = True) -> st.SearchStrategy[int]:
    if signed:
        return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    return st.integers(0, 2**bits - 1)


def floats() -> st.SearchStrategy[float]:
    return st.floats(allow_nan=False, allow_infinity=False)


def binary() -> st.SearchStrategy[bytes]:
    return st.binary(max_size=8)


def keys() -> st.SearchStrategy[str]:
    return st.text(min_size=1, max_size=6)


def lists(elements: st.SearchStrategy, depth: int) -> st.SearchStrategy:
    return st.just([]) if depth >= MAX_DEPTH else st.lists(elements, max_size=3)


def maps(values: st.SearchStrategy, depth: int) -> st.SearchStrategy:
    return st.just({}) if depth >= MAX_DEPTH else st.dictionaries(keys(), values, max_size=3)


_MOMENTS = st.datetimes(datetime(1970, 1, 1), datetime(2200, 1, 1), timezones=st.just(timezone.utc))


def time() -> st.SearchStrategy[Time]:
    return _MOMENTS.map(lambda moment: Time.from_datetime(moment.replace(microsecond=0)))


def micro_time() -> st.SearchStrategy[MicroTime]:
    return _MOMENTS.map(MicroTime.from_datetime)


def duration() -> st.SearchStrategy[Duration]:
    return st.integers(-(10**12), 10**12).map(lambda micros: Duration(microseconds=micros))


def quantity() -> st.SearchStrategy[Quantity]:
    numbers = st.decimals(min_value=-(10**12), max_value=10**12, places=3, allow_nan=False, allow_infinity=False)
    suffixes = st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-3"])
    return st.tuples(numbers, suffixes).map(lambda pair: Quantity(f"{pair[0]}{pair[1]}"))


def int_or_string() -> st.SearchStrategy[IntOrString]:
    return (integers(32) | st.text(max_size=6)).map(IntOrString)


def json_values() -> st.SearchStrategy:
    scalars = st.none() | st.booleans() | integers(32) | st.text(max_size=5)
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
        max_leaves=6,
    )


def raw_extension() -> st.SearchStrategy[RawExtension]:
    return st.dictionaries(st.text(max_size=4), json_values(), max_size=3).map(RawExtension)


def fields_v1() -> st.SearchStrategy[FieldsV1]:
    return st.dictionaries(st.text(max_size=4), json_values(), max_size=3).map(FieldsV1)
