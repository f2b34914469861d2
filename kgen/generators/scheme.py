"""The scheme generator: `register.py` per package, adding its kinds to the Scheme.

Registration lists the package's kinds and lists by kind name, its defaulters and its
conversions to and from the internal version, and the kinds stored in this version
(`+kgen:storageVersion` or `+kubebuilder:storageversion`; a group with one served version
stores that one). A group served in several versions must mark exactly one.
"""

from __future__ import annotations

from collections import defaultdict

from kgen.diagnostics import Diagnostics, Position
from kgen.generators import conversion, defaulters, validation
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import package_file, package_sources
from kgen.ir.model import Package, TypeDef, Universe
from kgen.render import GeneratedFile, render_python
from kgen.runtime.scheme import INTERNAL_VERSION

NAME = "scheme"
STORAGE_MARKERS = ("kgen:storageVersion", "kubebuilder:storageversion")


def _kinds(package: Package) -> list[TypeDef]:
    return [t for t in package.types if t.kind == "struct" and (t.is_kind or t.is_list)]


def _served(universe: Universe) -> dict[str, list[Package]]:
    groups: dict[str, list[Package]] = defaultdict(list)
    for package in universe.generated_packages:
        if not package.internal and not package.builtin and _kinds(package):
            groups[package.group].append(package)
    return groups


def storage_kinds(universe: Universe, package: Package) -> list[str]:
    """The kinds this package's version stores."""
    if package.internal:
        return []
    versions = _served(universe).get(package.group, [])
    marked = [t.name for t in _kinds(package) if any(t.has_marker(m) for m in STORAGE_MARKERS)]
    if len(versions) == 1:
        return [t.name for t in _kinds(package) if t.is_kind]
    return marked



def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Exactly one storage version per group served in several versions, holding all its kinds."""
    for group, packages in sorted(_served(universe).items()):
        if len(packages) < 2:
            continue
        marked = {
            p.version: [t for t in _kinds(p) if any(t.has_marker(m) for m in STORAGE_MARKERS)] for p in packages
        }
        storing = sorted(v for v, kinds in marked.items() if kinds)
        first_kind = next(t for p in packages for t in _kinds(p) if t.is_kind)
        if not storing:
            diagnostics.error(
                Position.parse(first_kind.position),
                f"group {group} is served in versions {', '.join(sorted(p.version for p in packages))} but none is "
                "its storage version: mark the kinds of one version with +kgen:storageVersion",
            )
            continue
        if len(storing) > 1:
            second = marked[storing[1]][0]
            diagnostics.error(
                Position.parse(second.position),
                f"group {group} has more than one storage version ({', '.join(storing)}); exactly one version of a "
                "group is stored: remove +kgen:storageVersion from all but one",
            )
            continue
        stored = next(p for p in packages if p.version == storing[0])
        stored_kinds = {t.name for t in _kinds(stored) if t.is_kind}
        for package in packages:
            for typedef in _kinds(package):
                if typedef.is_kind and typedef.name not in stored_kinds:
                    diagnostics.error(
                        Position.parse(typedef.position),
                        f"{typedef.name} is served in {package.version} but the storage version {storing[0]} of "
                        f"group {group} has no {typedef.name}: it could not be stored",
                    )


def has_module(universe: Universe, package: Package) -> bool:
    return bool(_kinds(package)) and not package.builtin


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A register.py for every package with kinds."""
    files = []
    for package in universe.generated_packages:
        if not has_module(universe, package):
            continue
        kinds = _kinds(package)
        with_defaulters = "defaulters" in options.generators and defaulters.has_module(universe, package)
        with_conversion = "conversion" in options.generators and conversion.has_module(universe, package)
        with_validation = (
            "validation" in options.generators
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
                with_validation=with_validation,
                docstring=docstring,
            )
        )
    return files
