"""Rules about whether a field must be set: optionalorrequired, optionalfields,
requiredfields, nonpointerstructs, arrayofstruct, statusoptional and defaults."""

from __future__ import annotations

import json

from kgen.findings import Edit
from kgen.lint.engine import Context, fix, insert_line_above, remove_line, replace, replace_marker
from kgen.lint.markers import Marker
from kgen.lint.model import LintField, LintStruct
from kgen.lint.serialization import Policies, SerializationCheck
from kgen.lint.typeinfo import OPTIONAL_MARKERS, REQUIRED_MARKERS, is_optional, is_required, is_struct_type
from kgen.markers.grammar import RawMarker
from kgen.markers.registry import REGISTRY, Scope
from kgen.diagnostics import Diagnostics, Position

OPTIONAL, REQUIRED = "optional", "required"
KB_OPTIONAL, KB_REQUIRED = "kubebuilder:validation:Optional", "kubebuilder:validation:Required"
K8S_OPTIONAL, K8S_REQUIRED = "k8s:optional", "k8s:required"


def _remove_markers(f: LintField, markers: list[Marker]) -> list[Edit]:
    return [remove_line(f.file, m.line) for m in markers if m.path == f.file.path]


# -- optionalorrequired ----------------------------------------------------------------------


def check_optionalorrequired(ctx: Context) -> None:
    """Every field says whether it is optional or required, with the preferred marker."""
    primary_optional = ctx.options["preferredOptionalMarker"]
    secondary_optional = KB_OPTIONAL if primary_optional == OPTIONAL else OPTIONAL
    primary_required = ctx.options["preferredRequiredMarker"]
    secondary_required = KB_REQUIRED if primary_required == REQUIRED else REQUIRED
    for f in ctx.fields():
        if f.tag.inline:
            continue
        markers = f.markers
        prefix = f"embedded field {f.qualified_name}" if f.embedded else f"field {f.qualified_name}"
        has = markers.has
        either_optional = has(primary_optional) or has(secondary_optional)
        either_required = has(primary_required) or has(secondary_required)
        if has(K8S_OPTIONAL) and has(K8S_REQUIRED):
            ctx.report_field(f, f"{prefix} must not be marked as both {K8S_OPTIONAL} and {K8S_REQUIRED}")
        if has(K8S_OPTIONAL) and either_required:
            ctx.report_field(f, f"{prefix} must not be marked as both {K8S_OPTIONAL} and {REQUIRED}")
        if has(K8S_REQUIRED) and either_optional:
            ctx.report_field(f, f"{prefix} must not be marked as both {OPTIONAL} and {K8S_REQUIRED}")
        if either_optional and either_required:
            ctx.report_field(f, f"{prefix} must not be marked as both optional and required")
        elif has(secondary_optional):
            _secondary(ctx, f, prefix, primary_optional, secondary_optional)
        elif has(secondary_required):
            _secondary(ctx, f, prefix, primary_required, secondary_required)
        elif not (has(primary_optional) or has(primary_required)):
            ctx.report_field(f, f"{prefix} must be marked as {primary_optional} or {primary_required}")
    for t in ctx.types():
        for marker in t.markers:
            if marker.identifier in (primary_optional, secondary_optional, primary_required, secondary_required,
                                     K8S_OPTIONAL, K8S_REQUIRED):  # fmt: skip
                ctx.report_type(t, f"type {t.name} should not be marked as {marker}",
                                fix(f"should remove `// +{marker}`", remove_line(t.file, marker.line)))  # fmt: skip


def _secondary(ctx: Context, f: LintField, prefix: str, primary: str, secondary: str) -> None:
    found = f.markers.get(secondary)
    if f.markers.has(primary):
        ctx.report_field(f, f"{prefix} should use only the marker {primary}, {secondary} is not required",
                         fix(f"should remove `// +{secondary}`", *_remove_markers(f, found)))  # fmt: skip
        return
    edits = [replace_marker(found[0], f.file, f"// +{primary}"), *_remove_markers(f, found[1:])]
    ctx.report_field(f, f"{prefix} should use marker {primary} instead of {secondary}",
                     fix(f"should replace `{secondary}` with `{primary}`", *edits))  # fmt: skip


