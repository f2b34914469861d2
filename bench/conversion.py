"""Generated defaulting + conversion against a generic reflective route, per object.

The generic route is what one writes without generated code: a defaulter that walks
`model_fields` applying the `+default` values recorded in the IR, then conversion by
`model_dump()` -> `model_validate()` into the internal class. Both start from a deep
copy of the same object (defaulting works in place).
"""

from __future__ import annotations

import timeit
from typing import Any

from pydantic import BaseModel

from bench.runtime import largest_frobber


def _reflective_defaults(universe) -> dict[tuple[str, str], Any]:
    return {
        (t.python_name, f.python_name): f.default
        for p in universe.generated_packages
        if p.version == "v1" and p.group == "example.kgen.dev"
        for t in p.types
        for f in t.fields
        if f.default is not None
    }


def reflective_default(obj: Any, defaults: dict[tuple[str, str], Any]) -> None:
    """Apply defaults by walking the object's fields at run time."""
    if isinstance(obj, list):
        for item in obj:
            reflective_default(item, defaults)
        return
    if isinstance(obj, dict):
        for item in obj.values():
            reflective_default(item, defaults)
        return
    if not isinstance(obj, BaseModel):
        return
    cls = type(obj)
    for name in cls.model_fields:
        value = getattr(obj, name)
        default = defaults.get((cls.__name__, name))
        if default is not None and value in (None, "", 0):
            setattr(obj, name, default)
        elif isinstance(value, (BaseModel, list, dict)):
            reflective_default(value, defaults)


def run(universe) -> list[str]:
    from generated.example import models as internal
    from generated.example.v1.conversion import to_internal_Frobber
    from generated.example.v1.defaulters import set_object_defaults_Frobber

    defaults = _reflective_defaults(universe)
    source = largest_frobber()
    source.spec.replicas = None  # leave work for the defaulters
    source.spec.mode = ""

    def generated() -> Any:
        obj = source.deep_copy()
        set_object_defaults_Frobber(obj)
        return to_internal_Frobber(obj)

    def generic() -> Any:
        obj = source.deep_copy()
        reflective_default(obj, defaults)
        return internal.Frobber.model_validate(obj.model_dump())

    assert generated().spec.replicas == generic().spec.replicas == 1
    ours = min(timeit.repeat(generated, number=200, repeat=7)) / 200
    theirs = min(timeit.repeat(generic, number=200, repeat=7)) / 200
    return [
        "Defaulting + conversion v1 -> internal, largest Frobber (ratio = generic time / kgen time)",
        f"  kgen {ours * 1e6:8.1f} us   reflective defaulting + model_dump -> model_validate {theirs * 1e6:8.1f} us"
        f" ({theirs / ours:4.1f}x)",
    ]
