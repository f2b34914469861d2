"""The defaulters generator (counterpart of defaulter-gen): `defaulters.py` per package.

For every struct with something to default, `default_<Type>(obj)` applies, in
defaulter-gen's order: the base hook `set_defaults_<Type>(obj)` from the package's
`defaults.py`, the additional hooks `set_defaults_<Type>_<suffix>(obj)` (by suffix), then
field by field: the field's `+default` when the field is unset (nil, or the zero value
for non-pointers), then the defaulting of what the field holds (nested structs,
pointers, slice items, map values). Kinds and lists get `set_object_defaults_<Kind>`,
listed in `DEFAULTERS` for the Scheme. Types with nothing to default get no function.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from kgen.diagnostics import Diagnostics, Position
from kgen.generators.backends import module_context
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import (
    HOOKS_MODULE,
    INT_BITS,
    ModuleContext,
    StructPlan,
    hooks_protocol,
    package_file,
    package_sources,
    py_string,
    structs_needing,
    underlying,
)
from kgen.hooks import check_arity
from kgen.ir.facts import per_universe
from kgen.ir.model import Field, Hook, Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, render_python
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity, QuantityError
from kgen.runtime.timeutil import parse_go_duration, parse_rfc3339

NAME = "defaulters"
HOOK_PREFIX = "set_defaults_"


@dataclass(frozen=True)
class DefaulterView:
    name: str
    doc: str
    statements: list[str]


def hooks_by_type(package: Package) -> dict[str, tuple[Hook | None, list[Hook]]]:
    """Base and additional defaulting hooks per type name of a package."""
    names = sorted((t.python_name for t in package.types), key=len, reverse=True)
    found: dict[str, tuple[Hook | None, list[Hook]]] = {}
    for hook in package.hooks:
        if hook.module != "defaults" or not hook.name.startswith(HOOK_PREFIX):
            continue
        rest = hook.name[len(HOOK_PREFIX) :]
        for name in names:
            if rest == name or rest.startswith(name + "_"):
                base, extra = found.get(name, (None, []))
                if rest == name:
                    base = hook
                else:
                    extra = sorted([*extra, hook], key=lambda h: h.name)
                found[name] = (base, extra)
                break
    return found


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Hook signatures and default values must fit before anything is generated."""
    for package in universe.generated_packages:
        matched = {h.name for base, extra in hooks_by_type(package).values() for h in ([base] if base else []) + extra}
        for hook in package.hooks:
            if hook.module != "defaults" or not hook.name.startswith(HOOK_PREFIX):
                continue
            if hook.name not in matched:
                diagnostics.warning(
                    Position.parse(hook.position),
                    f"{hook.name} matches no type of package {package.import_path}, so it is never called; "
                    f"defaulting hooks are named set_defaults_<Type> or set_defaults_<Type>_<suffix>",
                )
                continue
            check_arity(hook, 1, f"{hook.name}(obj)", diagnostics)
        for typedef in package.types:
            for field in typedef.fields:
                if field.default is None:
                    continue
                problem = default_problem(universe, field.type, field.default)
                if problem:
                    diagnostics.error(
                        Position.parse(field.position),
                        f"default {json.dumps(field.default)} for field {typedef.name}.{field.go_name} ({field.type}) {problem}",
                    )


def default_problem(universe: Universe, ref: TypeRef, value) -> str | None:
    """Why a JSON default does not fit a type, or None."""
    base = underlying(universe, ref)
    if base.kind == "pointer":
        return default_problem(universe, base.elem, value)
    if base.kind == "any":
        return None
    if base.kind == "basic":
        return _basic_problem(base.basic, value)
    if base.kind == "slice":
        if not isinstance(value, list):
            return "must be a JSON array"
        return next((p for p in (default_problem(universe, base.elem, v) for v in value) if p), None)
    if base.kind == "map":
        if not isinstance(value, dict):
            return "must be a JSON object"
        return next((p for p in (default_problem(universe, base.elem, v) for v in value.values()) if p), None)
    typedef = universe.resolve(base)
    if typedef.kind == "python":
        return _python_problem(typedef.python_class or "", value)
    if not isinstance(value, dict):
        return "must be a JSON object"
    by_json = {f.json_name: f for f in typedef.fields}
    for key, item in value.items():
        if key not in by_json:
            return f"has no field {key!r} (fields: {', '.join(by_json)})"
        problem = default_problem(universe, by_json[key].type, item)
        if problem:
            return f"field {key!r} {problem}"
    return None


