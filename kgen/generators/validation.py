"""The validation generator (counterpart of validation-gen): `validation.py` per package.

For every struct type with something to check, `check_<Type>(obj, old, path, options,
errors)` appends the errors of `obj` to `errors`, field by field in declaration order:
requiredness, limits, formats, enums, list uniqueness, per-item and per-key rules,
subfields, update rules, feature-gated rules and CEL rules, then the type's unions and
rules, then the hand-written `validate_<Type>` hooks of the package's `validation.py`.
It never stops at the first error and never raises: a value of the wrong Python type is
reported as an error at its path.

On update (`old` given), a field whose value did not change is not validated again
(ratcheting: tightening a rule never breaks a stored object); list items are matched
with their previous values by list-map key, map values by key.

Kinds get `validate_<Kind>(obj, options=None)` and `validate_<Kind>_update(new, old,
options=None)`, which also check the object's metadata as the API server does; every
struct gets `validate_<Type>(obj, path=None, old=None, options=None)`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

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
)
from kgen.hooks import check_arity
from kgen.ir.build import META_V1
from kgen.ir.facts import per_universe
from kgen.ir.model import CelRule, Constraints, Field, Package, TypeDef, TypeRef, Union, Universe
from kgen.render import GeneratedFile, render_python
from kgen.runtime.validation import regexp
from kgen.runtime.validation.cel import KUBERNETES_FUNCTIONS, compile_error
from kgen.runtime.validation.celtypes import escape as cel_escape
from kgen.runtime.validation.formats import FORMATS

NAME = "validation"
HOOK_PREFIX = "validate_"
_NUMBERS = set(INT_BITS) | {"float32", "float64"}


# -- what needs checking ----------------------------------------------------------------------


def _tuple(items: list[str]) -> str:
    """A tuple display as black writes it: a trailing comma only for one item."""
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def significant(c: Constraints | None) -> bool:
    """Whether constraints check anything (`+optional` or an atomic list alone do not)."""
    if c is None:
        return False
    data = c.model_dump(exclude_defaults=True, exclude={"position"})
    if data.get("presence") == "optional":
        del data["presence"]
    if data.get("list_type") == "atomic":
        del data["list_type"]
    return bool(data)


def hooks_by_type(package: Package) -> dict[str, dict[str, object]]:
    """`validate_<Type>` and `validate_<Type>_update` hooks of a package's validation.py."""
    found: dict[str, dict[str, object]] = {}
    names = {t.python_name for t in package.types if t.kind == "struct"}
    for hook in package.hooks:
        if hook.module != "validation" or not hook.name.startswith(HOOK_PREFIX):
            continue
        rest = hook.name[len(HOOK_PREFIX) :]
        if rest in names:
            found.setdefault(rest, {})["create"] = hook
        elif rest.endswith("_update") and rest[: -len("_update")] in names:
            found.setdefault(rest[: -len("_update")], {})["update"] = hook
    return found


class _Plan(StructPlan):
    """Which struct types get a check function, across every package (built-in ones too)."""

    def __init__(self, universe: Universe):
        super().__init__(universe)
        self.hooks = {p.import_path: hooks_by_type(p) for p in universe.packages if p.generate}

    def own_needs(self, typedef: TypeDef) -> bool:
        return (
            bool(self.hooks.get(typedef.package, {}).get(typedef.python_name))
            or bool(typedef.unions)
            or significant(typedef.validation)
        )

    def field_needs(self, f: Field, visiting: frozenset = frozenset()) -> bool:
        return significant(f.validation) or self.ref_needs(f.type, visiting)

    def ref_needs(self, ref: TypeRef, visiting: frozenset = frozenset()) -> bool:
        if ref.kind in ("pointer", "slice", "map"):
            return self.ref_needs(ref.elem, visiting) or (ref.key is not None and self.ref_needs(ref.key, visiting))
        if ref.kind != "named":
            return False
        typedef = self.universe.resolve(ref)
        if typedef.kind == "struct":
            return self.struct_needs(typedef, visiting)
        if typedef.kind == "named":
            return typedef.is_enum or significant(typedef.validation) or self.ref_needs(typedef.underlying, visiting)
        return significant(typedef.validation)


_plan_for = per_universe(_Plan)


def needs(universe: Universe, typedef: TypeDef) -> bool:
    """Whether a struct type gets a check function (and, for kinds, `validate_<Kind>`)."""
    return typedef.kind == "struct" and _plan_for(universe).struct_needs(typedef)


def has_module(universe: Universe, package: Package) -> bool:
    return bool(structs_needing(package, _plan_for(universe)))


# -- generation-time checks ----------------------------------------------------------------------


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Constraints must fit their types; patterns and CEL rules must compile; hooks must fit."""
    for package in universe.packages:
        if not package.generate:
            continue
        for typedef in package.types:
            where = Position.parse(typedef.position)
            own = _own_constraints(universe, typedef)
            _check_constraints(universe, own, _type_ref(typedef), f"type {typedef.name}", where, diagnostics)
            for f in typedef.fields:
                _check_constraints(
                    universe, f.validation, f.type, f"field {typedef.name}.{f.go_name}", Position.parse(f.position), diagnostics
                )
            lent = {(u.origin, u.position) for e in _embedded(universe, typedef) for u in e.unions}
            for union in typedef.unions:
                if (union.origin, union.position) not in lent:
                    _check_union(typedef, union, diagnostics)
        package_hooks = hooks_by_type(package)
        for type_name, hooks in package_hooks.items():
            if "create" in hooks:
                check_arity(hooks["create"], 2, f"validate_{type_name}(obj, path)", diagnostics)
            if "update" in hooks:
                check_arity(hooks["update"], 3, f"validate_{type_name}_update(new, old, path)", diagnostics)
        for hook in package.hooks:
            if hook.module == "validation" and hook.name.startswith(HOOK_PREFIX):
                rest = hook.name[len(HOOK_PREFIX) :]
                if rest not in package_hooks and rest.removesuffix("_update") not in package_hooks:
                    diagnostics.warning(
                        Position.parse(hook.position),
                        f"{hook.name} matches no struct type of package {package.import_path}, so it is never called; "
                        "validation hooks are named validate_<Type>(obj, path) or validate_<Type>_update(new, old, path)",
                    )


def _own_constraints(universe: Universe, typedef: TypeDef) -> Constraints:
    """A struct's type constraints without those its embedded structs lent it (checked there)."""
    lent: set[str] = set()
    for embedded in _embedded(universe, typedef):
        lent.update(r.position for r in embedded.validation.rules)
        lent.update(g.constraints.position for g in embedded.validation.gated)
    if not lent:
        return typedef.validation
    c = typedef.validation
    return c.model_copy(update={
        "rules": tuple(r for r in c.rules if r.position not in lent),
        "gated": tuple(g for g in c.gated if g.constraints.position not in lent),
    })  # fmt: skip