# -- optionalfields / requiredfields ---------------------------------------------------------


def check_optionalfields(ctx: Context) -> None:
    """An optional field can be told unset from zero: a pointer (when its zero value is valid) with omitempty."""
    policies = Policies(
        pointer_policy=ctx.options["pointers.policy"], pointer_preference=ctx.options["pointers.preference"],
        omitempty=ctx.options["omitempty.policy"], omitzero=ctx.options["omitzero.policy"],
    )  # fmt: skip
    check = SerializationCheck(ctx, policies)
    for f in ctx.fields():
        if not f.embedded and is_optional(f):
            check.check(f)


def check_requiredfields(ctx: Context) -> None:
    """A required field whose zero value is valid is a pointer; every required field has omitempty (or omitzero)."""
    policies = Policies(
        pointer_policy=ctx.options["pointers.policy"], pointer_preference="WhenRequired",
        omitempty=ctx.options["omitempty.policy"], omitzero=ctx.options["omitzero.policy"],
    )  # fmt: skip
    check = SerializationCheck(ctx, policies)
    for f in ctx.fields():
        if not f.embedded and is_required(f):
            check.check(f)


# -- nonpointerstructs -----------------------------------------------------------------------


def _non_pointer_struct(ctx: Context, f: LintField) -> LintStruct | None:
    file, expr = f.file, f.type
    for _ in range(32):
        if expr.kind == "struct":
            return file.package.structs_by_expr.get(id(expr))
        if expr.kind != "ident":
            return None
        spec = ctx.world.local_type(file, expr)
        if spec is None:
            return None
        file, expr = spec.file, spec.decl.type
    return None


def _has_required_field(struct: LintStruct) -> bool:
    if any(is_required(member) for member in struct.fields):
        return True
    minimum = "kubebuilder:validation:MinProperties"
    return struct.markers.has(minimum) and not struct.markers.has_value(f"{minimum}=0")


def check_nonpointerstructs(ctx: Context) -> None:
    """A struct field that is not a pointer is required when the struct has required fields, else optional."""
    for f in ctx.fields():
        if f.tag.inline:
            continue
        struct = _non_pointer_struct(ctx, f)
        if struct is None:
            continue
        has_required = _has_required_field(struct)
        optional, required = is_optional(f), is_required(f)
        if (has_required and required) or (not has_required and optional):
            continue
        if has_required:
            wrong = [m for name in OPTIONAL_MARKERS for m in f.markers.get(name)]
            marker, message = (
                ctx.options["preferredRequiredMarker"],
                "with required fields. It must be marked as required.",
            )
            description = "should mark the field as required"
        else:
            wrong = [m for name in REQUIRED_MARKERS for m in f.markers.get(name)]
            marker, message = (
                ctx.options["preferredOptionalMarker"],
                "with no required fields. It must be marked as optional.",
            )
            description = "should mark the field as optional"
        edits = [*_remove_markers(f, wrong), insert_line_above(f.file, f.line, f"// +{marker}")]
        ctx.report_field(f, f"field {f.qualified_name} is a non-pointer struct {message}", fix(description, *edits))


# -- arrayofstruct ---------------------------------------------------------------------------


def _array_element(ctx: Context, f: LintField):
    expr = f.type
    if expr.kind in ("slice", "array"):
        return f.file, expr.elem
    if expr.kind == "ident":
        spec = ctx.world.local_type(f.file, expr)
        if spec is not None and spec.decl.type.kind in ("slice", "array"):
            return spec.file, spec.decl.type.elem
    return f.file, None


