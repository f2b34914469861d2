"""structured-merge-diff's typed operations on JSON values with a `TypeRef`.

`validate`, `to_field_set`, `compare`, `merge` (the applied configuration wins),
`remove_items`, `ensure_named_fields_are_members` and `reconcile_field_set` do what SMD's
`typed` package does, walk for walk, so that owned field sets, conflicts and pruning
come out as the API server's. `MISSING` stands for an absent value, which SMD tells
apart from JSON null.

Where SMD would fail on a key the schema does not declare (after validation has let the
object through), kgen treats the key as untyped and atomic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgen.runtime.validation.field import go_quote
from kgen.runtime.patch.fieldpath import FieldSet, Path, PathElement, element_string, key, value_key
from kgen.runtime.patch.schema import (
    ATOMIC,
    ASSOCIATIVE,
    BOOLEAN,
    NUMERIC,
    STRING,
    UNTYPED,
    Atom,
    ListSpec,
    TypeRef,
)

__all__ = [
    "MISSING",
    "Comparison",
    "compare",
    "ensure_named_fields_are_members",
    "json_equal",
    "merge",
    "reconcile_field_set",
    "remove_items",
    "to_field_set",
    "validate",
    "ValidationError",
]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""An absent value (a map key that is not there), as opposed to JSON null."""

_NONE, _MAP, _SCALAR, _LIST = 0, 1, 2, 3


class ValidationError(ValueError):
    """Errors of a value that does not fit its schema, worded as SMD words them."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__(_errors_text(errors))


def _errors_text(errors: list[tuple[str, str]]) -> str:
    def one(path: str, message: str) -> str:
        return f"{path}: {message}" if path else message

    if len(errors) == 1:
        return one(*errors[0])
    return "\n".join(["errors:"] + ["  " + one(p, m) for p, m in errors])


def json_equal(a: Any, b: Any) -> bool:
    """SMD's value equality: numbers compare numerically (1 == 1.0), `true` is not 1."""
    ta, tb = type(a), type(b)
    if ta is dict:
        if tb is not dict or len(a) != len(b):
            return False
        for k, v in a.items():
            w = b.get(k, MISSING)
            if w is MISSING or not json_equal(v, w):
                return False
        return True
    if ta is list:
        return tb is list and len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if ta is int or ta is float:
        return (tb is int or tb is float) and a == b
    if ta is str or a is None or ta is bool:
        return ta is tb and a == b
    return bool(a == b)


def _pick(atom: Atom, v: Any) -> int:
    """SMD's deduceAtom + handleAtom: which form of the type applies to `v`. It picks _LIST
    only when `atom.list` is set and _MAP only when `atom.map` is (callers assert that)."""
    if v is not MISSING:
        t = type(v)
        if t is dict:
            if atom.map is not None:
                return _MAP
        elif t is list:
            if atom.list is not None:
                return _LIST
        elif v is not None and atom.scalar is not None:
            return _SCALAR
    if atom.map is not None:
        return _MAP
    if atom.scalar is not None:
        return _SCALAR
    if atom.list is not None:
        return _LIST
    return _NONE


def _child_type(tr: TypeRef, name: str) -> TypeRef:
    spec = tr.atom.map
    assert spec is not None  # called for values _pick picked as _MAP
    declared = spec.fields.get(name)
    if declared is not None:
        return declared.type
    return spec.element if spec.element is not None else tr.schema.untyped_atomic


def _item_element(tr: TypeRef, list_spec: ListSpec, item: Any) -> PathElement:
    """The path element of a list item (SMD's listItemToPathElement); ValueError if the
    item cannot be one."""
    if list_spec.relationship != ASSOCIATIVE:
        raise ValueError("invalid indexing of non-associative list")
    keys = list_spec.keys
    if len(keys) == 1 and type(item) is dict:  # the common case, without sorting
        found_value = item.get(keys[0], MISSING)
        if found_value is not MISSING:
            t = type(found_value)
            if t is str:
                return (1, ((keys[0], (1, found_value)),))
            if t is int:
                return (1, ((keys[0], (0, found_value)),))
    if keys:
        if item is None:
            raise ValueError("associative list with keys may not have a null element")
        if type(item) is not dict:
            raise ValueError("associative list with keys may not have non-map elements")
        found: dict[str, Any] = {}
        element_map = list_spec.element.atom.map
        for name in list_spec.keys:
            if name in item:
                found[name] = item[name]
            else:
                if element_map is None:
                    raise ValueError(
                        f"couldn't find default value for {name}: associative list may not have non-map types"
                    )
                declared = element_map.fields.get(name)
                if declared is not None and declared.default is not None:
                    found[name] = declared.default
        if not found:
            names = "[" + " ".join(f'"{k}"' for k in list_spec.keys) + "]"
            raise ValueError(
                f"associative list with keys has an element that omits all key fields {names} "
                "(and doesn't have default values for any key fields)"
            )
        return key(found)
    t = type(item)
    if t is dict:
        raise ValueError("associative list without keys has an element that's a map type")
    if t is list:
        raise ValueError("not supported: associative list with lists as elements")
    if item is None:
        raise ValueError("associative list without keys has an element that's an explicit null")
    return (2, value_key(item))


