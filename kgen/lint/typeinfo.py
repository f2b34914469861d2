"""Questions rules ask about a field's type, answered as kube-api-linter answers them from
the Go source: is it a string, a struct, a pointer, a list of objects; which markers it
carries with those of its named type; what its zero value is and whether the markers
accept it (whether an optional or required field must be a pointer)."""

from __future__ import annotations

import json

from kgen.lint.markers import MarkerSet
from kgen.lint.model import LintField, LintFile, LintStruct, LintType, World
from kgen.source.syntax import TypeExpr

INTEGERS = frozenset({"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"})
FLOATS = frozenset({"float32", "float64"})
MIN_ITEMS = "kubebuilder:validation:MinItems"
MIN_LENGTH = "kubebuilder:validation:MinLength"
MIN_PROPERTIES = "kubebuilder:validation:MinProperties"
MINIMUM = "kubebuilder:validation:Minimum"
MAXIMUM = "kubebuilder:validation:Maximum"
ENUM = "kubebuilder:validation:Enum"
TYPE = "kubebuilder:validation:Type"
REQUIRED_MARKERS = ("required", "kubebuilder:validation:Required", "k8s:required")
OPTIONAL_MARKERS = ("optional", "kubebuilder:validation:Optional", "k8s:optional")


class InvalidMarker(ValueError):
    """A marker whose value is not a number where one is needed; the rule reports it."""


def strip_pointer(expr: TypeExpr) -> tuple[bool, TypeExpr]:
    if expr.kind == "pointer" and expr.elem is not None:
        return True, expr.elem
    return False, expr


def is_required(lint_field: LintField) -> bool:
    return any(lint_field.markers.has(m) for m in REQUIRED_MARKERS)


def is_optional(lint_field: LintField) -> bool:
    return any(lint_field.markers.has(m) for m in OPTIONAL_MARKERS)


def with_type_markers(world: World, lint_field: LintField) -> MarkerSet:
    """The field's markers and, for a field of a named type of its package (or a pointer to
    one), the type's markers first."""
    expr = lint_field.type
    if expr.kind == "pointer":
        expr = expr.elem  # type: ignore[assignment]
    if expr is None or expr.kind != "ident" or world.is_basic(lint_field.file, expr):
        return lint_field.markers
    spec = world.local_type(lint_field.file, expr)
    if spec is None:
        return lint_field.markers
    return spec.markers.merged(lint_field.markers)


def is_struct_type(world: World, file: LintFile, expr: TypeExpr, depth: int = 0) -> bool:
    """A struct, a pointer to one, or a name of this package for one (not another package's type)."""
    _, expr = strip_pointer(expr)
    if expr.kind == "struct":
        return True
    if expr.kind == "ident" and depth < 32:
        spec = world.local_type(file, expr)
        return spec is not None and is_struct_type(world, spec.file, spec.decl.type, depth + 1)
    return False


def is_string_type(world: World, file: LintFile, expr: TypeExpr, depth: int = 0) -> bool:
    _, expr = strip_pointer(expr)
    if expr.kind != "ident":
        return False
    if expr.name == "string":
        return True
    spec = world.local_type(file, expr)
    return spec is not None and depth < 32 and is_string_type(world, spec.file, spec.decl.type, depth + 1)


def is_pointer_type(world: World, file: LintFile, expr: TypeExpr, depth: int = 0) -> bool:
    """A type that can be nil already: a pointer, slice or map (through names too)."""
    if expr.kind in ("pointer", "slice", "array", "map"):
        return True
    if expr.kind == "ident":
        spec = world.local_type(file, expr)
        if spec is not None:
            return depth < 32 and is_pointer_type(world, spec.file, spec.decl.type, depth + 1)
        return False
    if expr.kind == "qualified":
        return world.shape(file, expr).kind in ("pointer", "slice", "map")
    return False


def struct_of(world: World, file: LintFile, expr: TypeExpr, follow_pointer: bool = False) -> LintStruct | None:
    """The struct a type expression is (an anonymous one, or a name of this package for one)."""
    if follow_pointer:
        _, expr = strip_pointer(expr)
    for _ in range(32):
        if expr.kind == "struct":
            return file.package.structs_by_expr.get(id(expr))
        if expr.kind != "ident":
            return None
        spec = world.local_type(file, expr)
        if spec is None:
            return None
        file, expr = spec.file, spec.decl.type
    return None


def local_spec(world: World, lint_field: LintField) -> LintType | None:
    return world.local_type(lint_field.file, lint_field.type)