def _embedded(universe: Universe, typedef: TypeDef) -> list[TypeDef]:
    """The structs `typedef` embeds inline (whose fields it promotes)."""
    refs = [m.type.elem if m.type.kind == "pointer" else m.type for m in typedef.members if m.promoted]
    return [universe.resolve(ref) for ref in refs]


def _type_ref(typedef: TypeDef) -> TypeRef:
    return TypeRef(kind="named", package=typedef.package, name=typedef.name)


def _shape(universe: Universe, ref: TypeRef) -> tuple[str, TypeRef]:
    """What a value is to validation: string, number, bool, bytes, list, map, struct, opaque."""
    while ref.kind == "pointer":
        ref = ref.elem
    while ref.kind == "named":
        typedef = universe.resolve(ref)
        if typedef.kind == "struct":
            return "struct", ref
        if typedef.kind == "python":
            return {"string": "string", "integer": "number", "number": "number"}.get(typedef.json_type or "", "opaque"), ref
        ref = typedef.underlying
        while ref.kind == "pointer":
            ref = ref.elem
    if ref.kind == "basic":
        if ref.basic == "string":
            return "string", ref
        if ref.basic == "bool":
            return "bool", ref
        if ref.basic == "bytes":
            return "bytes", ref
        return "number", ref
    if ref.kind == "slice":
        return "list", ref
    if ref.kind == "map":
        return "map", ref
    return "opaque", ref


_FOR_SHAPE = {
    "number": ("minimum", "maximum", "multiple_of", "exclusive_minimum", "exclusive_maximum"),
    "string": ("min_length", "max_length", "max_bytes", "pattern", "format"),
    "list": ("min_items", "max_items", "list_type", "list_map_keys", "unique"),
    "map": ("min_properties", "max_properties", "keys"),
}


_NUMBER_FORMATS = frozenset({"int32", "int64", "float", "double"})
"""The formats OpenAPI gives integers and numbers, which controller-gen writes on them."""

_ALSO_APPLIES = {
    ("struct", "min_properties"), ("struct", "max_properties"),  # an object's JSON properties
    ("bytes", "min_length"), ("bytes", "max_length"),  # the base64 string JSON holds
}  # fmt: skip
"""Constraints that also apply beyond their main shape, as OpenAPI (and controller-gen) read them."""


def _check_constraints(
    universe: Universe, c: Constraints, ref: TypeRef, what: str, where: Position, diagnostics: Diagnostics
) -> None:
    if c.is_empty():
        return
    position = Position.parse(c.position) if c.position else where
    shape, base = _shape(universe, ref)
    data = c.model_dump(exclude_defaults=True)
    if data.get("list_type") == "atomic":
        del data["list_type"]  # also how apply treats a struct as one value; upstream accepts it anywhere
    for wanted, names in _FOR_SHAPE.items():
        for name in names:
            if name in data and shape != wanted and shape != "opaque" and (shape, name) not in _ALSO_APPLIES:
                if name == "format" and shape == "number" and data[name] in _NUMBER_FORMATS:
                    continue  # OpenAPI's formats of numbers (rook's `Format=int64` on a uint32)
                diagnostics.error(
                    position,
                    f"{what} is a {shape}, but its {_marker_word(name)} constraint applies only to a {wanted}; "
                    "remove the marker or put it where it applies (+k8s:eachVal=... for list items)",
                )
    if c.items is not None and shape not in ("list", "map", "opaque"):
        diagnostics.error(position, f"{what} is a {shape}, but +k8s:eachVal (or items:) applies only to lists and maps")
    if c.subfields and shape != "struct":
        diagnostics.error(position, f"{what} is a {shape}, but +k8s:subfield applies only to structs")
    if c.pattern is not None:
        problem = _regex_problem(c.pattern)
        if problem:
            diagnostics.error(position, f"{what}: invalid regular expression {c.pattern!r}: {problem}")
    if c.format is not None and c.format not in FORMATS:
        diagnostics.warning(position, f"{what}: format {c.format!r} is not one kgen validates ({', '.join(sorted(FORMATS))}); it is ignored")
    for rule in c.rules:
        _check_rule(universe, ref, rule, what, where, diagnostics)
    if shape == "list":
        elem = base.elem
        if c.list_type == "map" and not c.list_map_keys:
            diagnostics.warning(
                position,
                f"{what} is a map list (+listType=map) without +listMapKey: its items cannot be told apart by key "
                "(nothing checks them unique, apply merges them as a whole); name its key fields",
            )
        if c.list_map_keys:
            elem_shape, elem_ref = _shape(universe, elem)
            if c.list_type not in ("map", None) and c.unique != "map":
                diagnostics.error(position, f"{what} has +listMapKey but +listType={c.list_type}; use +listType=map")
            if elem_shape != "struct":
                diagnostics.error(position, f"{what}: +listType=map needs struct items, not {elem}")
            else:
                item = universe.resolve(elem_ref)
                known = {f.json_name for f in item.fields}
                for key_name in c.list_map_keys:
                    if key_name not in known:
                        near = next((k for k in sorted(known) if k.casefold() == key_name.casefold()), None)
                        hint = f"; did you mean {near!r}? Keys are JSON names and match case" if near else ""
                        diagnostics.error(
                            position,
                            f"{what}: list-map key {key_name!r} is not a field of {item.name} (fields: {', '.join(sorted(known))}){hint}",
                        )
        if c.items is not None:
            _check_constraints(universe, c.items, elem, f"items of {what}", position, diagnostics)
    if shape == "map":
        if c.items is not None:
            _check_constraints(universe, c.items, base.elem, f"values of {what}", position, diagnostics)
        if c.keys is not None:
            _check_constraints(universe, c.keys, base.key, f"keys of {what}", position, diagnostics)
    if shape == "struct" and c.subfields:
        struct = universe.resolve(base)
        by_json = {f.json_name: f for f in struct.fields}
        for name, inner in c.subfields.items():
            if name not in by_json:
                diagnostics.error(position, f"{what}: +k8s:subfield({name!r}) names no field of {struct.name}")
            else:
                _check_constraints(universe, inner, by_json[name].type, f"subfield {name} of {what}", position, diagnostics)
    for gated in c.gated:
        _check_constraints(universe, gated.constraints, ref, what, position, diagnostics)
    if c.enum is not None and shape not in ("string", "number", "opaque"):
        diagnostics.error(position, f"{what} is a {shape}; Enum applies only to strings and numbers")


