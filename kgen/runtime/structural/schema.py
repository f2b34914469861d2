"""A custom resource's structural schema, parsed once and never changed.

`Structural.from_openapi` reads the `openAPIV3Schema` of one version of a
CustomResourceDefinition (a plain dict, as it sits in the CRD) into a tree of frozen
`Structural` nodes. Pruning, defaulting and validation of custom resources walk this tree
rather than the dict, so each keyword is looked up and checked once.

Besides the keywords, a node knows the two things validation derives from them as the API
server does: the list of types the value may have (`x-kubernetes-int-or-string` means
integer or string) and the format that is actually enforced (`validated_format`): the API
server quietly ignores a format it does not support for the node's type, so a CRD may name
any format while only the supported ones are checked.
"""

from __future__ import annotations

import copy
import dataclasses
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Structural", "NO_DEFAULT", "SUPPORTED_STRING_FORMATS"]


class _NoDefault:
    """The marker of a node without a default (a `default: null` is no default either)."""

    _instance: _NoDefault | None = None

    def __new__(cls) -> _NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __bool__(self) -> bool:
        return False


NO_DEFAULT: Any = _NoDefault()

SUPPORTED_STRING_FORMATS = frozenset(
    {
        "bsonobjectid",
        "uri",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "cidr",
        "mac",
        "uuid",
        "uuid3",
        "uuid4",
        "uuid5",
        "isbn",
        "isbn10",
        "isbn13",
        "creditcard",
        "ssn",
        "hexcolor",
        "rgbcolor",
        "byte",
        "password",
        "date",
        "duration",
        "datetime",
        "k8s-short-name",
        "k8s-long-name",
    }
)
"""The string formats a custom resource's schema may enforce. Names are compared with their
dashes removed on both sides, so `date-time` is `datetime`."""

_NORMALIZED_STRING_FORMATS = frozenset(name.replace("-", "") for name in SUPPORTED_STRING_FORMATS)

_EMPTY: Mapping[str, Structural] = types.MappingProxyType({})


def _enforced_format(fmt: str, types_: tuple[str, ...]) -> str:
    """The format the API server checks: unsupported ones are dropped for the node's type."""
    if not fmt:
        return ""
    kind = types_[0] if len(types_) == 1 else ""
    if kind in ("", "string"):
        return fmt if fmt.replace("-", "") in _NORMALIZED_STRING_FORMATS else ""
    if kind == "integer":
        return fmt if fmt in ("int32", "int64") else ""
    if kind == "number":
        return fmt if fmt in ("float", "double") else ""
    return ""


def _frozen_copy(value: Any) -> Any:
    return copy.deepcopy(value)


