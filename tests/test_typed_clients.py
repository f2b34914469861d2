"""The generated typed clients, sync and async, against `kgen serve` over HTTP and against the
fake cluster in process: one suite, two backends, each on both model backends (the server
serves, and the client sends and receives, pydantic models or msgspec structs). Every verb
and option, paging across writes, watch resume and relist after 410, apply conflicts, dry
run, the exception types, and informers."""

from __future__ import annotations

import asyncio
import importlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from kgen.runtime.client import (
    AlreadyExists,
    load_kubeconfig,
    Conflict,
    Expired,
    Invalid,
    NotFound,
    Transport,
    UnsupportedMediaType,
    retry_on_conflict,
)
from kgen.runtime.client.informer import AsyncInformer, Informer
from kgen.runtime.client.watch import ADDED, DELETED, MODIFIED
from kgen.runtime.scheme import APIError
from tests.serve_fixtures import MODELS, ExampleAPI, example_api


class Backend:
    """A way to reach an API server of the example API, and the example's models and client
    on the server's model backend."""

    def __init__(self, name: str, example: ExampleAPI):
        self.name = name
        self.example = example
        self.server = None
        self.cluster = None
        self.v1: Any = importlib.import_module(f"{example.package}.example.v1.models")
        self.client: Any = importlib.import_module(f"{example.package}.example.v1.client")
        runtime = "kgen.runtime.apimachinery" if example.models == "pydantic" else "kgen.runtime.apimachinery_structs"
        self.object_meta: Any = importlib.import_module(f"{runtime}.meta.v1.models").ObjectMeta

    def meta(self, name: str, **fields: Any) -> Any:
        """ObjectMeta of the models' backend."""
        return self.object_meta(name=name, **fields)

    def frobber(self, name: str, replicas: int = 1, labels: dict[str, str] | None = None, namespace: str = "") -> Any:
        """A v1 Frobber of the models' backend."""
        meta = self.meta(name, labels=labels, namespace=namespace) if labels else self.meta(name, namespace=namespace)
        return self.v1.Frobber(metadata=meta, spec=self.v1.FrobberSpec(replicas=replicas, params=["a"]))

    def start(self) -> None:
        if self.name == "serve":
            import tempfile

            from tests.serve_fixtures import ServeProcess

            self.path = Path(tempfile.mkdtemp(prefix="kgen-clients-")) / "store.db"
            self.server = ServeProcess("--compaction-interval", "0", storage=f"sqlite:{self.path}", cwd=REPO, config=self.example.config).start()
        else:
            from kgen.serve.fake import FakeCluster

            self.cluster = FakeCluster(config=self.example.config)

    def transport(self) -> Transport:
        if self.server is not None:
            return Transport(load_kubeconfig(self.server.kubeconfig, namespace="default"), rate_limiter=None)
        return self.cluster.transport()

    def async_transport(self):
        from kgen.runtime.client import AsyncTransport

        if self.server is not None:
            return AsyncTransport(load_kubeconfig(self.server.kubeconfig, namespace="default"), rate_limiter=None)
        return self.cluster.async_transport()

    def compact(self) -> None:
        """Make every older resource version gone (410)."""
        if self.server is not None:
            # as another API server's compactor would: through a backend of its own on the store
            from kgen.runtime.store import SqliteBackend

            store = SqliteBackend(str(self.path))
            try:
                store.compact(store.current_revision())
            finally:
                store.close()
            return
        self.cluster.engine.compact(self.cluster.engine.current_revision())

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self.cluster is not None:
            self.cluster.close()


@pytest.fixture(scope="module", params=[(server, models) for models in MODELS for server in ("fake", "serve")], ids="-".join)
def backend(request) -> Iterator[Backend]:
    server, models = request.param
    found = Backend(server, example_api(request, models))
    found.start()
    yield found
    found.stop()


_names = iter(range(1_000_000))


def unique(prefix: str) -> str:
    return f"{prefix}-{next(_names)}"


@pytest.fixture
def frobbers(backend):
    client = backend.client.Client(backend.transport())
    yield client.frobbers("default")
    client.transport.close()


