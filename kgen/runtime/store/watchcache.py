"""The watch cache: one change feed per backend, fanned out in process to every watcher.

A thread reads the backend's change feed (from as far back as the retained history and
`capacity` allow) into a ring buffer of events ordered by revision. Watchers do not have
queues of their own: each keeps the revision it has read up to and takes the events after
it from the shared buffer, so a thousand watchers cost a thousand cursors, not a thousand
backend watches or copies of every event. Objects are decoded once per event, lazily, and
shared by every watcher that reads them (treat them as read-only).

Waiting is one `threading.Condition` for threads and, for asyncio watchers, one
`call_soon_threadsafe` per event loop per batch of events.
"""

from __future__ import annotations

import asyncio
import bisect
import threading
import time
from typing import Any

from kgen.runtime.store.backend import Backend, BackendWatch, CompactedError, Event, UnavailableError
from kgen.runtime.store.resource import decode_object


class TooOld(Exception):
    """Events after the requested revision are no longer all in the cache."""

    def __init__(self, requested: int, oldest: int):
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


class CacheClosed(Exception):
    """The watch cache was closed (its engine shut down): watches end."""


class CachedEvent:
    """One change, with its objects decoded on first use and shared afterwards."""

    __slots__ = ("revision", "type", "key", "_value", "_prev", "_object", "_prev_object")

    def __init__(self, event: Event):
        self.revision = event.revision
        self.type = event.type
        self.key = event.key
        self._value = event.value
        self._prev = event.prev_value
        self._object: dict[str, Any] | None = None
        self._prev_object: dict[str, Any] | None = None

    @property
    def object(self) -> dict[str, Any] | None:
        """The object after the change (None for a deletion), resourceVersion set."""
        if self._object is None and self._value is not None:
            self._object = decode_object(self._value, self.revision)
        return self._object

    @property
    def prev_object(self) -> dict[str, Any] | None:
        """The object before the change with this change's resourceVersion (what a DELETED
        event carries), None when the change created it."""
        if self._prev_object is None and self._prev is not None:
            self._prev_object = decode_object(self._prev, self.revision)
        return self._prev_object


