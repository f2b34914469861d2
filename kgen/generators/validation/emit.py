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
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgen.generators.backends import module_context
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import (
    HOOKS_MODULE,
    INT_BITS,
    ModuleContext,
    hooks_protocol,
    package_file,
    package_sources,
    py_string,
    structs_needing,
)
from kgen.ir.build import META_V1
from kgen.ir.model import CelRule, Constraints, Field, Package, TypeDef, TypeRef, Union, Universe
from kgen.render import GeneratedFile, render_python
from kgen.runtime.validation.formats import FORMATS

from kgen.generators.validation.checks import _shape
from kgen.generators.validation.plan import NAME, _Plan, _plan_for, _tuple

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
                message = py_string(
                    f"{'must' if required else 'may not'} be specified when `{f.json_name}` is specified"
                )
                error = "_v.required" if required else "_v.forbidden"
                lines += [
                    f"if {_negate(set_test)} and {problem}:",
                    f"    errors.append({error}((path, {py_string(name)}), {message}))",
                ]
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
    module: _Module,
    cs: list[Constraints],
    ref: TypeRef,
    v: str,
    old: str,
    has_old: str,
    p: str,
    depth: int,
    descend: bool = True,
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
    json_type = {
        "string": "string",
        "number": "number",
        "bool": "boolean",
        "list": "array",
        "map": "object",
        "struct": "object",
        "bytes": "string",
    }.get(shape, "object")
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
                add(
                    f"{v} <= {repr(c.minimum)}",
                    f"_v.invalid({p}, {v}, {py_string(f'must be greater than {c.minimum}')}, 'minimum')",
                )
            else:
                add(
                    f"{v} < {repr(c.minimum)}",
                    f"_v.invalid({p}, {v}, {py_string(f'must be greater than or equal to {c.minimum}')}, 'minimum')",
                )
        if c.maximum is not None:
            if c.exclusive_maximum:
                add(
                    f"{v} >= {repr(c.maximum)}",
                    f"_v.invalid({p}, {v}, {py_string(f'must be less than {c.maximum}')}, 'maximum')",
                )
            else:
                add(
                    f"{v} > {repr(c.maximum)}",
                    f"_v.invalid({p}, {v}, {py_string(f'must be less than or equal to {c.maximum}')}, 'maximum')",
                )
        if c.multiple_of:
            add(
                f"{v} % {repr(c.multiple_of)}",
                f"_v.invalid({p}, {v}, {py_string(f'must be a multiple of {c.multiple_of}')}, 'multipleOf')",
            )
    if shape == "string":
        if c.min_length is not None:
            noun = "character" if c.min_length == 1 else "characters"
            add(
                f"len({v}) < {c.min_length}",
                f"_v.invalid({p}, {v}, {py_string(f'must be at least {c.min_length} {noun}')}, 'minLength')",
            )
        if c.max_length is not None:
            add(f"len({v}) > {c.max_length}", f"_v.too_long({p}, {v}, {c.max_length}, 'characters', 'maxLength')")
        if c.max_bytes is not None:
            add(f"len({v}.encode()) > {c.max_bytes}", f"_v.too_long({p}, {v}, {c.max_bytes}, 'bytes', 'maxBytes')")
        if c.pattern is not None:
            name = module.constant("pattern:" + c.pattern, "PATTERN", f"_v.pattern({py_string(c.pattern)})")
            add(
                f"not {name}.search({v})",
                f"_v.invalid({p}, {v}, {py_string(f'must match the regular expression {_quote(c.pattern)}')}, 'pattern')",
            )
        if c.format is not None and c.format in FORMATS:
            name = module.constant("format:" + c.format, "FORMAT", f"_v.VALIDATORS[{py_string(c.format)}]")
            lines.append(f"errors.extend({name}({p}, {v}))")
    if shape == "bytes":  # JSON holds the base64 text: its length is what the API server checks
        size = f"(len({v}) + 2) // 3 * 4"
        if c.min_length is not None:
            noun = "character" if c.min_length == 1 else "characters"
            add(
                f"{size} < {c.min_length}",
                f"_v.invalid({p}, {v}, {py_string(f'must be at least {c.min_length} {noun}')}, 'minLength')",
            )
        if c.max_length is not None:
            add(f"{size} > {c.max_length}", f"_v.too_long({p}, {v}, {c.max_length}, 'characters', 'maxLength')")
    if shape == "struct":
        lines.extend(_property_counts(c, v, p))
    if c.enum is not None:
        values = sorted(c.enum, key=lambda x: (str(type(x)), x))
        name = module.constant(
            "enum:" + json.dumps(values),
            "ENUM",
            "(" + ", ".join(_literal(x) for x in values) + ("," if len(values) == 1 else "") + ")",
        )
        add(f"{v} not in {name}", f"_v.not_supported({p}, {v}, {name})")
    for forbidden in c.neq:
        add(
            f"{v} == {_literal(forbidden)}",
            f"_v.invalid({p}, {v}, {py_string(f'must not be equal to {json.dumps(forbidden)}')}, 'neq')",
        )
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
        tests = " or ".join(
            f"{'' if enabled else 'not '}options.enabled({py_string(gate)})" for gate, enabled in e.excluded_when
        )
        conditions.append((py_string(str(e.value)), tests))
    allowed = module.local("allowed")
    lines = [f"{allowed}: tuple[str, ...] = {name}"]
    for literal, tests in conditions:
        lines += [f"if {tests}:", f"    {allowed} = tuple(x for x in {allowed} if x != {literal})"]
    lines += [f"if {v} not in {allowed}:", f"    errors.append(_v.not_supported({p}, {v}, {allowed}))"]
    return lines


