"""The backend interface: a key-value store with one revision counter, as etcd's MVCC.

A backend stores bytes under string keys (ordered as their UTF-8 bytes) and knows nothing
of API objects. Every successful write increments one store-wide revision; a key's value
carries the revision that created the key and the revision that last changed it. Past
revisions stay readable until they are compacted, so a list can page through one
consistent snapshot, and a change feed can replay history from a revision.

The engine (`kgen.runtime.store.engine`) holds the API semantics on top; backends are
`MemoryBackend`, `SqliteBackend` and `EtcdBackend`.

Revision rules, the same for every backend:

- a fresh store is at revision 1; each create, update or delete makes exactly one new
  revision, and a write either commits once or raises;
- `compact(C)` forgets every event with revision <= C and every version that is not the
  newest at C: reading the state at a revision below C, or watching from a revision <= C,
  raises `CompactedError`. The state at C itself stays readable.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Iterator
from dataclasses import dataclass


class EventType(str, enum.Enum):
    """What a change did to a key."""

    PUT = "PUT"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One version of a key."""

    key: str
    value: bytes
    create_revision: int
    """The revision that created the key (unchanged by updates)."""
    mod_revision: int
    """The revision of this version: the object's resourceVersion."""


@dataclass(frozen=True, slots=True)
class Event:
    """One change in the change feed."""

    type: EventType
    key: str
    revision: int
    """The revision the change made."""
    value: bytes | None
    """The new value; None for a DELETE."""
    prev_value: bytes | None
    """The value before the change; None when the change created the key."""
    create_revision: int = 0
    """For a PUT, the revision that created the key (equal to `revision` on creation)."""


@dataclass(frozen=True, slots=True)
class RangeResult:
    """A range read: the keys found, in key order, and the revision it was read at."""

    kvs: list[KeyValue]
    revision: int
    """The revision the range saw (the current revision when none was asked for)."""
    count: int
    """How many keys the range holds from its start key on, before the limit."""
    more: bool
    """True when the limit cut the range short."""


@dataclass(frozen=True, slots=True)
class WatchBatch:
    """Events from a change feed, and how far the feed is known to be complete."""

    events: list[Event]
    revision: int
    """Every change up to this revision under the watched prefix has been delivered."""


class BackendError(Exception):
    """A backend operation failed."""


class KeyExistsError(BackendError):
    """create() found the key already present."""

    def __init__(self, key: str):
        super().__init__(f"key exists: {key}")
        self.key = key


class KeyNotFoundError(BackendError):
    """The key is absent."""

    def __init__(self, key: str):
        super().__init__(f"key not found: {key}")
        self.key = key


class RevisionMismatchError(BackendError):
    """A conditional write found another version than the one it was conditioned on."""

    def __init__(self, key: str, current: KeyValue | None):
        super().__init__(f"revision mismatch on {key}")
        self.key = key
        self.current = current
        """The key's current version (None when it is absent), so callers can retry."""


class CompactedError(BackendError):
    """The revision asked for has been compacted away."""

    def __init__(self, requested: int, compacted: int):
        super().__init__(f"required revision {requested} has been compacted (compacted at {compacted})")
        self.requested = requested
        self.compacted = compacted


class FutureRevisionError(BackendError):
    """The revision asked for is newer than the store's current revision."""

    def __init__(self, requested: int, current: int):
        super().__init__(f"required revision {requested} is a future revision (current {current})")
        self.requested = requested
        self.current = current


class UnavailableError(BackendError):
    """The backend cannot be reached (a remote store is down or timed out)."""


def prefix_end(prefix: bytes) -> bytes:
    """The first key after every key starting with `prefix` (etcd's range_end for a prefix)."""
    for i in range(len(prefix) - 1, -1, -1):
        if prefix[i] < 0xFF:
            return prefix[:i] + bytes([prefix[i] + 1])
    return b"\0"  # etcd's "every key": a prefix of only 0xff bytes has no end


class BackendWatch(abc.ABC):
    """A change feed from a start revision; iterate it, or poll it with `next(timeout)`."""

    @abc.abstractmethod
    def next(self, timeout: float | None = None) -> WatchBatch | None:
        """The next batch of events, waiting up to `timeout` seconds (None: forever).

        Returns None on timeout or once this feed is closed; raises `CompactedError` when
        the feed fell behind a compaction, `UnavailableError` when the store went away (or
        the backend was closed).
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Stop the feed; a blocked `next()` returns None soon after."""

    def __iter__(self) -> Iterator[WatchBatch]:
        while True:
            batch = self.next()
            if batch is None:
                return
            yield batch

    def __enter__(self) -> BackendWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Backend(abc.ABC):
    """A byte key-value store with MVCC revisions. Implementations are thread-safe."""

    @abc.abstractmethod
    def get(self, key: str) -> tuple[KeyValue | None, int]:
        """The key's current version (None when absent) and the revision read at."""

    @abc.abstractmethod
    def range(self, prefix: str, *, start: str | None = None, revision: int = 0, limit: int = 0) -> RangeResult:
        """Keys starting with `prefix` from `start` (inclusive; default the prefix) on, in key
        order, as they were at `revision` (0: the current revision), at most `limit` (0: all).

        Raises `CompactedError` below the compacted revision and `FutureRevisionError` above
        the current one.
        """

    @abc.abstractmethod
    def create(self, key: str, value: bytes) -> KeyValue:
        """Store a new key; raises `KeyExistsError` when it is present."""

    @abc.abstractmethod
    def update(self, key: str, value: bytes, mod_revision: int) -> KeyValue:
        """Replace the key's value if its current version is `mod_revision` (compare-and-swap);
        raises `RevisionMismatchError` (with the current version) otherwise."""

    @abc.abstractmethod
    def delete(self, key: str, mod_revision: int | None = None) -> tuple[KeyValue, int]:
        """Delete the key, only at version `mod_revision` when given. Returns the deleted
        version and the deletion's revision; raises `KeyNotFoundError` when the key is absent
        and `RevisionMismatchError` when it is at another version."""

    @abc.abstractmethod
    def watch(self, prefix: str, start_revision: int) -> BackendWatch:
        """The change feed of keys under `prefix` from `start_revision` (inclusive) on.

        Raises `CompactedError` when `start_revision` <= the compacted revision (those
        events are gone).
        """

    @abc.abstractmethod
    def compact(self, revision: int) -> None:
        """Forget history up to `revision` (see the module's rules); compacting to a
        revision at or below the last compaction does nothing."""

    @abc.abstractmethod
    def current_revision(self) -> int:
        """The revision of the newest write (1 for a fresh store)."""

    @abc.abstractmethod
    def compacted_revision(self) -> int:
        """The revision of the last compaction (0 when never compacted)."""

    def close(self) -> None:
        """Release connections and files; the backend is unusable afterwards."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
