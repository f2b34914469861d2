"""Go constant expressions: their syntax, and their evaluation as the Go spec defines it.

A constant's expression is kept as written (`ConstExpr`) so that it can be evaluated once
every name it refers to is known: constants of other files of the package, and of other
packages (`v1.Update`). `evaluate` follows the spec's rules for untyped constants:
arbitrary-precision integers, integer division and remainder that truncate toward zero,
shifts, `&^`, string concatenation, comparisons and conversions (`T("v")`, `int64(5)`).
A value that is not a constant kgen can know is None.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

Value = str | int | float | bool


@dataclass(frozen=True, slots=True)
class ConstExpr:
    """A constant expression as written.

    kind: `value` (a literal, or iota already substituted), `ident`, `qualified`
    (`pkg.Name`), `unary` (op, one operand), `binary` (op, two operands), `convert`
    (`T(x)`: `name`, and `package` when qualified; one operand), `unknown`.
    """

    kind: str
    value: Value | None = None
    name: str = ""
    package: str = ""
    op: str = ""
    operands: tuple[ConstExpr, ...] = ()


UNKNOWN = ConstExpr("unknown")

Lookup = Callable[[ConstExpr], Value | None]
"""Resolves an `ident` or `qualified` expression to its constant's value (or None)."""

_INTEGER_TYPES = {
    "int": (-(1 << 63), (1 << 63) - 1), "int8": (-(1 << 7), (1 << 7) - 1), "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1), "rune": (-(1 << 31), (1 << 31) - 1),
    "uint": (0, (1 << 64) - 1), "uint8": (0, 255), "byte": (0, 255), "uint16": (0, (1 << 16) - 1),
    "uint32": (0, (1 << 32) - 1), "uint64": (0, (1 << 64) - 1), "uintptr": (0, (1 << 64) - 1),
}  # fmt: skip
_FLOAT_TYPES = {"float32", "float64"}

# The standard library constants API files use in constant expressions.
STANDARD_CONSTANTS: dict[tuple[str, str], Value] = {
    **{("math", f"MaxInt{n}"): (1 << (n - 1)) - 1 for n in (8, 16, 32, 64)},
    **{("math", f"MinInt{n}"): -(1 << (n - 1)) for n in (8, 16, 32, 64)},
    **{("math", f"MaxUint{n}"): (1 << n) - 1 for n in (8, 16, 32, 64)},
    ("math", "MaxInt"): (1 << 63) - 1,
    ("math", "MinInt"): -(1 << 63),
    ("math", "MaxUint"): (1 << 64) - 1,
    ("math", "MaxFloat64"): 1.79769313486231570814527423731704356798070e308,
    ("math", "MaxFloat32"): 3.40282346638528859811704183484516925440e38,
    ("time", "Nanosecond"): 1,
    ("time", "Microsecond"): 1_000,
    ("time", "Millisecond"): 1_000_000,
    ("time", "Second"): 1_000_000_000,
    ("time", "Minute"): 60_000_000_000,
    ("time", "Hour"): 3_600_000_000_000,
}


def evaluate(expr: ConstExpr, lookup: Lookup) -> Value | None:
    """The value of a constant expression; None when any part of it cannot be known."""
    kind = expr.kind
    if kind == "value":
        return expr.value
    if kind in ("ident", "qualified"):
        return lookup(expr)
    if kind == "unary":
        operand = evaluate(expr.operands[0], lookup)
        return _unary(expr.op, operand)
    if kind == "binary":
        left = evaluate(expr.operands[0], lookup)
        if left is None:
            return None
        right = evaluate(expr.operands[1], lookup)
        return _binary(expr.op, left, right)
    if kind == "convert":
        operand = evaluate(expr.operands[0], lookup)
        return _convert(expr.name if not expr.package else "", operand)
    return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _unary(op: str, operand: Value | None) -> Value | None:
    if op == "len":
        return len(operand.encode("utf-8")) if isinstance(operand, str) else None
    if op == "!" and isinstance(operand, bool):
        return not operand
    if not _is_number(operand):
        return None
    if op == "-":
        return -operand
    if op == "+":
        return operand
    if op == "^" and isinstance(operand, int):
        return ~operand  # untyped: -x-1, as the spec defines it for untyped constants
    return None


def _binary(op: str, left: Value, right: Value | None) -> Value | None:
    if right is None:
        return None
    if op in ("&&", "||") and isinstance(left, bool) and isinstance(right, bool):
        return (left and right) if op == "&&" else (left or right)
    if isinstance(left, str) and isinstance(right, str):
        if op == "+":
            return left + right
        return _compare(op, left, right)
    if not (_is_number(left) and _is_number(right)):
        if isinstance(left, bool) and isinstance(right, bool) and op in ("==", "!="):
            return (left == right) == (op == "==")
        return None
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return _compare(op, left, right)
    if isinstance(left, int) and isinstance(right, int):
        return _integer(op, left, right)
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        return None if right == 0 else left / right
    return None


def _integer(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%"):
        if b == 0:
            return None
        quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # truncated toward zero
        return quotient if op == "/" else a - b * quotient
    if op in ("<<", ">>"):
        if b < 0 or b > 10_000:
            return None  # Go rejects negative shifts; a huge one is not a constant an API type uses
        return a << b if op == "<<" else a >> b
    operation = _INTEGER_OPERATIONS.get(op)
    return operation(a, b) if operation else None


_INTEGER_OPERATIONS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "|": lambda a, b: a | b,
    "&": lambda a, b: a & b,
    "^": lambda a, b: a ^ b,
    "&^": lambda a, b: a & ~b,
}


def _compare(op: str, a, b) -> bool | None:
    results = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
    return results.get(op)


def _convert(type_name: str, value: Value | None) -> Value | None:
    """`T(x)`: a conversion to a predeclared type changes the value's kind; to a named type
    (whose underlying type kgen does not look at here) the value is kept."""
    if value is None:
        return None
    if type_name in _INTEGER_TYPES:
        if isinstance(value, float):
            if not value.is_integer():
                return None  # Go: constant truncated to integer is an error
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        low, high = _INTEGER_TYPES[type_name]
        return value if low <= value <= high else None
    if type_name in _FLOAT_TYPES:
        if not _is_number(value):
            return None
        result = float(value)
        return result if math.isfinite(result) else None
    if type_name == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return chr(value) if 0 <= value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else "\ufffd"
        return None
    if type_name == "bool":
        return value if isinstance(value, bool) else None
    return value