def _item_constraints(cs: Iterable[Constraints]) -> list[Constraints]:
    return [c.items for c in cs if c.items is not None]


def _list_checks(
    module: _Module, cs: list[Constraints], base: TypeRef, v: str, old: str, p: str, depth: int, descend: bool
) -> list[str]:
    universe = module.universe
    lines: list[str] = []
    elem = base.elem
    map_keys: tuple[str, ...] = ()
    unique = None
    for c in cs:
        if c.min_items is not None:
            noun = "item" if c.min_items == 1 else "items"
            lines += [
                f"if len({v}) < {c.min_items}:",
                f"    errors.append(_v.invalid({p}, len({v}), {py_string(f'must have at least {c.min_items} {noun}')}, 'minItems'))",
            ]
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
        lines += [
            f"if properties < {c.min_properties}:",
            f"    errors.append(_v.invalid({p}, properties, {py_string(f'must have at least {c.min_properties} {noun}')}, 'minProperties'))",
        ]
    if c.max_properties is not None:
        lines += [
            f"if properties > {c.max_properties}:",
            f"    errors.append(_v.too_many({p}, properties, {c.max_properties}, 'maxProperties'))",
        ]
    return lines


def _map_checks(
    module: _Module, cs: list[Constraints], base: TypeRef, v: str, old: str, p: str, depth: int, descend: bool
) -> list[str]:
    lines: list[str] = []
    for c in cs:
        if c.min_properties is not None:
            noun = "item" if c.min_properties == 1 else "items"
            lines += [
                f"if len({v}) < {c.min_properties}:",
                f"    errors.append(_v.invalid({p}, len({v}), {py_string(f'must have at least {c.min_properties} {noun}')}, 'minProperties'))",
            ]
        if c.max_properties is not None:
            lines += [
                f"if len({v}) > {c.max_properties}:",
                f"    errors.append(_v.too_many({p}, len({v}), {c.max_properties}, 'maxProperties'))",
            ]
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


def _rules(
    module: _Module, rules: Iterable[CelRule], v: str, old: str, p: str, json_type: str, depth: int
) -> list[str]:
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
