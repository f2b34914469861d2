"""The resolved type view that patching and server-side apply read from OpenAPI v3 schemas.

A `Schema` holds types converted the way kube-openapi's `schemaconv` converts OpenAPI
for structured-merge-diff, so that apply treats every field as the API server does:

- a list is `atomic` (replaced whole), a `set` (scalars merged by value) or a `map`
  (items merged by their `x-kubernetes-list-map-keys`). Without `x-kubernetes-list-type`
  the patch strategy decides (`merge` with a merge key is a map, `merge` alone a set) and
  a list with neither is atomic, which is what every CRD list without a list type is;
- an object is `granular` (merged key by key) unless `x-kubernetes-map-type: atomic`;
- a field the schema does not know, or the contents of `x-kubernetes-preserve-unknown-fields`,
  is *deduced*: objects merge key by key, lists and scalars are atomic;
- `Quantity`, `int-or-string`, `date-time` and the other formatted strings are untyped
  scalars; `RawExtension` is atomic.

Each property also keeps what strategic merge patch reads from it
(`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`).

`TypeRef` is the view the server reads: `ref.field("spec").field("ports").list_type` is
`"map"`, `ref.at(["spec", "ports"]).list_map_keys` is `("name",)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["Schema", "TypeRef", "FieldSpec", "ListSpec", "MapSpec", "Atom", "SchemaError"]

NUMERIC, STRING, BOOLEAN, UNTYPED = "numeric", "string", "boolean", "untyped"
ATOMIC, ASSOCIATIVE, SEPARABLE = "atomic", "associative", "separable"

UNTYPED_ATOMIC_NAME = "__untyped_atomic_"
UNTYPED_DEDUCED_NAME = "__untyped_deduced_"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_REF_PREFIXES = ("#/components/schemas/", "#/definitions/")


class SchemaError(ValueError):
    """A schema kgen cannot convert (an unknown list type, map keys that are missing)."""


class ListSpec:
    """A list: its element type, `atomic` or `associative`, and the keys of a map list."""

    __slots__ = ("element", "relationship", "keys")

    def __init__(self, element: TypeRef, relationship: str, keys: tuple[str, ...]):
        self.element = element
        self.relationship = relationship
        self.keys = keys


class FieldSpec:
    """A declared property: its type, default, and strategic merge patch metadata."""

    __slots__ = ("name", "type", "default", "patch_strategies", "patch_merge_key", "nullable")

    def __init__(
        self,
        name: str,
        type: TypeRef,
        default: Any,
        strategies: tuple[str, ...],
        merge_key: str,
        nullable: bool = False,
    ):
        self.name = name
        self.type = type
        self.default = default
        self.patch_strategies = strategies
        """`x-kubernetes-patch-strategy` split at commas, e.g. ("merge", "retainKeys")."""
        self.patch_merge_key = merge_key
        self.nullable = nullable
        """`nullable: true`: null is a value of the field, not its absence."""


class MapSpec:
    """An object: its declared fields, the type of other keys (None: no other keys allowed),
    and `atomic`, `separable` (granular) or "" (granular by default)."""

    __slots__ = ("fields", "element", "relationship")

    def __init__(self, fields: dict[str, FieldSpec], element: TypeRef | None, relationship: str):
        self.fields = fields
        self.element = element
        self.relationship = relationship

    def with_relationship(self, relationship: str) -> MapSpec:
        """This map with another element relationship (a `$ref` with its own map type)."""
        return MapSpec(self.fields, self.element, relationship)


class Atom:
    """What a value of a type may be: a scalar kind, a list, a map, or several of them
    (an untyped schema accepts any)."""

    __slots__ = ("scalar", "list", "map", "name")

    def __init__(
        self, scalar: str | None = None, list: ListSpec | None = None, map: MapSpec | None = None, name: str = ""
    ):
        self.scalar = scalar
        self.list = list
        self.map = map
        self.name = name


class TypeRef:
    """A reference to a type of a `Schema`, by name or inline, resolved on first use."""

    __slots__ = ("schema", "named", "inline", "map_relationship", "_atom")

    def __init__(
        self, schema: Schema, named: str | None = None, inline: Atom | None = None, map_relationship: str = ""
    ):
        self.schema = schema
        self.named = named
        self.inline = inline
        self.map_relationship = map_relationship
        self._atom: Atom | None = None

    @property
    def atom(self) -> Atom:
        """The resolved type (a `$ref` with `x-kubernetes-map-type` overrides the map's)."""
        atom = self._atom
        if atom is None:
            atom = self.inline if self.named is None else self.schema.atom(self.named)
            assert atom is not None, "a TypeRef is named or inline"
            if self.map_relationship and atom.map is not None:
                atom = Atom(atom.scalar, atom.list, atom.map.with_relationship(self.map_relationship), atom.name)
            self._atom = atom
        return atom

    # The view the server and the patchers read.

    @property
    def name(self) -> str:
        """The definition name of a named type ("" for an inline one)."""
        return self.named or ""

    @property
    def kind(self) -> str:
        """The form of the type: "scalar", "list", "map", or "any" when it takes several."""
        atom = self.atom
        kinds = [k for k, v in (("scalar", atom.scalar), ("list", atom.list), ("map", atom.map)) if v is not None]
        return kinds[0] if len(kinds) == 1 else "any"

    @property
    def list_type(self) -> str | None:
        """The list type of a list ("atomic", "set" or "map"), else None."""
        spec = self.atom.list
        if spec is None:
            return None
        if spec.relationship == ATOMIC:
            return "atomic"
        return "map" if spec.keys else "set"

    @property
    def list_map_keys(self) -> tuple[str, ...]:
        """The keys of a map list (empty for other types)."""
        spec = self.atom.list
        return spec.keys if spec is not None else ()

    @property
    def map_type(self) -> str | None:
        """The map type of an object ("atomic" or "granular"), else None."""
        spec = self.atom.map
        if spec is None:
            return None
        return "atomic" if spec.relationship == ATOMIC else "granular"

    @property
    def is_atomic_struct(self) -> bool:
        """An object with declared fields that is replaced whole (`+structType=atomic`)."""
        spec = self.atom.map
        return spec is not None and bool(spec.fields) and spec.relationship == ATOMIC

    @property
    def deduced(self) -> bool:
        """Free-form JSON whose shape is deduced from the value (preserve-unknown-fields)."""
        return self.named == UNTYPED_DEDUCED_NAME

    def field(self, name: str) -> FieldSpec | None:
        """The declared property `name` of an object type, or None."""
        spec = self.atom.map
        return spec.fields.get(name) if spec is not None else None

    def child(self, name: str) -> TypeRef | None:
        """The type of key `name` of an object: the declared field's, else the type of other
        keys (additionalProperties, deduced), else None (the schema allows no such key)."""
        spec = self.atom.map
        if spec is None:
            return None
        declared = spec.fields.get(name)
        return declared.type if declared is not None else spec.element

    @property
    def items(self) -> TypeRef | None:
        """The element type of a list type, else None."""
        spec = self.atom.list
        return spec.element if spec is not None else None

    def at(self, path: Iterable[str | int]) -> TypeRef | None:
        """The type at a field path: strings name object keys, integers step into list items
        (`ref.at(["spec", "ports", 0, "name"])`); None where the schema has no such field."""
        ref: TypeRef | None = self
        for part in path:
            if ref is None:
                return None
            ref = ref.items if isinstance(part, int) else ref.child(part)
        return ref

    def __repr__(self) -> str:
        return f"TypeRef({self.named or 'inline'})"


class Schema:
    """Named types converted from OpenAPI v3 schemas (lazily, each on first use)."""

    def __init__(
        self, definitions: Mapping[str, Mapping[str, Any]] | None = None, *, preserve_unknown_fields: bool = False
    ):
        self._raw: dict[str, Mapping[str, Any]] = dict(definitions or {})
        self._atoms: dict[str, Atom] = {}
        self._preserve = preserve_unknown_fields
        self._atoms[UNTYPED_ATOMIC_NAME] = self._untyped_atomic()
        self._atoms[UNTYPED_DEDUCED_NAME] = self._untyped_deduced()
        self.untyped_atomic = TypeRef(self, UNTYPED_ATOMIC_NAME)
        """Any JSON, replaced whole (the type of a field the schema does not declare)."""
        self.deduced = TypeRef(self, UNTYPED_DEDUCED_NAME)
        """Any JSON: objects merged key by key, lists and scalars replaced whole."""
        self.root: TypeRef | None = None
        """The resource type of a schema built from a CRD."""

    # Construction.

    @classmethod
    def from_openapi_v3(cls, document: Mapping[str, Any]) -> Schema:
        """The types of an OpenAPI v3 document (`components.schemas`, referenced as
        `#/components/schemas/<name>`), such as generated/openapi/v3/apis/<group>/<v>.json."""
        return cls(document.get("components", {}).get("schemas", {}))

    @classmethod
    def from_crd_schema(cls, openapi_v3_schema: Mapping[str, Any], *, preserve_unknown_fields: bool = False) -> Schema:
        """The types of one CRD version's `schema.openAPIV3Schema`, as the API server builds
        them for apply: `metadata` (at the root and in embedded resources) is ObjectMeta,
        `apiVersion` and `kind` are strings. The resource type is `schema.root`."""
        root = _with_kube_native_properties(openapi_v3_schema)
        schema = cls({**_builtin_definitions(), "__root__": root}, preserve_unknown_fields=preserve_unknown_fields)
        schema.root = schema.type("__root__")
        return schema

    @classmethod
    def from_crd(cls, crd: Mapping[str, Any], version: str) -> Schema:
        """`from_crd_schema` for the served `version` of a CustomResourceDefinition object."""
        spec = crd.get("spec", {})
        for served in spec.get("versions", []):
            if served.get("name") == version:
                openapi = (served.get("schema") or {}).get("openAPIV3Schema") or {"type": "object"}
                return cls.from_crd_schema(openapi, preserve_unknown_fields=bool(spec.get("preserveUnknownFields")))
        raise SchemaError(
            f"CustomResourceDefinition {crd.get('metadata', {}).get('name', '')!r} has no version {version!r}"
        )

    # Lookup.

    def type(self, name: str) -> TypeRef:
        """The named type `name` (a key of components.schemas); KeyError if there is none."""
        if name not in self._atoms and name not in self._raw:
            raise KeyError(f"no schema named {name!r}")
        return TypeRef(self, name)

    def for_kind(self, group: str, version: str, kind: str) -> TypeRef:
        """The type carrying `x-kubernetes-group-version-kind` for this kind; KeyError if none."""
        for name, raw in self._raw.items():
            for gvk in raw.get("x-kubernetes-group-version-kind", ()):
                if (gvk.get("group", ""), gvk.get("version"), gvk.get("kind")) == (group, version, kind):
                    return TypeRef(self, name)
        raise KeyError(f"no schema for {group}/{version}, Kind={kind}")

    def atom(self, name: str) -> Atom:
        """The converted type `name`; an unknown name is untyped (SMD's missing-type case
        never happens for a validated document, and kgen prefers leniency to a crash)."""
        atom = self._atoms.get(name)
        if atom is None:
            raw = self._raw.get(name)
            if name == _QUANTITY:
                atom = Atom(scalar=UNTYPED, name=name)
            elif name == _RAW_EXTENSION:
                atom = self._untyped_atomic()
            elif raw is None:
                atom = self._atoms[UNTYPED_ATOMIC_NAME]
            else:
                atom = _Converter(self, name, self._preserve).visit(raw)
                atom.name = name
            self._atoms[name] = atom
        return atom

    def _untyped_atomic(self) -> Atom:
        element = TypeRef(self, UNTYPED_ATOMIC_NAME)
        return Atom(UNTYPED, ListSpec(element, ATOMIC, ()), MapSpec({}, element, ATOMIC), UNTYPED_ATOMIC_NAME)

    def _untyped_deduced(self) -> Atom:
        atomic = TypeRef(self, UNTYPED_ATOMIC_NAME)
        deduced = TypeRef(self, UNTYPED_DEDUCED_NAME)
        return Atom(UNTYPED, ListSpec(atomic, ATOMIC, ()), MapSpec({}, deduced, SEPARABLE), UNTYPED_DEDUCED_NAME)


class _Converter:
    """kube-openapi's schemaconv: one OpenAPI schema to an Atom."""

    __slots__ = ("schema", "where", "preserve")

    def __init__(self, schema: Schema, where: str, preserve: bool):
        self.schema = schema
        self.where = where
        self.preserve = preserve

    def visit(self, raw: Mapping[str, Any]) -> Atom:
        """The Atom of one schema (schemaconv's parseSchema)."""
        if raw.get("x-kubernetes-preserve-unknown-fields") is True:
            self.preserve = True
        typ = raw.get("type", "")
        if isinstance(typ, list):  # OpenAPI 3.1 style; Kubernetes writes one type
            typ = typ[0] if typ else ""
        if typ == "":
            return Atom(UNTYPED, self.list_spec(raw), self.map_spec(raw))
        if typ == "object":
            return Atom(map=self.map_spec(raw))
        if typ == "array":
            return Atom(list=self.list_spec(raw))
        if typ in ("integer", "number"):
            return Atom(NUMERIC)
        if typ == "boolean":
            return Atom(BOOLEAN)
        if typ == "string":
            return Atom(STRING if raw.get("format", "") in ("", "byte") else UNTYPED)
        raise SchemaError(f"{self.where}: unrecognized type: {typ!r}")

    def ref(self, raw: Mapping[str, Any]) -> TypeRef:
        """A property's type: a reference (`$ref`, or one `allOf` of one) or an inline type."""
        target = raw.get("$ref", "")
        all_of: Sequence[Mapping[str, Any]] = raw.get("allOf") or ()
        if not target and len(all_of) == 1 and all_of[0].get("$ref"):
            target = all_of[0]["$ref"]
        if target:
            name = target
            for prefix in _REF_PREFIXES:
                if target.startswith(prefix):
                    name = target[len(prefix) :]
            return TypeRef(self.schema, name, map_relationship=_map_relationship(raw, self.where))
        inner = _Converter(self.schema, f"inlined in {self.where}", self.preserve)
        return TypeRef(self.schema, inline=inner.visit(raw))

    def map_spec(self, raw: Mapping[str, Any]) -> MapSpec:
        """The object form of a schema."""
        fields: dict[str, FieldSpec] = {}
        for name, member in (raw.get("properties") or {}).items():
            strategy = member.get("x-kubernetes-patch-strategy", "")
            fields[name] = FieldSpec(
                name,
                self.ref(member),
                member.get("default"),
                tuple(strategy.split(",")) if strategy else (),
                member.get("x-kubernetes-patch-merge-key", ""),
                member.get("nullable") is True,
            )
        additional = raw.get("additionalProperties")
        element: TypeRef | None
        if additional is None:
            # Without additionalProperties an object with properties allows no other keys
            # (unless unknown fields are preserved); one without is free-form.
            element = self.schema.deduced if self.preserve or not fields else None
        elif isinstance(additional, Mapping):
            element = self.ref(additional)
        else:
            element = self.schema.deduced if additional else None
        return MapSpec(fields, element, _map_relationship(raw, self.where))

    def list_spec(self, raw: Mapping[str, Any]) -> ListSpec:
        """The list form of a schema."""
        relationship, keys = _list_relationship(raw, self.where)
        items = raw.get("items")
        if isinstance(items, Mapping):
            element = self.ref(items)
        elif isinstance(items, list) and len(items) == 1:
            element = self.ref(items[0])
        elif items is not None:
            element = self.schema.deduced
        else:
            element = self.schema.untyped_atomic
        return ListSpec(element, relationship, keys)


def _map_relationship(raw: Mapping[str, Any], where: str) -> str:
    value = raw.get("x-kubernetes-map-type")
    if value is None:
        return ""
    if value == "atomic":
        return ATOMIC
    if value == "granular":
        return SEPARABLE
    raise SchemaError(f"{where}: unknown map type {value}")


def _list_relationship(raw: Mapping[str, Any], where: str) -> tuple[str, tuple[str, ...]]:
    list_type = raw.get("x-kubernetes-list-type")
    if list_type is not None:
        if list_type == "atomic":
            return ATOMIC, ()
        if list_type == "set":
            return ASSOCIATIVE, ()
        if list_type == "map":
            keys = raw.get("x-kubernetes-list-map-keys")
            if not isinstance(keys, list) or not keys:
                raise SchemaError(f"{where}: list type map is missing x-kubernetes-list-map-keys")
            return ASSOCIATIVE, tuple(k for k in keys if isinstance(k, str))
        raise SchemaError(f"{where}: unknown list type {list_type}")
    strategy = raw.get("x-kubernetes-patch-strategy")
    if strategy is not None:
        if strategy in ("merge", "merge,retainKeys"):
            key = raw.get("x-kubernetes-patch-merge-key")
            return ASSOCIATIVE, ((key,) if key else ())
        if strategy == "retainKeys":
            return ATOMIC, ()
        raise SchemaError(f"{where}: unknown patch strategy {strategy}")
    return ATOMIC, ()


def _with_kube_native_properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The CRD schema as the API server publishes it for apply: ObjectMeta metadata and
    TypeMeta strings at the root, and the same in every embedded resource."""
    out = _add_embedded_properties(schema)
    props = dict(out.get("properties") or {})
    props["metadata"] = {"$ref": "#/components/schemas/" + _OBJECT_META}
    props["apiVersion"] = {"type": "string"}
    props["kind"] = {"type": "string"}
    out["properties"] = props
    out.setdefault("type", "object")
    return out


def _add_embedded_properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(schema)
    if "properties" in out:
        out["properties"] = {k: _add_embedded_properties(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), Mapping):
        out["items"] = _add_embedded_properties(out["items"])
    if isinstance(out.get("additionalProperties"), Mapping):
        out["additionalProperties"] = _add_embedded_properties(out["additionalProperties"])
    if out.get("x-kubernetes-embedded-resource") is True:
        props = dict(out.get("properties") or {})
        props["apiVersion"] = {"type": "string"}
        props["kind"] = {"type": "string"}
        props["metadata"] = {"$ref": "#/components/schemas/" + _OBJECT_META}
        out["properties"] = props
    return out


def _builtin_definitions() -> dict[str, dict[str, Any]]:
    """ObjectMeta and the types it reaches, as apimachinery's OpenAPI declares them (only
    what merging reads: types, list and map types, merge keys)."""
    meta = "io.k8s.apimachinery.pkg.apis.meta.v1."
    ref = {"$ref": "#/components/schemas/" + meta + "Time"}
    string_map = {"type": "object", "additionalProperties": {"type": "string", "default": ""}}
    return {
        meta
        + "ObjectMeta": {
            "type": "object",
            "properties": {
                "annotations": string_map,
                "creationTimestamp": ref,
                "deletionGracePeriodSeconds": {"type": "integer", "format": "int64"},
                "deletionTimestamp": ref,
                "finalizers": {
                    "type": "array",
                    "items": {"type": "string", "default": ""},
                    "x-kubernetes-list-type": "set",
                    "x-kubernetes-patch-strategy": "merge",
                },
                "generateName": {"type": "string"},
                "generation": {"type": "integer", "format": "int64"},
                "labels": string_map,
                "managedFields": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/" + meta + "ManagedFieldsEntry"},
                    "x-kubernetes-list-type": "atomic",
                },
                "name": {"type": "string"},
                "namespace": {"type": "string"},
                "ownerReferences": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/" + meta + "OwnerReference"},
                    "x-kubernetes-list-map-keys": ["uid"],
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-patch-merge-key": "uid",
                    "x-kubernetes-patch-strategy": "merge",
                },
                "resourceVersion": {"type": "string"},
                "selfLink": {"type": "string"},
                "uid": {"type": "string"},
            },
        },
        meta
        + "OwnerReference": {
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string", "default": ""},
                "blockOwnerDeletion": {"type": "boolean"},
                "controller": {"type": "boolean"},
                "kind": {"type": "string", "default": ""},
                "name": {"type": "string", "default": ""},
                "uid": {"type": "string", "default": ""},
            },
            "x-kubernetes-map-type": "atomic",
        },
        meta
        + "ManagedFieldsEntry": {
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "fieldsType": {"type": "string"},
                "fieldsV1": {"$ref": "#/components/schemas/" + meta + "FieldsV1"},
                "manager": {"type": "string"},
                "operation": {"type": "string"},
                "subresource": {"type": "string"},
                "time": ref,
            },
        },
        meta + "FieldsV1": {"type": "object"},
        meta + "Time": {"type": "string", "format": "date-time"},
    }
