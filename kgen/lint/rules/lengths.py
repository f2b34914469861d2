"""Rules about bounds: maxlength (strings have a MaxLength, lists a MaxItems: what keeps CEL
costs estimable and objects small) and minlength (strings, lists, maps and structs say
whether empty is valid)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kgen.lint.engine import Context
from kgen.lint.markers import MarkerSet
from kgen.lint.model import LintField, LintFile, LintType
from kgen.lint.typeinfo import is_required, min_properties, InvalidMarker
from kgen.source.syntax import TypeExpr

KB = "kubebuilder:validation:"
_UNBOUNDED_FORMATS = ("date", "date-time", "duration")


@dataclass(frozen=True)
class _Bounds:
    word: str
    """maximum or minimum"""
    length: str
    items_length: str
    items: str

    def needs_length(self, markers: MarkerSet) -> bool:
        return not (
            markers.has(self.length)
            or markers.has(KB + "Enum")
            or any(markers.has_value(f"{KB}Format:={f}") for f in _UNBOUNDED_FORMATS)
        )

    def needs_items_length(self, markers: MarkerSet) -> bool:
        return not (
            markers.has(self.items_length)
            or markers.has(KB + "items:Enum")
            or any(markers.has_value(f"{KB}items:Format:={f}") for f in _UNBOUNDED_FORMATS)
        )


MAX = _Bounds("maximum", KB + "MaxLength", KB + "items:MaxLength", KB + "MaxItems")
MIN = _Bounds("minimum", KB + "MinLength", KB + "items:MinLength", KB + "MinItems")


class _Walk:
    def __init__(self, ctx: Context, f: LintField, bounds: _Bounds, structs: bool):
        self.ctx, self.f, self.bounds, self.structs = ctx, f, bounds, structs

    def markers(self, aliases: list[LintType]) -> MarkerSet:
        found = MarkerSet.of(self.f.markers)
        for alias in aliases:
            found.add(alias.markers)
        return found

    def report(self, message: str) -> None:
        self.ctx.report_field(self.f, message)

    def expr(self, file: LintFile, expr: TypeExpr | None, aliases: list[LintType], prefix: str, marker: str,
             needs: Callable[[MarkerSet], bool]) -> None:  # fmt: skip
        if expr is None or len(aliases) > 16:
            return
        kind = expr.kind
        if kind == "ident":
            if self.ctx.world.is_basic(file, expr):
                self.string(expr.name, aliases, prefix, marker, needs)
                return
            spec = self.ctx.world.local_type(file, expr)
            if spec is not None and spec not in aliases:
                self.expr(spec.file, spec.decl.type, [*aliases, spec], f"{prefix} type {spec.name}", marker, needs)
        elif kind == "pointer":
            self.expr(file, expr.elem, aliases, prefix, marker, needs)
        elif kind in ("slice", "array"):
            self.array(file, expr, aliases, prefix)
        elif kind == "map" and self.structs:
            if not self.markers(aliases).has(KB + "MinProperties"):
                self.report(f"{prefix} must have a {self.bounds.word} properties, add {KB}MinProperties marker")
        elif kind == "struct" and self.structs:
            self.struct(file, expr, aliases, prefix)

    def string(self, name: str, aliases: list[LintType], prefix: str, marker: str,
               needs: Callable[[MarkerSet], bool]) -> None:  # fmt: skip
        if name == "string" and needs(self.markers(aliases)):
            self.report(f"{prefix} must have a {self.bounds.word} length, add {marker} marker")

    def array(self, file: LintFile, expr: TypeExpr, aliases: list[LintType], prefix: str) -> None:
        b = self.bounds
        elem = expr.elem
        if elem is not None and elem.kind == "ident":
            if elem.name == "byte":
                self.string("string", aliases, prefix, b.length, b.needs_length)
                return
            spec = self.ctx.world.local_type(file, elem)
            if spec is None:
                self.string(elem.name, aliases, f"{prefix} array element", b.items_length, b.needs_items_length)
            elif spec not in aliases:
                self.expr(spec.file, spec.decl.type, [*aliases, spec], f"{prefix} array element type {spec.name}",
                          b.length, lambda m: b.needs_length(m) and b.needs_items_length(m))  # fmt: skip
        if not self.markers(aliases).has(b.items):
            self.report(f"{prefix} must have a {b.word} items, add {b.items} marker")

    def struct(self, file: LintFile, expr: TypeExpr, aliases: list[LintType], prefix: str) -> None:
        markers = self.markers(aliases)
        try:
            if min_properties(markers) is not None:
                return
        except InvalidMarker as err:
            self.report(f"could not get min properties for struct: {err}")
            return
        if markers.has(KB + "ExactlyOneOf") or markers.has(KB + "AtLeastOneOf"):
            return
        struct = file.package.structs_by_expr.get(id(expr))
        if struct is not None and any(is_required(m) for m in struct.fields):
            return
        self.report(f"{prefix} must have either a required field or a minimum properties, add {KB}MinProperties marker")


def check_maxlength(ctx: Context) -> None:
    """Strings have a MaxLength (unless an enum or a date/duration format) and lists a MaxItems."""
    for f in ctx.fields():
        _Walk(ctx, f, MAX, structs=False).expr(
            f.file, f.type, [], f"field {f.qualified_name}", MAX.length, MAX.needs_length
        )


def check_minlength(ctx: Context) -> None:
    """Strings have a MinLength, lists MinItems, maps MinProperties, structs a required field or MinProperties."""
    for f in ctx.fields():
        _Walk(ctx, f, MIN, structs=True).expr(
            f.file, f.type, [], f"field {f.qualified_name}", MIN.length, MIN.needs_length
        )
