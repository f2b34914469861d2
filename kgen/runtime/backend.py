"""What the runtime asks of a model backend, whatever its models are made of.

Generated models subclass the base class of one backend (`kgen.runtime.model.Model` for
pydantic, `kgen.runtime.structs.Struct` for msgspec); each base class names its backend in
`__kgen_backend__`, so code that meets a model asks `backend_of(value)` instead of guessing
from attributes, and the msgspec backend is imported only by code that has a struct.
"""

from __future__ import annotations

from types import UnionType
from typing import Annotated, Any, Protocol, Union, get_args, get_origin


class ModelBackend(Protocol):
    """The questions the runtime asks about a backend's models."""

    name: str

    def json_fields(self, cls: type[Any]) -> dict[str, Any]:
        """The class's fields: JSON name to annotation."""
        ...

    def json_values(self, obj: Any) -> list[tuple[str, Any]]:
        """The object's fields as (JSON name, value), in field order."""
        ...

    def fields_set(self, obj: Any) -> dict[str, str]:
        """The fields set on the object (a decoded document's members, or the non-zero
        fields where the backend records no presence): JSON name to attribute name."""
        ...

    def is_zero(self, obj: Any) -> bool:
        """Whether the object equals its zero value (Go's `omitzero` test for structs)."""
        ...

    def set_unrecorded(self, obj: Any, attribute: str, value: Any) -> None:
        """Give the object's field a value without counting it as set by a document."""
        ...

    def decode_problems(self, cls: type[Any], document: Any, error: Exception) -> list[tuple[str, str]] | None:
        """What a decoder's error says, as (message, field path as the API server writes it)
        per problem; None when the error is not one of this backend's decoders'."""
        ...


def backend_of(value: Any) -> ModelBackend | None:
    """The backend of a model or model class; None for anything else."""
    cls = value if isinstance(value, type) else type(value)
    return getattr(cls, "__kgen_backend__", None)


def json_path(loc: tuple[int | str, ...]) -> str:
    """A field path as the API server writes it (`spec.ports[0].port`)."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def strip_optional(annotation: Any) -> Any:
    """The annotation without `Annotated` metadata and an optional's None."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation
