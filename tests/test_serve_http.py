"""kgen serve over HTTP, on SQLite and on etcd: the API concepts' behaviour a client relies on.

resourceVersion semantics for get and list, paging across a write, continue tokens that
expire, watch (resume, 410 after compaction, bookmarks, initial events, timeouts, many
watchers), dry run, finalizers, preconditions, server-side apply conflicts, every error
code of the conventions, and many writers on one object (every acknowledged write is seen
exactly once; losers get 409). History is compacted by the test through a backend of its
own on the same store, as another API server's compactor would.
"""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest

from kgen.runtime.store import SqliteBackend
from tests.serve_fixtures import ServeProcess, example_api, frobber
from tests.store_fixtures import etcd_server  # noqa: F401

# kgen serve (uvicorn) in a subprocess, on SQLite and on etcd.
pytestmark = pytest.mark.slow

FROBBERS = "/apis/example.kgen.dev/v1/namespaces/{ns}/frobbers"
APPLY = "application/apply-patch+yaml"


class Server:
    """A running server and a way to compact its store's history."""

    def __init__(self, process: ServeProcess, compactor):
        self.process = process
        self.client = process.client()
        self._compactor = compactor

    def compact(self) -> int:
        """Compact the store's history up to its current revision."""
        backend = self._compactor()
        try:
            revision = backend.current_revision()
            backend.compact(revision)
            return revision
        finally:
            backend.close()

    def namespace(self) -> str:
        """A new namespace for one test."""
        name = f"t-{uuid.uuid4().hex[:8]}"
        response = self.client.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        assert response.status_code == 201, response.text
        return name


# The store keeps JSON whatever the models are: msgspec runs on one store.
@pytest.fixture(scope="module", params=[("sqlite", "pydantic"), ("etcd", "pydantic"), ("sqlite", "msgspec")], ids="-".join)
def server(request, tmp_path_factory):
    storage_kind, models = request.param
    if storage_kind == "sqlite":
        path = tmp_path_factory.mktemp("serve") / "store.db"
        storage, compactor = f"sqlite:{path}", lambda: SqliteBackend(path)
        extra: tuple[str, ...] = ()
    else:
        from kgen.runtime.store.etcd import EtcdBackend

        endpoint = request.getfixturevalue("etcd_server").endpoint
        storage, compactor = f"etcd:{endpoint}", lambda: EtcdBackend(endpoint)
        extra = ("--storage-prefix", f"/kgen-serve-{uuid.uuid4().hex[:8]}/")
    config = example_api(request, models).config
    with ServeProcess("--compaction-interval", "0", "--bookmark-interval", "0.3", *extra, storage=storage, config=config) as process:
        yield Server(process, compactor)


def rv(obj: dict) -> int:
    return int(obj["metadata"]["resourceVersion"])


def create(server: Server, ns: str, name: str, api_version: str = "example.kgen.dev/v1", **spec) -> dict:
    path = FROBBERS.format(ns=ns) if api_version.endswith("/v1") else FROBBERS.format(ns=ns).replace("/v1/", "/v1beta1/")
    response = server.client.post(path, json=frobber(name, ns, api_version, **spec))
    assert response.status_code == 201, response.text
    return response.json()


def watch(server: Server, path: str, params: dict, count: int | None = None, timeout: float = 10.0) -> list[dict]:
    """Events of a watch until `count` arrived or the stream ended."""
    events = []
    query = {"watch": "true", "timeoutSeconds": str(int(timeout)), **params}
    with server.client.stream("GET", path, params=query, timeout=timeout + 5) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.strip():
                events.append(json.loads(line))
                if count is not None and len(events) >= count:
                    break
    return events


# -- objects -----------------------------------------------------------------------------------


def test_create_sets_the_server_fields_and_a_second_create_is_already_exists(server):
    ns = server.namespace()
    created = create(server, ns, "one", replicas=2)
    metadata = created["metadata"]
    assert metadata["uid"] and metadata["creationTimestamp"] and metadata["generation"] == 1
    assert created["spec"]["mode"] == "Gentle"  # defaulted
    again = server.client.post(FROBBERS.format(ns=ns), json=frobber("one", ns))
    assert again.status_code == 409 and again.json()["reason"] == "AlreadyExists"
    assert again.json()["details"] == {"name": "one", "group": "example.kgen.dev", "kind": "frobbers"}


