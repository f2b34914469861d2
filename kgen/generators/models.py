"""The models generator: pydantic v2 models per package, JSON-identical to Go's encoding/json.

Per package it writes `models.py` (enums, aliases, model classes, each with a generated
`to_dict()` that applies omitempty/omitzero exactly as Go does) and `__init__.py`
(re-exports; imports the other per-package modules that register themselves).
"""

from __future__ import annotations

from dataclasses import dataclass

from kgen.generators.options import GeneratorOptions
from kgen.generators.python import (
    ModuleContext,
    enum_base,
    nullable,
    package_file,
    package_sources,
    py_string,
    underlying,
    zero_value,
)
from kgen.ir.model import Field, Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, docstring_text, render_python
from kgen.render.pystable import LINE_LENGTH

NAME = "models"
#: Generators whose per-package module registers itself on import: (module, whether a package has one).
REGISTERING_MODULES = {
    "deepcopy": ("deepcopy", lambda universe, package: any(t.kind == "struct" for t in package.types)),
    "defaulters": ("defaulters", lambda universe, package: _has_module("defaulters", universe, package)),
    "conversion": ("conversion", lambda universe, package: _has_module("conversion", universe, package)),
    "scheme": ("register", lambda universe, package: _has_module("scheme", universe, package)),
}


def _has_module(generator: str, universe: Universe, package: Package) -> bool:
    import importlib  # those generators import this module

    return importlib.import_module(f"kgen.generators.{generator}").has_module(universe, package)


@dataclass(frozen=True)
class FieldView:
    python_name: str
    annotation: str
    value: str
    """The right-hand side: the default, or a `_Field(...)` call."""
    doc: str


@dataclass(frozen=True)
class ClassView:
    name: str
    doc: str
    fields: list[FieldView]
    gvk: tuple[str, str, str] | None
    to_dict: list[str]


@dataclass(frozen=True)
class EnumView:
    name: str
    base: str
    doc: str
    values: list[tuple[str, str, str]]  # (python name, literal, doc)


@dataclass(frozen=True)
class AliasView:
    name: str
    target: str
    doc: str


def docstring(text: str, indent: int = 4, real: bool = True) -> str:
    """A triple-quoted string literal for doc text, laid out exactly as black lays it out.

    Continuation lines are dedented to their common indentation and indented to `indent`.
    For a real docstring (the first statement of a module, class or function), black puts
    the closing quotes on their own line when the last line would otherwise be too long.
    """
    text = docstring_text(text).strip()
    first, *rest = [line.rstrip() for line in text.split("\n")]
    margin = min((len(line) - len(line.lstrip()) for line in rest if line.strip()), default=0)
    pad = " " * indent
    lines = [first.strip()] + [pad + line[margin:] if line.strip() else "" for line in rest]
    if real and any("\t" in line[: len(line) - len(line.lstrip())] for line in lines[1:]):
        # black expands the tabs that indent a docstring's lines, then dedents the lines to
        # their common indentation (strings other than docstrings it leaves alone)
        expanded = [_expand_leading_tabs(line) for line in lines[1:]]
        common = min(len(line) - len(line.lstrip()) for line in expanded if line.strip())
        lines = lines[:1] + [pad + line[common:] if line.strip() else "" for line in expanded]
    if lines[-1].endswith('"'):
        lines[-1] += " "  # keep a quote in the text apart from the closing quotes
    closing = '"""'
    if real and len(lines) > 1 and len(lines[-1]) + 3 > LINE_LENGTH:
        closing = "\n" + pad + '"""'
    return '"""' + "\n".join(lines) + closing


def _expand_leading_tabs(line: str) -> str:
    stripped = line.lstrip()
    if not stripped or stripped == line or "\t" not in line[: len(line) - len(stripped)]:
        return line
    return line[: len(line) - len(stripped)].expandtabs() + stripped


def literal_tuple(items: list[str]) -> str:
    """A one-line tuple as black writes it (a trailing comma only for one element)."""
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """Models and package `__init__.py` for every generated package."""
    files: list[GeneratedFile] = []
    directories: set[str] = set()
    for package in universe.generated_packages:
        files.append(_models_file(universe, package))
        files.append(_init_file(universe, package, options))
        parts = package.output_dir.split("/") if package.output_dir else []
        for depth in range(len(parts)):
            directories.add("/".join(parts[:depth]))
    own = {p.output_dir for p in universe.generated_packages}
    for directory in sorted(directories - own):
        path = f"{directory}/__init__.py" if directory else "__init__.py"
        files.append(render_python("models/namespace_init.py.j2", path, NAME, (), directory=directory or "."))
    return files


