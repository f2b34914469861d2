"""The cost of CEL rules, as the API server bounds it.

The API server gives CEL rules two budgets (k8s.io/apiserver/pkg/apis/cel/config.go):

- when a CRD is created, every rule's *estimated* cost (a worst case computed from the
  schema's `maxLength`, `maxItems` and `maxProperties`, or from the largest request when
  they are missing) times the number of times the rule can run in one object must stay
  within `STATIC_ESTIMATED_COST_LIMIT`, and all of a CRD's rules together within
  `STATIC_ESTIMATED_CRD_COST_LIMIT` (apiextensions-apiserver's validation; `crd_costs`);
- when an object is validated, each rule's *actual* cost must stay within
  `PER_CALL_LIMIT` and all rules of the object together within `RUNTIME_CEL_COST_BUDGET`.

The estimate is cel-go's (checker/cost.go, v0.26 as Kubernetes 1.36 uses it) with the
Kubernetes libraries' function costs (k8s.io/apiserver/pkg/cel/library/cost.go) and
cel-go's list and set extensions, computed over the syntax tree `celparse` builds, with
the types and sizes of `celtypes`. At run time the `cel` engine counts no cost and cannot
be interrupted, so kgen estimates a rule with the sizes of the value it is about to see
(`RuntimeCost`) and refuses it before it runs when that exceeds what is left. cel-go's
estimate is built to bound what its interpreter counts, so with the actual sizes (rounded
up to a size class) kgen refuses what the API server would stop, and may refuse a little
earlier: a rule whose `all()` stops at its first false item is charged for every item,
and every item of a list is charged as if it were as large as the largest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kgen.runtime.validation import celparse

PER_CALL_LIMIT = 1_000_000
"""The actual cost one evaluation of a rule may reach, about a tenth of a second in Go
(k8s.io/apiserver/pkg/apis/cel/config.go)."""
RUNTIME_CEL_COST_BUDGET = 10_000_000
"""The actual cost all rules of one object may reach together."""
from kgen.runtime.validation.celparse import (
    ACCUMULATOR,
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
from kgen.runtime.validation.celtypes import (
    DYN,
    MAX_REQUEST_SIZE_BYTES,
    CelType,
    Decl,
    SchemaDecl,
    ValueDecl,
    expression_types,
    is_scalar,
    kind_of,
    largest_size,
    optional_of,
    size_class,
)

__all__ = [
    "PER_CALL_LIMIT",
    "RUNTIME_CEL_COST_BUDGET",
    "STATIC_ESTIMATED_COST_LIMIT",
    "STATIC_ESTIMATED_CRD_COST_LIMIT",
    "ActivationCost",
    "RuntimeCost",
    "SchemaDecl",
    "ValueDecl",
    "cost_error",
    "estimate",
    "input_bound",
]

STATIC_ESTIMATED_COST_LIMIT = 10_000_000
"""The estimated cost of one rule (times the times it can run) a CRD may declare."""
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000
"""The estimated cost of all of a CRD version's rules together."""

STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
MAX_NAME_FORMAT_REGEX_SIZE = 128
MAX_FORMAT_SIZE = 64

MAX = 2**64 - 1
"""cel-go's costs are unsigned 64-bit and saturate."""
UNKNOWN = (0, MAX)

Range = tuple[int, int]
"""A (min, max) size or cost estimate."""


# -- saturating arithmetic (checker.SizeEstimate, checker.CostEstimate) ---------------------------


def _add(a: Range, b: Range) -> Range:
    return min(a[0] + b[0], MAX), min(a[1] + b[1], MAX)


def _mul(a: Range, b: Range) -> Range:
    return min(a[0] * b[0], MAX), min(a[1] * b[1], MAX)


def _scale(x: int, factor: float) -> int:
    """cel-go's multiplyByCostFactor: the product rounded up, in float64, saturating."""
    value = float(x)
    if value > 0 and factor > 0 and value > float(MAX) / factor:
        return MAX
    product = math.ceil(value * factor)
    return MAX if product >= 2.0**64 else int(product)


def _factor(a: Range, factor: float) -> Range:
    return _scale(a[0], factor), _scale(a[1], factor)


def _union(a: Range, b: Range) -> Range:
    return min(a[0], b[0]), max(a[1], b[1])


def _fixed(n: int) -> Range:
    return n, n


# -- the estimate (cel-go's coster) -----------------------------------------------------------------


@dataclass
class _Entry:
    """The sizes of a container's keys (or indexes) and values, when known."""

    container: str
    key: Range
    val: Range