def _marker_word(name: str) -> str:
    parts = name.split("_")
    return parts[0] + "".join(p.title() for p in parts[1:])


def _regex_problem(expression: str) -> str | None:
    """Why Go's regexp (RE2, the API server's regular expressions) rejects an expression, or None."""
    return regexp.syntax_problem(expression)


def _check_rule(
    universe: Universe, ref: TypeRef, rule: CelRule, what: str, where: Position, diagnostics: Diagnostics
) -> None:
    position = Position.parse(rule.position) if rule.position else where
    if not rule.rule.strip():
        diagnostics.error(position, f"{what}: XValidation needs rule=<CEL expression>")
        return
    problem = compile_error(rule.rule)
    if problem:
        diagnostics.error(position, f"{what}: CEL rule {rule.rule!r} does not compile: {_first_line(problem)}")
    if rule.message_expression:
        problem = compile_error(rule.message_expression)
        if problem:
            diagnostics.error(
                position, f"{what}: CEL messageExpression {rule.message_expression!r} does not compile: {_first_line(problem)}"
            )
    for text in (rule.rule, rule.message_expression):
        for problem in _cel_problems(universe, ref, text):
            diagnostics.error(position, f"{what}: CEL {text!r} {problem}")
    if rule.reason and rule.reason not in ("FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"):
        diagnostics.error(
            position,
            f"{what}: reason {rule.reason!r} must be FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate",
        )


CEL_FUNCTIONS = frozenset(
    "has size int uint double string bytes dyn type timestamp duration matches startsWith endsWith contains "
    "all exists exists_one map filter of none ofNonZeroValue hasValue value orValue or "
    # the accessors of timestamps and durations
    "getDate getDayOfMonth getDayOfWeek getDayOfYear getFullYear getHours getMilliseconds getMinutes getMonth "
    "getSeconds".split()
) | KUBERNETES_FUNCTIONS.keys()
"""The functions a rule may call: CEL's standard ones and the Kubernetes ones kgen evaluates."""

_CALL = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\b([A-Za-z_]\w*)\s*\(""")
_SELECT = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\b(self|oldSelf)((?:\s*\.\s*[A-Za-z_]\w*)+)(\s*\()?""")


def _cel_problems(universe: Universe, ref: TypeRef, text: str) -> list[str]:
    """What a rule gets wrong that the API server's type check would reject: functions
    that do not exist and fields of `self` the type does not have."""
    problems: list[str] = []
    for match in _CALL.finditer(text):
        name = match.group(1)
        if name and name not in CEL_FUNCTIONS:
            problems.append(
                f"calls {name}(), which is neither a CEL function nor one of the Kubernetes CEL functions kgen "
                f"evaluates ({', '.join(sorted(KUBERNETES_FUNCTIONS))})"
            )
    for match in _SELECT.finditer(text):
        if not match.group(1):
            continue  # a string literal
        names = re.findall(r"[A-Za-z_]\w*", match.group(2))
        if match.group(3):
            names = names[:-1]  # the last name is a method: self.startsWith(...)
        current = ref
        for depth, name in enumerate(names):
            shape, base = _shape(universe, current)
            if shape != "struct":
                if shape in ("string", "number", "bool", "bytes", "list"):
                    reached = ".".join([match.group(1), *names[:depth]])
                    problems.append(f"selects .{name} of {reached}, which is a {shape} and has no fields")
                break  # maps take any key; opaque values are not known
            # a property CEL must escape (`namespace`, `dash-name`) is selected escaped
            member = next((f for f in universe.resolve(base).fields if name in (f.json_name, cel_escape(f.json_name))), None)
            if member is None:
                known = ", ".join(f.json_name for f in universe.resolve(base).fields)
                reached = ".".join([match.group(1), *names[:depth]])
                problems.append(f"selects {reached}.{name}, which is not a field of {base.name} (its fields: {known})")
                break
            current = member.type
    return problems


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    for line in lines:
        if "ERROR:" in line or "error" in line.lower():
            return line.strip()
    return lines[0].strip() if lines else text


def _check_union(typedef: TypeDef, union: Union, diagnostics: Diagnostics) -> None:
    known = {f.json_name for f in typedef.fields}
    position = Position.parse(union.position or typedef.position)
    for member in union.members:
        if member.json_name not in known:
            diagnostics.error(
                position, f"union of {typedef.name} names {member.json_name!r}, which is not a field (fields: {', '.join(sorted(known))})"
            )
    # A discriminated union may have one member: SeccompProfile's `type` names the profile
    # kind, and only `Localhost` carries a field (localhostProfile).
    if len(union.members) < 2 and union.origin != "k8s:unionMember" and union.discriminator is None:
        # A union with one member is usually one made to grow (core/v1's PodSchedulingGroup).
        diagnostics.note(position, f"union of {typedef.name} has fewer than two members")


# -- generation ---------------------------------------------------------------------------------


@dataclass
class KindView:
    name: str
    namespaced: bool
    name_format: str
    group: str


@dataclass
class CheckView:
    name: str
    doc: str
    statements: list[str]
    kind: KindView | None = None


