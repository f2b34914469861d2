"""statussubresource: a root object with a `status` field enables the /status subresource
(`+kubebuilder:subresource:status`), and one that enables it has the field."""

from __future__ import annotations

from kgen.lint.engine import Context, fix, insert_line_above

STATUS_MARKER = "kubebuilder:subresource:status"


def check_statussubresource(ctx: Context) -> None:
    """A custom resource with a status has the status subresource (and the other way round)."""
    for t in ctx.types():
        struct = t.struct
        if struct is None or not t.markers.has_value("kubebuilder:object:root:=true", ctx.known):
            continue
        if struct.is_list_type(t.name):
            continue
        has_marker = t.markers.has(STATUS_MARKER)
        has_status = any(f.tag.name == "status" for f in struct.fields)
        if has_marker == has_status:
            continue
        line, col = struct.expr.position.line, struct.expr.position.col
        if has_marker:
            ctx.report(t.file, line, col, f'root object type "{t.name}" is marked to enable the status subresource with '
                                          f'marker "{STATUS_MARKER}" but has no status field', t.name)  # fmt: skip
            continue
        ctx.report(
            t.file, line, col,
            f'root object type "{t.name}" has a status field but does not have the marker "{STATUS_MARKER}" to enable '
            "the status subresource", t.name,
            fix("should add the kubebuilder:subresource:status marker",
                insert_line_above(t.file, t.decl.position.line, f"// +{STATUS_MARKER}")),
        )  # fmt: skip
