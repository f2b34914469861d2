"""conditions: a `Conditions` field is a `[]metav1.Condition` list keyed by type, optional,
first in its struct, with the tags built-in APIs need (strategic merge patch, protobuf)."""

from __future__ import annotations

import re

from kgen.lint.engine import Context, fix, insert_lines_above, remove_line, replace
from kgen.lint.model import LintField

FIRST_FIELD = ("Warn", "Ignore")
PROTOBUF = ("SuggestFix", "Warn", "Ignore", "Forbid")
PATCH_STRATEGY = ("SuggestFix", "Warn", "Ignore", "Forbid")
_JSON = 'json:"conditions,omitempty"'
_PATCH = 'patchStrategy:"merge" patchMergeKey:"type"'


def _protobuf(number: int) -> str:
    return f'protobuf:"bytes,{number},rep,name=conditions"'


def check_conditions(ctx: Context) -> None:
    """Conditions fields follow the conventions (`[]metav1.Condition`, listType=map keyed by type, optional)."""
    first_field, use_protobuf, use_patch = (
        ctx.options["isFirstField"], ctx.options["useProtobuf"], ctx.options["usePatchStrategy"],
    )  # fmt: skip
    for struct in ctx.structs():
        if not struct.name:
            continue
        for f in struct.fields:
            if f.embedded or f.decl.names[0] != "Conditions":
                continue
            if not _is_condition_slice(f):
                ctx.report_field(f, f"Conditions field in {struct.name} must be a slice of metav1.Condition")
                continue
            _check_markers(ctx, f, struct.name, use_patch)
            _check_tags(ctx, f, struct.name, first_field, use_protobuf, use_patch)
            if first_field == "Warn" and f.index != 0:
                ctx.report_field(f, f"Conditions field in {struct.name} must be the first field in the struct")


def _is_condition_slice(f: LintField) -> bool:
    expr = f.type
    return (
        expr.kind == "slice" and expr.elem is not None and expr.elem.kind == "qualified"
        and expr.elem.package == "metav1" and expr.elem.name == "Condition"
    )  # fmt: skip


def _check_markers(ctx: Context, f: LintField, struct: str, use_patch: str) -> None:
    markers = f.markers
    missing = [m for m in ("listType=map", "listMapKey=type") if not markers.has_value(m, ctx.known)]
    extra = []
    if use_patch in ("SuggestFix", "Warn"):
        missing += [m for m in ("patchStrategy=merge", "patchMergeKey=type") if not markers.has_value(m, ctx.known)]
    elif use_patch == "Forbid":
        if markers.has_value("patchStrategy=merge", ctx.known):
            extra += markers.get("patchStrategy")
        if markers.has_value("patchMergeKey=type", ctx.known):
            extra += markers.get("patchMergeKey")
    if not markers.has("optional"):
        missing.append("optional")
    if missing:
        patch_only = all(m in ("patchStrategy=merge", "patchMergeKey=type") for m in missing)
        edit_fix = None
        if use_patch != "Warn" or not patch_only:
            edit_fix = fix("Add missing markers", insert_lines_above(f.file, f.line, *(f"// +{m}" for m in missing)))
        ctx.report_field(
            f, f"Conditions field in {struct} is missing the following markers: {', '.join(missing)}", edit_fix
        )
    if extra:
        ctx.report_field(
            f, f"Conditions field in {struct} has the following additional markers: {', '.join(str(m) for m in extra)}",
            fix("Remove additional markers", *(remove_line(f.file, m.line) for m in extra)),
        )  # fmt: skip


def _expected_tag(f: LintField, first_field: str, use_protobuf: str, use_patch: str) -> str:
    parts = [_JSON]
    if use_patch in ("SuggestFix", "Warn"):
        parts.append(_PATCH)
    if use_protobuf in ("SuggestFix", "Warn"):
        parts.append(_protobuf(_protobuf_number(f, first_field)))
    return "`" + " ".join(parts) + "`"