@dataclass
class _Local:
    path: list[str]
    size: Range | None
    entry: _Entry | None


@dataclass
class _Node:
    """What a function's cost sees of an argument (cel-go's AstNode)."""

    expr: Expr
    path: list[str]
    type: CelType
    size: Range | None


_ACCUMULATORS = (ACCUMULATOR, "__result__")
SizeOfPath = Callable[[list[str], CelType], "Range | None"]
"""The size of the values at a path (cel-go's EstimateSize), None when not known."""


class _Coster:
    def __init__(self, types: dict[int, CelType], size_of_path: SizeOfPath,
                 unknown: Range | Callable[[], Range] = UNKNOWN):  # fmt: skip
        self.types = types
        self.size_of_path = size_of_path
        self._unknown = unknown
        self.paths: dict[int, list[str]] = {}
        self.sizes: dict[int, Range] = {}
        self.entries: dict[int, _Entry] = {}
        self.locals: dict[str, list[_Local]] = {}

    @property
    def unknown(self) -> Range:
        """The size of what has none estimated (computed on first use)."""
        if callable(self._unknown):
            self._unknown = self._unknown()
        return self._unknown

    # sizes and paths

    def type_of(self, e: Expr) -> CelType:
        return self.types.get(e.id, DYN)

    def path(self, e: Expr) -> list[str]:
        if isinstance(e, Ident):
            local = self._peek(e.name)
            if local is not None:
                return list(local.path)
        return list(self.paths.get(e.id, ()))

    def _peek(self, name: str) -> _Local | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def node(self, e: Expr) -> _Node:
        path = self.path(e)
        if path and path[0] in _ACCUMULATORS:
            path = []  # only paths from the variables, not from the accumulator
        return _Node(e, path, self.type_of(e), self.size(e))

    def size(self, e: Expr) -> Range | None:
        known = self.sizes.get(e.id)
        if known is not None:
            return known
        if isinstance(e, Literal):
            if e.kind in ("string", "bytes"):
                return _fixed(len(e.value))
            return _fixed(1)
        if isinstance(e, CreateList):
            return _fixed(len(e.elements))
        if isinstance(e, CreateMap):
            return _fixed(len(e.entries))
        estimated = self.size_of_path(self.path(e), self.type_of(e))
        if estimated is not None:
            self.sizes[e.id] = estimated
            return estimated
        if is_scalar(self.type_of(e)):
            return _fixed(1)
        if isinstance(e, Ident):
            local = self._peek(e.name)
            if local is not None and local.size is not None:
                return local.size
        return None

    def size_or_unknown(self, e: Expr | _Node) -> Range:
        size = e.size if isinstance(e, _Node) else self.size(e)
        return size if size is not None else self.unknown

    def entry(self, e: Expr) -> _Entry | None:
        if e.id in self.entries:
            return self.entries[e.id]
        if isinstance(e, Ident):
            local = self._peek(e.name)
            if local is not None:
                return local.entry
        return None

    def _set_size(self, e: Expr, size: Range | None) -> None:
        if size is not None:
            self.sizes[e.id] = size

    def _set_entry(self, e: Expr, entry: _Entry | None) -> None:
        if entry is not None:
            self.entries[e.id] = entry

    # costs

    def cost(self, e: Expr) -> Range:
        if isinstance(e, Literal):
            return (0, 0)
        if isinstance(e, Ident):
            local = self._peek(e.name)
            self.paths[e.id] = list(local.path) if local is not None else [e.name]
            return (1, 1)
        if isinstance(e, Select):
            return self._select(e)
        if isinstance(e, Call):
            return self._call(e)
        if isinstance(e, CreateList):
            return self._create_list(e)
        if isinstance(e, CreateMap):
            return self._create_map(e)
        if isinstance(e, CreateStruct):
            total = (0, 0)
            for _, value in e.fields:
                total = _add(total, self.cost(value))
            return _add(total, _fixed(STRUCT_CREATE_BASE_COST))
        assert isinstance(e, Comprehension)
        return self._comprehension(e)

    def _select(self, e: Select) -> Range:
        if e.test_only:
            return self.cost(e.operand)  # the API server's has() costs nothing (PresenceTestHasCost(false))
        total = self.cost(e.operand)
        if self.type_of(e.operand).kind in ("map", "object"):
            total = _add(total, (1, 1))
        self.paths[e.id] = self.path(e.operand) + [e.field]
        return total

    def _call(self, e: Call) -> Range:
        if e.function == "dyn" and e.target is None and len(e.args) == 1:
            inner = self.cost(e.args[0])
            self._set_size(e, self.size(e.args[0]))
            self._set_entry(e, self.entry(e.args[0]))
            return _add((1, 1), inner)
        arg_costs = []
        arg_nodes = []
        for arg in e.args:
            arg_costs.append(self.cost(arg))
            arg_nodes.append(self.node(arg))
        total = (0, 0)
        target = None
        if e.target is not None:
            total = self.cost(e.target)
            target = self.node(e.target)
        cost: Range | None = None
        result: Range | None = None
        for overload in self._overloads(e, target, arg_nodes):
            call_cost, call_size = self._function(e, overload, target, arg_nodes, arg_costs)
            cost = call_cost if cost is None else _union(cost, call_cost)
            if call_size is not None:
                result = call_size if result is None else _union(result, call_size)
            if overload in ("index_list", "index_map") and e.args:
                entry = self.entry(e.args[0])
                result = entry.val if entry is not None else None
                self.paths[e.id] = self.path(e.args[0]) + ["@items" if overload == "index_list" else "@values"]
            if result is None:
                result = self.size(e)
        self._set_size(e, result)
        return _add(total, cost or (0, 0))

    def _create_list(self, e: CreateList) -> Range:
        total = (0, 0)
        item: Range = (0 if not e.elements else MAX, 0)
        for element in e.elements:
            total = _add(total, self.cost(element))
            item = _union(item, self.size_or_unknown(element))
        self._set_entry(e, _Entry("list", (1, 1), item))
        return _add(total, _fixed(LIST_CREATE_BASE_COST))

    def _create_map(self, e: CreateMap) -> Range:
        total = (0, 0)
        keys: Range = (0 if not e.entries else MAX, 0)
        values: Range = keys
        for key, value in e.entries:
            total = _add(_add(total, self.cost(key)), self.cost(value))
            keys = _union(keys, self.size_or_unknown(key))
            values = _union(values, self.size_or_unknown(value))
        self._set_entry(e, _Entry("map", keys, values))
        return _add(total, _fixed(MAP_CREATE_BASE_COST))

    def _comprehension(self, e: Comprehension) -> Range:
        total = _add(self.cost(e.iter_range), self.cost(e.accu_init))
        self._push(e.accu_var, self.path(e.accu_init), self.size(e.accu_init), self.entry(e.accu_init))
        entry = self.entry(e.iter_range)
        container = entry.container if entry is not None else self.type_of(e.iter_range).kind
        base = self.path(e.iter_range)
        if e.iter_var2:
            self._push(e.iter_var, base + ["@indices" if container == "list" else "@keys"],
                       entry.key if entry is not None else None, None)  # fmt: skip
            self._push(e.iter_var2, base + ["@items" if container == "list" else "@values"],
                       entry.val if entry is not None else None, None)  # fmt: skip
        elif container == "list":
            self._push(e.iter_var, base + ["@items"], entry.val if entry is not None else None, None)
        else:
            self._push(e.iter_var, base + ["@keys"], entry.key if entry is not None else None, None)
        loop = self.cost(e.loop_condition)
        step = self.cost(e.loop_step)
        self._pop(e.iter_var)
        if e.iter_var2:
            self._pop(e.iter_var2)
        total = _add(total, self.cost(e.result))
        self._pop(e.accu_var)
        count = self.size_or_unknown(e.iter_range)
        total = _add(total, _mul(count, _add(step, loop)))
        if isinstance(e.accu_init, Literal):
            self._set_size(e, self.size(e.accu_init))
        elif isinstance(e.accu_init, (CreateList, CreateMap)):
            self._set_size(e, count)
            self._set_entry(e, self.entry(e.loop_step))
        return total

    def _push(self, name: str, path: list[str], size: Range | None, entry: _Entry | None) -> None:
        self.locals.setdefault(name, []).append(_Local(path, size, entry))

    def _pop(self, name: str) -> None:
        self.locals[name].pop()

    # overloads and functions

    def _overloads(self, e: Call, target: _Node | None, args: list[_Node]) -> list[str]:
        """The overloads of a call whose costs differ (the type check may leave several)."""
        name = e.function
        kinds = [a.type.kind for a in args]
        if name == "_[_]":
            return {"list": ["index_list"], "map": ["index_map"], "object": ["index_map"]}.get(
                kinds[0], ["index_list", "index_map"]
            )
        if name == "@in":
            return {"list": ["in_list"], "map": ["in_map"]}.get(kinds[1], ["in_list", "in_map"])
        if name == "_+_":
            known = next((k for k in kinds if k != "dyn"), "dyn")
            named = {"string": "add_string", "bytes": "add_bytes", "list": "add_list"}
            return [named.get(known, "add")] if known != "dyn" else ["add_string", "add_bytes", "add_list", "add"]
        if name in ("_<_", "_<=_", "_>_", "_>=_"):
            known = next((k for k in kinds if k != "dyn"), "dyn")
            if known in ("string", "bytes"):
                return [f"compare_{known}"]
            return ["compare"] if known != "dyn" else ["compare_string", "compare_bytes", "compare"]
        if name in ("_==_", "_!=_"):
            return ["equals" if name == "_==_" else "not_equals"]
        receiver = target.type.kind if target is not None else None
        if target is not None:
            if name in ("matches", "contains", "startsWith", "endsWith") and receiver in ("string", "dyn"):
                return [f"{name}_string"]
            if name == "format" and receiver in ("string", "dyn"):
                return ["string_format"]
            if name in ("slice", "distinct", "reverse") and receiver == "list":
                return [f"list_{name}"]
            if name == "flatten" and receiver == "list":
                return ["list_flatten_int" if args else "list_flatten"]
            if name == "sort" and receiver == "list":
                elem = target.type.elem.kind if target.type.elem is not None else "dyn"
                return [f"list_{elem}_sort"]
            if name == "ip" and receiver == "opaque":
                return ["cidr_ip"]
            if name in ("containsIP", "containsCIDR") and args:
                suffix = "string" if args[0].type.kind == "string" else "value"
                return [f"cidr_{name}_{suffix}"]
        elif name == "string" and kinds and kinds[0] in ("bytes", "dyn"):
            return ["bytes_to_string"] if kinds[0] == "bytes" else ["bytes_to_string", "string"]
        elif name == "bytes" and kinds and kinds[0] in ("string", "dyn"):
            return ["string_to_bytes"] if kinds[0] == "string" else ["string_to_bytes", "bytes"]
        elif name == "strings.quote":
            return ["strings_quote"]
        elif name == "lists.range":
            return ["lists_range"]
        elif name.startswith("sets."):
            return [f"list_sets_{name[5:]}_list"]
        return [name]

    def _function(self, e: Call, overload: str, target: _Node | None, args: list[_Node],
                  arg_costs: list[Range]) -> tuple[Range, Range | None]:  # fmt: skip
        arg_sum = (0, 0)
        for cost in arg_costs:
            arg_sum = _add(arg_sum, cost)
        for estimate in (_extension_cost, _kubernetes_cost):
            found = estimate(self, e, overload, target, args)
            if found is not None:
                return _add(found[0], arg_sum), found[1]
        return _celgo_cost(self, e, overload, target, args, arg_costs, arg_sum)

    def list_element(self, node: _Node) -> _Node | None:
        """cel-go's listElementNode: a list's (or map's) element, with its path when known."""
        t = node.type
        if t.kind == "list":
            elem = t.elem or DYN
        elif t.kind == "map":
            elem = t.key or DYN
        else:
            return None
        path = node.path + ["@items"] if node.path else []
        return _Node(node.expr, path, elem, self.size_of_path(path, elem))