@dataclass(frozen=True, slots=True, eq=False)
class Structural:
    """One node of a structural schema; every keyword the API server uses for custom resources."""

    type: str = ""
    nullable: bool = False
    default: Any = NO_DEFAULT
    enum: tuple[Any, ...] | None = None
    format: str = ""
    pattern: str = ""
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    min_properties: int | None = None
    max_properties: int | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    multiple_of: int | float | None = None
    required: tuple[str, ...] = ()
    properties: Mapping[str, Structural] = field(default_factory=lambda: _EMPTY)
    items: Structural | None = None
    additional_properties: Structural | bool | None = None
    """A schema for every other key; True or False for the boolean form; None when absent."""
    all_of: tuple[Structural, ...] = ()
    any_of: tuple[Structural, ...] = ()
    one_of: tuple[Structural, ...] = ()
    not_: Structural | None = None
    preserve_unknown_fields: bool = False
    int_or_string: bool = False
    embedded_resource: bool = False
    list_type: str | None = None
    list_map_keys: tuple[str, ...] = ()
    map_type: str | None = None
    validations: tuple[Mapping[str, Any], ...] = ()
    """The `x-kubernetes-validations` rules, as written (CEL is evaluated elsewhere)."""
    types: tuple[str, ...] = ()
    """The types a value may have: `("integer", "string")` for int-or-string, else the type."""
    validated_format: str = ""
    """The format that is enforced (empty when the format is unsupported for the type)."""

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def additional_properties_schema(self) -> Structural | None:
        """The schema of additional properties, or None (absent, or the boolean form)."""
        ap = self.additional_properties
        return ap if isinstance(ap, Structural) else None

    @classmethod
    def from_openapi(cls, schema: Mapping[str, Any] | None) -> Structural:
        """Parse an `openAPIV3Schema` (a JSON object) into a frozen tree.

        Raises TypeError when a keyword has a value of the wrong JSON type; the schema is
        otherwise taken as the API server accepted it (structural rules are not re-checked).
        """
        if schema is None:
            return cls()
        if not isinstance(schema, Mapping):
            raise TypeError(f"a schema must be an object, not {type(schema).__name__}")
        d = schema

        def sub(key: str) -> Structural | None:
            value = d.get(key)
            return None if value is None else cls.from_openapi(value)

        def subs(key: str) -> tuple[Structural, ...]:
            value = d.get(key) or ()
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"{key} must be an array of schemas")
            return tuple(cls.from_openapi(v) for v in value)

        properties_raw = d.get("properties") or {}
        if not isinstance(properties_raw, Mapping):
            raise TypeError("properties must be an object")
        properties = types.MappingProxyType({k: cls.from_openapi(v) for k, v in properties_raw.items()})

        additional: Structural | bool | None
        raw_ap = d.get("additionalProperties")
        if raw_ap is None:
            additional = None
        elif isinstance(raw_ap, bool):
            additional = raw_ap
        else:
            additional = cls.from_openapi(raw_ap)

        items_raw = d.get("items")
        items = None
        if isinstance(items_raw, Mapping):
            items = cls.from_openapi(items_raw)
        elif isinstance(items_raw, (list, tuple)) and items_raw:
            raise TypeError("items must be a single schema in a structural schema")

        type_ = d.get("type") or ""
        int_or_string = bool(d.get("x-kubernetes-int-or-string", False))
        types_ = ("integer", "string") if int_or_string else ((type_,) if type_ else ())
        fmt = d.get("format") or ""
        enum_raw = d.get("enum")
        default = d.get("default", None)
        list_type = d.get("x-kubernetes-list-type")
        return cls(
            type=type_,
            nullable=bool(d.get("nullable", False)),
            default=NO_DEFAULT if default is None else _frozen_copy(default),
            enum=None if enum_raw is None else tuple(_frozen_copy(list(enum_raw))),
            format=fmt,
            pattern=d.get("pattern") or "",
            min_length=d.get("minLength"),
            max_length=d.get("maxLength"),
            min_items=d.get("minItems"),
            max_items=d.get("maxItems"),
            unique_items=bool(d.get("uniqueItems", False)),
            min_properties=d.get("minProperties"),
            max_properties=d.get("maxProperties"),
            minimum=d.get("minimum"),
            maximum=d.get("maximum"),
            exclusive_minimum=bool(d.get("exclusiveMinimum", False)),
            exclusive_maximum=bool(d.get("exclusiveMaximum", False)),
            multiple_of=d.get("multipleOf"),
            required=tuple(d.get("required") or ()),
            properties=properties,
            items=items,
            additional_properties=additional,
            all_of=subs("allOf"),
            any_of=subs("anyOf"),
            one_of=subs("oneOf"),
            not_=sub("not"),
            preserve_unknown_fields=bool(d.get("x-kubernetes-preserve-unknown-fields", False)),
            int_or_string=int_or_string,
            embedded_resource=bool(d.get("x-kubernetes-embedded-resource", False)),
            list_type=list_type,
            list_map_keys=tuple(d.get("x-kubernetes-list-map-keys") or ()),
            map_type=d.get("x-kubernetes-map-type"),
            validations=tuple(
                types.MappingProxyType(_frozen_copy(dict(rule))) for rule in d.get("x-kubernetes-validations") or ()
            ),
            types=types_,
            validated_format=_enforced_format(fmt, types_),
        )

    def with_embedded_resource(self) -> Structural:
        """This node, marked as an embedded resource (how the root of a resource is pruned)."""
        if self.embedded_resource:
            return self
        return dataclasses.replace(self, embedded_resource=True)
