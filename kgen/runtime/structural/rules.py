"""The `x-kubernetes-validations` (CEL) rules of a structural schema, run on a custom resource.

Every node of the schema that carries rules has them evaluated on the object's value at that
node (`self`), and, on an update, on the old object's value there (`oldSelf`): old and new are
matched by property name, by map key, and by the key fields of `x-kubernetes-list-type: map`
lists, as the API server matches them. A transition rule (one that reads `oldSelf`) runs only
where there is an old value, unless the rule sets `optionalOldSelf`. On an update, a part of
the object that is unchanged from the old one is not checked again (ratcheting).

The rules share one cost budget per object, and their errors carry the paths, types and
messages of the API server: `kgen.runtime.validation.cel.Rule` evaluates each one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgen.runtime.structural.schema import Structural
from kgen.runtime.validation import field
from kgen.runtime.validation.cel import Rule
from kgen.runtime.validation.field import FieldError, PathNode

_MISSING = object()
_compiled: dict[tuple[Any, ...], Rule] = {}


def _json_type(schema: Structural) -> str:
    if schema.int_or_string:
        return "string"
    return schema.type or "object"


def _rules(schema: Structural) -> list[Rule]:
    rules = []
    for entry in schema.validations:
        key = (
            entry.get("rule", ""), entry.get("message", ""), entry.get("messageExpression", ""),
            entry.get("reason", ""), entry.get("fieldPath", ""), bool(entry.get("optionalOldSelf")), _json_type(schema),
        )  # fmt: skip
        rule = _compiled.get(key)
        if rule is None:
            rule = _compiled[key] = Rule(*key)
        rules.append(rule)
    return rules


def check_rules(new: Any, old: Any, schema: Structural, path: PathNode = None) -> list[FieldError]:
    """The errors of every CEL rule of `schema` on `new` (and `old` on an update, else None)."""
    errors: list[FieldError] = []
    _walk(new, old, schema, path, errors, old is not None)
    return errors


def _walk(value: Any, old: Any, schema: Structural, path: PathNode, errors: list[FieldError], updating: bool) -> None:
    if value is None:
        return
    if updating and old is not _MISSING and old is not None and value == old:
        return  # unchanged: ratcheted
    previous = None if old is _MISSING else old
    for rule in _rules(schema):
        rule.check(value, previous, path, errors)
    if type(value) is dict:
        old_map = previous if type(previous) is dict else {}
        for name, sub in schema.properties.items():
            if name in value:
                _walk(value[name], old_map.get(name, _MISSING), sub, field.child(path, name), errors, updating)
        extra = schema.additional_properties_schema
        if extra is not None:
            for name, item in value.items():
                if name not in schema.properties:
                    _walk(item, old_map.get(name, _MISSING), extra, field.child(path, name), errors, updating)
    elif type(value) is list and schema.items is not None:
        old_items = _correlated_items(value, previous, schema)
        for i, item in enumerate(value):
            _walk(item, old_items[i], schema.items, field.index(path, i), errors, updating)


def _correlated_items(items: list[Any], old: Any, schema: Structural) -> list[Any]:
    """The old value of each item: by key fields in a map list, none otherwise (the API server
    correlates no other lists' items)."""
    if schema.list_type != "map" or type(old) is not list or not schema.list_map_keys:
        return [_MISSING] * len(items)
    keys = schema.list_map_keys

    def key_of(item: Any) -> tuple[Any, ...] | None:
        if not isinstance(item, Mapping):
            return None
        return tuple(repr(item.get(k)) for k in keys)

    by_key: dict[tuple[Any, ...], Any] = {}
    for item in old:
        old_key = key_of(item)
        if old_key is not None:
            by_key.setdefault(old_key, item)
    found: list[Any] = []
    for item in items:
        key = key_of(item)
        found.append(_MISSING if key is None else by_key.get(key, _MISSING))
    return found
