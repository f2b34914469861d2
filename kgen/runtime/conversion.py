"""What conversion functions receive besides source and destination: the Scope."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")


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


class LazyMapping(Mapping[_K, _V], Generic[_K, _V]):
    """A mapping built when it is first read. A generated conversion module's table of hub
    classes names another version's models, whose module may still be importing this one
    (v1alpha1's types embed v1beta1's, and v1beta1 converts to v1alpha1's hub): the table
    is built once both have finished importing."""

    __slots__ = ("_build", "_table")

    def __init__(self, build: Callable[[], dict[_K, _V]]) -> None:
        self._build = build
        self._table: dict[_K, _V] | None = None

    def _built(self) -> dict[_K, _V]:
        if self._table is None:
            self._table = self._build()
        return self._table

    def __getitem__(self, key: _K) -> _V:
        return self._built()[key]

    def __iter__(self) -> Iterator[_K]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())


class ConversionError(Exception):
    """A conversion that cannot be done (raised by hooks); carries the field path."""

    def __init__(self, message: str, field_path: str = ""):
        self.field_path = field_path
        super().__init__(f"{field_path}: {message}" if field_path else message)
