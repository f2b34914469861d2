"""Rules about the Go types fields and named types use: integers, nobools, nofloats,
nodurations, nomaps.

Each walks a field's type (and each type declaration's) down through pointers, list items,
map keys and values and the named types of its package, naming the way it went in the
message (`field Foo.Bar array element pointer type Baz should not use a bool...`), as
kube-api-linter's type checker does.
"""

from __future__ import annotations

from collections.abc import Callable

from kgen.lint.engine import Context
from kgen.lint.model import LintFile, World
from kgen.source.syntax import TypeExpr

Matcher = Callable[[World, LintFile, TypeExpr], bool]
Check = Callable[[Context, LintFile, TypeExpr, str], str | None]
"""(ctx, file, the type found, the path to it) -> the message, or None."""


def _walk(ctx: Context, matches: Matcher, check: Check) -> None:
    for f in ctx.fields():
        for message in _check_expr(ctx, f.file, f.type, f"field {f.dotted_name}", matches, check, set()):
            ctx.report_field(f, message)
    for t in ctx.types():
        for message in _check_expr(ctx, t.file, t.decl.type, f"type {t.name}", matches, check, set()):
            ctx.report_type(t, message)


def _check_expr(ctx: Context, file: LintFile, expr: TypeExpr | None, prefix: str, matches: Matcher, check: Check,
                seen: set[int]) -> list[str]:  # fmt: skip
    if expr is None:
        return []
    if matches(ctx.world, file, expr):
        message = check(ctx, file, expr, prefix)
        return [message] if message else []
    kind = expr.kind
    if kind == "ident":
        spec = ctx.world.local_type(file, expr)
        if spec is None or id(spec.decl) in seen:
            return []
        return _check_expr(
            ctx, spec.file, spec.decl.type, f"{prefix} type {spec.name}", matches, check, seen | {id(spec.decl)}
        )
    if kind == "pointer":
        return _check_expr(ctx, file, expr.elem, f"{prefix} pointer", matches, check, seen)
    if kind in ("slice", "array"):
        return _check_expr(ctx, file, expr.elem, f"{prefix} array element", matches, check, seen)
    if kind == "map":
        return _check_expr(ctx, file, expr.key, f"{prefix} map key", matches, check, seen) + _check_expr(
            ctx, file, expr.elem, f"{prefix} map value", matches, check, seen
        )
    return []


def _is_basic(world: World, file: LintFile, expr: TypeExpr) -> bool:
    return world.is_basic(file, expr)


# -- integers ------------------------------------------------------------------------------


def check_integers(ctx: Context) -> None:
    """Only int32 and int64: no int, int8, int16 and no unsigned integers."""

    def check(ctx: Context, file: LintFile, expr: TypeExpr, prefix: str) -> str | None:
        if expr.name in ("int", "int8", "int16"):
            return (
                f"{prefix} should not use an int, int8 or int16. Use int32 or int64 depending on bounding requirements"
            )
        if expr.name in ("uint", "uint8", "uint16", "uint32", "uint64"):
            return (f"{prefix} should not use unsigned integers, use only int32 or int64 and apply validation to "
                    "ensure the value is positive")  # fmt: skip
        return None

    _walk(ctx, _is_basic, check)


# -- nobools / nofloats ----------------------------------------------------------------------


def check_nobools(ctx: Context) -> None:
    """No bool: a string enum with meaningful values can grow a third state."""

    def check(ctx: Context, file: LintFile, expr: TypeExpr, prefix: str) -> str | None:
        if expr.name == "bool":
            return f"{prefix} should not use a bool. Use a string type with meaningful constant values as an enum."
        return None

    _walk(ctx, _is_basic, check)


def check_nofloats(ctx: Context) -> None:
    """No float32/float64: floats do not round-trip reliably between languages."""

    def check(ctx: Context, file: LintFile, expr: TypeExpr, prefix: str) -> str | None:
        if expr.name in ("float32", "float64"):
            return f"{prefix} should not use a float value because they cannot be reliably round-tripped."
        return None

    _walk(ctx, _is_basic, check)


# -- nodurations -----------------------------------------------------------------------------


def _is_duration(world: World, file: LintFile, expr: TypeExpr) -> bool:
    return expr.kind == "qualified" and expr.package in ("time", "metav1") and expr.name == "Duration"


def check_nodurations(ctx: Context) -> None:
    """No time.Duration or metav1.Duration: an integer with the unit in its name (`timeoutSeconds`)."""

    def check(ctx: Context, file: LintFile, expr: TypeExpr, prefix: str) -> str | None:
        return (f"{prefix} should not use a Duration. Use an integer type with units in the name to avoid the need "
                "for clients to implement Go style duration parsing.")  # fmt: skip

    _walk(ctx, _is_duration, check)


# -- nomaps --------------------------------------------------------------------------------

NOMAPS_POLICIES = ("Enforce", "AllowStringToStringMaps", "Ignore")


def _is_map(world: World, file: LintFile, expr: TypeExpr) -> bool:
    return expr.kind == "map"


def _string_like(world: World, file: LintFile, expr: TypeExpr | None, depth: int = 0) -> bool:
    if expr is None or depth > 32:
        return False
    if expr.kind == "pointer":
        expr = expr.elem
        if expr is None:
            return False
    if expr.kind != "ident":
        return False
    if expr.name == "string":
        return True
    spec = world.local_type(file, expr)
    return spec is not None and _string_like(world, spec.file, spec.decl.type, depth + 1)


def check_nomaps(ctx: Context) -> None:
    """Maps only of strings to strings (labels, annotations); else a list of named objects."""
    policy = ctx.options["policy"]

    def check(ctx: Context, file: LintFile, expr: TypeExpr, prefix: str) -> str | None:
        world = ctx.world
        if (
            policy == "AllowStringToStringMaps"
            and _string_like(world, file, expr.key)
            and _string_like(world, file, expr.elem)
        ):
            return None
        if policy == "Ignore" and world.is_basic(file, expr.key) and world.is_basic(file, expr.elem):  # type: ignore[arg-type]
            return None
        return f"{prefix} should not use a map type, use a list type with a unique name/identifier instead"

    _walk(ctx, _is_map, check)
