"""The API of one revision, as `kgen compat` compares two of them.

A `Snapshot` holds every resource (group and kind) with its scope, plural and versions, and
each version's structural schema: the `openAPIV3Schema` of its CRD. Both kinds of input
reduce to it, so the schema rules are written once:

- Go types (`from_universe`): custom resources get the schema kgen's CRD generator writes
  for them (what the API server validates them with); kinds of Kubernetes' own groups get
  the same structural form of everything their types declare (validation-gen's tags
  included, which the API server enforces in code). The IR is kept beside it, for the rules
  only Go types can answer (JSON names, protobuf numbers, Go types) and to point findings
  at the Go field that causes them;
- CRD manifests (`kgen.compat.crdfiles`), for instance the CRDs of a published release.

A schema path is a tuple of steps: `("properties", name)`, `("items",)` or
`("additionalProperties",)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgen.diagnostics import Position
from kgen.generators import crd
from kgen.generators.schema import SchemaBuilder
from kgen.ir import facts
from kgen.ir.model import Field, TypeDef, TypeRef, Universe

Step = tuple[str, ...]
Steps = tuple[Step, ...]


@dataclass
class Version:
    """One version of a resource."""

    name: str
    served: bool
    storage: bool
    deprecated: bool
    schema: dict[str, Any]
    """The version's `openAPIV3Schema`."""
    kind: TypeDef | None = None
    """The kind's Go type in this version (Go input only)."""


@dataclass
class Resource:
    """A kind an API server serves, in its versions."""

    group: str
    kind: str
    plural: str
    scope: str
    """`Namespaced` or `Cluster`."""
    custom: bool
    """Served as a custom resource: its schema is what the API server validates it with."""
    versions: dict[str, Version] = field(default_factory=dict)
    position: Position | None = None
    """Where the resource is declared (its kind in the storage version, or its CRD)."""
    locate: Callable[[str, Steps], Position | None] | None = None
    """Where a schema path of a version is written (the Go field, or the CRD's YAML line)."""

    @property
    def storage(self) -> str | None:
        return next((v.name for v in self.versions.values() if v.storage), None)

    def where(self, version: str, steps: Steps) -> Position | None:
        found = self.locate(version, steps) if self.locate is not None else None
        return found or self.position


@dataclass
class Snapshot:
    """Every resource of one revision of an API."""

    label: str
    """How findings name the revision: `origin/main`, `the working tree`, a file."""
    resources: dict[tuple[str, str], Resource] = field(default_factory=dict)
    universe: Universe | None = None
    """The IR, when the revision was read from Go types."""
    relabel: Callable[[str], Position | None] = field(default=lambda text: _parse(text))
    """A position of the IR as findings show it (a file of an extracted revision, named
    after the revision)."""


def _parse(text: str) -> Position | None:
    if not text:
        return None
    try:
        return Position.parse(text)
    except ValueError:
        return Position(text)


# -- from Go types -----------------------------------------------------------------------------


class _ServedSchemas(SchemaBuilder):
    """Schemas of Kubernetes' own kinds with every constraint their types declare: the API
    server checks them all (validation-gen's tags in code), not just what controller-gen
    would publish for a CRD embedding them."""

    def rules(self, item, owner=None):  # type: ignore[no-untyped-def]
        return item.validation


