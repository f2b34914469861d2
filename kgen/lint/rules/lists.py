"""ssatags: every list says how server-side apply merges it (`+listType=atomic|set|map`), a
map list names existing keys, a set of objects is discouraged, a byte string is no list."""

from __future__ import annotations

from kgen.lint.engine import Context, fix, remove_line
from kgen.lint.model import LintField, LintStruct
from kgen.lint.typeinfo import is_array_type_or_alias, is_byte_array, is_object_list, with_type_markers

LIST_TYPES = ("atomic", "set", "map")
SET_USAGE = ("Warn", "Ignore")


def check_ssatags(ctx: Context) -> None:
    """Lists carry a valid listType (map lists their listMapKey), for server-side apply."""
    for f in ctx.fields():
        if not is_array_type_or_alias(ctx.world, f):
            continue
        markers = with_type_markers(ctx.world, f)
        name = f.qualified_name
        if is_byte_array(ctx.world, f):
            for marker in markers.get("listType"):
                ctx.report_field(f, f"{name} is a byte array, which does not support the listType marker. Remove the listType marker",
                                 fix(f"Remove listType marker from {name}", remove_line(f.file, marker.line)))  # fmt: skip
            continue
        found = markers.get("listType")
        if not found:
            ctx.report_field(
                f, f"{name} should have a listType marker for proper Server-Side Apply behavior (atomic, set, or map)"
            )
            continue
        for marker in found:
            list_type = marker.payload
            if list_type not in LIST_TYPES:
                ctx.report_field(f, f'{name} has invalid listType "{list_type}", must be one of: atomic, set, map')
            if list_type == "map":
                _check_map(ctx, f, markers.get("listMapKey"))
            if list_type == "set" and ctx.options["listTypeSetUsage"] != "Ignore" and is_object_list(ctx.world, f):
                ctx.report_field(f, f"{name} with listType=set is not recommended due to Server-Side Apply compatibility "
                                    "issues. Consider using listType=atomic or listType=map instead")  # fmt: skip


def _check_map(ctx: Context, f: LintField, keys) -> None:
    name = f.qualified_name
    if not is_object_list(ctx.world, f):
        ctx.report_field(f, f"{name} with listType=map can only be used for object lists, not primitive lists")
        return
    if not keys:
        ctx.report_field(f, f"{name} with listType=map must have at least one listMapKey marker")
        return
    names = _item_json_names(ctx, f)
    if names is None:
        return
    for marker in keys:
        if marker.payload and marker.payload not in names:
            ctx.report_field(f, f'{name} listMapKey "{marker.payload}" does not exist as a field in the struct')


def _item_json_names(ctx: Context, f: LintField) -> set[str] | None:
    expr = f.type.elem if f.type.kind in ("slice", "array") else f.type
    file = f.file
    while expr is not None and expr.kind == "pointer":
        expr = expr.elem
    if expr is None or expr.kind != "ident":
        return None
    spec = ctx.world.local_type(file, expr)
    if spec is None or spec.struct is None:
        return None
    return _flattened_names(ctx, spec.struct, set())


def _flattened_names(ctx: Context, struct: LintStruct, seen: set[int]) -> set[str]:
    seen.add(id(struct))
    names: set[str] = set()
    for member in struct.fields:
        if member.decl.names or member.tag.name:
            names.add(member.tag.name)
            continue
        spec = ctx.world.local_type(member.file, member.type)
        if spec is not None and spec.struct is not None and id(spec.struct) not in seen:
            names |= _flattened_names(ctx, spec.struct, seen)
    return names
