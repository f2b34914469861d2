"""The model backends: what generated models are made of, one object per backend.

A backend names its models' base class and the runtime its modules import, the context
class that answers a generator's questions about its models (does a field hold None when
omitted, does a model record which fields were set), its own models and deepcopy
generators, the check that runs before its models are written, and which of the other
generators work on it. Generators ask the context; they never compare backend names, so a
third backend is a context, two generators and an entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kgen.diagnostics import Diagnostics
from kgen.generators import deepcopy, deepcopy_msgspec, models, models_msgspec
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import ModuleContext
from kgen.ir.model import Package, Universe
from kgen.render import GeneratedFile

Generator = Callable[[Universe, GeneratorOptions], list[GeneratedFile]]


@dataclass(frozen=True)
class Backend:
    name: str
    context: type[ModuleContext]
    """The context of every module generated for these models."""
    model_base: tuple[str, str]
    """(module, class) every model of the backend subclasses (what `KINDS` holds)."""
    models: Generator
    deepcopy: Generator
    check: Callable[[Universe, Diagnostics], None] | None = None
    """What the input must satisfy before these models are written."""
    available: tuple[str, ...] | None = None
    """The generators that work on these models (None: all of them)."""
    shares_builtin_messages: bool = False
    """kgen's well-known packages on this backend use the protobuf modules of the default
    runtime (a `.proto` file is registered once per process)."""


BACKENDS: dict[str, Backend] = {
    "pydantic": Backend(
        name="pydantic",
        context=ModuleContext,
        model_base=("kgen.runtime.model", "Model"),
        models=models.generate,
        deepcopy=deepcopy.generate,
    ),
    "msgspec": Backend(
        name="msgspec",
        context=models_msgspec.StructsContext,
        model_base=("kgen.runtime.structs", "Struct"),
        models=models_msgspec.generate,
        deepcopy=deepcopy_msgspec.generate,
        check=models_msgspec.check,
        available=models_msgspec.AVAILABLE,
        shares_builtin_messages=True,
    ),
}


def backend(name: str) -> Backend:
    return BACKENDS[name]


def module_context(universe: Universe, package: Package, module: str, models: str = "pydantic") -> ModuleContext:
    """The context of a generated module of `package` for the model backend `models`."""
    return BACKENDS[models].context(universe, package, module)
