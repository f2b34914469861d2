"""Tables for kgen serve's small pieces: printer-column JSONPath, ages as kubectl shows them,
content negotiation, aggregated-discovery preference, the in-flight limit (429), warnings,
and the loopback rule."""

from __future__ import annotations

import asyncio
import json

import pytest

from kgen.runtime.scheme import APIError
from kgen.serve import jsonpath
from kgen.serve.discovery import wants_aggregated
from kgen.serve.limits import InflightLimit, is_long_running
from kgen.serve.negotiation import negotiate
from kgen.serve.respond import warning_header
from kgen.serve.security import is_loopback
from kgen.serve.table import human_duration

OBJ = {
    "metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "web"}},
    "spec": {"ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}], "replicas": 2, "on": True},
    "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False"}]},
}


@pytest.mark.parametrize(
    ("path", "found"),
    [
        (".spec.replicas", [2]),
        ("{.spec.replicas}", [2]),
        (".spec.ports[1].port", [443]),
        (".spec.ports[-1].name", ["https"]),
        (".spec.ports[*].name", ["http", "https"]),
        (".spec.ports[0:1].name", ["http"]),
        ('.status.conditions[?(@.type=="Ready")].status', ["True"]),
        (".status.conditions[?(@.type!='Ready')].type", ["Synced"]),
        (".spec.ports[?(@.port>100)].name", ["https"]),
        (".metadata.labels['app.kubernetes.io/name']", ["web"]),
        (".spec.missing", []),
        (".spec.ports[5].name", []),
    ],
)
def test_jsonpath(path, found):
    assert jsonpath.find(path, OBJ) == found


def test_jsonpath_text_and_errors():
    assert [jsonpath.text(v) for v in (True, 2.0, 1.5, {"a": 1}, "s")] == ["true", "2", "1.5", '{"a":1}', "s"]
    with pytest.raises(jsonpath.JSONPathError):
        jsonpath.parse(".spec[?(nonsense)]")


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(-5, "<invalid>"), (-1, "0s"), (0, "0s"), (119, "119s"), (120, "2m"), (150, "2m30s"), (600, "10m"), (3 * 3600 - 1, "179m"),
     (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"), (8 * 3600, "8h"), (47 * 3600, "47h"), (48 * 3600, "2d"), (50 * 3600, "2d2h"),
     (8 * 86400, "8d"), (2 * 365 * 86400, "2y"), (2 * 365 * 86400 + 86400, "2y1d"), (9 * 365 * 86400, "9y")],
)  # fmt: skip
def test_ages_read_as_kubectl_shows_them(seconds, shown):
    assert human_duration(seconds) == shown


@pytest.mark.parametrize(
    ("accept", "media", "target"),
    [
        ("", "application/json", ""),
        ("*/*", "application/json", ""),
        ("application/yaml", "application/yaml", ""),
        ("application/vnd.kubernetes.protobuf, */*", "application/vnd.kubernetes.protobuf", ""),
        (
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
            "application/json",
            "Table",
        ),
        ("application/json;as=Table;v=v2;g=meta.k8s.io,application/json", "application/json", ""),
        ("application/json;as=Unknown;v=v1;g=meta.k8s.io, application/yaml", "application/yaml", ""),
        ("text/html;q=0.9, application/json;q=0", None, ""),
    ],
)
def test_negotiation(accept, media, target):
    if media is None:
        with pytest.raises(APIError) as caught:
            negotiate(accept, targets=("Table",))
        assert caught.value.code == 406
        return
    representation = negotiate(accept, targets=("Table",))
    assert (representation.media_type, representation.target) == (media, target)


