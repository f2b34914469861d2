"""The store engine: the Kubernetes API's storage semantics, once, over any backend.

`Engine` owns what is shared by every resource on a backend: the watch cache (one change
feed fanned out to every watcher) and compaction (a retained window of history, compacted
periodically or on demand). `Engine.resource(info)` gives the `ResourceStore` of one
resource type, with the operations the API concepts document describes:

- create (generateName, server-set uid/creationTimestamp/generation, dryRun),
- get and list with the resourceVersion / resourceVersionMatch semantics of the API
  concepts tables, label and field selectors, and paging (limit/continue) through one
  consistent snapshot with remainingItemCount,
- update with optimistic concurrency and the strategy's field rules (main resource and
  /status), finalizers,
- delete with preconditions, finalizers and propagation policy, and delete collection,
- watch from a resourceVersion, with initial events, bookmarks and selectors.

Objects are plain JSON dicts in the resource's storage version; the caller (the API server,
the fake client) converts typed models. Every operation is synchronous and thread-safe;
`kgen.runtime.store.aio` wraps them for asyncio. Failures are `APIError`s with the code,
reason and message kube-apiserver answers with.
"""

from __future__ import annotations

import builtins
import collections
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgen.runtime.errors import APIError
from kgen.runtime.store import errors
from kgen.runtime.store.backend import Backend, BackendError, CompactedError, FutureRevisionError
from kgen.runtime.store.base import MAX_CHUNK
from kgen.runtime.store.options import (
    EXACT,
    decode_continue,
    encode_continue,
    parse_resource_version,
    validate_list_options,
    validate_watch_options,
)
from kgen.runtime.store.resource import DefaultStrategy, ResourceInfo, Strategy
from kgen.runtime.store.watch import ADDED, BOOKMARK, INITIAL_EVENTS_END, Watch, WatchEvent
from kgen.runtime.store.watchcache import WatchCache
from kgen.runtime.store.writes import DeleteResult, Preconditions, UpdateResult, WriteOperations
from kgen.runtime.work import checkpoint

__all__ = ["DeleteResult", "Engine", "Preconditions", "ResourceStore", "Retention", "UpdateResult"]


@dataclass(frozen=True, slots=True)
class Retention:
    """How much history compaction keeps: the last `revisions` revisions and/or the last
    `seconds` seconds (both: whichever keeps more; neither: never compact)."""

    revisions: int | None = None
    seconds: float | None = 300.0


