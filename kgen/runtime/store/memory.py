"""An in-process backend: every version of every key in dictionaries, guarded by one lock.

Meant for the fake client and for tests: nothing survives the process. Past revisions stay
readable until `compact()`, exactly as with the persistent backends.
"""

from __future__ import annotations

import bisect
import threading
import time

from kgen.runtime.store.backend import (
    Backend,
    BackendWatch,
    CompactedError,
    Event,
    EventType,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RangeResult,
    RevisionMismatchError,
    UnavailableError,
    WatchBatch,
)


class _Versions:
    """The versions of one key, oldest first; a None value is a deletion (tombstone)."""

    __slots__ = ("revisions", "values", "created")

    def __init__(self) -> None:
        self.revisions: list[int] = []
        self.values: list[bytes | None] = []
        self.created: list[int] = []

    def append(self, revision: int, value: bytes | None, created: int) -> None:
        self.revisions.append(revision)
        self.values.append(value)
        self.created.append(created)

    def at(self, key: str, revision: int) -> KeyValue | None:
        """The version live at `revision` (0: the newest), None when absent then."""
        if revision:
            index = bisect.bisect_right(self.revisions, revision) - 1
            if index < 0:
                return None
        else:
            index = len(self.revisions) - 1
        value = self.values[index]
        if value is None:
            return None
        return KeyValue(key, value, self.created[index], self.revisions[index])