def test_aggregated_discovery_is_used_only_when_asked_for_first():
    kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
    assert wants_aggregated(kubectl) == "v2"
    assert wants_aggregated("application/json") is None
    assert (
        wants_aggregated("application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
        is None
    )


def test_warning_header_escapes_quotes():
    assert warning_header('unknown field "spec.x"') == '299 - "unknown field \\"spec.x\\""'


def test_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("example.com")


def test_inflight_limit_refuses_with_429_and_does_not_count_watches():
    release = asyncio.Event()

    async def slow(scope, receive, send):
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    limited = InflightLimit(slow, max_requests=1, max_mutating=1)

    async def request(method="GET", query=b""):
        sent = []

        async def send(message):
            sent.append(message)

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {"type": "http", "method": method, "path": "/apis/x/v1/things", "query_string": query, "headers": []}
        await limited(scope, receive, send)
        return sent[0]["status"], dict(sent[0]["headers"])

    async def scenario():
        first = asyncio.create_task(request())
        await asyncio.sleep(0)
        refused_status, headers = await request()
        mutating = asyncio.create_task(request("POST"))
        watch = asyncio.create_task(request(query=b"watch=true"))
        await asyncio.sleep(0)
        release.set()
        return refused_status, headers, await first, await mutating, await watch

    refused_status, headers, first, mutating, watch = asyncio.run(scenario())
    assert refused_status == 429 and headers[b"retry-after"] == b"1"
    assert first[0] == mutating[0] == watch[0] == 200
    assert is_long_running({"path": "/apis/g/v/watch/things", "query_string": b""})


def test_an_unknown_model_backend_is_refused_before_anything_is_generated():
    from kgen.serve.fake import FakeCluster

    with pytest.raises(ValueError, match="models='attrs' is not a model backend"):
        FakeCluster(models="attrs")


def test_serving_msgspec_models_without_msgspec_says_what_to_install(monkeypatch):
    import dataclasses
    import importlib.util

    from conftest import REPO
    from kgen.generators import GENERATORS
    from kgen.options import resolve_options
    from kgen.serve.loader import LoadError, load

    options = dataclasses.replace(
        resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS)), models="msgspec"
    )
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *args: None if name == "msgspec" else find_spec(name, *args)
    )
    with pytest.raises(LoadError, match=r'needs msgspec: pip install "kgen-k8s\[msgspec\]"'):
        load(options)


def _asgi_request(app, method="POST", receive=None):
    """Run one request through an ASGI app; (status, body) of its answer."""
    sent = []

    async def send(message):
        sent.append(message)

    async def whole_body():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def run():
        scope = {"type": "http", "method": method, "path": "/apis/x/v1/things", "query_string": b"", "headers": []}
        await app(scope, receive or whole_body, send)
        return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])

    return run()


def test_a_trickling_body_holds_no_write_slot_and_ends_in_504():
    """kube-apiserver reads a body inside its request timeout (504 Timeout past it); a
    request is counted against --max-mutating-requests-inflight once its body is in."""

    async def app(scope, receive, send):
        await receive()
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    limited = InflightLimit(app, max_requests=1, max_mutating=1, request_timeout=0.5)
    never = asyncio.Event()

    async def trickle():
        await never.wait()  # the rest of the body never comes

    async def scenario():
        slow = [asyncio.create_task(_asgi_request(limited, receive=trickle)) for _ in range(5)]
        await asyncio.sleep(0.05)
        honest = await _asgi_request(limited)
        return honest, await asyncio.gather(*slow)

    honest, slow = asyncio.run(scenario())
    assert honest[0] == 201
    for status, body in slow:
        assert status == 504 and json.loads(body)["reason"] == "Timeout"


def test_a_request_past_the_request_timeout_gets_504_timeout():
    async def stuck(scope, receive, send):
        await asyncio.Event().wait()

    status, body = asyncio.run(_asgi_request(InflightLimit(stuck, request_timeout=0.2), method="GET"))
    assert status == 504
    assert json.loads(body)["message"] == (
        "Timeout: request did not complete within requested timeout - context deadline exceeded"
    )


def test_a_read_of_a_future_version_waits_without_holding_a_worker_thread():
    """The wait for a resourceVersion the store has not reached happens on the event loop:
    the store (and its worker thread) is called only once the version is there."""
    from kgen.runtime.store import Engine, MemoryBackend, ResourceInfo
    from kgen.runtime.store.aio import AsyncResourceStore

    engine = Engine(MemoryBackend(), compaction_interval=None)
    store = engine.resource(ResourceInfo("example.kgen.dev", "v1", "frobbers", "Frobber", namespaced=True))
    obj = {"apiVersion": "example.kgen.dev/v1", "kind": "Frobber", "metadata": {"name": "a", "namespace": "ns"}}
    created = store.create(obj)
    calls = []
    original = store.get

    def counting_get(*args, **kwargs):
        calls.append(engine.current_revision())
        return original(*args, **kwargs)

    store.get = counting_get  # type: ignore[method-assign]
    aio = AsyncResourceStore(store)
    wanted = str(int(created["metadata"]["resourceVersion"]) + 1)

    async def scenario():
        waiting = asyncio.create_task(aio.get("a", "ns", resource_version=wanted))
        await asyncio.sleep(0.3)
        assert calls == [] and not waiting.done()  # no thread taken while waiting
        await asyncio.to_thread(store.create, {**obj, "metadata": {"name": "b", "namespace": "ns"}})
        return await waiting

    assert asyncio.run(scenario())["metadata"]["name"] == "a"
    assert calls and calls[0] >= int(wanted)
    engine.close()


