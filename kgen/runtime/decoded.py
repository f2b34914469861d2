"""Decoding immutable value types (Quantity, Time, IntOrString) from JSON without Python.

An API's objects repeat a few such values many times (`100m`, `128Mi`, a timestamp every
object of a rollout shares, port 8080), and each is immutable, so one decoded value serves
every occurrence. `json_value_schema` makes the schema a type decodes JSON with: a type
check in pydantic-core, then a lookup in a cache of decoded values by their JSON value,
which pydantic-core calls directly (a dict's `__getitem__`): only a value not seen yet runs
Python, to decode it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic_core import core_schema

#: Labels of the branches of a union the models' errors are cleaned of
#: (`kgen.runtime.model._clean_error`): the errors of a QUIET branch are dropped (another
#: branch says what is wrong), and VALUE is taken out of error locations.
VALUE_BRANCH = "\x00value"
QUIET_BRANCH = "\x00quiet"

#: How many decoded values a cache holds; a full cache is emptied.
CACHE_SIZE = 4096

JSONKind = Literal["str", "int", "float"]


class DecodedCache(dict[Any, Any]):
    """Decoded values by JSON value; a missing one is decoded (errors are the decoder's)."""

    __slots__ = ("_decode",)

    def __init__(self, decode: Callable[[Any], Any]):
        super().__init__()
        self._decode = decode

    def __missing__(self, key: Any) -> Any:
        value = self._decode(key)
        if len(self) >= CACHE_SIZE:
            self.clear()
        self[key] = value
        return value


def json_value_schema(
    decode: Callable[[Any], Any], kinds: tuple[JSONKind, ...], type_error: str
) -> core_schema.CoreSchema:
    """The schema of a value decoded from a JSON string or number of one of `kinds` by
    `decode` (which raises ValueError for a value it refuses). Any other JSON value is the
    error `type_error` says (so `true` is never found as the key 1). The cache takes 1 and
    1.0 for one key: `decode` must decode them to equal values, as Quantity does."""
    checks = {
        "str": core_schema.str_schema(strict=True),
        "int": core_schema.int_schema(strict=True),
        "float": core_schema.float_schema(strict=True, allow_inf_nan=False),
    }
    check = (
        checks[kinds[0]]
        if len(kinds) == 1
        else core_schema.union_schema([checks[k] for k in kinds], mode="left_to_right")
    )
    cache = DecodedCache(decode)
    return core_schema.no_info_after_validator_function(
        cache.__getitem__, core_schema.custom_error_schema(check, "value_type", custom_error_message=type_error)
    )
