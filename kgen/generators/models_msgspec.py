"""The msgspec backend of the models generator (`models = "msgspec"`): `msgspec.Struct`
models per package, decoded and encoded in msgspec's C code, JSON-identical to Go's
encoding/json and to the pydantic models.

How each Go field becomes a struct field (see `kgen.runtime.structs` for why this gives
Go's bytes): a field Go omits when empty gets its zero value as default (omitted by
identity), or an empty `list`/`dict` factory for `omitempty` slices and maps (which are
then never None); a field Go always writes gets a default factory. A struct with a field
msgspec cannot write as Go does (floats, `omitzero` structs and value types, `interface{}`)
is not "native": it, and what holds it, is written by a generated `_kgen_to_dict`.

The package `__init__.py` and the namespace packages are the pydantic backend's, which
name no backend. Imports of kgen's well-known packages go to their struct models,
`kgen.runtime.apimachinery_structs`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

from kgen.diagnostics import Diagnostics, Position
from kgen.generators import models
from kgen.generators.models import (
    AliasView,
    FieldView,
    _alias_target,
    _emit_condition,
    _enum,
    _nullable_json,
    docstring,
    field_default,
    literal_tuple,
    ordered_types,
)
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import (
    ModuleContext,
    StructPlan,
    enum_base,
    nullable,
    package_file,
    package_sources,
    py_string,
    underlying,
    zero_value,
)
from kgen.ir.build import RUNTIME_PACKAGE as PYDANTIC_RUNTIME_PACKAGE
from kgen.ir.facts import per_universe
from kgen.ir.model import Field, Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, render_python

NAME = "models"
RUNTIME_PACKAGE = "kgen.runtime.apimachinery_structs"
"""Where kgen's well-known packages live as struct models (beside the pydantic ones)."""

#: The generators that work on msgspec models; the others are refused with their names.
AVAILABLE = (
    "models",
    "deepcopy",
    "scheme",
    "openapi",
    "crd",
    "validation",
    "defaulters",
    "strategies",
    "conversion",
    "protobuf",
    "client",
    "webhook",
)

_BASIC_FACTORIES = {"string": "str", "bool": "bool", "float32": "float", "float64": "float"}
_NEVER_ZERO = frozenset({"kgen.runtime.timeutil:Time", "kgen.runtime.timeutil:MicroTime"})
"""Value types whose zero value is None, never an object: `omitzero` omits exactly None."""


class StructsContext(ModuleContext):
    """A module of the msgspec backend: runtime names come from `kgen.runtime.structs`, kgen's
    well-known packages from their struct models, and list and map items of value types
    whose zero value Go writes (Quantity, IntOrString, Duration) are never None."""

    RUNTIME_MODULE: ClassVar[str] = "kgen.runtime.structs"
    MODELS: ClassVar[str] = "msgspec"
    RECORDS_PRESENCE: ClassVar[bool] = False

    def empty_when_omitted(self, field: Field) -> bool:
        return field.omitempty

    def field_may_be_none(self, package: Package, typedef: TypeDef, field: Field) -> bool:
        return field_plan(self, package, typedef, field).optional

    def item_may_be_none(self, ref: TypeRef) -> bool:
        return item_nullable(self.universe, ref)

    def unset_test(self, field: Field, target: str) -> str | None:
        # Structs hold an omitempty slice, map or []byte that is nil as an empty one, and a
        # value type whose zero Go writes (Quantity, IntOrString) as its zero object, not None.
        if field.type.kind == "pointer":
            return None
        base = underlying(self.universe, field.type)
        if field.omitempty and (base.kind in ("slice", "map") or (base.kind == "basic" and base.basic == "bytes")):
            return f"not {target}"
        if base.kind == "named" and (typedef := self.universe.resolve(base)).kind == "python":
            if python_zero(typedef) is not None:
                return f"{target} == {self.class_ref(typedef)}()"
        return None

    def import_source(self, target: Package) -> str:
        source = super().import_source(target)
        prefix = PYDANTIC_RUNTIME_PACKAGE
        if not target.generate and (source == prefix or source.startswith(prefix + ".")):
            return RUNTIME_PACKAGE + source[len(prefix) :]
        return source

    def nullable_annotation(self, ref: TypeRef) -> str:
        base = self.annotation(ref)
        return f"{base} | None" if item_nullable(self.universe, ref) and base != "_Any" else base


