"""The scheme generator: `register.py` per package, adding its kinds to the Scheme.

Registration lists the package's kinds and lists by kind name, its defaulters and its
conversions to and from the internal version, and the kinds stored in this version
(per kind: see `storage`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kgen.diagnostics import Diagnostics, Position
from kgen.generators import conversion, defaulters, validation
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import package_file, package_sources, per_universe
from kgen.ir.model import Package, TypeDef, Universe
from kgen.render import GeneratedFile, render_python
from kgen.runtime.scheme import INTERNAL_VERSION, version_priority

NAME = "scheme"
#: The base class of the models of each backend (what `KINDS` holds subclasses of).
MODEL_BASES = {"pydantic": ("kgen.runtime.model", "Model"), "msgspec": ("kgen.runtime.structs", "Struct")}
STORAGE_MARKERS = ("kgen:storageVersion", "kubebuilder:storageversion")


def _kinds(package: Package) -> list[TypeDef]:
    return [t for t in package.types if t.kind == "struct" and (t.is_kind or t.is_list)]


def _served(universe: Universe) -> dict[str, list[Package]]:
    """The external versions of each API group of the input that serve kinds."""
    groups: dict[str, list[Package]] = defaultdict(list)
    for package in universe.generated_packages:
        if package.role == "api" and not package.internal and _kinds(package):
            groups[package.group].append(package)
    return groups


def _marked(typedef: TypeDef) -> bool:
    return any(typedef.has_marker(m) for m in STORAGE_MARKERS)


@dataclass(frozen=True)
class _Storage:
    versions: dict[tuple[str, str], str]
    """The storage version of each (group, kind)."""
    problems: list[tuple[str, str]]
    """(position, message) of kinds whose storage version is not clear."""


def _storage(universe: Universe) -> _Storage:
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
            for typedef in _kinds(package):
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
                candidates = [(p, t) for p, t in served if t.is_resource and not t.has_marker("kubebuilder:skipversion")]
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
    return _Storage(versions, problems)


storage = per_universe(_storage)


def storage_kinds(universe: Universe, package: Package) -> list[str]:
    """The kinds this package's version stores."""
    if package.internal:
        return []
    stored = storage(universe).versions
    return [t.name for t in _kinds(package) if t.is_kind and stored.get((package.group, t.name)) == package.version]


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Every kind of a custom resource group served in several versions has one storage version."""
    for position, message in storage(universe).problems:
        diagnostics.error(Position.parse(position), message)


def has_module(universe: Universe, package: Package) -> bool:
    return bool(_kinds(package)) and package.role == "api"


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A register.py for every package with kinds."""
    files = []
    for package in universe.generated_packages:
        if not has_module(universe, package):
            continue
        kinds = _kinds(package)
        with_defaulters = "defaulters" in options.wired and defaulters.has_module(universe, package)
        with_conversion = "conversion" in options.wired and conversion.has_module(universe, package)
        with_validation = (
            "validation" in options.wired
            and validation.has_module(universe, package)
            and any(t.is_kind and validation.needs(universe, t) for t in package.types)
        )
        sources = package_sources(package)
        path = package_file(package, "register.py")
        files.append(
            render_python(
                "scheme/register.py.j2",
                path,
                NAME,
                sources,
                package=package,
                version=INTERNAL_VERSION if package.internal else package.version,
                kinds=[t.python_name for t in kinds],
                kind_names=[t.name for t in kinds],
                storage=storage_kinds(universe, package),
                with_defaulters=with_defaulters,
                with_conversion=with_conversion,
                hub_kinds=[k for k in conversion.is_hub(universe, package) if k in {t.name for t in kinds}]
                if "conversion" in options.wired else [],
                with_validation=with_validation,
                model_base=MODEL_BASES[options.models],
                docstring=docstring,
            )
        )
    return files
