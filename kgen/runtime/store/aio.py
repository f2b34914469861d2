"""The store engine for asyncio (an ASGI server, an async fake client).

`AsyncResourceStore` mirrors `ResourceStore`: every operation runs in a worker thread
(`kgen.runtime.work.run`: the request's lane in a server, asyncio's default threads
otherwise), since backends block on disk or network. A watch is started in a
worker thread too (it may read the initial state), then iterated with `async for` without
holding any thread: waiting for events suspends the task on the watch cache.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from kgen.runtime import work
from kgen.runtime.errors import APIError
from kgen.runtime.store import errors
from kgen.runtime.store.engine import DeleteResult, Preconditions, ResourceStore, UpdateResult
from kgen.runtime.store.options import parse_resource_version
from kgen.runtime.store.watch import Watch

T = TypeVar("T")


def _then(operation: Callable[..., Any], then: Callable[[Any], Any] | None) -> Callable[..., Any]:
    """`operation`, its result passed through `then` in the same worker thread."""
    if then is None:
        return operation

    def operation_then(*args: Any, **kwargs: Any) -> Any:
        return then(operation(*args, **kwargs))

    return operation_then


class AsyncResourceStore:
    """Async access to one `ResourceStore`; see its methods for the semantics.

    Every operation but watch takes `then`, a function of the result that runs in the same worker
    thread (a server converts and encodes its answer there): a large result is then built,
    used and freed off the event loop, which only gets what `then` returns."""

    def __init__(self, store: ResourceStore):
        self.store = store
        self.info = store.info

    async def create(
        self, obj: dict[str, Any], *, dry_run: bool = False, then: Callable[[dict[str, Any]], Any] | None = None
    ) -> Any:
        """See `ResourceStore.create`."""
        return await work.run(_then(self.store.create, then), obj, dry_run=dry_run)

    async def get(
        self,
        name: str,
        namespace: str = "",
        *,
        resource_version: str = "",
        then: Callable[[dict[str, Any]], Any] | None = None,
    ) -> Any:
        """See `ResourceStore.get`."""
        await self._fresh(resource_version)
        return await work.run(_then(self.store.get, then), name, namespace, resource_version=resource_version)

    async def _fresh(self, resource_version: str, match: str = "") -> None:
        """Wait here, holding no worker thread, until the store has reached a resourceVersion
        a read asks for (up to the engine's fresh_timeout, then 504 as the store would say):
        a dozen reads of a future version must not occupy every worker while others queue.
        The wait reads the watch cache's revision, kept in memory by its feed."""
        if match == "Exact":
            return
        try:
            minimum = parse_resource_version(resource_version)
        except APIError:
            return  # the store answers what is wrong with it
        if not minimum:
            return
        engine = self.store.engine
        cache = engine.watch_cache
        if cache.revision >= minimum:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + engine.fresh_timeout
        while cache.revision < minimum and loop.time() < deadline:
            await asyncio.sleep(0.02)
        if cache.revision < minimum:  # the cache may trail the store: ask the store once
            current = await work.run(engine.current_revision)
            if current < minimum:
                raise errors.too_large_resource_version(minimum, current)

    async def list(
        self,
        namespace: str = "",
        *,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
        then: Callable[[dict[str, Any]], Any] | None = None,
    ) -> Any:
        """See `ResourceStore.list`."""
        if not continue_token and not (limit and resource_version_match != "NotOlderThan"):
            await self._fresh(resource_version, resource_version_match)
        return await work.run(
            _then(self.store.list, then),
            namespace,
            label_selector=label_selector,
            field_selector=field_selector,
            limit=limit,
            continue_token=continue_token,
            resource_version=resource_version,
            resource_version_match=resource_version_match,
        )

    async def update(self, obj: dict[str, Any], *, subresource: str = "", dry_run: bool = False) -> UpdateResult:
        """See `ResourceStore.update`."""
        return await work.run(self.store.update, obj, subresource=subresource, dry_run=dry_run)

    async def guaranteed_update(
        self,
        name: str,
        namespace: str,
        transform: Callable[[dict[str, Any] | None], dict[str, Any]],
        *,
        subresource: str = "",
        dry_run: bool = False,
        force_allow_create: bool = False,
        then: Callable[[UpdateResult], Any] | None = None,
    ) -> Any:
        """See `ResourceStore.guaranteed_update`; `transform` runs in the worker thread."""
        return await work.run(
            _then(self.store.guaranteed_update, then),
            name,
            namespace,
            transform,
            subresource=subresource,
            dry_run=dry_run,
            force_allow_create=force_allow_create,
        )

    async def delete(
        self,
        name: str,
        namespace: str = "",
        *,
        preconditions: Preconditions | None = None,
        propagation_policy: str | None = None,
        orphan_dependents: bool | None = None,
        dry_run: bool = False,
        then: Callable[[DeleteResult], Any] | None = None,
    ) -> Any:
        """See `ResourceStore.delete`."""
        return await work.run(
            _then(self.store.delete, then),
            name,
            namespace,
            preconditions=preconditions,
            propagation_policy=propagation_policy,
            orphan_dependents=orphan_dependents,
            dry_run=dry_run,
        )

    async def delete_collection(
        self,
        namespace: str = "",
        *,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
        preconditions: Preconditions | None = None,
        propagation_policy: str | None = None,
        orphan_dependents: bool | None = None,
        dry_run: bool = False,
        then: Callable[[dict[str, Any]], Any] | None = None,
    ) -> Any:
        """See `ResourceStore.delete_collection`."""
        return await work.run(
            _then(self.store.delete_collection, then),
            namespace,
            label_selector=label_selector,
            field_selector=field_selector,
            limit=limit,
            continue_token=continue_token,
            resource_version=resource_version,
            resource_version_match=resource_version_match,
            preconditions=preconditions,
            propagation_policy=propagation_policy,
            orphan_dependents=orphan_dependents,
            dry_run=dry_run,
        )

    async def watch(
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
        """See `ResourceStore.watch`; iterate the result with `async for`."""
        await self._fresh(resource_version)
        return await work.run(
            self.store.watch,
            namespace,
            label_selector=label_selector,
            field_selector=field_selector,
            resource_version=resource_version,
            resource_version_match=resource_version_match,
            send_initial_events=send_initial_events,
            allow_watch_bookmarks=allow_watch_bookmarks,
            timeout_seconds=timeout_seconds,
            bookmark_interval=bookmark_interval,
        )
