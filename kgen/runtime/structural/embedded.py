"""Embedded resources of a custom resource (`x-kubernetes-embedded-resource: true`), checked
as the apiextensions-apiserver checks them after the schema.

An embedded resource is an object of its own inside the custom resource (a pod template, a
manifest to apply): it must say what it is, `apiVersion` and `kind`, and its `metadata`,
when given, must be an ObjectMeta with valid names, labels and annotations. Its name may be
empty (it is a template) and is checked as a path segment, not as a DNS name; its namespace
decides whether it is checked as a namespaced object. The check is the same on create and
update (nothing ratchets).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.runtime.structural.schema import Structural
from kgen.runtime.validation import field
from kgen.runtime.validation.content import is_dns1035_label
from kgen.runtime.validation.field import FieldError, PathNode

__all__ = ["coerce_embedded_metadata", "coerce_object_meta", "embedded_resource_errors"]


def embedded_resource_errors(obj: Any, schema: Structural | None) -> list[FieldError]:
    """The errors of every embedded resource in `obj` (the resource itself is not one)."""
    errors: list[FieldError] = []
    for path, resource in _embedded_resources(None, obj, schema):
        _check_resource(path, resource, errors)
    return errors


def _embedded_resources(
    path: PathNode, value: Any, schema: Structural | None
) -> Iterator[tuple[PathNode, dict[str, Any]]]:
    """Each object of `value` its schema marks `x-kubernetes-embedded-resource`, with its path."""
    if schema is None:
        return
    if isinstance(value, dict):
        if schema.embedded_resource:
            yield path, value
        for key, item in value.items():
            if key in schema.properties:
                yield from _embedded_resources(field.child(path, key), item, schema.properties[key])
            elif schema.additional_properties_schema is not None:
                yield from _embedded_resources(field.key(path, key), item, schema.additional_properties_schema)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _embedded_resources(field.index(path, index), item, schema.items)


def _check_resource(path: PathNode, obj: dict[str, Any], errors: list[FieldError]) -> None:
    """apiVersion and kind are required (metadata is not), and each must be well formed."""
    if "apiVersion" not in obj:
        errors.append(field.required(field.child(path, "apiVersion"), ""))
    if "kind" not in obj:
        errors.append(field.required(field.child(path, "kind"), ""))
    for key, value in obj.items():
        if key == "apiVersion":
            _check_api_version(field.child(path, "apiVersion"), value, errors)
        elif key == "kind":
            _check_kind(field.child(path, "kind"), value, errors)
        elif key == "metadata":
            _check_metadata(field.child(path, "metadata"), value, errors)


def _check_api_version(path: PathNode, value: Any, errors: list[FieldError]) -> None:
    if not isinstance(value, str):
        errors.append(field.invalid(path, value, "must be a string"))
    elif not value:
        errors.append(field.invalid(path, value, "must not be empty"))
    elif value.count("/") > 1:
        errors.append(field.invalid(path, value, f"unexpected GroupVersion string: {value}"))


def _check_kind(path: PathNode, value: Any, errors: list[FieldError]) -> None:
    if not isinstance(value, str):
        errors.append(field.invalid(path, value, "must be a string"))
    elif not value:
        errors.append(field.invalid(path, value, "must not be empty"))
    else:
        problems = is_dns1035_label(value.lower())
        if problems:
            errors.append(
                field.invalid(path, value, "may have mixed case, but should otherwise match: " + ",".join(problems))
            )


def _check_metadata(path: PathNode, value: Any, errors: list[FieldError]) -> None:
    """ObjectMeta as a create validates it, with a stand-in name when there is none."""
    from kgen.runtime.apimachinery.meta.v1.models import ObjectMeta
    from kgen.runtime.errors import APIError
    from kgen.runtime.validation.meta import validate_object_meta

    if not isinstance(value, dict):
        errors.append(field.invalid(path, value, "must be an object"))
        return
    try:
        meta = ObjectMeta.from_dict({**value, "name": value.get("name") or "fakename"})
    except (ValueError, TypeError, APIError) as error:
        errors.append(field.invalid(path, value, str(error)))
        return
    validate_object_meta(
        meta, path, errors, namespaced=bool(value.get("namespace")), name_format="k8s-path-segment-name"
    )


# -- coercion: metadata as ObjectMeta writes it ---------------------------------------------------

_OBJECT_META = frozenset({
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
    "managedFields",
})  # fmt: skip
"""The fields of ObjectMeta (every one `omitempty`)."""

_POINTERS = frozenset({"deletionTimestamp", "deletionGracePeriodSeconds"})
"""Fields Go holds as pointers: a zero value is kept, only a null is dropped."""

_OWNER_REFERENCE = {"apiVersion": "", "kind": "", "name": "", "uid": ""}
"""The fields an OwnerReference always writes; `controller` and `blockOwnerDeletion` are pointers."""

_MANAGED_FIELDS_ENTRY = frozenset(
    {"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"}
)


def coerce_object_meta(metadata: dict[str, Any], path: str) -> list[str]:
    """Rewrite `metadata` (changed in place) as a round trip through ObjectMeta writes it, as
    the API server does with the metadata of a custom resource and of each embedded resource
    (schema/objectmeta Coerce): what ObjectMeta has no field for is dropped, and so are empty
    values (`""`, 0, `{}`, `[]`, null) of its omitempty fields. Returns the paths of the
    unknown fields it dropped (`path` is the metadata's own)."""
    unknown = []
    for key in list(metadata):
        value = metadata[key]
        if key not in _OBJECT_META:
            del metadata[key]
            unknown.append(f"{path}.{key}")
        elif value is None or (key not in _POINTERS and value in ("", 0, {}, [])) and not isinstance(value, bool):
            del metadata[key]
        elif key == "ownerReferences" and isinstance(value, list):
            for index, reference in enumerate(value):
                if isinstance(reference, dict):
                    unknown += _coerce_struct(reference, f"{path}.ownerReferences[{index}]", _OWNER_REFERENCE,
                                              frozenset({"controller", "blockOwnerDeletion"}))  # fmt: skip
        elif key == "managedFields" and isinstance(value, list):
            for index, entry in enumerate(value):
                if isinstance(entry, dict):
                    unknown += _coerce_struct(entry, f"{path}.managedFields[{index}]", {}, _MANAGED_FIELDS_ENTRY)
    return unknown


def _coerce_struct(obj: dict[str, Any], path: str, always: dict[str, Any], optional: frozenset[str]) -> list[str]:
    unknown = []
    for key in list(obj):
        if key not in always and key not in optional:
            del obj[key]
            unknown.append(f"{path}.{key}")
        elif key in optional and (obj[key] is None or obj[key] in ("", {}, [])) and not isinstance(obj[key], bool):
            del obj[key]
    for key, empty in always.items():
        if obj.get(key) is None:
            obj[key] = empty
    return unknown


def coerce_embedded_metadata(obj: Any, schema: Structural | None) -> list[str]:
    """`coerce_object_meta` on the metadata of every embedded resource in `obj` (a custom
    resource, whose own metadata is not one); the unknown fields' paths."""
    unknown: list[str] = []
    for path, resource in list(_embedded_resources(None, obj, schema)):
        if isinstance(resource.get("metadata"), dict):
            unknown += coerce_object_meta(resource["metadata"], field.path_string(field.child(path, "metadata")))
    return unknown
