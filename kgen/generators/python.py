"""What Python generators share: module paths, imports, and how TypeRefs read in Python.

`ModuleContext` is the per-file object generators print through: asking it for a name in
another module records the import, so nobody writes import blocks by hand, and the
imports come out sorted.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from kgen.ir.model import Field, Package, TypeDef, TypeRef, Universe
from kgen.render import python_string

BASIC_ANNOTATIONS = {
    "string": "str",
    "bool": "bool",
    "float32": "float",
    "float64": "float",
    "int": "_Int64",
    "int64": "_Int64",
    "int32": "_Int32",
    "int16": "_Int16",
    "int8": "_Int8",
    "uint": "_Uint64",
    "uint64": "_Uint64",
    "uintptr": "_Uint64",
    "uint32": "_Uint32",
    "uint16": "_Uint16",
    "uint8": "_Uint8",
    "bytes": "_GoBytes",
}
#: Width in bits and signedness of Go's integer types.
INT_BITS = {
    "int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True), "int": (64, True),
    "uint8": (8, False), "uint16": (16, False), "uint32": (32, False), "uint64": (64, False),
    "uint": (64, False), "uintptr": (64, False),
}  # fmt: skip
BASIC_ZERO = {"string": '""', "bool": "False", "float32": "0.0", "float64": "0.0", "bytes": "None"}


def py_string(text: str) -> str:
    """A double-quoted Python string literal meaning exactly `text`, as black writes it."""
    return python_string(text)


def package_sources(package: Package, *extra: str) -> tuple[str, ...]:
    """The sources a generated file names in its header: the package's files by import path."""
    names = [f.rsplit("/", 1)[-1] for f in package.files] + list(extra)
    return tuple(f"{package.import_path}/{name}".lstrip("/") for name in names)


def package_file(package: Package, filename: str) -> str:
    """The output path of one of a package's generated files."""
    return f"{package.output_dir}/{filename}" if package.output_dir else filename


def module_parts(package: Package) -> list[str]:
    return [p for p in package.python_package.split(".") if p]