def _protobuf_number(f: LintField, first_field: str) -> int:
    """The field number the tag should carry: the one it has (a protobuf field keeps its number;
    renumbering breaks the wire format); else 1 (or its position, when it need not be first)
    unless another field has that number, then the highest number + 1."""
    existing = _PROTOBUF_NUMBER.search(f.decl.tag or "")
    if existing:
        return int(existing.group(1))
    wanted = 1 if first_field == "Warn" else f.index + 1
    used = {
        int(m.group(1))
        for other in f.struct.fields
        if other is not f and (m := _PROTOBUF_NUMBER.search(other.decl.tag or "")) is not None
    }
    return wanted if wanted not in used else max(used) + 1


_PROTOBUF_NUMBER = re.compile(r'protobuf:"[a-z0-9]+,(\d+),')


def _check_tags(ctx: Context, f: LintField, struct: str, first_field: str, use_protobuf: str, use_patch: str) -> None:
    expected = _expected_tag(f, first_field, use_protobuf, use_patch)
    if f.decl.tag is None or f.decl.tag_position is None:
        type_start = f.file.offset(f.type.position.line, f.type.position.col)
        end = type_start + len(f.type.text.encode())
        ctx.report_field(f, f"Conditions field in {struct} is missing tags, should be: {expected}",
                         fix(f"Add missing tags: {expected}", replace(f.file, end, end, " " + expected)))  # fmt: skip
        return
    tag = f.decl.tag
    number = _protobuf_number(f, first_field)
    patch_ok, patch_fix = {
        "SuggestFix": (_PATCH in tag, True), "Warn": (_PATCH in tag, False), "Ignore": (True, False),
        "Forbid": (_PATCH not in tag, True),
    }[use_patch]  # fmt: skip
    proto_ok, proto_fix = {
        "SuggestFix": (_protobuf(number) in tag, True), "Warn": (_protobuf(number) in tag, False),
        "Ignore": (True, False), "Forbid": (_protobuf(number) not in tag, True),
    }[use_protobuf]  # fmt: skip
    if patch_ok and proto_ok:
        return
    position = f.decl.tag_position
    message = f"Conditions field in {struct} has incorrect tags, should be: {expected}"
    edit_fix = None
    if patch_fix or proto_fix:
        start = f.file.offset(position.line, position.col)
        literal_end = f.file.source.index(b"`", start + 1) + 1 if f.file.source[start : start + 1] == b"`" else -1
        if literal_end > 0:
            edit_fix = fix(f"Update tags to: {expected}", replace(f.file, start, literal_end, expected))
    ctx.report(f.file, position.line, position.col, message, f.qualified_name, edit_fix)


# -- conditiontypes (kgen) -------------------------------------------------------------------

_CONDITION_FIELDS = {"type": "the condition's name (CamelCase, e.g. Ready)", "status": "True, False or Unknown"}


def check_conditiontypes(ctx: Context) -> None:
    """A condition type of its own (not metav1.Condition) has `type` and `status`, and its list is keyed by type."""
    for f in ctx.fields():
        if f.tag.name != "conditions" or f.type.kind != "slice" or _is_condition_slice(f):
            continue
        elem = f.type.elem
        if elem is not None and elem.kind == "pointer":
            elem = elem.elem
        spec = ctx.world.local_type(f.file, elem) if elem is not None else None
        if spec is None or spec.struct is None:
            continue
        names = {member.tag.name for member in spec.struct.fields}
        missing = [n for n in _CONDITION_FIELDS if n not in names]
        if missing:
            wanted = "; ".join(f"`{n}` ({_CONDITION_FIELDS[n]})" for n in missing)
            ctx.report_field(f, f"field {f.qualified_name} holds {spec.name}, which has no {wanted}: a condition says "
                                "what it is about and whether it holds (metav1.Condition is the usual type)")  # fmt: skip
        if "lastTransitionTime" not in names and not missing:
            ctx.report_field(f, f"field {f.qualified_name} holds {spec.name}, which has no `lastTransitionTime`: clients "
                                "tell from it when the condition last changed", severity=None)  # fmt: skip
