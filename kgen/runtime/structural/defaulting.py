"""Defaulting of custom resources, and the dropping of nulls that defaulting relies on.

The API server does two things with the `default` and `nullable` keywords of a CRD's schema,
at two moments of a request:

1. when it decodes a custom resource (right after pruning), `prune_nulls` removes every
   `null` given for a field that is neither `nullable: true` nor defaulted: such a field
   reads as absent, not as an error;
2. when it defaults the object (on decoding a request and on reading from storage),
   `default` sets each absent field that has a default, and replaces the `null` of a
   non-nullable field that has one (those nulls were left alone by step 1). It walks into
   objects, `additionalProperties` values and array items, including values it has just
   set, so defaults nested in a default are applied too.

Default values are deep-copied: the object never shares data with the schema.
"""

from __future__ import annotations

import copy
from typing import Any

from kgen.runtime.structural.schema import Structural

__all__ = ["default", "prune_nulls"]


def _non_nullable_null(x: Any, s: Structural | None) -> bool:
    return x is None and s is not None and not s.nullable


def _default_value(s: Structural) -> Any:
    return copy.deepcopy(s.default) if s.has_default else None


def default(obj: Any, schema: Structural | None) -> None:
    """Apply the schema's defaults to `obj` in place (see the module docstring)."""
    s = schema
    if s is None:
        return
    if isinstance(obj, dict):
        for k, prop in s.properties.items():
            if not prop.has_default:
                continue
            if k not in obj or _non_nullable_null(obj[k], prop):
                obj[k] = copy.deepcopy(prop.default)
        additional = s.additional_properties_schema
        for k in list(obj):
            known = s.properties.get(k)
            if known is not None:
                default(obj[k], known)
            elif s.additional_properties is not None:
                if additional is not None and _non_nullable_null(obj[k], additional):
                    obj[k] = _default_value(additional)
                default(obj[k], additional)
    elif isinstance(obj, list):
        items = s.items
        for i in range(len(obj)):
            if items is not None and _non_nullable_null(obj[i], items):
                obj[i] = _default_value(items)
            default(obj[i], items)


def _schema_for_field(name: str, s: Structural | None) -> Structural | None:
    if s is None:
        return None
    prop = s.properties.get(name)
    if prop is not None:
        return prop
    return s.additional_properties_schema


def prune_nulls(obj: Any, schema: Structural | None) -> None:
    """Remove, in place, the nulls of fields that are neither nullable nor defaulted.

    Nulls in arrays stay (an item cannot be removed); a non-nullable null that has a
    default stays too, for `default` to replace.
    """
    if isinstance(obj, dict):
        for k in list(obj):
            sub = _schema_for_field(k, schema)
            v = obj[k]
            if v is None and sub is not None and not sub.nullable and not sub.has_default:
                del obj[k]
            else:
                prune_nulls(v, sub)
    elif isinstance(obj, list):
        items = None if schema is None else schema.items
        for v in obj:
            prune_nulls(v, items)
