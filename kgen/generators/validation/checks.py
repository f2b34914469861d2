"""The validation markers' checks before anything is generated: each rule applies where it
is written, its regular expressions and CEL expressions compile, its unions make sense."""

from __future__ import annotations

import re

from kgen.diagnostics import Diagnostics, Position
from kgen.hooks import check_arity
from kgen.ir.model import CelRule, Constraints, TypeDef, TypeRef, Union, Universe
from kgen.runtime.validation import regexp
from kgen.runtime.validation.cel import KUBERNETES_FUNCTIONS, compile_error
from kgen.runtime.validation.celtypes import escape as cel_escape
from kgen.runtime.validation.formats import FORMATS

from kgen.generators.validation.plan import HOOK_PREFIX, hooks_by_type

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
                    universe,
                    f.validation,
                    f.type,
                    f"field {typedef.name}.{f.go_name}",
                    Position.parse(f.position),
                    diagnostics,
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
                kinds = {t.python_name for t in package.types if t.is_kind}
                if (
                    rest not in package_hooks
                    and rest.removesuffix("_update") not in package_hooks
                    and rest.removesuffix("_delete") not in kinds  # admission's (the webhook generator's)
                ):
                    diagnostics.warning(
                        Position.parse(hook.position),
                        f"{hook.name} matches no struct type of package {package.import_path}, so it is never called; "
                        "validation hooks are named validate_<Type>(obj, path), validate_<Type>_update(new, old, path) "
                        "or validate_<Kind>_delete(obj)",
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
            return {"string": "string", "integer": "number", "number": "number"}.get(
                typedef.json_type or "", "opaque"
            ), ref
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
        diagnostics.warning(
            position,
            f"{what}: format {c.format!r} is not one kgen validates ({', '.join(sorted(FORMATS))}); it is ignored",
        )
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
                _check_constraints(
                    universe, inner, by_json[name].type, f"subfield {name} of {what}", position, diagnostics
                )
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
                position,
                f"{what}: CEL messageExpression {rule.message_expression!r} does not compile: {_first_line(problem)}",
            )
    for text in (rule.rule, rule.message_expression):
        for problem in _cel_problems(universe, ref, text):
            diagnostics.error(position, f"{what}: CEL {text!r} {problem}")
    if rule.reason and rule.reason not in (
        "FieldValueInvalid",
        "FieldValueForbidden",
        "FieldValueRequired",
        "FieldValueDuplicate",
    ):
        diagnostics.error(
            position,
            f"{what}: reason {rule.reason!r} must be FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate",
        )


CEL_FUNCTIONS = (
    frozenset(
        "has size int uint double string bytes dyn type timestamp duration matches startsWith endsWith contains "
        "all exists exists_one map filter of none ofNonZeroValue hasValue value orValue or "
        # the accessors of timestamps and durations
        "getDate getDayOfMonth getDayOfWeek getDayOfYear getFullYear getHours getMilliseconds getMinutes getMonth "
        "getSeconds".split()
    )
    | KUBERNETES_FUNCTIONS.keys()
)
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
            member = next(
                (f for f in universe.resolve(base).fields if name in (f.json_name, cel_escape(f.json_name))), None
            )
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
                position,
                f"union of {typedef.name} names {member.json_name!r}, which is not a field (fields: {', '.join(sorted(known))})",
            )
    # A discriminated union may have one member: SeccompProfile's `type` names the profile
    # kind, and only `Localhost` carries a field (localhostProfile).
    if len(union.members) < 2 and union.origin != "k8s:unionMember" and union.discriminator is None:
        # A union with one member is usually one made to grow (core/v1's PodSchedulingGroup).
        diagnostics.note(position, f"union of {typedef.name} has fewer than two members")
