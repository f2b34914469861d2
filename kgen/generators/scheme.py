"""The scheme generator: `register.py` per package, adding its kinds to the Scheme.

Registration lists the package's kinds and lists by kind name, its defaulters and its
conversions to and from the internal version, and the kinds stored in this version
(per kind: see `storage`).
"""

from __future__ import annotations


from kgen.diagnostics import Diagnostics, Position
from kgen.generators import conversion, defaulters, validation
from kgen.generators.backends import backend
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import package_file, package_sources
from kgen.ir.facts import served_kinds, storage, storage_kinds
from kgen.ir.model import Package, Universe
from kgen.render import GeneratedFile, render_python
from kgen.runtime.scheme import INTERNAL_VERSION

NAME = "scheme"
#: The base class of the models of each backend (what `KINDS` holds subclasses of).


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Every kind of a custom resource group served in several versions has one storage version."""
    for position, message in storage(universe).problems:
        diagnostics.error(Position.parse(position), message)


def has_module(universe: Universe, package: Package) -> bool:
    return bool(served_kinds(package)) and package.role == "api"


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A register.py for every package with kinds."""
    files = []
    for package in universe.generated_packages:
        if not has_module(universe, package):
            continue
        kinds = served_kinds(package)
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
                hub_kinds=(
                    [k for k in conversion.is_hub(universe, package) if k in {t.name for t in kinds}]
                    if "conversion" in options.wired
                    else []
                ),
                with_validation=with_validation,
                model_base=backend(options.models).model_base,
                docstring=docstring,
            )
        )
    return files