class MemoryBackend(Backend):
    """The in-process backend; thread-safe."""

    def __init__(self, epoch: int | None = None) -> None:
        """`epoch`: the revision the store starts at, every revision below it counted as
        compacted (see `SqliteBackend`)."""
        self._lock = threading.Condition()
        self._revision = 1 if epoch is None else epoch
        self._compacted = 0 if epoch is None else epoch
        self._keys: list[str] = []  # sorted; every key that has a version
        self._versions: dict[str, _Versions] = {}
        self._log: list[Event] = []  # every retained event, by revision
        self._log_revisions: list[int] = []
        self._closed = False

    # -- reads -------------------------------------------------------------------------------

    def get(self, key: str) -> tuple[KeyValue | None, int]:
        """See `Backend.get`."""
        with self._lock:
            versions = self._versions.get(key)
            return (versions.at(key, 0) if versions else None), self._revision

    def range(self, prefix: str, *, start: str | None = None, revision: int = 0, limit: int = 0) -> RangeResult:
        """See `Backend.range`."""
        with self._lock:
            at = self._check_revision(revision)
            newest = 0 if at == self._revision else at
            kvs: list[KeyValue] = []
            count = 0
            index = bisect.bisect_left(self._keys, max(start or prefix, prefix))
            for key in self._keys[index:]:
                if not key.startswith(prefix):
                    break
                kv = self._versions[key].at(key, newest)
                if kv is None:
                    continue
                count += 1
                if not limit or len(kvs) < limit:
                    kvs.append(kv)
            return RangeResult(kvs, at, count, count > len(kvs))

    def _check_revision(self, revision: int) -> int:
        if not revision:
            return self._revision
        if revision < self._compacted:
            raise CompactedError(revision, self._compacted)
        if revision > self._revision:
            raise FutureRevisionError(revision, self._revision)
        return revision

    # -- writes ------------------------------------------------------------------------------

    def create(self, key: str, value: bytes) -> KeyValue:
        """See `Backend.create`."""
        with self._lock:
            versions = self._versions.get(key)
            if versions is not None and versions.at(key, 0) is not None:
                raise KeyExistsError(key)
            revision = self._commit(key, value, None, None)
            return KeyValue(key, value, revision, revision)

    def update(self, key: str, value: bytes, mod_revision: int) -> KeyValue:
        """See `Backend.update`."""
        with self._lock:
            versions = self._versions.get(key)
            current = versions.at(key, 0) if versions else None
            if current is None or current.mod_revision != mod_revision:
                raise RevisionMismatchError(key, current)
            revision = self._commit(key, value, current.value, current.create_revision)
            return KeyValue(key, value, current.create_revision, revision)

    def delete(self, key: str, mod_revision: int | None = None) -> tuple[KeyValue, int]:
        """See `Backend.delete`."""
        with self._lock:
            versions = self._versions.get(key)
            current = versions.at(key, 0) if versions else None
            if current is None:
                raise KeyNotFoundError(key)
            if mod_revision is not None and current.mod_revision != mod_revision:
                raise RevisionMismatchError(key, current)
            revision = self._commit(key, None, current.value, current.create_revision)
            return current, revision

    def _commit(self, key: str, value: bytes | None, prev: bytes | None, created: int | None) -> int:
        """Record one write under the lock: a new revision, the version, the event."""
        self._revision += 1
        revision = self._revision
        versions = self._versions.get(key)
        if versions is None:
            versions = self._versions[key] = _Versions()
            bisect.insort(self._keys, key)
        create_revision = revision if created is None else created
        versions.append(revision, value, create_revision if value is not None else 0)
        if value is None:
            event = Event(EventType.DELETE, key, revision, None, prev)
        else:
            event = Event(EventType.PUT, key, revision, value, prev, create_revision)
        self._log.append(event)
        self._log_revisions.append(revision)
        self._lock.notify_all()
        return revision

    # -- history -----------------------------------------------------------------------------

    def watch(self, prefix: str, start_revision: int) -> BackendWatch:
        """See `Backend.watch`."""
        with self._lock:
            if start_revision <= self._compacted:
                raise CompactedError(start_revision, self._compacted)
        return _MemoryWatch(self, prefix, start_revision)

    def compact(self, revision: int) -> None:
        """See `Backend.compact`."""
        with self._lock:
            if revision <= self._compacted:
                return
            if revision > self._revision:
                raise FutureRevisionError(revision, self._revision)
            for key in list(self._versions):
                versions = self._versions[key]
                # Keep the version live at `revision` (unless it is a deletion) and newer ones.
                keep = bisect.bisect_right(versions.revisions, revision) - 1
                if keep >= 0 and versions.values[keep] is None:
                    keep += 1
                keep = max(keep, 0)
                if keep:
                    del versions.revisions[:keep], versions.values[:keep], versions.created[:keep]
                if not versions.revisions:
                    del self._versions[key]
                    del self._keys[bisect.bisect_left(self._keys, key)]
            cut = bisect.bisect_right(self._log_revisions, revision)
            del self._log[:cut], self._log_revisions[:cut]
            self._compacted = revision
            self._lock.notify_all()

    def current_revision(self) -> int:
        """See `Backend.current_revision`."""
        with self._lock:
            return self._revision

    def compacted_revision(self) -> int:
        """See `Backend.compacted_revision`."""
        with self._lock:
            return self._compacted

    def close(self) -> None:
        """Wake every watcher so that it ends."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def _events_from(self, prefix: str, revision: int, limit: int) -> tuple[list[Event], int]:
        """Events under `prefix` from `revision` on (under the lock) and the revision the
        answer is complete to."""
        if revision <= self._compacted:
            raise CompactedError(revision, self._compacted)
        index = bisect.bisect_left(self._log_revisions, revision)
        events = self._log[index : index + limit]
        complete = events[-1].revision if len(events) == limit else self._revision
        return [e for e in events if e.key.startswith(prefix)], complete


class _MemoryWatch(BackendWatch):
    """A cursor on the backend's event log; waits on the backend's condition."""

    _BATCH = 1000

    def __init__(self, backend: MemoryBackend, prefix: str, start_revision: int):
        self._backend = backend
        self._prefix = prefix
        self._next = start_revision
        self._closed = False

    def next(self, timeout: float | None = None) -> WatchBatch | None:
        """See `BackendWatch.next`."""
        backend = self._backend
        deadline = None if timeout is None else time.monotonic() + timeout
        with backend._lock:
            while True:
                if self._closed:
                    return None
                if backend._closed:
                    raise UnavailableError("the memory backend is closed")
                if backend._revision >= self._next:
                    events, complete = backend._events_from(self._prefix, self._next, self._BATCH)
                    self._next = complete + 1
                    return WatchBatch(events, complete)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                backend._lock.wait(remaining)

    def close(self) -> None:
        """See `BackendWatch.close`."""
        self._closed = True
        with self._backend._lock:
            self._backend._lock.notify_all()
