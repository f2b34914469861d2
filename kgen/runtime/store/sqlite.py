"""A backend in one SQLite database (stdlib `sqlite3`): a file, or `:memory:`.

Tables:

- `history`: one row per revision (every version of every key, a deletion as a NULL
  value), kept until compaction, so a range at a past revision and a change feed from a
  past revision both read it;
- `latest`: the current version of each live key, so current reads do not scan history;
- `meta`: the store's revision and its compacted revision.

Every write is one `BEGIN IMMEDIATE` transaction: it takes SQLite's write lock, reads the
revision, checks its condition, writes and commits, so writers in several processes
serialize and each write commits exactly once or not at all. A file database runs in WAL
mode, where readers never block the writer.

Several processes may share one file. A change feed learns of writes in its own process at
once (a condition variable) and of other processes' writes by polling: every
`poll_interval` seconds it reads the `meta` row holding the revision (one primary-key
lookup, microseconds) and queries `history` only when the revision moved.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

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
    prefix_end,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('revision', 1), ('compacted', 0);
CREATE TABLE IF NOT EXISTS history (
    revision INTEGER PRIMARY KEY,
    key BLOB NOT NULL,
    create_revision INTEGER NOT NULL,
    value BLOB,
    prev_revision INTEGER
);
CREATE INDEX IF NOT EXISTS history_by_key ON history (key, revision);
CREATE TABLE IF NOT EXISTS latest (
    key BLOB PRIMARY KEY,
    revision INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    value BLOB NOT NULL
) WITHOUT ROWID;
"""

# The newest version of each key at or below a revision, for reads of the past.
_AT_REVISION = """
FROM history h
JOIN (SELECT key, MAX(revision) AS r FROM history
      WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key) m ON h.revision = m.r
WHERE h.value IS NOT NULL
"""


