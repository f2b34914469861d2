"""Events: core v1 and events.k8s.io/v1, one stored object read and written through both.

kube-apiserver stores events.k8s.io events as core events (the two resources cohabit), so
an event posted through either group is listed by both. The events.k8s.io fields map onto
core's (pkg/apis/events/v1/conversion.go): regarding is involvedObject, note is message,
reportingController is reportingComponent, deprecatedSource, deprecatedFirstTimestamp,
deprecatedLastTimestamp and deprecatedCount are source, firstTimestamp, lastTimestamp and
count; the rest keep their names.

Validation depends on the group of the request (pkg/apis/core/validation/events.go): core
v1 is lenient (only the legacy checks: the namespaces must agree, and an event with an
eventTime needs reportingComponent, reportingInstance, action and reason), while
events.k8s.io/v1 also validates the metadata, requires eventTime and a type of Normal or
Warning, refuses the deprecated fields on create, and freezes almost every field on
update. The strategy (pkg/registry/core/event/strategy.go) lets a PUT create, takes
updates without a resourceVersion, keeps no generation, and selects by involvedObject.*,
reason, reportingComponent, source and type (events.k8s.io names them regarding.* and
reportingController).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kgen.runtime import gotypes
from kgen.runtime.validation.field import FIELD_IMMUTABLE, FieldError, Path, go_quote, invalid, required
from kgen.runtime.validation.formats import is_dns1123_subdomain, is_qualified_name
from kgen.serve.builtins import tables, types
from kgen.serve.builtins.flow import BuiltinKind
from kgen.serve.builtins.validation import object_meta, object_meta_update

REPORTING_INSTANCE_LIMIT = ACTION_LIMIT = REASON_LIMIT = 128
NOTE_LIMIT = 1024

# events.k8s.io/v1 field -> core v1 field, for the fields that are named differently.
_RENAMED = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
_TO_EVENTS = {core: events for events, core in _RENAMED.items()}


def to_core(obj: dict[str, Any]) -> dict[str, Any]:
    """An events.k8s.io/v1 Event as the core v1 Event it is stored as."""
    return _convert(obj, _RENAMED, types.CORE_EVENT, "v1")


def from_core(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored core v1 Event as events.k8s.io/v1 writes it."""
    return _convert(stored, _TO_EVENTS, types.EVENTS_EVENT, "events.k8s.io/v1")


def _convert(event: dict[str, Any], names: dict[str, str], target: gotypes.Struct, api_version: str) -> dict[str, Any]:
    """An event (as Go writes it) renamed into the other group's struct, written as Go writes
    that one (its omitempty rules); the metadata is the same in both."""
    renamed = {names.get(key, key): value for key, value in event.items() if key != "metadata"}
    renamed["apiVersion"], renamed["kind"] = api_version, "Event"
    converted: dict[str, Any] = gotypes.encode(target, renamed)
    converted["metadata"] = event.get("metadata") or {}
    return converted