@dataclass
class ModuleContext:
    """The Python module being generated: tracks imports for the names it refers to."""

    universe: Universe
    package: Package
    module: str  # "models", "deepcopy"
    imports: dict[tuple[str, str], str] = field(default_factory=dict)  # (from, name) -> alias
    runtime_names: set[str] = field(default_factory=set)
    RUNTIME_MODULE: ClassVar[str] = "kgen.runtime.model"
    """The module of the model backend that `runtime()` names come from."""
    MODELS: ClassVar[str] = "pydantic"
    """The model backend whose modules this context writes (`kgen.generators.backends`)."""
    RECORDS_PRESENCE: ClassVar[bool] = True
    """Models record which fields were set (pydantic's `model_fields_set`); structs do not."""

    def empty_when_omitted(self, field: Field) -> bool:
        """Whether the model holds the field, when omitted, as its empty value (`[]`, `{}`,
        `b""`) rather than None: Go writes a nil and an empty omitempty value alike."""
        return False

    def field_may_be_none(self, package: Package, typedef: TypeDef, field: Field) -> bool:
        """Whether the field's model may hold None."""
        return True

    def item_may_be_none(self, ref: TypeRef) -> bool:
        """Whether a list item or map value of this type may be None."""
        return True

    def unset_test(self, field: Field, target: str) -> str | None:
        """An expression true when the field `target` holds is unset, where the backend has
        its own (None: the generic test applies)."""
        return None

    """The model backend of the module (`--models`)."""

    def runtime(self, name: str) -> str:
        """A name from the model backend's runtime module, imported under a private alias."""
        self.runtime_names.add(name)
        return f"_{name}" if not name.startswith("_") else name

    def package_module(self, target: Package, module: str) -> str:
        """Refer to `module` ("models", "deepcopy") of another package; returns its alias."""
        if target.import_path == self.package.import_path:
            raise ValueError("a module does not import its own package")
        source = self.import_source(target)
        alias = self._alias(target, module, (source, module))
        self.imports[(source, module)] = alias
        return alias

    def package_name(self, target: Package, module: str, name: str) -> str:
        """Import one name from `module` of another package; returns its alias."""
        source = self.import_source(target)
        source = f"{source}{module}" if source.endswith(".") else f"{source}.{module}"
        alias = self._alias(target, name, (source, name))
        self.imports[(source, name)] = alias
        return alias

    def _alias(self, target: Package, name: str, key: tuple[str, str]) -> str:
        """A private alias for a name from another package: `_meta_v1_ObjectMeta`, longer
        (`_runtime_apimachinery_meta_v1_ObjectMeta`) when two packages of this module end
        in the same path segments (kgen's meta/v1 and a project's own meta/v1)."""
        if key in self.imports:
            return self.imports[key]
        taken = set(self.imports.values())
        parts = module_parts(target) or [target.go_name]
        for length in range(min(2, len(parts)), len(parts) + 1):
            alias = "_" + "_".join(parts[-length:]).replace(".", "_") + "_" + name
            if alias not in taken:
                return alias
        alias = "_" + "_".join(parts).replace(".", "_") + "_" + name
        while alias in taken:
            alias += "_"
        return alias

    def sibling(self, module: str) -> str:
        """Import a module of this same package (`from . import models`)."""
        alias = f"_{module}"
        self.imports[(".", module)] = alias
        return alias

    def stdlib(self, module: str, name: str) -> str:
        """Import a name of the standard library (`typing`, `collections.abc`) as `_Name`."""
        alias = f"_{name}"
        self.imports[(module, name)] = alias
        return alias

    def python_class(self, dotted: str) -> str:
        """Import a runtime class given as `module:Name`."""
        module, _, name = dotted.partition(":")
        alias = f"_{name}"
        self.imports[(module, name)] = alias
        return alias

    def import_source(self, target: Package) -> str:
        """What this module imports `target`'s modules from: relative between generated
        packages, absolute otherwise."""
        if not target.generate or not self.package.generate:
            return target.python_package
        here = module_parts(self.package)
        there = module_parts(target)
        common = 0
        while common < min(len(here), len(there)) and here[common] == there[common]:
            common += 1
        dots = "." * (len(here) - common + 1)
        return dots + ".".join(there[common:])

    def import_lines(self, stdlib: bool | None = None) -> list[str]:
        """`from X import Y as Z` lines, sorted: the standard library's, a blank line, then
        the others, absolute before relative. `stdlib` True or False gives one group only."""
        lines = []
        for (source, name), alias in self.imports.items():
            lines.append((source.startswith("."), source, name, f"from {source} import {name} as {alias}"))
        if self.runtime_names:
            for name in self.runtime_names:
                alias = f"_{name}" if not name.startswith("_") else name
                module = self.RUNTIME_MODULE
                lines.append((False, module, name, f"from {module} import {name} as {alias}"))
        ordered = sorted(lines)
        standard = [line for _, source, _, line in ordered if source.split(".")[0] in sys.stdlib_module_names]
        others = [line for _, source, _, line in ordered if source.split(".")[0] not in sys.stdlib_module_names]
        if stdlib is not None:
            return standard if stdlib else others
        return standard + [""] + others if standard and others else standard + others

    # -- names of types ---------------------------------------------------------------

    def class_ref(self, typedef: TypeDef) -> str:
        """How this module refers to a generated class or alias."""
        if typedef.kind == "python":
            return self.python_class(typedef.python_class)
        if typedef.package == self.package.import_path and self.module == "models":
            return typedef.python_name
        if typedef.package == self.package.import_path:
            return f"{self.sibling('models')}.{typedef.python_name}"
        target = self.universe.package(typedef.package)
        return f"{self.package_module(target, 'models')}.{typedef.python_name}"

    def annotation(self, ref: TypeRef) -> str:
        """The Python annotation of a field of this type (without `| None` for nil)."""
        if ref.kind == "basic":
            name = BASIC_ANNOTATIONS[ref.basic]
            return self.runtime(name[1:]) if name.startswith("_") else name
        if ref.kind == "named":
            typedef = self.universe.resolve(ref)
            base = enum_base(self.universe, typedef)
            if base is not None:
                # Open-ended: a field holds any string (or int), the enum class names the
                # known values. Type checkers see `str`; pydantic asks the enum for its schema.
                return f"{self.stdlib('typing', 'Annotated')}[{base}, {self.class_ref(typedef)}]"
            return self.class_ref(typedef)
        if ref.kind == "pointer":
            return self.annotation(ref.elem)
        if ref.kind == "slice":
            return f"list[{self.nullable_annotation(ref.elem)}]"
        if ref.kind == "map":
            return f"dict[str, {self.nullable_annotation(ref.elem)}]"
        return "_Any"

    def nullable_annotation(self, ref: TypeRef) -> str:
        base = self.annotation(ref)
        return f"{base} | None" if nullable(self.universe, ref) and base != "_Any" else base


HOOKS_MODULE = "_hooks_module"
"""The alias a generated module imports its package's hand-written hooks module under."""


def hooks_protocol(context: ModuleContext, hooks: list[tuple[str, str, str]]) -> list[str]:
    """Lines that type a generated module's calls of hand-written hooks: `_hooks` is the
    hooks module seen through `_Hooks`, a Protocol of the calls made (`(name, positional
    parameters, return type)` each), which the type checker holds the module to. A hook
    whose parameters cannot take these is a type error; an unannotated hook passes. Calls
    stay lookups on the module (`_hooks.name(...)`). No lines when no hook is called."""
    if not hooks:
        return []
    type_checking = context.stdlib("typing", "TYPE_CHECKING")
    protocol = context.stdlib("typing", "Protocol")
    lines = [f"if {type_checking}:", "", f"    class _Hooks({protocol}):"]
    lines += [f"        def {name}(self, {parameters}, /) -> {returns}: ..." for name, parameters, returns in hooks]
    return lines + ["", "", f"_hooks: _Hooks = {HOOKS_MODULE}"]