# -- the work of one request: deadline, disconnect, lanes ------------------------------------------


def _checkpointing_app(iterations: list[int], finished: list[BaseException | None]):
    """An ASGI app whose request runs in a worker thread until its work is stopped."""
    import time

    from kgen.runtime import work

    def busy() -> None:
        try:
            while iterations[0] < 10_000_000:
                iterations[0] += 1
                work.checkpoint()
                time.sleep(0.001)
            finished.append(None)
        except APIError as error:
            finished.append(error)
            raise

    async def app(scope, receive, send):
        try:
            await work.run(busy)
            status, body = 200, b""
        except APIError as error:  # the deadline, seen by the work before the middleware
            status, body = error.code, json.dumps({"reason": error.reason}).encode()
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": body})

    return app


def _wait_for(condition, seconds: float = 5.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_the_work_of_a_request_whose_client_disconnected_stops_at_its_next_checkpoint():
    """kube-apiserver cancels a request's context when its client goes away; the work in the
    worker thread (a patch, a list) then stops instead of keeping a core busy for nobody."""
    iterations, finished = [0], []
    limited = InflightLimit(_checkpointing_app(iterations, finished), request_timeout=60)
    hang_up = asyncio.Event()

    async def receive_then_disconnect():
        if not hang_up.is_set():
            hang_up.set()
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(0.2)  # the client leaves while the request runs
        return {"type": "http.disconnect"}

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/apis/x/v1/things", "query_string": b"", "headers": []}
    asyncio.run(limited(scope, receive_then_disconnect, send))
    assert _wait_for(lambda: bool(finished))
    assert isinstance(finished[0], APIError) and finished[0].code == 504
    assert iterations[0] < 2000  # stopped within about a second, not run to its end
    assert sent == []  # nobody to answer


def test_the_work_of_a_request_past_its_deadline_stops_and_the_answer_is_504():
    iterations, finished = [0], []
    status, body = asyncio.run(
        _asgi_request(InflightLimit(_checkpointing_app(iterations, finished), request_timeout=0.2), method="GET")
    )
    assert status == 504 and json.loads(body)["reason"] == "Timeout"
    assert _wait_for(lambda: bool(finished))
    assert isinstance(finished[0], APIError) and finished[0].reason == "Timeout"
    assert iterations[0] >= 20  # it ran until the deadline (0.2 s), not less


def test_patches_lists_and_writes_stop_at_checkpoints_once_their_work_is_done():
    from kgen.runtime import work
    from kgen.runtime.patch import apply_json_patch, apply_strategic_merge_patch
    from kgen.runtime.store import Engine, MemoryBackend, ResourceInfo

    engine = Engine(MemoryBackend(), compaction_interval=None)
    store = engine.resource(ResourceInfo("example.kgen.dev", "v1", "frobbers", "Frobber", namespaced=True))
    for i in range(300):
        store.create(
            {"apiVersion": "example.kgen.dev/v1", "kind": "Frobber", "metadata": {"name": f"f{i}", "namespace": "ns"}}
        )
    from kgen.runtime.patch.schema import Schema

    ports = {
        "type": "array",
        "items": {"type": "object"},
        "x-kubernetes-patch-strategy": "merge",
        "x-kubernetes-patch-merge-key": "name",
    }
    thing = Schema(
        {"Thing": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"ports": ports}}}}}
    ).type("Thing")
    live = {"spec": {"ports": [{"name": f"p{i}"} for i in range(10)]}}
    port_patch = b'{"spec": {"ports": [{"name": "p1", "port": 1}]}}'
    assert apply_strategic_merge_patch(live, port_patch, thing)["spec"]["ports"][1] == {"name": "p1", "port": 1}
    stopped = work.Work()
    stopped.cancel("client disconnected")
    with stopped.current():
        with pytest.raises(APIError) as listing:
            store.list("ns")
        with pytest.raises(APIError):
            apply_strategic_merge_patch(live, port_patch, thing)
        with pytest.raises(APIError):
            apply_json_patch(live, [{"op": "add", "path": "/x", "value": 1}] * 300)
        with pytest.raises(APIError):
            store.guaranteed_update("f1", "ns", lambda current: {**current, "spec": {"x": 1}})
    assert listing.value.code == 504
    assert store.get("f1", "ns").get("spec") is None  # nothing was written for it
    assert len(store.list("ns")["items"]) == 300  # outside a request, checkpoints pass
    late = work.Work(deadline=0.0)
    with late.current(), pytest.raises(APIError):
        store.list("ns")