def test_the_server_works_on_the_models_of_its_backend(backend):
    if backend.cluster is not None:
        flow = backend.cluster.api.endpoint("example.kgen.dev", "v1", "frobbers").flow
        # A custom resource: its conversions (standing in for the webhook) run on the typed models.
        assert flow.typed.storage_class.__module__ == f"{backend.example.package}.example.v1.models"
    else:
        assert f"models: {backend.example.models})" in backend.server.output()


def test_create_get_update_and_status(backend, frobbers):
    name = unique("crud")
    created = frobbers.create(backend.frobber(name, 2))
    assert created.metadata.uid and created.metadata.resource_version and created.metadata.generation == 1
    got = frobbers.get(name)
    assert got == created and isinstance(got, backend.v1.Frobber)
    with pytest.raises(AlreadyExists):
        frobbers.create(backend.frobber(name))
    got.spec.replicas = 3
    updated = frobbers.update(got)
    assert updated.metadata.generation == 2
    with pytest.raises(Conflict):
        frobbers.update(got)  # stale resourceVersion
    updated.status.phase = "Running"
    status = frobbers.update_status(updated)
    assert status.status.phase == "Running" and status.metadata.generation == 2
    with pytest.raises(NotFound):
        frobbers.get(unique("missing"))


def test_dry_run_writes_nothing(backend, frobbers):
    name = unique("dry")
    made = frobbers.create(backend.frobber(name), dry_run=True)
    assert made.metadata.name == name
    with pytest.raises(NotFound):
        frobbers.get(name)


def test_invalid_objects_raise_invalid_with_causes(backend, frobbers):
    bad = backend.frobber(unique("bad"))
    bad.spec.ports = [backend.v1.FrobberPort(name="Not_A_Name", port=0)]
    with pytest.raises(Invalid) as caught:
        frobbers.create(bad)
    assert caught.value.code == 422 and caught.value.causes


def test_patches_of_every_type(backend, frobbers):
    name = unique("patch")
    frobbers.create(backend.frobber(name))
    assert frobbers.patch(name, {"spec": {"replicas": 5}}).spec.replicas == 5
    assert frobbers.patch(name, [{"op": "replace", "path": "/spec/replicas", "value": 6}], type="json").spec.replicas == 6
    with pytest.raises(UnsupportedMediaType):  # a custom resource: no strategic merge patch
        frobbers.patch(name, {"spec": {"replicas": 7}}, type="strategic")
    patched = frobbers.patch(name, {"metadata": {"labels": {"tier": "gold"}}}, dry_run=True)
    assert patched.metadata.labels == {"tier": "gold"} and not frobbers.get(name).metadata.labels


def test_apply_from_typed_and_partial_objects_with_conflicts(backend, frobbers):
    name = unique("apply")
    applied = frobbers.apply(backend.frobber(name, 2), field_manager="first")
    assert applied.spec.replicas == 2
    assert any(m.manager == "first" for m in applied.metadata.managed_fields)
    partial = {"apiVersion": "example.kgen.dev/v1", "kind": "Frobber", "metadata": {"name": name}, "spec": {"replicas": 4}}
    with pytest.raises(Conflict) as caught:
        frobbers.apply(partial, field_manager="second")
    assert "first" in str(caught.value) and caught.value.causes
    forced = frobbers.apply(partial, field_manager="second", force=True)
    assert forced.spec.replicas == 4


def test_list_iter_and_selectors(backend, frobbers):
    tag = unique("sel")
    for i in range(7):
        frobbers.create(backend.frobber(f"{tag}-{i}", labels={"batch": tag, "parity": "even" if i % 2 == 0 else "odd"}))
    listed = frobbers.list(label_selector=f"batch={tag}")
    assert len(listed.items) == 7 and listed.metadata.resource_version
    assert {f.metadata.name for f in frobbers.list(label_selector=f"batch={tag},parity=odd").items} == {f"{tag}-{i}" for i in (1, 3, 5)}
    assert [f.metadata.name for f in frobbers.list(field_selector=f"metadata.name={tag}-3").items] == [f"{tag}-3"]
    page = frobbers.list(label_selector=f"batch={tag}", limit=3)
    # under a selector the API server does not count what remains
    assert len(page.items) == 3 and page.metadata.continue_ and page.metadata.remaining_item_count is None
    names = []
    for i, item in enumerate(frobbers.iter(label_selector=f"batch={tag}", limit=2)):
        names.append(item.metadata.name)
        if i == 1:  # a write between pages: the pages go on at the first page's version
            frobbers.create(backend.frobber(f"{tag}-late", labels={"batch": tag}))
    assert sorted(names) == sorted(f"{tag}-{i}" for i in range(7))