def _literal_int(node: _Node, default: int) -> int:
    if isinstance(node.expr, Literal) and node.expr.kind == "int":
        return int(node.expr.value) & MAX
    return default


def _extension_cost(c: _Coster, e: Call, overload: str, target: _Node | None,
                    args: list[_Node]) -> tuple[Range, Range | None] | None:  # fmt: skip
    """cel-go's ext lists (version 3) and sets estimates, by overload."""
    call = (1, 1)
    if overload.startswith("list_sets_") and len(args) == 2:
        factor = 2.0 if overload == "list_sets_equivalent_list" else 1.0
        return _add(_factor(_mul(c.size_or_unknown(args[0]), c.size_or_unknown(args[1])), factor), call), None
    sized: Range | None = None
    factor = 1.0
    if overload == "list_slice" and target is not None and len(args) == 2:
        size = c.size_or_unknown(target)
        start, end = _literal_int(args[0], 0), _literal_int(args[1], size[1])
        sized = _fixed(max(end - start, 0))
    elif overload == "lists_range" and target is None and len(args) == 1:
        sized = _fixed(_literal_int(args[0], MAX))
    elif overload == "list_reverse" and target is not None and not args:
        sized = c.size_or_unknown(target)
    elif overload in ("list_flatten", "list_flatten_int") and target is not None and len(args) <= 1:
        factor = float(_literal_int(args[0], MAX)) if args else 1.0
        sized = c.size_or_unknown(target)
    elif overload == "list_distinct" and target is not None and not args:
        size = c.size_or_unknown(target)
        sized, factor = _mul(size, size), 2.0
    elif overload.endswith("_sort") and overload.startswith("list_") and target is not None and not args:
        size = c.size_or_unknown(target)
        sized = _mul(size, size)
        factor = 2.0 + (STRING_TRAVERSAL_COST_FACTOR if overload in ("list_string_sort", "list_bytes_sort") else 0.0)
    if sized is None:
        return None
    cost = _add(_add(_factor(sized, factor), call), _fixed(LIST_CREATE_BASE_COST))
    return cost, sized


