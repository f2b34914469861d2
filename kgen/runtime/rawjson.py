"""Holders of arbitrary JSON: runtime.RawExtension, metav1.FieldsV1, and JSON copying."""

from __future__ import annotations

from typing import Any

from pydantic_core import core_schema


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars), much faster than copy.deepcopy."""
    kind = type(value)
    if kind is dict:
        return {k: copy_json(v) if type(v) in (dict, list) else v for k, v in value.items()}
    if kind is list:
        return [copy_json(v) if type(v) in (dict, list) else v for v in value]
    return value


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
        return type(self)(copy_json(self.raw))

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
