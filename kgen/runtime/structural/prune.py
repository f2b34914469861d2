"""Pruning: dropping the fields of a custom resource that its schema does not specify.

The API server prunes every custom resource it decodes (unless the CRD preserves unknown
fields) and reports what it dropped: as `unknown field "spec.foo"` warnings, or as errors
when the client asked for strict field validation. `prune` does both: it removes the fields
in place and returns their paths, sorted, in the server's spelling (`spec.foo`,
`spec.items[0].bar`, a map's keys joined with dots like fields).

The rules:

- a field is kept when the schema has a property of that name, or an `additionalProperties`
  schema (then the value is pruned with it); anything else is dropped;
- `x-kubernetes-preserve-unknown-fields: true` keeps the unknown fields of that object, and
  of the items of that array, while known properties below are still pruned with their
  schemas;
- `apiVersion`, `kind` and `metadata` of an embedded resource
  (`x-kubernetes-embedded-resource: true`), and of the resource itself at the root, are left
  untouched;
- where there is no schema at all (below `additionalProperties: true`), every field of an
  object is dropped, scalars and the shape of arrays stay.
"""

from __future__ import annotations

from typing import Any

from kgen.runtime.structural.schema import Structural

__all__ = ["prune"]

_META_FIELDS = frozenset({"apiVersion", "kind", "metadata"})


class _Paths:
    """The path being walked and the paths of what was dropped."""

    __slots__ = ("parts", "found")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.found: list[str] = []

    def push_key(self, key: str) -> int:
        mark = len(self.parts)
        if self.parts:
            self.parts.append(".")
        self.parts.append(key)
        return mark

    def push_index(self, i: int) -> int:
        mark = len(self.parts)
        self.parts.append(f"[{i}]")
        return mark

    def pop(self, mark: int) -> None:
        del self.parts[mark:]

    def record(self, key: str) -> None:
        mark = self.push_key(key)
        self.found.append("".join(self.parts))
        self.pop(mark)


def prune(obj: Any, schema: Structural | None, *, is_resource_root: bool = True) -> list[str]:
    """Remove, in place, what `schema` does not specify; return the removed fields' paths, sorted.

    With `is_resource_root` (the default) `obj` is a whole resource: its `apiVersion`,
    `kind` and `metadata` are kept as they are, whatever the schema says.
    """
    if is_resource_root:
        schema = (schema or Structural()).with_embedded_resource()
    paths = _Paths()
    _prune(obj, schema, paths)
    return sorted(paths.found)


def _prune(x: Any, s: Structural | None, paths: _Paths) -> None:
    if s is not None and s.preserve_unknown_fields:
        _keep_unknown(x, s, paths)
        return
    if isinstance(x, dict):
        if s is None:
            for k in list(x):
                paths.record(k)
                del x[k]
            return
        for k in list(x):
            if not _prune_specified(x, k, s, paths):
                # a stray apiVersion/kind/metadata at the top is dropped without a report
                if k not in _META_FIELDS or paths.parts:
                    paths.record(k)
                del x[k]
    elif isinstance(x, list):
        items = None if s is None else s.items
        for i, v in enumerate(x):
            mark = paths.push_index(i)
            _prune(v, items, paths)
            paths.pop(mark)


def _prune_specified(x: dict[str, Any], k: str, s: Structural, paths: _Paths) -> bool:
    """Prune below `x[k]` when the schema specifies it (or keeps it, as an embedded resource's
    metadata); False when the schema does not know the field."""
    if s.embedded_resource and k in _META_FIELDS:
        return True
    prop = s.properties.get(k)
    if prop is None and s.additional_properties is None:
        return False
    mark = paths.push_key(k)
    _prune(x[k], prop if prop is not None else s.additional_properties_schema, paths)
    paths.pop(mark)
    return True


def _keep_unknown(x: Any, s: Structural | None, paths: _Paths) -> None:
    """Below `x-kubernetes-preserve-unknown-fields`: unknown fields stay, known ones are pruned."""
    if s is None:
        return
    if isinstance(x, dict):
        for k in list(x):
            _prune_specified(x, k, s, paths)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            mark = paths.push_index(i)
            _keep_unknown(v, s.items, paths)
            paths.pop(mark)