class WatchCache:
    """The shared event buffer of one backend under one key prefix."""

    def __init__(self, backend: Backend, prefix: str, capacity: int = 10_000):
        self.backend = backend
        self.prefix = prefix
        self.capacity = capacity
        self._cond = threading.Condition()
        self._events: list[CachedEvent] = []
        self._revisions: list[int] = []
        self._oldest = 0  # every event after this revision is in the buffer
        self._revision = 0  # the feed is complete up to here
        self._error: BaseException | None = None
        self._started = False
        self._closed = False
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._feed: BackendWatch | None = None
        self._async_waiters: dict[asyncio.AbstractEventLoop, set[asyncio.Future[None]]] = {}

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start reading the feed (once; later calls do nothing). Blocks until the feed is
        open, so that `oldest` is known when it returns."""
        with self._cond:
            if self._started:
                return
            self._started = True
            current = self.backend.current_revision()
            compacted = self.backend.compacted_revision()
            # Replay the retained history, at most `capacity` revisions of it.
            start = max(compacted + 1, current - self.capacity + 1, 1)
            self._feed = self.backend.watch(self.prefix, start)
            self._oldest = start - 1
            self._revision = start - 1
            self._thread = threading.Thread(target=self._run, name="kgen-watch-cache", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the feed and release every waiter."""
        self._stopping.set()
        with self._cond:
            self._closed = True
            feed = self._feed
        if feed is not None:
            feed.close()
        self._wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        backoff = 0.0
        while not self._closed:
            try:
                if backoff:
                    # The store was unreachable: reopen the feed where it broke off.
                    if self._stopping.wait(backoff):
                        return
                    self._reopen(None)
                feed = self._feed
                assert feed is not None  # start() opens it before it starts this thread
                batch = feed.next(timeout=1.0)
                backoff = 0.0
            except CompactedError as error:
                # The feed fell behind a compaction: what came before it is gone for watchers.
                self._reopen(error.compacted)
                continue
            except UnavailableError:
                backoff = min(max(backoff * 2, 0.25), 5.0)
                continue
            except BaseException as error:  # reported to every watcher as an ERROR event
                with self._cond:
                    self._error = error
                self._wake()
                return
            if batch is not None:
                self._append(batch.events, batch.revision)

    def _reopen(self, compacted: int | None) -> None:
        """A new feed after the old one broke: from where it stopped, or, after `compacted`
        history was lost, from there with the buffer emptied."""
        with self._cond:
            if self._closed:
                return
            old = self._feed
        if old is not None:
            old.close()
        if compacted is not None:
            compacted = max(compacted, self.backend.compacted_revision())
        feed = self.backend.watch(self.prefix, (compacted if compacted is not None else self._revision) + 1)
        with self._cond:
            if compacted is not None:
                self._events.clear()
                self._revisions.clear()
                self._oldest = self._revision = compacted
            self._feed = feed
        self._wake()

    # -- feeding -----------------------------------------------------------------------------

    def _append(self, events: list[Event], revision: int) -> None:
        with self._cond:
            for event in events:
                if event.revision > self._revision:
                    self._events.append(CachedEvent(event))
                    self._revisions.append(event.revision)
            self._revision = max(self._revision, revision, self._revisions[-1] if self._revisions else 0)
            overflow = len(self._events) - self.capacity
            if overflow > self.capacity // 10:  # trim in chunks: one memmove per many events
                self._oldest = self._revisions[overflow - 1]
                del self._events[:overflow], self._revisions[:overflow]
        self._wake()

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()
            waiters, self._async_waiters = self._async_waiters, {}
        for loop, futures in waiters.items():
            try:
                loop.call_soon_threadsafe(_release, futures)
            except RuntimeError:  # that loop is closed: nobody is waiting there any more
                pass

    # -- reading -----------------------------------------------------------------------------

    @property
    def revision(self) -> int:
        """The revision the cache is complete up to."""
        with self._cond:
            return self._revision

    @property
    def oldest(self) -> int:
        """Events after this revision are all in the cache."""
        with self._cond:
            return self._oldest

    def events_after(self, revision: int, limit: int = 1000) -> tuple[list[CachedEvent], int]:
        """Up to `limit` events after `revision`, and the revision a reader has seen
        everything up to once it has them. Raises `TooOld` when events after `revision`
        were dropped, `CacheClosed` once closed, and the feed's error when it failed."""
        with self._cond:
            if self._closed:
                raise CacheClosed()
            if self._error is not None:
                raise self._error
            if revision < self._oldest:
                raise TooOld(revision, self._oldest)
            index = bisect.bisect_right(self._revisions, revision)
            events = self._events[index : index + limit]
            if len(events) == limit:
                return events, events[-1].revision
            return events, max(self._revision, revision)

    def wait(self, revision: int, timeout: float) -> None:
        """Block until the cache moves past `revision`, it fails or closes, or `timeout` passes."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._revision <= revision and self._error is None and not self._closed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._cond.wait(remaining)

    async def wait_async(self, revision: int, timeout: float) -> None:
        """`wait()` for asyncio: suspends the task, not the thread."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._cond:
            if self._revision > revision or self._error is not None or self._closed:
                return
            waiters = self._async_waiters.setdefault(loop, set())
            waiters.add(future)
        try:
            await asyncio.wait_for(future, timeout)
        except (asyncio.TimeoutError, TimeoutError):
            pass
        finally:
            with self._cond:
                waiters.discard(future)  # an idle watcher must not pile up dead futures

    def notify(self) -> None:
        """Wake every waiter (a watcher was closed from another thread or task)."""
        self._wake()


def _release(futures: set[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():
            future.set_result(None)
