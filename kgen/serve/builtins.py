"""Built-in kinds an operator touches while it is tested: core `v1` Events and
`coordination.k8s.io/v1` Leases.

An operator framework posts Events (and looks for `v1/events` in discovery first); leader
election holds a Lease. Both are served here from kgen's own descriptions of their fields
(structural schemas, the facts of the API in kgen's words), on the schema-driven flow of
custom resources, with the behaviour of built-in kinds: an update without a resourceVersion
overwrites, strategic merge patch is taken. They are served as JSON and YAML (no protobuf).
A repository whose API defines them itself keeps its own.
"""

from __future__ import annotations

from typing import Any

from kgen.serve.loader import PrinterColumn, Resource, ServedVersion

_STRING: dict[str, Any] = {"type": "string"}
_INT32: dict[str, Any] = {"type": "integer", "format": "int32"}
_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}
_MICRO_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}
_META: dict[str, Any] = {"type": "object"}

_OBJECT_REFERENCE: dict[str, Any] = {
    "type": "object",
    "properties": {
        name: _STRING for name in ("apiVersion", "fieldPath", "kind", "name", "namespace", "resourceVersion", "uid")
    },
    "x-kubernetes-map-type": "atomic",
}

_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["metadata", "involvedObject"],
    "properties": {
        "apiVersion": _STRING,
        "kind": _STRING,
        "metadata": _META,
        "involvedObject": _OBJECT_REFERENCE,
        "reason": _STRING,
        "message": _STRING,
        "source": {"type": "object", "properties": {"component": _STRING, "host": _STRING}},
        "firstTimestamp": _TIME,
        "lastTimestamp": _TIME,
        "count": _INT32,
        "type": _STRING,
        "eventTime": _MICRO_TIME,
        "series": {"type": "object", "properties": {"count": _INT32, "lastObservedTime": _MICRO_TIME}},
        "action": _STRING,
        "related": _OBJECT_REFERENCE,
        "reportingComponent": _STRING,
        "reportingInstance": _STRING,
    },
}

_LEASE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": _STRING,
        "kind": _STRING,
        "metadata": _META,
        "spec": {
            "type": "object",
            "properties": {
                "holderIdentity": _STRING,
                "leaseDurationSeconds": _INT32,
                "acquireTime": _MICRO_TIME,
                "renewTime": _MICRO_TIME,
                "leaseTransitions": _INT32,
                "strategy": _STRING,
                "preferredHolder": _STRING,
            },
        },
    },
}

EVENTS = Resource(
    group="",
    kind="Event",
    plural="events",
    singular="event",
    namespaced=True,
    storage_version="v1",
    versions=(
        ServedVersion(
            version="v1",
            printer_columns=(
                PrinterColumn("Type", "string", ".type"),
                PrinterColumn("Reason", "string", ".reason"),
                PrinterColumn("Message", "string", ".message"),
            ),
            schema=_EVENT,
        ),
    ),
    list_kind="EventList",
    short_names=("ev",),
)

LEASES = Resource(
    group="coordination.k8s.io",
    kind="Lease",
    plural="leases",
    singular="lease",
    namespaced=True,
    storage_version="v1",
    versions=(
        ServedVersion(
            version="v1",
            printer_columns=(PrinterColumn("Holder", "string", ".spec.holderIdentity"),),
            schema=_LEASE,
        ),
    ),
    list_kind="LeaseList",
)

BUILTINS = (EVENTS, LEASES)
