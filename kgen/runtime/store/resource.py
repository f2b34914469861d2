"""What the engine knows of a resource type, and the strategy hooks that shape its objects.

`ResourceInfo` describes one resource (group, storage version, plural, kind, scope, status
subresource, selectable fields). A `Strategy` is the part of the API server's REST strategy
the store applies: prepare an object for create and update (reset status, keep stored
fields, bump `metadata.generation`) and validate it. `DefaultStrategy` does what
kube-apiserver does for a custom resource; pass a subclass to change it.

Objects are plain JSON dicts in their storage version.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from kgen.runtime.store.errors import qualified_resource


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """One resource type as the store serves it."""

    group: str
    """The API group ("" for the core group)."""
    version: str
    """The storage version: objects are stored (and handed out) in it."""
    resource: str
    """The plural resource name used in URLs and keys (`widgets`)."""
    kind: str
    namespaced: bool = True
    has_status: bool = False
    """True when the resource has a /status subresource (status is then only written there)."""
    selectable_fields: tuple[str, ...] = ()
    """JSONPaths of fields usable in field selectors besides metadata.name and
    metadata.namespace, as a CRD's `selectableFields` (`.spec.color` selects as `spec.color`)."""
    list_kind: str = ""
    """The kind of a list; `<kind>List` when empty."""
    allow_create_on_update: bool = False
    """Whether an update of an absent object creates it (the strategy's AllowCreateOnUpdate)."""
    allow_unconditional_update: bool = True
    """Whether an update without metadata.resourceVersion overwrites whatever is stored."""
    stored_as: tuple[str, str] | None = None
    """(group, resource) of another resource whose objects these are, stored at its keys
    (kube-apiserver's cohabitating resources: events.k8s.io events are core events)."""

    def __post_init__(self) -> None:
        for path in self.selectable_fields:
            parts = path.split(".")
            if not path.startswith(".") or len(parts) < 2 or not all(parts[1:]):
                raise ValueError(
                    f"{self.resource}: selectable field {path!r} must be a simple JSONPath like '.spec.color'"
                )

    @property
    def api_version(self) -> str:
        """`group/version` (`version` in the core group)."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified_resource(self) -> str:
        """`resource.group`, as error messages name the resource."""
        return qualified_resource(self.group, self.resource)

    @property
    def list_kind_name(self) -> str:
        """The kind of a list of these objects."""
        return self.list_kind or f"{self.kind}List"

    @property
    def field_labels(self) -> tuple[str, ...]:
        """Every field label a field selector may use on this resource."""
        scoped = ("metadata.name", "metadata.namespace") if self.namespaced else ("metadata.name",)
        return scoped + tuple(path[1:] for path in self.selectable_fields)

    def unsupported_field_label(self, label: str) -> str:
        """The message of a field selector that names a label the resource does not have."""
        return f"field label not supported: {label}"

    def field_values(self, obj: dict[str, Any]) -> dict[str, str]:
        """The object's values for every field label, as field selectors compare them."""
        metadata = obj.get("metadata") or {}
        values = {"metadata.name": metadata.get("name", "")}
        if self.namespaced:
            values["metadata.namespace"] = metadata.get("namespace", "")
        for path in self.selectable_fields:
            value: Any = obj
            for part in path[1:].split("."):
                value = value.get(part) if isinstance(value, dict) else None
            values[path[1:]] = _field_text(value)
        return values


def _field_text(value: Any) -> str:
    """A field's value as a selector compares it: strings as is, booleans and numbers as Go
    prints them, a missing field as ""."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars), several times faster than
    `copy.deepcopy` because it knows there are no other types."""
    if type(value) is dict:
        return {k: json_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [json_copy(v) for v in value]
    return value


_DECODER = json.JSONDecoder()


def decode_object(data: bytes, revision: int) -> dict[str, Any]:
    """A stored object with its resourceVersion (the revision of its version) set."""
    try:
        obj: dict[str, Any] = orjson.loads(data)  # three times the standard decoder's speed
    except orjson.JSONDecodeError:  # what orjson refuses and JSON allows: integers past 64 bits
        # raw_decode on str skips json.loads' encoding sniffing: a third faster on small objects.
        obj = _DECODER.raw_decode(data.decode())[0]
    obj.setdefault("metadata", {})["resourceVersion"] = str(revision)
    return obj


def _without(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in keys}


class Strategy:
    """Hooks the engine calls on objects going into the store; the default does nothing.

    Each hook gets the object about to be stored (a private copy it may change in place)
    and, for updates, the stored object (read-only); a delete's hook gets the stored
    object. Raise `APIError` from a `validate_*` hook to refuse the write (the server's
    validation, admission or field checks): the store calls them where kube-apiserver's
    registry calls its createValidation, updateValidation and deleteValidation, dry runs
    included.
    """

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """Reset what a create may not set (PrepareForCreate)."""

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Keep what an update of the main resource may not change (PrepareForUpdate)."""

    def prepare_for_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Keep what an update through /status may not change."""

    def validate_create(self, obj: dict[str, Any]) -> None:
        """Refuse a create by raising `APIError`."""

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Refuse an update (main resource or /status) by raising `APIError`."""

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Refuse an update through /status by raising `APIError` (as `validate_update` by default)."""
        self.validate_update(obj, old)

    def validate_delete(self, obj: dict[str, Any]) -> None:
        """Refuse the delete of the stored `obj` (read-only) by raising `APIError`; called
        once its preconditions held, before it is marked deleting or removed."""

    def prepare_for_delete(self, obj: dict[str, Any]) -> None:
        """Change a copy of the stored object as its deletion begins (a finalizer a
        controller of the server removes when it has cleaned up, a condition saying so);
        called once, while the object has no deletionTimestamp."""


class DefaultStrategy(Strategy):
    """kube-apiserver's strategy for custom resources.

    - create: `metadata.generation` is 1; with a status subresource, status is dropped;
    - update: with a status subresource the stored status is kept; `metadata.generation`
      goes up by one when anything but metadata (and status, with a status subresource)
      changed;
    - update through /status: everything but status (and metadata.managedFields) is the
      stored object's.
    """

    def __init__(self, info: ResourceInfo):
        self.info = info

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """Generation 1; no status when status has its own subresource."""
        if self.info.has_status:
            obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Keep the stored status (with a status subresource); bump generation on spec changes."""
        ignored = ("metadata", "status") if self.info.has_status else ("metadata",)
        if self.info.has_status:
            if "status" in old:
                obj["status"] = json_copy(old["status"])
            else:
                obj.pop("status", None)
        if _without(obj, *ignored) != _without(old, *ignored):
            obj["metadata"]["generation"] = old.get("metadata", {}).get("generation", 0) + 1

    def prepare_for_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Everything of the stored object but the new status and managedFields."""
        status = obj.get("status", _MISSING)
        managed = obj.get("metadata", {}).get("managedFields", _MISSING)
        resource_version = obj.get("metadata", {}).get("resourceVersion")
        obj.clear()
        obj.update(json_copy(old))
        if status is _MISSING:
            obj.pop("status", None)
        else:
            obj["status"] = status
        metadata = obj.setdefault("metadata", {})
        if managed is _MISSING:
            metadata.pop("managedFields", None)
        else:
            metadata["managedFields"] = managed
        if resource_version is not None:
            metadata["resourceVersion"] = resource_version


_MISSING: Any = object()