def python_zero(typedef: TypeDef) -> Any:
    """The JSON Go writes for the zero value of a runtime value type (`ZERO_JSON`): None when
    its zero value is `null` (a time, raw JSON), or when kgen cannot import the class."""
    module, _, name = (typedef.python_class or "").partition(":")
    try:
        return getattr(importlib.import_module(module), name).ZERO_JSON
    except (ImportError, AttributeError, ValueError):
        return None


def item_nullable(universe: Universe, ref: TypeRef) -> bool:
    """Whether a list or map item of this type may be None."""
    base = underlying(universe, ref)
    if base.kind == "named" and universe.resolve(base).kind == "python":
        return python_zero(universe.resolve(base)) is None
    return nullable(universe, ref)


# -- fields ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldPlan:
    annotation: str
    default: str
    """Python source of the default value, or of the default factory when `factory`."""
    factory: bool
    optional: bool
    """Whether the field may hold None."""


def field_native(universe: Universe, field: Field) -> bool:
    """Whether msgspec writes this field as Go does (the struct types it holds aside)."""
    if field.json_string:
        return False
    return _ref_native(universe, field.type, top=True, omitzero=field.omitzero)


def _ref_native(universe: Universe, ref: TypeRef, top: bool = False, omitzero: bool = False) -> bool:
    base = underlying(universe, ref)
    if base.kind == "any":
        return False  # Python data of any shape: written as the pydantic models write it
    if base.kind == "basic":
        return base.basic not in ("float32", "float64")  # Go's float text is its own
    if base.kind == "named":
        typedef = universe.resolve(base)
        if typedef.kind == "python":
            return not (top and omitzero) or typedef.python_class in _NEVER_ZERO
        return not (top and omitzero and typedef.kind == "struct")
    return _ref_native(universe, base.elem) if base.elem is not None else True


def field_plan(context: StructsContext, package: Package, typedef: TypeDef, field: Field) -> FieldPlan:
    """The annotation and default of a struct field (see the module docstring)."""
    universe = context.universe
    base = underlying(universe, field.type)
    annotation = context.annotation(field.type)
    omitted_when_zero = field.omitempty or field.omitzero
    if base.kind in ("pointer", "any"):
        if annotation != "_Any":
            annotation += " | None"
        return _nil(annotation, omitted_when_zero, context)
    if base.kind in ("slice", "map") or (base.kind == "basic" and base.basic == "bytes"):
        if field.omitempty:  # nil and empty alike are omitted: always empty, never None
            if base.kind == "basic":
                return FieldPlan(annotation, 'b""', False, False)
            return FieldPlan(annotation, "list" if base.kind == "slice" else "dict", True, False)
        return _nil(annotation + " | None", field.omitzero, context)
    if base.kind == "basic":
        zero, _ = zero_value(context, field.type)
        default, _ = field_default(context, package, typedef, field)
        if default != zero:  # a kind's apiVersion and kind: written whenever not empty
            return FieldPlan(annotation, f"{context.runtime('constant')}({default})", True, False)
        if omitted_when_zero:
            return FieldPlan(annotation, zero, False, False)
        return FieldPlan(annotation, _BASIC_FACTORIES.get(base.basic or "", "int"), True, False)
    target = universe.resolve(base)
    if target.kind == "struct":
        return FieldPlan(annotation, context.class_ref(target), True, False)
    if python_zero(target) is None:
        return _nil(annotation + " | None", field.omitzero, context)
    factory = f"{context.runtime('zero_factory')}({context.class_ref(target)})"
    return FieldPlan(annotation, factory, True, False)


def _nil(annotation: str, omitted: bool, context: StructsContext) -> FieldPlan:
    """A field whose zero value is None: omitted by identity, or always written (`NONE`)."""
    if omitted:
        return FieldPlan(annotation, "None", False, True)
    return FieldPlan(annotation, context.runtime("NONE"), True, True)