@dataclass
class _Module:
    universe: Universe
    package: Package
    plan: _Plan
    context: ModuleContext
    constants: list[str] = field(default_factory=list)
    _names: dict[str, str] = field(default_factory=dict)
    hooks_alias: str | None = None
    called_hooks: list[tuple[str, str, str]] = field(default_factory=list)
    """The hand-written hooks the checks call: (name, positional parameters, return type)."""
    _locals: int = 0

    def constant(self, key: str, prefix: str, expression: str, annotation: str = "") -> str:
        """A module-level constant (compiled pattern, CEL rule, enum values), defined once."""
        if key not in self._names:
            name = f"_{prefix}_{len(self._names)}"
            self._names[key] = name
            self.constants.append(f"{name}{': ' + annotation if annotation else ''} = {expression}")
        return self._names[key]

    def local(self, stem: str) -> str:
        """A local variable name no other statement of the module uses."""
        self._locals += 1
        return f"{stem}{self._locals}"

    def hook(self, name: str, parameters: str) -> str:
        """A call of a hand-written hook taking `parameters` (annotated), up to the arguments."""
        iterable = self.context.stdlib("collections.abc", "Iterable")
        self.called_hooks.append((name, parameters, f"{iterable}[_v.FieldError] | None"))
        return f"{self.hooks_alias}.{name}"


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    plan = _plan_for(universe)
    packages = universe.generated_packages
    return [
        _file(universe, p, structs, plan, options.models) for p in packages if (structs := structs_needing(p, plan))
    ]


def _file(universe: Universe, package: Package, structs: list[TypeDef], plan: _Plan, models: str) -> GeneratedFile:
    module = _Module(universe, package, plan, module_context(universe, package, NAME, models))
    module.context.imports[("kgen.runtime", "validation")] = "_v"
    hooks = plan.hooks.get(package.import_path, {})
    if hooks and package.hooks_module:
        module.hooks_alias = "_hooks"
        module.context.imports[(package.hooks_module, "validation")] = HOOKS_MODULE
    views = [_check_view(module, t, hooks.get(t.python_name, {})) for t in structs]
    kinds = [view.kind for view in views if view.kind is not None]
    callable_ = module.context.stdlib("collections.abc", "Callable")
    protocol = hooks_protocol(module.context, module.called_hooks)
    sources = package_sources(package, *(["validation.py"] if module.hooks_alias else []))
    return render_python(
        "validation/validation.py.j2",
        package_file(package, "validation.py"),
        NAME,
        sources,
        package=package,
        imports=module.context.import_lines(),
        classes=sorted(t.python_name for t in structs),
        constants=module.constants,
        hooks_protocol=protocol,
        checks=views,
        kinds=kinds,
        callable=callable_,
        docstring=docstring,
    )


def _kind_view(package: Package, typedef: TypeDef) -> KindView:
    namespaced = not (
        typedef.has_marker("genclient:nonNamespaced")
        or any(m.name == "kubebuilder:resource" and m.args.get("scope") == "Cluster" for m in typedef.markers)
    )
    name_format = "k8s-long-name"
    metadata = next((f for f in typedef.fields if f.json_name == "metadata"), None)
    if metadata is not None:
        name_rules = metadata.validation.subfields.get("name")
        if name_rules is not None and name_rules.format:
            name_format = name_rules.format
    return KindView(typedef.python_name, namespaced, name_format, package.group)


def _check_view(module: _Module, typedef: TypeDef, hooks: dict) -> CheckView:
    lines: list[str] = []
    for f in typedef.fields:
        if module.plan.field_needs(f):
            lines.extend(_field_block(module, typedef, f))
    for union in typedef.unions:
        lines.extend(_union_block(module, typedef, union))
    lines.extend(_modal_blocks(module, typedef))
    lines.extend(_dependent_blocks(module, typedef))
    c = typedef.validation
    lines.extend(_property_counts(c, "obj", "path"))
    if c.rules or c.gated:
        lines.extend(_rules(module, c.rules, "obj", "old", "path", "object", depth=0))
        for gated in c.gated:
            inner = _rules(module, gated.constraints.rules, "obj", "old", "path", "object", depth=0)
            if inner:
                lines.append(f"if {'' if gated.enabled else 'not '}options.enabled({py_string(gated.gate)}):")
                lines.extend("    " + line for line in inner)
    name = typedef.python_name
    if "create" in hooks:
        hook = module.hook(hooks["create"].name, f"obj: {name}, path: _v.Path | None")
        lines.append(f"errors.extend({hook}(obj, _v.as_path(path)) or ())")
    if "update" in hooks:
        hook = module.hook(hooks["update"].name, f"new: {name}, old: {name}, path: _v.Path | None")
        lines.append("if old is not None:")
        lines.append(f"    errors.extend({hook}(obj, old, _v.as_path(path)) or ())")
    if any(line.lstrip().startswith("value = ") for line in lines):
        # Validation checks what a field holds, whatever its annotation says (models are not
        # validated on assignment): to the type checker, each field's value is Any.
        any_ = module.context.stdlib("typing", "Any")
        lines[:0] = [f"value: {any_}", f"old_value: {any_}"]
    if not lines:
        lines.append("pass")
    return CheckView(
        name=typedef.python_name,
        doc=f"Append the errors of a {typedef.name} (changed since `old`, on update) to `errors`.",
        statements=lines,
        kind=_kind_view(module.package, typedef) if typedef.is_kind else None,
    )


def _modal_blocks(module: _Module, typedef: TypeDef) -> list[str]:
    """The rules of fields that hold while the struct's discriminator field has a value."""
    discriminator = next((f for f in typedef.fields if f.validation.discriminator), None)
    modal = [(f, m) for f in typedef.fields for m in f.validation.modal]
    if discriminator is None or not modal:
        return []
    lines = [f"mode = obj.{discriminator.python_name}"]
    for f, m in modal:
        block = _field_block(module, typedef, f, m.constraints)
        if block:
            lines.append(f"if mode == {py_string(m.value)}:")
            lines.extend("    " + line for line in block)
    return lines if len(lines) > 1 else []


