"""Holders of arbitrary JSON: runtime.RawExtension, metav1.FieldsV1, and JSON copying."""

from __future__ import annotations

import copy
import marshal
from typing import Any

from pydantic_core import core_schema


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars), much faster than copy.deepcopy.

    marshal round-trips exactly the JSON types, in C; anything else a caller put in the
    data (marshal refuses it) is copied field by field instead."""
    if type(value) is dict or type(value) is list:
        try:
            return _loads(_dumps(value))
        except ValueError:
            return _copy_recursive(value)
    return value


_dumps, _loads = marshal.dumps, marshal.loads


def _copy_recursive(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {k: _copy_recursive(v) for k, v in value.items()}
    if kind is list:
        return [_copy_recursive(v) for v in value]
    return copy.deepcopy(value)


class _RawJSON:
    """Base: holds one parsed JSON value; mutable, so copies copy it."""

    __slots__ = ("raw",)
    ZERO_JSON = None

    def __init__(self, raw: Any = None):
        if isinstance(raw, _RawJSON):
            raw = copy_json(raw.raw)
        self.raw = raw

    def to_json(self) -> Any:
        return self.raw

    def is_zero(self) -> bool:
        return self.raw is None

    def deep_copy(self):
        copied = object.__new__(type(self))
        copied.raw = copy_json(self.raw)
        return copied

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _RawJSON):
            return type(self) is type(other) and self.raw == other.raw
        return NotImplemented

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.raw!r})"

    def __deepcopy__(self, memo: dict):
        return self.deep_copy()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            lambda value: value if isinstance(value, cls) else cls(value),
            serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.to_json()),
        )


class RawExtension(_RawJSON):
    """An embedded object kept as JSON (runtime.RawExtension); its JSON form is the object."""

    __slots__ = ()


class FieldsV1(_RawJSON):
    """A managed-fields set in its JSON trie form (metav1.FieldsV1)."""

    __slots__ = ()


class JSON(_RawJSON):
    """Any JSON value, kept as parsed (apiextensions' JSON: defaults and examples in schemas,
    and the free-form values custom resources hold, such as cluster-api's variable values)."""

    __slots__ = ()