class SqliteBackend(Backend):
    """The SQLite backend; thread-safe, and shareable by processes when it is a file."""

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        poll_interval: float = 0.05,
        busy_timeout: float = 30.0,
        synchronous: str = "NORMAL",
        epoch: int | None = None,
    ):
        """Open (creating when needed) the database at `path`.

        `poll_interval` is how often a change feed looks for other processes' writes;
        `busy_timeout` how long a write waits for another process's transaction;
        `synchronous` SQLite's setting (`NORMAL` in WAL mode never corrupts, but may lose
        the last commits on power loss; `FULL` syncs every commit). `epoch`: the revision a
        new database starts at, every revision below it counted as compacted, for a store
        that starts empty while clients may hold versions of an earlier one (a restarted
        in-memory server): their watches and reads at those versions get 410 Gone and list
        again, as after a reset etcd cluster, instead of being served a silent gap.
        """
        self.path = str(path)
        self.poll_interval = poll_interval
        self._conn = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        self._lock = threading.RLock()
        self._changed = threading.Condition(threading.Lock())
        self._writes = 0  # bumped on every local commit, so a feed never misses a wake-up
        self._closed = False
        with self._lock:
            if self.path != ":memory:" and not self.path.startswith("file::memory:"):
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous}")
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._conn.execute(statement)
                if epoch is not None and self._meta(self._conn) == (1, 0):
                    self._conn.execute("UPDATE meta SET value = ? WHERE name IN ('revision', 'compacted')", (epoch,))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    # -- transactions ------------------------------------------------------------------------

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction: a snapshot for reads, the write lock for writes."""
        with self._lock:
            if self._closed:
                raise UnavailableError("the SQLite backend is closed")
            try:
                self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.OperationalError as error:  # locked past busy_timeout
                raise UnavailableError(f"SQLite: {error}") from error
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        if write:
            with self._changed:
                self._writes += 1
                self._changed.notify_all()

    def _meta(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """(revision, compacted revision)."""
        revision, compacted = conn.execute(
            "SELECT (SELECT value FROM meta WHERE name = 'revision'), (SELECT value FROM meta WHERE name = 'compacted')"
        ).fetchone()
        return revision, compacted

    def _next_revision(self, conn: sqlite3.Connection) -> int:
        revision: int = conn.execute("SELECT value FROM meta WHERE name = 'revision'").fetchone()[0] + 1
        conn.execute("UPDATE meta SET value = ? WHERE name = 'revision'", (revision,))
        return revision

    @staticmethod
    def _current(conn: sqlite3.Connection, key: str, raw: bytes) -> KeyValue | None:
        row = conn.execute("SELECT revision, create_revision, value FROM latest WHERE key = ?", (raw,)).fetchone()
        return KeyValue(key, row[2], row[1], row[0]) if row else None

    # -- reads -------------------------------------------------------------------------------

    def get(self, key: str) -> tuple[KeyValue | None, int]:
        """See `Backend.get`."""
        with self._transaction(write=False) as conn:
            return self._current(conn, key, key.encode()), self._meta(conn)[0]

    def range(self, prefix: str, *, start: str | None = None, revision: int = 0, limit: int = 0) -> RangeResult:
        """See `Backend.range`."""
        low = max(start or prefix, prefix).encode()
        high = prefix_end(prefix.encode())
        with self._transaction(write=False) as conn:
            current, compacted = self._meta(conn)
            if revision and revision < compacted:
                raise CompactedError(revision, compacted)
            if revision > current:
                raise FutureRevisionError(revision, current)
            if not revision or revision == current:
                rows = conn.execute(
                    "SELECT key, create_revision, revision, value FROM latest"
                    " WHERE key >= ? AND key < ? ORDER BY key LIMIT ?",
                    (low, high, limit or -1),
                ).fetchall()
                count = conn.execute("SELECT COUNT(*) FROM latest WHERE key >= ? AND key < ?", (low, high)).fetchone()[
                    0
                ]
            else:
                rows = conn.execute(
                    "SELECT h.key, h.create_revision, h.revision, h.value" + _AT_REVISION + "ORDER BY h.key LIMIT ?",
                    (low, high, revision, limit or -1),
                ).fetchall()
                count = conn.execute("SELECT COUNT(*)" + _AT_REVISION, (low, high, revision)).fetchone()[0]
            kvs = [KeyValue(row[0].decode(), row[3], row[1], row[2]) for row in rows]
            return RangeResult(kvs, revision or current, count, count > len(kvs))

    # -- writes ------------------------------------------------------------------------------

    def create(self, key: str, value: bytes) -> KeyValue:
        """See `Backend.create`."""
        raw = key.encode()
        with self._transaction(write=True) as conn:
            if conn.execute("SELECT 1 FROM latest WHERE key = ?", (raw,)).fetchone():
                raise KeyExistsError(key)
            revision = self._next_revision(conn)
            conn.execute("INSERT INTO history VALUES (?, ?, ?, ?, NULL)", (revision, raw, revision, value))
            conn.execute("INSERT INTO latest VALUES (?, ?, ?, ?)", (raw, revision, revision, value))
            return KeyValue(key, value, revision, revision)

    def update(self, key: str, value: bytes, mod_revision: int) -> KeyValue:
        """See `Backend.update`."""
        raw = key.encode()
        with self._transaction(write=True) as conn:
            current = self._current(conn, key, raw)
            if current is None or current.mod_revision != mod_revision:
                raise RevisionMismatchError(key, current)
            revision = self._next_revision(conn)
            created = current.create_revision
            conn.execute("INSERT INTO history VALUES (?, ?, ?, ?, ?)", (revision, raw, created, value, mod_revision))
            conn.execute("UPDATE latest SET revision = ?, value = ? WHERE key = ?", (revision, value, raw))
            return KeyValue(key, value, created, revision)

    def delete(self, key: str, mod_revision: int | None = None) -> tuple[KeyValue, int]:
        """See `Backend.delete`."""
        raw = key.encode()
        with self._transaction(write=True) as conn:
            current = self._current(conn, key, raw)
            if current is None:
                raise KeyNotFoundError(key)
            if mod_revision is not None and current.mod_revision != mod_revision:
                raise RevisionMismatchError(key, current)
            revision = self._next_revision(conn)
            conn.execute("INSERT INTO history VALUES (?, ?, 0, NULL, ?)", (revision, raw, current.mod_revision))
            conn.execute("DELETE FROM latest WHERE key = ?", (raw,))
            return current, revision

    # -- history -----------------------------------------------------------------------------

    def watch(self, prefix: str, start_revision: int) -> BackendWatch:
        """See `Backend.watch`."""
        compacted = self.compacted_revision()
        if start_revision <= compacted:
            raise CompactedError(start_revision, compacted)
        return _SqliteWatch(self, prefix, start_revision)

    def _events_from(self, prefix: str, revision: int, limit: int) -> tuple[list[Event], int] | None:
        """Events under `prefix` from `revision` on and the revision the answer is complete
        to; None when nothing was written since (the cheap check every poll makes)."""
        raw_prefix = prefix.encode()
        with self._transaction(write=False) as conn:
            current, compacted = self._meta(conn)
            if revision <= compacted:
                raise CompactedError(revision, compacted)
            if current < revision:
                return None
            rows = conn.execute(
                "SELECT h.revision, h.key, h.create_revision, h.value, p.value FROM history h"
                " LEFT JOIN history p ON p.revision = h.prev_revision"
                " WHERE h.revision >= ? ORDER BY h.revision LIMIT ?",
                (revision, limit),
            ).fetchall()
        complete = rows[-1][0] if len(rows) == limit else current
        events = []
        for rev, key, created, value, prev in rows:
            if not key.startswith(raw_prefix):
                continue
            if value is None:
                events.append(Event(EventType.DELETE, key.decode(), rev, None, prev))
            else:
                events.append(Event(EventType.PUT, key.decode(), rev, value, prev, created))
        return events, complete

    def compact(self, revision: int) -> None:
        """See `Backend.compact`."""
        with self._transaction(write=True) as conn:
            current, compacted = self._meta(conn)
            if revision <= compacted:
                return
            if revision > current:
                raise FutureRevisionError(revision, current)
            # Keep, per key, the version live at `revision` (a deletion is not kept) and newer.
            conn.execute(
                "DELETE FROM history WHERE revision <= :c AND (value IS NULL OR revision <"
                " (SELECT MAX(h2.revision) FROM history h2 WHERE h2.key = history.key AND h2.revision <= :c))",
                {"c": revision},
            )
            conn.execute("UPDATE meta SET value = ? WHERE name = 'compacted'", (revision,))

    def current_revision(self) -> int:
        """See `Backend.current_revision`."""
        with self._transaction(write=False) as conn:
            return self._meta(conn)[0]

    def compacted_revision(self) -> int:
        """See `Backend.compacted_revision`."""
        with self._transaction(write=False) as conn:
            return self._meta(conn)[1]

    def close(self) -> None:
        """Close the connection; change feeds end."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._conn.close()
        with self._changed:
            self._changed.notify_all()


class _SqliteWatch(BackendWatch):
    """Polls `history` after each local write and every `poll_interval` seconds."""

    _BATCH = 1000

    def __init__(self, backend: SqliteBackend, prefix: str, start_revision: int):
        self._backend = backend
        self._prefix = prefix
        self._next = start_revision
        self._closed = False

    def next(self, timeout: float | None = None) -> WatchBatch | None:
        """See `BackendWatch.next`."""
        backend = self._backend
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:
                return None
            with backend._changed:
                seen = backend._writes
            found = backend._events_from(self._prefix, self._next, self._BATCH)  # closed: UnavailableError
            if found is not None:
                events, complete = found
                self._next = complete + 1
                return WatchBatch(events, complete)
            wait = backend.poll_interval
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    return None
            with backend._changed:
                if backend._writes == seen and not self._closed:
                    backend._changed.wait(wait)

    def close(self) -> None:
        """See `BackendWatch.close`."""
        self._closed = True
        with self._backend._changed:
            self._backend._changed.notify_all()