def field_source(context: StructsContext, plan: FieldPlan, field: Field) -> str:
    """The right-hand side of a field declaration."""
    arguments = [f"default_factory={plan.default}" if plan.factory else f"default={plan.default}"]
    if field.json_name != field.python_name:
        arguments.append(f"name={py_string(field.json_name)}")
    if len(arguments) == 1 and not plan.factory:
        return plan.default
    return f"{context.runtime('field')}({', '.join(arguments)})"


# -- which structs msgspec writes, and which hold kinds ----------------------------------------


class _NotNative(StructPlan):
    """Structs that are not native: a field of their own, or a struct they hold, is not."""

    def own_needs(self, typedef: TypeDef) -> bool:
        return not all(field_native(self.universe, f) for f in typedef.fields)

    def ref_needs(self, ref: TypeRef, visiting: frozenset = frozenset()) -> bool:
        base = underlying(self.universe, ref)
        if base.kind == "named":
            typedef = self.universe.resolve(base)
            return typedef.kind == "struct" and self.struct_needs(typedef, visiting)
        return base.elem is not None and self.ref_needs(base.elem, visiting)


class _HoldsKinds(_NotNative):
    """Structs that are kinds whose apiVersion or kind Go omits when empty, or hold one."""

    def own_needs(self, typedef: TypeDef) -> bool:
        return bool(gvk_fields(self.universe, typedef))


@per_universe
def _not_native(universe: Universe) -> _NotNative:
    return _NotNative(universe)


@per_universe
def _holds_kinds(universe: Universe) -> _HoldsKinds:
    return _HoldsKinds(universe)


def is_native(universe: Universe, typedef: TypeDef) -> bool:
    """Whether msgspec writes every value of this struct as Go does."""
    return not _not_native(universe).struct_needs(typedef)


def gvk_fields(universe: Universe, typedef: TypeDef) -> list[Field]:
    """The omitempty apiVersion and kind of a kind, whose defaults are not empty."""
    package = universe.package(typedef.package)
    context = StructsContext(universe, package, NAME)
    return [
        f
        for f in typedef.fields
        if f.omitempty
        and f.type.kind == "basic"
        and field_default(context, package, typedef, f)[0] != zero_value(context, f.type)[0]
    ]


def _exact_lines(universe: Universe, typedef: TypeDef) -> list[str]:
    """The body of `__kgen_exact__`: False when a kind here (or held here) has an empty
    apiVersion or kind, which its default factory would write but Go omits."""
    plan = _holds_kinds(universe)
    lines = [f"if not self.{f.python_name}:\n    return False" for f in gvk_fields(universe, typedef)]
    for f in typedef.fields:
        if plan.field_needs(f):
            lines.append(_exact_check(universe, f.type, f"self.{f.python_name}", 0))
    lines.append("return True")
    return "\n".join(lines).split("\n")


def _exact_check(universe: Universe, ref: TypeRef, var: str, depth: int) -> str:
    base = underlying(universe, ref)
    if base.kind == "named":
        return f"if not {var}.__kgen_exact__():\n    return False"
    item = f"item{depth}"
    inner = _exact_check(universe, base.elem, item, depth + 1) if base.elem is not None else "pass"
    inner = "\n".join("    " + line for line in inner.split("\n"))
    if base.kind == "pointer":
        return f"if ({item} := {var}) is not None:\n{inner}"
    loop = f"for {item} in {var} or ()" if base.kind == "slice" else f"for {item} in ({var} or {{}}).values()"
    if base.elem is not None and item_nullable(universe, base.elem):
        inner = f"    if {item} is not None:\n" + "\n".join("    " + line for line in inner.split("\n"))
    return f"{loop}:\n{inner}"


def _to_dict_lines(context: StructsContext, typedef: TypeDef) -> list[str]:
    """The body of `_kgen_to_dict`: Go's encoding/json, field by field, as the pydantic
    models' `to_dict` does it."""
    lines = ["value: _Any", "out: dict[str, _Any] = {}"]
    for field in typedef.fields:
        lines.append(f"value = self.{field.python_name}")
        condition = _emit_condition(context, field)
        expression = _nullable_json(context, field.type, "value", 0, pointer=False, known_set=bool(condition))
        assignment = f"out[{py_string(field.json_name)}] = {expression}"
        if condition:
            lines += [f"if {condition}:", "    " + assignment]
        else:
            lines.append(assignment)
    lines.append("return out")
    return lines