class Engine:
    """The store engine over one backend; make one per backend and share it."""

    def __init__(
        self,
        backend: Backend,
        *,
        prefix: str = "/registry/",
        retention: Retention = Retention(),
        compaction_interval: float | None = 60.0,
        bookmark_interval: float = 60.0,
        watch_cache_capacity: int = 10_000,
        fresh_timeout: float = 3.0,
        garbage_collection: bool = True,
        clock: Callable[[], float] = time.time,
    ):
        """Serve resources from `backend` under the key `prefix`.

        `retention` and `compaction_interval` (seconds; None: only on demand) drive
        compaction; `bookmark_interval` is how often watches allowing bookmarks get one;
        `watch_cache_capacity` how many events the watch cache keeps at most;
        `fresh_timeout` how long a read for a resourceVersion newer than the store waits
        before answering 504; with `garbage_collection` deletes add the `orphan` and
        `foregroundDeletion` finalizers of the Orphan and Foreground policies as
        kube-apiserver does (something must then remove them: there is no garbage
        collector here); `clock` gives timestamps (seconds since the epoch).
        """
        if not prefix.endswith("/"):
            raise ValueError(f"the key prefix must end with '/': {prefix!r}")
        self.backend = backend
        self.prefix = prefix
        self.retention = retention
        self.bookmark_interval = bookmark_interval
        self.fresh_timeout = fresh_timeout
        self.garbage_collection = garbage_collection
        self.clock = clock
        self._cache = WatchCache(backend, prefix, watch_cache_capacity)
        self._resources: dict[ResourceInfo, ResourceStore] = {}
        self._lock = threading.Lock()
        self._samples: collections.deque[tuple[float, int]] = collections.deque()
        self._stop = threading.Event()
        self._compactor: threading.Thread | None = None
        if compaction_interval:
            self._compactor = threading.Thread(
                target=self._compact_periodically, args=(compaction_interval,), name="kgen-compactor", daemon=True
            )
            self._compactor.start()

    def resource(self, info: ResourceInfo, strategy: Strategy | None = None) -> ResourceStore:
        """The operations on one resource type (`DefaultStrategy(info)` unless given)."""
        if strategy is not None:
            return ResourceStore(self, info, strategy)
        with self._lock:
            store = self._resources.get(info)
            if store is None:
                store = self._resources[info] = ResourceStore(self, info, DefaultStrategy(info))
            return store

    @property
    def watch_cache(self) -> WatchCache:
        """The shared watch cache (started on first use)."""
        self._cache.start()
        return self._cache

    def current_revision(self) -> int:
        """The store's newest revision."""
        return self.backend.current_revision()

    # -- compaction --------------------------------------------------------------------------

    def retention_target(self) -> int:
        """The revision compaction may go up to now without breaking the retention window."""
        now = time.monotonic()
        current = self.backend.current_revision()
        with self._lock:
            self._samples.append((now, current))
            targets = []
            if self.retention.revisions is not None:
                targets.append(current - self.retention.revisions)
            if self.retention.seconds is not None:
                cutoff = now - self.retention.seconds
                old = [revision for at, revision in self._samples if at <= cutoff]
                targets.append(max(old) if old else 0)
                while len(self._samples) > 1 and self._samples[1][0] <= cutoff:
                    self._samples.popleft()  # keep the newest sample older than the window
            return max(min(targets), 0) if targets else 0

    def compact(self, revision: int | None = None) -> int:
        """Compact history up to `revision` (default: as far as the retention allows); returns
        the compacted revision. Reads, continue tokens and new watches from before it then
        answer 410 Gone."""
        target = self.retention_target() if revision is None else revision
        if target > 0:
            self.backend.compact(target)
        # The watch cache keeps its events: running watches go on (new ones from before
        # the compaction get 410), as kube-apiserver's cache outlives etcd's compactions.
        return self.backend.compacted_revision()

    def _compact_periodically(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.compact()
            except BackendError:
                pass  # the store is unreachable now; the next round retries

    def close(self) -> None:
        """Stop the compactor and the watch cache (watches end). The backend stays open."""
        self._stop.set()
        self._cache.close()
        if self._compactor is not None:
            self._compactor.join(timeout=5)

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ResourceStore(WriteOperations):
    """The API operations on one resource type; get one from `Engine.resource()`.

    Reads and watch are here; the writes (create, update, guaranteed_update, delete,
    delete_collection) come from `WriteOperations`.
    """

    # -- reads -------------------------------------------------------------------------------

    def get(self, name: str, namespace: str = "", *, resource_version: str = "") -> dict[str, Any]:
        """The object (404 NotFound). resourceVersion: "" the most recent, "0" any, N not
        older than N (504 when the store has not reached N within fresh_timeout)."""
        key = self.key(name, namespace)
        minimum = parse_resource_version(resource_version)
        with self._storage("get"):
            kv, revision = self._backend.get(key)
            if minimum > revision:
                self._wait_for_revision(minimum)
                kv, revision = self._backend.get(key)
        if kv is None:
            raise self._not_found(name)
        return self._decode(kv)

    def list(
        self,
        namespace: str = "",
        *,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
    ) -> dict[str, Any]:
        """A list object (`<Kind>List`) of the objects in `namespace` ("" : all namespaces)
        that the selectors select, at most `limit` of them (0: all), from `continue_token`
        on; its metadata has the snapshot's resourceVersion, `continue` and, without
        selectors, `remainingItemCount`.

        resourceVersion and resourceVersionMatch follow the API concepts table: without a
        limit, "" is the most recent, "0" any, N not older than N; with a limit, N (or
        `Exact`) is exactly the snapshot N (410 Expired once compacted); a continue token
        carries its snapshot (410 with an inconsistent-continue token once compacted).
        """
        validate_list_options(resource_version, resource_version_match, continue_token)
        matches = self._selection(label_selector, field_selector)
        limit = max(limit, 0)
        prefix = self._prefix(namespace)
        start, at, minimum = prefix, 0, 0
        if continue_token:
            start, token_revision = decode_continue(continue_token, prefix)
            if resource_version not in ("", "0"):
                raise errors.bad_request("specifying resource version is not allowed when using continue")
            at = max(token_revision, 0)  # -1: continue at the latest revision
        else:
            requested = parse_resource_version(resource_version)
            if resource_version_match == EXACT or (not resource_version_match and limit and requested):
                at = requested
            else:
                minimum = requested
        with self._storage("list"):
            try:
                if minimum:
                    self._wait_for_revision(minimum)
                items, revision, next_key, count = self._read_list(prefix, start, at, limit, matches)
            except CompactedError:
                if continue_token:
                    raise errors.expired(errors.INCONSISTENT_CONTINUE, encode_continue(start, prefix, -1)) from None
                raise errors.expired(errors.EXPIRED_LIST) from None
            except FutureRevisionError as error:
                raise errors.too_large_resource_version(error.requested, error.current) from None
        metadata: dict[str, Any] = {"resourceVersion": str(revision)}
        if next_key is not None:
            metadata["continue"] = encode_continue(next_key, prefix, revision)
            if matches is None:
                metadata["remainingItemCount"] = count - limit
        return {
            "apiVersion": self.info.api_version,
            "kind": self.info.list_kind_name,
            "metadata": metadata,
            "items": items,
        }

    # builtins.list: in this class body `list` is the method above.
    def _read_list(
        self, prefix: str, start: str, at: int, limit: int, matches: Callable[[dict[str, Any]], bool] | None
    ) -> tuple[builtins.list[dict[str, Any]], int, str | None, int]:
        """(items, snapshot revision, the next page's start key or None, the backend's count
        of keys from the last chunk's start), reading chunks as the etcd3 store does."""
        items: list[dict[str, Any]] = []
        revision, chunk, last_key, count = at, limit, "", 0
        while True:
            result = self._backend.range(prefix, start=start, revision=revision, limit=chunk)
            revision = revision or result.revision
            count = result.count
            limit_reached = False
            for index, kv in enumerate(result.kvs):
                if index % 256 == 255:
                    checkpoint()  # a request whose client has gone stops here
                if limit and len(items) >= limit:
                    limit_reached = True
                    break
                last_key = kv.key
                obj = self._decode(kv)
                if matches is None or matches(obj):
                    items.append(obj)
            has_more = result.more or limit_reached
            if limit_reached or not result.more or (limit and len(items) >= limit):
                break
            # A selector thinned the page: read on from the next key, in bigger chunks.
            start = last_key + "\0"
            chunk = min(chunk * 2, MAX_CHUNK) if chunk else 0
        return items, revision, (last_key + "\0" if has_more and limit else None), count

    # -- watch -------------------------------------------------------------------------------

    def watch(
        self,
        namespace: str = "",
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
        send_initial_events: bool | None = None,
        allow_watch_bookmarks: bool = False,
        timeout_seconds: float | None = None,
        bookmark_interval: float | None = None,
    ) -> Watch:
        """A watch of the objects in `namespace` ("": all) that the selectors select.

        resourceVersion "" or "0": synthetic ADDED events for the current state, then every
        change after it; N: every change after N (an ERROR event with 410 Expired when N is
        older than the retained history, 504 when the store has not reached N). With
        `send_initial_events` (which needs resourceVersionMatch=NotOlderThan) the initial
        events are sent (True) or not (False), and with bookmarks allowed a BOOKMARK
        annotated `k8s.io/initial-events-end` marks their end. `allow_watch_bookmarks` adds a
        BOOKMARK every `bookmark_interval` seconds (default: the engine's); the watch ends
        after `timeout_seconds`. Invalid options raise APIError (422/400) before any event.
        """
        validate_watch_options(resource_version_match, send_initial_events)
        matches = self._selection(label_selector, field_selector)
        requested = parse_resource_version(resource_version)
        prefix = self._prefix(namespace)
        cache = None
        initial_events = send_initial_events if send_initial_events is not None else resource_version in ("", "0")
        initial: list[WatchEvent] = []
        try:
            with self._storage("watch"):
                cache = self.engine.watch_cache
                if requested:
                    self._wait_for_revision(requested)
                if initial_events:
                    state = self._backend.range(prefix)
                    position = state.revision
                    for kv in state.kvs:
                        obj = self._decode(kv)
                        if matches is None or matches(obj):
                            initial.append(WatchEvent(ADDED, obj))
                    if send_initial_events and allow_watch_bookmarks:
                        initial.append(WatchEvent(BOOKMARK, self._bookmark(position, initial_events_end=True)))
                elif requested:
                    position = requested
                    oldest = max(self._backend.compacted_revision(), cache.oldest)
                    if position < oldest:
                        raise errors.too_old_resource_version(position, oldest)
                else:
                    position = self._backend.current_revision()
        except APIError as error:
            if error.code in (410, 504):  # the API server streams these as one ERROR event
                return Watch.failed(cache, error)
            raise
        return Watch(
            cache,
            prefix=prefix,
            position=position,
            matches=matches,
            initial=initial,
            bookmark=self._bookmark if allow_watch_bookmarks else None,
            bookmark_interval=bookmark_interval or self.engine.bookmark_interval,
            timeout=timeout_seconds or None,
        )

    def _bookmark(self, revision: int, initial_events_end: bool = False) -> dict[str, Any]:
        """A BOOKMARK's object: the kind with only metadata.resourceVersion set."""
        metadata: dict[str, Any] = {"resourceVersion": str(revision)}
        if initial_events_end:
            metadata["annotations"] = {INITIAL_EVENTS_END: "true"}
        return {"apiVersion": self.info.api_version, "kind": self.info.kind, "metadata": metadata}