def test_expired_continue_restarts_or_raises(backend, frobbers):
    tag = unique("exp")
    for i in range(4):
        frobbers.create(backend.frobber(f"{tag}-{i}", labels={"batch": tag}))
    page = frobbers.list(label_selector=f"batch={tag}", limit=2)
    frobbers.create(backend.frobber(unique("bump")))
    backend.compact()
    with pytest.raises(Expired):
        frobbers.list(label_selector=f"batch={tag}", limit=2, continue_=page.metadata.continue_)


def test_delete_with_finalizer_and_preconditions(backend, frobbers):
    name = unique("del")
    made = backend.frobber(name)
    made.metadata.finalizers = ["example.kgen.dev/hold"]
    created = frobbers.create(made)
    with pytest.raises(Conflict):
        frobbers.delete(name, precondition_uid="not-the-uid")
    kept = frobbers.delete(name)
    assert kept is not None and kept.metadata.deletion_timestamp is not None
    frobbers.patch(name, {"metadata": {"finalizers": None}})
    with pytest.raises(NotFound):
        frobbers.get(name)
    other = unique("gone")
    frobbers.create(backend.frobber(other))
    last = frobbers.delete(other, precondition_resource_version=frobbers.get(other).metadata.resource_version)
    assert last is None  # a custom resource that is gone is answered with a Status Success, not the object
    with pytest.raises(NotFound):
        frobbers.get(other)
    assert created.metadata.uid


def test_delete_collection(backend, frobbers):
    tag = unique("coll")
    for i in range(3):
        frobbers.create(backend.frobber(f"{tag}-{i}", labels={"batch": tag}))
    frobbers.delete_collection(label_selector=f"batch={tag}")
    assert frobbers.list(label_selector=f"batch={tag}").items == []


def test_watch_events_resume_and_relist_after_410(backend, frobbers):
    tag = unique("watch")
    start = frobbers.list().metadata.resource_version
    seen: list[tuple[str, str]] = []
    relisted = []
    done = threading.Event()

    def watch() -> None:
        for event in frobbers.watch(label_selector=f"batch={tag}", resource_version=start, on_relist=relisted.append):
            seen.append((event.type, event.object.metadata.name))
            if (DELETED, f"{tag}-a") in seen and (ADDED, f"{tag}-b") in seen:
                done.set()
                return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    frobbers.create(backend.frobber(f"{tag}-a", labels={"batch": tag}))
    frobbers.patch(f"{tag}-a", {"spec": {"replicas": 9}})
    frobbers.delete(f"{tag}-a")
    frobbers.create(backend.frobber(f"{tag}-b", labels={"batch": tag}))
    assert done.wait(20), seen
    assert seen[:3] == [(ADDED, f"{tag}-a"), (MODIFIED, f"{tag}-a"), (DELETED, f"{tag}-a")]
    # a version compacted away: the watch lists again and says so
    old = frobbers.list().metadata.resource_version
    frobbers.create(backend.frobber(unique("bump")))
    backend.compact()
    after = list(frobbers.watch(label_selector=f"batch={tag}", resource_version=old, timeout_seconds=1,
                                on_relist=relisted.append))  # fmt: skip
    # the list replaced the lost history; the watch went on from its version (nothing changed since)
    assert relisted and [f.metadata.name for f in relisted[-1].items] == [f"{tag}-b"] and after == []
    with pytest.raises(Expired):
        next(iter(frobbers.watch(resource_version=old, on_gone="raise")))


def test_retry_on_conflict_for_read_modify_write(backend, frobbers):
    name = unique("rmw")
    frobbers.create(backend.frobber(name))
    errors = []

    def bump() -> None:
        def attempt() -> Any:
            current = frobbers.get(name)
            current.spec.replicas = (current.spec.replicas or 0) + 1
            return frobbers.update(current)

        try:
            retry_on_conflict(attempt)
        except Exception as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and frobbers.get(name).spec.replicas == 5