def test_generate_name(server):
    ns = server.namespace()
    body = frobber("", ns)
    body["metadata"] = {"generateName": "gen-"}
    created = server.client.post(FROBBERS.format(ns=ns), json=body).json()
    assert created["metadata"]["name"].startswith("gen-") and len(created["metadata"]["name"]) == 9


def test_update_uses_optimistic_concurrency_and_bumps_generation_on_spec_changes(server):
    ns = server.namespace()
    created = create(server, ns, "upd")
    path = FROBBERS.format(ns=ns) + "/upd"
    changed = json.loads(json.dumps(created))
    changed["spec"]["replicas"] = 5
    first = server.client.put(path, json=changed)
    assert first.status_code == 200 and first.json()["metadata"]["generation"] == 2
    stale = server.client.put(path, json=changed)  # still the first resourceVersion
    assert stale.status_code == 409 and stale.json()["reason"] == "Conflict"
    labelled = first.json()
    labelled["metadata"]["labels"] = {"a": "b"}
    second = server.client.put(path, json=labelled).json()
    assert second["metadata"]["generation"] == 2  # metadata is not spec
    unconditional = json.loads(json.dumps(second))
    del unconditional["metadata"]["resourceVersion"]
    # A custom resource's strategy allows no unconditional update (apiextensions-apiserver
    # registry/customresource/strategy.go AllowUnconditionalUpdate: false).
    refused = _is_status(server.client.put(path, json=unconditional), 422, "Invalid")
    assert "metadata.resourceVersion: Invalid value: 0: must be specified for an update" in refused["message"]


def test_status_is_written_only_through_the_status_subresource(server):
    ns = server.namespace()
    created = create(server, ns, "st")
    path = FROBBERS.format(ns=ns) + "/st"
    with_status = json.loads(json.dumps(created))
    with_status["status"] = {"phase": "Running"}
    main = server.client.put(path, json=with_status).json()
    assert "phase" not in (main.get("status") or {})
    with_status["metadata"]["resourceVersion"] = main["metadata"]["resourceVersion"]
    with_status["spec"]["replicas"] = 9
    status = server.client.put(path + "/status", json=with_status).json()
    assert status["status"]["phase"] == "Running" and status["spec"].get("replicas") == 1
    assert status["metadata"]["generation"] == 1


# -- resourceVersion, paging -------------------------------------------------------------------