def _models_file(universe: Universe, package: Package) -> GeneratedFile:
    context = ModuleContext(universe, package, "models")
    context.runtime("Model")
    context.runtime("finish_models")
    context.stdlib("typing", "Any")
    enums: list[EnumView] = []
    aliases: list[AliasView] = []
    classes: list[ClassView] = []
    order: list[tuple[str, str]] = []  # (kind, name) in definition order
    for typedef in ordered_types(universe, package):
        if typedef.kind == "python":
            continue
        if typedef.kind == "named":
            if enum_base(universe, typedef) is not None:
                enums.append(_enum(context, typedef, underlying(universe, typedef.underlying)))
                order.append(("enum", typedef.python_name))
            else:
                aliases.append(AliasView(typedef.python_name, _alias_target(context, typedef), typedef.doc))
                order.append(("alias", typedef.python_name))
        else:
            classes.append(_class(context, package, typedef))
            order.append(("class", typedef.python_name))
    by_name = {v.name: v for v in enums + aliases + classes}  # type: ignore[operator]
    definitions = [(kind, by_name[name]) for kind, name in order]
    return render_python(
        "models/models.py.j2",
        package_file(package, "models.py"),
        NAME,
        package_sources(package),
        package=package,
        doc=package.doc,
        stdlib_imports=context.import_lines(stdlib=True),
        imports=context.import_lines(stdlib=False),
        definitions=definitions,
        classes=classes,
        finish_order=finish_order(package, [c.name for c in classes]),
        exported=[name for _, name in order],
        uses_string_option=any(f.json_string for t in package.types for f in t.fields),
        docstring=docstring,
        literal_tuple=literal_tuple,
    )


def _alias_target(context: ModuleContext, typedef: TypeDef) -> str:
    """What an alias stands for; a type that refers back to itself (`type L []L`) is a
    recursive alias, which pydantic validates level by level as Go decodes it."""
    if typedef.recursive_underlying is None:
        return context.annotation(typedef.underlying)
    context.imports[("typing_extensions", "TypeAliasType")] = "_TypeAliasType"
    target = context.annotation(typedef.recursive_underlying)
    return f"_TypeAliasType({py_string(typedef.python_name)}, {py_string(target)})"


def _enum(context: ModuleContext, typedef: TypeDef, base: TypeRef) -> EnumView:
    is_string = base.basic == "string"
    values = [
        (v.python_name, repr(v.value) if not is_string else py_string(str(v.value)), v.doc) for v in typedef.enum_values
    ]
    return EnumView(
        name=typedef.python_name,
        base=context.runtime("StringEnum" if is_string else "IntEnum"),
        doc=typedef.doc or f"{typedef.name} values known to this client; any other value is accepted.",
        values=values,
    )


def field_default(context: ModuleContext, package: Package, typedef: TypeDef, field) -> tuple[str, bool]:
    """Python source of a field's default, and whether it is a default_factory: the zero
    value, or the group/version and kind for the `apiVersion`/`kind` of a kind."""
    # Built-in meta types (Status) are registered into every group; their senders set apiVersion.
    is_gvk = (typedef.is_kind or typedef.is_list) and not package.internal and not package.builtin and package.version
    if is_gvk and field.go_path[:1] == ("TypeMeta",) and field.json_name in ("apiVersion", "kind"):
        api_version = f"{package.group}/{package.version}" if package.group else package.version
        return py_string(api_version if field.json_name == "apiVersion" else typedef.name), False
    return zero_value(context, field.type)


def _class(context: ModuleContext, package: Package, typedef: TypeDef) -> ClassView:
    fields: list[FieldView] = []
    gvk = None
    if (typedef.is_kind or typedef.is_list) and not package.internal and not package.builtin and package.version:
        gvk = (package.group, package.version, typedef.name)
    for field in typedef.fields:
        annotation = context.annotation(field.type)
        is_nullable = nullable(context.universe, field.type)
        if is_nullable and annotation != "_Any":
            annotation += " | None"
        default, factory = field_default(context, package, typedef, field)
        if field.json_string:
            validator = context.runtime("unquote_string_option")
            annotation = f"{context.stdlib('typing', 'Annotated')}[{annotation}, _BeforeValidator({validator})]"
        arguments = [f"default_factory={default}" if factory else f"default={default}"]
        if field.json_name != field.python_name:
            # Not `alias=`: type checkers (PEP 681) take a field specifier's `alias` for the
            # `__init__` parameter, and models are built by their Python names.
            name = py_string(field.json_name)
            arguments += [f"validation_alias={name}", f"serialization_alias={name}"]
        value = default if len(arguments) == 1 and not factory else f"_Field({', '.join(arguments)})"
        fields.append(FieldView(field.python_name, annotation, value, field.doc))
    return ClassView(
        name=typedef.python_name,
        doc=typedef.doc or f"{typedef.name} is generated from {typedef.package}.{typedef.name}.",
        fields=fields,
        gvk=gvk,
        to_dict=_to_dict_lines(context, typedef),
    )


# -- to_dict: Go's encoding/json, field by field ------------------------------------------


def _to_dict_lines(context: ModuleContext, typedef: TypeDef) -> list[str]:
    lines = ["values = self.__dict__", "out: dict[str, _Any] = {}"]
    for field in typedef.fields:
        lines.append(f"value = values[{py_string(field.python_name)}]")
        condition = _emit_condition(context, field)
        # The emptiness tests all exclude None, so the value needs no second nil check.
        expression = _nullable_json(context, field.type, "value", 0, pointer=False, known_set=bool(condition))
        if field.json_string:
            expression = _string_option(context, field, expression)
        assignment = f"out[{py_string(field.json_name)}] = {expression}"
        if condition:
            lines.append(f"if {condition}:")
            lines.append("    " + assignment)
        else:
            lines.append(assignment)
    lines.append("return out")
    return lines


def _string_option(context: ModuleContext, field: Field, expression: str) -> str:
    base = underlying(context.universe, field.type)
    inner = underlying(context.universe, base.elem) if base.kind == "pointer" else base
    if inner.kind != "basic" or inner.basic == "bytes":
        return expression  # Go ignores ",string" for other kinds
    option = context.runtime("string_option")
    return f"None if value is None else {option}(value)" if base.kind == "pointer" else f"{option}(value)"


def _emit_condition(context: ModuleContext, field: Field) -> str:
    base = underlying(context.universe, field.type)
    conditions: list[str] = []
    if field.omitempty:
        if base.kind == "basic" or base.kind in ("slice", "map"):
            conditions.append("value")
        elif base.kind in ("pointer", "any"):
            conditions.append("value is not None")
        # structs (and Python-implemented struct types) are never empty for omitempty
    if field.omitzero:
        if base.kind == "basic":
            conditions.append("value is not None" if base.basic == "bytes" else "value")
        elif base.kind in ("pointer", "slice", "map", "any"):
            conditions.append("value is not None")
        else:
            typedef = context.universe.resolve(base)
            if typedef.kind == "python":
                conditions.append("value is not None and not value.is_zero()")
            else:
                conditions.append(f"not {context.runtime('is_zero')}(value)")
    unique = list(dict.fromkeys(conditions))
    return " and ".join(unique)


def _nullable_json(
    context: ModuleContext, ref: TypeRef, var: str, depth: int, pointer: bool, known_set: bool = False
) -> str:
    base = underlying(context.universe, ref)
    is_python = base.kind == "named" and context.universe.resolve(base).kind == "python"
    if is_python and not pointer and not known_set:
        zero = context.class_ref(context.universe.resolve(base))
        return f"{zero}.ZERO_JSON if {var} is None else {var}.to_json()"
    inner = _json(context, base, var, depth)
    if inner == var or known_set or not nullable(context.universe, base):
        return inner
    return f"None if {var} is None else {inner}"