def _as_list(v: Any) -> list[Any] | None:
    return v if type(v) is list else None


def _as_map(v: Any) -> dict[str, Any] | None:
    return v if type(v) is dict else None


# Validation.


def validate(v: Any, tr: TypeRef, *, allow_duplicates: bool = False) -> None:
    """Raise ValidationError if `v` does not fit `tr` (SMD's typed.AsTyped)."""
    errors: list[tuple[str, str]] = []
    _validate(v, tr, "", errors, allow_duplicates)
    if errors:
        raise ValidationError(errors)


def _go_value(v: Any) -> str:
    """Go's %v of unstructured JSON data."""
    if v is None:
        return "<nil>"
    if type(v) is bool:
        return "true" if v else "false"
    if type(v) is dict:
        return "map[" + " ".join(f"{k}:{_go_value(v[k])}" for k in sorted(v)) + "]"
    if type(v) is list:
        return "[" + " ".join(_go_value(x) for x in v) + "]"
    if type(v) is float:
        from kgen.runtime.patch.fieldpath import _go_float

        return _go_float(v)
    return str(v)


def _go_syntax(v: Any) -> str:
    """Go's %#v of unstructured JSON data: `[]interface {}{1, "x"}`, `map[string]interface {}{"a":1}`."""
    if v is None:
        return "interface {}(nil)"
    if type(v) is bool:
        return "true" if v else "false"
    if type(v) is dict:
        return "map[string]interface {}{" + ", ".join(f"{go_quote(k)}:{_go_syntax(v[k])}" for k in sorted(v)) + "}"
    if type(v) is list:
        return "[]interface {}{" + ", ".join(_go_syntax(x) for x in v) + "}"
    if type(v) is str:
        return go_quote(v)
    return _go_value(v)


def _go_type(v: Any) -> str:
    return {
        dict: "map[string]interface {}",
        list: "[]interface {}",
        bool: "bool",
        str: "string",
        int: "int64",
        float: "float64",
    }.get(type(v), "<nil>")


def _validate(v: Any, tr: TypeRef, prefix: str, errors: list[tuple[str, str]], allow_duplicates: bool) -> None:
    atom = tr.atom
    kind = _pick(atom, v)
    if kind == _SCALAR:
        message = _scalar_error(atom.scalar, v)
        if message:
            errors.append((prefix, message))
    elif kind == _LIST:
        if v is None:
            return
        if type(v) is not list:
            errors.append((prefix, f"expected list, got &{{{_go_value(v)}}}"))
            return
        list_spec = atom.list
        assert list_spec is not None  # _pick picked _LIST
        seen: set[PathElement] = set()
        for i, item in enumerate(v):
            if list_spec.relationship != ASSOCIATIVE:
                pe: PathElement = (3, i)
            else:
                try:
                    pe = _item_element(tr, list_spec, item)
                except ValueError as err:
                    errors.append((prefix, f"element {i}: {err}"))
                    return
                if pe in seen and not allow_duplicates:
                    errors.append((prefix, f"duplicate entries for key {element_string(pe)}"))
                seen.add(pe)
            _validate(item, list_spec.element, prefix + element_string(pe), errors, allow_duplicates)
    elif kind == _MAP:
        if v is None:
            return
        if type(v) is not dict:
            errors.append((prefix, f"expected map, got &{{{_go_value(v)}}}"))
            return
        map_spec = atom.map
        assert map_spec is not None  # _pick picked _MAP
        for name, item in v.items():
            declared = map_spec.fields.get(name)
            if declared is not None:
                child = declared.type
            elif map_spec.element is not None:
                child = map_spec.element
            else:
                errors.append((prefix + "." + name, "field not declared in schema"))
                return
            _validate(item, child, prefix + "." + name, errors, allow_duplicates)
    else:
        name = f"named type: {tr.named}" if tr.named else "inlined"
        errors.append((prefix, f"schema error: invalid atom: {name}"))