def _basic_problem(basic: str, value) -> str | None:
    if basic == "string":
        return None if isinstance(value, str) else "must be a JSON string"
    if basic == "bool":
        return None if isinstance(value, bool) else "must be true or false"
    if basic in ("float32", "float64"):
        return None if type(value) in (int, float) else "must be a number"
    if basic == "bytes":
        try:
            base64.b64decode(value, validate=True)
            return None
        except (binascii.Error, TypeError, ValueError):
            return "must be a base64 string"
    if type(value) is not int:
        return "must be an integer"
    bits, signed = INT_BITS[basic]
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    return None if low <= value <= high else f"is out of range for {basic} ({low} to {high})"


def _python_problem(python_class: str, value) -> str | None:
    name = python_class.rsplit(":", 1)[-1]
    try:
        if name == "Quantity":
            Quantity(value)
        elif name == "IntOrString":
            IntOrString(value)
        elif name in ("Time", "MicroTime"):
            parse_rfc3339(value)
        elif name == "Duration":
            parse_go_duration(value)
    except (QuantityError, ValueError, TypeError, AttributeError) as err:
        return f"is not a valid {name}: {err}"
    return None


# -- generation ---------------------------------------------------------------------


class _Plan(StructPlan):
    """Which struct types have something to default, across all generated packages."""

    def __init__(self, universe: Universe):
        super().__init__(universe)
        self.hooks = {p.import_path: hooks_by_type(p) for p in universe.generated_packages}

    def struct_needs(self, typedef: TypeDef, visiting: frozenset = frozenset()) -> bool:
        return self.universe.package(typedef.package).generate and super().struct_needs(typedef, visiting)

    def own_needs(self, typedef: TypeDef) -> bool:
        return bool(self.hooks.get(typedef.package, {}).get(typedef.python_name)) or any(
            f.default is not None for f in typedef.fields
        )

    def ref_needs(self, ref: TypeRef, visiting: frozenset = frozenset()) -> bool:
        base = underlying(self.universe, ref)
        if base.kind in ("pointer", "slice", "map"):
            return self.ref_needs(base.elem, visiting)
        if base.kind != "named":
            return False
        typedef = self.universe.resolve(base)
        return typedef.kind == "struct" and self.struct_needs(typedef, visiting)


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A defaulters module for every package with something to default."""
    plan = _plan_for(universe)
    packages = universe.generated_packages
    return [
        _file(universe, p, structs, plan, options.models) for p in packages if (structs := structs_needing(p, plan))
    ]


_plan_for = per_universe(_Plan)
"""One plan per universe: `has_module` is asked once for every package."""


def has_module(universe: Universe, package: Package) -> bool:
    return bool(structs_needing(package, _plan_for(universe)))


def _file(universe: Universe, package: Package, structs: list[TypeDef], plan: _Plan, models: str) -> GeneratedFile:
    context = module_context(universe, package, NAME, models)
    hooks = plan.hooks.get(package.import_path, {})
    hooks_alias = None
    if hooks and package.hooks_module:
        hooks_alias = "_hooks"
        context.imports[(package.hooks_module, "defaults")] = HOOKS_MODULE
    views = [_view(context, t, hooks.get(t.python_name), hooks_alias, plan) for t in structs]
    callable_ = context.stdlib("collections.abc", "Callable")
    any_ = context.stdlib("typing", "Any")
    called = []
    if hooks_alias:
        for typedef in structs:
            base, extra = hooks.get(typedef.python_name) or (None, [])
            for hook in ([base] if base else []) + extra:
                called.append((hook.name, f"obj: {typedef.python_name}", "object"))
    protocol = hooks_protocol(context, called)
    roots = [t.python_name for t in structs if t.is_kind or t.is_list]
    sources = package_sources(package, *(["defaults.py"] if hooks_alias else []))
    path = package_file(package, "defaulters.py")
    return render_python(
        "defaulters/defaulters.py.j2",
        path,
        NAME,
        sources,
        package=package,
        imports=context.import_lines(),
        classes=sorted(t.python_name for t in structs),
        defaulters=views,
        roots=roots,
        hooks_protocol=protocol,
        callable=callable_,
        any=any_,
        docstring=docstring,
    )


def _view(context: ModuleContext, typedef: TypeDef, hooks, hooks_alias: str | None, plan: _Plan) -> DefaulterView:
    statements: list[str] = []
    if hooks:
        base, extra = hooks
        for hook in ([base] if base else []) + extra:
            statements.append(f"{hooks_alias}.{hook.name}(obj)")
    for field in typedef.fields:
        target = f"obj.{field.python_name}"
        if field.default is not None:
            statements.append(f"if {_unset_test(context, field, target)}:")
            statements.append(f"    {target} = {_default_expression(context, field)}")
        statements.extend(_walk(context, field.type, target, plan, 0))
    return DefaulterView(
        name=typedef.python_name,
        doc=f"Apply the defaults of a {typedef.name} and of everything it holds, in place.",
        statements=statements,
    )


def _unset_test(context: ModuleContext, field: Field, target: str) -> str:
    if field.type.kind == "pointer":
        return f"{target} is None"
    base = underlying(context.universe, field.type)
    own = context.unset_test(field, target)
    if own is not None:
        return own
    if base.kind == "basic":
        if base.basic == "bytes":
            return f"{target} is None"
        if base.basic == "string":
            return f'{target} == ""'
        if base.basic == "bool":
            return f"{target} is False"
        return f"{target} == 0"
    if base.kind == "named" and context.universe.resolve(base).kind == "struct":
        return f"{context.runtime('is_zero')}({target})"
    return f"{target} is None"


def _default_expression(context: ModuleContext, field: Field) -> str:
    base = underlying(context.universe, field.type.elem if field.type.kind == "pointer" else field.type)
    if base.kind == "basic" and base.basic != "bytes":
        return py_literal(field.default)
    annotation = context.annotation(field.type)
    return f"{context.runtime('decode_value')}({annotation}, {py_literal(field.default)})"


def _walk(context: ModuleContext, ref: TypeRef, target: str, plan: _Plan, depth: int) -> list[str]:
    """Statements that default what `target` holds (nothing when nothing in it needs it)."""
    if not plan.ref_needs(ref):
        return []
    base = underlying(context.universe, ref)
    if base.kind == "named":
        return [f"{_function_ref(context, context.universe.resolve(base))}({target})"]
    value = f"value{depth}"
    if base.kind == "pointer":
        inner = _walk(context, base.elem, value, plan, depth + 1)
        return [f"if ({value} := {target}) is not None:"] + ["    " + line for line in inner]
    item = f"item{depth}"
    items = f"{value}.values()" if base.kind == "map" else value
    inner = _walk(context, base.elem, item, plan, depth + 1)
    return [f"if ({value} := {target}) is not None:", f"    for {item} in {items}:"] + [
        "        " + line for line in inner
    ]


def _function_ref(context: ModuleContext, typedef: TypeDef) -> str:
    if typedef.package == context.package.import_path:
        return f"default_{typedef.python_name}"
    target = context.universe.package(typedef.package)
    return context.package_name(target, "defaulters", f"default_{typedef.python_name}")


def py_literal(value) -> str:
    """A JSON value as a Python literal, in black's style."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if value is None:
        return "None"
    if isinstance(value, str):
        return py_string(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    return "{" + ", ".join(f"{py_string(k)}: {py_literal(v)}" for k, v in value.items()) + "}"
