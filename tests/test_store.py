"""The store engine on every backend: the API concepts' resourceVersion tables for get and
list, paging snapshots, continue tokens, watch (resume, 410, bookmarks, initial events,
selectors), finalizers, preconditions, dryRun, generation, and concurrent writers."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
import uuid

import pytest

from kgen.runtime.scheme import APIError
from kgen.runtime.store import (
    INITIAL_EVENTS_END,
    CompactedError,
    DefaultStrategy,
    Engine,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    MemoryBackend,
    Preconditions,
    ResourceExpired,
    ResourceInfo,
    Retention,
    RevisionMismatchError,
    SqliteBackend,
    UnavailableError,
)
from kgen.runtime.store import errors as store_errors
from kgen.runtime.store.aio import AsyncResourceStore
from tests.store_fixtures import backend, engine, etcd_server  # noqa: F401

WIDGETS = ResourceInfo("example.com", "v1", "widgets", "Widget", has_status=True, selectable_fields=(".spec.color",))
GADGETS = ResourceInfo("example.com", "v1", "gadgets", "Gadget", namespaced=False)


def widget(name: str, namespace: str = "default", *, labels=None, color: str = "red", **metadata) -> dict:
    meta = {"name": name, "namespace": namespace, **metadata}
    if labels is not None:
        meta["labels"] = labels
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta, "spec": {"color": color}}


def rv(obj: dict) -> int:
    return int(obj["metadata"]["resourceVersion"])


def fails(call, *args, **kwargs) -> APIError:
    with pytest.raises(APIError) as info:
        call(*args, **kwargs)
    return info.value


def names(listed: dict) -> list[str]:
    return [item["metadata"]["name"] for item in listed["items"]]


def events(watch, count: int, timeout: float = 5.0, bookmarks: bool = False) -> list:
    """The next `count` events (BOOKMARKs skipped unless asked for)."""
    out, deadline = [], time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        event = watch.next_event(timeout=max(deadline - time.monotonic(), 0.01))
        if event is None:
            if watch.done:
                break
            continue
        if event.type != "BOOKMARK" or bookmarks:
            out.append(event)
    return out


def summary(watch_events) -> list[tuple[str, str]]:
    return [(e.type, e.object["metadata"].get("name", "")) for e in watch_events]


@pytest.fixture
def widgets(engine):
    return engine.resource(WIDGETS)


# -- backends ------------------------------------------------------------------------------


def test_backend_revisions_history_and_compaction(backend):
    prefix = f"/{uuid.uuid4().hex}/"
    first = backend.create(prefix + "a", b"1")
    assert first.create_revision == first.mod_revision
    with pytest.raises(KeyExistsError):
        backend.create(prefix + "a", b"x")
    second = backend.update(prefix + "a", b"2", first.mod_revision)
    with pytest.raises(RevisionMismatchError) as mismatch:
        backend.update(prefix + "a", b"3", first.mod_revision)
    assert mismatch.value.current.value == b"2"
    backend.create(prefix + "b", b"1")
    deleted, deletion = backend.delete(prefix + "a")
    assert deleted.value == b"2" and deletion == backend.current_revision()
    with pytest.raises(KeyNotFoundError):
        backend.delete(prefix + "a")
    # The past stays readable: at `second`, a was 2 and b did not exist.
    past = backend.range(prefix, revision=second.mod_revision)
    assert [(kv.key[-1], kv.value) for kv in past.kvs] == [("a", b"2")] and past.revision == second.mod_revision
    now = backend.range(prefix)
    assert [kv.key[-1] for kv in now.kvs] == ["b"]
    limited = backend.range(prefix, revision=second.mod_revision + 1, limit=1)
    assert limited.count == 2 and limited.more and len(limited.kvs) == 1
    with pytest.raises(FutureRevisionError):
        backend.range(prefix, revision=backend.current_revision() + 10)
    # The change feed replays history with previous values.
    with backend.watch(prefix, first.mod_revision) as feed:
        seen = []
        while len(seen) < 4:
            batch = feed.next(timeout=5)
            assert batch is not None
            seen += batch.events
    assert [(e.type.value, e.key[-1], e.value, e.prev_value) for e in seen] == [
        ("PUT", "a", b"1", None),
        ("PUT", "a", b"2", b"1"),
        ("PUT", "b", b"1", None),
        ("DELETE", "a", None, b"2"),
    ]
    backend.compact(deletion)
    with pytest.raises(CompactedError):
        backend.range(prefix, revision=second.mod_revision)
    assert [kv.key[-1] for kv in backend.range(prefix, revision=deletion).kvs] == ["b"]
    with pytest.raises(CompactedError):
        backend.watch(prefix, deletion)


def test_concurrent_compare_and_swap_commits_each_write_once(backend):
    key = f"/{uuid.uuid4().hex}/counter"
    backend.create(key, b"0")
    wins, losses = [], []

    def writer():
        for _ in range(15):
            kv, _ = backend.get(key)
            try:
                stored = backend.update(key, str(int(kv.value) + 1).encode(), kv.mod_revision)
                wins.append(stored.mod_revision)
            except RevisionMismatchError:
                losses.append(1)

    threads = [threading.Thread(target=writer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kv, _ = backend.get(key)
    assert int(kv.value) == len(wins) == len(set(wins)) and len(wins) + len(losses) == 90


# -- create --------------------------------------------------------------------------------


def test_create_sets_server_fields(engine, widgets):
    obj = widget("a", labels={"app": "web"}) | {"status": {"ready": True}}
    created = widgets.create(obj)
    meta = created["metadata"]
    assert meta["uid"] and meta["creationTimestamp"].endswith("Z") and meta["generation"] == 1
    assert rv(created) == engine.current_revision()
    assert "status" not in created  # create cannot set status when /status exists
    assert "uid" not in obj["metadata"]  # the caller's object is not changed
    assert widgets.get("a", "default") == created
    gadget = engine.resource(GADGETS).create({"metadata": {"name": "g", "namespace": "ignored"}})
    assert "namespace" not in gadget["metadata"]


def test_create_conflicts_and_generated_names(widgets):
    widgets.create(widget("a"))
    error = fails(widgets.create, widget("a"))
    assert (error.code, error.reason, error.message) == (409, "AlreadyExists", 'widgets.example.com "a" already exists')
    assert error.details == {"name": "a", "group": "example.com", "kind": "widgets"}
    generated = widgets.create({"metadata": {"generateName": "w-", "namespace": "default"}})
    name = generated["metadata"]["name"]
    assert name.startswith("w-") and len(name) == 7
    error = fails(widgets.create, widget("b", resourceVersion="5"))
    assert error.code == 500 and error.message == "resourceVersion should not be set on objects to be created"
    error = fails(widgets.create, {"metadata": {"namespace": "default"}})
    assert error.code == 422 and "metadata.name: Required value: name or generateName is required" in error.message
    assert fails(widgets.create, widget("x", namespace="")).message == "Namespace parameter required."
    assert fails(widgets.create, widget("a/b")).code == 400


def test_create_dry_run_stores_nothing(widgets):
    preview = widgets.create(widget("a"), dry_run=True)
    assert preview["metadata"]["uid"] and "resourceVersion" not in preview["metadata"]
    assert fails(widgets.get, "a", "default").code == 404
    widgets.create(widget("a"))
    assert fails(widgets.create, widget("a"), dry_run=True).reason == "AlreadyExists"


# -- get and list: the resourceVersion tables ----------------------------------------------


def test_get_resource_version_semantics(engine, widgets):
    created = widgets.create(widget("a"))
    updated = widgets.update(created | {"spec": {"color": "blue"}}).object
    current = engine.current_revision()
    assert widgets.get("a", "default") == updated  # unset: most recent
    assert widgets.get("a", "default", resource_version="0") == updated  # "0": any
    assert widgets.get("a", "default", resource_version=str(rv(created))) == updated  # not older than
    error = fails(widgets.get, "a", "default", resource_version=str(current + 100))
    assert (error.code, error.reason) == (504, "Timeout")
    assert error.message == f"Too large resource version: {current + 100}, current: {current}"
    assert error.causes[0].type == "ResourceVersionTooLarge"
    error = fails(widgets.get, "a", "default", resource_version="abc")
    assert error.code == 400 and error.message.startswith('invalid resource version: resourceVersion: Invalid value: "abc"')
    error = fails(widgets.get, "missing", "default")
    assert (error.code, error.reason, error.message) == (404, "NotFound", 'widgets.example.com "missing" not found')


@pytest.fixture
def history(engine, widgets):
    """Objects a, b at revision `old`; then c created and a updated."""
    widgets.create(widget("a"))
    widgets.create(widget("b"))
    old = engine.current_revision()
    widgets.create(widget("c"))
    widgets.update(widgets.get("a", "default") | {"spec": {"color": "blue"}})
    return old, engine.current_revision()


# (resourceVersionMatch, limit, resourceVersion) -> what the API concepts table says.
LIST_TABLE = [
    ("", 0, "", "most recent"),
    ("", 0, "0", "any"),
    ("", 0, "old", "not older than"),
    ("", 5, "", "most recent"),
    ("", 5, "0", "any"),
    ("", 5, "old", "exact"),
    ("Exact", 0, "", "invalid"),
    ("Exact", 0, "0", "invalid"),
    ("Exact", 0, "old", "exact"),
    ("Exact", 5, "", "invalid"),
    ("Exact", 5, "0", "invalid"),
    ("Exact", 5, "old", "exact"),
    ("NotOlderThan", 0, "", "invalid"),
    ("NotOlderThan", 0, "0", "any"),
    ("NotOlderThan", 0, "old", "not older than"),
    ("NotOlderThan", 5, "", "invalid"),
    ("NotOlderThan", 5, "0", "any"),
    ("NotOlderThan", 5, "old", "not older than"),
]


@pytest.mark.parametrize("match, limit, version, semantics", LIST_TABLE)
def test_list_resource_version_table(widgets, history, match, limit, version, semantics):
    old, current = history
    resource_version = str(old) if version == "old" else version
    call = dict(limit=limit, resource_version=resource_version, resource_version_match=match)
    if semantics == "invalid":
        error = fails(widgets.list, "default", **call)
        assert (error.code, error.reason) == (422, "Invalid")
        assert error.message.startswith('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: ')
        return
    listed = widgets.list("default", **call)
    if semantics == "exact":
        assert names(listed) == ["a", "b"] and listed["metadata"]["resourceVersion"] == str(old)
        assert listed["items"][0]["spec"]["color"] == "red"
    else:  # most recent, any, not older than: this store serves the newest state
        assert names(listed) == ["a", "b", "c"] and listed["metadata"]["resourceVersion"] == str(current)
        assert listed["items"][0]["spec"]["color"] == "blue"


def test_list_resource_version_errors(engine, widgets, history):
    old, current = history
    error = fails(widgets.list, "default", resource_version=str(current + 50))
    assert error.code == 504 and error.message == f"Too large resource version: {current + 50}, current: {current}"
    error = fails(widgets.list, "default", resource_version=str(current + 50), resource_version_match="Exact")
    assert error.code == 504
    error = fails(widgets.list, "default", resource_version="1", resource_version_match="Sometime")
    assert error.code == 422 and 'Unsupported value: "Sometime": supported values: "Exact", "NotOlderThan", ""' in error.message
    page = widgets.list("default", limit=1)
    error = fails(widgets.list, "default", limit=1, continue_token=page["metadata"]["continue"], resource_version=str(old))
    assert (error.code, error.message) == (400, "specifying resource version is not allowed when using continue")
    error = fails(widgets.list, "default", continue_token=page["metadata"]["continue"], resource_version="1", resource_version_match="Exact")
    assert "resourceVersionMatch is forbidden when continue is provided" in error.message
    # rv="0" with a continue token is tolerated: the token's snapshot wins.
    assert names(widgets.list("default", limit=5, continue_token=page["metadata"]["continue"], resource_version="0")) == ["b", "c"]
    engine.compact(current)
    error = fails(widgets.list, "default", limit=5, resource_version=str(old))
    assert (error.code, error.reason, error.message) == (410, "Expired", store_errors.EXPIRED_LIST)


def test_paging_keeps_the_first_page_snapshot(engine, widgets):
    for name in "abcde":
        widgets.create(widget(name))
    first = widgets.list("default", limit=2)
    snapshot = first["metadata"]["resourceVersion"]
    assert names(first) == ["a", "b"] and first["metadata"]["remainingItemCount"] == 3
    # Writes between pages do not show up in later pages.
    widgets.create(widget("bb"))
    widgets.delete("d", "default")
    widgets.update(widgets.get("c", "default") | {"spec": {"color": "blue"}})
    second = widgets.list("default", limit=2, continue_token=first["metadata"]["continue"])
    assert names(second) == ["c", "d"] and second["items"][0]["spec"]["color"] == "red"
    assert second["metadata"]["resourceVersion"] == snapshot and second["metadata"]["remainingItemCount"] == 1
    third = widgets.list("default", limit=2, continue_token=second["metadata"]["continue"])
    assert names(third) == ["e"] and "continue" not in third["metadata"] and "remainingItemCount" not in third["metadata"]
    assert names(widgets.list("default")) == ["a", "b", "bb", "c", "e"]
    # Across namespaces, and with a selector (no remainingItemCount: it would be a guess).
    widgets.create(widget("z", namespace="other", color="blue"))
    everywhere = widgets.list(limit=10)
    assert len(everywhere["items"]) == 6 and "continue" not in everywhere["metadata"]
    blue = widgets.list(field_selector="spec.color=blue", limit=1)
    assert names(blue) == ["c"] and "remainingItemCount" not in blue["metadata"]
    assert names(widgets.list(field_selector="spec.color=blue", limit=1, continue_token=blue["metadata"]["continue"])) == ["z"]


def test_continue_token_expires_after_compaction(engine, widgets):
    for name in "abcd":
        widgets.create(widget(name))
    first = widgets.list("default", limit=2)
    widgets.create(widget("bz"))
    engine.compact(engine.current_revision())
    with pytest.raises(ResourceExpired) as expired:
        widgets.list("default", limit=2, continue_token=first["metadata"]["continue"])
    error = expired.value
    assert (error.code, error.reason, error.message) == (410, "Expired", store_errors.INCONSISTENT_CONTINUE)
    assert error.message.startswith("The provided continue parameter is too old to display a consistent list result.")
    assert error.to_status().metadata.continue_ == error.continue_token
    # The inconsistent token continues at the latest revision, from where the page stopped.
    rest = widgets.list("default", limit=10, continue_token=error.continue_token)
    assert names(rest) == ["bz", "c", "d"] and rest["metadata"]["resourceVersion"] == str(engine.current_revision())


def test_bad_continue_tokens(widgets):
    assert fails(widgets.list, "default", continue_token="!!").message.startswith("invalid continue token: continue key is not valid")
    import base64
    import json

    sneaky = base64.urlsafe_b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": 1, "start": "../../secrets"}).encode())
    assert fails(widgets.list, "default", continue_token=sneaky.decode()).code == 400


# -- selectors ----------------------------------------------------------------------------


SELECTORS = [
    ("app=web", ["w1", "w2"]),
    ("app==web", ["w1", "w2"]),
    ("app!=web", ["d1", "n1"]),
    ("app in (web,db)", ["d1", "w1", "w2"]),
    ("app notin (web)", ["d1", "n1"]),
    ("tier", ["w2"]),
    ("!tier", ["d1", "n1", "w1"]),
    ("app=web,tier=front", ["w2"]),
    ("rank>1", ["w2"]),
    ("rank<2", ["w1"]),
    ("", ["d1", "n1", "w1", "w2"]),
]


@pytest.mark.parametrize("selector, expected", SELECTORS)
def test_label_selectors(widgets, selector, expected):
    widgets.create(widget("w1", labels={"app": "web", "rank": "1"}))
    widgets.create(widget("w2", labels={"app": "web", "tier": "front", "rank": "2"}))
    widgets.create(widget("d1", labels={"app": "db"}))
    widgets.create(widget("n1"))
    assert names(widgets.list("default", label_selector=selector)) == expected


def test_field_selectors(engine, widgets):
    widgets.create(widget("a", color="red"))
    widgets.create(widget("b", color="blue"))
    widgets.create(widget("a", namespace="other", color="blue"))
    assert names(widgets.list(field_selector="metadata.name=a")) == ["a", "a"]
    assert names(widgets.list(field_selector="metadata.namespace=other")) == ["a"]
    assert names(widgets.list("default", field_selector="spec.color!=red")) == ["b"]
    assert names(widgets.list(field_selector="spec.color==blue,metadata.namespace=default")) == ["b"]
    error = fails(widgets.list, field_selector="spec.size=1")
    assert (error.code, error.reason, error.message) == (400, "BadRequest", "field label not supported: spec.size")
    assert fails(engine.resource(GADGETS).list, field_selector="metadata.namespace=x").code == 400
    assert fails(widgets.list, label_selector="app in (a").code == 400
    assert fails(widgets.list, field_selector="nonsense").message == "invalid selector: 'nonsense'; can't understand 'nonsense'"


# -- update --------------------------------------------------------------------------------


def test_update_optimistic_concurrency_and_generation(engine, widgets):
    created = widgets.create(widget("a", labels={"v": "1"}))
    spec_changed = widgets.update(created | {"spec": {"color": "blue"}}).object
    assert spec_changed["metadata"]["generation"] == 2 and rv(spec_changed) > rv(created)
    error = fails(widgets.update, created | {"spec": {"color": "green"}})
    assert (error.code, error.reason) == (409, "Conflict")
    assert error.message == (
        'Operation cannot be fulfilled on widgets.example.com "a": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    labels_changed = widgets.update(spec_changed | {"metadata": spec_changed["metadata"] | {"labels": {"v": "2"}}}).object
    assert labels_changed["metadata"]["generation"] == 2
    # No resourceVersion: an unconditional update.
    unconditional = dict(labels_changed)
    unconditional["metadata"] = {k: v for k, v in labels_changed["metadata"].items() if k != "resourceVersion"}
    unconditional["spec"] = {"color": "green"}
    assert widgets.update(unconditional).object["metadata"]["generation"] == 3
    # Server fields cannot be changed; a uid that is not the object's is a failed precondition.
    current = widgets.get("a", "default")
    forged = current | {"metadata": current["metadata"] | {"creationTimestamp": "2000-01-01T00:00:00Z"}}
    assert widgets.update(forged).object["metadata"]["creationTimestamp"] == current["metadata"]["creationTimestamp"]
    current = widgets.get("a", "default")
    error = fails(widgets.update, current | {"metadata": current["metadata"] | {"uid": "other"}})
    assert error.code == 409 and "Precondition failed: UID in precondition: other" in error.message
    # A no-op update writes nothing.
    revision = engine.current_revision()
    assert widgets.update(current).object == current and engine.current_revision() == revision
    # dryRun computes the result but stores nothing.
    preview = widgets.update(current | {"spec": {"color": "pink"}}, dry_run=True).object
    assert preview["spec"]["color"] == "pink" and widgets.get("a", "default")["spec"]["color"] == "green"
    assert fails(widgets.update, widget("missing")).code == 404


def test_status_subresource_keeps_the_other_half(widgets):
    created = widgets.create(widget("a"))
    with_status = widgets.update(created | {"status": {"phase": "Ready"}}, subresource="status").object
    assert with_status["status"] == {"phase": "Ready"} and with_status["metadata"]["generation"] == 1
    ignored_spec = with_status | {"spec": {"color": "blue"}, "status": {"phase": "Broken"}}
    after_status = widgets.update(ignored_spec, subresource="status").object
    assert after_status["spec"]["color"] == "red" and after_status["status"] == {"phase": "Broken"}
    ignored_status = after_status | {"spec": {"color": "blue"}, "status": {"phase": "Hacked"}}
    after_main = widgets.update(ignored_status).object
    assert after_main["spec"]["color"] == "blue" and after_main["status"] == {"phase": "Broken"}
    assert after_main["metadata"]["generation"] == 2


def test_create_on_update_and_guaranteed_update(engine):
    info = ResourceInfo("example.com", "v1", "things", "Thing", allow_create_on_update=True)
    things = engine.resource(info)
    result = things.update(widget("t"))
    assert result.created and rv(result.object) > 0
    bumped = things.guaranteed_update("t", "default", lambda obj: obj | {"spec": {"color": "blue"}})
    assert not bumped.created and bumped.object["spec"]["color"] == "blue"


def test_strategy_hooks_shape_and_refuse_writes(engine):
    class NoBlue(DefaultStrategy):
        def prepare_for_create(self, obj):
            super().prepare_for_create(obj)
            obj["metadata"].setdefault("labels", {})["stamped"] = "yes"

        def validate_update(self, obj, old):
            if obj["spec"]["color"] == "blue":
                raise APIError(422, "Invalid", "blue is not allowed")

    widgets = engine.resource(WIDGETS, NoBlue(WIDGETS))
    created = widgets.create(widget("a"))
    assert created["metadata"]["labels"] == {"stamped": "yes"}
    assert fails(widgets.update, created | {"spec": {"color": "blue"}}).message == "blue is not allowed"
    assert widgets.get("a", "default")["spec"]["color"] == "red"


def test_cluster_scoped_resources(engine):
    gadgets = engine.resource(GADGETS)
    gadgets.create({"metadata": {"name": "g1"}})
    gadgets.create({"metadata": {"name": "g2", "labels": {"x": "1"}}})
    assert names(gadgets.list()) == ["g1", "g2"] and names(gadgets.list(label_selector="x")) == ["g2"]
    assert gadgets.get("g1")["metadata"]["name"] == "g1"
    assert gadgets.delete("g1").deleted and names(gadgets.list()) == ["g2"]


# -- delete --------------------------------------------------------------------------------


def test_delete_returns_the_object_with_the_deletion_revision(engine, widgets):
    created = widgets.create(widget("a"))
    result = widgets.delete("a", "default")
    assert result.deleted and result.status_code == 200
    assert result.object["metadata"]["uid"] == created["metadata"]["uid"] and rv(result.object) == engine.current_revision()
    assert fails(widgets.get, "a", "default").code == 404
    assert fails(widgets.delete, "a", "default").code == 404


def test_delete_preconditions(widgets):
    created = widgets.create(widget("a"))
    error = fails(widgets.delete, "a", "default", preconditions=Preconditions(uid="nope"))
    assert (error.code, error.reason) == (409, "Conflict")
    # BeforeDelete's check (registry/rest/delete.go): the Conflict is qualified by the kind.
    assert error.message == (
        'Operation cannot be fulfilled on Widget.example.com "a": the UID in the precondition (nope) does not match '
        f"the UID in record ({created['metadata']['uid']}). The object might have been deleted and then recreated"
    )
    assert error.details == {"name": "a", "group": "example.com", "kind": "Widget"}
    error = fails(widgets.delete, "a", "default", preconditions=Preconditions(resource_version="1"))
    assert error.message == (
        'Operation cannot be fulfilled on Widget.example.com "a": the ResourceVersion in the precondition (1) does not '
        f"match the ResourceVersion in record ({created['metadata']['resourceVersion']}). The object might have been "
        "modified"
    )
    match = Preconditions(uid=created["metadata"]["uid"], resource_version=created["metadata"]["resourceVersion"])
    assert widgets.delete("a", "default", preconditions=match).deleted


def test_finalizers_hold_the_object_until_the_last_is_removed(engine, widgets):
    created = widgets.create(widget("a", finalizers=["example.com/cleanup"]))
    watch = widgets.watch("default", resource_version=created["metadata"]["resourceVersion"])
    result = widgets.delete("a", "default")
    assert not result.deleted and result.status_code == 200
    meta = result.object["metadata"]
    assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 0 and meta["generation"] == 2
    assert widgets.get("a", "default") == result.object
    revision = engine.current_revision()
    assert widgets.delete("a", "default").object == result.object and engine.current_revision() == revision
    other = widgets.create(widget("b"))
    error = fails(widgets.update, other | {"metadata": other["metadata"] | {"deletionTimestamp": meta["deletionTimestamp"]}})
    assert error.code == 422 and "metadata.deletionTimestamp: Invalid value" in error.message
    error = fails(widgets.update, result.object | {"metadata": meta | {"finalizers": ["example.com/cleanup", "more"]}})
    assert error.code == 422 and "no new finalizers can be added if the object is being deleted" in error.message
    # An update cannot remove deletionTimestamp; removing the last finalizer deletes.
    removed = widgets.update(result.object | {"metadata": meta | {"finalizers": []}})
    assert removed.deleted and fails(widgets.get, "a", "default").code == 404
    seen = [e for e in events(watch, 3) if e.object["metadata"]["name"] == "a"]
    assert summary(seen) == [("MODIFIED", "a"), ("DELETED", "a")]
    assert seen[1].object["metadata"]["finalizers"] == ["example.com/cleanup"]  # the last state stored
    assert rv(seen[1].object) == engine.current_revision()
    watch.close()


def test_delete_propagation_policies(widgets):
    for name in ("fg", "or", "bg", "accepted"):
        widgets.create(widget(name, finalizers=["keep"] if name == "accepted" else []))
    foreground = widgets.delete("fg", "default", propagation_policy="Foreground")
    assert not foreground.deleted and foreground.object["metadata"]["finalizers"] == ["foregroundDeletion"]
    orphan = widgets.delete("or", "default", propagation_policy="Orphan")
    assert not orphan.deleted and orphan.object["metadata"]["finalizers"] == ["orphan"]
    assert widgets.delete("bg", "default", propagation_policy="Background").deleted
    widgets.create(widget("was-orphaned", finalizers=["orphan"]))
    assert widgets.delete("was-orphaned", "default", propagation_policy="Background").deleted
    assert widgets.delete("accepted", "default", orphan_dependents=False).status_code == 202
    error = fails(widgets.delete, "fg", "default", propagation_policy="Orphan", orphan_dependents=True)
    assert error.code == 422 and "orphanDependents and deletionPropagation cannot be both set" in error.message
    assert fails(widgets.delete, "fg", "default", propagation_policy="Sideways").code == 422


def test_delete_dry_run_and_delete_collection(widgets):
    widgets.create(widget("a", labels={"app": "x"}))
    widgets.create(widget("b", labels={"app": "x"}))
    widgets.create(widget("c"))
    assert widgets.delete("a", "default", dry_run=True).deleted
    assert widgets.get("a", "default")
    assert names(widgets.delete_collection("default", label_selector="app=x", dry_run=True)) == ["a", "b"]
    assert names(widgets.list("default")) == ["a", "b", "c"]
    assert names(widgets.delete_collection("default", label_selector="app=x")) == ["a", "b"]
    assert names(widgets.list("default")) == ["c"]


# -- watch ---------------------------------------------------------------------------------


def test_watch_resumes_from_a_resource_version(engine, widgets):
    created = widgets.create(widget("a"))
    updated = widgets.update(created | {"spec": {"color": "blue"}}).object
    widgets.create(widget("b"))
    widgets.create(widget("elsewhere", namespace="other"))
    deleted = widgets.delete("a", "default").object
    with widgets.watch("default", resource_version=created["metadata"]["resourceVersion"]) as watch:
        seen = events(watch, 3)
    assert summary(seen) == [("MODIFIED", "a"), ("ADDED", "b"), ("DELETED", "a")]
    assert seen[0].object == updated
    assert seen[2].object["spec"]["color"] == "blue" and rv(seen[2].object) == rv(deleted)
    # Resuming from the middle gives the rest.
    with widgets.watch("default", resource_version=str(rv(updated))) as watch:
        assert summary(events(watch, 2)) == [("ADDED", "b"), ("DELETED", "a")]


def test_watch_without_resource_version_starts_with_the_state(widgets):
    widgets.create(widget("a"))
    widgets.create(widget("b"))
    for version, state in (("", ["a", "b"]), ("0", ["a", "b", "new"])):
        with widgets.watch("default", resource_version=version) as watch:
            assert summary(events(watch, len(state))) == [("ADDED", name) for name in state]
            widgets.create(widget(f"new{version}"))
            assert summary(events(watch, 1)) == [("ADDED", f"new{version}")]


def test_watch_send_initial_events(engine, widgets):
    widgets.create(widget("a"))
    watch = widgets.watch(
        "default",
        send_initial_events=True,
        resource_version_match="NotOlderThan",
        allow_watch_bookmarks=True,
    )
    seen = events(watch, 2, bookmarks=True)
    assert seen[0].type == "ADDED" and seen[1].type == "BOOKMARK"
    assert seen[1].object["metadata"] == {
        "resourceVersion": str(engine.current_revision()),
        "annotations": {INITIAL_EVENTS_END: "true"},
    }
    assert seen[1].object["kind"] == "Widget" and seen[1].object["apiVersion"] == "example.com/v1"
    watch.close()
    without = widgets.watch("default", send_initial_events=False, resource_version_match="NotOlderThan")
    widgets.create(widget("b"))
    assert summary(events(without, 1)) == [("ADDED", "b")]
    without.close()
    at_least = widgets.watch(
        "default",
        send_initial_events=True,
        resource_version_match="NotOlderThan",
        resource_version=str(engine.current_revision()),
        allow_watch_bookmarks=True,
    )
    seen = events(at_least, 3, bookmarks=True)
    assert summary(seen[:2]) == [("ADDED", "a"), ("ADDED", "b")] and seen[2].type == "BOOKMARK"
    at_least.close()
    error = fails(widgets.watch, "default", send_initial_events=True)
    assert error.code == 422 and "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" in error.message
    error = fails(widgets.watch, "default", resource_version_match="NotOlderThan")
    assert "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided" in error.message


def test_watch_bookmarks(engine, widgets):
    created = widgets.create(widget("a"))
    with widgets.watch("default", resource_version=created["metadata"]["resourceVersion"], allow_watch_bookmarks=True) as watch:
        widgets.create(widget("elsewhere", namespace="other"))
        bookmark = next(e for e in events(watch, 1, bookmarks=True, timeout=3))
        assert bookmark.type == "BOOKMARK" and set(bookmark.object["metadata"]) == {"resourceVersion"}
        assert rv(bookmark.object) >= rv(created)
    with widgets.watch("default", resource_version=created["metadata"]["resourceVersion"]) as plain:
        assert events(plain, 1, timeout=0.6) == []


def test_watch_gone_after_compaction(engine, widgets):
    created = widgets.create(widget("a"))
    widgets.update(created | {"spec": {"color": "blue"}})
    compacted = engine.compact(engine.current_revision())
    watch = widgets.watch("default", resource_version=created["metadata"]["resourceVersion"])
    seen = list(watch)
    assert [e.type for e in seen] == ["ERROR"]
    status = seen[0].object
    assert (status["code"], status["reason"], status["kind"]) == (410, "Expired", "Status")
    assert status["message"] == f"too old resource version: {rv(created)} ({compacted})"
    # From the compacted revision on, history is complete.
    with widgets.watch("default", resource_version=str(compacted)) as watch:
        widgets.create(widget("b"))
        assert summary(events(watch, 1)) == [("ADDED", "b")]


def test_watch_too_large_resource_version(engine, widgets):
    future = engine.current_revision() + 100
    seen = list(widgets.watch("default", resource_version=str(future)))
    assert [e.type for e in seen] == ["ERROR"] and seen[0].object["code"] == 504


def test_watch_selectors_turn_changes_into_added_and_deleted(engine, widgets):
    start = str(engine.current_revision())
    by_label = widgets.watch("default", resource_version=start, label_selector="app=web")
    by_field = widgets.watch("default", resource_version=start, field_selector="spec.color=blue")
    a = widgets.create(widget("a", labels={"app": "web"}))
    widgets.create(widget("other", labels={"app": "db"}))
    a = widgets.update(a | {"metadata": a["metadata"] | {"labels": {"app": "db"}}}).object  # stops matching
    a = widgets.update(a | {"metadata": a["metadata"] | {"labels": {"app": "web"}}}).object  # matches again
    a = widgets.update(a | {"spec": {"color": "blue"}}).object
    seen = events(by_label, 4)
    assert summary(seen) == [("ADDED", "a"), ("DELETED", "a"), ("ADDED", "a"), ("MODIFIED", "a")]
    assert seen[1].object["metadata"]["labels"] == {"app": "web"}  # the previous state...
    assert rv(seen[1].object) == rv(seen[2].object) - 1  # ...with the event's resourceVersion
    assert summary(events(by_field, 1)) == [("ADDED", "a")]
    by_label.close()
    by_field.close()


def test_watch_timeout_ends_the_stream(widgets):
    started = time.monotonic()
    assert list(widgets.watch("default", resource_version="", timeout_seconds=0.3)) == []
    assert 0.25 < time.monotonic() - started < 3


def test_many_watchers_share_one_feed(engine, widgets):
    start = str(engine.current_revision())
    watchers = [widgets.watch("default", resource_version=start) for _ in range(50)]
    widgets.create(widget("a"))
    for watch in watchers:
        assert summary(events(watch, 1)) == [("ADDED", "a")]
        watch.close()


def test_async_facade(engine):
    store = AsyncResourceStore(engine.resource(WIDGETS))

    async def scenario():
        created = await store.create(widget("a"))
        watch = await store.watch("default", resource_version=created["metadata"]["resourceVersion"])
        await store.update(created | {"spec": {"color": "blue"}})
        event = await asyncio.wait_for(watch.__anext__(), 5)
        watch.close()
        assert (await store.get("a", "default"))["spec"]["color"] == "blue"
        return event

    event = asyncio.run(scenario())
    assert event.type == "MODIFIED" and event.object["spec"]["color"] == "blue"


# -- concurrency ---------------------------------------------------------------------------


def test_concurrent_read_modify_write(engine, widgets):
    created = widgets.create(widget("counter") | {"spec": {"count": 0}})
    watch = widgets.watch("default", resource_version=created["metadata"]["resourceVersion"])
    acknowledged, conflicts = [], []

    def writer():
        for _ in range(12):
            current = widgets.get("counter", "default")
            try:
                result = widgets.update(current | {"spec": {"count": current["spec"]["count"] + 1}})
                acknowledged.append((rv(result.object), result.object["spec"]["count"]))
            except APIError as error:
                assert error.code == 409
                conflicts.append(error)

    threads = [threading.Thread(target=writer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(acknowledged) + len(conflicts) == 72 and acknowledged
    final = widgets.get("counter", "default")
    assert final["spec"]["count"] == len(acknowledged)
    seen = events(watch, len(acknowledged), timeout=10)
    watch.close()
    assert sorted((rv(e.object), e.object["spec"]["count"]) for e in seen) == sorted(acknowledged)
    assert [e.object["spec"]["count"] for e in seen] == list(range(1, len(acknowledged) + 1))


def test_watch_cache_survives_a_broken_feed():
    class Flaky(MemoryBackend):
        """The first change feed breaks as if the store went away."""

        broken = False

        def watch(self, prefix, start_revision):
            feed = super().watch(prefix, start_revision)
            if not Flaky.broken:
                Flaky.broken = True
                feed.next = lambda timeout=None: (_ for _ in ()).throw(UnavailableError("gone"))
            return feed

    engine = Engine(Flaky(), compaction_interval=None)
    widgets = engine.resource(WIDGETS)
    start = str(engine.current_revision())
    with widgets.watch("default", resource_version=start) as watch:
        widgets.create(widget("a"))
        assert summary(events(watch, 1)) == [("ADDED", "a")]
    engine.close()


# -- compaction policy, SQLite shared by processes -----------------------------------------


def test_retention_keeps_the_last_revisions():
    backend = MemoryBackend()
    engine = Engine(backend, retention=Retention(revisions=3, seconds=None), compaction_interval=None)
    widgets = engine.resource(WIDGETS)
    for index in range(6):
        widgets.create(widget(f"w{index}"))
    assert engine.compact() == backend.current_revision() - 3
    engine.close()


@pytest.mark.slow
def test_sqlite_file_shared_by_two_processes(tmp_path):
    path = tmp_path / "shared.db"
    backend = SqliteBackend(path, poll_interval=0.02)
    engine = Engine(backend, compaction_interval=None)
    widgets = engine.resource(WIDGETS)
    start = str(engine.current_revision())
    watch = widgets.watch("default", resource_version=start)
    script = (
        "import sys\n"
        "from kgen.runtime.store import Engine, SqliteBackend\n"
        "from tests.test_store import WIDGETS, widget\n"
        "engine = Engine(SqliteBackend(sys.argv[1]), compaction_interval=None)\n"
        "engine.resource(WIDGETS).create(widget('from-child'))\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True, cwd=str(_repo()), timeout=60)
    assert summary(events(watch, 1)) == [("ADDED", "from-child")]
    watch.close()
    engine.close()
    backend.close()


def _repo():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent
