"""The OpenAPI v3 schemas of the built-in kinds, written from their Go types.

The schemas carry what clients and the server's own patching read: types and formats,
`required`, descriptions (`kubectl explain`), `x-kubernetes-group-version-kind` on kinds,
list types and map keys (server-side apply) and patch strategies and merge keys
(strategic merge patch: a ServiceAccount's secrets merge by name, owner references by
uid). Definitions are named as the API server names them (`io.k8s.api.core.v1.Secret`)
and refer to each other with `#/components/schemas/...`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kgen.runtime.gotypes import Bytes, Field, GoType, Map, Pointer, RawJSON, Scalar, Slice, Struct, Timestamp

if TYPE_CHECKING:
    from kgen.serve.builtins.flow import BuiltinKind

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_REF = "#/components/schemas/"
_SCALARS = {
    "string": {"type": "string"},
    "bool": {"type": "boolean"},
    "int32": {"type": "integer", "format": "int32"},
    "int64": {"type": "integer", "format": "int64"},
}
_SHARED = {
    f"{_META}Time": {"type": "string", "format": "date-time", "description": "A time, RFC 3339, to the second."},
    f"{_META}MicroTime": {"type": "string", "format": "date-time", "description": "A time, RFC 3339, to the microsecond."},
    f"{_META}FieldsV1": {"type": "object", "description": "A set of fields, as server-side apply records them."},
}  # fmt: skip


class _Writer:
    """Collects the definitions of the structs it writes (each once) in `schemas`; those it
    starts with (`known`) are kept as they are."""

    def __init__(self, known: Mapping[str, dict[str, Any]] | None = None) -> None:
        self.schemas: dict[str, dict[str, Any]] = dict(known or {})

    def type_schema(self, go_type: GoType) -> dict[str, Any]:
        if isinstance(go_type, Pointer):
            return self.type_schema(go_type.elem)
        if isinstance(go_type, Scalar):
            schema: dict[str, Any] = dict(_SCALARS[go_type.kind])
            if go_type.enum:
                schema["enum"] = list(go_type.enum)
            return schema
        if isinstance(go_type, Bytes):
            return {"type": "string", "format": "byte"}
        if isinstance(go_type, Timestamp):
            name = f"{_META}MicroTime" if go_type.micro else f"{_META}Time"
            self.schemas.setdefault(name, dict(_SHARED[name]))
            return {"$ref": _REF + name}
        if isinstance(go_type, RawJSON):
            self.schemas.setdefault(f"{_META}FieldsV1", dict(_SHARED[f"{_META}FieldsV1"]))
            return {"$ref": f"{_REF}{_META}FieldsV1"}
        if isinstance(go_type, Slice):
            return {"type": "array", "items": self.type_schema(go_type.elem)}
        if isinstance(go_type, Map):
            return {"type": "object", "additionalProperties": self.type_schema(go_type.elem)}
        assert isinstance(go_type, Struct)
        self.struct(go_type)
        return {"$ref": _REF + go_type.definition}

    def field_schema(self, member: Field) -> dict[str, Any]:
        schema = self.type_schema(member.type)
        if "$ref" in schema:  # a reference with its own description, as the API server writes it
            schema = {"allOf": [schema]}
        if member.description:
            schema["description"] = member.description
        schema.update(member.extensions)
        return schema

    def struct(self, go_type: Struct, gvk: dict[str, str] | None = None) -> None:
        if go_type.definition in self.schemas and gvk is None:
            return
        schema: dict[str, Any] = {"type": "object", "description": go_type.description}
        self.schemas[go_type.definition] = schema  # before its fields: a type may refer to itself
        schema["properties"] = {member.json: self.field_schema(member) for member in go_type.fields}
        required = [member.json for member in go_type.fields if member.required]
        if required:
            schema["required"] = required
        schema.update(go_type.extensions)
        if gvk is not None:
            schema["x-kubernetes-group-version-kind"] = [gvk]


def definitions(
    roots: Iterable[tuple[Struct, str, str, str]], known: Mapping[str, dict[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """The definitions of the root structs, each a kind `(struct, group, version, kind)`
    (marked with its x-kubernetes-group-version-kind), and of everything they refer to;
    a definition `known` holds is taken from it instead of written."""
    writer = _Writer(known)
    for struct, group, version, kind in roots:
        writer.struct(struct, {"group": group, "kind": kind, "version": version})
    return writer.schemas


def schemas(kinds: Iterable[BuiltinKind]) -> dict[str, dict[str, Any]]:
    """The definitions of `kinds`, their lists and everything they refer to."""
    roots: list[tuple[Struct, str, str, str]] = []
    for kind in kinds:
        roots.append((kind.type, kind.group, kind.version, kind.kind))
        roots.append((kind.list_type, kind.group, kind.version, f"{kind.kind}List"))
    return definitions(roots)


def document(kinds: Iterable[BuiltinKind]) -> dict[str, Any]:
    """An OpenAPI v3 document holding the definitions of `kinds`."""
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "unversioned"}, "paths": {},
            "components": {"schemas": schemas(kinds)}}  # fmt: skip
