"""The types and sizes of CEL values, as the cost estimate (`celcost`) needs them.

A `Decl` says what the values at one place of `self` may be: their CEL type and the size
of the largest (characters of a string, items of a list, entries of a map). `SchemaDecl`
reads it from a CRD schema, as the API server's `SchemaDeclType` does (apiserver's
pkg/cel/common/schemas.go); `ValueDecl` from a concrete value. `expression_types` gives
every node of a rule's syntax tree its type, as far as its cost depends on it (which
overload of `+`, `==` or `[]` a call is, whether a select costs).
"""

from __future__ import annotations

import re

from collections.abc import Mapping
from typing import Any, TypeAlias

from kgen.runtime.validation import celparse
from kgen.runtime.validation.celparse import (
    Call,
    Comprehension,
    CreateList,
    CreateMap,
    CreateStruct,
    Expr,
    Ident,
    Literal,
    Select,
)

MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
"""What an unbounded string, list or map is assumed to fill: the largest request
(k8s.io/apiserver/pkg/apis/cel/config.go)."""


# -- types ------------------------------------------------------------------------------------------


class CelType:
    """The type of an expression, as far as costs depend on it.

    `kind` is `bool`, `int`, `uint`, `double`, `string`, `bytes`, `null`, `duration`,
    `timestamp`, `type`, `dyn`, `list`, `map`, `object`, `optional` or `opaque` (the
    Kubernetes library types: `name` says which); objects read their fields' types from
    their `decl`."""

    __slots__ = ("kind", "_elem", "key", "decl", "name")

    def __init__(self, kind: str, elem: CelType | None = None, key: CelType | None = None,
                 decl: Decl | None = None, name: str = ""):  # fmt: skip
        self.kind, self._elem, self.key, self.decl, self.name = kind, elem, key, decl, name

    @property
    def elem(self) -> CelType | None:
        """The type of list items, map values, or an optional's value (read from the
        declaration when first asked: a map's values may never be looked at)."""
        if self._elem is None and self.decl is not None and self.kind in ("list", "map"):
            inner = self.decl.elem()
            self._elem = inner.cel_type() if inner is not None else DYN
        return self._elem

    def field(self, name: str) -> CelType:
        """The type of a field of an object (or a value of a map); `dyn` when not known."""
        if self.decl is not None:
            member = self.decl.field(name)
            if member is not None:
                return member.cel_type()
        if self.kind == "map" and self.elem is not None:
            return self.elem
        return DYN

    def same(self, other: CelType) -> bool:
        """Whether two types are the same (their parameters aside)."""
        return self.kind == other.kind and self.name == other.name

    def __repr__(self) -> str:
        inner = ", ".join(repr(t) for t in (self.key, self.elem) if t is not None)
        return f"{self.name or self.kind}<{inner}>" if inner else (self.name or self.kind)


def _simple(kind: str) -> CelType:
    return CelType(kind)


DYN, BOOL, INT, UINT, DOUBLE, STRING, BYTES, NULL, DURATION, TIMESTAMP, TYPE = map(
    _simple, ("dyn", "bool", "int", "uint", "double", "string", "bytes", "null", "duration", "timestamp", "type")
)
_SCALARS = frozenset({"bool", "double", "duration", "int", "timestamp", "uint"})


def _list(elem: CelType) -> CelType:
    return CelType("list", elem=elem)


def optional_of(elem: CelType) -> CelType:
    """The type of an optional value (`oldSelf` with optionalOldSelf, `x.?field`)."""
    return CelType("optional", elem=elem)


def _opaque(name: str) -> CelType:
    return CelType("opaque", name=name)


def is_scalar(t: CelType) -> bool:
    """Whether values of the type have a fixed size (cel-go's isScalar)."""
    if t.kind == "optional" and t.elem is not None:
        return is_scalar(t.elem)
    return t.kind in _SCALARS


# -- what a value may hold -------------------------------------------------------------------------


