"""Facts of an API derived from the IR, computed once per universe and shared by every
generator, check and server that needs them: which kinds a package serves, which version
stores each kind, and which kinds are served as custom resources (one CRD each).

Nothing here writes output; generators turn these facts into files.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from kgen.ir.model import Package, TypeDef, Universe
from kgen.runtime.scheme import version_priority

STORAGE_MARKERS = ("kgen:storageVersion", "kubebuilder:storageversion")

_T = TypeVar("_T")


def per_universe(compute: Callable[[Universe], _T]) -> Callable[[Universe], _T]:
    """Memoise `compute(universe)` for the latest universe: generators ask it once per package."""
    last: tuple[Universe, _T] | None = None

    @functools.wraps(compute)
    def cached(universe: Universe) -> _T:
        nonlocal last
        if last is None or last[0] is not universe:
            last = (universe, compute(universe))
        return last[1]

    return cached


def served_kinds(package: Package) -> list[TypeDef]:
    """The package's kinds and lists (what its register.py registers)."""
    return [t for t in package.types if t.kind == "struct" and (t.is_kind or t.is_list)]


def _served(universe: Universe) -> dict[str, list[Package]]:
    """The external versions of each API group of the input that serve kinds."""
    groups: dict[str, list[Package]] = defaultdict(list)
    for package in universe.generated_packages:
        if package.role == "api" and not package.internal and served_kinds(package):
            groups[package.group].append(package)
    return groups


def _marked(typedef: TypeDef) -> bool:
    return any(typedef.has_marker(m) for m in STORAGE_MARKERS)


@dataclass(frozen=True)
class Storage:
    versions: dict[tuple[str, str], str]
    """The storage version of each (group, kind)."""
    problems: list[tuple[str, str]]
    """(position, message) of kinds whose storage version is not clear."""


def _storage(universe: Universe) -> Storage:
    """The storage version of every kind, decided per kind (a group may store its kinds in
    different versions, as Gateway API stores ReferenceGrant in v1beta1 and the rest in v1).

    A kind served in one version is stored in it. A kind served in several is stored in
    the version whose kind is marked `+kubebuilder:storageversion` (or `+kgen:storageVersion`);
    custom resources must mark exactly one, as controller-gen requires. Kubernetes' own
    groups mark none (the API server chooses): their kinds are stored in the preferred
    version, GA before beta before alpha."""
    versions: dict[tuple[str, str], str] = {}
    problems: list[tuple[str, str]] = []
    for group, packages in sorted(_served(universe).items()):
        by_kind: dict[str, list[tuple[Package, TypeDef]]] = defaultdict(list)
        for package in packages:
            for typedef in served_kinds(package):
                if typedef.is_kind:
                    by_kind[typedef.name].append((package, typedef))
        for kind, served in sorted(by_kind.items()):
            served.sort(key=lambda entry: version_priority(entry[0].version))
            custom = served[0][0].custom_resources
            marked = [(p, t) for p, t in served if _marked(t)]
            candidates = served
            if custom:
                # Only the versions its CRD serves can store a custom resource (a version left
                # out with +kubebuilder:skipversion cannot); a kind without object metadata
                # (a component configuration) gets no CRD and is stored nowhere: its
                # preferred version is its hub, as for Kubernetes' own groups.
                candidates = [
                    (p, t) for p, t in served if t.is_resource and not t.has_marker("kubebuilder:skipversion")
                ]
                if not candidates:
                    versions[(group, kind)] = served[0][0].version
                    continue
            if len(candidates) == 1 and not marked:
                versions[(group, kind)] = candidates[0][0].version
            elif len(served) == 1 or len(marked) == 1:
                versions[(group, kind)] = (marked or served)[0][0].version
            elif len(marked) > 1:
                problems.append((
                    marked[1][1].position,
                    f"{kind} of group {group} is marked as stored in more than one version "
                    f"({', '.join(p.version for p, _ in marked)}); a kind is stored in exactly one version: "
                    "remove +kubebuilder:storageversion from all but one",
                ))  # fmt: skip
            elif custom:
                problems.append((
                    candidates[0][1].position,
                    f"{kind} of group {group} is served in versions {', '.join(sorted(p.version for p, _ in candidates))} "
                    "but none is its storage version: mark the kind in one version with +kubebuilder:storageversion",
                ))  # fmt: skip
            else:
                versions[(group, kind)] = served[0][0].version
    return Storage(versions, problems)


storage = per_universe(_storage)


def storage_kinds(universe: Universe, package: Package) -> list[str]:
    """The kinds this package's version stores."""
    if package.internal:
        return []
    stored = storage(universe).versions
    return [
        t.name for t in served_kinds(package) if t.is_kind and stored.get((package.group, t.name)) == package.version
    ]


def pluralize(word: str) -> str:
    """English plurals as Kubernetes tooling forms resource names (`policy` -> `policies`)."""
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


@dataclass(frozen=True)
class ResourceVersion:
    """One version of a resource: the package and the kind's type in it."""

    package: Package
    kind: TypeDef
    storage: bool


@dataclass
class Resource:
    """A kind with object metadata the input serves, by group and kind, in its versions."""

    group: str
    kind: str
    versions: list[ResourceVersion] = field(default_factory=list)

    @property
    def custom(self) -> bool:
        """Served as a custom resource (one CRD): a kind of the input's own groups, not of
        Kubernetes' (core, apps, networking.k8s.io, ...)."""
        return self.versions[0].package.custom_resources


@per_universe
def resources(universe: Universe) -> list[Resource]:
    """The resources of the input's API packages: kinds with object metadata (as
    controller-gen's are; a component configuration's kind has none), in the external
    versions not left out with `+kubebuilder:skipversion`, sorted by group and kind."""
    found: dict[tuple[str, str], Resource] = {}
    for package in universe.generated_packages:
        if package.role != "api" or package.builtin or package.internal or not package.version:
            continue
        storing = set(storage_kinds(universe, package))
        for kind in package.types:
            if not kind.is_resource or kind.has_marker("kubebuilder:skipversion"):
                continue
            resource = found.setdefault((package.group, kind.name), Resource(package.group, kind.name))
            resource.versions.append(ResourceVersion(package, kind, kind.name in storing))
    return [found[key] for key in sorted(found)]


def custom_resources(universe: Universe) -> list[Resource]:
    """The resources that get a CRD."""
    return [resource for resource in resources(universe) if resource.custom]