def _scalar_error(scalar: str | None, v: Any) -> str:
    if v is None or v is MISSING:
        return ""
    t = type(v)
    if scalar == NUMERIC:
        if t not in (int, float):
            return f"expected numeric (int or float), got {_go_type(v)}"
    elif scalar == STRING:
        if t is not str:
            return f"expected string, got &value.valueUnstructured{{Value:{_go_syntax(v)}}}"
    elif scalar == BOOLEAN:
        if t is not bool:
            return f"expected boolean, got &{{{_go_value(v)}}}"
    elif scalar == UNTYPED:
        if t not in (int, float, str, bool):
            return f"expected any scalar, got &{{{_go_value(v)}}}"
    return ""


# The set of fields a value sets.


def to_field_set(v: Any, tr: TypeRef) -> FieldSet:
    """The fields `v` sets (SMD's ToFieldSet): scalars, atomic lists and maps, list items,
    empty and null fields, and keys of maps without declared fields."""
    _, below = _fields(v, tr)
    return below if below is not None else FieldSet()


def _fields(v: Any, tr: TypeRef) -> tuple[bool, FieldSet | None]:
    """(whether this node inserted its own path, the set of paths below it)."""
    atom = tr.atom
    kind = _pick(atom, v)
    if kind == _SCALAR:
        return True, None
    if kind == _LIST:
        list_spec = atom.list
        assert list_spec is not None  # _pick picked _LIST
        if list_spec.relationship == ATOMIC:
            return True, None
        if type(v) is not list or not v:
            return False, None
        out = FieldSet()
        elements: list[PathElement | None] = []
        seen: set[PathElement] = set()
        duplicates: set[PathElement] = set()
        pe: PathElement | None
        for item in v:
            try:
                pe = _item_element(tr, list_spec, item)
            except ValueError:
                pe = None
            elements.append(pe)
            if pe is None:
                continue
            if pe in seen:
                if pe not in duplicates:
                    out.members.add(pe)
                    duplicates.add(pe)
            else:
                seen.add(pe)
        for item, pe in zip(v, elements):
            if pe is None or pe in duplicates:
                continue
            _, below = _fields(item, list_spec.element)
            out.members.add(pe)
            if below is not None and (below.members or below.children):
                out.children[pe] = below
        return False, out
    if kind == _MAP:
        map_spec = atom.map
        assert map_spec is not None  # _pick picked _MAP
        if map_spec.relationship == ATOMIC:
            return True, None
        if type(v) is not dict:
            return False, None
        out = FieldSet()
        fields = map_spec.fields
        for name, item in v.items():
            pe = (0, name)
            declared = fields.get(name)
            child = declared.type if declared is not None else (map_spec.element or tr.schema.untyped_atomic)
            member, below = _fields(item, child)
            if member or item is None or (type(item) is dict and not item) or declared is None:
                out.members.add(pe)
            if below is not None and (below.members or below.children):
                out.children[pe] = below
        return False, out
    return False, None


# Comparing two values.


class Comparison:
    """The fields `removed`, `modified` and `added` from one value to another."""

    __slots__ = ("removed", "modified", "added")

    def __init__(self) -> None:
        self.removed = FieldSet()
        self.modified = FieldSet()
        self.added = FieldSet()

    def is_same(self) -> bool:
        """Whether nothing changed."""
        return self.removed.empty() and self.modified.empty() and self.added.empty()

    def exclude(self, fields: FieldSet | None) -> Comparison:
        """This comparison without `fields` and anything below them."""
        if fields is None or fields.empty():
            return self
        out = Comparison()
        out.removed = self.removed.recursive_difference(fields)
        out.modified = self.modified.recursive_difference(fields)
        out.added = self.added.recursive_difference(fields)
        return out