def _json(context: ModuleContext, base: TypeRef, var: str, depth: int) -> str:
    if base.kind == "basic":
        if base.basic == "bytes":
            return f"{context.runtime('encode_bytes')}({var})"
        if base.basic in ("float32", "float64"):
            return f"{context.runtime('float_value')}({var})"
        return var
    if base.kind == "named":
        typedef = context.universe.resolve(base)
        return f"{var}.to_dict()" if typedef.kind == "struct" else f"{var}.to_json()"
    if base.kind == "pointer":
        return _json(context, underlying(context.universe, base.elem), var, depth)
    if base.kind == "slice":
        item = f"item{depth}"
        expression = _nullable_json(context, base.elem, item, depth + 1, pointer=False)
        return f"list({var})" if expression == item else f"[{expression} for {item} in {var}]"
    if base.kind == "map":
        key, item = f"key{depth}", f"item{depth}"
        expression = _nullable_json(context, base.elem, item, depth + 1, pointer=False)
        if expression == item:
            return f"dict(sorted({var}.items()))"
        return f"{{{key}: {expression} for {key}, {item} in sorted({var}.items())}}"
    return var


# -- ordering ------------------------------------------------------------------------------


def ordered_types(universe: Universe, package: Package) -> list[TypeDef]:
    """Types in source order, moved so that what a definition needs at import time
    (a struct's value-typed struct fields, an alias's target) is defined before it."""
    local = {t.name: t for t in package.types}
    done: set[str] = set()
    out: list[TypeDef] = []

    def needs(typedef: TypeDef) -> list[str]:
        refs: list[TypeRef] = []
        if typedef.kind == "struct":
            refs = [f.type for f in typedef.fields if f.type.kind == "named"]
        elif typedef.kind == "named" and typedef.underlying is not None:
            refs = _named_refs(typedef.underlying)
        return [r.name for r in refs if r.package == package.import_path and r.name in local]

    def visit(typedef: TypeDef, stack: set[str]) -> None:
        if typedef.name in done or typedef.name in stack:
            return
        for name in needs(typedef):
            visit(local[name], stack | {typedef.name})
        done.add(typedef.name)
        out.append(typedef)

    for typedef in package.types:
        visit(typedef, set())
    return out


def finish_order(package: Package, classes: list[str]) -> list[str]:
    """The classes in the order `finish_models` builds them: what a class holds (through
    pointers, lists, maps and aliases) before the class, so that pydantic finds each
    referenced class built and reuses it instead of building it again inside, which
    recurses once per level (a chain of 150 structs would exceed Python's stack)."""
    local = {t.name: t for t in package.types}
    by_python = {t.python_name: t for t in package.types}

    def held(typedef: TypeDef) -> list[str]:
        refs: list[TypeRef] = []
        if typedef.kind == "struct":
            for field in typedef.fields:
                refs.extend(_named_refs(field.type))
        elif typedef.kind == "named" and typedef.underlying is not None:
            refs = _named_refs(typedef.underlying)
        return [r.name for r in refs if r.package == package.import_path and r.name in local]

    wanted = set(classes)
    done: set[str] = set()
    out: list[str] = []
    for root in classes:
        stack = [(by_python[root].name, iter(held(by_python[root])))]
        seen = {by_python[root].name}
        while stack:
            name, pending = stack[-1]
            child = next((c for c in pending if c not in seen and c not in done), None)
            if child is not None:
                seen.add(child)
                stack.append((child, iter(held(local[child]))))
                continue
            stack.pop()
            if name not in done:
                done.add(name)
                if local[name].python_name in wanted:
                    out.append(local[name].python_name)
    return out


def _named_refs(ref: TypeRef) -> list[TypeRef]:
    if ref.kind == "named":
        return [ref]
    out: list[TypeRef] = []
    for child in (ref.elem, ref.key):
        if child is not None:
            out.extend(_named_refs(child))
    return out


def _init_file(universe: Universe, package: Package, options: GeneratorOptions) -> GeneratedFile:
    exported = [t.python_name for t in package.types if t.kind != "python"]
    registering = [
        module
        for generator, (module, has_module) in REGISTERING_MODULES.items()
        if generator in options.wired and has_module(universe, package)
    ]
    return render_python(
        "models/init.py.j2",
        package_file(package, "__init__.py"),
        NAME,
        package_sources(package),
        package=package,
        doc=package.doc,
        exported=exported,
        registering=registering,
        docstring=docstring,
    )