def check_arrayofstruct(ctx: Context) -> None:
    """Items of a list of structs have a required field, so that no item can be written as `{}` in YAML."""
    for f in ctx.fields():
        file, elem = _array_element(ctx, f)
        if elem is None:
            continue
        if elem.kind == "pointer":
            elem = elem.elem
        struct = None
        for _ in range(32):
            if elem is None or elem.kind == "qualified" or ctx.world.is_basic(file, elem):
                break
            if elem.kind == "struct":
                struct = file.package.structs_by_expr.get(id(elem))
                break
            if elem.kind != "ident":
                break
            spec = ctx.world.local_type(file, elem)
            if spec is None:
                break
            file, elem = spec.file, spec.decl.type
            if elem.kind == "pointer":
                break  # a named pointer type is not a struct
        if struct is None:
            continue
        if struct.markers.has("kubebuilder:validation:ExactlyOneOf") or any(is_required(m) for m in struct.fields):
            continue
        ctx.report_field(f, f"{f.qualified_name} is an array of structs, but the struct has no required fields. At least "
                            "one field should be marked as required to prevent ambiguous YAML configurations")  # fmt: skip


# -- statusoptional --------------------------------------------------------------------------


def _status_struct(ctx: Context, f: LintField) -> LintStruct | None:
    if f.type.kind != "ident":
        return None
    spec = ctx.world.local_type(f.file, f.type)
    if spec is None or spec.decl.type.kind != "struct":
        return None
    return spec.struct


def check_statusoptional(ctx: Context) -> None:
    """Every field of a status is optional: status is written by controllers, piece by piece."""
    preferred = ctx.options["preferredOptionalMarker"]
    for f in ctx.fields():
        if f.tag.name != "status":
            continue
        _check_status(ctx, _status_struct(ctx, f), preferred, set())


def _check_status(ctx: Context, struct: LintStruct | None, preferred: str, seen: set[int]) -> None:
    if struct is None or id(struct) in seen:
        return
    seen.add(id(struct))
    for child in struct.fields:
        if not child.name or child.tag.ignored:
            continue
        if child.tag.inline:
            if not child.embedded:
                continue
            _check_status(ctx, _status_struct(ctx, child), preferred, seen)
            continue
        if is_optional(child):
            continue
        required = [m for name in REQUIRED_MARKERS for m in child.markers.get(name)]
        add = insert_line_above(child.file, child.line, f"// +{preferred}")
        if required:
            ctx.report_field(child, f'status field "{child.name}" must be marked as optional, not required',
                             fix(f"replace required marker(s) with {preferred}", *_remove_markers(child, required), add))  # fmt: skip
        else:
            ctx.report_field(
                child, f'status field "{child.name}" must be marked as optional', fix("add the optional marker", add)
            )


# -- defaults --------------------------------------------------------------------------------

DEFAULT, KB_DEFAULT, K8S_DEFAULT = "default", "kubebuilder:default", "k8s:default"


def _value_text(marker: Marker) -> str:
    """What follows the identifier's `=` as written (the whole value, which a payload may cut short)."""
    text = str(marker)
    for form in (f"{marker.identifier}:=", f"{marker.identifier}="):
        if text.startswith(form):
            return text[len(form) :]
    return marker.payload


def _as_gengo_default(marker: Marker) -> str | None:
    """A `+kubebuilder:default` value written as `+default` takes it (JSON), or None when it does not parse."""
    value = _value_text(marker)
    raw = RawMarker(f"kubebuilder:default={value}", Position(marker.path, marker.line, marker.col))
    parsed = REGISTRY.parse(raw, Scope.FIELD, Diagnostics())
    if parsed is None:
        return None
    return json.dumps(parsed.value, separators=(",", ":"), ensure_ascii=False)


