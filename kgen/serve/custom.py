"""The request flow of a custom resource, driven by its CRD's structural schemas.

A cluster serves a kind with a CRD through the apiextensions-apiserver, which knows nothing of
Go structs or defaulter-gen: it works on JSON objects against the structural schema of the
version in the request.

    request body -> prune (fieldValidation) -> drop nulls -> default      (the request's version)
    -> schema, list-type and CEL validation (ratcheting on update)       (the request's version)
    -> conversion to the storage version -> prune, default               (the storage version)
    store -> conversion to the request's version -> prune, default       (on every read)

Conversion is the CRD's: with a conversion webhook, the generated conversions do what the
webhook would (through the typed models of `KindFlow`); without one (strategy None) only the
apiVersion changes, as the API server changes it. Type errors are 422 Invalid at their field
(`spec.replicas in body must be of type integer: "string"`), never a decoding error.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from kgen.runtime.errors import APIError, bad_request
from kgen.runtime.scheme import (
    DecodeResult,
    FieldValidation,
    GroupVersion,
    GroupVersionKind,
    cannot_handle,
    parse_json_with_duplicates,
)
from kgen.runtime.store import DefaultStrategy, ResourceInfo, json_copy
from kgen.runtime.structural import (
    Structural,
    default,
    needs_defaults,
    embedded_resource_errors,
    list_type_errors,
    prune,
    prune_nulls,
    update_list_type_errors,
    validate,
    validate_update,
)
from kgen.runtime.structural.embedded import coerce_embedded_metadata, coerce_object_meta
from kgen.runtime.structural.rules import check_rules
from kgen.runtime.validation.field import ErrorType, FieldError, Path, invalid, invalid_error
from kgen.serve.conversionreview import convert
from kgen.serve.flow import KindFlow
from kgen.serve.webhooks import WebhookCaller

_BLOCKING = frozenset({
    ErrorType.NOT_SUPPORTED, ErrorType.REQUIRED, ErrorType.TOO_LONG, ErrorType.TOO_MANY, ErrorType.TYPE_INVALID,
})  # fmt: skip
"""Errors after which the CRD's CEL rules are not run (their values may not be what the
rules expect): the custom resource strategy reports `_RULES_NOT_CHECKED` instead."""
_RULES_NOT_CHECKED = (
    "some validation rules were not checked because the object was invalid; correct the existing errors to "
    "complete validation"
)
_MAX_INT32 = 2**31 - 1


def scale_errors(obj: dict[str, Any], scale: Mapping[str, str]) -> list[FieldError]:
    """The replicas of the scale subresource's paths must be integers from 0 to 2^31-1 and
    its label selector a string (the custom resource validator checks them on every write;
    a missing value is 0 and fine). Paths are reported as the CRD writes them (`.spec.replicas`)."""
    errors: list[FieldError] = []
    for key in ("specReplicasPath", "statusReplicasPath"):
        path = scale.get(key, "")
        if not path:
            continue
        value, problem = _nested(obj, path, "int64")
        if problem:
            errors.append(invalid(Path.root(path), 0, problem))
        elif isinstance(value, int) and value < 0:
            errors.append(invalid(Path.root(path), value, "should be a non-negative integer"))
        elif isinstance(value, int) and value > _MAX_INT32:
            errors.append(invalid(Path.root(path), value, f"should be less than or equal to {_MAX_INT32}"))
    selector = scale.get("labelSelectorPath", "")
    if selector:
        _, problem = _nested(obj, selector, "string")
        if problem:
            errors.append(invalid(Path.root(selector), "", problem))
    return errors


def _nested(obj: Any, json_path: str, expected: str) -> tuple[Any, str]:
    """The value at a `.a.b` path (None when absent) and the accessor problem, as
    unstructured's Nested* accessors word it."""
    fields = json_path.lstrip(".").split(".")
    value: Any = obj
    for name in fields:
        if not isinstance(value, dict):  # unstructured's accessors name the whole path
            return (
                None,
                f".{'.'.join(fields)} accessor error: {_go_print(value)} is of the type {_go_type(value)}, "
                "expected map[string]interface{}",
            )
        if name not in value:
            return None, ""
        value = value[name]
    wanted = int if expected == "int64" else str
    if value is None or isinstance(value, bool) or not isinstance(value, wanted):
        return (
            None,
            f".{'.'.join(fields)} accessor error: {_go_print(value)} is of the type {_go_type(value)}, expected {expected}",
        )
    return value, ""


