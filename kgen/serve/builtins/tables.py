"""The printer columns of the built-in kinds, as the API server's table convertor prints them.

kube-apiserver prints built-in kinds with pkg/printers/internalversion (AddHandlers):
columns of type string or integer whose cells its print functions compute (`kubectl get
configmaps` shows NAME, DATA, AGE). The server always prints the wide form; kubectl hides
the columns of priority 1 unless asked for `-o wide`. An unset time prints as `<unknown>`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from kgen.serve.loader import PrinterColumn
from kgen.serve.table import human_duration

Cell = Callable[[dict[str, Any], datetime.datetime], Any]


def since(value: Any, now: datetime.datetime) -> str:
    """translateTimestampSince: how long ago a time was, `<unknown>` when it is unset."""
    if not isinstance(value, str) or not value:
        return "<unknown>"
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    return human_duration((now - moment).total_seconds())


def name(obj: dict[str, Any], now: datetime.datetime) -> str:
    """The object's name."""
    return str((obj.get("metadata") or {}).get("name", ""))


def age(obj: dict[str, Any], now: datetime.datetime) -> str:
    """The time since the object was created."""
    return since((obj.get("metadata") or {}).get("creationTimestamp"), now)


def column(
    title: str, cell: Cell, description: str, type: str = "string", priority: int = 0, format: str = ""
) -> PrinterColumn:
    """A printer column whose cells `cell` computes."""
    return PrinterColumn(title, type, "", description, format, priority, cell=cell)


NAME = column("Name", name, "The object's name.", format="name")
AGE = column("Age", age, "The time since the object was created.")