def _dependent_blocks(module: _Module, typedef: TypeDef) -> list[str]:
    """`+k8s:dependentRequired`/`Forbidden`: when a field is set, another must (not) be."""
    by_json = {f.json_name: f for f in typedef.fields}
    lines: list[str] = []
    for f in typedef.fields:
        c = f.validation
        if not (c.dependent_required or c.dependent_forbidden):
            continue
        set_test = _zero_test(module.universe, f.type, f"obj.{f.python_name}")
        if set_test is None:
            continue
        for names, required in ((c.dependent_required, True), (c.dependent_forbidden, False)):
            for name in names:
                other = by_json.get(name)
                zero = _zero_test(module.universe, other.type, f"obj.{other.python_name}") if other else None
                if zero is None:
                    continue
                problem = zero if required else _negate(zero)
                message = py_string(f"{'must' if required else 'may not'} be specified when `{f.json_name}` is specified")
                error = "_v.required" if required else "_v.forbidden"
                lines += [f"if {_negate(set_test)} and {problem}:", f"    errors.append({error}((path, {py_string(name)}), {message}))"]
    return lines


def _field_block(module: _Module, typedef: TypeDef, f: Field, constraints: Constraints | None = None) -> list[str]:
    """Statements checking one field, skipped on update when the field did not change."""
    value, old_value = "value", "old_value"
    here = f"(path, {py_string(f.json_name)})"
    c = f.validation if constraints is None else constraints
    checks = _presence_and_value(module, c, f.type, value, old_value, "old is not None", _PATH, 1)
    if not checks:
        return []
    # The field's path is built once when a loop or a nested check needs it, else only with an error.
    uses = [line for line in checks if _PATH in line]
    if any("errors.append(" not in line for line in uses) or any(line.lstrip().startswith("for ") for line in checks):
        body = [f"p = {here}", *(line.replace(_PATH, "p") for line in checks)]
    else:
        body = [line.replace(_PATH, here) for line in checks]
    expected = _describe(module.universe, f.type)
    return [
        f"{value} = obj.{f.python_name}",
        f"{old_value} = None if old is None else old.{f.python_name}",
        f"if old is None or {value} != {old_value}:",
        "    try:",
        *("        " + line for line in body),
        "    except Exception:  # noqa: BLE001 - a malformed value is an error, never a crash",
        f"        errors.append(_v.malformed((path, {py_string(f.json_name)}), {value}, {py_string(expected)}))",
    ]


_PATH = "\x00path\x00"
"""Where a field's checks name its path, until it is known whether the path is built once
(`p = (path, "name")`) or written where an error needs it. No generated string literal can
hold it: string literals escape control characters."""


def _describe(universe: Universe, ref: TypeRef) -> str:
    shape, base = _shape(universe, ref)
    if base.kind == "basic":
        return "[]byte" if base.basic == "bytes" else base.basic
    if shape == "struct":
        return f"{base.name}"
    return shape


def _zero_test(universe: Universe, ref: TypeRef, v: str) -> str | None:
    """A test that the value is unset (nil, or the zero value); None for values that are never unset."""
    if ref.kind in ("pointer", "slice", "map", "any"):
        return f"not {v}" if ref.kind in ("slice", "map") else f"{v} is None"
    shape, base = _shape(universe, ref)
    if shape in ("string", "bool", "number", "list", "map", "bytes") and base.kind != "named":
        return f"not {v}"
    if shape == "struct":
        return f"_v.is_zero({v})"
    return f"{v} is None"


def _negate(test: str) -> str:
    if test.startswith("not "):
        return test[4:]
    if test.endswith(" is None"):
        return test[: -len(" is None")] + " is not None"
    return f"not ({test})" if " " in test else f"not {test}"


def _presence_and_value(
    module: _Module, c: Constraints, ref: TypeRef, v: str, old: str, has_old: str, p: str, depth: int
) -> list[str]:
    zero = _zero_test(module.universe, ref, v)
    present = ref.elem if ref.kind == "pointer" and c.presence in ("required", "optional") else ref
    # Update rules judge the transition, unset values included (clearing is a change too).
    lines = _update_rules(module, c, ref, v, old, has_old, p)
    checks = _value(module, [c], present, v, old, has_old, p, depth)
    if c.presence == "forbidden" and zero is not None:
        return lines + [f"if {_negate(zero)}:", f"    errors.append(_v.forbidden({p}))"]
    if c.presence == "required" and zero is not None:
        lines += [f"if {zero}:", f"    errors.append(_v.required({p}))"]
        if checks:
            lines.append("else:")
            lines.extend("    " + line for line in checks)
        return lines
    if c.presence == "optional" and zero is not None and checks:
        return lines + [f"if {_negate(zero)}:"] + ["    " + line for line in checks]
    return lines + checks


def _update_rules(module: _Module, c: Constraints, ref: TypeRef, v: str, old: str, has_old: str, p: str) -> list[str]:
    """`+k8s:immutable`, `+k8s:update`, `+k8s:monotonic`: only on update, and the value changed."""
    rules: list[str] = []
    type_c = _named_constraints(module.universe, ref)
    immutable = c.immutable or any(t.immutable for t in type_c)
    update = list(c.update) + [u for t in type_c for u in t.update]
    monotonic = c.monotonic or next((t.monotonic for t in type_c if t.monotonic), None)
    if immutable:
        rules.append(f"errors.append(_v.invalid({p}, {v}, _v.FIELD_IMMUTABLE, 'immutable'))")
    zero_old = _zero_test(module.universe, ref, old) or f"{old} is None"
    zero_new = _zero_test(module.universe, ref, v) or f"{v} is None"
    transitions = {  # the condition that breaks each rule, and what it says
        "NoSet": (f"{zero_old} and {_negate(zero_new)}", "may not be set once the object exists"),
        "NoUnset": (f"{_negate(zero_old)} and {zero_new}", "may not be cleared once set"),
        "NoModify": (f"{_negate(zero_old)} and {_negate(zero_new)}", "may not be modified once set"),
        "NoAddItem": (f"any(item not in ({old} or ()) for item in ({v} or ()))", "may not add items once the object exists"),
        "NoRemoveItem": (f"any(item not in ({v} or ()) for item in ({old} or ()))", "may not remove items once the object exists"),
    }  # fmt: skip
    for name, (broken, message) in transitions.items():
        if name in update:
            rules += [f"if {broken}:", f"    errors.append(_v.forbidden({p}, {py_string(message)}, 'update'))"]
    if monotonic:
        verb = "decreased" if monotonic == "increasing" else "increased"
        compare = "<" if monotonic == "increasing" else ">"
        rules += [
            f"if {old} is not None and {v} is not None and {v} {compare} {old}:",
            f"    errors.append(_v.invalid({p}, {v}, 'may not be {verb}', 'monotonic'))",
        ]
    if not rules:
        return []
    return [f"if {has_old}:"] + ["    " + line for line in rules]


