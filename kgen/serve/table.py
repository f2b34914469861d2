"""The `Table` and `PartialObjectMetadata` forms of objects and lists (meta.k8s.io/v1).

`kubectl get` asks for `application/json;as=Table;g=meta.k8s.io;v=v1` and prints the
columns it gets: Name, then the printer columns of the version (`+kubebuilder:printcolumn`),
or Name and Age when it has none, with cells computed as the API server computes a custom
resource's: JSONPath results, `date` columns as the age kubectl shows (`5m`, `3d4h`),
integers, numbers and booleans as JSON values, anything else a string.
"""

from __future__ import annotations

import datetime
from typing import Any

from kgen.serve import jsonpath
from kgen.serve.loader import PrinterColumn

META_V1 = "meta.k8s.io/v1"
_NAME_DESCRIPTION = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow "
    "a client to request the generation of an appropriate name automatically. Name is primarily intended for creation "
    "idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_AGE = PrinterColumn(
    name="Age",
    type="date",
    json_path=".metadata.creationTimestamp",
    description="CreationTimestamp is a timestamp representing the server time when this object was created.",
)


def columns_of(printer_columns: tuple[PrinterColumn, ...]) -> tuple[PrinterColumn, ...]:
    """The columns a version prints besides Name (Age when it declares none)."""
    return printer_columns or (_AGE,)


def _printed(columns: tuple[PrinterColumn, ...]) -> bool:
    """Whether the columns are a built-in kind's printer's (the whole table, cells computed)."""
    return any(column.cell is not None for column in columns)


def column_definitions(columns: tuple[PrinterColumn, ...]) -> list[dict[str, Any]]:
    """Table.columnDefinitions: Name first, then `columns` (a built-in kind's printer's
    columns as they are)."""
    definitions = []
    if not _printed(columns):
        definitions.append(
            {"name": "Name", "type": "string", "format": "name", "description": _NAME_DESCRIPTION, "priority": 0}
        )
    for column in columns:
        definitions.append({
            "name": column.name,
            "type": column.type,
            "format": column.format,
            "description": column.description or f"Custom resource definition column (in JSONPath format): {column.json_path}",
            "priority": column.priority,
        })  # fmt: skip
    return definitions


def human_duration(seconds: float) -> str:
    """apimachinery's duration.HumanDuration: how kubectl shows an age."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if days == 0 else f"{hours // 24 // 365}y{days}d"
    return f"{hours // 24 // 365}y"


def _age(value: Any, now: datetime.datetime) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return human_duration((now - moment).total_seconds())


def _cell(column: PrinterColumn, obj: dict[str, Any], now: datetime.datetime) -> Any:
    try:
        results = jsonpath.find(column.json_path, obj)
    except jsonpath.JSONPathError:
        return None
    if not results or results[0] is None:
        return None
    value = results[0]
    if column.type == "string":
        return jsonpath.text(value)
    if column.type == "date":
        return _age(value, now)
    if column.type == "integer":
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if column.type == "number":
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if column.type == "boolean":
        return value if isinstance(value, bool) else None
    return None


def partial_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as PartialObjectMetadata (its metadata alone)."""
    return {"kind": "PartialObjectMetadata", "apiVersion": META_V1, "metadata": obj.get("metadata") or {}}


def partial_metadata_list(listed: dict[str, Any]) -> dict[str, Any]:
    """A list as PartialObjectMetadataList."""
    return {
        "kind": "PartialObjectMetadataList",
        "apiVersion": META_V1,
        "metadata": listed.get("metadata") or {},
        "items": [partial_metadata(item) for item in listed.get("items") or []],
    }


def row(
    obj: dict[str, Any], columns: tuple[PrinterColumn, ...], include_object: str, now: datetime.datetime
) -> dict[str, Any]:
    """One Table row: the cells, and the object as `includeObject` says (None, Metadata, Object)."""
    if _printed(columns):
        cells = [column.cell(obj, now) if column.cell is not None else _cell(column, obj, now) for column in columns]
    else:
        cells = [(obj.get("metadata") or {}).get("name", "")] + [_cell(column, obj, now) for column in columns]
    entry: dict[str, Any] = {"cells": cells}
    if include_object == "Object":
        entry["object"] = obj
    elif include_object != "None":
        entry["object"] = partial_metadata(obj)
    return entry


def table(
    objects: list[dict[str, Any]],
    columns: tuple[PrinterColumn, ...],
    *,
    list_metadata: dict[str, Any] | None = None,
    include_object: str = "Metadata",
    headers: bool = True,
    version: str = "v1",
) -> dict[str, Any]:
    """A Table of `objects`; `list_metadata` (resourceVersion, continue) when it is a list."""
    now = datetime.datetime.now(datetime.timezone.utc)
    result: dict[str, Any] = {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": dict(list_metadata or {}),
    }
    if headers:
        result["columnDefinitions"] = column_definitions(columns)
    result["rows"] = [row(obj, columns, include_object, now) for obj in objects]
    if list_metadata is None and objects:
        resource_version = (objects[0].get("metadata") or {}).get("resourceVersion")
        if resource_version:
            result["metadata"]["resourceVersion"] = resource_version
    return result