def _kubernetes_cost(c: _Coster, e: Call, overload: str, target: _Node | None,
                     args: list[_Node]) -> tuple[Range, Range | None] | None:  # fmt: skip
    """The Kubernetes libraries' estimates (library.CostEstimator.EstimateCallCost), by function."""
    name = e.function
    traversal = STRING_TRAVERSAL_COST_FACTOR
    if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and target is not None:
        element = c.list_element(target)
        if element is not None:
            per_item: Range = (1, 1)
            if element.type.kind in ("string", "bytes"):
                per_item = _add(per_item, _factor(element.size if element.size is not None else c.unknown, traversal))
            return _mul(c.size_or_unknown(target), per_item), None
        return _factor(c.size_or_unknown(target), traversal), None
    if name == "url" and len(args) == 1:
        size = c.size_or_unknown(args[0])
        return _factor(size, traversal), size
    if name in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        size = c.size_or_unknown(target)
        return _factor(size, traversal), size
    if name == "replace" and target is not None and len(args) >= 2:
        return _replace_cost(c.size_or_unknown(target), c.size_or_unknown(args[0]), c.size_or_unknown(args[1]))
    if name == "split" and target is not None:
        size = c.size_or_unknown(target)
        most = _literal_int(args[1], size[1]) if len(args) > 1 else size[1]
        return _factor(size, 2 * traversal), (0, most)
    if name == "join" and target is not None:
        count = c.size_or_unknown(target)
        element = c.list_element(target)
        total: Range = (0, 0)
        if element is not None:
            total = _mul(count, element.size if element.size is not None else c.unknown)
        if args:
            separators = (max(count[0] - 1, 0), max(count[1] - 1, 0))
            total = _add(total, _mul(c.size_or_unknown(args[0]), separators))
        return _factor(total, traversal), total
    if name in ("find", "findAll") and target is not None and args:
        size = c.size_or_unknown(target)
        text = _factor(_add(size, (1, 1)), traversal)
        regex = _factor(c.size_or_unknown(args[0]), REGEX_STRING_LENGTH_COST_FACTOR)
        return _mul(text, regex), (0, size[1])
    if name in ("cidr", "isIP", "isCIDR") and args:
        return _factor(c.size_or_unknown(args[0]), traversal), None
    if name == "ip":
        if overload == "cidr_ip":
            return (1, 1), None
        if args:
            return _factor(c.size_or_unknown(args[0]), traversal), None
    if name == "ip.isCanonical" and args:
        return _factor(c.size_or_unknown(args[0]), 2 * traversal), None
    if name in ("masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                "isLinkLocalUnicast", "isGlobalUnicast"):  # fmt: skip
        return (1, 1), None
    if name in ("containsIP", "containsCIDR") and args:
        address = (4, 16)
        cost = _factor(_add(address, address), traversal)
        if name == "containsCIDR":
            cost = _add(_add(cost, _factor(address, traversal)), (1, 1))
        if overload.endswith("_string"):
            cost = _add(cost, _factor(c.size_or_unknown(args[0]), traversal))
        return cost, None
    if name in ("quantity", "isQuantity", "semver", "isSemver") and args:
        return _factor(c.size_or_unknown(args[0]), traversal), None
    if name == "validate" and args:
        return (
            _factor(
                _factor(c.size_or_unknown(args[0]), traversal),
                MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR,
            ),
            None,
        )
    if name in ("format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                "compareTo", "add", "sub", "major", "minor", "patch", "getScheme", "getHostname", "getHost", "getPort",
                "getEscapedPath", "getQuery"):  # fmt: skip
        return (1, 1), None
    if name == "_==_" and len(args) == 2 and args[0].type.same(args[1].type):
        t = args[0].type
        if t.kind == "opaque" and t.name in ("ip", "cidr", "quantity", "semver"):
            return (1, 1), None
        if t.kind == "opaque" and t.name == "format":
            return _factor((1, MAX_FORMAT_SIZE), traversal), None
        if t.kind == "opaque" and t.name == "url":
            size = args[1].size if args[1].size is not None else (1, 1)
            return _factor((1, size[1]), traversal), None
    return None


def _replace_cost(size: Range, old: Range, new: Range) -> tuple[Range, Range]:
    count_max, kept_max = 0, 0
    if old[0] == 0:
        count_max, kept_max = (size[1] + 1 if size[1] < MAX else size[1]), size[1]
    elif new[1] <= old[0]:
        count_max, kept_max = 0, size[1]
    else:
        count_max = math.ceil(size[1] / old[0])
    count_min, kept_min = 0, 0
    if old[1] == 0:
        count_min, kept_min = (size[0] + 1 if size[0] < MAX else size[0]), size[0]
    elif old[1] <= new[0]:
        count_min, kept_min = 0, size[0]
    else:
        count_min = math.ceil(size[0] / old[1])
    result = _add(_mul((count_min, min(count_max, MAX)), new), (kept_min, kept_max))
    return _factor(size, 2 * STRING_TRAVERSAL_COST_FACTOR), result


def _celgo_cost(c: _Coster, e: Call, overload: str, target: _Node | None, args: list[_Node],
                arg_costs: list[Range], arg_sum: Range) -> tuple[Range, Range | None]:  # fmt: skip
    """cel-go's own estimates (checker/cost.go functionCost), by overload."""
    traversal = STRING_TRAVERSAL_COST_FACTOR
    if overload == "string_format" and target is not None:
        return _add(_factor(c.size_or_unknown(target), traversal), arg_sum), None
    if overload == "string_to_bytes" and len(args) == 1:
        size = c.size_or_unknown(args[0])
        return _add(_factor(size, traversal), arg_sum), (size[0], min(size[1] * 4, MAX))
    if overload == "bytes_to_string" and len(args) == 1:
        size = c.size_or_unknown(args[0])
        return _add(_factor(size, traversal), arg_sum), (size[0] // 4, size[1])
    if overload == "strings_quote" and len(args) == 1:
        size = c.size_or_unknown(args[0])
        return _add(_factor(size, traversal), arg_sum), (min(size[0] + 2, MAX), min(size[1] * 2 + 2, MAX))
    if overload in ("startsWith_string", "endsWith_string") and len(args) == 1:
        return _add(_factor(c.size_or_unknown(args[0]), traversal), arg_sum), None
    if overload == "in_list" and len(args) == 2:
        return _add(c.size_or_unknown(args[1]), arg_sum), None
    if overload == "matches_string" and target is not None and len(args) == 1:
        text = _factor(_add(c.size_or_unknown(target), (1, 1)), traversal)
        regex = _factor(c.size_or_unknown(args[0]), REGEX_STRING_LENGTH_COST_FACTOR)
        return _add(_mul(text, regex), arg_sum), None
    if overload == "contains_string" and target is not None and len(args) == 1:
        text = _factor(c.size_or_unknown(target), traversal)
        part = _factor(c.size_or_unknown(args[0]), traversal)
        return _add(_mul(text, part), arg_sum), None
    if e.function in ("_&&_", "_||_"):
        return (arg_costs[0][0], _add(arg_costs[0], arg_costs[1])[1]), None
    if e.function == "_?_:_":
        size = _union(c.size_or_unknown(args[1]), c.size_or_unknown(args[2]))
        left, right = c.entry(args[1].expr), c.entry(args[2].expr)
        if left is not None and right is not None:
            c._set_entry(e, _Entry(left.container, _union(left.key, right.key), _union(left.val, right.val)))
        return _add(arg_costs[0], _union(arg_costs[1], arg_costs[2])), size
    if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
        size = _add(c.size_or_unknown(args[0]), c.size_or_unknown(args[1]))
        left, right = c.entry(args[0].expr), c.entry(args[1].expr)
        if left is not None and right is not None:
            c._set_entry(e, _Entry(left.container, _union(left.key, right.key), _union(left.val, right.val)))
        if overload == "add_list":
            return _add((1, 1), arg_sum), size
        return _add(_factor(size, traversal), arg_sum), size
    if overload in ("equals", "not_equals", "compare_string", "compare_bytes"):
        left_size, right_size = c.size_or_unknown(args[0]), c.size_or_unknown(args[1])
        smallest = min(left_size[1], right_size[1])
        return _add(_factor((1 if smallest > 0 else 0, smallest), traversal), arg_sum), None
    return _add((1, 1), arg_sum), None


# -- entry points ----------------------------------------------------------------------------------------


def _decl_path_size(roots: Mapping[str, Decl], default_root: Decl | None) -> SizeOfPath:
    """Sizes by path from the variables' declarations; a path from a variable `roots` lacks
    walks from `default_root` (the API server's sizeEstimator walks every path from `self`'s
    declaration, whatever variable it starts at), or has no size when that is None."""

    def size_of(path: list[str], _: CelType) -> Range | None:
        if not path:
            return None
        current: Decl | None = roots.get(path[0], default_root)
        for name in path[1:]:
            if current is None:
                return None
            if name in ("@items", "@values"):
                current = current.elem()
            elif name == "@keys":
                current = current.key()
            else:
                current = current.field(name)
        return None if current is None else (0, current.max_elements)

    return size_of


def estimate(expression: str | Expr, self_decl: Decl, old_self_optional: bool = False) -> Range:
    """The (min, max) cost cel-go estimates for an expression on `self` declared as
    `self_decl` (`oldSelf` alike, or an optional of it).

    Raises `celparse.CelSyntaxError` when the expression does not parse."""
    tree = celparse.parse(expression) if isinstance(expression, str) else expression
    self_type = self_decl.cel_type()
    types = expression_types(
        tree, {"self": self_type, "oldSelf": optional_of(self_type) if old_self_optional else self_type}
    )
    return _Coster(types, _decl_path_size({}, self_decl)).cost(tree)


class _ShapeCache:
    """Costs cached by the answers to the questions an estimate asked of the values (which
    fields exist, what kind each value is, the size class of each): values of a shape seen
    before cost what they cost then, without a new estimate."""

    MAX_SHAPES = 4
    MAX_ENTRIES = 1024

    def __init__(self) -> None:
        self._shapes: list[tuple[tuple[Any, ...], dict[tuple[Any, ...], int]]] = []
        """(the questions one estimate asked, {their answers: the cost}), per question list."""

    def _cached(
        self,
        answers_to: Callable[[tuple[Any, ...]], tuple[Any, ...]],
        estimate: Callable[[list[tuple[Any, Any]]], int],
        given: tuple[Any, ...] = (),
    ) -> int:
        """The cost `answers_to` the recorded questions finds, or else the `estimate`
        (which records its questions and their answers in the trace it is given), kept
        under `given` and those answers."""
        for questions, known in self._shapes:
            cost = known.get(answers_to(questions))
            if cost is not None:
                return cost
        trace: list[tuple[Any, Any]] = []
        cost = estimate(trace)
        questions = tuple(question for question, _ in trace)
        answers = given + tuple(answer for _, answer in trace)
        for asked, known in self._shapes:
            if asked == questions:
                break
        else:
            if len(self._shapes) >= self.MAX_SHAPES:
                self._shapes.pop(0)
            known = {}
            self._shapes.append((questions, known))
        if len(known) >= self.MAX_ENTRIES:
            known.clear()
        known[answers] = cost
        return cost


def _answers(
    questions: tuple[Any, ...], found: dict[tuple[Any, ...], list[Any]], bound: Callable[[], int], answers: list[Any]
) -> tuple[Any, ...]:
    """The answers the values (`found` by their roots) give to recorded questions, after
    `answers` (what `ValueDecl` would say); `bound` answers the question of the input's size."""
    append = answers.append
    for where, question in questions:
        if where == ("input",):
            append(bound())
            continue
        values = _values_at(found, where)
        if question == "max":
            append(size_class(largest_size(values)))
        elif question == "kind":
            append(kind_of(values))
        else:
            name = question[1]
            append(any(type(v) is dict and name in v for v in values))
    return tuple(answers)


class RuntimeCost(_ShapeCache):
    """The most cel-go could count evaluating one expression on given values: its estimate
    with the sizes the values have (`self` is the value, `oldSelf` the old one).

    What the expression computes without a size cel-go tracks (a conversion's result, an
    optional's value) is taken to be as large as its input can make it (`input_bound`).
    Estimates are cached by the answers to the questions the estimate asked of the values
    (which fields exist, what kind each value is, the size class of each), so a rule
    checked on many objects of one shape is estimated once per size class."""

    def __init__(self, tree: Expr, old_self_optional: bool = False):
        super().__init__()
        self.tree = tree
        self.old_self_optional = old_self_optional

    def __call__(self, value: Any, old: Any = None) -> int:
        found: dict[tuple[Any, ...], list[Any]] = {("self",): [value], ("oldSelf",): [old] if old is not None else []}
        return self._cached(
            lambda questions: _answers(questions, found, lambda: size_class(input_bound(value, old)), [old is None]),
            lambda trace: self._estimate(value, old, trace),
            (old is None,),
        )

    def _estimate(self, value: Any, old: Any, trace: list[tuple[Any, Any]]) -> int:
        roots = {"self": ValueDecl([value], ("self",), trace),
                 "oldSelf": ValueDecl([old] if old is not None else [], ("oldSelf",), trace)}  # fmt: skip
        self_type = roots["self"].cel_type()
        old_type = roots["oldSelf"].cel_type() if old is not None else self_type
        types = expression_types(
            self.tree, {"self": self_type, "oldSelf": optional_of(old_type) if self.old_self_optional else old_type}
        )

        def unknown() -> Range:
            bound = size_class(input_bound(value, old))
            trace.append(((("input",), "bound"), bound))
            return 0, bound

        return _Coster(types, _decl_path_size(roots, roots["self"]), unknown).cost(self.tree)[1]


class ActivationCost(_ShapeCache):
    """`RuntimeCost` of an expression over several named variables (an admission policy's
    `object`, `oldObject`, `params`, `request`, `namespaceObject`) rather than `self`:
    its estimate with the sizes the values have, cached by the answers the estimate asked
    of them. Names the expression reads but `names` leaves out (a policy's `variables`)
    have the sizes their inputs can make (`input_bound`)."""

    def __init__(self, tree: Expr, names: tuple[str, ...]):
        super().__init__()
        self.tree = tree
        self.names = names

    def __call__(self, values: Mapping[str, Any], bound: Callable[[], int] | None = None) -> int:
        """The most cel-go could count evaluating the expression on these values; `bound`
        gives their `input_bound` (a caller evaluating many expressions on the same values
        computes it once)."""
        if bound is None:
            bound = lambda: self._bound(values)  # noqa: E731 - the default measure
        measure = bound
        found: dict[tuple[Any, ...], list[Any]] = {(name,): [values.get(name)] for name in self.names}
        return self._cached(
            lambda questions: _answers(questions, found, measure, []),
            lambda trace: self._estimate(values, trace, measure),
        )

    def _bound(self, values: Mapping[str, Any]) -> int:
        return size_class(input_bound([values.get(name) for name in self.names]))

    def _estimate(self, values: Mapping[str, Any], trace: list[tuple[Any, Any]], bound: Callable[[], int]) -> int:
        roots = {name: ValueDecl([values.get(name)], (name,), trace) for name in self.names}
        types = expression_types(self.tree, {name: root.cel_type() for name, root in roots.items()})

        def unknown() -> Range:
            size = bound()
            trace.append(((("input",), "bound"), size))
            return 0, size

        return _Coster(types, _decl_path_size(roots, None), unknown).cost(self.tree)[1]


def _values_at(found: dict[tuple[Any, ...], list[Any]], where: tuple[Any, ...]) -> list[Any]:
    values = found.get(where)
    if values is None:
        above, step = _values_at(found, where[:-1]), where[-1]
        if step == "e":
            values = [x for v in above if type(v) in (list, dict) for x in (v if type(v) is list else v.values())]
        elif step == "k":
            values = [k for v in above if type(v) is dict for k in v]
        else:
            values = [v[step[1]] for v in above if type(v) is dict and step[1] in v]
        found[where] = values
    return values


def input_bound(value: Any, old: Any = None) -> int:
    """How large a value computed from these can be: four times their JSON, in characters."""
    import json

    try:
        size = len(json.dumps(value, default=str)) + len(json.dumps(old, default=str))
    except (TypeError, ValueError):
        size = MAX_REQUEST_SIZE_BYTES
    return 4 * size + 1024


def cost_error(name: str, cost: int, limit: int) -> str:
    """The API server's message for an estimated cost over its limit (getCostErrorMessage)."""
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return (
        f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding maxItems, maxProperties, "
        "and maxLength where arrays, maps, and strings are declared)"
    )