def _named_constraints(universe: Universe, ref: TypeRef) -> list[Constraints]:
    while ref.kind == "pointer":
        ref = ref.elem
    out = []
    while ref.kind == "named":
        typedef = universe.resolve(ref)
        if typedef.kind != "named":
            if typedef.kind == "python":
                out.append(typedef.validation)
            break
        out.append(typedef.validation)
        ref = typedef.underlying
        while ref.kind == "pointer":
            ref = ref.elem
    return out


def _value(
    module: _Module, cs: list[Constraints], ref: TypeRef, v: str, old: str, has_old: str, p: str, depth: int, descend: bool = True
) -> list[str]:
    """Checks of a present value: its constraints `cs`, its named types' constraints, what it holds."""
    universe = module.universe
    if ref.kind == "pointer":
        inner = _value(module, cs, ref.elem, v, old, has_old, p, depth, descend)
        return [f"if {v} is not None:"] + ["    " + line for line in inner] if inner else []
    cs = list(cs)
    enum_type: TypeDef | None = None
    while ref.kind == "named":
        typedef = universe.resolve(ref)
        if typedef.kind != "named":
            break
        cs.insert(0, typedef.validation)
        if typedef.is_enum and enum_type is None:
            enum_type = typedef
        ref = typedef.underlying
        if ref.kind == "pointer":
            inner = _value(module, cs, ref, v, old, has_old, p, depth, descend)
            return inner
    if ref.kind == "named" and universe.resolve(ref).kind == "python":
        cs.insert(0, universe.resolve(ref).validation)
    shape, base = _shape(universe, ref)
    lines: list[str] = []
    if enum_type is not None:
        lines.extend(_enum_type_check(module, enum_type, v, p))
    # A value of a runtime class (Quantity, Time, a JSON holder) is checked as the JSON it is.
    plain = f"{v}.to_json()" if base.kind == "named" and universe.resolve(base).kind == "python" else v
    for c in cs:
        lines.extend(_simple_checks(module, c, shape, plain, p))
    if shape == "list":
        lines.extend(_list_checks(module, cs, base, v, old, p, depth, descend))
    elif shape == "map":
        lines.extend(_map_checks(module, cs, base, v, old, p, depth, descend))
    elif shape == "struct":
        struct = universe.resolve(base)
        for c in cs:
            for name, inner in c.subfields.items():
                member = next((f for f in struct.fields if f.json_name == name), None)
                if member is None or (struct.package == META_V1 and struct.name == "ObjectMeta" and name == "name"):
                    continue  # a kind's name format is checked with its metadata (validate_object_meta)
                sv, so, sp = f"sub{depth}", f"old_sub{depth}", f"sp{depth}"
                sub = _presence_and_value(module, inner, member.type, sv, so, f"{old} is not None", sp, depth + 1)
                if sub:
                    lines += [
                        f"{sv} = {v}.{member.python_name}",
                        f"{so} = None if {old} is None else {old}.{member.python_name}",
                        f"{sp} = ({p}, {py_string(name)})",
                        *sub,
                    ]
        if descend and module.plan.struct_needs(struct):
            lines.append(f"{_check_ref(module, struct)}({v}, {old}, {p}, options, errors)")
    json_type = {"string": "string", "number": "number", "bool": "boolean", "list": "array", "map": "object", "struct": "object", "bytes": "string"}.get(shape, "object")
    if base.kind == "basic" and base.basic in INT_BITS:
        json_type = "integer"
    for c in cs:
        lines.extend(_rules(module, c.rules, v, old, p, json_type, depth))
        for gated in c.gated:
            inner = _presence_and_value_gated(module, gated.constraints, ref, v, old, has_old, p, depth)
            if inner:
                lines.append(f"if {'' if gated.enabled else 'not '}options.enabled({py_string(gated.gate)}):")
                lines.extend("    " + line for line in inner)
    return lines


def _presence_and_value_gated(
    module: _Module, c: Constraints, ref: TypeRef, v: str, old: str, has_old: str, p: str, depth: int
) -> list[str]:
    lines: list[str] = []
    zero = _zero_test(module.universe, ref, v)
    if c.presence == "required" and zero is not None:
        lines += [f"if {zero}:", f"    errors.append(_v.required({p}))"]
    elif c.presence == "forbidden" and zero is not None:
        lines += [f"if {_negate(zero)}:", f"    errors.append(_v.forbidden({p}))"]
    lines += _update_rules(module, c, TypeRef(kind="any"), v, old, has_old, p)
    lines += _value(module, [c], ref, v, old, has_old, p, depth, descend=False)
    return lines