def is_array_type_or_alias(world: World, lint_field: LintField) -> bool:
    expr = lint_field.type
    if expr.kind in ("slice", "array"):
        return True
    return expr.kind == "ident" and world.shape(lint_field.file, expr).kind == "slice"


def is_byte_array(world: World, lint_field: LintField) -> bool:
    expr = lint_field.type
    if expr.kind in ("slice", "array"):
        return expr.elem is not None and expr.elem.kind == "ident" and expr.elem.name in ("byte", "uint8")
    if expr.kind == "ident":
        shape = world.shape(lint_field.file, expr)
        return shape.kind == "slice" and shape.elem_basic in ("byte", "uint8")
    return False


def _basic_underneath(world: World, file: LintFile, expr: TypeExpr) -> bool:
    return world.shape(file, expr).kind == "basic"


def is_object_list(world: World, lint_field: LintField) -> bool:
    """A list whose items are not of a basic type (objects, or lists)."""
    expr = lint_field.type
    if expr.kind in ("slice", "array"):
        return _is_object(world, lint_field.file, expr.elem)
    if expr.kind == "ident":
        file, current = lint_field.file, expr
        for _ in range(32):
            spec = world.local_type(file, current)
            if spec is None:
                return False
            file, current = spec.file, spec.decl.type
            if current.kind in ("slice", "array"):
                return current.elem is not None and not _basic_underneath(world, file, current.elem)
            if current.kind != "ident":
                return False
    return False


def _is_object(world: World, file: LintFile, expr: TypeExpr | None) -> bool:
    if expr is None:
        return False
    if expr.kind == "ident":
        return not _basic_underneath(world, file, expr)
    if expr.kind in ("pointer", "slice", "array"):
        return _is_object(world, file, expr.elem)
    return expr.kind == "qualified"


# -- marker values ---------------------------------------------------------------------------


def numeric_marker(markers: MarkerSet, identifier: str, integer: bool = False) -> float | int | None:
    """The number the first marker of that name carries (None when absent or without a
    value); InvalidMarker when its value is no number."""
    found = markers.get(identifier)
    if not found or found[0].payload == "":
        return None
    text = found[0].payload
    try:
        value = float(text)
    except ValueError:
        raise InvalidMarker(f'error getting marker value: error converting value to number: strconv.ParseFloat: parsing "{text}": invalid syntax') from None  # fmt: skip
    return int(value) if integer else value


def min_properties(markers: MarkerSet) -> int | None:
    try:
        value = numeric_marker(markers, MIN_PROPERTIES, integer=True)
    except InvalidMarker as err:
        raise InvalidMarker(f"invalid format for minimum properties marker: {err}") from None
    return int(value) if value is not None else None


def type_marker_value(world: World, lint_field: LintField) -> str:
    """The `+kubebuilder:validation:Type` the field (or its type) declares, unquoted."""
    for marker in with_type_markers(world, lint_field).get(TYPE):
        value = marker.payload.strip('"')
        if value:
            return value
    return ""


# -- zero values -----------------------------------------------------------------------------