def compare(lhs: Any, rhs: Any, tr: TypeRef) -> Comparison:
    """What changed from `lhs` to `rhs` (SMD's Compare)."""
    out = Comparison()
    _compare(lhs, rhs, tr, (), out)
    return out


def _compare(lhs: Any, rhs: Any, tr: TypeRef, path: Path, out: Comparison) -> None:
    if lhs is rhs and lhs is not MISSING:
        return  # the same value (merging shares what it did not change)
    atom = tr.atom
    kl = _pick(atom, lhs)
    kr = _pick(atom, rhs)
    if rhs is MISSING:
        in_leaf = _compare_as(kl, lhs, rhs, tr, path, out)
    elif lhs is MISSING or kl == kr:
        in_leaf = _compare_as(kr, lhs, rhs, tr, path, out)
    else:
        _compare_as(kl, lhs, rhs, tr, path, out)
        in_leaf = _compare_as(kr, lhs, rhs, tr, path, out)
    if not in_leaf and path:
        if lhs is MISSING:
            out.added.insert(path)
        elif rhs is MISSING:
            out.removed.insert(path)


def _compare_leaf(lhs: Any, rhs: Any, path: Path, out: Comparison) -> bool:
    if not path:
        return True
    if lhs is MISSING:
        out.added.insert(path)
    elif rhs is MISSING:
        out.removed.insert(path)
    elif not json_equal(lhs, rhs):
        out.modified.insert(path)
    return True


def _compare_as(kind: int, lhs: Any, rhs: Any, tr: TypeRef, path: Path, out: Comparison) -> bool:
    """Compare as one form of the type; True when the node was compared as a leaf."""
    atom = tr.atom
    if kind == _SCALAR:
        return _compare_leaf(lhs, rhs, path, out)
    if kind == _LIST:
        list_spec = atom.list
        assert list_spec is not None  # _pick picked _LIST
        left, right = _as_list(lhs), _as_list(rhs)
        if list_spec.relationship == ATOMIC or (not left and not right):
            return _compare_leaf(lhs, rhs, path, out)
        _compare_items(list_spec, tr, left or [], right or [], path, out)
        return False
    if kind == _MAP:
        map_spec = atom.map
        assert map_spec is not None  # _pick picked _MAP
        left_map, right_map = _as_map(lhs), _as_map(rhs)
        if map_spec.relationship == ATOMIC or (not left_map and not right_map):
            return _compare_leaf(lhs, rhs, path, out)
        left_map = left_map or {}
        right_map = right_map or {}
        for name, item in left_map.items():
            _compare(item, right_map.get(name, MISSING), _child_type(tr, name), path + ((0, name),), out)
        for name, item in right_map.items():
            if name not in left_map:
                _compare(MISSING, item, _child_type(tr, name), path + ((0, name),), out)
        return False
    return False


def _compare_items(spec: ListSpec, tr: TypeRef, left: list[Any], right: list[Any], path: Path, out: Comparison) -> None:
    order: list[PathElement] = []
    lvalues: dict[PathElement, list[Any]] = {}
    rvalues: dict[PathElement, list[Any]] = {}
    for item in left:
        try:
            pe = _item_element(tr, spec, item)
        except ValueError:
            continue
        if pe in lvalues:
            lvalues[pe].append(item)
        else:
            lvalues[pe] = [item]
            order.append(pe)
    for item in right:
        try:
            pe = _item_element(tr, spec, item)
        except ValueError:
            continue
        if pe in rvalues:
            rvalues[pe].append(item)
        else:
            rvalues[pe] = [item]
            if pe not in lvalues:
                order.append(pe)
    for pe in order:
        litems: Sequence[Any] = lvalues.get(pe, ())
        ritems: Sequence[Any] = rvalues.get(pe, ())
        item_path = path + (pe,)
        if len(litems) <= 1 and len(ritems) <= 1:
            _compare(litems[0] if litems else MISSING, ritems[0] if ritems else MISSING, spec.element, item_path, out)
        elif len(litems) >= 2 and len(ritems) >= 2:
            if len(litems) != len(ritems) or not all(json_equal(a, b) for a, b in zip(litems, ritems)):
                out.modified.insert(item_path)
        elif len(litems) >= 2:
            if ritems:
                _compare(MISSING, ritems[0], spec.element, item_path, out)
            out.removed.insert(item_path)
        else:
            if litems:
                _compare(litems[0], MISSING, spec.element, item_path, out)
            out.added.insert(item_path)


