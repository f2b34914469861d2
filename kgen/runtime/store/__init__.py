"""The store: the Kubernetes API's storage semantics, shared by `kgen serve` and the fake client.

    backend (bytes and revisions)  memory.MemoryBackend | sqlite.SqliteBackend | etcd.EtcdBackend
    engine (API semantics)         Engine(backend).resource(ResourceInfo(...)) -> ResourceStore
    asyncio                        aio.AsyncResourceStore(resource_store)

A `ResourceStore` creates, gets, lists, updates, deletes and watches JSON objects of one
resource type in its storage version, with resourceVersions, paging snapshots, selectors,
finalizers and watch history as kube-apiserver serves them; errors are `APIError`s.

    from kgen.runtime.store import Engine, MemoryBackend, ResourceInfo

    engine = Engine(MemoryBackend())
    widgets = engine.resource(ResourceInfo("example.com", "v1", "widgets", "Widget"))
    created = widgets.create({"apiVersion": "example.com/v1", "kind": "Widget",
                              "metadata": {"name": "a", "namespace": "default"}})
    for event in widgets.watch("default", resource_version=created["metadata"]["resourceVersion"]):
        ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgen.runtime.store.backend import (
    Backend,
    BackendError,
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
from kgen.runtime.store.engine import DeleteResult, Engine, Preconditions, ResourceStore, Retention, UpdateResult
from kgen.runtime.store.errors import ResourceExpired
from kgen.runtime.store.memory import MemoryBackend
from kgen.runtime.store.resource import DefaultStrategy, ResourceInfo, Strategy, json_copy
from kgen.runtime.store.selectors import (
    FieldSelector,
    LabelSelector,
    SelectorError,
    parse_field_selector,
    parse_label_selector,
)
from kgen.runtime.store.sqlite import SqliteBackend
from kgen.runtime.store.watch import INITIAL_EVENTS_END, Watch, WatchEvent

if TYPE_CHECKING:
    from kgen.runtime.store.etcd import EtcdBackend

__all__ = [
    "Backend",
    "BackendError",
    "BackendWatch",
    "CompactedError",
    "DefaultStrategy",
    "DeleteResult",
    "Engine",
    "Event",
    "EventType",
    "FieldSelector",
    "FutureRevisionError",
    "INITIAL_EVENTS_END",
    "KeyExistsError",
    "KeyNotFoundError",
    "KeyValue",
    "LabelSelector",
    "MemoryBackend",
    "Preconditions",
    "RangeResult",
    "ResourceExpired",
    "ResourceInfo",
    "ResourceStore",
    "Retention",
    "RevisionMismatchError",
    "SelectorError",
    "SqliteBackend",
    "Strategy",
    "UnavailableError",
    "UpdateResult",
    "Watch",
    "WatchBatch",
    "WatchEvent",
    "json_copy",
    "parse_field_selector",
    "parse_label_selector",
]


def __getattr__(name: str) -> type[EtcdBackend]:
    # The etcd backend imports httpx; load it only when asked for.
    if name == "EtcdBackend":
        from kgen.runtime.store.etcd import EtcdBackend

        return EtcdBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
