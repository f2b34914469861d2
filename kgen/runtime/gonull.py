"""Go's rule for JSON `null`, for decoders that try once more: a field that cannot hold nil
keeps its zero value (Go's decoder leaves it alone), so such a null is dropped before the
second try. Both model backends decode without nulls in their schemas (no cost on the
documents API servers write) and, when that fails, call `without_nulls` with a plan of
their classes' fields.

A plan maps a class's JSON (and, for pydantic, Python) field names to `(drop, shape)`:
whether a null there is dropped, and what the value holds further down: None, or one of
`("struct", cls)`, `("list", shape)`, `("map", shape)` and `("convert", function)` (a leaf
the backend rewrites, such as msgspec's floats read inside raw JSON).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Plan = dict[str, tuple[bool, Any]]


def without_nulls(plan_of: Callable[[Any], Plan], cls: Any, document: Any) -> Any:
    """`document` (the data of a `cls`) without the nulls `plan_of(cls)` drops, at any depth;
    the same object when there is nothing to change."""
    if type(document) is not dict:
        return document
    plan = plan_of(cls)
    out: dict[str, Any] | None = None
    for key, value in document.items():
        entry = plan.get(key)
        if entry is None:
            continue
        drop, shape = entry
        if value is None:
            if drop:
                if out is None:
                    out = dict(document)
                del out[key]
            continue
        if shape is not None:
            stripped = _strip_value(plan_of, shape, value)
            if stripped is not value:
                if out is None:
                    out = dict(document)
                out[key] = stripped
    return document if out is None else out


def _strip_value(plan_of: Callable[[Any], Plan], shape: Any, value: Any) -> Any:
    kind, argument = shape
    if kind == "struct":
        return without_nulls(plan_of, argument, value)
    if kind == "list" and type(value) is list:
        items = [_strip_value(plan_of, argument, item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if kind == "map" and type(value) is dict:
        entries = {key: _strip_value(plan_of, argument, item) for key, item in value.items()}
        return value if all(entries[key] is item for key, item in value.items()) else entries
    if kind == "convert":
        return argument(value)
    return value