def _namespace(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace", ""))


def _legacy_errors(event: dict[str, Any], core_names: bool) -> list[FieldError]:
    """legacyValidateEvent; reportingController is named as the request's group names it."""
    errors: list[FieldError] = []
    namespace = _namespace(event)
    involved = event.get("involvedObject") or {}
    involved_namespace = involved.get("namespace", "")
    mismatch = invalid(Path.root("involvedObject", "namespace"), involved_namespace, "does not match event.namespace")
    if not event.get("eventTime"):
        # an old-style event: its namespace is the involved object's (or default, for old clients)
        if not involved_namespace:
            if namespace not in ("", "default"):
                errors.append(mismatch)
        elif namespace != involved_namespace:
            errors.append(mismatch)
    else:
        if not involved_namespace and namespace not in ("default", "kube-system"):
            errors.append(mismatch)
        controller_path = Path.root("reportingComponent" if core_names else "reportingController")
        controller = event.get("reportingComponent", "")
        if not controller:
            errors.append(required(controller_path, ""))
        errors += [invalid(controller_path, controller, message) for message in is_qualified_name(controller)]
        for name, path, limit in (
            ("reportingInstance", "reportingInstance", REPORTING_INSTANCE_LIMIT),
            ("action", "action", ACTION_LIMIT),
            ("reason", "reason", REASON_LIMIT),
        ):
            value = event.get(name, "")
            if not value:
                errors.append(required(Path.root(path), ""))
            if len(value.encode()) > limit:
                errors.append(invalid(Path.root(path), "", f"can have at most {limit} characters"))
        if len(event.get("message", "").encode()) > NOTE_LIMIT:
            errors.append(invalid(Path.root("message"), "", f"can have at most {NOTE_LIMIT} characters"))
    errors += [invalid(Path.root("namespace"), namespace, message) for message in is_dns1123_subdomain(namespace)]
    return errors


def validate_core(event: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """ValidateEventCreate/Update for a core v1 request: the legacy checks only."""
    return _legacy_errors(event, core_names=True)


def _series_errors(event: dict[str, Any]) -> list[FieldError]:
    series = event.get("series")
    if series is None:
        return []
    errors = []
    if (series.get("count") or 0) < 2:
        errors.append(invalid(Path.root("series.count"), "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errors.append(required(Path.root("series.lastObservedTime"), ""))
    return errors


def validate_events(event: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """ValidateEventCreate/Update for an events.k8s.io/v1 request: strict."""
    errors = _legacy_errors(event, core_names=False)
    if old is None:
        errors += object_meta(event)
        errors += _series_errors(event)
        if not event.get("eventTime"):
            errors.append(required(Path.root("eventTime"), ""))
        kind = event.get("type", "")
        if kind not in ("Normal", "Warning"):
            errors.append(invalid(Path.root("type"), "", f"has invalid value: {kind}"))
        for name in ("firstTimestamp", "lastTimestamp", "count"):
            if event.get(name):
                errors.append(invalid(Path.root(name), "", "needs to be unset"))
        source = event.get("source") or {}
        if source.get("component") or source.get("host"):
            errors.append(invalid(Path.root("source"), "", "needs to be unset"))
        return errors
    errors += object_meta_update(event, old)
    if event.get("series") != old.get("series"):
        errors += _series_errors(event)
    for name in ("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "reason",
                 "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance"):  # fmt: skip
        if _go_value(event, name) != _go_value(old, name):
            path = "reportingController" if name == "reportingComponent" else name
            errors.append(invalid(Path.root(path), _GoValue(name, event.get(name)), FIELD_IMMUTABLE, "immutable"))
    return errors


def _go_value(event: dict[str, Any], name: str) -> Any:
    """A field as Go compares it: an absent struct or string is its zero value."""
    value = event.get(name)
    if value is None and name in ("involvedObject", "source"):
        return {}
    if value is None and name in ("reason", "message", "type", "action", "reportingComponent", "reportingInstance"):
        return ""
    return value


_GO_FIELDS = {
    "involvedObject": ("core.ObjectReference", (("Kind", "kind"), ("Namespace", "namespace"), ("Name", "name"),
                       ("UID", "uid"), ("APIVersion", "apiVersion"), ("ResourceVersion", "resourceVersion"),
                       ("FieldPath", "fieldPath"))),
    "source": ("core.EventSource", (("Component", "component"), ("Host", "host"))),
}  # fmt: skip
_GO_FIELDS["related"] = _GO_FIELDS["involvedObject"]


class _GoValue:
    """A field's value as field.Invalid prints it in Go: %v for numbers, %q for strings,
    a time's String(), a struct with %#v (`core.EventSource{Component:"x", Host:""}`)."""

    def __init__(self, name: str, value: Any):
        self.name, self.value = name, value

    def __str__(self) -> str:
        name, value = self.name, self.value
        if name in _GO_FIELDS:
            if value is None:
                if name == "related":
                    return "null"
                value = {}
            type_name, fields = _GO_FIELDS[name]
            inner = ", ".join(f"{go}:{go_quote(str(value.get(key, '')))}" for go, key in fields)
            return f"{type_name}{{{inner}}}"
        if name in ("firstTimestamp", "lastTimestamp", "eventTime"):
            return _go_time_string(value)
        if name == "count":
            return str(value or 0)
        return go_quote(str(value or ""))


def _go_time_string(value: Any) -> str:
    """Go's Time.String() of a stored time (UTC)."""
    if not value:
        return "0001-01-01 00:00:00 +0000 UTC"
    date, _, clock = str(value).rstrip("Z").partition("T")
    seconds, _, fraction = clock.partition(".")
    fraction = fraction.rstrip("0")
    return f"{date} {seconds}{'.' + fraction if fraction else ''} +0000 UTC"


# -- printing and selecting ------------------------------------------------------------------------


def _first_seen(event: dict[str, Any], now: Any) -> str:
    if event.get("firstTimestamp"):
        return tables.since(event["firstTimestamp"], now)
    return tables.since(event.get("eventTime"), now)


def _last_seen(event: dict[str, Any], now: Any) -> str:
    series = event.get("series")
    if series is not None:
        return tables.since(series.get("lastObservedTime"), now)
    if event.get("lastTimestamp"):
        return tables.since(event["lastTimestamp"], now)
    return _first_seen(event, now)


def _count(event: dict[str, Any], now: Any) -> int:
    series = event.get("series")
    if series is not None:
        return int(series.get("count") or 0)
    return int(event.get("count") or 0) or 1  # singleton events of the new API have no count


def _object(event: dict[str, Any], now: Any) -> str:
    involved = event.get("involvedObject") or {}
    kind = str(involved.get("kind", "")).lower()
    return f"{kind}/{involved['name']}" if involved.get("name") else kind


def _source(event: dict[str, Any], now: Any) -> str:
    source = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent", "")
    instance = source.get("host") or event.get("reportingInstance", "")
    return f"{component}, {instance}" if instance else component


_COLUMNS = (
    tables.column("Last Seen", _last_seen, "When the event last happened."),
    tables.column("Type", lambda e, now: e.get("type", ""), "Normal or Warning."),
    tables.column("Reason", lambda e, now: e.get("reason", ""), "Why it happened."),
    tables.column("Object", _object, "The object it is about."),
    tables.column("Subobject", lambda e, now: (e.get("involvedObject") or {}).get("fieldPath", ""),
                  "The part of the object it is about.", priority=1),
    tables.column("Source", _source, "What reported it.", priority=1),
    tables.column("Message", lambda e, now: e.get("message", "").strip(), "What happened."),
    tables.column("First Seen", _first_seen, "When it first happened.", priority=1),
    tables.column("Count", _count, "How often it happened.", priority=1),
    tables.column("Name", tables.name, "The event's name.", priority=1, format="name"),
)  # fmt: skip


def _core_view(event: dict[str, Any]) -> dict[str, Any]:
    """An events.k8s.io event under core's field names (what the printer reads)."""
    return {_RENAMED.get(key, key): value for key, value in event.items()}


def _on_core_view(column: Any) -> Any:
    cell = column.cell
    return dataclasses.replace(column, cell=lambda event, now: cell(_core_view(event), now))


_EVENTS_COLUMNS = tuple(_on_core_view(column) for column in _COLUMNS)


def _involved(name: str) -> Any:
    return lambda event: str((event.get("involvedObject") or {}).get(name, ""))


def _source_label(event: dict[str, Any]) -> str:
    return str((event.get("source") or {}).get("component") or event.get("reportingComponent", ""))


# ToSelectableFields, on the stored (core) event; events.k8s.io's names map onto them.
_CORE_LABELS = {
    **{f"involvedObject.{name}": _involved(name) for name in
       ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
    "reason": lambda event: str(event.get("reason", "")),
    "reportingComponent": lambda event: str(event.get("reportingComponent", "")),
    "source": _source_label,
    "type": lambda event: str(event.get("type", "")),
}  # fmt: skip
_EVENTS_LABELS = {
    **{f"regarding.{name}": _involved(name) for name in
       ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
    "reason": _CORE_LABELS["reason"],
    "reportingController": _CORE_LABELS["reportingComponent"],
    "source": _source_label,
    "type": _CORE_LABELS["type"],
}  # fmt: skip

CORE_EVENTS = BuiltinKind(
    group="", version="v1", kind="Event", plural="events", singular="event",
    type=types.CORE_EVENT, list_type=types.list_of(types.CORE_EVENT, "v1.EventList", "io.k8s.api.core.v1.EventList",
                                                   "A list of Events."),
    validate=validate_core, short_names=("ev",), columns=_COLUMNS, field_labels=_CORE_LABELS, labels_converted=True,
    allow_create_on_update=True,
)  # fmt: skip

EVENTS = BuiltinKind(
    group="events.k8s.io", version="v1", kind="Event", plural="events", singular="event",
    type=types.EVENTS_EVENT, list_type=types.list_of(types.EVENTS_EVENT, "v1.EventList",
                                                     "io.k8s.api.events.v1.EventList", "A list of Events."),
    storage=types.CORE_EVENT, storage_group="", stored_as=("", "events"),
    validate=validate_events, short_names=("ev",), columns=_EVENTS_COLUMNS, field_labels=_EVENTS_LABELS,
    labels_converted=True, allow_create_on_update=True, to_storage=to_core, from_storage=from_core,
)  # fmt: skip