_T = TypeVar("_T")


class StructPlan:
    """Which struct types a generator has work for: work of their own (`own_needs`), or work
    in a value they hold (`field_needs`, which follows pointers, lists and maps into other
    structs). Subclasses say what counts; the walk, its memo and its cycles are here.

    The answer for a struct is found for everything it reaches at once, in time linear in
    the types and fields: each struct's own answer, asking `ref_needs` with the structs it
    meets recorded as edges (answered "no" for now), then "yes" spread backwards along the
    edges from the structs that have work. A ring of pointers through N types costs N."""

    def __init__(self, universe: Universe):
        self.universe = universe
        self._memo: dict[tuple[str, str], bool] = {}
        self._edges: dict[tuple[str, str], TypeDef] | None = None
        """While one struct's own answer is found: the structs its fields reach."""

    def struct_needs(self, typedef: TypeDef, visiting: frozenset = frozenset()) -> bool:
        key = (typedef.package, typedef.name)
        if self._edges is not None:
            self._edges[key] = typedef
            return False
        if key not in self._memo:
            self._solve(typedef)
        return self._memo[key]

    def _solve(self, start: TypeDef) -> None:
        local: dict[tuple[str, str], bool] = {}
        successors: dict[tuple[str, str], list[tuple[str, str]]] = {}
        pending = [start]
        while pending:
            typedef = pending.pop()
            key = (typedef.package, typedef.name)
            if key in local or key in self._memo:
                continue
            self._edges = {}
            try:
                local[key] = self.own_needs(typedef) or any(self.field_needs(f) for f in typedef.fields)
                reached = self._edges
            finally:
                self._edges = None
            successors[key] = list(reached)
            pending.extend(reached.values())
        predecessors: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for key, targets in successors.items():
            for target in targets:
                predecessors.setdefault(target, []).append(key)
        needing = [k for k, v in local.items() if v] + [k for k in predecessors if self._memo.get(k)]
        found = set(needing)
        while needing:
            for source in predecessors.get(needing.pop(), ()):
                if source not in found:
                    found.add(source)
                    needing.append(source)
        for key in local:
            self._memo[key] = key in found

    def own_needs(self, typedef: TypeDef) -> bool:
        raise NotImplementedError

    def field_needs(self, field: Field, visiting: frozenset = frozenset()) -> bool:
        return self.ref_needs(field.type, visiting)

    def ref_needs(self, ref: TypeRef, visiting: frozenset = frozenset()) -> bool:
        raise NotImplementedError


def structs_needing(package: Package, plan: StructPlan) -> list[TypeDef]:
    """The structs of a package a generator's plan (`plan.struct_needs`) has work for."""
    return [t for t in package.types if t.kind == "struct" and plan.struct_needs(t)]


def underlying(universe: Universe, ref: TypeRef) -> TypeRef:
    """Follow named non-struct types to what they are made of."""
    while ref.kind == "named":
        typedef = universe.resolve(ref)
        if typedef.kind != "named" or typedef.underlying is None:
            return ref
        ref = typedef.underlying
    return ref


_ENUM_INTS = frozenset(("int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"))


def enum_base(universe: Universe, typedef: TypeDef) -> str | None:
    """`str` or `int` for a named type generated as an open-ended enum (a string or integer
    type with constants), None for any other type."""
    if typedef.kind != "named" or not typedef.enum_values or typedef.underlying is None:
        return None
    base = underlying(universe, typedef.underlying)
    if base.kind != "basic":
        return None
    if base.basic == "string":
        return "str"
    return "int" if base.basic in _ENUM_INTS else None


def nullable(universe: Universe, ref: TypeRef) -> bool:
    """Whether Python represents this Go value with None for nil/zero."""
    base = underlying(universe, ref)
    if base.kind in ("pointer", "slice", "map", "any"):
        return True
    if base.kind == "basic":
        return base.basic == "bytes"
    return universe.resolve(base).kind == "python"


def zero_value(context: ModuleContext, ref: TypeRef) -> tuple[str, bool]:
    """Python source of the zero value, and whether it is a default_factory."""
    base = underlying(context.universe, ref)
    if base.kind == "basic":
        return BASIC_ZERO.get(base.basic, "0"), False
    if base.kind == "named":
        typedef = context.universe.resolve(base)
        if typedef.kind == "struct":
            return context.class_ref(typedef), True
    return "None", False