def _go_print(value: Any) -> str:
    """A value as Go's %v prints what encoding/json decoded."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else str(int(value))
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_print(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_print(v) for v in value) + "]"
    return str(value)


def _mentions(schema: Mapping[str, Any] | Any, keyword: str) -> bool:
    """Whether a schema uses `keyword` anywhere (`default`, `x-kubernetes-validations`, ...)."""
    if isinstance(schema, Mapping):
        return keyword in schema or any(_mentions(v, keyword) for v in schema.values())
    if isinstance(schema, list):
        return any(_mentions(v, keyword) for v in schema)
    return False


class CustomResourceFlow:
    """Decoding, defaulting, validation and conversion of one custom resource kind."""

    protobuf = False
    """Custom resources have no protobuf encoding."""

    def __init__(
        self,
        group: str,
        kind: str,
        storage_version: str,
        schemas: Mapping[str, Mapping[str, Any] | None],
        typed: KindFlow | None,
        webhook_conversion: bool,
        namespaced: bool = True,
        scales: Mapping[str, Mapping[str, str] | None] | None = None,
        conversion: Mapping[str, Any] | None = None,
        caller: WebhookCaller | None = None,
    ):
        self.group = group
        self.conversion = dict(conversion or {})
        """The CRD's spec.conversion (strategy, webhook clientConfig, conversionReviewVersions)."""
        self.caller = caller
        self.scales = dict(scales or {})
        """Each version's scale subresource paths (specReplicasPath, ...), where it has one."""
        self.namespaced = namespaced
        self.kind = kind
        self.storage_version = storage_version
        self.schemas = {version: Structural.from_openapi(schema or {}) for version, schema in schemas.items()}
        self.defaults = {version: _mentions(schema or {}, "default") for version, schema in schemas.items()}
        self.rules = {
            version: _mentions(schema or {}, "x-kubernetes-validations") for version, schema in schemas.items()
        }
        """Whether each version's schema has CEL rules (only then is CEL validation run)."""
        self.embedded = {
            version: _mentions(schema or {}, "x-kubernetes-embedded-resource") for version, schema in schemas.items()
        }
        """Whether each version's schema has embedded resources (only then are they walked for)."""
        self.typed = typed
        """The typed flow whose generated conversions stand in for the conversion webhook."""
        self.webhook_conversion = webhook_conversion and typed is not None
        webhook = self.conversion.get("webhook") or {}
        self.remote_conversion = (
            self.conversion.get("strategy") == "Webhook"
            and caller is not None
            and (typed is None or caller.reachable(webhook.get("clientConfig") or {}))
        )
        """Whether conversions call the CRD's webhook: always for a CRD without generated
        conversions; for a generated kind, when kgen was told where its webhook listens."""

    def api_version(self, version: str) -> str:
        return GroupVersion(self.group, version).api_version

    # -- decoding ----------------------------------------------------------------------------

    def decode(self, data: bytes, version: str, field_validation: FieldValidation) -> DecodeResult:
        """A request body of this kind in `version`: pruned (unknown fields are warnings, or a
        400 with Strict), nulls dropped, defaulted; 400 when it is another kind or version."""
        try:
            document, duplicates = parse_json_with_duplicates(data)
        except ValueError as error:
            raise bad_request(f"invalid JSON: {error}") from None
        if not isinstance(document, dict):
            raise bad_request("the object must be a JSON object")
        return self.decode_dict(document, version, field_validation, duplicates)

    def decode_applied(self, obj: dict[str, Any], version: str, field_validation: FieldValidation) -> DecodeResult:
        """`decode_dict` of the object a server-side apply made: it keeps its nulls (the field
        manager's result is not decoded again, so a null of a field that is not nullable is
        a type error, as on a cluster)."""
        return self.decode_dict(obj, version, field_validation, keep_nulls=True)

    def decode_dict(
        self, obj: dict[str, Any], version: str, field_validation: FieldValidation, duplicates: list[str] | None = None,
        keep_nulls: bool = False,
    ) -> DecodeResult:  # fmt: skip
        """`decode` of an object that is already JSON data (a patch's result); `obj` is changed.
        `duplicates`: the problems of fields the JSON text gave twice."""
        expected = self.api_version(version)
        api_version = obj.setdefault("apiVersion", expected)
        kind = obj.setdefault("kind", self.kind)
        if api_version != expected or kind != self.kind:
            raise bad_request(
                f"the API version in the data ({api_version}) does not match the expected API version ({expected})"
                if kind == self.kind
                else f"the kind in the data ({kind}) does not match the expected kind ({self.kind})"
            )
        metadata = obj.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise bad_request(
                f"unable to decode the {self.kind}: .metadata accessor error: {json.dumps(metadata)} is of the type "
                f"{_go_type(metadata)}, expected map[string]interface{{}}"
            )
        schema = self.schemas[version]
        pruned = prune(obj, schema) + _coerce_metadata(obj)
        if self.embedded[version]:
            pruned += coerce_embedded_metadata(obj, schema)
        unknown = [f'unknown field "{path}"' for path in sorted(pruned)]
        unknown += duplicates or []
        if unknown and field_validation is FieldValidation.STRICT:
            raise cannot_handle(self.kind, version, "strict decoding error: " + ", ".join(unknown))
        if not keep_nulls:
            prune_nulls(obj, schema)
        default(obj, schema)
        warnings = unknown if field_validation is FieldValidation.WARN else []
        group_version = GroupVersion(self.group, version)
        return DecodeResult(obj, GroupVersionKind(group_version.group, group_version.version, self.kind), warnings)

    # -- conversion --------------------------------------------------------------------------

    def _convert(
        self, obj: dict[str, Any], source: str, target: str, old: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """`obj` (in `source`) in `target`, pruned and defaulted by the target's schema."""
        if source == target:
            converted = obj
        elif self.remote_conversion:
            assert self.caller is not None
            converted = convert(self.caller, self.conversion, [obj], self.api_version(target), self.kind)[0]
        elif self.webhook_conversion:
            assert self.typed is not None
            model = self.typed.model(obj, source)
            if target == self.storage_version:
                converted = self.typed.to_storage(model, old)
            else:
                converted = self.typed.from_storage(self.typed.to_storage(model, old), target)
        else:  # strategy None: the API server changes the apiVersion, nothing else
            converted = {**obj, "apiVersion": self.api_version(target)}
        if source != target:
            schema = self.schemas[target]
            prune(converted, schema)
            prune_nulls(converted, schema)
            default(converted, schema)
        return converted

    def to_storage(self, obj: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
        """A decoded object (JSON in a served version) in the storage version. Converted by
        a webhook (or the generated conversions), it must pass its own version's schema
        first: a conversion of a malformed object would fail where the API server reports
        the field. With strategy None nothing can fail, and the strategy validates the
        object in the request's version after it has dropped or kept the status and checked
        the resourceVersion, as the API server does."""
        obj = copy.deepcopy(obj)  # the decoded object stays as it was (an update may run again)
        version = GroupVersion.parse(obj["apiVersion"]).version
        if version == self.storage_version:
            return obj
        if not (self.remote_conversion or self.webhook_conversion):
            return self._convert(obj, version, self.storage_version, old)
        old_versioned = self.from_storage(old, version) if old is not None else None
        errors = self.validate_versioned(obj, old_versioned, version, metadata=False)
        if errors:
            raise invalid_error(self.group, self.kind, (obj.get("metadata") or {}).get("name", ""), errors)
        return self._convert(obj, version, self.storage_version, old)

    def from_storage(self, stored: dict[str, Any], version: str) -> dict[str, Any]:
        """A stored object in `version`, defaulted as the API server defaults what it reads (the
        stored object itself when nothing changes: copy it before changing it)."""
        if version == self.storage_version:
            if not self.defaults.get(version) or not needs_defaults(stored, self.schemas[version]):
                return stored
            read = json_copy(stored)
            default(read, self.schemas[version])
            return read
        return self._convert(copy.deepcopy(stored), self.storage_version, version)

    def from_storage_many(self, stored: list[dict[str, Any]], version: str) -> list[dict[str, Any]]:
        """`from_storage` of a list's items: through a conversion webhook in one review."""
        if version == self.storage_version or not self.remote_conversion:
            return [self.from_storage(item, version) for item in stored]
        assert self.caller is not None
        converted = convert(
            self.caller, self.conversion, [copy.deepcopy(item) for item in stored], self.api_version(version), self.kind
        )
        schema = self.schemas[version]
        for item in converted:
            prune(item, schema)
            prune_nulls(item, schema)
            default(item, schema)
        return converted

    # -- validation --------------------------------------------------------------------------

    def validate_versioned(
        self, obj: dict[str, Any], old: dict[str, Any] | None, version: str, metadata: bool = True,
        status: bool = False,
    ) -> list[FieldError]:  # fmt: skip
        """The errors of `obj` in `version` (and of the update from `old`): the schema, list
        types and CEL rules of that version, and (with `metadata`) the object's metadata.

        An update through /status (`status`) is checked as the status strategy checks it:
        the status alone against the status schema, rooted at `status` (its messages name
        paths below it), the status replicas of the scale paths, no embedded resources."""
        schema = self.schemas[version]
        errors = _metadata_errors(obj, old, self.namespaced) if metadata else []
        scale = self.scales.get(version)
        if status:
            assert old is not None
            status_schema = (schema.properties or {}).get("status")
            if "status" in obj and status_schema is not None:
                errors += validate_update(obj["status"], old.get("status"), status_schema, "status", lists=False)
            if scale:
                errors += scale_errors(obj, {k: v for k, v in scale.items() if k != "specReplicasPath"})
        else:
            if old is None:
                errors += validate(obj, schema, lists=False)
            else:
                errors += validate_update(obj, old, schema, lists=False)
            if scale:
                errors += scale_errors(obj, scale)
            if self.embedded.get(version):
                errors += embedded_resource_errors(obj, schema)
        errors += list_type_errors(obj, schema) if old is None else update_list_type_errors(obj, old, schema)
        if self.rules.get(version):
            if any(error.type in _BLOCKING for error in errors):
                errors.append(FieldError(ErrorType.INVALID, None, None, _RULES_NOT_CHECKED))
            else:
                errors += check_rules(obj, old, schema)
        return errors  # every cause (the Status message names each once)

    def validate(
        self, stored: dict[str, Any], old: dict[str, Any] | None, version: str, status: bool = False
    ) -> list[FieldError]:
        """The errors of a stored-to-be object (in the storage version), checked in `version`
        (as an update through /status with `status`)."""
        versioned = self.from_storage(stored, version) if version != self.storage_version else stored
        old_versioned = None
        if old is not None:
            old_versioned = self.from_storage(old, version) if version != self.storage_version else old
        return self.validate_versioned(versioned, old_versioned, version, status=status)

    def strategy(self, info: ResourceInfo, version: str) -> CustomResourceStrategy:
        """The store strategy for writes made in `version`."""
        return CustomResourceStrategy(info, self, version)


class CustomResourceStrategy(DefaultStrategy):
    """The custom resource strategy: status kept apart, generation bumped on spec changes, and
    the object validated in the request's version (422 Invalid with every error)."""

    def __init__(self, info: ResourceInfo, flow: CustomResourceFlow, version: str):
        super().__init__(info)
        self.flow = flow
        self.version = version

    def _check(self, obj: dict[str, Any], old: dict[str, Any] | None, status: bool = False) -> None:
        errors = self.flow.validate(obj, old, self.version, status=status)
        if errors:
            raise invalid_error(self.flow.group, self.flow.kind, (obj.get("metadata") or {}).get("name", ""), errors)

    def validate_create(self, obj: dict[str, Any]) -> None:
        self._check(obj, None)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        self._check(obj, old)

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        self._check(obj, old, status=True)


def _coerce_metadata(obj: dict[str, Any]) -> list[str]:
    """The metadata as ObjectMeta writes it (the API server decodes it into ObjectMeta): what
    ObjectMeta has no field for, and empty values, dropped; the unknown fields' paths."""
    metadata = obj.get("metadata")
    return coerce_object_meta(metadata, "metadata") if isinstance(metadata, dict) else []


def _go_type(value: Any) -> str:
    if value is None:
        return "<nil>"
    return {
        str: "string", bool: "bool", int: "int64", float: "float64", list: "[]interface {}",
        dict: "map[string]interface {}",
    }.get(type(value), "interface {}")  # fmt: skip


def _metadata_errors(obj: dict[str, Any], old: dict[str, Any] | None, namespaced: bool) -> list[FieldError]:
    """ObjectMeta validation of a custom resource (names, labels, annotations, finalizers,
    owner references; and what an update may not change)."""
    from kgen.runtime.apimachinery.meta.v1.models import ObjectMeta
    from kgen.runtime.validation.meta import (
        validate_annotations,
        validate_labels,
        validate_object_meta,
        validate_object_meta_update,
        validate_owner_references,
    )

    path = Path.root("metadata")
    errors: list[FieldError] = []
    try:
        meta = ObjectMeta.from_dict(obj.get("metadata") or {})
        old_meta = ObjectMeta.from_dict(old.get("metadata") or {}) if old is not None else None
    except (ValueError, APIError) as error:
        raise bad_request(f"unable to decode the metadata: {error}") from None
    validate_object_meta(meta, path, errors, namespaced=namespaced)
    if old_meta is not None:
        # An update checks the metadata three times, and a Status lists every cause (its
        # message each once): rest.BeforeUpdate's common fields (ValidateObjectMetaAccessor,
        # then ValidateObjectMetaAccessorUpdate), then the custom resource validator's own
        # ValidateObjectMetaAccessorUpdate.
        for _ in range(2):
            validate_object_meta_update(meta, old_meta, path, errors)
            validate_labels(meta.labels, path.child("labels"), errors)
            validate_annotations(meta.annotations, path.child("annotations"), errors)
            validate_owner_references(meta.owner_references, path.child("ownerReferences"), errors)
    return errors