def test_cluster_scoped_clients_have_no_namespace(backend):
    client = backend.client.Client(backend.transport())
    classes = client.frobberclasses()
    name = unique("class")
    made = classes.create(backend.v1.FrobberClass(metadata=backend.meta(name), controller="example.kgen.dev/frobber"))
    assert made.metadata.namespace == "" and classes.get(name).metadata.name == name
    with pytest.raises(ValueError, match="cluster-scoped"):
        backend.client.FrobberClassClient(backend.transport(), "default")


def test_async_client_does_the_same(backend):
    async def run() -> None:
        client = backend.client.AsyncClient(backend.async_transport())
        frobbers = client.frobbers("default")
        name = unique("async")
        created = await frobbers.create(backend.frobber(name, 2))
        assert (await frobbers.get(name)).spec.replicas == 2
        with pytest.raises(AlreadyExists):
            await frobbers.create(backend.frobber(name))
        assert (await frobbers.patch(name, {"spec": {"replicas": 3}})).spec.replicas == 3
        names = [f.metadata.name async for f in frobbers.iter(limit=1) if f.metadata.name == name]
        assert names == [name]
        seen = []
        async for event in frobbers.watch(resource_version=created.metadata.resource_version, field_selector=f"metadata.name={name}"):
            seen.append(event.type)
            if event.type == MODIFIED:
                break
        assert seen == [MODIFIED]
        await frobbers.delete(name)
        with pytest.raises(NotFound):
            await frobbers.get(name)
        await client.transport.aclose()

    asyncio.run(run())


@pytest.mark.slow
def test_informer_converges_and_accounts_for_every_call(backend):
    client = backend.client.Client(backend.transport())
    frobbers = client.frobbers("default")
    tag = unique("inf")
    for i in range(40):
        frobbers.create(backend.frobber(f"{tag}-{i}", labels={"batch": tag}))
    informer = Informer(frobbers, label_selector=f"batch={tag}", page_size=7, retry_delay=0.05)
    calls = {"add": 0, "update": 0, "delete": 0}
    informer.add_handler(
        on_add=lambda o: calls.__setitem__("add", calls["add"] + 1),
        on_update=lambda old, new: calls.__setitem__("update", calls["update"] + 1),
        on_delete=lambda o: calls.__setitem__("delete", calls["delete"] + 1),
    )
    informer.start()
    try:
        assert informer.wait_for_sync(20) and len(informer.lister) == 40
        for i in range(10):
            frobbers.patch(f"{tag}-{i}", {"spec": {"replicas": 10 + i}})
        for i in range(10, 15):
            frobbers.delete(f"{tag}-{i}")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (calls["update"] < 10 or calls["delete"] < 5):
            time.sleep(0.05)
        assert calls == {"add": 40, "update": 10, "delete": 5}
        server = {f.metadata.name: f.metadata.resource_version for f in frobbers.list(label_selector=f"batch={tag}").items}
        cached = {f.metadata.name: f.metadata.resource_version for f in informer.lister.list("default")}
        assert cached == server
        assert [f.metadata.name for f in informer.lister.list(label_selector=f"batch={tag}")][:1] == [f"{tag}-0"]
    finally:
        informer.stop()


def test_reactors_inject_errors_into_the_fake(backend):
    if backend.cluster is None:
        pytest.skip("reactors belong to the fake cluster")
    frobbers = backend.client.Client(backend.transport()).frobbers("default")
    backend.cluster.add_reactor("create", "frobbers", lambda action: APIError(500, "InternalError", "injected"))
    try:
        from kgen.runtime.client import InternalError

        with pytest.raises(InternalError, match="injected"):
            frobbers.create(backend.frobber(unique("react")))
    finally:
        backend.cluster.reactors.clear()
    assert any(a.verb == "create" and a.resource == "frobbers" for a in backend.cluster.actions)
    frobbers.create(backend.frobber(unique("after")))