class Decl:
    """What the values at one place of `self` may be: their type and largest size.

    The size is cel-go's `size()`: characters of a string, bytes, items of a list,
    entries of a map (an object's is 0, as the API server's DeclType has it)."""

    max_elements: int = 0

    def cel_type(self) -> CelType:
        """The CEL type of the values."""
        raise NotImplementedError

    def field(self, name: str) -> Decl | None:
        """Of a field of objects (by its CEL name); None when they have none of that name."""
        return None

    def elem(self) -> Decl | None:
        """Of list items and map values."""
        return None

    def key(self) -> Decl | None:
        """Of map keys."""
        return None


class _StringKey(Decl):
    """Map keys: apiextensions' StringType, declared without a size (0)."""

    def cel_type(self) -> CelType:
        return STRING


_STRING_KEY = _StringKey()


class SchemaDecl(Decl):
    """A CRD schema node as the API server's `SchemaDeclType` reads it (None when it is not
    exposed to CEL): sizes from maxLength (times 4: bytes of UTF-8), maxItems and
    maxProperties, or, where they are missing, as many as fit in the largest request."""

    def __init__(self, kind: str, max_elements: int = 0, min_size: int = 1, schema: Mapping[str, Any] | None = None,
                 elem: SchemaDecl | None = None, fields: dict[str, SchemaDecl] | None = None):  # fmt: skip
        self.kind = kind
        self.max_elements = max_elements
        self.min_size = min_size
        self.schema = schema
        self._elem = elem
        self._fields = fields if fields is not None else {}
        self._type: CelType | None = None

    @classmethod
    def of(
        cls, schema: Mapping[str, Any], resource_root: bool = False, memo: SchemaMemo | None = None
    ) -> SchemaDecl | None:
        """The declaration of a schema node (`resource_root` for a CRD's root and embedded
        resources); `memo` shares the declarations of nodes met before (by identity)."""
        return _schema_decl(schema, resource_root, memo if memo is not None else {})

    def cel_type(self) -> CelType:
        if self._type is None:
            if self.kind == "list":
                self._type = _list(self._elem.cel_type() if self._elem else DYN)
            elif self.kind == "map":
                self._type = CelType("map", elem=self._elem.cel_type() if self._elem else DYN, key=STRING)
            elif self.kind == "object":
                self._type = CelType("object", decl=self)
            else:
                self._type = _simple(self.kind)
        return self._type

    def field(self, name: str) -> Decl | None:
        return self._fields.get(name) if self.kind == "object" else None

    def elem(self) -> Decl | None:
        return self._elem if self.kind in ("list", "map") else None

    def key(self) -> Decl | None:
        return _STRING_KEY if self.kind == "map" else None


#: Declarations of the schema nodes met before, by (id of the node, resource root); each
#: with its node, so that the id is not reused while the memo lives.
SchemaMemo: TypeAlias = "dict[tuple[int, bool], tuple[Mapping[str, Any], SchemaDecl | None]]"


def _schema_decl(s: Mapping[str, Any], resource_root: bool, memo: SchemaMemo) -> SchemaDecl | None:
    key = (id(s), resource_root)
    if key in memo:
        return memo[key][1]
    decl = _new_schema_decl(s, resource_root, memo)
    memo[key] = (s, decl)  # the schema is kept so that its id is not reused while the memo lives
    return decl


