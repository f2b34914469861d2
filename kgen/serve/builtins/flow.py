"""The request flow of a built-in kind: Go's decoding, the kind's REST strategy, its stored form.

    request body -> decode into the Go type (type errors 400, unknown fields Warn/Strict)
    -> the version's defaults -> the stored form (conversion) -> validation (422) -> store
    store -> the request's version -> response

A `BuiltinKind` is one kind in one group/version with the facts of its strategy
(pkg/registry/<group>/<kind>/strategy.go): whether an update without a resourceVersion
overwrites, whether a PUT creates, whether a delete answers the object or a Status, what
the strategy resets and validates, its field selectors and printer columns. Objects are
stored as the JSON Go writes for the stored type, so they come back exactly as a cluster
returns them (`reportingComponent: ""`, `firstTimestamp: null`, no `metadata.generation`
where the strategy keeps none).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgen.runtime import goscan, gotypes
from kgen.runtime.errors import bad_request
from kgen.runtime.scheme import DecodeResult, FieldValidation, GroupVersion, GroupVersionKind, cannot_handle
from kgen.runtime.store import DefaultStrategy, ResourceInfo, json_copy
from kgen.runtime.validation.field import FieldError, invalid_error
from kgen.serve.loader import PrinterColumn, Resource, ServedVersion

Validator = Callable[[dict[str, Any], "dict[str, Any] | None"], list[FieldError]]
"""Errors of a stored-to-be object (and of the update from the stored one)."""


@dataclass(frozen=True)
class BuiltinKind:
    """One built-in kind in one group/version, and its strategy's facts."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    type: gotypes.Struct
    list_type: gotypes.Struct
    validate: Validator
    storage: gotypes.Struct | None = None
    """The stored type when it is another (core v1's Event for events.k8s.io)."""
    storage_group: str | None = None
    """The group of the stored kind, which Invalid errors name (None: `group`)."""
    short_names: tuple[str, ...] = ()
    namespaced: bool = True
    protobuf: bool = True
    """Whether the kind is served as protobuf too (besides JSON and YAML)."""
    columns: tuple[PrinterColumn, ...] = ()
    field_labels: Mapping[str, Callable[[dict[str, Any]], str]] = field(default_factory=dict)
    """Field selector labels besides metadata.name and metadata.namespace, read from the
    stored object."""
    labels_converted: bool = False
    """Whether the version registers its own field label conversion (else apimachinery's
    default, which words an unknown label differently)."""
    allow_create_on_update: bool = False
    allow_unconditional_update: bool = True
    delete_returns_object: bool = False
    """The registry's ReturnDeletedObject (else a delete answers a Status Success)."""
    stored_as: tuple[str, str] | None = None
    internal: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """What decoding into the internal version does to a decoded object: the version's
    defaults and the conversions a client sees (a Secret's type defaults to Opaque, its
    stringData goes into data)."""
    to_storage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """The decoded object (a private copy) in its stored form; None when it is stored as is."""
    from_storage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    prepare: Callable[[dict[str, Any], "dict[str, Any] | None", Mapping[str, bool]], None] | None = None
    """PrepareForCreate (old is None) and PrepareForUpdate, given the feature gates."""

    @property
    def api_version(self) -> str:
        """`group/version` (`v1` in the core group)."""
        return GroupVersion(self.group, self.version).api_version

    @property
    def stored_type(self) -> gotypes.Struct:
        """The Go type objects are stored as."""
        return self.storage or self.type

    def resource(self) -> Resource:
        """What discovery lists for the kind."""
        return Resource(
            group=self.group, kind=self.kind, plural=self.plural, singular=self.singular, namespaced=self.namespaced,
            storage_version=self.version, versions=(ServedVersion(self.version, printer_columns=self.columns),),
            list_kind=f"{self.kind}List", short_names=self.short_names,
        )  # fmt: skip

    def info(self) -> BuiltinInfo:
        """How the store serves the kind."""
        return BuiltinInfo(
            group=self.group, version=self.version, resource=self.plural, kind=self.kind, namespaced=self.namespaced,
            list_kind=f"{self.kind}List", allow_create_on_update=self.allow_create_on_update,
            allow_unconditional_update=self.allow_unconditional_update, stored_as=self.stored_as,
            labels=self.field_labels, labels_converted=self.labels_converted,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class BuiltinInfo(ResourceInfo):
    """A ResourceInfo whose field selector labels are computed from the stored object, as a
    built-in kind's GetAttrs computes them (`source` of an Event is its reporting
    component when it has no source)."""

    labels: Mapping[str, Callable[[dict[str, Any]], str]] = field(default_factory=dict, compare=False, hash=False)
    labels_converted: bool = False

    @property
    def field_labels(self) -> tuple[str, ...]:
        """The metadata's labels and the kind's own."""
        scoped = ("metadata.name", "metadata.namespace") if self.namespaced else ("metadata.name",)
        return (*scoped, *self.labels)

    def unsupported_field_label(self, label: str) -> str:
        """The field label conversion's error: the kind's own, or apimachinery's default."""
        if self.labels_converted:
            return f"field label not supported: {label}"
        # runtime.DefaultMetaV1FieldSelectorConversion, for kinds without their own conversion.
        return f'"{label}" is not a known field selector: only "metadata.name", "metadata.namespace"'

    def field_values(self, obj: dict[str, Any]) -> dict[str, str]:
        """The values of every label for a stored object."""
        metadata = obj.get("metadata") or {}
        values = {"metadata.name": metadata.get("name", "")}
        if self.namespaced:
            values["metadata.namespace"] = metadata.get("namespace", "")
        for label, read in self.labels.items():
            values[label] = read(obj)
        return values


_FIND_KIND = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
"""The type the serializer reads apiVersion and kind into first, as Go prints it."""


def _summary(body: bytes, limit: int = 30) -> str:
    """The body as the handlers summarize it in an error: text when it is an object, else hex."""
    if not body:
        return "<empty>"
    if body[:1] == b"{":
        return body[:limit].decode("utf-8", "replace") + (" ..." if len(body) > limit else "")
    return body[:limit].hex() + (" ..." if len(body) > limit else "")


class BuiltinFlow:
    """Decoding, conversion and validation of one built-in kind in one version."""

    def __init__(self, kind: BuiltinKind, feature_gates: Mapping[str, bool] | None = None):
        self.builtin = kind
        self.protobuf = kind.protobuf
        """Whether the kind has a protobuf encoding (most built-in kinds do)."""
        self.group = kind.group
        self.kind = kind.kind
        self.storage_version = kind.version
        self.feature_gates = dict(feature_gates or {})

    @property
    def delete_answers_status(self) -> bool:
        """Whether a delete answers a Status Success instead of the deleted object."""
        return not self.builtin.delete_returns_object

    # -- decoding ----------------------------------------------------------------------------

    def decode(self, data: bytes, version: str, field_validation: FieldValidation) -> DecodeResult:
        """A JSON request body: Go's decoding into the kind's type, then its defaults."""
        try:
            document = gotypes.parse_json(data.decode("utf-8", "replace"))  # Go reads bad UTF-8 as U+FFFD
        except ValueError as error:
            # Go's scanner words what is wrong (and refuses what Python's parser does, NaN included).
            raise self._unrecognized(goscan.syntax_error(data) or str(error), data) from None
        return self._decode(document, version, field_validation, data)

    def decode_dict(self, obj: dict[str, Any], version: str, field_validation: FieldValidation) -> DecodeResult:
        """`decode` of an object that is already JSON data (a patch's result)."""
        return self._decode(obj, version, field_validation, None)

    def _unrecognized(self, problem: str, body: bytes) -> Exception:
        """The 400 for a body whose apiVersion and kind the serializer could not even read
        (transformDecodeError without a kind: the body summarized)."""
        return bad_request(
            f"the object provided is unrecognized (must be of type {self.kind}): "
            f"couldn't get version/kind; json parse error: {problem} ({_summary(body)})"
        )

    def _decode(
        self, document: Any, version: str, field_validation: FieldValidation, body: bytes | None
    ) -> DecodeResult:
        kind = self.builtin
        if document is None:
            document = {}  # Go decodes null into the object: nothing changes
        if not gotypes.is_object(document):
            raise self._unrecognized(f"json: cannot unmarshal {gotypes.describe(document)} into Go value of type {_FIND_KIND}",
                                     body if body is not None else json.dumps(document).encode())  # fmt: skip
        members = gotypes.type_meta(document)
        for name in ("apiVersion", "kind"):
            value = members.get(name)
            if value is not None and not isinstance(value, str):
                problem = (
                    f"json: cannot unmarshal {gotypes.describe(value)} into Go struct field .{name} of type string"
                )
                raise self._unrecognized(
                    problem, body if body is not None else json.dumps(gotypes.plain(document)).encode()
                )
        api_version = members.get("apiVersion") or kind.api_version
        given_kind = members.get("kind") or kind.kind
        if api_version != kind.api_version or given_kind != kind.kind:
            raise bad_request(
                f"the API version in the data ({api_version}) does not match the expected API version ({kind.api_version})"
                if given_kind == kind.kind
                else f"the kind in the data ({given_kind}) does not match the expected kind ({kind.kind})"
            )
        try:
            decoded = gotypes.decode(kind.type, document)
        except gotypes.DecodeError as error:
            raise cannot_handle(kind.kind, version, str(error)) from None
        problems = decoded.strict if field_validation is not FieldValidation.IGNORE else []
        if problems and field_validation is FieldValidation.STRICT:
            raise cannot_handle(kind.kind, version, "strict decoding error: " + ", ".join(problems))
        obj: dict[str, Any] = gotypes.encode(kind.type, decoded.value)
        obj["apiVersion"], obj["kind"] = kind.api_version, kind.kind
        obj = {"apiVersion": obj.pop("apiVersion"), "kind": obj.pop("kind"), **obj}
        if kind.internal is not None:
            obj = kind.internal(obj)
        return DecodeResult(obj, GroupVersionKind(kind.group, version, kind.kind), list(problems))

    # -- conversion --------------------------------------------------------------------------

    def to_storage(self, obj: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
        """A decoded object in its stored form (the decoded object stays as it was)."""
        converted = json_copy(obj)
        if self.builtin.to_storage is not None:
            converted = self.builtin.to_storage(converted)
        return converted

    def from_storage(self, stored: dict[str, Any], version: str) -> dict[str, Any]:
        """A stored object in this kind's version (the object itself when it is stored as
        it is served: copy it before changing it)."""
        if self.builtin.from_storage is None:
            return stored
        return self.builtin.from_storage(stored)

    # -- validation --------------------------------------------------------------------------

    def validate(self, stored: dict[str, Any], old: dict[str, Any] | None, version: str) -> list[FieldError]:
        """The strategy's validation of a stored-to-be object (and of the update from `old`)."""
        return self.builtin.validate(stored, old)

    def strategy(self, info: ResourceInfo, version: str) -> BuiltinStrategy:
        """The store strategy for writes made through this kind's endpoint."""
        return BuiltinStrategy(info, self)

    # -- protobuf ----------------------------------------------------------------------------

    def protobuf_to_json(self, body: bytes) -> bytes:
        """An `application/vnd.kubernetes.protobuf` request body as JSON text."""
        from kgen.serve.builtins import wire

        return json.dumps(wire.decode_object(body, self.builtin)).encode()

    def encode_protobuf(self, obj: dict[str, Any], version: str) -> bytes:
        """An object as an `application/vnd.kubernetes.protobuf` body."""
        from kgen.serve.builtins import wire

        return wire.encode_object(obj, self.builtin.type, self.builtin.api_version, self.builtin.kind)

    def encode_protobuf_list(self, listed: dict[str, Any], version: str) -> bytes:
        """A list as an `application/vnd.kubernetes.protobuf` body."""
        from kgen.serve.builtins import wire

        return wire.encode_object(listed, self.builtin.list_type, self.builtin.api_version, f"{self.kind}List")


class BuiltinStrategy(DefaultStrategy):
    """A built-in kind's REST strategy: no metadata.generation (none of these kinds keeps
    one), the kind's own resets, and its validation (422 Invalid)."""

    def __init__(self, info: ResourceInfo, flow: BuiltinFlow):
        super().__init__(info)
        self.flow = flow

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """PrepareForCreate of the kind (a given generation is kept, as BeforeCreate keeps it)."""
        prepare = self.flow.builtin.prepare
        if prepare is not None:
            prepare(obj, None, self.flow.feature_gates)

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """PrepareForUpdate of the kind; the generation stays the stored one (none, when it is 0)."""
        metadata = obj.setdefault("metadata", {})
        if not metadata.get("generation"):
            metadata.pop("generation", None)  # omitempty: BeforeUpdate copied a zero
        prepare = self.flow.builtin.prepare
        if prepare is not None:
            prepare(obj, old, self.flow.feature_gates)

    def _check(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        errors = self.flow.validate(obj, old, self.flow.storage_version)
        if errors:
            kind = self.flow.builtin
            group = kind.group if kind.storage_group is None else kind.storage_group
            raise invalid_error(group, kind.kind, (obj.get("metadata") or {}).get("name", ""), errors)

    def validate_create(self, obj: dict[str, Any]) -> None:
        """422 Invalid with the kind's validation errors."""
        self._check(obj, None)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """422 Invalid with the kind's update validation errors."""
        self._check(obj, old)
