"""The garbage collector: what kube-controller-manager's does with `metadata.ownerReferences`.

It follows every change of the store (the engine's watch cache, all resources) in a thread
of its own, keeping an index from each owner's uid to the objects that name it, and:

- when an object is gone, deletes each dependent whose owners are now all gone (and removes
  the reference to it from a dependent that still has an owner): background deletion;
- when an object is being deleted with the `orphan` finalizer (propagationPolicy=Orphan),
  removes the references to it from its dependents, then the finalizer;
- when an object is being deleted with `foregroundDeletion`, deletes its dependents (in the
  foreground too) and removes the finalizer once none is left.

The API server's side of it (those finalizers set by delete options) is the store engine's.
Like the real collector it works after the request that caused it has been answered.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from typing import Any

from kgen.runtime.errors import APIError
from kgen.runtime.store import ResourceStore
from kgen.runtime.store.options import FINALIZER_FOREGROUND, FINALIZER_ORPHAN
from kgen.runtime.store.watchcache import CacheClosed, TooOld

_log = logging.getLogger("kgen.serve.collector")

Ref = tuple[ResourceStore, str, str]
"""A stored object: its store, namespace and name."""


class GarbageCollector:
    """Collects the dependents of deleted owners for `api` (a ServedAPI)."""

    def __init__(self, api: Any):
        self.api = api
        self.dependents: dict[str, set[str]] = defaultdict(set)
        """owner uid -> keys of the objects that name it."""
        self.objects: dict[str, tuple[Ref, dict[str, Any]]] = {}
        """key -> (where it is, the object) of every object that has owners or dependents."""
        self.uids: dict[str, str] = {}
        """uid -> key, of every object seen."""
        self._indexed_endpoints: Any = None
        self._by_prefix: list[tuple[str, ResourceStore]] = []
        self._thread = threading.Thread(target=self._run, name="kgen-garbage-collector", daemon=True)

    def start(self) -> None:
        self._thread.start()

    # -- following the store ---------------------------------------------------------------------

    def _prefixes(self) -> list[tuple[str, ResourceStore]]:
        """Each resource's store by its key prefix, longest first (made again when the served
        endpoints change: a CRD was written)."""
        endpoints = self.api.endpoints
        if endpoints is not self._indexed_endpoints:
            stores = {endpoint.store.prefix: endpoint.store for endpoint in endpoints.values()}
            self._by_prefix = sorted(stores.items(), key=lambda item: -len(item[0]))
            self._indexed_endpoints = endpoints
        return self._by_prefix

    def _where(self, key: str) -> Ref | None:
        for prefix, store in self._prefixes():
            if key.startswith(prefix):
                rest = key[len(prefix) :].split("/")
                return (store, rest[0], rest[1]) if len(rest) == 2 else (store, "", rest[0])
        return None

    def _run(self) -> None:
        cache = self.api.engine.watch_cache
        try:
            cache.start()
        except Exception:  # noqa: BLE001 - a store that cannot feed changes has nothing to collect
            _log.exception("garbage collection cannot follow the store")
            return
        while not self.api.stopping.is_set():
            revision = cache.revision
            try:
                self._index_all()
                while not self.api.stopping.is_set():
                    cache.wait(revision, 0.5)
                    events, revision = cache.events_after(revision)
                    for event in events:
                        self._on(event)
            except TooOld:
                continue  # fell behind: index everything again
            except CacheClosed:
                return
            except Exception:  # noqa: BLE001 - the collector keeps collecting, as a controller does
                _log.exception("garbage collection failed; starting over")
                self.api.stopping.wait(1.0)

    def _index_all(self) -> None:
        self.dependents.clear()
        self.objects.clear()
        self.uids.clear()
        seen = set()
        for endpoint in list(self.api.endpoints.values()):
            if id(endpoint.store) in seen:
                continue
            seen.add(id(endpoint.store))
            for obj in endpoint.store.list()["items"]:
                metadata = obj.get("metadata") or {}
                key = endpoint.store.key(metadata.get("name", ""), metadata.get("namespace", ""))
                self._remember(key, obj)
        for key, (_, obj) in list(self.objects.items()):
            self._settle(key, obj)

    def _remember(self, key: str, obj: dict[str, Any]) -> None:
        metadata = obj.get("metadata") or {}
        uid = metadata.get("uid", "")
        if uid:
            self.uids[uid] = key
        owners = self._owner_uids(obj)
        for owner in owners:
            self.dependents[owner].add(key)
        if owners or uid in self.dependents or _collecting(obj):
            where = self._where(key)
            if where is not None:
                self.objects[key] = (where, obj)

    def _forget(self, key: str, obj: dict[str, Any]) -> None:
        uid = (obj.get("metadata") or {}).get("uid", "")
        self.uids.pop(uid, None)
        self.objects.pop(key, None)
        for owner in self._owner_uids(obj):
            self.dependents[owner].discard(key)
            if not self.dependents[owner]:
                del self.dependents[owner]

    @staticmethod
    def _owner_uids(obj: dict[str, Any]) -> list[str]:
        return [r.get("uid", "") for r in (obj.get("metadata") or {}).get("ownerReferences") or [] if r.get("uid")]

    def _on(self, event: Any) -> None:
        before = event.prev_object
        if before is not None:
            self._forget(event.key, before)
        after = event.object
        if after is not None:
            self._remember(event.key, after)
            self._settle(event.key, after)
        elif before is not None:
            self._gone(before)

    # -- collecting -------------------------------------------------------------------------------

    def _gone(self, owner: dict[str, Any]) -> None:
        """An object was deleted: its dependents lose it, and go when they have no owner left."""
        uid = (owner.get("metadata") or {}).get("uid", "")
        for key in sorted(self.dependents.get(uid, ())):
            if key not in self.objects:
                continue
            (store, namespace, name), dependent = self.objects[key]
            living = [o for o in self._owner_uids(dependent) if o != uid and o in self.uids]
            if living:
                self._drop_reference(store, namespace, name, uid)
            else:
                self._delete(store, namespace, name, None)
        # An owner in foreground deletion may be waiting for this one.
        for owner_uid in self._owner_uids(owner):
            self._finish_foreground(owner_uid)

    def _settle(self, key: str, obj: dict[str, Any]) -> None:
        """An object being deleted with the orphan or foreground finalizer."""
        metadata = obj.get("metadata") or {}
        if not metadata.get("deletionTimestamp"):
            return
        finalizers = metadata.get("finalizers") or []
        uid = metadata.get("uid", "")
        if FINALIZER_ORPHAN in finalizers:
            for dependent_key in sorted(self.dependents.get(uid, ())):
                if dependent_key in self.objects:
                    (store, namespace, name), _ = self.objects[dependent_key]
                    self._drop_reference(store, namespace, name, uid)
            self._remove_finalizer(key, FINALIZER_ORPHAN)
        elif FINALIZER_FOREGROUND in finalizers:
            for dependent_key in sorted(self.dependents.get(uid, ())):
                if dependent_key in self.objects:
                    (store, namespace, name), dependent = self.objects[dependent_key]
                    if not (dependent.get("metadata") or {}).get("deletionTimestamp"):
                        self._delete(store, namespace, name, "Foreground")
            self._finish_foreground(uid)

    def _finish_foreground(self, uid: str) -> None:
        key = self.uids.get(uid)
        if key is None or key not in self.objects or self.dependents.get(uid):
            return
        _, owner = self.objects[key]
        metadata = owner.get("metadata") or {}
        if metadata.get("deletionTimestamp") and FINALIZER_FOREGROUND in (metadata.get("finalizers") or []):
            self._remove_finalizer(key, FINALIZER_FOREGROUND)

    def _remove_finalizer(self, key: str, finalizer: str) -> None:
        where = self._where(key)
        if where is None:
            return
        store, namespace, name = where

        def without(current: dict[str, Any] | None) -> dict[str, Any]:
            if current is None:
                raise APIError(404, "NotFound", "gone")
            metadata = current["metadata"]
            metadata["finalizers"] = [f for f in metadata.get("finalizers") or [] if f != finalizer]
            return current

        self._quietly(lambda: store.guaranteed_update(name, namespace, without))

    def _drop_reference(self, store: ResourceStore, namespace: str, name: str, uid: str) -> None:
        def without(current: dict[str, Any] | None) -> dict[str, Any]:
            if current is None:
                raise APIError(404, "NotFound", "gone")
            metadata = current["metadata"]
            references = [r for r in metadata.get("ownerReferences") or [] if r.get("uid") != uid]
            if references:
                metadata["ownerReferences"] = references
            else:
                metadata.pop("ownerReferences", None)
            return current

        self._quietly(lambda: store.guaranteed_update(name, namespace, without))

    def _delete(self, store: ResourceStore, namespace: str, name: str, policy: str | None) -> None:
        self._quietly(lambda: store.delete(name, namespace, propagation_policy=policy))

    @staticmethod
    def _quietly(action: Any) -> None:
        try:
            action()
        except APIError as error:
            if error.code not in (404, 409):
                _log.warning("garbage collection: %s", error.message)


def _collecting(obj: dict[str, Any]) -> bool:
    metadata = obj.get("metadata") or {}
    return bool(metadata.get("deletionTimestamp")) and bool(
        {FINALIZER_ORPHAN, FINALIZER_FOREGROUND} & set(metadata.get("finalizers") or [])
    )
