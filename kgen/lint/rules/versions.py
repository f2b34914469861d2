"""versionmarkers: the versions of one kind agree on how a field merges and changes.

Server-side apply and strategic merge patch merge a list or map by its `listType`,
`listMapKey`, `mapType` and `structType` in the version of the request, and the managed
fields of every version describe the same stored object; a field that is a map list in
one version and atomic in another, or immutable in one and not the other, behaves
differently depending on the version a client happens to use. Defaults may differ
between versions (Kubernetes changes them deliberately) and are not compared.
"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.diagnostics import Position
from kgen.ir.facts import resources
from kgen.ir.model import Field, TypeRef, Universe
from kgen.lint.engine import Context

_MAX_DEPTH = 12


def _shape(universe: Universe, ref: TypeRef) -> str:
    """slice, map or struct (through pointers and names), or "" for a scalar."""
    for _ in range(_MAX_DEPTH):
        if ref.kind == "pointer" and ref.elem is not None:
            ref = ref.elem
        elif ref.kind == "named":
            typedef = universe.resolve(ref)
            if typedef.kind == "struct":
                return "struct"
            if typedef.underlying is None:
                return ""
            ref = typedef.underlying
        else:
            return ref.kind if ref.kind in ("slice", "map") else ""
    return ""


def _semantics(universe: Universe, f: Field) -> dict[str, str]:
    """What merges and changes the field: the markers that apply to its shape (a listType on
    a scalar, which upstream types sometimes carry, does nothing) and immutability."""
    v = f.validation
    shape = _shape(universe, f.type)
    found: dict[str, str] = {}
    if shape == "slice" and v.list_type:
        found["listType"] = v.list_type
    if shape == "slice" and v.list_map_keys:
        found["listMapKey"] = ",".join(v.list_map_keys)
    for name, wanted in (("mapType", "map"), ("structType", "struct")):
        marker = f.marker(name)
        if marker is not None and shape == wanted:
            found[name] = str(marker.value)
    if v.immutable:
        found["immutable"] = "true"
    return found


def _fields(
    universe: Universe, ref: TypeRef | None, prefix: str, depth: int, seen: frozenset[str]
) -> Iterator[tuple[str, Field]]:
    while ref is not None and ref.kind in ("pointer", "slice", "map"):
        ref = ref.elem
    if ref is None or ref.kind != "named" or depth > _MAX_DEPTH:
        return
    key = f"{ref.package}.{ref.name}"
    if key in seen:
        return
    typedef = universe.resolve(ref)
    if typedef.kind != "struct":
        return
    for f in typedef.fields:
        if f.json_name in ("metadata", "apiVersion", "kind") and depth == 0:
            continue
        path = f"{prefix}.{f.json_name}" if prefix else f.json_name
        yield path, f
        yield from _fields(universe, f.type, path, depth + 1, seen | {key})


def check_versionmarkers(ctx: Context) -> None:
    """A field's list, map and struct semantics and immutability are the same in every version of its kind."""
    universe = ctx.world.universe
    if universe is None:
        return
    files = {f.path: f for p in ctx.world.linted_packages() for f in p.files}
    for resource in resources(universe):
        if len(resource.versions) < 2:
            continue
        reference = next((v for v in resource.versions if v.storage), resource.versions[0])
        ref_fields = dict(
            _fields(
                universe,
                TypeRef(kind="named", package=reference.kind.package, name=reference.kind.name),
                "",
                0,
                frozenset(),
            )
        )
        for version in resource.versions:
            if version is reference or version.package.import_path not in ctx.world.linted:
                continue
            root = TypeRef(kind="named", package=version.kind.package, name=version.kind.name)
            for path, f in _fields(universe, root, "", 0, frozenset()):
                other = ref_fields.get(path)
                if other is None:
                    continue
                mine, theirs = _semantics(universe, f), _semantics(universe, other)
                if mine == theirs or not f.position:
                    continue
                where = Position.parse(f.position)
                lint_file = files.get(where.path)
                if lint_file is None:
                    continue
                ctx.report(
                    lint_file, where.line, where.col,
                    f"{resource.kind} {version.package.version} field {path} is {_describe(mine)} but "
                    f"{_describe(theirs)} in {reference.package.version} ({other.position}): apply and patch through "
                    "the two versions would merge or change it differently",
                    f"{resource.kind}.{version.package.version}.{path}",
                )  # fmt: skip


def _describe(semantics: dict[str, str]) -> str:
    if not semantics:
        return "unmarked (granular, mutable)"
    return ", ".join(f"+{k}={v}" if k != "immutable" else "immutable" for k, v in sorted(semantics.items()))
