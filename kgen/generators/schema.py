"""JSON schemas of API types from the IR, as openapi-gen and controller-gen write them.

One builder serves three dialects:

- `v2` and `v3`: definitions as the API server publishes them (openapi-gen); v2 states no
  defaults, nor the enums of Kubernetes' own types, as the API server's v2 document. Structs and
  the apimachinery well-known types are definitions named by their reversed import path
  (`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`) and referenced with `$ref` (in v3
  wrapped in `allOf` when the reference carries a description or a default).
- `crd`: a structural schema (controller-gen): everything inline, no `$ref`, `metadata`
  as `type: object`, the well-known types as the API server's CRD validation knows them.

Every validation constraint of the IR (issue: validation) is carried over, so the schema
and the generated validators give the same verdicts wherever a schema can say it.
"""

from __future__ import annotations

import json
import marshal
import re
from typing import Any, Literal

from kgen.ir.model import Constraints, Field, TypeDef, TypeRef, Universe
from kgen.runtime.rawjson import copy_json

Dialect = Literal["v2", "v3", "crd"]
META_V1 = "k8s.io/apimachinery/pkg/apis/meta/v1"

# openapi-gen's Go type -> (type, format).
_OPENAPI_BASIC = {
    "string": ("string", ""), "bool": ("boolean", ""), "bytes": ("string", "byte"),
    "int": ("integer", "int32"), "int8": ("integer", "byte"), "int16": ("integer", "int32"),
    "int32": ("integer", "int32"), "int64": ("integer", "int64"), "uint": ("integer", "int32"),
    "uint8": ("integer", "byte"), "byte": ("integer", "byte"), "uint16": ("integer", "int32"),
    "uint32": ("integer", "int64"), "uint64": ("integer", "int64"), "float32": ("number", "float"),
    "float64": ("number", "double"),
}  # fmt: skip
# controller-gen's: integers carry a format only when they are 32 or 64 bits wide.
_CRD_BASIC = {
    "string": ("string", ""), "bool": ("boolean", ""), "bytes": ("string", "byte"),
    "int32": ("integer", "int32"), "uint32": ("integer", "int32"), "int64": ("integer", "int64"),
    "uint64": ("integer", "int64"), "float32": ("number", ""), "float64": ("number", ""),
}  # fmt: skip

QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)

# The apimachinery types that are not plain structs on the wire, per dialect.
_WELL_KNOWN: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): {
        "v2": {"type": "string"},
        "v3": {"oneOf": [{"type": "string"}, {"type": "number"}]},
        "crd": {"anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": QUANTITY_PATTERN,
                "x-kubernetes-int-or-string": True},
    },
    # QuantityValue (component-base's flags) is a Quantity on the wire.
    ("k8s.io/apimachinery/pkg/api/resource", "QuantityValue"): {
        "v2": {"type": "string"},
        "v3": {"oneOf": [{"type": "string"}, {"type": "number"}]},
        "crd": {"anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": QUANTITY_PATTERN,
                "x-kubernetes-int-or-string": True},
    },
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): {
        "v2": {"type": "string", "format": "int-or-string"},
        "v3": {"oneOf": [{"type": "integer"}, {"type": "string"}], "format": "int-or-string"},
        "crd": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True},
    },
    (META_V1, "Time"): {d: {"type": "string", "format": "date-time"} for d in ("v2", "v3", "crd")},
    (META_V1, "MicroTime"): {d: {"type": "string", "format": "date-time"} for d in ("v2", "v3", "crd")},
    (META_V1, "Duration"): {d: {"type": "string"} for d in ("v2", "v3", "crd")},
    (META_V1, "FieldsV1"): {d: {"type": "object"} for d in ("v2", "v3", "crd")},
    **{
        (f"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/{version}", "JSON"): {
            "v2": {}, "v3": {}, "crd": {"x-kubernetes-preserve-unknown-fields": True},
        }
        for version in ("v1", "v1beta1")
    },
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): {
        d: {"type": "object", "x-kubernetes-preserve-unknown-fields": True} for d in ("v2", "v3", "crd")
    },
}  # fmt: skip