def from_universe(
    universe: Universe,
    label: str,
    *,
    embedded_object_meta: bool = False,
    relabel: Callable[[str], Position | None] | None = None,
) -> Snapshot:
    """The resources of a universe built from Go types, with their CRD-form schemas."""
    snapshot = Snapshot(label, universe=universe)
    if relabel is not None:
        snapshot.relabel = relabel
    custom, _ = crd.resources(universe, embedded_object_meta)
    by_key = {(r.group, r.kind): r for r in custom}
    served = _ServedSchemas(universe, "crd", embedded_object_meta)
    for found in facts.resources(universe):
        resource = by_key.get((found.group, found.kind))
        if resource is None:
            resource = crd.Resource(
                found.group,
                found.kind,
                [crd.Version(v.package, v.kind, served.type_schema(v.kind), v.storage) for v in found.versions],
            )
        document = crd.manifest(resource)
        spec = document["spec"]
        kinds = {v.package.version: v.kind for v in resource.versions}
        main = next((v for v in resource.versions if v.storage), resource.versions[0])
        entry = Resource(
            group=found.group,
            kind=found.kind,
            plural=spec["names"]["plural"],
            scope=spec["scope"],
            custom=found.custom,
            position=snapshot.relabel(main.kind.position),
        )
        for version in spec["versions"]:
            kind = kinds[version["name"]]
            entry.versions[version["name"]] = Version(
                name=version["name"],
                served=version["served"],
                storage=version["storage"] and found.custom,
                deprecated=bool(version.get("deprecated"))
                or kind.has_marker("k8s:prerelease-lifecycle-gen:deprecated"),
                schema=version["schema"]["openAPIV3Schema"],
                kind=kind,
            )
        entry.locate = _go_locator(universe, entry, snapshot.relabel)
        snapshot.resources[(found.group, found.kind)] = entry
    return snapshot


def _go_locator(
    universe: Universe, resource: Resource, relabel: Callable[[str], Position | None]
) -> Callable[[str, Steps], Position | None]:
    def locate(version: str, steps: Steps) -> Position | None:
        entry = resource.versions.get(version)
        if entry is None or entry.kind is None:
            return None
        owner, found, _ = field_at(universe, entry.kind, steps)
        if found is not None and found.position:
            return relabel(found.position)
        if owner is not None and owner.position:
            return relabel(owner.position)
        return relabel(entry.kind.position)

    return locate


def _unwrap(universe: Universe, ref: TypeRef) -> tuple[TypeRef, TypeDef | None]:
    """A reference without its pointers and named non-struct types, and the struct (or
    well-known type) it ends at, if any."""
    seen = 0
    while seen < 64:
        seen += 1
        if ref.kind == "pointer" and ref.elem is not None:
            ref = ref.elem
            continue
        if ref.kind == "named":
            typedef = universe.resolve(ref)
            if typedef.kind == "named" and typedef.underlying is not None:
                ref = typedef.underlying
                continue
            return ref, typedef
        return ref, None
    return ref, None


def field_at(universe: Universe, kind: TypeDef, steps: Steps) -> tuple[TypeDef | None, Field | None, Steps]:
    """The Go field a schema path leads to: the struct that declares the last property of the
    path, that field, and the steps after it (list items, map values). Where the path leaves
    the Go types (a well-known type, arbitrary JSON), what was reached so far."""
    owner: TypeDef | None = kind
    found: Field | None = None
    rest: Steps = ()
    ref = TypeRef(kind="named", package=kind.package, name=kind.name)
    for index, step in enumerate(steps):
        ref, typedef = _unwrap(universe, ref)
        if step[0] == "properties":
            if typedef is None or typedef.kind != "struct":
                return owner, found, rest + steps[index:]
            member = next((f for f in typedef.fields if f.json_name == step[1]), None)
            if member is None:
                return typedef, None, steps[index:]
            owner, found, rest = typedef, member, ()
            ref = member.type
        else:
            if ref.kind not in ("slice", "map") or ref.elem is None:
                return owner, found, rest + steps[index:]
            rest = rest + (step,)
            ref = ref.elem
    return owner, found, rest


def display_path(steps: Steps) -> str:
    """A schema path as field paths are written: `spec.ports[*].name`, map values `[*]` too."""
    out = ""
    for step in steps:
        if step[0] == "properties":
            out += ("." if out else "") + step[1]
        else:
            out += "[*]"
    return out


def node_at(schema: dict[str, Any] | None, steps: Steps) -> dict[str, Any] | None:
    """The schema node a path leads to, or None."""
    node = schema
    for step in steps:
        if not isinstance(node, dict):
            return None
        if step[0] == "properties":
            node = (node.get("properties") or {}).get(step[1])
        elif step[0] == "items":
            node = node.get("items")
        else:
            node = node.get("additionalProperties")
    return node if isinstance(node, dict) else None
