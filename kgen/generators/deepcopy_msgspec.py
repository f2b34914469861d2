"""The deepcopy generator for the msgspec models: `deepcopy.py` per package.

One `deep_copy_<Type>(src)` per struct: a shallow copy made in C (`__copy__`), then every
mutable value replaced by its copy (containers rebuilt, nested structs copied by their own
functions, raw JSON by its holder); immutable values (str, int, bool, bytes, Quantity,
IntOrString, Time, Duration) are shared. Importing the module installs each function as
the class's `deep_copy()`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgen.generators.deepcopy import _function_ref, _is_shared
from kgen.generators.models import docstring, ordered_types
from kgen.generators.models_msgspec import StructsContext, field_plan, item_nullable
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import package_file, package_sources, underlying
from kgen.ir.model import Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, render_python

NAME = "deepcopy"


@dataclass(frozen=True)
class CopyView:
    name: str
    doc: str
    statements: list[str]
    """Statements that replace the mutable values of `copied` (a shallow copy of `src`)."""


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A deepcopy module for every generated package that has structs."""
    files = []
    for package in universe.generated_packages:
        structs = [t for t in ordered_types(universe, package) if t.kind == "struct"]
        if structs:
            files.append(_file(universe, package, structs))
    return files


def _file(universe: Universe, package: Package, structs: list[TypeDef]) -> GeneratedFile:
    context = StructsContext(universe, package, NAME)
    context.runtime("register_deep_copy")
    context.runtime("shallow_copy")
    copies = [_copy_view(context, package, t) for t in structs]
    return render_python(
        "models_msgspec/deepcopy.py.j2",
        package_file(package, "deepcopy.py"),
        NAME,
        package_sources(package),
        package=package,
        imports=context.import_lines(),
        copies=copies,
        docstring=docstring,
    )


def _copy_view(context: StructsContext, package: Package, typedef: TypeDef) -> CopyView:
    statements: list[str] = []
    for field in typedef.fields:
        name = field.python_name
        source = f"src.{name}"
        if _is_shared(context, field.type):
            continue  # immutable: the shallow copy shares it
        if field_plan(context, package, typedef, field).optional:
            # A name of its own per field: the type checker gives each one type.
            local = f"v_{name}"
            statements.append(f"if ({local} := {source}) is not None:")
            statements.append(f"    copied.{name} = {_copy(context, field.type, local, 0)}")
            continue
        expression = _copy(context, field.type, source, 0)
        base = underlying(context.universe, field.type)
        if base.kind in ("slice", "map"):  # most are empty: a new empty one is made far faster
            expression = f"{expression} if {source} else {'[]' if base.kind == 'slice' else '{}'}"
        statements.append(f"copied.{name} = {expression}")
    return CopyView(
        name=typedef.python_name,
        doc=f"A deep copy of a {typedef.name}: shares no mutable value with `src`.",
        statements=statements,
    )


def _copy(context: StructsContext, ref: TypeRef, var: str, depth: int) -> str:
    """An expression that deep-copies `var`, which is not None (items may be)."""
    if _is_shared(context, ref):
        return var
    base = underlying(context.universe, ref)
    if base.kind == "pointer":
        return _copy(context, base.elem, var, depth)
    if base.kind == "named":
        typedef = context.universe.resolve(base)
        if typedef.kind == "struct":
            if all(_is_shared(context, f.type) for f in typedef.fields):
                # Nothing in it to copy further: its copy is the shallow copy, without a
                # call of its own function around it.
                return f"{context.runtime('shallow_copy')}({var})"
            return f"{_function_ref(context, typedef)}({var})"
        return f"{context.runtime('copy_raw')}({var})"  # a mutable value type: raw JSON
    if base.kind in ("slice", "map"):
        item = f"item{depth}"
        element = _copy(context, base.elem, item, depth + 1)
        if element != item and item_nullable(context.universe, base.elem):
            element = f"None if {item} is None else {element}"
        if element == item:
            return f"{var}.copy()"
        if base.kind == "slice":
            call = re.fullmatch(rf"([\w.]+)\({item}\)", element)
            if call is not None:
                return f"list(map({call.group(1)}, {var}))"  # no per-item bytecode
            return f"[{element} for {item} in {var}]"
        key = f"key{depth}"
        return f"{{{key}: {element} for {key}, {item} in {var}.items()}}"
    return f"{context.runtime('copy_json')}({var})"
