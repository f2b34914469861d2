"""Rules of the API conventions about kinds that no linter of Go types checks: every kind
has object metadata and a list (`listkinds`, `kindmetadata`), and its spec and status have
the conventional shape (`specstatus`).

The conventions (kubernetes/community, contributors/devel/sig-architecture/api-conventions.md,
"Objects", "Lists and Simple kinds", "Spec and Status"): an object kind carries `metadata`
(ObjectMeta) and TypeMeta inline; its list is `<Kind>List` with `metadata` (ListMeta) and
`items`; `spec` is the desired state and `status` the observed one, written by controllers
through /status, so status is optional.
"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.ir.model import Package, TypeDef
from kgen.lint.engine import Context, fix, replace
from kgen.lint.model import LintField, LintType

META_V1 = "k8s.io/apimachinery/pkg/apis/meta/v1"
_ROOT_MARKERS = ("genclient", "kubebuilder:object:root")


def _api_packages(ctx: Context) -> Iterator[Package]:
    universe = ctx.world.universe
    if universe is None:
        return
    for package in universe.generated_packages:
        if package.role == "api" and not package.builtin and package.import_path in ctx.world.linted:
            yield package


def _lint_type(ctx: Context, package: Package, typedef: TypeDef) -> LintType | None:
    found = ctx.world.packages.get(package.import_path)
    return found.types.get(typedef.name) if found is not None else None


def _served_kind(package: Package, typedef: TypeDef) -> bool:
    """A kind clients create and read: a client is generated for it, or it is a custom resource's root."""
    if typedef.kind != "struct" or typedef.is_list or not typedef.is_kind:
        return False
    return typedef.has_marker("genclient") or (
        package.custom_resources and typedef.has_marker("kubebuilder:object:root")
    )


def _has_list_verb(typedef: TypeDef) -> bool:
    """Whether the kind's client lists it (`+genclient:onlyVerbs=create` kinds, such as
    TokenReview, are only created: they have no list)."""
    if typedef.has_marker("genclient:noVerbs"):
        return False
    only = typedef.marker("genclient:onlyVerbs")
    if only is not None and "list" not in (only.value or []):
        return False
    skip = typedef.marker("genclient:skipVerbs")
    return not (skip is not None and "list" in (skip.value or []))


def _field(lint_type: LintType, json_name: str) -> LintField | None:
    struct = lint_type.struct
    if struct is None:
        return None
    return next((f for f in struct.fields if f.tag.name == json_name), None)


# -- kindmetadata ---------------------------------------------------------------------------


def check_kindmetadata(ctx: Context) -> None:
    """A served kind has TypeMeta inline and `metadata` of ObjectMeta (a list: of ListMeta), as `metadata,omitempty`."""
    for package in _api_packages(ctx):
        for typedef in package.types:
            lint_type = _lint_type(ctx, package, typedef)
            if lint_type is None or lint_type.struct is None:
                continue
            if _served_kind(package, typedef):
                _check_meta(ctx, lint_type, typedef, "ObjectMeta")
            elif typedef.is_list:
                _check_meta(ctx, lint_type, typedef, "ListMeta")


def _check_meta(ctx: Context, lint_type: LintType, typedef: TypeDef, meta: str) -> None:
    metadata = next((f for f in typedef.fields if f.json_name == "metadata"), None)
    if metadata is None or metadata.type.kind != "named" or metadata.type.name != meta:
        what = "kind" if meta == "ObjectMeta" else "list"
        ctx.report_type(lint_type, f"{what} {typedef.name} has no `metadata` field of metav1.{meta}: every API object "
                                   f'carries one (`metav1.{meta} `json:"metadata,omitempty"`)')  # fmt: skip
        return
    lint_field = _field(lint_type, "metadata")
    if lint_field is not None and not (lint_field.tag.omitempty or lint_field.tag.omitzero):
        tag = lint_field.tag
        edit_fix = None
        if tag.start >= 0:
            edit_fix = fix(
                "add omitempty to the json tag of metadata",
                replace(lint_field.file, tag.start, tag.end, f"{tag.raw},omitempty"),
            )
        ctx.report_field(lint_field, f"field {lint_field.qualified_name} is the object's metadata and should be "
                                     '`json:"metadata,omitempty"`: a client may send an object without it', edit_fix)  # fmt: skip


# -- listkinds ------------------------------------------------------------------------------


