"""Semantic equality, as the API change guide's apiequality compares objects.

Unlike `==`: Quantities compare by value (`1Gi` equals `1024Mi`), times by instant, and a
nil slice or map equals an empty one, so round-trip tests do not fail on differences of
representation that the API does not consider differences.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kgen.runtime.backend import backend_of
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import _RawJSON


def _typed_fields(obj: Any) -> list[tuple[str, Any]] | None:
    """A model's fields as (JSON name, value): a pydantic model's, or a msgspec struct's
    (its class names them in `__struct_encode_fields__`); None for any other value."""
    backend = backend_of(obj)
    return None if backend is None else backend.json_values(obj)


def semantic_equal(a: Any, b: Any) -> bool:
    """Whether two API values are equal in meaning (pydantic models and msgspec structs
    field by field)."""
    if a is b:
        return True
    fields_a, fields_b = _typed_fields(a), _typed_fields(b)
    if fields_a is not None or fields_b is not None:
        if type(a) is not type(b) or fields_a is None or fields_b is None:
            return False
        return all(semantic_equal(x, y) for (_, x), (_, y) in zip(fields_a, fields_b, strict=True))
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return a.value == b.value
    if a is None or b is None:
        # A zero value type (a Quantity, IntOrString or Duration that is not a pointer) is
        # None in Python and its zero JSON ("0", 0, "0s") when read back: the same value.
        other = b if a is None else a
        is_zero = getattr(other, "is_zero", None)
        if is_zero is not None and _typed_fields(other) is None and is_zero():
            return True
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a == b
    if isinstance(a, _RawJSON) and isinstance(b, _RawJSON):
        return type(a) is type(b) and a.raw == b.raw
    empty: tuple[object, ...] = (None, [], {}, b"")
    if (a is None or isinstance(a, (list, dict, bytes))) and (b is None or isinstance(b, (list, dict, bytes))):
        if a in empty and b in empty:  # nil and empty slices, maps and []byte are equal, as in apiequality
            return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(semantic_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(semantic_equal(a[k], b[k]) for k in a)
    equal: bool = a == b
    return equal


def semantic_diff(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two values differ semantically (field paths), for test failure messages."""
    if semantic_equal(a, b):
        return []
    fields_a, fields_b = _typed_fields(a), _typed_fields(b)
    if fields_a is not None and fields_b is not None and type(a) is type(b):
        out: list[str] = []
        for (key, x), (_, y) in zip(fields_a, fields_b, strict=True):
            out += semantic_diff(x, y, f"{path}.{key}" if path else key)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in semantic_diff(x, y, f"{path}[{i}]")]
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        return [d for k in a for d in semantic_diff(a[k], b[k], f"{path}[{k}]")]
    return [f"{path or '<root>'}: {a!r} != {b!r}"]