def _simple_checks(module: _Module, c: Constraints, shape: str, v: str, p: str) -> list[str]:
    lines: list[str] = []

    def add(test: str, error: str) -> None:
        lines.extend([f"if {test}:", f"    errors.append({error})"])

    if shape == "number":
        if c.minimum is not None:
            if c.exclusive_minimum:
                add(f"{v} <= {repr(c.minimum)}", f"_v.invalid({p}, {v}, {py_string(f'must be greater than {c.minimum}')}, 'minimum')")
            else:
                add(f"{v} < {repr(c.minimum)}", f"_v.invalid({p}, {v}, {py_string(f'must be greater than or equal to {c.minimum}')}, 'minimum')")
        if c.maximum is not None:
            if c.exclusive_maximum:
                add(f"{v} >= {repr(c.maximum)}", f"_v.invalid({p}, {v}, {py_string(f'must be less than {c.maximum}')}, 'maximum')")
            else:
                add(f"{v} > {repr(c.maximum)}", f"_v.invalid({p}, {v}, {py_string(f'must be less than or equal to {c.maximum}')}, 'maximum')")
        if c.multiple_of:
            add(f"{v} % {repr(c.multiple_of)}", f"_v.invalid({p}, {v}, {py_string(f'must be a multiple of {c.multiple_of}')}, 'multipleOf')")
    if shape == "string":
        if c.min_length is not None:
            noun = "character" if c.min_length == 1 else "characters"
            add(f"len({v}) < {c.min_length}", f"_v.invalid({p}, {v}, {py_string(f'must be at least {c.min_length} {noun}')}, 'minLength')")
        if c.max_length is not None:
            add(f"len({v}) > {c.max_length}", f"_v.too_long({p}, {v}, {c.max_length}, 'characters', 'maxLength')")
        if c.max_bytes is not None:
            add(f"len({v}.encode()) > {c.max_bytes}", f"_v.too_long({p}, {v}, {c.max_bytes}, 'bytes', 'maxBytes')")
        if c.pattern is not None:
            name = module.constant("pattern:" + c.pattern, "PATTERN", f"_v.pattern({py_string(c.pattern)})")
            add(f"not {name}.search({v})", f"_v.invalid({p}, {v}, {py_string(f'must match the regular expression {_quote(c.pattern)}')}, 'pattern')")
        if c.format is not None and c.format in FORMATS:
            name = module.constant("format:" + c.format, "FORMAT", f"_v.VALIDATORS[{py_string(c.format)}]")
            lines.append(f"errors.extend({name}({p}, {v}))")
    if shape == "bytes":  # JSON holds the base64 text: its length is what the API server checks
        size = f"(len({v}) + 2) // 3 * 4"
        if c.min_length is not None:
            noun = "character" if c.min_length == 1 else "characters"
            add(f"{size} < {c.min_length}", f"_v.invalid({p}, {v}, {py_string(f'must be at least {c.min_length} {noun}')}, 'minLength')")
        if c.max_length is not None:
            add(f"{size} > {c.max_length}", f"_v.too_long({p}, {v}, {c.max_length}, 'characters', 'maxLength')")
    if shape == "struct":
        lines.extend(_property_counts(c, v, p))
    if c.enum is not None:
        values = sorted(c.enum, key=lambda x: (str(type(x)), x))
        name = module.constant("enum:" + json.dumps(values), "ENUM", "(" + ", ".join(_literal(x) for x in values) + ("," if len(values) == 1 else "") + ")")
        add(f"{v} not in {name}", f"_v.not_supported({p}, {v}, {name})")
    for forbidden in c.neq:
        add(f"{v} == {_literal(forbidden)}", f"_v.invalid({p}, {v}, {py_string(f'must not be equal to {json.dumps(forbidden)}')}, 'neq')")
    return lines


def _quote(text: str) -> str:
    return f"'{text}'"


def _literal(value) -> str:
    if isinstance(value, str):
        return py_string(value)
    if isinstance(value, bool):
        return "True" if value else "False"
    if value is None:
        return "None"
    return repr(value)


def _enum_type_check(module: _Module, typedef: TypeDef, v: str, p: str) -> list[str]:
    values = sorted(str(e.value) for e in typedef.enum_values)
    gated = [e for e in typedef.enum_values if e.excluded_when]
    name = module.constant(
        f"enum-type:{typedef.package}.{typedef.name}",
        "ENUM",
        "(" + ", ".join(py_string(x) for x in values) + ("," if len(values) == 1 else "") + ")",
    )
    if not gated:
        return [f"if {v} not in {name}:", f"    errors.append(_v.not_supported({p}, {v}, {name}))"]
    # Values excluded while a gate is on (or off): allowed only when no exclusion applies.
    conditions = []
    for e in sorted(gated, key=lambda e: str(e.value)):
        tests = " or ".join(f"{'' if enabled else 'not '}options.enabled({py_string(gate)})" for gate, enabled in e.excluded_when)
        conditions.append((py_string(str(e.value)), tests))
    allowed = module.local("allowed")
    lines = [f"{allowed}: tuple[str, ...] = {name}"]
    for literal, tests in conditions:
        lines += [f"if {tests}:", f"    {allowed} = tuple(x for x in {allowed} if x != {literal})"]
    lines += [f"if {v} not in {allowed}:", f"    errors.append(_v.not_supported({p}, {v}, {allowed}))"]
    return lines


def _item_constraints(cs: Iterable[Constraints]) -> list[Constraints]:
    return [c.items for c in cs if c.items is not None]


def _list_checks(module: _Module, cs: list[Constraints], base: TypeRef, v: str, old: str, p: str, depth: int, descend: bool) -> list[str]:
    universe = module.universe
    lines: list[str] = []
    elem = base.elem
    map_keys: tuple[str, ...] = ()
    unique = None
    for c in cs:
        if c.min_items is not None:
            noun = "item" if c.min_items == 1 else "items"
            lines += [f"if len({v}) < {c.min_items}:", f"    errors.append(_v.invalid({p}, len({v}), {py_string(f'must have at least {c.min_items} {noun}')}, 'minItems'))"]
        if c.max_items is not None:
            lines += [f"if len({v}) > {c.max_items}:", f"    errors.append(_v.too_many({p}, len({v}), {c.max_items}))"]
        map_keys = map_keys or c.list_map_keys
        unique = unique or c.unique
    key_of = None
    if map_keys:
        _, elem_base = _shape(universe, elem)
        if elem_base.kind == "named" and universe.resolve(elem_base).kind == "struct":
            struct = universe.resolve(elem_base)
            by_json = {f.json_name: f.python_name for f in struct.fields}
            if all(k in by_json for k in map_keys):
                any_ = module.context.stdlib("typing", "Any")
                callable_ = module.context.stdlib("collections.abc", "Callable")
                key_of = module.constant(
                    f"key:{struct.package}.{struct.name}:{','.join(map_keys)}",
                    "KEY",
                    f"lambda x: {_tuple([f'x.{by_json[k]}' for k in map_keys])}",
                    f"{callable_}[[{any_}], tuple[{any_}, ...]]",
                )
    if unique == "map" and key_of is not None:
        names = _tuple([py_string(k) for k in map_keys])
        lines.append(f"_v.unique_map({v}, {key_of}, {names}, {p}, errors)")
    elif unique == "set":
        lines.append(f"_v.unique_set({v}, {p}, errors)")
    item_cs = _item_constraints(cs)
    item, old_item, ip = f"item{depth}", f"old_item{depth}", f"ip{depth}"
    body = _value(module, item_cs, elem, item, old_item, f"{old_item} is not None", ip, depth + 1, descend)
    for c in item_cs:
        body = _update_rules(module, c, elem, item, old_item, f"{old_item} is not None", ip) + body
    if not body:
        return lines
    if key_of is not None:
        correlate = f"old_index{depth}.get({key_of}({item}))"
        lines.append(f"old_index{depth} = _v.keyed({old}, {key_of})")
    elif unique == "set":
        correlate = f"{item} if {old} and {item} in {old} else None"
    else:
        correlate = "None"
    lines += [
        f"for i{depth}, {item} in enumerate({v}):",
        f"    {old_item} = {correlate}",
        f"    if {old_item} is None or {item} != {old_item}:",
        f"        {ip} = ({p}, None, i{depth})",
    ]
    nullable_item = _zero_test(universe, elem, item) if elem.kind == "pointer" else None
    if nullable_item:
        lines.append(f"        if {item} is not None:")
        lines.extend("            " + line for line in body)
    else:
        lines.extend("        " + line for line in body)
    return lines