def _new_schema_decl(s: Mapping[str, Any], resource_root: bool, memo: SchemaMemo) -> SchemaDecl | None:
    max_request = MAX_REQUEST_SIZE_BYTES
    if s.get("x-kubernetes-int-or-string") is True:
        bound = _max_length(s) if "maxLength" in s else max_request - 2
        return SchemaDecl("dyn", bound, 1, s)
    kind = s.get("type")
    if resource_root and kind == "object":
        s = _with_type_and_object_meta(s)
    if kind == "array":
        items = s.get("items")
        if not isinstance(items, Mapping):
            return None
        elem = _schema_decl(items, items.get("x-kubernetes-embedded-resource") is True, memo)
        if elem is None:
            return None
        count = max(int(s["maxItems"]), 0) if "maxItems" in s else (max_request - 2) // (elem.min_size + 1)
        return SchemaDecl("list", count, 2, s, elem=elem)
    if kind == "object":
        values = s.get("additionalProperties")
        if values is not None and values is not False and values is not True:
            elem = _schema_decl(values, values.get("x-kubernetes-embedded-resource") is True, memo)
            if elem is None:
                return None
            count = (
                max(int(s["maxProperties"]), 0) if "maxProperties" in s else (max_request - 2) // (elem.min_size + 6)
            )
            return SchemaDecl("map", count, 2, s, elem=elem)
        required = set(s.get("required") or ())
        fields: dict[str, SchemaDecl] = {}
        min_size = 2
        for name, prop in (s.get("properties") or {}).items():
            member = _schema_decl(prop, prop.get("x-kubernetes-embedded-resource") is True, memo)
            if member is None:
                continue
            escaped = escape(name)
            if escaped is not None:
                fields[escaped] = member
            if name in required and "default" not in prop:
                min_size += len(name) + member.min_size + 4
        return SchemaDecl("object", 0, min_size, s, fields=fields)
    if kind == "string":
        fmt = s.get("format")
        if fmt == "byte":
            return SchemaDecl("bytes", max(int(s["maxLength"]), 0) if "maxLength" in s else max_request - 2, 2, s)
        if fmt == "duration":
            return SchemaDecl("duration", 32, 3, s)
        if fmt == "date":
            return SchemaDecl("timestamp", 12, 12, s)
        if fmt == "date-time":
            return SchemaDecl("timestamp", 32, 21, s)
        if "maxLength" in s:
            bound = _max_length(s)
        elif s.get("enum"):
            bound = max((len(v) for v in s["enum"] if isinstance(v, str)), default=0)
        else:
            bound = max_request - 2
        return SchemaDecl("string", bound, 2, s)
    if kind == "boolean":
        return SchemaDecl("bool", 0, 4, s)
    if kind == "number":
        return SchemaDecl("double", 0, 1, s)
    if kind == "integer":
        return SchemaDecl("int", 0, 1, s)
    return None


def _max_length(s: Mapping[str, Any]) -> int:
    # maxLength counts characters; the API server reasons in bytes, up to 4 per character.
    return max(int(s["maxLength"]), 0) * 4