def test_list_resource_version_semantics(server):
    ns = server.namespace()
    first = create(server, ns, "a")
    create(server, ns, "b")
    path = FROBBERS.format(ns=ns)
    exact = server.client.get(path, params={"resourceVersion": first["metadata"]["resourceVersion"], "resourceVersionMatch": "Exact"}).json()
    assert [i["metadata"]["name"] for i in exact["items"]] == ["a"]
    assert exact["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    newest = server.client.get(path, params={"resourceVersion": first["metadata"]["resourceVersion"], "resourceVersionMatch": "NotOlderThan"}).json()
    assert [i["metadata"]["name"] for i in newest["items"]] == ["a", "b"]
    assert [i["metadata"]["name"] for i in server.client.get(path, params={"resourceVersion": "0"}).json()["items"]] == ["a", "b"]
    # With a limit, resourceVersion=N without a match is the snapshot N (Exact), paged.
    paged = server.client.get(path, params={"resourceVersion": first["metadata"]["resourceVersion"], "limit": "5"}).json()
    assert [i["metadata"]["name"] for i in paged["items"]] == ["a"]
    for version in ("", "0", first["metadata"]["resourceVersion"]):
        got = server.client.get(path + "/a", params={"resourceVersion": version})
        assert got.status_code == 200 and got.json()["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    future = server.client.get(path, params={"resourceVersion": "999999999", "resourceVersionMatch": "Exact"})
    assert future.status_code == 504 and future.json()["reason"] == "Timeout" and future.headers["retry-after"] == "1"
    bad = server.client.get(path, params={"resourceVersion": "abc"})
    assert bad.status_code == 400
    invalid = server.client.get(path, params={"resourceVersion": "1", "resourceVersionMatch": "Sometimes"})
    assert invalid.status_code == 422 and invalid.json()["reason"] == "Invalid"


def test_paging_reads_one_snapshot_across_a_write(server):
    ns = server.namespace()
    for index in range(5):
        create(server, ns, f"p{index}")
    path = FROBBERS.format(ns=ns)
    page = server.client.get(path, params={"limit": "2"}).json()
    assert [i["metadata"]["name"] for i in page["items"]] == ["p0", "p1"]
    assert page["metadata"]["remainingItemCount"] == 3
    create(server, ns, "p9")  # after the snapshot: not in this list
    names = []
    token = page["metadata"]["continue"]
    while token:
        page = server.client.get(path, params={"limit": "2", "continue": token}).json()
        names += [i["metadata"]["name"] for i in page["items"]]
        token = page["metadata"].get("continue")
    assert names == ["p2", "p3", "p4"]


def test_a_continue_token_expires_with_compaction(server):
    ns = server.namespace()
    for index in range(3):
        create(server, ns, f"c{index}")
    path = FROBBERS.format(ns=ns)
    page = server.client.get(path, params={"limit": "1"}).json()
    create(server, ns, "c9")
    server.compact()
    expired = server.client.get(path, params={"limit": "1", "continue": page["metadata"]["continue"]})
    assert expired.status_code == 410 and expired.json()["reason"] == "Expired"
    assert expired.json()["metadata"]["continue"]  # continues inconsistently from here
    inconsistent = server.client.get(path, params={"limit": "10", "continue": expired.json()["metadata"]["continue"]}).json()
    assert [i["metadata"]["name"] for i in inconsistent["items"]] == ["c1", "c2", "c9"]


def test_selectors(server):
    ns = server.namespace()
    for name, tier in (("s1", "front"), ("s2", "back"), ("s3", "front")):
        body = frobber(name, ns)
        body["metadata"]["labels"] = {"tier": tier}
        assert server.client.post(FROBBERS.format(ns=ns), json=body).status_code == 201
    path = FROBBERS.format(ns=ns)
    front = server.client.get(path, params={"labelSelector": "tier=front"}).json()
    assert [i["metadata"]["name"] for i in front["items"]] == ["s1", "s3"]
    named = server.client.get(path, params={"fieldSelector": "metadata.name=s2"}).json()
    assert [i["metadata"]["name"] for i in named["items"]] == ["s2"]
    everywhere = server.client.get("/apis/example.kgen.dev/v1/frobbers", params={"fieldSelector": f"metadata.namespace={ns}"}).json()
    assert len(everywhere["items"]) == 3
    unsupported = server.client.get(path, params={"fieldSelector": "spec.mode=Gentle"})
    assert unsupported.status_code == 400 and "field label not supported" in unsupported.json()["message"]
    deleted = server.client.delete(path, params={"labelSelector": "tier=front"})
    assert deleted.status_code == 200 and len(deleted.json()["items"]) == 2
    assert [i["metadata"]["name"] for i in server.client.get(path).json()["items"]] == ["s2"]


# -- watch -------------------------------------------------------------------------------------


def test_watch_from_a_resource_version_and_resume(server):
    ns = server.namespace()
    path = FROBBERS.format(ns=ns)
    created = create(server, ns, "w")
    start = created["metadata"]["resourceVersion"]
    updated = dict(created, spec={**created["spec"], "replicas": 3})
    updated = server.client.put(path + "/w", json=updated).json()
    assert server.client.delete(path + "/w").status_code == 200
    events = watch(server, path, {"resourceVersion": str(rv(created) - 1)}, count=3)
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[1]["object"]["spec"]["replicas"] == 3
    resumed = watch(server, path, {"resourceVersion": start}, count=2)
    assert [e["type"] for e in resumed] == ["MODIFIED", "DELETED"]
    # The v1beta1 endpoint shows the same changes in its version.
    beta = watch(server, path.replace("/v1/", "/v1beta1/"), {"resourceVersion": start}, count=1)
    assert beta[0]["object"]["apiVersion"] == "example.kgen.dev/v1beta1" and beta[0]["object"]["spec"]["replicas"] == 3


def test_watch_from_compacted_history_is_410(server):
    ns = server.namespace()
    created = create(server, ns, "old")
    create(server, ns, "new")
    server.compact()
    events = watch(server, FROBBERS.format(ns=ns), {"resourceVersion": created["metadata"]["resourceVersion"]}, count=1)
    assert events[0]["type"] == "ERROR"
    assert events[0]["object"]["code"] == 410 and events[0]["object"]["reason"] == "Expired"


def test_initial_events_end_with_a_bookmark_and_bookmarks_follow(server):
    ns = server.namespace()
    create(server, ns, "i1")
    create(server, ns, "i2")
    params = {"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true"}
    events = watch(server, FROBBERS.format(ns=ns), params, count=4)
    assert [e["type"] for e in events[:3]] == ["ADDED", "ADDED", "BOOKMARK"]
    assert events[2]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert events[3]["type"] == "BOOKMARK"  # periodic, every 0.3 s here
    assert events[2]["object"]["apiVersion"] == "example.kgen.dev/v1"


def test_watch_ends_at_its_timeout_and_many_watchers_see_a_change(server):
    ns = server.namespace()
    path = FROBBERS.format(ns=ns)
    started = time.monotonic()
    assert watch(server, path, {"resourceVersion": "", "timeoutSeconds": "1"}) == []
    assert time.monotonic() - started < 5
    seen: list[list[dict]] = []
    before = server.client.get(path).json()["metadata"]["resourceVersion"]

    def watcher():
        seen.append(watch(server, path, {"resourceVersion": before}, count=1, timeout=45))  # a loaded machine is slow

    threads = [threading.Thread(target=watcher) for _ in range(20)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # most watches are open; the others start from `before` and replay the change
    create(server, ns, "fan")
    for thread in threads:
        thread.join(50)
    assert len(seen) == 20 and all(events[0]["object"]["metadata"]["name"] == "fan" for events in seen)


# -- writes ------------------------------------------------------------------------------------


def test_dry_run_writes_nothing(server):
    ns = server.namespace()
    path = FROBBERS.format(ns=ns)
    dry = server.client.post(path, params={"dryRun": "All"}, json=frobber("dry", ns))
    assert dry.status_code == 201 and dry.json()["metadata"]["name"] == "dry"
    assert server.client.get(path + "/dry").status_code == 404
    created = create(server, ns, "real")
    patched = server.client.patch(path + "/real", params={"dryRun": "All"}, content=b'{"spec":{"replicas":7}}',
                                  headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert patched.json()["spec"]["replicas"] == 7
    assert server.client.delete(path + "/real", params={"dryRun": "All"}).status_code == 200
    stored = server.client.get(path + "/real").json()
    assert stored["spec"]["replicas"] == 1 and stored["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    bad = server.client.post(path, params={"dryRun": "Some"}, json=frobber("x", ns))
    assert bad.status_code == 422 and 'dryRun: Unsupported value: "Some"' in bad.json()["message"]


def test_finalizers_keep_a_deleted_object_until_they_are_gone(server):
    ns = server.namespace()
    path = FROBBERS.format(ns=ns)
    body = frobber("fin", ns)
    body["metadata"]["finalizers"] = ["example.kgen.dev/hold"]
    created = server.client.post(path, json=body).json()
    wrong = server.client.request("DELETE", path + "/fin", json={"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "nope"}})
    assert wrong.status_code == 409
    deleted = server.client.request("DELETE", path + "/fin", json={"preconditions": {"uid": created["metadata"]["uid"]}, "propagationPolicy": "Background"})
    assert deleted.status_code == 200 and deleted.json()["metadata"]["deletionTimestamp"]
    assert server.client.get(path + "/fin").status_code == 200
    released = server.client.patch(path + "/fin", content=b'[{"op":"remove","path":"/metadata/finalizers"}]',
                                   headers={"Content-Type": "application/json-patch+json"})  # fmt: skip
    assert released.status_code == 200
    assert server.client.get(path + "/fin").status_code == 404
    invalid = server.client.delete(path + "/x", params={"propagationPolicy": "Sometimes"})
    assert invalid.status_code == 422


def test_server_side_apply_conflicts_name_the_managers(server):
    ns = server.namespace()
    path = FROBBERS.format(ns=ns) + "/ssa"
    config = "apiVersion: example.kgen.dev/v1\nkind: Frobber\nmetadata:\n  name: ssa\nspec:\n  replicas: {n}\n"
    first = server.client.patch(path, params={"fieldManager": "alice"}, content=config.format(n=2), headers={"Content-Type": APPLY})
    assert first.status_code == 201, first.text
    conflict = server.client.patch(path, params={"fieldManager": "bob"}, content=config.format(n=3), headers={"Content-Type": APPLY})
    assert conflict.status_code == 409 and conflict.json()["reason"] == "Conflict"
    assert conflict.json()["message"] == 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas'
    assert conflict.json()["details"]["causes"] == [{"reason": "FieldManagerConflict", "message": 'conflict with "alice"', "field": ".spec.replicas"}]
    forced = server.client.patch(path, params={"fieldManager": "bob", "force": "true"}, content=config.format(n=3), headers={"Content-Type": APPLY})
    assert forced.status_code == 200 and forced.json()["spec"]["replicas"] == 3
    managers = {entry["manager"] for entry in forced.json()["metadata"]["managedFields"]}
    assert managers == {"bob"}
    no_manager = server.client.patch(path, content=config.format(n=3), headers={"Content-Type": APPLY})
    assert no_manager.status_code == 422 and "fieldManager: Required value" in no_manager.json()["message"]


def test_many_writers_on_one_object(server):
    """Every acknowledged write appears exactly once, in order; losers get 409."""
    ns = server.namespace()
    path = FROBBERS.format(ns=ns) + "/counter"
    created = create(server, ns, "counter")
    acknowledged: list[int] = []
    conflicts = [0]
    lock = threading.Lock()

    def writer():
        client = server.process.client()
        done = 0
        while done < 5:
            current = client.get(path).json()
            count = int((current["metadata"].get("annotations") or {}).get("count", "0"))
            current["metadata"]["annotations"] = {"count": str(count + 1)}
            response = client.put(path, json=current)
            if response.status_code == 409:
                with lock:
                    conflicts[0] += 1
                continue
            assert response.status_code == 200, response.text
            with lock:
                acknowledged.append(rv(response.json()))
            done += 1

    threads = [threading.Thread(target=writer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(acknowledged) == 30 and conflicts[0] > 0
    final = server.client.get(path).json()
    assert final["metadata"]["annotations"]["count"] == "30"
    events = watch(server, FROBBERS.format(ns=ns), {"resourceVersion": created["metadata"]["resourceVersion"]}, count=30)
    assert sorted(rv(e["object"]) for e in events) == sorted(acknowledged)
    assert [e["object"]["metadata"]["annotations"]["count"] for e in events] == [str(n) for n in range(1, 31)]


# -- versions ----------------------------------------------------------------------------------


def test_written_in_v1beta1_read_in_v1_and_back_losslessly(server):
    ns = server.namespace()
    created = create(server, ns, "conv", api_version="example.kgen.dev/v1beta1", param="fast", height=7, replicas=2)
    v1 = server.client.get(FROBBERS.format(ns=ns) + "/conv").json()
    assert v1["spec"]["params"] == ["fast"] and v1["spec"]["heightInInches"] == 7
    back = server.client.get(FROBBERS.format(ns=ns).replace("/v1/", "/v1beta1/") + "/conv").json()
    assert back == created
    # An old client changing the singular replaces the plural (the hook's update rule).
    v1["spec"]["params"] = ["fast", "quiet"]
    v1 = server.client.put(FROBBERS.format(ns=ns) + "/conv", json=v1).json()
    beta_path = FROBBERS.format(ns=ns).replace("/v1/", "/v1beta1/") + "/conv"
    beta = server.client.get(beta_path).json()
    assert beta["spec"]["param"] == "fast"
    beta["spec"]["param"] = "slow"
    assert server.client.put(beta_path, json=beta).status_code == 200
    assert server.client.get(FROBBERS.format(ns=ns) + "/conv").json()["spec"]["params"] == ["slow"]


# -- errors ------------------------------------------------------------------------------------


def test_every_error_is_a_status_with_the_conventions_code(server):
    ns = server.namespace()
    path = FROBBERS.format(ns=ns)
    create(server, ns, "e")

    def status(response, code, reason):
        assert response.status_code == code, response.text
        body = response.json()
        assert body["kind"] == "Status" and body["status"] == "Failure" and body["code"] == code and body.get("reason", "") == reason
        return body

    status(server.client.post(path, content=b"{nope", headers={"Content-Type": "application/json"}), 400, "BadRequest")
    status(server.client.get(path + "/missing"), 404, "NotFound")
    status(server.client.get("/apis/example.kgen.dev/v9/frobbers"), 404, "NotFound")
    status(server.client.post(path + "/e", json=frobber("e", ns)), 405, "MethodNotAllowed")
    status(server.client.get(path, headers={"Accept": "text/html"}), 406, "NotAcceptable")
    status(server.client.post(path, json=frobber("e", ns)), 409, "AlreadyExists")
    big = frobber("big", ns)
    big["metadata"]["annotations"] = {"x": "y" * (4 * 1024 * 1024)}
    status(server.client.post(path, json=big), 413, "RequestEntityTooLarge")
    status(server.client.post(path, content=b"x", headers={"Content-Type": "text/plain"}), 415, "UnsupportedMediaType")
    status(server.client.patch(path + "/e", content=b"{}", headers={"Content-Type": "application/x-what"}), 415, "UnsupportedMediaType")
    # A Frobber is a custom resource: a value of the wrong type is the schema's 422 Invalid at
    # its field, in a map entry too (apiextensions-apiserver pkg/apiserver/validation/validation.go
    # makes kube-openapi's invalid type a FieldValueTypeInvalid; a quantity's pattern, FieldValueInvalid).
    for spec, field, reason in (
        ({"replicas": "two"}, "spec.replicas", "FieldValueTypeInvalid"),
        ({"resources": {"cpu": "1", "memory": "lots"}}, "spec.resources.memory", "FieldValueInvalid"),
    ):
        # After a type error the CRD's CEL rules are not run, which the answer says at <nil>
        # (pkg/registry/customresource/strategy.go hasBlockingErr); a pattern error is not blocking.
        blocked = [("FieldValueInvalid", "<nil>")] if reason == "FieldValueTypeInvalid" else []
        typed = status(server.client.post(path, json=frobber("typed", ns, **spec)), 422, "Invalid")
        assert typed["message"].startswith(f'Frobber.example.kgen.dev "typed" is invalid: {"[" if blocked else ""}{field}: Invalid value: ')
        assert [(c["reason"], c["field"]) for c in typed["details"]["causes"]] == [(reason, field), *blocked]
        merged = server.client.patch(path + "/e", json={"spec": spec}, headers={"Content-Type": "application/merge-patch+json"})
        assert [c["field"] for c in status(merged, 422, "Invalid")["details"]["causes"]] == [field, *(f for _, f in blocked)]
    assert 'spec.replicas in body must be of type integer: "string"' in status(
        server.client.post(path, json=frobber("typed", ns, replicas="two")), 422, "Invalid"
    )["message"]
    invalid = status(server.client.post(path, json=frobber("bad", ns, replicas=-1, ports=[{"name": "Not A Name", "port": 0}])), 422, "Invalid")
    fields = {cause["field"] for cause in invalid["details"]["causes"]}
    assert {"spec.replicas", "spec.ports[0].name", "spec.ports[0].port"} <= fields
    with_version = frobber("rv", ns)
    with_version["metadata"]["resourceVersion"] = "5"
    status(server.client.post(path, json=with_version), 500, "")
    status(server.client.get(path, params={"resourceVersion": "999999999", "resourceVersionMatch": "Exact"}), 504, "Timeout")
    mismatch = frobber("other", ns)
    assert server.client.put(path + "/e", json=mismatch).status_code == 400
    elsewhere = frobber("x", "elsewhere")
    assert "does not match the namespace" in status(server.client.post(path, json=elsewhere), 400, "BadRequest")["message"]


def test_namespaces_must_exist_and_a_deleted_one_takes_its_objects(server):
    missing = server.client.post(FROBBERS.format(ns="nowhere"), json=frobber("x", "nowhere"))
    assert missing.status_code == 404 and missing.json()["message"] == 'namespaces "nowhere" not found'
    ns = server.namespace()
    create(server, ns, "inside")
    held = frobber("held", ns)
    held["metadata"]["finalizers"] = ["example.kgen.dev/hold"]
    assert server.client.post(FROBBERS.format(ns=ns), json=held).status_code == 201
    deleted = server.client.delete(f"/api/v1/namespaces/{ns}")
    assert deleted.status_code == 200 and deleted.json()["status"]["phase"] == "Terminating"
    refused = server.client.post(FROBBERS.format(ns=ns), json=frobber("late", ns))
    assert refused.status_code == 403 and refused.json()["reason"] == "Forbidden"
    assert refused.json()["details"]["causes"][0]["reason"] == "NamespaceTerminating"
    deadline = time.monotonic() + 10
    while server.client.get(FROBBERS.format(ns=ns) + "/inside").status_code != 404:
        assert time.monotonic() < deadline, "the namespace's objects were not deleted"
        time.sleep(0.1)
    assert server.client.get(f"/api/v1/namespaces/{ns}").status_code == 200  # the finalizer holds it
    released = server.client.patch(FROBBERS.format(ns=ns) + "/held", content=b'{"metadata":{"finalizers":null}}',
                                   headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert released.status_code == 200
    while server.client.get(f"/api/v1/namespaces/{ns}").status_code != 404:
        assert time.monotonic() < deadline, "the namespace was not removed"
        time.sleep(0.1)
    assert server.client.get(FROBBERS.format(ns=ns)).json()["items"] == []


# -- hostile input: a Status with the right code, on every backend ------------------------------
# What the API server answers: query parameters are decoded by strconv.ParseInt/ParseUint
# (400 BadRequest "strconv.ParseInt: parsing ...: value out of range"), a resourceVersion by
# storage.APIObjectVersioner (400 "invalid resource version: ..."), a continue token into an
# int64 field (400 "invalid continue token: ..."), a body it cannot read as a request of the
# endpoint 400/415, and an object larger than etcd takes (--max-request-bytes, 1.5 MiB) is
# refused on every backend alike, as etcd refuses it (see below).


def _is_status(response, code: int, reason: str) -> dict:
    assert response.status_code == code, response.text[:300]
    status = response.json()
    assert (status["kind"], status["code"], status.get("reason", "")) == ("Status", code, reason), status
    return status


def test_numbers_past_int64_are_bad_requests_not_server_errors(server):
    ns = server.namespace()
    path = f"/apis/example.kgen.dev/v1/namespaces/{ns}/frobbers"
    create(server, ns, "a")
    limit = _is_status(server.client.get(path, params={"limit": str(2**63)}), 400, "BadRequest")
    assert "value out of range" in limit["message"]
    assert server.client.get(path, params={"limit": str(2**63 - 1)}).status_code == 200
    huge = _is_status(server.client.get(path, params={"resourceVersion": str(2**64)}), 400, "BadRequest")
    assert huge["message"].startswith("invalid resource version:") and "value out of range" in huge["message"]
    past_int64 = server.client.get(path, params={"resourceVersion": str(2**63), "resourceVersionMatch": "NotOlderThan"})
    assert past_int64.status_code == 504 and past_int64.json()["reason"] == "Timeout", past_int64.text[:300]
    import base64

    token = base64.urlsafe_b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": 2**63, "start": "a"}).encode())
    bad = _is_status(server.client.get(path, params={"continue": token.decode().rstrip("="), "limit": "1"}), 400, "BadRequest")
    assert bad["message"].startswith("invalid continue token:")


def test_bodies_nested_past_the_limit_are_bad_requests_on_every_verb(server):
    ns = server.namespace()
    path = f"/apis/example.kgen.dev/v1/namespaces/{ns}/frobbers"
    create(server, ns, "a")
    deep_object = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    deep_list = b"[" * 100_000 + b"]" * 100_000
    for content_type, body in (("application/merge-patch+json", deep_object), ("application/json-patch+json", deep_list)):
        status = _is_status(server.client.patch(path + "/a", content=body, headers={"content-type": content_type}), 400, "BadRequest")
        assert "nested more than 512 levels deep" in status["message"]
    for target in (path + "/a", path):  # DeleteOptions of a delete and of a delete-collection
        _is_status(server.client.request("DELETE", target, content=deep_object, headers={"content-type": "application/json"}), 400, "BadRequest")
    assert server.client.get(path + "/a").status_code == 200  # nothing was deleted


def test_methods_and_content_types_nobody_serves_get_a_status(server):
    ns = server.namespace()
    path = f"/apis/example.kgen.dev/v1/namespaces/{ns}/frobbers"
    _is_status(server.client.request("FOO", path), 405, "MethodNotAllowed")
    body = json.dumps(frobber("a", ns)).encode()
    _is_status(server.client.post(path, content=body, headers={"content-type": ";;;===;;"}), 415, "UnsupportedMediaType")
    assert server.client.get(path + "/a").status_code == 404  # not taken for JSON


def test_an_object_larger_than_etcd_takes_is_refused_by_every_backend(server):
    """etcd refuses a request over --max-request-bytes (1.5 MiB) with "etcdserver: request is
    too large"; kube-apiserver has no Status for it, so the client gets 500 with that message
    and no reason (apiserver endpoints/handlers/responsewriters/status.go ErrorToAPIStatus).
    Its create, update and patch handlers first try again without managedFields
    (endpoints/handlers/rest.go isTooLargeError; create.go, update.go, patch.go)."""
    ns = server.namespace()
    path = f"/apis/example.kgen.dev/v1/namespaces/{ns}/frobbers"
    big = frobber("big", ns)
    big["metadata"]["labels"] = {f"k{i:06d}": "v" * 60 for i in range(24_000)}  # ~1.8 MB, under the 3 MiB body limit
    _is_status(server.client.post(path, json=big), 500, "")
    assert server.client.post(path, json=big).json()["message"] == "etcdserver: request is too large"
    assert server.client.get(path + "/big").status_code == 404
    assert server.client.post(path, json=big, params={"dryRun": "All"}).status_code == 201  # nothing reaches etcd
    small = create(server, ns, "small")
    small["metadata"]["labels"] = big["metadata"]["labels"]
    _is_status(server.client.put(path + "/small", json=small), 500, "")
    # Fits without its managedFields (a field per label): stored without them.
    fits = frobber("fits", ns)
    fits["metadata"]["labels"] = {f"k{i:06d}": "v" * 40 for i in range(26_000)}  # ~1.35 MB, ~1.75 MB with managedFields
    created = server.client.post(path, json=fits)
    assert created.status_code == 201, created.text[:300]
    assert "managedFields" not in created.json()["metadata"]
    assert len(server.client.get(path + "/fits").json()["metadata"]["labels"]) == 26_000

def test_a_custom_resource_is_answered_as_the_apiextensions_apiserver_answers(server):
    """A Frobber has a generated CRD, so a cluster serves it through the apiextensions-apiserver:
    - no fieldValidation parameter means Warn (apiserver endpoints/handlers/rest.go
      fieldValidation): an unknown field is dropped with a Warning header, the object created;
    - a delete of an object that is gone answers a Status Success naming it, with the
      resource name as details.kind (registry/generic/registry/store.go finalizeDelete; the
      custom resource store does not return deleted objects);
    - no protobuf (the custom resource handler's serializers are JSON and YAML): 406 when
      the client accepts nothing else."""
    ns = server.namespace()
    path = FROBBERS.format(ns=ns)
    body = frobber("warned", ns)
    body["spec"]["bogus"] = 1
    created = server.client.post(path, json=body)
    assert created.status_code == 201, created.text[:300]
    assert created.headers.get("warning") == '299 - "unknown field \\"spec.bogus\\""'
    assert "bogus" not in created.json()["spec"]
    strict = server.client.post(path, json={**body, "metadata": {"name": "strict"}}, params={"fieldValidation": "Strict"})
    _is_status(strict, 400, "BadRequest")
    deleted = server.client.delete(f"{path}/warned")
    assert deleted.status_code == 200
    status = deleted.json()
    assert (status["kind"], status["status"]) == ("Status", "Success"), status
    assert status["details"] == {"name": "warned", "group": "example.kgen.dev", "kind": "frobbers", "uid": created.json()["metadata"]["uid"]}
    _is_status(server.client.get(path, headers={"Accept": "application/vnd.kubernetes.protobuf"}), 406, "NotAcceptable")
    assert server.client.get(path, headers={"Accept": "application/vnd.kubernetes.protobuf, application/json"}).status_code == 200
