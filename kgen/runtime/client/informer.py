"""Informers: a list-watch cache of one kind, with event handlers and listers (client-go's
SharedInformer, reflector and lister, in one small class per flavour).

    informer = Informer(client.frobbers(namespace=""))        # every namespace
    informer.add_handler(on_add=print, on_update=lambda old, new: ..., on_delete=print)
    informer.start()                                           # a daemon thread
    informer.wait_for_sync(timeout=10)
    informer.lister.list(namespace="default", label_selector="app=web")

The informer lists (in pages), replaces its cache (objects gone since the last list are
deleted, with a handler call each), then watches from the list's resource version with
bookmarks. When the watch ends it resumes from the last version seen; when that version is
gone (410) it lists again. Every `resync_period` seconds each cached object is handed to
`on_update(obj, obj)`, as client-go's resync does. Handlers run on the informer's thread (or
task), one event at a time, in the order the server sent them.

`AsyncInformer` does the same in an asyncio task, on an async client.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from kgen.runtime.client.errors import APIStatusError, TransportError
from kgen.runtime.client.resource import AsyncWatch, TypedObject, Watch
from kgen.runtime.client.watch import ADDED, BOOKMARK, DELETED, MODIFIED, WatchEvent
from kgen.runtime.store.selectors import parse_label_selector

__all__ = ["Handler", "Lister", "Informer", "AsyncInformer"]

T = TypeVar("T", bound=TypedObject)
L = TypeVar("L", bound=TypedObject)

Key = tuple[str, str]
"""(namespace, name) of a cached object."""


@dataclass(frozen=True)
class Handler(Generic[T]):
    """What to call on a change; each part is optional."""

    on_add: Callable[[T], None] | None = None
    on_update: Callable[[T, T], None] | None = None
    on_delete: Callable[[T], None] | None = None


def _key(obj: TypedObject) -> Key:
    metadata = getattr(obj, "metadata", None)
    return (getattr(metadata, "namespace", "") or "", getattr(metadata, "name", "") or "")


class Lister(Generic[T]):
    """Reads of the informer's cache: no request reaches the server. The objects returned
    are the cache's own: copy one (`deep_copy()`) before changing it."""

    def __init__(self, cache: _Cache[T]) -> None:
        self._cache = cache

    def get(self, name: str, namespace: str = "") -> T | None:
        """The cached object, or None."""
        with self._cache.lock:
            return self._cache.items.get((namespace, name))

    def list(self, namespace: str | None = None, label_selector: str = "") -> list[T]:
        """The cached objects of `namespace` (None: all) that `label_selector` selects,
        sorted by namespace and name."""
        selector = parse_label_selector(label_selector)
        with self._cache.lock:
            found = [
                obj for key, obj in self._cache.items.items()
                if (namespace is None or key[0] == namespace)
                and selector.matches(getattr(getattr(obj, "metadata", None), "labels", None))
            ]  # fmt: skip
        return sorted(found, key=_key)

    def __len__(self) -> int:
        with self._cache.lock:
            return len(self._cache.items)