def check_listkinds(ctx: Context) -> None:
    """Every served kind has a `<Kind>List` in its package; every list is named `<Kind>List` and holds `items []<Kind>`."""
    for package in _api_packages(ctx):
        by_name = {t.name: t for t in package.types}
        for typedef in package.types:
            lint_type = _lint_type(ctx, package, typedef)
            if lint_type is None:
                continue
            if _served_kind(package, typedef) and _has_list_verb(typedef):
                listed = by_name.get(f"{typedef.name}List")
                if listed is None:
                    ctx.report_type(lint_type, f"kind {typedef.name} has no list type: declare {typedef.name}List with "
                                               f'`metav1.ListMeta `json:"metadata,omitempty"`` and `Items []{typedef.name} '
                                               '`json:"items"``, which list and watch answer with')  # fmt: skip
                elif not listed.is_list:
                    ctx.report_type(lint_type, f"kind {typedef.name} has {typedef.name}List, but it is not a list: a list "
                                               "inlines TypeMeta and has `metadata` (ListMeta) and `items`")  # fmt: skip
            if typedef.is_list:
                _check_list(ctx, lint_type, typedef)
            elif typedef.kind == "struct" and _lists_without_items(typedef):
                ctx.report_type(lint_type, f"{typedef.name} has list metadata but no `items` list: a list holds its "
                                           'objects in `Items []<Kind> `json:"items"``')  # fmt: skip


def _lists_without_items(typedef: TypeDef) -> bool:
    promoted = {
        m.type.name for m in typedef.members if m.promoted and m.type.kind == "named" and m.type.package == META_V1
    }
    metadata = next((f for f in typedef.fields if f.json_name == "metadata"), None)
    listmeta = metadata is not None and metadata.type.kind == "named" and metadata.type.name == "ListMeta"
    return "TypeMeta" in promoted and listmeta and not any(f.json_name == "items" for f in typedef.fields)


def _check_list(ctx: Context, lint_type: LintType, typedef: TypeDef) -> None:
    item = typedef.list_item
    item_name = item.name if item is not None and item.kind == "named" else None
    if not typedef.name.endswith("List"):
        ctx.report_type(lint_type, f"list {typedef.name} should be named {item_name or '<Kind>'}List: clients find a "
                                   "kind's list by that name")  # fmt: skip
    elif item_name is not None and typedef.name != f"{item_name}List":
        ctx.report_type(lint_type, f"list {typedef.name} holds {item_name} items; a kind's list is named "
                                   f"{item_name}List")  # fmt: skip
    if item is not None and item.kind == "pointer":
        items = _field(lint_type, "items")
        if items is not None:
            ctx.report_field(items, f"field {items.qualified_name} holds pointers: a list holds its objects by value "
                                    "(`[]Kind`), as clients decode it")  # fmt: skip


# -- specstatus -----------------------------------------------------------------------------


def check_specstatus(ctx: Context) -> None:
    """`spec` and `status` of a kind are `<Kind>Spec`/`<Kind>Status` structs; status is optional."""
    for package in _api_packages(ctx):
        for typedef in package.types:
            if not _served_kind(package, typedef):
                continue
            lint_type = _lint_type(ctx, package, typedef)
            if lint_type is None or lint_type.struct is None:
                continue
            for lint_field in lint_type.struct.fields:
                if lint_field.embedded:
                    continue
                go_name = lint_field.decl.names[0]
                for wanted in ("spec", "status"):
                    if (
                        go_name == wanted.capitalize()
                        and lint_field.tag.name not in ("", wanted)
                        and not lint_field.tag.missing
                    ):
                        ctx.report_field(lint_field, f"field {lint_field.qualified_name} is serialized as "
                                                     f'"{lint_field.tag.name}"; the {wanted} of an object is "{wanted}"')  # fmt: skip
            for wanted in ("spec", "status"):
                part = _field(lint_type, wanted)
                if part is not None:
                    _check_part(ctx, typedef, part, wanted)


def _check_part(ctx: Context, typedef: TypeDef, f: LintField, part: str) -> None:
    expr = f.type.elem if f.type.kind == "pointer" else f.type
    if expr is None or expr.kind not in ("ident", "qualified"):
        ctx.report_field(f, f"field {f.qualified_name} should be a struct type ({typedef.name}{part.capitalize()}), not "
                            f"{f.type.text}")  # fmt: skip
        return
    if expr.kind == "ident":
        spec = ctx.world.local_type(f.file, expr)
        if spec is not None and spec.decl.type.kind != "struct":
            ctx.report_field(f, f"field {f.qualified_name} should be a struct ({typedef.name}{part.capitalize()}); "
                                f"{spec.name} is {spec.decl.type.text}")  # fmt: skip
            return
    if part == "status" and not (f.tag.omitempty or f.tag.omitzero) and not f.tag.missing:
        tag = f.tag
        edit_fix = None
        if tag.start >= 0:
            edit_fix = fix(
                "add omitempty to the json tag of status", replace(f.file, tag.start, tag.end, f"{tag.raw},omitempty")
            )
        ctx.report_field(f, f"field {f.qualified_name} should be optional (`json:\"status,omitempty\"`): clients create "
                            "objects without a status, which controllers write", edit_fix)  # fmt: skip
    for marker in ("required", "kubebuilder:validation:Required", "k8s:required"):
        if part == "status" and f.markers.has(marker):
            ctx.report_field(f, f"field {f.qualified_name} is marked +{marker}; the status of an object is optional")