def _with_type_and_object_meta(s: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = dict(s.get("properties") or {})
    string = {"type": "string"}
    properties["kind"] = string
    properties["apiVersion"] = string
    properties["metadata"] = {"type": "object", "properties": {"name": string, "generateName": string}}
    return {**s, "properties": properties}


_RESERVED = frozenset(
    "true false null in as break const continue else for function if import let loop package namespace "
    "return var void while".split()
)


def escape(name: str) -> str | None:
    """A property's name as CEL sees it (apiserver's cel.Escape), None when it cannot be."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    out = []
    i = 0
    while i < len(name):
        ch = name[i]
        if name.startswith("__", i):
            out.append("__underscores__")
            i += 2
            continue
        if ch == ".":
            out.append("__dot__")
        elif ch == "-":
            out.append("__dash__")
        elif ch == "/":
            out.append("__slash__")
        elif ch.isascii() and (ch.isalnum() or ch == "_"):
            out.append(ch)
        else:
            return None
        i += 1
    return "".join(out)


_ESCAPES = {"__underscores__": "__", "__dot__": ".", "__dash__": "-", "__slash__": "/"}
_ESCAPED = re.compile(r"__(?:underscores|dot|dash|slash)__")


def unescape(name: str) -> str:
    """The property name a CEL identifier stands for (the inverse of `escape`)."""
    if name.startswith("__") and name.endswith("__") and name[2:-2] in _RESERVED:
        return name[2:-2]
    return _ESCAPED.sub(lambda m: _ESCAPES[m.group(0)], name)


class ValueDecl(Decl):
    """What the values at one place of a concrete object are: their type, and the size of
    the largest (a scalar's is 1, as cel-go counts it at run time), rounded up to a size
    class (`size_class`) so that an estimate holds for every value of the class.

    With a `trace`, every question asked of it is recorded with its answer, as
    ((where, question), answer): `celcost.RuntimeCost` asks the same questions of the
    next value and reuses the estimate when the answers are the same."""

    __slots__ = ("values", "where", "trace", "_fields", "_elem", "_key", "_type", "_kind_of", "_max")

    def __init__(
        self, values: list[Any], where: tuple[Any, ...] = (), trace: list[tuple[tuple[Any, ...], Any]] | None = None
    ):
        self.values = values
        self.where = where
        self.trace = trace
        self._fields: dict[str, ValueDecl | None] = {}
        self._elem: ValueDecl | None = None
        self._key: ValueDecl | None = None
        self._type: CelType | None = None
        self._kind_of: str | None = None
        self._max: int | None = None

    def _record(self, question: Any, answer: Any) -> Any:
        if self.trace is not None:
            self.trace.append(((self.where, question), answer))
        return answer

    @property
    def max_elements(self) -> int:  # type: ignore[override]
        if self._max is None:
            self._max = size_class(largest_size(self.values))
            self._record("max", self._max)
        return self._max

    def kind(self) -> str:
        if self._kind_of is None:
            self._kind_of = self._record("kind", kind_of(self.values))
        return self._kind_of

    def cel_type(self) -> CelType:
        if self._type is None:
            kind = self.kind()
            if kind in ("list", "map"):
                self._type = CelType(kind, key=STRING if kind == "map" else None, decl=self)
            else:
                self._type = _simple(kind)
        return self._type

    def field(self, name: str) -> ValueDecl | None:
        if name not in self._fields:
            found = [v[name] for v in self.values if type(v) is dict and name in v]
            self._record(("has", name), bool(found))
            self._fields[name] = ValueDecl(found, self.where + (("f", name),), self.trace) if found else None
        return self._fields[name]

    def elem(self) -> ValueDecl | None:
        if self._elem is None:
            found: list[Any] = []
            for v in self.values:
                if type(v) is list:
                    found.extend(v)
                elif type(v) is dict:
                    found.extend(v.values())
            self._elem = ValueDecl(found, self.where + ("e",), self.trace)
        return self._elem

    def key(self) -> ValueDecl | None:
        if self._key is None:
            self._key = ValueDecl(
                [k for v in self.values if type(v) is dict for k in v], self.where + ("k",), self.trace
            )
        return self._key

    def answer(self, question: Any) -> Any:
        """The answer to a recorded question (`kind`, `max`, `("has", name)`)."""
        if question == "kind":
            return self.kind()
        if question == "max":
            return self.max_elements
        return self.field(question[1]) is not None

    def at(self, where: tuple[Any, ...]) -> ValueDecl | None:
        """The declaration at a place below this one (`where` as recorded)."""
        current: ValueDecl | None = self
        for step in where:
            if current is None:
                return None
            current = current.elem() if step == "e" else current.key() if step == "k" else current.field(step[1])
        return current


def size_class(size: int) -> int:
    """A size rounded up to its class: exact to 16, then within an eighth (17 -> 18, 100 -> 104)."""
    if size <= 16:
        return size
    shift = size.bit_length() - 4
    return ((size + (1 << shift) - 1) >> shift) << shift


_KINDS = {type(None): "null", bool: "bool", int: "int", float: "double", str: "string", bytes: "bytes",
          bytearray: "bytes", list: "list", tuple: "list", dict: "map"}  # fmt: skip
_SIZED = frozenset({str, bytes, bytearray, list, tuple, dict})


def kind_of(values: list[Any]) -> str:
    """The kind of JSON values, as one CEL type: `dyn` when they differ (ints and doubles are doubles)."""
    if len(values) == 1:
        return _KINDS.get(type(values[0])) or _json_kind_slow(type(values[0]))
    kinds = {_KINDS.get(t) or _json_kind_slow(t) for t in {type(v) for v in values}}
    if kinds == {"int", "double"}:
        return "double"
    return kinds.pop() if len(kinds) == 1 else "dyn"


def largest_size(values: list[Any]) -> int:
    """cel-go's size of the largest value (1 for a scalar)."""
    if len(values) == 1:
        return len(values[0]) if type(values[0]) in _SIZED else 1
    if {type(v) for v in values} <= _SIZED:
        return max(map(len, values), default=0)
    return max((len(v) if isinstance(v, (str, bytes, list, dict)) else 1 for v in values), default=0)


def _json_kind_slow(t: type) -> str:
    for base, kind in _KINDS.items():
        if base is not type(None) and issubclass(t, base):
            return "bool" if issubclass(t, bool) else kind
    return "dyn"


# -- the types of expressions ------------------------------------------------------------------------

_RETURNS = {
    **dict.fromkeys(
        "contains startsWith endsWith matches isSorted isIP isCIDR isURL isQuantity isSemver isInteger isGreaterThan "
        "isLessThan containsIP containsCIDR isUnspecified isLoopback isLinkLocalMulticast isLinkLocalUnicast "
        "isGlobalUnicast sets.contains sets.equivalent sets.intersects hasValue ip.isCanonical isCanonical "
        "@not_strictly_false _&&_ _||_ !_ _==_ _!=_ _<_ _<=_ _>_ _>=_ @in".split(), BOOL),
    **dict.fromkeys(
        "size int indexOf lastIndexOf prefixLength family sign asInteger compareTo major minor patch getFullYear "
        "getMonth getDayOfYear getDayOfMonth getDate getDayOfWeek getHours getMinutes getSeconds "
        "getMilliseconds".split(), INT),
    **dict.fromkeys(
        "string lowerAscii upperAscii replace substring charAt trim join strings.quote format find getScheme getHost "
        "getHostname getPort getEscapedPath".split(), STRING),
    **dict.fromkeys("split findAll".split(), _list(STRING)),
    "uint": UINT, "double": DOUBLE, "asApproximateFloat": DOUBLE, "bytes": BYTES, "bool": BOOL,
    "duration": DURATION, "timestamp": TIMESTAMP, "type": TYPE, "dyn": DYN,
    "lists.range": _list(INT), "url": _opaque("url"), "ip": _opaque("ip"), "cidr": _opaque("cidr"),
    "masked": _opaque("cidr"), "quantity": _opaque("quantity"), "add": _opaque("quantity"),
    "sub": _opaque("quantity"), "semver": _opaque("semver"), "format.named": optional_of(_opaque("format")),
    "validate": optional_of(_list(STRING)), "getQuery": CelType("map", elem=_list(STRING), key=STRING),
    "optional.none": optional_of(DYN), "cel.@mapInsert": CelType("map", elem=DYN, key=DYN),
}  # fmt: skip
for _name in celparse.NAMESPACED:
    if _name.startswith("format.") and _name != "format.named":
        _RETURNS[_name] = _opaque("format")


class _Typer:
    """The type of every node of a tree (by node id), given the types of its variables."""

    def __init__(self, variables: Mapping[str, CelType]):
        self.variables = dict(variables)
        self.scopes: dict[str, list[CelType]] = {}
        self.types: dict[int, CelType] = {}

    def type(self, e: Expr) -> CelType:
        t = self._type(e)
        self.types[e.id] = t
        return t

    def _type(self, e: Expr) -> CelType:
        if isinstance(e, Literal):
            return _simple(e.kind)
        if isinstance(e, Ident):
            scoped = self.scopes.get(e.name)
            if scoped:
                return scoped[-1]
            return self.variables.get(e.name, DYN)
        if isinstance(e, Select):
            operand = self.type(e.operand)
            return BOOL if e.test_only else (operand.field(e.field) if operand.kind in ("object", "map") else DYN)
        if isinstance(e, CreateList):
            elems = [self.type(x) for x in e.elements]
            return _list(elems[0] if elems else DYN)
        if isinstance(e, CreateMap):
            pairs = [(self.type(k), self.type(v)) for k, v in e.entries]
            return CelType("map", key=pairs[0][0] if pairs else DYN, elem=pairs[0][1] if pairs else DYN)
        if isinstance(e, CreateStruct):
            for _, value in e.fields:
                self.type(value)
            return DYN
        if isinstance(e, Comprehension):
            return self._comprehension(e)
        assert isinstance(e, Call)
        return self._call(e)

    def _comprehension(self, e: Comprehension) -> CelType:
        source = self.type(e.iter_range)
        if e.iter_var2:
            first = INT if source.kind == "list" else (source.key or DYN)
            second = source.elem or DYN
        else:
            first = (source.elem if source.kind == "list" else source.key) or DYN
            second = DYN
        accu = self.type(e.accu_init)
        for _ in range(2):  # once more with the accumulator as the step makes it (map, filter)
            self._push(e.iter_var, first)
            if e.iter_var2:
                self._push(e.iter_var2, second)
            self._push(e.accu_var, accu)
            self.type(e.loop_condition)
            step = self.type(e.loop_step)
            self._pop(e.accu_var)
            if e.iter_var2:
                self._pop(e.iter_var2)
            self._pop(e.iter_var)
            if not (
                accu.kind in ("list", "map")
                and step.kind == accu.kind
                and step.elem is not None
                and step.elem.kind != "dyn"
            ):
                break
            accu = step
        self._push(e.accu_var, accu)
        result = self.type(e.result)
        self._pop(e.accu_var)
        return result

    def _push(self, name: str, t: CelType) -> None:
        self.scopes.setdefault(name, []).append(t)

    def _pop(self, name: str) -> None:
        self.scopes[name].pop()

    def _call(self, e: Call) -> CelType:
        target = self.type(e.target) if e.target is not None else None
        args = [self.type(a) for a in e.args]
        name = e.function
        first = target if target is not None else (args[0] if args else DYN)
        if name in ("_?._", "_[?_]"):
            inner = args[0].field(_literal_text(e.args[1])) if name == "_?._" else _index_type(args[0])
            return optional_of(inner if args[0].kind != "optional" else DYN)
        if name == "_[_]":
            return _index_type(args[0])
        if name == "_?_:_":
            return args[1] if args[1].kind != "dyn" else args[2]
        if name in ("-_", "_-_", "_*_", "_/_", "_%_"):
            if name == "_-_" and args[0].kind == "timestamp" and args[1].kind == "timestamp":
                return DURATION
            return args[0] if args[0].kind != "dyn" else args[-1]
        if name == "_+_":
            if args[0].kind == "list" and args[1].kind == "list":
                elem = args[0].elem if args[0].elem is not None and args[0].elem.kind != "dyn" else args[1].elem
                return _list(elem or DYN)
            return args[0] if args[0].kind != "dyn" else args[1]
        if name in ("sum", "min", "max") and first.kind == "list":
            return first.elem or DYN
        if name in ("slice", "distinct", "sort") or (name == "reverse" and first.kind == "list"):
            return first if first.kind == "list" else _list(DYN)
        if name == "reverse":
            return STRING
        if name == "flatten":
            nested = first.elem if first.kind == "list" else None
            return _list(nested.elem or DYN) if nested is not None and nested.kind == "list" else _list(DYN)
        if name in ("optional.of", "optional.ofNonZeroValue"):
            return optional_of(args[0] if args else DYN)
        if name in ("value", "orValue") and first.kind == "optional":
            return first.elem or DYN
        if name == "or" and first.kind == "optional":
            return first
        if name == "ip" and target is not None:
            return _opaque("ip")
        if name == "string" and target is not None:
            return STRING
        return _RETURNS.get(name, DYN)


def _index_type(t: CelType) -> CelType:
    if t.kind in ("list", "map"):
        return t.elem or DYN
    return DYN


def _literal_text(e: Expr) -> str:
    return e.value if isinstance(e, Literal) and isinstance(e.value, str) else ""


def expression_types(tree: Expr, variables: Mapping[str, CelType]) -> dict[int, CelType]:
    """The type of every node of a tree, by node id, given the types of its variables."""
    typer = _Typer(variables)
    typer.type(tree)
    return typer.types