class _Cache(Generic[T]):
    """The cache and its handlers, shared by both flavours."""

    def __init__(self) -> None:
        self.items: dict[Key, T] = {}
        self.lock = threading.Lock()
        self.handlers: list[Handler[T]] = []
        self.synced = threading.Event()
        self.version = ""

    def replace(self, objects: list[T], version: str) -> None:
        """A full list: what is gone is deleted, the rest added or updated."""
        fresh = {_key(o): o for o in objects}
        with self.lock:
            old = self.items
            self.items = dict(fresh)
            self.version = version
        for key, obj in old.items():
            if key not in fresh:
                self._notify(DELETED, obj, None)
        for key, obj in fresh.items():
            before = old.get(key)
            if before is None:
                self._notify(ADDED, obj, None)
            elif _version(before) != _version(obj):
                self._notify(MODIFIED, obj, before)
        self.synced.set()

    def apply(self, event: WatchEvent[T]) -> None:
        """One watch event."""
        if event.type == BOOKMARK:
            self.version = _version(event.object) or self.version
            return
        key = _key(event.object)
        with self.lock:
            before = self.items.get(key)
            if event.type == DELETED:
                self.items.pop(key, None)
            else:
                self.items[key] = event.object
            self.version = _version(event.object) or self.version
        if event.type == DELETED:
            self._notify(DELETED, event.object, None)
        elif before is None:
            self._notify(ADDED, event.object, None)
        else:
            self._notify(MODIFIED, event.object, before)

    def resync(self) -> None:
        with self.lock:
            objects = list(self.items.values())
        for obj in objects:
            self._notify(MODIFIED, obj, obj)

    def _notify(self, kind: str, obj: T, before: T | None) -> None:
        for handler in list(self.handlers):
            if kind == ADDED and handler.on_add is not None:
                handler.on_add(obj)
            elif kind == MODIFIED and handler.on_update is not None:
                handler.on_update(before if before is not None else obj, obj)
            elif kind == DELETED and handler.on_delete is not None:
                handler.on_delete(obj)


def _version(obj: TypedObject) -> str:
    return str(getattr(getattr(obj, "metadata", None), "resource_version", "") or "")


class _Informer(Generic[T, L]):
    """What both flavours share: options, the cache and its lister, handlers, resyncs."""

    def __init__(
        self,
        client: Any,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resync_period: float | None = None,
        page_size: int = 500,
        retry_delay: float = 1.0,
        watch_timeout: int = 300,
    ) -> None:
        """An informer of `client`'s objects (its namespace, "" for all) that the selectors
        choose. `retry_delay` is the pause after a failed list or watch before trying again;
        each watch lasts `watch_timeout` seconds at most before it is opened again (client-go
        picks 5 to 10 minutes)."""
        self.client = client
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.resync_period = resync_period
        self.page_size = page_size
        self.retry_delay = retry_delay
        self.watch_timeout = watch_timeout
        self._cache: _Cache[T] = _Cache()
        self.lister: Lister[T] = Lister(self._cache)
        self.errors: list[Exception] = []
        """Failures the informer recovered from (by listing or watching again)."""

    def add_handler(
        self,
        on_add: Callable[[T], None] | None = None,
        on_update: Callable[[T, T], None] | None = None,
        on_delete: Callable[[T], None] | None = None,
    ) -> None:
        """Call these on changes; a handler added after the sync first hears an add for each
        cached object, as client-go's AddEventHandler does."""
        if self._cache.synced.is_set() and on_add is not None:
            for obj in self.lister.list():
                on_add(obj)
        self._cache.handlers.append(Handler(on_add, on_update, on_delete))

    @property
    def has_synced(self) -> bool:
        """Whether the first list has reached the cache."""
        return self._cache.synced.is_set()

    def _window(self) -> int:
        """How long each watch lasts: `watch_timeout`, and at most the resync period."""
        if self.resync_period is None:
            return self.watch_timeout
        return max(1, min(self.watch_timeout, int(self.resync_period)))

    def _first_resync(self) -> float | None:
        return time.monotonic() + self.resync_period if self.resync_period else None

    def _relisted(self, listed: L) -> None:
        self._cache.replace(list(listed.items), _version_of_list(listed))  # type: ignore[attr-defined]

    def _maybe_resync(self, due: float | None) -> float | None:
        if due is None or self.resync_period is None or time.monotonic() < due:
            return due
        self._cache.resync()
        return time.monotonic() + self.resync_period