def _default_text(marker: Marker, preferred: str) -> str | None:
    if preferred == DEFAULT and marker.identifier == KB_DEFAULT:
        value = _as_gengo_default(marker)
        return None if value is None else f"// +{preferred}={value}"
    return f"// +{preferred}={_value_text(marker)}"


def check_defaults(ctx: Context) -> None:
    """A field with a default is optional, has omitempty (omitzero for a struct) and uses the preferred marker."""
    preferred = ctx.options["preferredDefaultMarker"]
    secondary = KB_DEFAULT if preferred == DEFAULT else DEFAULT
    omitempty_policy, omitzero_policy = ctx.options["omitempty.policy"], ctx.options["omitzero.policy"]
    for f in ctx.fields():
        if f.embedded:
            continue
        markers = f.markers
        has_preferred, has_secondary, has_k8s = markers.has(preferred), markers.has(secondary), markers.has(K8S_DEFAULT)
        if not (has_preferred or has_secondary or has_k8s):
            continue
        if has_k8s and not (has_preferred or has_secondary):
            for marker in markers.get(K8S_DEFAULT):
                ctx.report_field(f, f"field {f.qualified_name} has +{K8S_DEFAULT} but should also have +{preferred} marker",
                                 fix(f"add +{preferred}={marker.payload}",
                                     insert_line_above(f.file, marker.line, f"// +{preferred}={marker.payload}")))  # fmt: skip
        if has_secondary:
            found = markers.get(secondary)
            if has_preferred:
                ctx.report_field(f, f"field {f.qualified_name} should use only the marker +{preferred}, +{secondary} is not required",
                                 fix(f"remove +{secondary}", *_remove_markers(f, found)))  # fmt: skip
            else:
                text = _default_text(found[0], preferred)
                edit_fix = None
                if text is not None:
                    edit_fix = fix(f"replace +{secondary} with +{preferred}", replace_marker(found[0], f.file, text),
                                   *_remove_markers(f, found[1:]))  # fmt: skip
                ctx.report_field(
                    f, f"field {f.qualified_name} should use +{preferred} marker instead of +{secondary}", edit_fix
                )
        if is_required(f):
            ctx.report_field(
                f, f"field {f.qualified_name} has a default value but is marked as required, which is contradictory"
            )
        elif not is_optional(f):
            ctx.report_field(f, f"field {f.qualified_name} has a default value but is not marked as optional")
        _check_omit(ctx, f, omitempty_policy, omitzero_policy)


def _check_omit(ctx: Context, f: LintField, omitempty_policy: str, omitzero_policy: str) -> None:
    tag = f.tag
    if tag.inline or tag.ignored or tag.missing:
        return
    is_struct = f.type.kind != "pointer" and is_struct_type(ctx.world, f.file, f.type)
    if is_struct and omitzero_policy != "Forbid":
        if tag.omitzero:
            return
        if tag.omitempty:
            new = ",".join("omitzero" if part == "omitempty" else part for part in tag.raw.split(","))
            description = f"replace omitempty with omitzero in the json tag of field {f.qualified_name}"
        else:
            new, description = f"{tag.raw},omitzero", f"add omitzero to the json tag of field {f.qualified_name}"
        edit_fix = (
            fix(description, replace(f.file, tag.start, tag.end, new))
            if omitzero_policy == "SuggestFix" and tag.start >= 0
            else None
        )
        ctx.report_field(
            f, f"field {f.qualified_name} has a default value but does not have omitzero in its json tag", edit_fix
        )
        return
    if omitempty_policy != "Ignore" and not tag.omitempty:
        edit_fix = None
        if omitempty_policy == "SuggestFix" and tag.start >= 0:
            edit_fix = fix(f"add omitempty to the json tag of field {f.qualified_name}",
                           replace(f.file, tag.start, tag.end, f"{tag.raw},omitempty"))  # fmt: skip
        ctx.report_field(
            f, f"field {f.qualified_name} has a default value but does not have omitempty in its json tag", edit_fix
        )