def test_async_informer(backend):
    async def run() -> None:
        frobbers = backend.client.AsyncClient(backend.async_transport()).frobbers("default")
        tag = unique("ainf")
        for i in range(5):
            await frobbers.create(backend.frobber(f"{tag}-{i}", labels={"batch": tag}))
        informer = AsyncInformer(frobbers, label_selector=f"batch={tag}")
        added = []
        informer.add_handler(on_add=lambda o: added.append(o.metadata.name))
        informer.start()
        assert await informer.wait_for_sync(20)
        await frobbers.create(backend.frobber(f"{tag}-new", labels={"batch": tag}))
        for _ in range(200):
            if len(added) == 6:
                break
            await asyncio.sleep(0.05)
        await informer.stop()
        assert sorted(added) == sorted([f"{tag}-{i}" for i in range(5)] + [f"{tag}-new"])

    asyncio.run(run())


def test_strategic_merge_is_refused_for_a_custom_resource_as_a_cluster_refuses_it(backend, frobbers):
    """A Frobber is a custom resource (its CRD is generated): the apiextensions-apiserver
    takes JSON patch, merge patch and apply, and answers a strategic merge patch 415."""
    name = unique("smp")
    frobbers.create(backend.frobber(name))
    with pytest.raises(UnsupportedMediaType) as refused:
        frobbers.patch(name, {"spec": {"replicas": 2}}, type="strategic")
    assert "application/strategic-merge-patch+json" not in str(refused.value)
    assert frobbers.patch(name, {"spec": {"replicas": 2}}, type="merge").spec.replicas == 2


@pytest.mark.slow
def test_informer_of_1000_objects_through_updates_and_a_forced_410(backend):
    """1,000 objects, 50 updates while watching, and a watch refused with 410 Expired in the
    middle: the cache ends equal to the server's state, and every handler call is accounted
    for (one add per object, one update per change, nothing else)."""
    if backend.cluster is None:
        pytest.skip("the 410 is forced by a reactor of the fake cluster")
    frobbers = backend.client.Client(backend.transport()).frobbers("default")
    tag = unique("big")
    for i in range(1000):
        frobbers.create(backend.frobber(f"{tag}-{i:04}", labels={"batch": tag}))
    informer = Informer(frobbers, label_selector=f"batch={tag}", page_size=250, retry_delay=0.05, watch_timeout=1)
    calls = {"add": 0, "update": 0, "delete": 0}
    updated: set[str] = set()

    def on_update(old: Any, new: Any) -> None:
        calls["update"] += 1
        updated.add(new.metadata.name)

    informer.add_handler(on_add=lambda o: calls.__setitem__("add", calls["add"] + 1), on_update=on_update,
                         on_delete=lambda o: calls.__setitem__("delete", calls["delete"] + 1))  # fmt: skip
    informer.start()
    try:
        assert informer.wait_for_sync(30) and len(informer.lister) == 1000
        for i in range(25):
            frobbers.patch(f"{tag}-{i:04}", {"spec": {"replicas": 100 + i}})
        refused = []

        def expire_once(action):
            if action.query.get("labelSelector") == f"batch={tag}" and not refused:
                refused.append(action)
                return APIError(410, "Expired", "too old resource version: 1 (2)")
            return None

        backend.cluster.add_reactor("watch", "frobbers", expire_once)
        for i in range(25, 50):
            frobbers.patch(f"{tag}-{i:04}", {"spec": {"replicas": 100 + i}})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not refused or len(updated) < 50):
            time.sleep(0.05)
        assert refused, "the informer never opened another watch"
        server = {f.metadata.name: f.metadata.resource_version for f in frobbers.iter(label_selector=f"batch={tag}")}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            cached = {f.metadata.name: f.metadata.resource_version for f in informer.lister.list()}
            if cached == server:
                break
            time.sleep(0.05)
        assert cached == server
        assert calls == {"add": 1000, "update": 50, "delete": 0}, calls
        lists = [a for a in backend.cluster.actions if a.verb == "list" and a.query.get("labelSelector") == f"batch={tag}"]
        assert len(lists) >= 2  # the first list, and the list after the 410
    finally:
        backend.cluster.reactors.clear()
        informer.stop()
