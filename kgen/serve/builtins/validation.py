"""Validation the built-in kinds share: object metadata, immutable fields, secret sizes.

The kinds' own rules are in their modules; these are apimachinery's and core's helpers
(ValidateObjectMeta, ValidateObjectMetaUpdate, ValidateImmutableField) on the stored JSON.
"""

from __future__ import annotations

from typing import Any

from kgen.runtime import gotypes
from kgen.runtime.errors import bad_request
from kgen.runtime.validation.field import FIELD_IMMUTABLE, FieldError, Path, invalid
from kgen.runtime.validation.meta import validate_object_meta, validate_object_meta_update

MAX_SECRET_SIZE = 1024 * 1024
"""core.MaxSecretSize: what the data of a Secret (and of a ConfigMap) may hold in all."""


def _meta(obj: dict[str, Any]) -> Any:
    from kgen.runtime.apimachinery.meta.v1.models import ObjectMeta

    try:
        return ObjectMeta.from_dict(obj.get("metadata") or {})
    except ValueError as error:  # what Go decoded but kgen's model refuses (managedFields that are no set)
        raise bad_request(f"unable to decode the metadata: {error}") from None


def object_meta(obj: dict[str, Any], namespaced: bool = True) -> list[FieldError]:
    """ValidateObjectMeta of an object (namespaced unless told) whose name is a DNS subdomain."""
    errors: list[FieldError] = []
    validate_object_meta(_meta(obj), Path.root("metadata"), errors, namespaced=namespaced)
    return errors


def object_meta_update(obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateObjectMetaUpdate: what an update may not change in the metadata."""
    errors: list[FieldError] = []
    validate_object_meta_update(_meta(obj), _meta(old), Path.root("metadata"), errors)
    return errors


def immutable(path: Path, new: Any, old: Any) -> list[FieldError]:
    """ValidateImmutableField: `<path>: Invalid value: <new>: field is immutable`."""
    return [] if new == old else [invalid(path, new, FIELD_IMMUTABLE, "immutable")]


def data_size(value: str | None) -> int:
    """The bytes a base64 value of a []byte map holds."""
    return len(gotypes.decode_base64(value)) if value else 0