class ZeroValues:
    """Whether a field's zero value passes its validation: (valid, complete), where complete
    means the markers decide it (adding one could not make the zero value invalid).

    Invalid numeric markers met on the way are kept in `problems` for the rule to report."""

    def __init__(self, world: World, consider_omitzero: bool):
        self.world = world
        self.consider_omitzero = consider_omitzero
        self.problems: list[tuple[LintField, str]] = []

    def of_field(self, lint_field: LintField) -> tuple[bool, bool]:
        return self.valid(lint_field, lint_field.type, lint_field.file)

    def valid(self, lint_field: LintField, expr: TypeExpr, file: LintFile, depth: int = 0) -> tuple[bool, bool]:
        if depth > 32:
            return False, False
        _, under = strip_pointer(expr)
        kind = under.kind
        if kind == "struct":
            return self._struct(lint_field, under, file, depth)
        if kind == "ident":
            return self._ident(lint_field, under, file, depth)
        if kind == "map":
            return self._map(lint_field)
        if kind in ("slice", "array"):
            elem = under.elem
            if elem is not None and elem.kind == "ident" and elem.name == "byte":
                return self._string(lint_field)
            return self._array(lint_field)
        if kind == "pointer":
            return self.valid(lint_field, under, file, depth + 1)
        if kind == "qualified":
            return self._external(lint_field, under, file)
        return False, False

    def _markers(self, lint_field: LintField) -> MarkerSet:
        return with_type_markers(self.world, lint_field)

    def _string(self, lint_field: LintField) -> tuple[bool, bool]:
        markers = self._markers(lint_field)
        if markers.has(ENUM):
            values = markers.get(ENUM)[0].payload.split(";")
            return '""' in values, True
        has_min = markers.has(MIN_LENGTH)
        return (not has_min or markers.has_value(f"{MIN_LENGTH}=0")), has_min

    def _map(self, lint_field: LintField) -> tuple[bool, bool]:
        markers = self._markers(lint_field)
        has_min = markers.has(MIN_PROPERTIES)
        return (not has_min or markers.has_value(f"{MIN_PROPERTIES}=0")), has_min

    def _array(self, lint_field: LintField) -> tuple[bool, bool]:
        try:
            minimum = numeric_marker(self._markers(lint_field), MIN_ITEMS, integer=True)
        except InvalidMarker:
            return False, False
        return (minimum is None or minimum == 0), minimum is not None

    def _array_from_markers(self, lint_field: LintField) -> tuple[bool, bool]:
        markers = self._markers(lint_field)
        has_min = markers.has(MIN_ITEMS)
        return (not has_min or markers.has_value(f"{MIN_ITEMS}=0")), has_min

    def _numeric(self, lint_field: LintField, integer: bool) -> tuple[bool, bool]:
        markers = self._markers(lint_field)
        bounds = []
        for identifier, word in ((MINIMUM, "minimum"), (MAXIMUM, "maximum")):
            try:
                bounds.append(numeric_marker(markers, identifier, integer))
            except InvalidMarker as err:
                self.problems.append(
                    (lint_field, f"field {lint_field.qualified_name} has an invalid {word} marker: {err}")
                )
                return False, False
        low, high = bounds
        valid = (low if low is not None else -1) <= 0 and (high if high is not None else 1) >= 0
        complete = (
            (low is not None and high is not None and low <= high)
            or (low is not None and low >= 0)
            or (high is not None and high <= 0)
        )
        return valid, complete

    def _basic(self, lint_field: LintField, name: str) -> tuple[bool, bool]:
        if name == "string":
            return self._string(lint_field)
        if name == "bool":
            return True, True
        if name in INTEGERS or name in ("byte", "rune"):
            return self._numeric(lint_field, integer=True)
        if name in FLOATS:
            return self._numeric(lint_field, integer=False)
        return False, False

    def _ident(self, lint_field: LintField, expr: TypeExpr, file: LintFile, depth: int) -> tuple[bool, bool]:
        name = expr.name
        if name == "string" or name in INTEGERS or name in FLOATS or name == "bool":
            return self._basic(lint_field, name)
        spec = self.world.local_type(file, expr)
        if spec is None:
            return False, False
        return self.valid(lint_field, spec.decl.type, spec.file, depth + 1)

    def _external(self, lint_field: LintField, expr: TypeExpr, file: LintFile) -> tuple[bool, bool]:
        shape = self.world.shape(file, expr)
        if shape.kind == "slice":
            return self._array_from_markers(lint_field)
        if shape.kind == "map":
            return self._map(lint_field)
        if shape.kind == "basic":
            return self._basic(lint_field, shape.basic)
        if shape.kind == "struct":
            try:
                minimum = min_properties(self._markers(lint_field))
            except InvalidMarker as err:
                self.problems.append(
                    (lint_field, f"struct {lint_field.name} has an invalid minProperties marker: {err}")
                )
                return False, False
            kept = sum(1 for _, tag, _ in shape.fields if not _omitted_by_tag(tag))
            return (minimum is None or minimum <= kept), (minimum is not None or kept > 0)
        return False, False

    def _struct(self, lint_field: LintField, expr: TypeExpr, file: LintFile, depth: int) -> tuple[bool, bool]:
        if type_marker_value(self.world, lint_field) == "string":
            return self._string(lint_field)
        struct = file.package.structs_by_expr.get(id(expr))
        if struct is None:
            return False, False
        valid, kept = self._struct_fields(struct, depth)
        try:
            minimum = min_properties(self._markers(lint_field))
        except InvalidMarker as err:
            self.problems.append((lint_field, f"struct {lint_field.name} has an invalid minProperties marker: {err}"))
            return False, False
        own = struct.markers
        if minimum is None and (
            own.has("kubebuilder:validation:ExactlyOneOf") or own.has("kubebuilder:validation:AtLeastOneOf")
        ):
            minimum = 1
        if not (minimum is None or minimum <= kept):
            valid = False
        return valid, (minimum is not None or kept > 0)

    def _struct_fields(self, struct: LintStruct, depth: int) -> tuple[bool, int]:
        valid = True
        kept = 0
        for member in struct.fields:
            required = is_required(member)
            tag = member.tag
            is_struct = is_struct_type(self.world, member.file, member.type)
            omitted_struct = is_struct and self.consider_omitzero and tag.omitzero
            if required:
                kept += 1
            elif not omitted_struct and not tag.omitempty:
                kept += 1
            value = not required
            if not omitted_struct and member.type.kind != "pointer" and not tag.omitempty:
                value = self.valid(member, member.type, member.file, depth + 1)[0]
            valid = valid and value
        return valid, kept