# Merging: the applied configuration over the live object.


def merge(lhs: Any, rhs: Any, tr: TypeRef) -> Any:
    """`rhs` merged into `lhs` (SMD's Merge with the rule "keep rhs"): granular maps and
    associative lists merge item by item, everything else is replaced by `rhs`.
    MISSING when the result has nothing."""
    if rhs is MISSING:
        return lhs  # merging nothing in rebuilds lhs as it is
    atom = tr.atom
    kind = _pick(atom, rhs)
    if kind == _LIST:
        list_spec = atom.list
        assert list_spec is not None  # _pick picked _LIST
        left, right = _as_list(lhs), _as_list(rhs)
        if list_spec.relationship == ATOMIC or (not left and not right):
            return rhs if rhs is not MISSING else lhs
        items = _merge_items(list_spec, tr, left or [], right or [])
        return items if items else MISSING
    if kind == _MAP:
        map_spec = atom.map
        assert map_spec is not None  # _pick picked _MAP
        left_map, right_map = _as_map(lhs), _as_map(rhs)
        if map_spec.relationship == ATOMIC or (not left_map and not right_map):
            return rhs if rhs is not MISSING else lhs
        left_map = left_map or {}
        right_map = right_map or {}
        merged: dict[str, Any] = {}
        for name, item in left_map.items():
            result = merge(item, right_map.get(name, MISSING), _child_type(tr, name))
            if result is not MISSING:
                merged[name] = result
        for name, item in right_map.items():
            if name not in left_map:
                result = merge(MISSING, item, _child_type(tr, name))
                if result is not MISSING:
                    merged[name] = result
        return merged if merged else MISSING
    return rhs if rhs is not MISSING else lhs


def _index_items(
    spec: ListSpec, tr: TypeRef, items: list[Any], allow_duplicates: bool
) -> tuple[list[PathElement], dict[PathElement, Any]]:
    elements: list[PathElement] = []
    observed: dict[PathElement, Any] = {}
    for i, item in enumerate(items):
        try:
            pe = _item_element(tr, spec, item)
        except ValueError as err:
            raise ValidationError([("", f"element {i}: {err}")]) from None
        if pe in observed:
            if not allow_duplicates:
                raise ValidationError([("", f"duplicate entries for key {element_string(pe)}")])
            observed[pe] = None  # duplicates are not merged with the new value
        else:
            observed[pe] = item
        elements.append(pe)
    return elements, observed


def _merge_items(spec: ListSpec, tr: TypeRef, left: list[Any], right: list[Any]) -> list[Any]:
    """SMD's list merge: the applied order for applied items, live-only items kept where
    they were relative to them."""
    relems, robserved = _index_items(spec, tr, right, False)
    lelems, lobserved = _index_items(spec, tr, left, True)
    shared = [pe for pe in relems if pe in lobserved]
    shared.reverse()
    next_shared = shared.pop() if shared else None
    merged_right: set[PathElement] = set()
    out: list[Any] = []
    element = spec.element
    li, ri, llen, rlen = 0, 0, len(lelems), len(relems)
    while li < llen or ri < rlen:
        if li < llen and ri < rlen:
            pe = lelems[li]
            if pe == relems[ri]:
                merged_right.add(pe)
                result = merge(lobserved[pe], robserved[pe], element)
                if result is not MISSING:
                    out.append(result)
                li += 1
                ri += 1
                next_shared = shared.pop() if shared else None
                continue
            if pe in robserved and next_shared is not None and next_shared != pe:
                li += 1  # a shared item, merged when the applied list reaches it
                continue
        if li < llen:
            pe = lelems[li]
            if pe not in robserved:
                result = merge(left[li], MISSING, element)
                if result is not MISSING:
                    out.append(result)
                li += 1
                continue
            if pe in merged_right:
                li += 1
        if ri < rlen:
            pe = relems[ri]
            merged_right.add(pe)
            result = merge(lobserved.get(pe, MISSING), robserved[pe], element)
            if result is not MISSING:
                out.append(result)
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop() if shared else None
    return out


# Removing items.


