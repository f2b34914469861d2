"""The deepcopy generator (counterpart of deepcopy-gen): `deepcopy.py` per package.

One `deep_copy_<Type>(src)` per struct: immutable values (str, int, bool, bytes, enums,
Quantity, IntOrString, Time, Duration) are shared, containers are rebuilt, nested
structs are copied by their own functions, and the result is constructed without
validation through the runtime interface (its `construct` snippet, inlined: a call per
copied object shows in the benchmark). Importing the module installs each function as
the class's `deep_copy()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgen.generators.models import docstring, ordered_types
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import ModuleContext, nullable, package_file, package_sources, py_string, underlying
from kgen.ir.model import Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, render_python
from kgen.runtime.model import INLINE_NAMES, SNIPPETS

NAME = "deepcopy"


@dataclass(frozen=True)
class CopyView:
    name: str
    doc: str
    statements: list[str]
    """Statements that replace the mutable values in `values` (a copy of the source's)."""
    construct: list[str]
    """Statements that build `copied` from `values` (inlined: a call per object shows)."""


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A deepcopy module for every generated package that has structs."""
    files = []
    for package in universe.generated_packages:
        structs = [t for t in ordered_types(universe, package) if t.kind == "struct"]
        if structs:
            files.append(_file(universe, package, structs))
    return files


def _file(universe: Universe, package: Package, structs: list[TypeDef]) -> GeneratedFile:
    context = ModuleContext(universe, package, NAME)
    for name in (*INLINE_NAMES, "register_deep_copy"):
        context.runtime(name)
    copies = [_copy_view(context, t) for t in structs]
    sources = package_sources(package)
    path = package_file(package, "deepcopy.py")
    return render_python(
        "deepcopy/deepcopy.py.j2",
        path,
        NAME,
        sources,
        package=package,
        imports=context.import_lines(),
        copies=copies,
        copy_values=SNIPPETS["copy_values"].format(obj="src"),
        docstring=docstring,
    )


def _copy_view(context: ModuleContext, typedef: TypeDef) -> CopyView:
    statements: list[str] = []
    for field in typedef.fields:
        expression = _copy(context, field.type, "value", 0)
        if expression == "value":
            continue  # immutable: the copied dict already shares it
        key = py_string(field.python_name)
        if expression.startswith(_GUARD):
            statements.append(f"if (value := values[{key}]) is not None:")
            statements.append(f"    values[{key}] = {expression[len(_GUARD):]}")
        else:
            statements.append(f"values[{key}] = {expression.replace('value', f'values[{key}]', 1)}")
    return CopyView(
        name=typedef.python_name,
        doc=f"A deep copy of a {typedef.name}: shares no mutable value with `src`.",
        statements=statements,
        construct=[
            *SNIPPETS["share_fields_set"].format(obj="src", fields_set="fields_set").splitlines(),
            *SNIPPETS["construct"]
            .format(obj="copied", cls=typedef.python_name, values="values", fields_set="fields_set")
            .splitlines(),
        ],
    )


_GUARD = "None if value is None else "


def _is_shared(context: ModuleContext, ref: TypeRef) -> bool:
    """Values that are immutable in Python and can be shared by the copy."""
    base = underlying(context.universe, ref)
    if base.kind == "basic":
        return True
    if base.kind == "pointer":
        return _is_shared(context, base.elem)
    if base.kind == "named":
        typedef = context.universe.resolve(base)
        return typedef.kind == "python" and not typedef.mutable
    return False


def _copy(context: ModuleContext, ref: TypeRef, var: str, depth: int) -> str:
    """An expression that deep-copies `var` (which may be None when the type is nullable)."""
    if _is_shared(context, ref):
        return var
    base = underlying(context.universe, ref)
    if base.kind == "pointer":
        inner = _copy(context, base.elem, var, depth)
        if inner == var or inner.startswith(f"None if {var} is None else "):
            return inner
        return f"None if {var} is None else {inner}"
    if base.kind == "named":
        typedef = context.universe.resolve(base)
        if typedef.kind == "struct":
            function = _function_ref(context, typedef)
            inner = f"{function}({var})"
        else:  # a mutable Python-implemented type
            inner = f"{var}.deep_copy()"
        return f"None if {var} is None else {inner}" if nullable(context.universe, ref) else inner
    if base.kind == "slice":
        item = f"item{depth}"
        element = _copy(context, base.elem, item, depth + 1)
        if element == item:
            inner = f"{var}.copy()"
        elif element == f"{_function_of(element)}({item})":
            inner = f"list(map({_function_of(element)}, {var}))"  # no per-item bytecode
        else:
            inner = f"[{element} for {item} in {var}]"
        return f"None if {var} is None else {inner}"
    if base.kind == "map":
        key, item = f"key{depth}", f"item{depth}"
        element = _copy(context, base.elem, item, depth + 1)
        inner = f"{var}.copy()" if element == item else f"{{{key}: {element} for {key}, {item} in {var}.items()}}"
        return f"None if {var} is None else {inner}"
    return f"{context.python_class('kgen.runtime.rawjson:copy_json')}({var})"


def _function_of(call: str) -> str:
    return call.split("(", 1)[0]


def _function_ref(context: ModuleContext, typedef: TypeDef) -> str:
    if typedef.package == context.package.import_path:
        return f"deep_copy_{typedef.python_name}"
    target = context.universe.package(typedef.package)
    return context.package_name(target, "deepcopy", f"deep_copy_{typedef.python_name}")