# -- the modules ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassView:
    name: str
    doc: str
    fields: list[FieldView]
    gvk: tuple[str, str, str] | None
    native: bool
    exact: list[str]
    """The body of `__kgen_exact__`, or nothing when the base class's (True) holds."""
    to_dict: list[str]
    """The body of `_kgen_to_dict`, or nothing when msgspec writes every value."""


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """Struct models and package `__init__.py` for every generated package."""
    files: list[GeneratedFile] = []
    directories: set[str] = set()
    for package in universe.generated_packages:
        files.append(_models_file(universe, package))
        files.append(models._init_file(universe, package, options))
        parts = package.output_dir.split("/") if package.output_dir else []
        for depth in range(len(parts)):
            directories.add("/".join(parts[:depth]))
    own = {p.output_dir for p in universe.generated_packages}
    for directory in sorted(directories - own):
        path = f"{directory}/__init__.py" if directory else "__init__.py"
        files.append(render_python("models/namespace_init.py.j2", path, NAME, (), directory=directory or "."))
    return files


def _models_file(universe: Universe, package: Package) -> GeneratedFile:
    context = StructsContext(universe, package, "models")
    context.runtime("Struct")
    context.stdlib("typing", "Any")
    definitions: list[tuple[str, Any]] = []
    for typedef in ordered_types(universe, package):
        if typedef.kind == "python":
            continue
        if typedef.kind == "named":
            if enum_base(universe, typedef) is not None:
                definitions.append(("enum", _enum(context, typedef, underlying(universe, typedef.underlying))))
            else:
                definitions.append(
                    ("alias", AliasView(typedef.python_name, _alias_target(context, typedef), typedef.doc))
                )
        else:
            definitions.append(("class", _class(context, package, typedef)))
    return render_python(
        "models_msgspec/models.py.j2",
        package_file(package, "models.py"),
        NAME,
        package_sources(package),
        package=package,
        doc=package.doc,
        stdlib_imports=context.import_lines(stdlib=True),
        imports=context.import_lines(stdlib=False),
        definitions=definitions,
        exported=[item.name for _, item in definitions],
        docstring=docstring,
        literal_tuple=literal_tuple,
    )


def _class(context: StructsContext, package: Package, typedef: TypeDef) -> ClassView:
    universe = context.universe
    fields = []
    for field in typedef.fields:
        plan = field_plan(context, package, typedef, field)
        fields.append(FieldView(field.python_name, plan.annotation, field_source(context, plan, field), field.doc))
    gvk = None
    if (typedef.is_kind or typedef.is_list) and not package.internal and not package.builtin and package.version:
        gvk = (package.group, package.version, typedef.name)
    native = is_native(universe, typedef)
    exact = _exact_lines(universe, typedef) if native and _holds_kinds(universe).struct_needs(typedef) else []
    return ClassView(
        name=typedef.python_name,
        doc=typedef.doc or f"{typedef.name} is generated from {typedef.package}.{typedef.name}.",
        fields=fields,
        gvk=gvk,
        native=native,
        exact=exact,
        to_dict=_to_dict_lines(context, typedef) if exact or not native else [],
    )


# -- checks -----------------------------------------------------------------------------------


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """What the msgspec backend cannot generate yet, as errors at the field."""
    for package in universe.generated_packages:
        for typedef in package.types:
            if typedef.recursive_underlying is not None:
                diagnostics.error(
                    Position.parse(typedef.position),
                    f"{typedef.name} refers to itself (a recursive named type), which the msgspec models do not "
                    'support yet; generate pydantic models (models = "pydantic") for this API',
                )
            for field in typedef.fields:
                if field.json_string:
                    position = Position.parse(field.position or typedef.position)
                    diagnostics.error(
                        position,
                        f"{typedef.name}.{field.go_name} has the `,string` JSON option, which the msgspec models do "
                        'not support yet; generate pydantic models (models = "pydantic") for this API',
                    )


__all__ = ["AVAILABLE", "NAME", "RUNTIME_PACKAGE", "StructsContext", "check", "field_plan", "generate", "item_nullable"]
