"""A watch: the events one client sees, read from the shared watch cache.

A `Watch` is an iterator (and an async iterator) of `WatchEvent`s: first any initial
events (synthetic ADDED for the current state, then the `k8s.io/initial-events-end`
bookmark when asked for), then every change after its starting resourceVersion that its
key prefix and selectors let through, with periodic BOOKMARKs when the client allows them.
It ends at its timeout or `close()`; a watch that cannot be served yields one ERROR event
(a Status, such as 410 Expired) and ends.

Selectors follow the watch cache: an object that starts matching arrives as ADDED, one that
stops matching as DELETED carrying its previous state with the event's resourceVersion.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgen.runtime.errors import APIError
from kgen.runtime.store import errors
from kgen.runtime.store.backend import EventType
from kgen.runtime.store.watchcache import CacheClosed, CachedEvent, TooOld, WatchCache

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"
BOOKMARK = "BOOKMARK"
ERROR = "ERROR"

#: The annotation of the bookmark that ends the initial events of `sendInitialEvents=true`.
INITIAL_EVENTS_END = "k8s.io/initial-events-end"


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One watch event. `object` is the JSON object (a Status for ERROR); objects of change
    events are shared with other watchers: copy one before changing it."""

    type: str
    object: dict[str, Any]
    error: APIError | None = None
    """For an ERROR event, the error the Status describes."""


def error_event(error: APIError) -> WatchEvent:
    """An ERROR event carrying `error` as a Status."""
    return WatchEvent(ERROR, error.to_status().to_dict(), error)


class Watch:
    """One client's watch. Iterate it (`for event in watch`, `async for event in watch`),
    or poll it with `next_event(timeout)`; `close()` ends it from any thread."""

    def __init__(
        self,
        cache: WatchCache | None,
        *,
        prefix: str,
        position: int,
        matches: Callable[[dict[str, Any]], bool] | None,
        initial: list[WatchEvent],
        bookmark: Callable[[int], dict[str, Any]] | None,
        bookmark_interval: float,
        timeout: float | None,
    ):
        self._cache = cache
        self._prefix = prefix
        self._position = position
        self._matches = matches
        self._ready: collections.deque[WatchEvent] = collections.deque(initial)
        self._bookmark = bookmark
        self._interval = bookmark_interval
        self._next_bookmark = time.monotonic() + bookmark_interval
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._done = False

    @classmethod
    def failed(cls, cache: WatchCache | None, error: APIError) -> Watch:
        """A watch that yields one ERROR event and ends (what the API server streams when a
        watch cannot start, e.g. 410 for a compacted resourceVersion)."""
        watch = cls(
            cache, prefix="", position=0, matches=None, initial=[error_event(error)],
            bookmark=None, bookmark_interval=0, timeout=None,
        )  # fmt: skip
        watch._done = True
        return watch

    @property
    def resource_version(self) -> int:
        """The revision this watch has delivered everything up to."""
        return self._position

    @property
    def done(self) -> bool:
        """True once the watch ended and every event was taken."""
        return self._done and not self._ready

    def close(self) -> None:
        """End the watch; a blocked iteration returns promptly."""
        self._done = True
        if self._cache is not None:
            self._cache.notify()

    # -- producing events --------------------------------------------------------------------

    def _poll(self) -> None:
        """Move what is ready into `_ready` without blocking."""
        if self._done:
            return
        now = time.monotonic()
        if self._deadline is not None and now >= self._deadline:
            self._done = True
            return
        assert self._cache is not None  # only a failed watch has no cache, and it is done
        try:
            events, seen = self._cache.events_after(self._position)
        except TooOld as error:
            self._fail(errors.too_old_resource_version(error.requested, error.oldest))
            return
        except CacheClosed:
            self._done = True
            return
        except Exception as error:  # the shared feed failed: tell the client to retry
            self._fail(errors.internal_error(f"watch feed failed: {error}"))
            return
        for cached in events:
            if cached.key.startswith(self._prefix):
                event = self._convert(cached)
                if event is not None:
                    self._ready.append(event)
        self._position = seen
        if self._bookmark is not None and now >= self._next_bookmark:
            self._ready.append(WatchEvent(BOOKMARK, self._bookmark(self._position)))
            self._next_bookmark = now + self._interval

    def _fail(self, error: APIError) -> None:
        self._ready.append(error_event(error))
        self._done = True

    def _convert(self, cached: CachedEvent) -> WatchEvent | None:
        current = cached.object if cached.type is EventType.PUT else None
        previous = cached.prev_object
        if self._matches is None:
            if current is not None:
                return WatchEvent(ADDED if previous is None else MODIFIED, current)
            return WatchEvent(DELETED, previous) if previous is not None else None
        current_passes = current is not None and self._matches(current)
        previous_passes = previous is not None and self._matches(previous)
        if current_passes and current is not None:
            return WatchEvent(MODIFIED if previous_passes else ADDED, current)
        if previous_passes and previous is not None:
            return WatchEvent(DELETED, previous)
        return None

    def _wait_time(self) -> float:
        now = time.monotonic()
        wait = 10.0  # close() and new events wake waiters; this only bounds a lost wake-up
        if self._deadline is not None:
            wait = min(wait, self._deadline - now)
        if self._bookmark is not None:
            wait = min(wait, self._next_bookmark - now)
        return max(wait, 0.001)

    # -- consuming events --------------------------------------------------------------------

    def next_event(self, timeout: float | None = None) -> WatchEvent | None:
        """The next event, waiting up to `timeout` seconds (None: until one comes or the
        watch ends); None on timeout or at the end (see `done`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._ready:
                return self._ready.popleft()
            if self._done:
                return None
            self._poll()
            if self._ready or self._done:
                continue
            wait = self._wait_time()
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    return None
            assert self._cache is not None  # only a failed watch has no cache, and it is done
            self._cache.wait(self._position, wait)

    def __iter__(self) -> Watch:
        return self

    def __next__(self) -> WatchEvent:
        event = self.next_event()
        if event is None:
            raise StopIteration
        return event

    def __aiter__(self) -> Watch:
        return self

    async def __anext__(self) -> WatchEvent:
        while True:
            if self._ready:
                return self._ready.popleft()
            if self._done:
                raise StopAsyncIteration
            self._poll()
            if self._ready or self._done:
                continue
            assert self._cache is not None  # only a failed watch has no cache, and it is done
            await self._cache.wait_async(self._position, self._wait_time())

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Watch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