class Informer(_Informer[T, L]):
    """A list-watch cache of the objects a client sees, on a daemon thread."""

    client: Watch[T, L]

    def __init__(self, client: Watch[T, L], **options: Any) -> None:
        """See `_Informer` for the options."""
        super().__init__(client, **options)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def wait_for_sync(self, timeout: float | None = None) -> bool:
        """Wait for the first list; False when `timeout` passed first."""
        return self._cache.synced.wait(timeout)

    def start(self) -> None:
        """Run on a daemon thread until `stop()`."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self.run, name=f"informer-{self.client.resource.plural}", daemon=True
            )
            self._thread.start()

    def stop(self, timeout: float | None = 5.0) -> None:
        """Stop watching (the watch in progress ends at its next event or timeout)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        """List, then watch, until `stop()` (what `start` runs on its thread)."""
        next_resync = self._first_resync()
        while not self._stop.is_set():
            try:
                if not self._cache.synced.is_set() or not self._cache.version:
                    self._list()
                for event in self.client.watch(
                    label_selector=self.label_selector, field_selector=self.field_selector,
                    resource_version=self._cache.version, timeout_seconds=self._window(), bookmarks=True,
                    on_relist=self._relisted,
                ):  # fmt: skip
                    self._cache.apply(event)
                    if self._stop.is_set():
                        return
                    next_resync = self._maybe_resync(next_resync)
                next_resync = self._maybe_resync(next_resync)
            except (APIStatusError, TransportError) as err:
                self.errors.append(err)
                self._stop.wait(self.retry_delay)

    def _list(self) -> None:
        items: list[T] = []
        token, version = "", ""
        while True:
            page = self.client.list(label_selector=self.label_selector, field_selector=self.field_selector,
                                    limit=self.page_size, continue_=token)  # fmt: skip
            items.extend(page.items)  # type: ignore[attr-defined]
            version = version or _version_of_list(page)
            token = page.metadata.continue_  # type: ignore[attr-defined]
            if not token:
                break
        self._cache.replace(items, version)


def _version_of_list(listed: Any) -> str:
    return str(listed.metadata.resource_version or "")


class AsyncInformer(_Informer[T, L]):
    """As `Informer`, in an asyncio task on an async client; handlers are plain callables
    run in the task."""

    client: AsyncWatch[T, L]

    def __init__(self, client: AsyncWatch[T, L], **options: Any) -> None:
        """See `_Informer` for the options."""
        super().__init__(client, **options)
        self._task: asyncio.Task[None] | None = None
        self._synced = asyncio.Event()

    async def wait_for_sync(self, timeout: float | None = None) -> bool:
        """Wait for the first list; False when `timeout` passed first."""
        try:
            await asyncio.wait_for(self._synced.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True

    def start(self) -> asyncio.Task[None]:
        """Run as a task of the running loop until `stop()`."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run())
        return self._task

    async def stop(self) -> None:
        """Cancel the task and wait for it."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def run(self) -> None:
        """List, then watch, until cancelled."""
        next_resync = self._first_resync()
        while True:
            try:
                if not self._cache.synced.is_set() or not self._cache.version:
                    await self._list()
                async for event in self.client.watch(
                    label_selector=self.label_selector, field_selector=self.field_selector,
                    resource_version=self._cache.version, timeout_seconds=self._window(), bookmarks=True,
                    on_relist=self._relisted,
                ):  # fmt: skip
                    self._cache.apply(event)
                    next_resync = self._maybe_resync(next_resync)
                next_resync = self._maybe_resync(next_resync)
            except (APIStatusError, TransportError) as err:
                self.errors.append(err)
                await asyncio.sleep(self.retry_delay)

    async def _list(self) -> None:
        items: list[T] = []
        token, version = "", ""
        while True:
            page = await self.client.list(label_selector=self.label_selector, field_selector=self.field_selector,
                                          limit=self.page_size, continue_=token)  # fmt: skip
            items.extend(page.items)  # type: ignore[attr-defined]
            version = version or _version_of_list(page)
            token = page.metadata.continue_  # type: ignore[attr-defined]
            if not token:
                break
        self._cache.replace(items, version)
        self._synced.set()
