"""The request flow of the API change guide, for one resource type.

    request body -> decode (fieldValidation) -> default -> internal -> validate -> storage version -> store
    store -> storage version -> internal -> requested version -> response

`KindFlow` does each step with the served API's Scheme, on the models of either backend
(pydantic models or msgspec structs); objects leave it as JSON dicts, which is what the
store engine keeps. `ValidatingStrategy` is the store strategy that validates what is
about to be stored: the internal version's validation (hand-written rules, metadata) and
the requested version's declarative validation, as kube-apiserver runs both, with the
stored object as `old` on updates (ratcheting: unchanged fields are not validated again).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kgen.runtime.conversion import Scope
from kgen.runtime.scheme import (
    INTERNAL_VERSION,
    SCHEME,
    APIError,
    DecodeResult,
    FieldValidation,
    GroupVersion,
    GroupVersionKind,
    Scheme,
    bad_request,
)
from kgen.runtime.store import DefaultStrategy, ResourceInfo
from kgen.runtime.validation import Options as ValidationOptions
from kgen.runtime.validation.field import FieldError, invalid_error


def parse_field_validation(value: str) -> FieldValidation:
    """The fieldValidation query parameter; 400 for a value that is none of the three. A
    request without it is Warn, as kube-apiserver takes it (endpoints/handlers/rest.go
    fieldValidation): kubectl sends Strict, client libraries send nothing."""
    if not value:
        return FieldValidation.WARN
    for mode in FieldValidation:
        if value == mode.value:
            return mode
    raise bad_request(f"fieldValidation must be one of Ignore, Warn or Strict, not {value!r}")


class _AllEnabled(dict[str, bool]):
    """Feature gates that are all on."""

    def get(self, key: Any, default: Any = None) -> Any:
        return True


_STORED = Scope(_AllEnabled())


class KindFlow:
    """Decoding, defaulting, conversion and validation of one kind of a group."""

    def __init__(
        self, group: str, kind: str, storage_version: str, feature_gates: Mapping[str, bool], scheme: Scheme = SCHEME
    ):
        self.group = group
        self.kind = kind
        self.scheme = scheme
        self.storage_version = storage_version
        self.storage_api_version = GroupVersion(group, storage_version).api_version
        self.storage_class = scheme.type_for(GroupVersionKind(group, storage_version, kind))
        self.feature_gates = dict(feature_gates)
        self.scope = Scope(self.feature_gates)
        self.validation_options = ValidationOptions(self.feature_gates)
        try:
            scheme.type_for(GroupVersionKind(group, INTERNAL_VERSION, kind))
            self.has_internal = True
        except APIError:
            self.has_internal = False  # one version, no hub: it is its own internal form

    # -- decoding ----------------------------------------------------------------------------

    def decode(self, data: bytes, version: str, field_validation: FieldValidation) -> DecodeResult:
        """A request body (JSON) of this kind in `version`, decoded and defaulted; 400 when it
        is another kind or version (the API server decodes into the endpoint's version)."""
        result = self.scheme.decode(data, field_validation, defaults=GroupVersionKind(self.group, version, self.kind))
        gvk = result.gvk
        expected = GroupVersion(self.group, version).api_version
        if gvk.group_version.api_version != expected or gvk.kind != self.kind:
            raise bad_request(
                f"the API version in the data ({gvk.group_version.api_version}) does not match the expected API version ({expected})"
                if gvk.kind == self.kind
                else f"the kind in the data ({gvk.kind}) does not match the expected kind ({self.kind})"
            )
        return result

    def decode_dict(self, obj: dict[str, Any], version: str, field_validation: FieldValidation) -> DecodeResult:
        """`decode` of an object that is already JSON data (a patch's result)."""
        return self.decode(
            json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode(), version, field_validation
        )

    def strategy(self, info: ResourceInfo, version: str) -> ValidatingStrategy:
        """The store strategy for writes made in `version`."""
        return ValidatingStrategy(info, self, version)

    def model(self, obj: dict[str, Any], version: str) -> Any:
        """A JSON object of this kind in `version` as its model (no defaulting)."""
        cls = self.scheme.type_for(GroupVersionKind(self.group, version, self.kind))
        try:
            return cls.from_dict(obj)
        except Exception as error:  # noqa: BLE001 - a decoder's error (pydantic's or msgspec's), as a Status
            raise APIError(500, "InternalError", f"Internal error occurred: decoding {self.kind}: {error}") from None

    def encode_protobuf(self, obj: dict[str, Any], version: str) -> bytes:
        """An object in `version` as an `application/vnd.kubernetes.protobuf` body."""
        from kgen.runtime import protobuf

        return protobuf.encode(self.model(obj, version))

    def encode_protobuf_list(self, listed: dict[str, Any], version: str) -> bytes:
        """A list in `version` as an `application/vnd.kubernetes.protobuf` body."""
        from kgen.runtime import protobuf

        cls = self.scheme.type_for(GroupVersionKind(self.group, version, listed["kind"]))
        return protobuf.encode(cls.from_dict(listed))

    # -- conversion --------------------------------------------------------------------------

    def internal(self, stored: dict[str, Any]) -> Any:
        """A stored object in the internal version, whole: what is stored was allowed, so
        hooks that drop fields of disabled gates see every gate on (the object is `scope.old`
        of an update, and what validation checks)."""
        model = self.model(stored, self.storage_version)
        return self.scheme.to_internal(model, _STORED) if self.has_internal else model

    def to_storage(self, obj: Any, old: dict[str, Any] | None) -> dict[str, Any]:
        """A decoded object (a model of any served version) as the storage version's JSON,
        through the internal version; `old` (stored) is what an update replaces, which
        hand-written conversions see as `scope.old`."""
        if not self.has_internal:
            data: dict[str, Any] = obj.to_dict()
            return data
        scope = self.scope if old is None else self.scope.for_update(self.internal(old))
        internal = self.scheme.to_internal(obj, scope)
        stored: dict[str, Any] = self.scheme.convert(internal, self.storage_api_version, self.scope).to_dict()
        return stored

    def from_storage(self, stored: dict[str, Any], version: str) -> dict[str, Any]:
        """A stored object in `version` (the object itself when that is the storage version:
        copy it before changing it)."""
        if version == self.storage_version:
            return stored
        converted = self.scheme.convert(
            self.internal(stored), GroupVersion(self.group, version).api_version, self.scope
        )
        data: dict[str, Any] = converted.to_dict()
        return data

    # -- validation --------------------------------------------------------------------------

    def validate(self, stored: dict[str, Any], old: dict[str, Any] | None, version: str) -> list[FieldError]:
        """Errors of a stored-to-be object (and the stored `old` on update): the internal
        version's validation, then `version`'s declarative validation, each error once."""
        new_internal = self.internal(stored)
        old_internal = self.internal(old) if old is not None else None
        errors = list(self.scheme.validate(new_internal, old_internal, self.validation_options))
        if self.has_internal:
            api_version = GroupVersion(self.group, version).api_version
            new_versioned = self.scheme.convert(new_internal, api_version, self.scope)
            old_versioned = (
                self.scheme.convert(old_internal, api_version, self.scope) if old_internal is not None else None
            )
            errors += self.scheme.validate(new_versioned, old_versioned, self.validation_options)
        unique: dict[str, FieldError] = {}
        for error in errors:
            unique.setdefault(str(error), error)
        return list(unique.values())


class ValidatingStrategy(DefaultStrategy):
    """kube-apiserver's strategy for the resource (status kept apart, generation bumped on
    spec changes) with validation of the object in `version`, the request's version."""

    def __init__(self, info: ResourceInfo, flow: KindFlow, version: str):
        super().__init__(info)
        self.flow = flow
        self.version = version

    def _check(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        errors = self.flow.validate(obj, old, self.version)
        if errors:
            name = (obj.get("metadata") or {}).get("name", "")
            raise invalid_error(self.flow.group, self.flow.kind, name, errors)

    def validate_create(self, obj: dict[str, Any]) -> None:
        """422 Invalid with every validation error of the new object."""
        self._check(obj, None)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """422 Invalid with every validation error of the update (ratcheting on `old`)."""
        self._check(obj, old)