def _property_counts(c: Constraints, v: str, p: str) -> list[str]:
    """minProperties/maxProperties of an object: the properties its JSON form has."""
    lines: list[str] = []
    if c.min_properties is None and c.max_properties is None:
        return lines
    lines.append(f"properties = len({v}.to_dict())")
    if c.min_properties is not None:
        noun = "item" if c.min_properties == 1 else "items"
        lines += [f"if properties < {c.min_properties}:", f"    errors.append(_v.invalid({p}, properties, {py_string(f'must have at least {c.min_properties} {noun}')}, 'minProperties'))"]
    if c.max_properties is not None:
        lines += [f"if properties > {c.max_properties}:", f"    errors.append(_v.too_many({p}, properties, {c.max_properties}, 'maxProperties'))"]
    return lines


def _map_checks(module: _Module, cs: list[Constraints], base: TypeRef, v: str, old: str, p: str, depth: int, descend: bool) -> list[str]:
    lines: list[str] = []
    for c in cs:
        if c.min_properties is not None:
            noun = "item" if c.min_properties == 1 else "items"
            lines += [f"if len({v}) < {c.min_properties}:", f"    errors.append(_v.invalid({p}, len({v}), {py_string(f'must have at least {c.min_properties} {noun}')}, 'minProperties'))"]
        if c.max_properties is not None:
            lines += [f"if len({v}) > {c.max_properties}:", f"    errors.append(_v.too_many({p}, len({v}), {c.max_properties}, 'maxProperties'))"]
    key_cs = [c.keys for c in cs if c.keys is not None]
    k = f"key{depth}"
    key_body = _value(module, key_cs, base.key, k, "None", "False", p, depth + 1, descend)
    if key_body:
        lines += [f"for {k} in {v}:"] + ["    " + line for line in key_body]
    item_cs = _item_constraints(cs)
    item, old_item, ip = f"item{depth}", f"old_item{depth}", f"ip{depth}"
    body = _value(module, item_cs, base.elem, item, old_item, f"{old_item} is not None", ip, depth + 1, descend)
    if body:
        lines += [
            f"for {k}, {item} in {v}.items():",
            f"    {old_item} = None if {old} is None else {old}.get({k})",
            f"    if {old_item} is None or {item} != {old_item}:",
            f"        {ip} = ({p}, None, {k})",
        ]
        if base.elem.kind in ("pointer", "slice", "map"):
            lines.append(f"        if {item} is not None:")
            lines.extend("            " + line for line in body)
        else:
            lines.extend("        " + line for line in body)
    return lines


def _rules(module: _Module, rules: Iterable[CelRule], v: str, old: str, p: str, json_type: str, depth: int) -> list[str]:
    rules = list(rules)
    if not rules:
        return []
    lines = [f"json{depth} = _v.to_json({v})", f"old_json{depth} = None if {old} is None else _v.to_json({old})"]
    for rule in rules:
        arguments = [f"rule={py_string(rule.rule)}"]
        for name, value in (
            ("message", rule.message),
            ("message_expression", rule.message_expression),
            ("reason", rule.reason),
            ("field_path", rule.field_path),
        ):
            if value:
                arguments.append(f"{name}={py_string(value)}")
        if rule.optional_old_self:
            arguments.append("optional_old_self=True")
        arguments.append(f"json_type={py_string(json_type)}")
        key = "rule:" + json.dumps([rule.model_dump(exclude={"position"}), json_type], sort_keys=True)
        name = module.constant(key, "RULE", f"_v.Rule({', '.join(arguments)})")
        lines.append(f"{name}.check(json{depth}, old_json{depth}, {p}, errors)")
    return lines


def _union_block(module: _Module, typedef: TypeDef, union: Union) -> list[str]:
    by_json = {f.json_name: f for f in typedef.fields}
    members = [m for m in union.members if m.json_name in by_json]
    attrs = [by_json[m.json_name].python_name for m in members]
    if union.discriminator and union.discriminator in by_json:
        attrs.append(by_json[union.discriminator].python_name)
    if not attrs:
        return []  # reported where the union was declared
    watched = _tuple([f"obj.{a}" for a in attrs])
    watched_old = _tuple([f"old.{a}" for a in attrs])
    entries = []
    for m in members:
        f = by_json[m.json_name]
        zero = _zero_test(module.universe, f.type, f"obj.{f.python_name}")
        entries.append(f"({py_string(m.json_name)}, {py_string(m.member_name)}, {_negate(zero)})")
    arguments = ["path", "errors", _tuple(entries), py_string(union.mode)]
    if union.discriminator and union.discriminator in by_json:
        d = by_json[union.discriminator]
        arguments.append(f"discriminator=({py_string(d.json_name)}, obj.{d.python_name})")
    if union.origin.startswith("kubebuilder:"):
        arguments.append("kubebuilder=True")
    return [
        f"if old is None or {watched} != {watched_old}:",
        f"    _v.check_union({', '.join(arguments)})",
    ]


def _check_ref(module: _Module, typedef: TypeDef) -> str:
    if typedef.package == module.package.import_path:
        return f"check_{typedef.python_name}"
    target = module.universe.package(typedef.package)
    return module.context.package_name(target, "validation", f"check_{typedef.python_name}")
