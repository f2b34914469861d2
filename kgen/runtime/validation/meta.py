"""Validation of object metadata, as the API server does it for every kind.

`validate_object_meta` checks name (a DNS subdomain unless the kind says otherwise),
generateName, namespace (required for namespaced kinds, forbidden for cluster-scoped
ones), generation, labels, annotations (keys and their total size), finalizers and owner
references. `validate_object_meta_update` adds the fields that never change.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kgen.runtime.validation import field
from kgen.runtime.validation.field import FIELD_IMMUTABLE, FieldError, PathNode
from kgen.runtime.validation.formats import (
    FORMATS,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)
"""Bytes all annotation keys and values of an object may take together (256 KiB)."""


@functools.cache
def name_check(name_format: str) -> Callable[[str, bool], list[str]]:
    """A name check for `+k8s:format`-style names; with prefix=True it checks a generateName."""
    check = _NAME_CHECKS.get(name_format) or FORMATS[name_format]

    def validate(name: str, prefix: bool) -> list[str]:
        if prefix:
            name = mask_trailing_dash(name)
        return check(name)

    return validate


_NAME_CHECKS: dict[str, Callable[[str], list[str]]] = {
    "k8s-long-name": is_dns1123_subdomain,
    "k8s-short-name": is_dns1123_label,
    "k8s-dns1035-label": is_dns1035_label,
}
"""The API server's name functions (NameIsDNSSubdomain...) word lengths in characters."""


def mask_trailing_dash(name: str) -> str:
    """A generateName prefix may end with '-': apimachinery's maskTrailingDash replaces the
    last two characters with 'a' (`abc-` is checked as `aba`) and so does kgen."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def validate_object_meta(
    meta: Any,
    path: PathNode,
    errors: list[FieldError],
    namespaced: bool = True,
    name_format: str = "k8s-long-name",
) -> None:
    """Append the errors of an object's metadata to `errors`."""
    if meta is None:
        errors.append(field.required(field.child(path, "name"), "name or generateName is required"))
        return
    check = name_check(name_format)
    generate_name = meta.generate_name or ""
    if generate_name:
        for message in check(generate_name, True):
            errors.append(
                field.invalid(field.child(path, "generateName"), generate_name, message, "format=" + name_format)
            )
    name = meta.name or ""
    if not name:
        errors.append(field.required(field.child(path, "name"), "name or generateName is required"))
    else:
        for message in check(name, False):
            errors.append(field.invalid(field.child(path, "name"), name, message, "format=" + name_format))
    namespace = meta.namespace or ""
    if namespaced:
        if not namespace:
            errors.append(field.required(field.child(path, "namespace"), ""))
        else:
            for message in is_dns1123_label(namespace):
                errors.append(
                    field.invalid(field.child(path, "namespace"), namespace, message, "format=k8s-short-name")
                )
    elif namespace:
        errors.append(field.forbidden(field.child(path, "namespace"), "not allowed on this type"))
    generation = meta.generation or 0
    if generation < 0:
        errors.append(
            field.invalid(field.child(path, "generation"), generation, "must be greater than or equal to 0", "minimum")
        )
    validate_labels(meta.labels, field.child(path, "labels"), errors)
    validate_annotations(meta.annotations, field.child(path, "annotations"), errors)
    validate_finalizers(meta.finalizers, field.child(path, "finalizers"), errors)
    validate_owner_references(meta.owner_references, field.child(path, "ownerReferences"), errors)


def validate_labels(labels: dict[str, str] | None, path: PathNode, errors: list[FieldError]) -> None:
    """Keys are qualified names and values label values, both reported at `labels` (ValidateLabels)."""
    for key, value in (labels or {}).items():
        for message in is_qualified_name(key):
            errors.append(field.invalid(path, key, message, "format=k8s-label-key"))
        for message in is_valid_label_value(value or ""):
            errors.append(field.invalid(path, value, message, "format=k8s-label-value"))


def validate_annotations(annotations: dict[str, str] | None, path: PathNode, errors: list[FieldError]) -> None:
    """Keys are qualified names in any case; keys and values together take at most 256 KiB."""
    if not annotations:
        return
    total = 0
    for key, value in annotations.items():
        for message in is_qualified_name(key.lower()):
            errors.append(field.invalid(path, key, message, "format=k8s-label-key"))
        total += len(key.encode()) + len((value or "").encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.append(field.too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT, origin="maxBytes"))


def validate_finalizers(finalizers: list[str] | None, path: PathNode, errors: list[FieldError]) -> None:
    seen: set[str] = set()
    for i, finalizer in enumerate(finalizers or ()):
        for message in is_qualified_name(finalizer):
            errors.append(field.invalid(field.index(path, i), finalizer, message, "format=k8s-label-key"))
        if finalizer in seen:
            errors.append(field.duplicate(field.index(path, i), finalizer))
        seen.add(finalizer)


def validate_owner_references(references: list[Any] | None, path: PathNode, errors: list[FieldError]) -> None:
    controllers = []
    for i, reference in enumerate(references or ()):
        item = field.index(path, i)
        if not reference.api_version:
            errors.append(
                field.invalid(field.child(item, "apiVersion"), reference.api_version, "version must not be empty")
            )
        if not reference.kind:
            errors.append(field.invalid(field.child(item, "kind"), reference.kind, "must not be empty"))
        if not reference.name:
            errors.append(field.invalid(field.child(item, "name"), reference.name, "must not be empty"))
        if not reference.uid:
            errors.append(field.invalid(field.child(item, "uid"), reference.uid, "must not be empty"))
        if reference.controller:
            controllers.append(f"{reference.kind}/{reference.name}")
    if len(controllers) > 1:
        errors.append(
            field.invalid(
                path,
                [r.to_dict() for r in references or ()],
                'Only one reference can have Controller set to true. Found "true" in references for '
                + " and ".join(controllers),
            )
        )


def validate_object_meta_update(new: Any, old: Any, path: PathNode, errors: list[FieldError]) -> None:
    """Fields of the metadata that never change once the object exists."""
    if new is None or old is None:
        return
    for name, attribute in (("name", "name"), ("namespace", "namespace"), ("uid", "uid")):
        value, previous = getattr(new, attribute), getattr(old, attribute)
        if value != previous:
            errors.append(field.invalid(field.child(path, name), value, FIELD_IMMUTABLE, "immutable"))
    if old.creation_timestamp is not None and new.creation_timestamp != old.creation_timestamp:
        errors.append(
            field.invalid(field.child(path, "creationTimestamp"), new.creation_timestamp, FIELD_IMMUTABLE, "immutable")
        )
    if old.deletion_timestamp is not None and new.deletion_timestamp != old.deletion_timestamp:
        errors.append(
            field.invalid(field.child(path, "deletionTimestamp"), new.deletion_timestamp, FIELD_IMMUTABLE, "immutable")
        )
    if (new.generation or 0) < (old.generation or 0):
        errors.append(
            field.invalid(field.child(path, "generation"), new.generation, "must not be decreased", "monotonic")
        )
