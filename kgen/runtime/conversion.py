"""What conversion functions receive besides source and destination: the Scope."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Scope:
    """Context of one conversion.

    `feature_gates` says which gates are on (unknown gates are off). `old` is the object
    being replaced when the conversion serves an update, in the destination version (for
    conversions to the internal version: the stored internal object); None on create and
    on reads. Hand-written hooks use both for the rules of the API change guide, such as
    dropping a disabled alpha field on create but keeping it on update when already set.
    """

    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    old: Any = None

    def enabled(self, gate: str) -> bool:
        """Whether a feature gate is on."""
        return bool(self.feature_gates.get(gate, False))

    def for_update(self, old: Any) -> Scope:
        """The same scope, serving an update of `old`."""
        return Scope(self.feature_gates, old)


DEFAULT_SCOPE = Scope()


class ConversionError(Exception):
    """A conversion that cannot be done (raised by hooks); carries the field path."""

    def __init__(self, message: str, field_path: str = ""):
        self.field_path = field_path
        super().__init__(f"{field_path}: {message}" if field_path else message)