def test_a_get_of_one_object_is_answered_while_the_bulk_lane_is_busy():
    """Lists (and patches, large bodies) do their work in the bulk lane; a GET of one object
    in its own: a dozen expensive requests never make it wait, as the API server's priority
    and fairness keeps cheap requests apart from costly ones."""
    import threading

    import httpx

    from conftest import REPO
    from kgen.runtime import work
    from kgen.serve.fake import FakeCluster, _SyncBridge

    path = "/apis/example.kgen.dev/v1/namespaces/default/frobbers"
    with FakeCluster(config=REPO / "pyproject.toml") as cluster:
        client = httpx.Client(transport=_SyncBridge(cluster), base_url="https://fake.cluster", timeout=30)
        created = client.post(
            path,
            json={
                "apiVersion": "example.kgen.dev/v1",
                "kind": "Frobber",
                "metadata": {"name": "one"},
                "spec": {"replicas": 1},
            },
        )
        assert created.status_code == 201, created.text
        release = threading.Event()
        work._executor(work.Lane.BULK).submit(release.wait, 30)  # something expensive holds the bulk lane
        listed: list[int] = []
        lister = threading.Thread(target=lambda: listed.append(client.get(path).status_code))
        lister.start()
        try:
            assert client.get(f"{path}/one").status_code == 200
            assert listed == []  # the list waits its turn in the bulk lane
        finally:
            release.set()
            lister.join(30)
        assert listed == [200]


def test_a_list_is_encoded_item_by_item_to_the_same_bytes():
    from kgen.serve.respond import encode_json

    listed = {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": "7"},
        "items": [{"a": "é", "b": [1, None]}, {}],
    }
    assert encode_json(listed) == json.dumps(listed, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
    assert encode_json({"items": []}) == b'{"items":[]}\n'


# What `kubectl create namespace team-a` sends: the runtime.Unknown envelope around a Namespace
# written by k8s.io/api core/v1 generated.pb.go (Namespace, NamespaceStatus
# MarshalToSizedBuffer): every non-pointer field, so an empty spec and an empty phase too.
KUBECTL_NAMESPACE = b"k8s\x00" + bytes.fromhex(
    "0a 0f 0a 02 76 31 12 09 4e 61 6d 65 73 70 61 63 65"  # typeMeta: v1, Namespace
    "12 1e 0a 16 0a 06 74 65 61 6d 2d 61 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00"  # raw: ObjectMeta
    "12 00 1a 02 0a 00"  # raw: spec {}, status {phase: ""}
    "1a 00 22 00"  # contentEncoding, contentType
)


def test_namespace_protobuf_is_what_client_go_writes():
    """A Namespace is read from and written to protobuf by the Go-type codec of the built-in
    kinds: kubectl's bytes read as the JSON Go writes (the empty fields gogo wrote left out),
    the same bytes written back, conditions kept, and a NamespaceList as ListMeta and items."""
    from kgen.runtime import protobuf
    from kgen.serve.builtins import wire
    from kgen.serve.namespaces import NAMESPACE_LIST, NamespaceFlow, namespace_from_protobuf, namespace_to_protobuf

    read = namespace_from_protobuf(KUBECTL_NAMESPACE)
    assert read == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "creationTimestamp": None},
                    "spec": {}, "status": {}}  # fmt: skip
    assert namespace_to_protobuf({"metadata": {"name": "team-a"}}) == KUBECTL_NAMESPACE
    condition = {"type": "NamespaceDeletionContentFailure", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z",
                 "reason": "ContentDeletionFailed", "message": "failed"}  # fmt: skip
    stored = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gone", "uid": "u", "resourceVersion": "4"},
              "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Terminating", "conditions": [condition]}}  # fmt: skip
    back = namespace_from_protobuf(namespace_to_protobuf(stored))
    assert back["status"] == stored["status"] and back["spec"] == stored["spec"]
    listed = NamespaceFlow().encode_protobuf_list({"metadata": {"resourceVersion": "9"}, "items": [stored]}, "v1")
    envelope = protobuf.decode_envelope(listed)
    assert (envelope.api_version, envelope.kind) == ("v1", "NamespaceList")
    decoded = wire.unmarshal(NAMESPACE_LIST, envelope.raw)
    assert decoded["metadata"]["resourceVersion"] == "9" and decoded["items"][0]["metadata"]["name"] == "gone"
    with pytest.raises(protobuf.ProtobufError, match="expected a v1 Namespace"):
        namespace_from_protobuf(wire.encode_object({}, NAMESPACE_LIST, "v1", "NamespaceList"))