# `+k8s:format` names the API server's CRD validation has no format for: CEL format library rules.
_CEL_FORMATS = {
    "k8s-short-name": "dns1123Label",
    "k8s-long-name": "dns1123Subdomain",
    "k8s-label-key": "qualifiedName",
    "k8s-prefixed-label-key": "qualifiedName",
    "k8s-label-value": "labelValue",
}
# A format the API server's CEL format library lacks, as plain CEL (apimachinery's
# IsValidPathSegmentName: the checks, and the first message that applies).
_PATH_SEGMENT_RULE = {
    "rule": "self != '.' && self != '..' && !self.contains('/') && !self.contains('%')",
    "messageExpression": (
        "self == '.' ? \"may not be '.'\" : self == '..' ? \"may not be '..'\" : "
        "self.contains('/') ? \"may not contain '/'\" : \"may not contain '%'\""
    ),
}
_FORMAT_MAX_LENGTHS = {"k8s-short-name": 63, "k8s-long-name": 253, "k8s-label-key": 317,
                       "k8s-prefixed-label-key": 317, "k8s-label-value": 63}  # fmt: skip
"""The longest value each format accepts (a qualified name: a 253-character prefix, `/`, 63)."""
_SCHEMA_FORMATS = {"k8s-uuid": "uuid", "k8s-ip": "ipv4", "uuid": "uuid"}


_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_EMBEDDED_OBJECT_META = {
    "type": "object",
    "properties": {
        "annotations": _STRINGS, "finalizers": {"type": "array", "items": {"type": "string"}},
        "labels": _STRINGS, "name": {"type": "string"}, "namespace": {"type": "string"},
    },
}  # fmt: skip
"""controller-gen's schema of an embedded ObjectMeta (the fields a template may set)."""


def definition_name(package: str, name: str) -> str:
    """The name the API server gives a type's definition: the import path with its domain
    reversed (`k8s.io/api/core/v1.Pod` -> `io.k8s.api.core.v1.Pod`)."""
    parts = package.split("/")
    if parts and "." in parts[0]:
        parts[0] = ".".join(reversed(parts[0].split(".")))
    return ".".join([*parts, name])


def description(doc: str, extra: list[str] | tuple[str, ...] = ()) -> str:
    """A doc comment as openapi-gen writes it: paragraph lines joined with spaces, blank
    lines kept as paragraph breaks, indented lines kept on their own line, `TODO` and
    marker lines dropped, nothing after a `---` line."""
    out = ""
    for line in [*doc.split("\n"), *extra]:
        if line == "---":
            break
        line = line.rstrip(" ")
        leading = line.lstrip(" ")
        if not line:
            out = out[:-1] + "\n\n" if out else "\n\n"
        elif leading.startswith("TODO") or leading.startswith("+"):
            continue
        elif line.startswith((" ", "\t")):
            out = out[:-1] + "\n" + line + "\n" if out else "\n" + line + "\n"
        else:
            out += line + " "
    return out.strip()


def enum_lines(typedef: TypeDef) -> list[str]:
    """openapi-gen's "Possible enum values" paragraph for a field of an enum type."""
    lines = []
    seen = set()
    for value in typedef.enum_values:
        if value.value in seen:
            continue
        seen.add(value.value)
        comment = " ".join(value.doc.split("\n")).strip()
        comment = comment.removeprefix(value.go_name).strip()
        comment = re.sub(r"\s+", " ", comment)
        lines.append(f" - `{json.dumps(str(value.value), ensure_ascii=False)}` {comment}")
    if not lines:
        return []
    return ["", "Possible enum values:", *sorted(lines)]


def is_enum(typedef: TypeDef) -> bool:
    return typedef.is_enum and (typedef.has_marker("enum") or typedef.has_marker("k8s:enum"))


