"""Field paths and sets of them, as structured-merge-diff's `fieldpath` package has them.

A path element is a hashable tuple whose natural order is SMD's:

- `(0, name)`            a field of an object                 `f:name`      `.name`
- `(1, ((key, v), ...))` a map-list item by its key fields     `k:{"a":1}`   `[a=1]`
- `(2, v)`               a set item by its value               `v:"x"`       `[="x"]`
- `(3, index)`           an atomic list's item (never owned)   `i:3`         `[3]`

where `v` is a *value key* (`value_key`): a tagged tuple that orders JSON values as SMD
does (numbers < strings < booleans < lists < maps < null) and tells `true` from `1`.

A `FieldSet` is SMD's trie: `members` are the elements owned at this level, `children`
the sets below an element. `to_fields_v1()` writes the managedFields `fieldsV1` object
with SMD's key order (`"."` first, then elements in path-element order).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from collections.abc import Iterator
from typing import Any, TypeAlias

from kgen.runtime import gojson

__all__ = [
    "FieldSet",
    "PathElement",
    "field",
    "key",
    "value",
    "index",
    "value_key",
    "json_value",
    "path_string",
    "serialize_element",
    "parse_element",
    "FieldsV1Error",
]

ValueKey: TypeAlias = tuple[int, Any]
"""(rank, payload): a JSON value as `value_key` makes it hashable and ordered."""
PathElement: TypeAlias = tuple[int, Any]
"""(kind, payload): one step of a path, in the forms the module docstring lists."""
Path: TypeAlias = tuple[PathElement, ...]
"""The elements from the root to a field."""

_FIELD, _KEY, _VALUE, _INDEX = 0, 1, 2, 3
# Ranks of value kinds in SMD's value.Compare.
_NUM, _STR, _BOOL, _LIST, _MAP, _NULL = 0, 1, 2, 3, 4, 5


class FieldsV1Error(ValueError):
    """A fieldsV1 object that does not parse as a set of field paths."""


def value_key(v: Any) -> ValueKey:
    """A hashable key for a JSON value that orders and compares as SMD's values do."""
    t = type(v)
    if t is str:
        return (_STR, v)
    if t is bool:
        return (_BOOL, v)
    if t is int or t is float:
        return (_NUM, v)
    if v is None:
        return (_NULL, None)
    if t is list:
        return (_LIST, tuple(value_key(x) for x in v))
    if t is dict:
        return (_MAP, tuple(sorted((k, value_key(x)) for k, x in v.items())))
    if isinstance(v, bool):
        return (_BOOL, bool(v))
    if isinstance(v, (int, float)):
        return (_NUM, v)
    if isinstance(v, gojson.RawNumber):
        return (_NUM, v.to_json_value())
    raise TypeError(f"not JSON data: {v!r}")


def json_value(k: ValueKey) -> Any:
    """The JSON value of a value key."""
    rank = k[0]
    if rank == _LIST:
        return [json_value(x) for x in k[1]]
    if rank == _MAP:
        return {name: json_value(x) for name, x in k[1]}
    return k[1]


def field(name: str) -> PathElement:
    """The element for field `name`."""
    return (_FIELD, name)


def key(fields: dict[str, Any]) -> PathElement:
    """The element for the map-list item with these key field values."""
    return (_KEY, tuple(sorted((n, value_key(v)) for n, v in fields.items())))


def value(v: Any) -> PathElement:
    """The element for the set item `v`."""
    return (_VALUE, value_key(v))


def index(i: int) -> PathElement:
    """The element for item `i` of an atomic list."""
    return (_INDEX, i)


# Text forms.


