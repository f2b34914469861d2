"""One change between two revisions of an API, as the comparisons find it.

The comparisons (resources, schemas, Go types) return `Change` records; `kgen.compat.report`
names their subjects, adds the example objects, groups the same change seen through
several kinds, applies the severity rules and the allow list, and turns them into findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgen.compat.snapshot import Steps
from kgen.diagnostics import Position


@dataclass
class Change:
    rule: str
    what: str
    """What changed, without its subject: `minimum raised from 0 to 1`."""
    steps: Steps = ()
    """The schema path of a schema change (empty: the root, or not a schema change)."""
    resource: tuple[str, str] | None = None
    """(group, kind) of a resource or schema change."""
    version: str = ""
    """The version of the resource whose schema changed (or that was removed)."""
    severity: str | None = None
    """When this change is more or less severe than its rule says."""
    subject: str = ""
    """What changed, for changes of Go types: `example.kgen.dev/v1 FrobberSpec.height`."""
    position: Position | None = None
    anchor: tuple[Any, ...] | None = None
    """The Go field the change is made in (package, type, JSON name, steps below it), so that
    one change of a type several kinds share is reported once."""
    old_node: dict[str, Any] | None = None
    new_node: dict[str, Any] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    """What the example search needs (removed enum values, the added rule, the property)."""
    notes: list[str] = field(default_factory=list)
    """Sentences for the explanation: examples of objects that break, caveats."""
    relaxed: str = ""
    """Why the severity was lowered (alpha version, feature-gated field, status)."""