def remove_items(v: Any, items: FieldSet, tr: TypeRef) -> Any:
    """`v` without the fields and list items in `items` (SMD's RemoveItems). As in SMD, a
    list or map left with nothing, and a non-collection below a removed path, become null."""
    atom = tr.atom
    kind = _pick(atom, v)
    if kind == _SCALAR:
        return v
    if kind == _LIST:
        list_spec = atom.list
        assert list_spec is not None  # _pick picked _LIST
        if type(v) is not list or not v or list_spec.relationship == ATOMIC:
            return None
        kept: list[Any] = []
        for item in v:
            try:
                pe = _item_element(tr, list_spec, item)
            except ValueError:
                kept.append(item)
                continue
            if pe in items.members:
                continue
            below = items.children.get(pe)
            if below is not None and not below.empty():
                item = remove_items(item, below, list_spec.element)
            kept.append(item)
        return kept if kept else None
    if kind == _MAP:
        map_spec = atom.map
        assert map_spec is not None  # _pick picked _MAP
        if type(v) is not dict or not v or map_spec.relationship == ATOMIC:
            return None
        out: dict[str, Any] = {}
        for name, item in v.items():
            pe = (0, name)
            if pe in items.members:
                continue
            below = items.children.get(pe)
            if below is not None and not below.empty():
                item = remove_items(item, below, _child_type(tr, name))
            out[name] = item
        return out if out else None
    return None


# Field set operations that read the schema.


def ensure_named_fields_are_members(fields: FieldSet, tr: TypeRef | None) -> FieldSet:
    """`fields` with every declared field that has paths below it made a member too."""
    if tr is None:
        return fields
    atom = tr.atom
    spec_map, spec_list = atom.map, atom.list
    members = set(fields.members)
    children: dict[PathElement, FieldSet] = {}
    for pe, child in fields.children.items():
        child_type: TypeRef | None = None
        if pe[0] == 0 and spec_map is not None:
            declared = spec_map.fields.get(pe[1])
            if declared is not None:
                members.add(pe)
                child_type = declared.type
            else:
                child_type = spec_map.element
        elif pe[0] == 1 and spec_list is not None:
            child_type = spec_list.element
        children[pe] = ensure_named_fields_are_members(child, child_type)
    return FieldSet(members, children)


def reconcile_field_set(fields: FieldSet, tr: TypeRef) -> FieldSet | None:
    """A manager's set fixed for a schema that made a granular list or map atomic since it
    was recorded (SMD's ReconcileFieldSetWithSchema); None when nothing needs fixing."""
    to_remove = FieldSet()
    to_add = FieldSet()
    _reconcile(fields, tr, (), False, to_remove, to_add)
    if to_remove.empty() and to_add.empty():
        return None
    return fields.recursive_difference(to_remove).union(to_add)


def _reconcile(
    fields: FieldSet | None, tr: TypeRef, path: Path, is_atomic: bool, to_remove: FieldSet, to_add: FieldSet
) -> None:
    atom = tr.atom
    if atom.map is not None:
        map_spec = atom.map
        if not map_spec.fields and _untyped_deduced(map_spec.element):
            return
        if not is_atomic and map_spec.relationship == ATOMIC:
            if fields is not None and not fields.empty():
                to_remove.insert(path)
                to_add.insert(path)
            return
        if fields is not None:
            for pe, member in _elements(fields):
                if pe[0] != 0:
                    continue
                declared = map_spec.fields.get(pe[1])
                child = declared.type if declared is not None else map_spec.element
                if child is not None:
                    below = fields.children.get(pe)
                    _reconcile(below, child, path + (pe,), member and below is None, to_remove, to_add)
        return
    if atom.scalar is not None:
        return
    if atom.list is not None:
        list_spec = atom.list
        if not is_atomic and list_spec.relationship == ATOMIC:
            to_remove.insert(path)
            to_add.insert(path)
            return
        if fields is not None:
            for pe, member in _elements(fields):
                below = fields.children.get(pe)
                _reconcile(below, list_spec.element, path + (pe,), member and below is None, to_remove, to_add)


def _untyped_deduced(element: TypeRef | None) -> bool:
    if element is None:
        return False
    if element.named is not None:
        return element.deduced
    return element.inline is not None and element.inline.scalar == UNTYPED


def _elements(fields: FieldSet) -> list[tuple[PathElement, bool]]:
    """Children that are not members first, then members (SMD's visiting order)."""
    out = [(pe, False) for pe in sorted(fields.children) if pe not in fields.members]
    out.extend((pe, True) for pe in sorted(fields.members))
    return out