def _omitted_by_tag(tag: str | None) -> bool:
    if tag is None:
        return False
    if tag == "-":
        return True
    return any(part in ("omitempty", "omitzero", "inline") for part in tag.split(",")[1:])


def has_explicit_zero_minimum(world: World, lint_field: LintField, under: TypeExpr) -> bool:
    """`MinItems=0` on a list (or `MinProperties=0` on a map): a pointer then tells unset from empty."""
    markers = with_type_markers(world, lint_field)
    kind = under.kind
    if kind in ("ident", "qualified"):
        kind = {"slice": "slice", "map": "map"}.get(world.shape(lint_field.file, under).kind, "")
    if kind in ("slice", "array"):
        return markers.has_value(f"{MIN_ITEMS}=0")
    if kind == "map":
        return markers.has_value(f"{MIN_PROPERTIES}=0")
    return False


def zero_value_text(world: World, file: LintFile, expr: TypeExpr, depth: int = 0) -> str:
    """The zero value of a type, written as JSON the way kube-api-linter's messages write it."""
    if depth > 32:
        return ""
    kind = expr.kind
    if kind == "ident":
        if expr.name in INTEGERS:
            return "0"
        if expr.name == "string":
            return '""'
        if expr.name == "bool":
            return "false"
        if expr.name in FLOATS:
            return "0.0"
        spec = world.local_type(file, expr)
        return zero_value_text(world, spec.file, spec.decl.type, depth + 1) if spec is not None else ""
    if kind == "struct":
        struct = file.package.structs_by_expr.get(id(expr))
        if struct is None:
            return "{}"
        parts = [
            f"{json.dumps(f.tag.name)}: {zero_value_text(world, f.file, f.type, depth + 1)}"
            for f in struct.fields
            if not f.tag.omitempty
        ]
        return "{" + ", ".join(parts) + "}"
    if kind in ("slice", "array"):
        return "[]"
    if kind == "map":
        return "{}"
    if kind == "qualified":
        shape = world.shape(file, expr)
        if shape.kind == "slice":
            return "[]"
        if shape.kind == "map":
            return "{}"
        if shape.kind == "basic":
            return _basic_zero(shape.basic)
        if shape.kind == "struct":
            parts = [
                f"{json.dumps(_json_name(tag, name))}: {zero}"
                for name, tag, zero in shape.fields
                if not _omitted_by_tag(tag)
            ]
            return "{" + ", ".join(parts) + "}"
    return ""


def _json_name(tag: str | None, name: str) -> str:
    if not tag:
        return name
    return tag.split(",")[0] or name


def _basic_zero(name: str) -> str:
    if name == "string":
        return '""'
    if name == "bool":
        return "false"
    if name in INTEGERS or name in ("byte", "rune"):
        return "0"
    if name in FLOATS:
        return "0.0"
    return ""


def validation_hint(world: World, file: LintFile, expr: TypeExpr, depth: int = 0) -> str:
    """Which markers would complete a type's validation, in kube-api-linter's words."""
    if depth > 32:
        return ""
    kind = expr.kind
    if kind == "ident":
        if expr.name in INTEGERS or expr.name in FLOATS:
            return "minimum/maximum"
        if expr.name == "string":
            return "minimum length"
        if expr.name == "bool":
            return ""
        spec = world.local_type(file, expr)
        return validation_hint(world, spec.file, spec.decl.type, depth + 1) if spec is not None else ""
    if kind == "struct":
        return "min properties/adding required fields"
    if kind in ("slice", "array"):
        return "min items"
    if kind == "map":
        return "min properties"
    if kind == "qualified":
        shape = world.shape(file, expr)
        if shape.kind == "slice":
            return "min items"
        if shape.kind == "map":
            return "min properties"
        if shape.kind == "struct":
            return "min properties/adding required fields"
        if shape.kind == "basic":
            if shape.basic == "string":
                return "minimum length"
            if shape.basic in INTEGERS or shape.basic in FLOATS or shape.basic in ("byte", "rune"):
                return "minimum/maximum"
    return ""