def _go_float(f: float) -> str:
    """Go's %v of a float64 (strconv 'g', shortest): exponent form below 1e-4 and from 1e6."""
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    sign, digit_tuple, exp = Decimal(repr(abs(f))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent = len(digit_tuple) + int(exp) - 1
    minus = "-" if f < 0 else ""
    if exponent < -4 or exponent >= 6:
        tail = digits[1:]
        return f"{minus}{digits[0]}{'.' + tail if tail else ''}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{minus}0.{'0' * (-exponent - 1)}{digits}"
    if len(digits) <= exponent + 1:
        return f"{minus}{digits}{'0' * (exponent + 1 - len(digits))}"
    return f"{minus}{digits[:exponent + 1]}.{digits[exponent + 1:]}"


def _go_quote(s: str) -> str:
    """Go's %q of a string (strconv.Quote) for the printable text paths usually hold."""
    out = ['"']
    for ch in s:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif ord(ch) < 0x10000:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x80 else f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _value_string(k: ValueKey) -> str:
    """SMD's value.ToString."""
    rank, v = k
    if rank == _NULL:
        return "null"
    if rank == _NUM:
        return _go_float(v) if type(v) is float else str(v)
    if rank == _STR:
        return _go_quote(v)
    if rank == _BOOL:
        return "true" if v else "false"
    if rank == _LIST:
        return "[" + ",".join(_value_string(x) for x in v) + "]"
    return "".join(f"{name}={_value_string(x)}" for name, x in v)


def element_string(pe: PathElement) -> str:
    """A path element as SMD prints it in conflicts: `.name`, `[name="x"]`, `[="x"]`, `[3]`."""
    kind, payload = pe
    if kind == _FIELD:
        field_name: str = payload
        return "." + field_name
    if kind == _KEY:
        return "[" + ",".join(f"{name}={_value_string(x)}" for name, x in payload) + "]"
    if kind == _VALUE:
        return "[=" + _value_string(payload) + "]"
    return f"[{payload}]"


def path_string(path: Path) -> str:
    """A path as SMD prints it: `.spec.containers[name="nginx"].image`."""
    return "".join(element_string(pe) for pe in path)


def serialize_element(pe: PathElement) -> str:
    """A path element as a fieldsV1 key: `f:name`, `k:{"name":"x"}`, `v:"x"`, `i:3`."""
    kind, payload = pe
    if kind == _FIELD:
        field_name: str = payload
        return "f:" + field_name
    if kind == _KEY:
        # Key field names are written as they are; values with Go's HTML-safe escaping.
        parts = [
            json.dumps(name, ensure_ascii=False) + ":" + gojson.marshal(json_value(x)).decode() for name, x in payload
        ]
        return "k:{" + ",".join(parts) + "}"
    if kind == _VALUE:
        return "v:" + gojson.marshal(json_value(payload)).decode()
    return f"i:{payload}"


def parse_element(text: str) -> PathElement | None:
    """Parse a fieldsV1 key; None for an unknown kind (SMD drops those), FieldsV1Error
    for a malformed one."""
    if len(text) < 2:
        raise FieldsV1Error("key must be 2 characters long:")
    if text[1] != ":":
        raise FieldsV1Error(f"missing colon: {text}")
    kind, body = text[0], text[2:]
    if kind == "f":
        return (_FIELD, body)
    if kind == "i":
        try:
            return (_INDEX, int(body))
        except ValueError:
            raise FieldsV1Error(f'strconv.Atoi: parsing "{body}": invalid syntax') from None
    if kind not in "kv":
        return None
    try:
        parsed = json.loads(body)
    except ValueError as err:
        raise FieldsV1Error(f"parsing key as path element: {err}") from None
    if kind == "v":
        return (_VALUE, value_key(parsed))
    if not isinstance(parsed, dict):
        raise FieldsV1Error(f"parsing key as path element: expected an object in {text}")
    return key(parsed)


class FieldSet:
    """A set of field paths as a trie (SMD's fieldpath.Set). Operations return new sets;
    `insert` changes this one."""

    __slots__ = ("members", "children")

    def __init__(self, members: set[PathElement] | None = None, children: dict[PathElement, FieldSet] | None = None):
        self.members: set[PathElement] = members if members is not None else set()
        self.children: dict[PathElement, FieldSet] = children if children is not None else {}

    @classmethod
    def of(cls, *paths: Path) -> FieldSet:
        """A set holding these paths."""
        out = cls()
        for path in paths:
            out.insert(path)
        return out

    def insert(self, path: Path) -> None:
        """Add `path` (the empty path is no member of any set)."""
        if not path:
            return
        node = self
        for pe in path[:-1]:
            child = node.children.get(pe)
            if child is None:
                child = node.children[pe] = FieldSet()
            node = child
        node.members.add(path[-1])

    def has(self, path: Path) -> bool:
        """Whether `path` is a member."""
        if not path:
            return False
        node = self
        for pe in path[:-1]:
            child = node.children.get(pe)
            if child is None:
                return False
            node = child
        return path[-1] in node.members

    def empty(self) -> bool:
        """Whether the set has no member at any depth."""
        if self.members:
            return False
        return all(child.empty() for child in self.children.values())

    def __bool__(self) -> bool:
        return not self.empty()

    def with_prefix(self, pe: PathElement) -> FieldSet:
        """The paths below `pe`, without it."""
        return self.children.get(pe) or _EMPTY

    def copy(self) -> FieldSet:
        """A deep copy."""
        return FieldSet(set(self.members), {pe: child.copy() for pe, child in self.children.items()})

    def union(self, other: FieldSet) -> FieldSet:
        """Paths in either set."""
        if not other.members and not other.children:
            return self
        if not self.members and not self.children:
            return other
        children = dict(self.children)
        for pe, child in other.children.items():
            mine = children.get(pe)
            children[pe] = child if mine is None else mine.union(child)
        return FieldSet(self.members | other.members, children)

    def intersection(self, other: FieldSet) -> FieldSet:
        """Paths in both sets."""
        children = {}
        for pe, child in self.children.items():
            theirs = other.children.get(pe)
            if theirs is not None:
                both = child.intersection(theirs)
                if not both.empty():
                    children[pe] = both
        return FieldSet(self.members & other.members, children)

    def difference(self, other: FieldSet) -> FieldSet:
        """Paths in this set and not in `other` (a member of `other` does not remove the
        paths below it: see `recursive_difference`)."""
        if not other.members and not other.children:
            return self
        children = {}
        for pe, child in self.children.items():
            theirs = other.children.get(pe)
            if theirs is None:
                children[pe] = child
            else:
                rest = child.difference(theirs)
                if not rest.empty():
                    children[pe] = rest
        return FieldSet(self.members - other.members, children)

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Paths in this set that neither are in `other` nor lie below a member of it."""
        children = {}
        for pe, child in self.children.items():
            if pe in other.members:
                continue
            theirs = other.children.get(pe)
            if theirs is None:
                children[pe] = child
            else:
                rest = child.recursive_difference(theirs)
                if not rest.empty():
                    children[pe] = rest
        return FieldSet(self.members - other.members, children)

    def leaves(self) -> FieldSet:
        """The members that have no paths below them."""
        return FieldSet(
            {pe for pe in self.members if pe not in self.children},
            {pe: child.leaves() for pe, child in self.children.items()},
        )

    def paths(self, prefix: Path = ()) -> Iterator[Path]:
        """Every member path in SMD's order: this level's members, then each child's."""
        for pe in sorted(self.members):
            yield prefix + (pe,)
        for pe in sorted(self.children):
            yield from self.children[pe].paths(prefix + (pe,))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        mine = {pe: c for pe, c in self.children.items() if not c.empty()}
        theirs = {pe: c for pe, c in other.children.items() if not c.empty()}
        return self.members == other.members and mine == theirs

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "FieldSet(" + ", ".join(path_string(p) for p in self.paths()) + ")"

    # The managedFields encoding.

    def to_fields_v1(self) -> dict[str, Any]:
        """The fieldsV1 object: `{"f:spec": {"f:replicas": {}}}`, `"."` marking a member
        that also has children, keys in SMD's order."""
        return self._emit(False)

    def _emit(self, include_self: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if include_self and (self.members or self.children):
            out["."] = {}
        for pe in sorted(self.members | self.children.keys()):
            child = self.children.get(pe)
            if child is None:
                out[serialize_element(pe)] = {}
            else:
                out[serialize_element(pe)] = child._emit(pe in self.members)
        return out

    @classmethod
    def from_fields_v1(cls, fields: Any) -> FieldSet:
        """Parse a fieldsV1 object; FieldsV1Error when it is not one."""
        if not isinstance(fields, dict):
            raise FieldsV1Error(f"expected a fieldsV1 object, got {type(fields).__name__}")
        found, _ = cls._read(fields)
        return found or cls()

    @classmethod
    def _read(cls, node: dict[str, Any]) -> tuple[FieldSet | None, bool]:
        children: FieldSet | None = None
        is_member = False
        for text, sub in node.items():
            if text == ".":
                is_member = True
                continue
            pe = parse_element(text)
            if pe is None:
                continue
            if not isinstance(sub, dict):
                raise FieldsV1Error(f"expected an object under {text!r}")
            grandchildren, child_is_member = cls._read(sub)
            if children is None:
                children = cls()
            if child_is_member:
                children.members.add(pe)
            if grandchildren is not None:
                mine = children.children.get(pe)
                children.children[pe] = grandchildren if mine is None else mine.union(grandchildren)
        if children is None:
            is_member = True
        return children, is_member


_EMPTY = FieldSet()