class SchemaBuilder:
    """Schemas of one universe in one dialect; `definitions` fills as types are referenced."""

    def __init__(self, universe: Universe, dialect: Dialect, embedded_object_meta: bool = False):
        self.universe = universe
        self.dialect = dialect
        self.embedded_object_meta = embedded_object_meta
        """crd: an ObjectMeta inside a kind (a pod template's) has the schema of its name,
        namespace, labels, annotations and finalizers (controller-gen's
        crd:generateEmbeddedObjectMeta), instead of `type: object`."""
        self.definitions: dict[str, dict[str, Any]] = {}
        self._stack: list[str] = []
        self.cycles: list[tuple[TypeDef, list[str]]] = []
        """Types that contain themselves (a CRD schema cannot say them): the type and the way round."""
        self._custom: dict[str, bool] = {}
        self._inline: dict[str, bytes] = {}
        """CRD schemas of structs already written out, kept as marshal bytes: a struct used by
        many kinds is expanded once and each use gets its own copy to add to."""

    def rules(self, item: TypeDef | Field, owner: TypeDef | None = None) -> Constraints:
        """The constraints a schema states for a type or a field (of `owner`): all of them for
        custom resources, whose schema is their validation; for Kubernetes' own groups and
        libraries, what openapi-gen (v2, v3) or controller-gen (crd) publishes."""
        if self.custom((owner or item).package):
            return item.validation
        return item.crd if self.dialect == "crd" else item.openapi

    def custom(self, package: str) -> bool:
        custom = self._custom.get(package)
        if custom is None:
            custom = self._custom[package] = self.universe.package(package).custom_resources
        return custom

    def publishes_enum(self, typedef: TypeDef) -> bool:
        """Whether the type's enum is stated: the API server's v2 document drops the enums of
        its own types (apiserver's pruneEnums), and keeps those of custom resources;
        controller-gen reads `+k8s:enum` but not openapi-gen's `+enum`."""
        if not is_enum(typedef):
            return False
        if self.custom(typedef.package):
            return True
        if self.dialect == "crd":
            return typedef.has_marker("k8s:enum")
        return self.dialect != "v2"

    def struct_type(self, typedef: TypeDef) -> str | None:
        """`+structType` of a struct, or of a struct it embeds inline (ConfigMapEnvSource is
        atomic because the LocalObjectReference it embeds is), as controller-gen carries it."""
        marker = typedef.marker("structType")
        if marker is not None:
            return marker.value
        for member in typedef.members:
            if member.promoted:
                ref = member.type.elem if member.type.kind == "pointer" else member.type
                inner = self.universe.resolve(ref)
                if inner.kind == "struct" and (found := self.struct_type(inner)) is not None:
                    return found
        return None

    # -- definitions (v2/v3) ---------------------------------------------------------------

    def ref_path(self, name: str) -> str:
        return f"#/components/schemas/{name}" if self.dialect == "v3" else f"#/definitions/{name}"

    def define(self, typedef: TypeDef) -> str:
        """Add a type's definition (and those it references); return its name."""
        model_package = self.universe.package(typedef.package).marker("k8s:openapi-model-package")
        if model_package is not None:  # openapi-gen's name for the package's models
            name = f"{model_package.value}.{typedef.name}"
        else:
            name = definition_name(typedef.package, typedef.name)
        if name not in self.definitions:
            self.definitions[name] = {}
            self.definitions[name] = self.type_schema(typedef)
        return name

    def type_schema(self, typedef: TypeDef) -> dict[str, Any]:
        """The schema of a struct or well-known type, with its description."""
        known = _WELL_KNOWN.get((typedef.package, typedef.name))
        if known is not None:
            schema = copy_json(known[self.dialect])  # each use its own: callers add to it
        elif typedef.kind == "python":
            json_type = typedef.json_type or ""
            schema = {"type": json_type} if json_type in ("string", "integer", "number", "boolean", "object") else {}
            shape = {"string": "string", "object": "struct"}.get(json_type, "number")
            schema.update(self.keywords([self.rules(typedef)], shape))
        else:
            schema = self.struct(typedef)
        text = self.describe(typedef.doc)
        if text and not (known is not None and self.dialect == "crd"):  # controller-gen's known types say no more
            schema["description"] = text
        if self.dialect == "crd":
            self.crd_annotations(typedef, schema)
        return schema

    def describe(self, doc: str, extra: list[str] | tuple[str, ...] = ()) -> str:
        """openapi-gen joins a comment's lines; controller-gen keeps them as written."""
        if self.dialect == "crd":
            return doc.strip()
        return description(doc, extra)

    # -- structs ---------------------------------------------------------------------------

    def struct(self, typedef: TypeDef) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for f in typedef.fields:
            if f.json_name == "-":
                continue
            properties[f.json_name] = self.field(typedef, f)
            if _required(f):
                required.append(f.json_name)
        schema: dict[str, Any] = {"type": "object"}
        if properties:
            schema["properties"] = properties
        if required:
            # controller-gen lists required fields alphabetically; openapi-gen in field order.
            schema["required"] = sorted(required) if self.dialect == "crd" else required
        constraints = [self.rules(typedef)]
        schema.update(self.keywords(constraints, "struct"))
        rules = self.union_rules(typedef) if self.dialect != "crd" or self.custom(typedef.package) else []
        if rules:  # controller-gen does not read +union: types a CRD embeds from elsewhere get no rules
            schema.setdefault("x-kubernetes-validations", [])[:0] = rules
        if self.dialect != "crd" and typedef.unions:
            unions = [
                self.union_extension(u) for u in typedef.unions if u.discriminator or u.origin in _OPENAPI_GEN_UNIONS
            ]
            if unions:
                schema["x-kubernetes-unions"] = unions
        structure = self.struct_type(typedef)
        if structure is not None:
            schema["x-kubernetes-map-type"] = structure
        if typedef.has_marker("kubebuilder:pruning:PreserveUnknownFields"):
            schema["x-kubernetes-preserve-unknown-fields"] = True
        if typedef.has_marker("kubebuilder:validation:EmbeddedResource") or typedef.has_marker(
            "kubebuilder:validation:XEmbeddedResource"
        ):
            schema["x-kubernetes-embedded-resource"] = True
        return schema

    def field(self, owner: TypeDef, f: Field) -> dict[str, Any]:
        """A property: the value's schema, its description, default and list/map semantics."""
        if f.has_marker("kubebuilder:validation:Schemaless"):
            schema: dict[str, Any] = {}
        elif (self.dialect == "crd" and owner.is_kind and not self._stack and f.json_name == "metadata"
              and _is_object_meta(self.universe, f.type)):  # fmt: skip
            # the CRD's own kind's metadata: the API server's to check (a kind nested in it,
            # such as a volume claim template, has its metadata described like a pod template's)
            return {"type": "object"}
        else:
            schema = self.value(f.type, [self.rules(f, owner)], owner=f)
        extra: list[str] = []
        base = _named_base(self.universe, f.type)
        if self.dialect != "crd" and base is not None and self.publishes_enum(base):
            extra = enum_lines(base)
        text = self.describe(f.doc, extra)
        default = self.default(f) if self.dialect != "v2" else None  # v2 never states defaults
        if self.dialect != "crd":
            if f.patch_strategy:
                schema["x-kubernetes-patch-strategy"] = f.patch_strategy
            if f.patch_merge_key:
                schema["x-kubernetes-patch-merge-key"] = f.patch_merge_key
        map_type = f.marker("mapType") or f.marker("structType")
        if map_type is not None:
            schema["x-kubernetes-map-type"] = map_type.value
        if f.has_marker("kubebuilder:pruning:PreserveUnknownFields"):
            schema["x-kubernetes-preserve-unknown-fields"] = True
        if f.has_marker("kubebuilder:validation:EmbeddedResource") or f.has_marker(
            "kubebuilder:validation:XEmbeddedResource"
        ):
            schema["x-kubernetes-embedded-resource"] = True
            schema.setdefault("x-kubernetes-preserve-unknown-fields", True)
            schema.setdefault("type", "object")
        if text or default is not None:
            schema = self.beside_ref(schema)
        if text:
            schema["description"] = text
        if default is not None:
            schema["default"] = default
        if self.dialect == "crd":
            self.crd_annotations(f, schema)
        return schema

    def crd_annotations(self, item: Field | TypeDef, schema: dict[str, Any]) -> None:
        """What controller-gen states beside a schema from `+nullable`, `+kubebuilder:example`,
        `+kubebuilder:title`, `+kubebuilder:validation:XIntOrString` and the `Type` overrides
        (of the value, and with `items:Type`, of a list's items)."""
        if isinstance(item, Field) and item.has_marker("nullable"):
            schema["nullable"] = True
        example = item.marker("kubebuilder:example")
        if example is not None:
            schema["example"] = example.value
        title = item.marker("kubebuilder:title")
        if title is not None:
            schema["title"] = title.value
        if item.has_marker("kubebuilder:validation:XIntOrString"):
            schema["x-kubernetes-int-or-string"] = True
        if isinstance(item, Field):
            override = item.marker("kubebuilder:validation:Type")
            if override is not None:
                schema["type"] = override.value
            items = item.marker("kubebuilder:validation:items:Type")
            if items is not None and isinstance(schema.get("items"), dict):
                schema["items"]["type"] = items.value

    def default(self, f: Field) -> Any:
        if f.declared_default is not None and not (self.dialect == "crd" and f.default_is_ref):
            return f.declared_default
        if self.dialect == "crd" or f.omitempty or f.omitzero:
            return None
        return self.zero_default(f.type, [f.validation])  # a default must meet every rule, published or not

    def zero_default(self, ref: TypeRef, constraints: list[Constraints]) -> Any:
        """The zero value openapi-gen states for a value that is always serialized (a field
        without omitempty, a list item, a map value), unless that value breaks the value's
        own constraints (a default must validate). None: no default."""
        for c in constraints:
            if any(x is not None for x in (c.minimum, c.maximum, c.enum, c.min_length, c.pattern, c.format)) or c.neq:
                return None
        if ref.kind == "named":
            typedef = self.universe.resolve(ref)
            if is_enum(typedef) or not typedef.validation.is_empty():
                return None
            if typedef.kind == "struct" and (typedef.package, typedef.name) not in _WELL_KNOWN:
                return None if any(_required(g) for g in typedef.fields) else {}  # `{}` must meet its required list
            ref = typedef.underlying if typedef.kind == "named" and typedef.underlying is not None else ref
        if ref.kind != "basic":
            return None
        return {"string": "", "bool": False, "bytes": None}.get(ref.basic or "", 0)

    # -- values ----------------------------------------------------------------------------

    def value(self, ref: TypeRef, constraints: list[Constraints], owner: Field | None = None) -> dict[str, Any]:
        """The schema of a value of `ref` with the constraints that apply to it."""
        while ref.kind == "pointer":
            ref = ref.elem
        shape = "opaque"
        schema: dict[str, Any]
        if ref.kind == "basic":
            table = _CRD_BASIC if self.dialect == "crd" else _OPENAPI_BASIC
            kind, fmt = table.get(ref.basic or "", ("integer", ""))
            schema = {"type": kind}
            if fmt:
                schema["format"] = fmt
            shape = {"string": "string", "boolean": "bool"}.get(kind, "number")
        elif ref.kind == "slice":
            items = [c.items for c in constraints if c.items is not None]
            schema = {"type": "array", "items": self.element(ref.elem, items)}
            shape = "list"
        elif ref.kind == "map":
            values = [c.items for c in constraints if c.items is not None]
            schema = {"type": "object", "additionalProperties": self.element(ref.elem, values)}
            shape = "map"
        elif ref.kind == "named":
            typedef = self.universe.resolve(ref)
            if typedef.kind in ("struct", "python"):
                schema = self.named_struct(typedef)
                shape = "struct" if typedef.kind == "struct" else "opaque"
            else:
                # Named scalars, slices and maps are written out where they are used.
                schema = self.value(typedef.underlying, [*constraints, self.rules(typedef)])
                if self.publishes_enum(typedef):
                    schema["enum"] = sorted({v.value for v in typedef.enum_values}, key=str)  # openapi-gen sorts them
                return schema
        else:  # interface{} with an opaque marker
            schema = {"type": "object"} if self.dialect != "crd" else {"x-kubernetes-preserve-unknown-fields": True}
        schema.update(self.keywords(constraints, shape))
        return schema

    def element(self, ref: TypeRef, constraints: list[Constraints]) -> dict[str, Any]:
        """A list item or map value; openapi-gen states its zero value as its default."""
        schema = self.value(ref, constraints)
        if self.dialect != "v3":
            return schema
        zero = self.zero_default(ref, constraints)
        if zero is None:
            return schema
        schema = self.beside_ref(schema)
        schema["default"] = zero
        return schema

    def beside_ref(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A schema ready for keywords beside its `$ref`: OpenAPI v3 ignores siblings of a
        `$ref`, so there the reference moves into `allOf` (as openapi-gen writes it)."""
        if "$ref" in schema and self.dialect == "v3":
            return {"allOf": [{"$ref": schema.pop("$ref")}], **schema}
        return schema

    def named_struct(self, typedef: TypeDef) -> dict[str, Any]:
        if self.dialect != "crd":
            return {"$ref": self.ref_path(self.define(typedef))}
        key = f"{typedef.package}.{typedef.name}"
        if key in self._stack:
            self.cycles.append((typedef, [*self._stack[self._stack.index(key) :], key]))
            return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        if typedef.package == META_V1 and typedef.name == "ObjectMeta":
            return copy_json(_EMBEDDED_OBJECT_META) if self.embedded_object_meta else {"type": "object"}
        if key in self._inline:
            return marshal.loads(self._inline[key])
        cycles = len(self.cycles)
        self._stack.append(key)
        try:
            schema = self.type_schema(typedef)
        finally:
            self._stack.pop()
        if len(self.cycles) == cycles:
            # No type on the way in came round again, so the expansion does not depend on
            # where the struct is used (a struct on a cycle always meets itself).
            self._inline[key] = marshal.dumps(schema)
        return schema

    # -- constraints -----------------------------------------------------------------------

    def keywords(self, constraints: list[Constraints], shape: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        rules: list[dict[str, Any]] = []
        for c in constraints:
            if c.is_empty():
                continue
            pairs = {
                "minimum": c.minimum, "maximum": c.maximum, "multipleOf": c.multiple_of,
                "minLength": c.min_length, "maxLength": c.max_length, "pattern": c.pattern,
                "minItems": c.min_items, "maxItems": c.max_items, "minProperties": c.min_properties,
                "maxProperties": c.max_properties,
            }  # fmt: skip
            out.update({k: v for k, v in pairs.items() if v is not None})
            if c.exclusive_minimum and c.minimum is not None:
                out["exclusiveMinimum"] = True
            if c.exclusive_maximum and c.maximum is not None:
                out["exclusiveMaximum"] = True
            if c.enum is not None:
                out["enum"] = list(c.enum)
            if c.format is not None:
                self._format(c.format, out, rules)
            if c.list_type is not None:
                out["x-kubernetes-list-type"] = c.list_type
            if c.list_map_keys:
                out["x-kubernetes-list-map-keys"] = list(c.list_map_keys)
            if c.unique == "set" and c.list_type is None:
                if self.dialect == "crd":
                    out["x-kubernetes-list-type"] = "set"  # CRDs may not say uniqueItems
                else:
                    out["uniqueItems"] = True
            for value in c.neq:
                rules.append(
                    {"rule": f"self != {_cel_literal(value)}", "message": f"must not be equal to {json.dumps(value)}"}
                )
            if c.immutable:
                rules.append({"rule": "self == oldSelf", "message": "field is immutable"})
            for rule in c.rules:
                entry: dict[str, Any] = {"rule": rule.rule}
                for key, value in (("message", rule.message), ("messageExpression", rule.message_expression),
                                   ("reason", rule.reason), ("fieldPath", rule.field_path)):  # fmt: skip
                    if value:
                        entry[key] = value
                if rule.optional_old_self:
                    entry["optionalOldSelf"] = True
                rules.append(entry)
        if rules:
            out["x-kubernetes-validations"] = rules
        return out

    def _format(self, name: str, out: dict[str, Any], rules: list[dict[str, Any]]) -> None:
        if self.dialect != "crd" or not name.startswith("k8s-"):
            out["format"] = name
        elif name in _SCHEMA_FORMATS:
            out["format"] = _SCHEMA_FORMATS[name]
        elif name == "k8s-path-segment-name":
            rules.append(dict(_PATH_SEGMENT_RULE))
        elif name in _CEL_FORMATS:
            # The API server bounds a rule's cost by the string's length: a format's own limit
            # keeps its rule affordable; a message joining all problems could not be bounded.
            if name in _FORMAT_MAX_LENGTHS:
                out.setdefault("maxLength", _FORMAT_MAX_LENGTHS[name])
            rules.append({"rule": f"!format.{_CEL_FORMATS[name]}().validate(self).hasValue()",
                          "messageExpression": f"format.{_CEL_FORMATS[name]}().validate(self).value()[0]"})  # fmt: skip

    def union_rules(self, typedef: TypeDef) -> list[dict[str, Any]]:
        """Unions as CEL rules (what controller-gen writes for its one-of markers)."""
        rules = []
        for union in typedef.unions:
            names = [m.json_name for m in union.members]
            listed = "[" + " ".join(names) + "]"
            count = "[" + ",".join(f"has(self.{n})" for n in names) + "].filter(x,x==true).size()"
            if union.discriminator:
                d = union.discriminator
                # A +unionDeprecated union whose discriminator is empty only limits how many are set.
                fallback = union.mode == "zeroOrOne"
                unset = f"!has(self.{d}) || self.{d} == ''"
                for m in union.members:
                    # An absent discriminator names no member (reading it would be an error on a cluster).
                    chosen = f"self.{d} == {_cel_literal(m.member_name)}"
                    if not fallback:
                        chosen = f"(has(self.{d}) && {chosen})"
                    rule = f"{chosen} ? has(self.{m.json_name}) : !has(self.{m.json_name})"
                    rules.append({
                        "rule": f"{unset} || ({rule})" if fallback else rule,
                        "message": f"{m.json_name} must be set exactly when {d} is {json.dumps(m.member_name)}",
                    })  # fmt: skip
                if fallback:
                    rules.append(
                        {
                            "rule": f"!({unset}) || {count} <= 1",
                            "message": f"at most one of the fields in {listed} may be set",
                        }
                    )
                continue
            if union.mode == "exactlyOne":
                rules.append({"rule": f"{count} == 1", "message": f"exactly one of the fields in {listed} must be set"})
            elif union.mode == "zeroOrOne":
                rules.append({"rule": f"{count} <= 1", "message": f"at most one of the fields in {listed} may be set"})
            else:
                rules.append(
                    {"rule": f"{count} >= 1", "message": f"at least one of the fields in {listed} must be set"}
                )
        return rules

    @staticmethod
    def union_extension(union) -> dict[str, Any]:
        """`x-kubernetes-unions` as openapi-gen writes it (the discriminator only when there is one)."""
        extension: dict[str, Any] = {"discriminator": union.discriminator} if union.discriminator else {}
        extension["fields-to-discriminateBy"] = {m.json_name: m.member_name for m in union.members}
        return extension


_OPENAPI_GEN_UNIONS = ("union", "unionDeprecated")
"""Unions openapi-gen states in `x-kubernetes-unions` even without a discriminator."""


def _required(f: Field) -> bool:
    return not f.optional and f.validation.presence != "optional"


def _cel_literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _named_base(universe: Universe, ref: TypeRef) -> TypeDef | None:
    while ref.kind == "pointer":
        ref = ref.elem
    return universe.resolve(ref) if ref.kind == "named" else None


def _is_object_meta(universe: Universe, ref: TypeRef) -> bool:
    typedef = _named_base(universe, ref)
    return typedef is not None and typedef.package == META_V1 and typedef.name == "ObjectMeta"


def sort_keys(value: Any) -> Any:
    """A JSON value with every object's keys sorted (as Go writes maps)."""
    if isinstance(value, dict):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sort_keys(v) for v in value]
    return value
