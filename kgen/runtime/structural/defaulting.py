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

__all__ = ["default", "needs_defaults", "prune_nulls"]


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


class _Plan:
    """Where defaults lie below one schema node: the properties that have one, the
    properties to look into, and the additional properties and items to look into."""

    __slots__ = ("node", "direct", "below", "additional", "items", "any")

    any: bool
    """Whether there is a default anywhere below the node."""

    def __init__(self, node: Structural):
        self.node = node  # kept: plans are found by the node's id
        self.direct = tuple((k, p) for k, p in node.properties.items() if p.has_default)
        self.below = tuple((k, p) for k, p in node.properties.items() if _plan(p).any)
        additional = node.additional_properties_schema
        self.additional = (
            additional if additional is not None and (additional.has_default or _plan(additional).any) else None
        )
        self.items = (
            node.items if node.items is not None and (node.items.has_default or _plan(node.items).any) else None
        )
        self.any = bool(self.direct or self.below or self.additional is not None or self.items is not None)


_PLANS: dict[int, _Plan] = {}


def _plan(s: Structural) -> _Plan:
    found = _PLANS.get(id(s))
    if found is None:
        found = _PLANS[id(s)] = _Plan(s)
    return found


def needs_defaults(obj: Any, schema: Structural | None) -> bool:
    """Whether `default` would change `obj` (read-only, looking only where the schema has
    defaults: a stored object, defaulted when it was written, mostly needs none)."""
    if schema is None:
        return False
    plan = _plan(schema)
    if not plan.any:
        return False
    if isinstance(obj, dict):
        for k, prop in plan.direct:
            if k not in obj or _non_nullable_null(obj[k], prop):
                return True
        for k, prop in plan.below:
            if k in obj and needs_defaults(obj[k], prop):
                return True
        additional = plan.additional
        if additional is not None:
            known = schema.properties
            for k, v in obj.items():
                if k not in known and (
                    (v is None and additional.has_default and not additional.nullable) or needs_defaults(v, additional)
                ):
                    return True
    elif isinstance(obj, list) and plan.items is not None:
        items = plan.items
        return any((v is None and items.has_default and not items.nullable) or needs_defaults(v, items) for v in obj)
    return False


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
