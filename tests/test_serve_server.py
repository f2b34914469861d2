"""kgen serve as a process: TLS and bearer tokens, graceful shutdown, persistence in a SQLite
file across restarts, settings it refuses, and an API repository other than kgen's own
(one version without a hub, a selectable field, a cluster-scoped kind)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import httpx
import pytest

from tests.serve_fixtures import MODELS, REPO, ServeProcess, example_api, frobber, requires_kubectl

# Every test starts kgen serve (uvicorn) in a subprocess.
pytestmark = pytest.mark.slow

FROBBERS = "/apis/example.kgen.dev/v1/namespaces/default/frobbers"


@requires_kubectl
def test_tls_with_a_token_and_a_self_signed_certificate():
    with ServeProcess("--tls") as server:
        assert server.url.startswith("https://127.0.0.1:") and server.token and server.ca.startswith(b"-----BEGIN CERTIFICATE")
        with server.client() as client:
            assert client.get("/apis").status_code == 200
        with httpx.Client(base_url=server.url, verify=server.verify()) as anonymous:
            refused = anonymous.get("/apis")
            assert refused.status_code == 401 and refused.json()["reason"] == "Unauthorized"
            assert anonymous.get("/healthz").text == "ok"
            assert anonymous.get("/apis", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert "frobbers" in server.kubectl("api-resources").stdout
        assert (server.kubeconfig.stat().st_mode & 0o777) == 0o600


def test_graceful_shutdown_ends_watches_and_keeps_every_write(tmp_path):
    database = tmp_path / "store.db"
    with ServeProcess(storage=f"sqlite:{database}") as server:
        with server.client() as client:
            for index in range(20):
                assert client.post(FROBBERS, json=frobber(f"keep-{index}", "default")).status_code == 201
            opened, ended = threading.Event(), threading.Event()

            def watch():
                with server.client() as watcher, watcher.stream("GET", FROBBERS, params={"watch": "1"}) as stream:
                    opened.set()
                    for _ in stream.iter_lines():
                        pass
                ended.set()  # the stream ended cleanly (an error would leave this unset)

            thread = threading.Thread(target=watch, daemon=True)
            thread.start()
            assert opened.wait(10)
            started = time.monotonic()
            assert server.stop(signal.SIGTERM) == 0
            assert time.monotonic() - started < 8 and ended.wait(5)
    with ServeProcess(storage=f"sqlite:{database}") as again, again.client() as client:
        names = [item["metadata"]["name"] for item in client.get(FROBBERS).json()["items"]]
        assert names == sorted(f"keep-{index}" for index in range(20))


def test_settings_it_refuses(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "kgen.cli", "serve", "--port", "0", "--kubeconfig", str(tmp_path / "k"), *args],
                              cwd=REPO, capture_output=True, text=True, timeout=120)  # fmt: skip

    storage = run("--storage", "redis://x")
    assert storage.returncode == 2 and "expected sqlite:PATH, sqlite::memory: or etcd:http://HOST:PORT" in storage.stderr
    gates = run("--feature-gates", "FrobberTurbo=maybe")
    assert gates.returncode == 2 and "expected GATE=true or GATE=false" in gates.stderr
    unreachable = run("--storage", "etcd:http://127.0.0.1:1")
    assert unreachable.returncode == 2 and "etcd does not answer" in unreachable.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run("--port", str(port))
    assert busy.returncode == 2 and f"cannot serve on 127.0.0.1:{port}" in busy.stderr
    # Exposure: plain HTTP off loopback only when asked by name; no authentication only on loopback.
    plain = run("--address", "0.0.0.0", "--no-tls")
    assert plain.returncode == 2 and "--allow-plain-http-on-network" in plain.stderr
    open_to_all = run("--address", "0.0.0.0", "--no-auth")
    assert open_to_all.returncode == 2 and "authentication can only be turned off on a loopback address" in open_to_all.stderr


WIDGETS = {
    "pyproject.toml": """
        [tool.kgen]
        input = "apis"
        output = "generated"
        module = "example.com/widgets/apis"
    """,
    "apis/widgets/v1/doc.go": """
        // +groupName=widgets.example.com
        package v1
    """,
    "apis/widgets/v1/types.go": """
        package v1

        import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

        // +genclient
        // +kubebuilder:object:root=true
        // +kubebuilder:selectablefield:JSONPath=`.spec.color`

        // Widget is a thing with a colour.
        type Widget struct {
            metav1.TypeMeta   `json:",inline"`
            metav1.ObjectMeta `json:"metadata,omitempty"`
            Spec WidgetSpec `json:"spec"`
        }

        // WidgetSpec is what a widget is.
        type WidgetSpec struct {
            // Color of the widget.
            // +kubebuilder:validation:Enum=red;green
            Color string `json:"color"`
        }

        // +kubebuilder:object:root=true

        // WidgetList is a list of widgets.
        type WidgetList struct {
            metav1.TypeMeta `json:",inline"`
            metav1.ListMeta `json:"metadata,omitempty"`
            Items []Widget `json:"items"`
        }

        // +genclient
        // +genclient:nonNamespaced
        // +kubebuilder:object:root=true
        // +kubebuilder:resource:scope=Cluster

        // Rack holds widgets, cluster-wide.
        type Rack struct {
            metav1.TypeMeta   `json:",inline"`
            metav1.ObjectMeta `json:"metadata,omitempty"`
            // Size of the rack.
            Size int32 `json:"size,omitempty"`
        }

        // +kubebuilder:object:root=true

        // RackList is a list of racks.
        type RackList struct {
            metav1.TypeMeta `json:",inline"`
            metav1.ListMeta `json:"metadata,omitempty"`
            Items []Rack `json:"items"`
        }
    """,
}


@pytest.mark.parametrize("models", MODELS)
def test_another_api_repository(tmp_path, models):
    for relative, text in WIDGETS.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    # The backend from the command line (`models = ...` in [tool.kgen] is what the other tests use).
    with ServeProcess("--models", models, cwd=tmp_path) as server, server.client() as client:
        widgets = "/apis/widgets.example.com/v1/namespaces/default/widgets"
        for name, color in (("a", "red"), ("b", "green"), ("c", "red")):
            body = {"apiVersion": "widgets.example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": {"color": color}}
            assert client.post(widgets, json=body).status_code == 201
        red = client.get(widgets, params={"fieldSelector": "spec.color=red"}).json()
        assert [item["metadata"]["name"] for item in red["items"]] == ["a", "c"]
        blue = {"apiVersion": "widgets.example.com/v1", "kind": "Widget", "metadata": {"name": "d"}, "spec": {"color": "blue"}}
        invalid = client.post(widgets, json=blue)
        assert invalid.status_code == 422 and invalid.json()["details"]["causes"][0]["field"] == "spec.color"
        rack = {"apiVersion": "widgets.example.com/v1", "kind": "Rack", "metadata": {"name": "top"}, "size": 3}
        assert client.post("/apis/widgets.example.com/v1/racks", json=rack).status_code == 201
        assert client.get("/apis/widgets.example.com/v1/namespaces/default/racks/top").status_code == 404
        table = client.get("/apis/widgets.example.com/v1/racks", headers={"Accept": "application/json;as=Table;g=meta.k8s.io;v=v1"}).json()
        assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Age"]
        resources = {r["name"] for r in client.get("/apis/widgets.example.com/v1").json()["resources"]}
        assert resources == {"widgets", "racks"}
        assert f"models: {models})" in server.output()


@pytest.mark.parametrize("models", MODELS)
def test_a_custom_resource_is_validated_by_its_crd_whatever_the_feature_gates(request, tmp_path, models):
    """Feature gates steer the typed code (validation-gen's +k8s:ifEnabled, conversion hooks);
    a cluster validates a custom resource by its CRD, which no gate changes: what was stored
    with the gates on is read and updated with them off, across a restart of the store."""
    database = tmp_path / "store.db"
    config = example_api(request, models).config
    with ServeProcess("--feature-gates", "FrobberFrantic=true,FrobberTurbo=true", storage=f"sqlite:{database}", config=config) as server:
        with server.client() as client:
            created = client.post(FROBBERS, json=frobber("alpha", "default", mode="Frantic", turbo=True))
            assert created.status_code == 201 and created.json()["spec"]["turbo"] is True
    with ServeProcess(storage=f"sqlite:{database}", config=config) as server, server.client() as client:
        stored = client.get(FROBBERS + "/alpha").json()
        stored["spec"]["replicas"] = 3
        updated = client.put(FROBBERS + "/alpha", json=stored)
        assert updated.status_code == 200, updated.text
        assert updated.json()["spec"]["mode"] == "Frantic" and updated.json()["spec"]["turbo"] is True
        same = client.post(FROBBERS, json=frobber("new", "default", mode="Frantic", turbo=True))
        assert same.status_code == 201 and same.json()["spec"]["turbo"] is True


def test_a_restarted_in_memory_server_is_a_new_epoch_old_versions_are_gone():
    """In memory, a restart begins an empty store; a client resuming a watch or an exact read
    at a version of the earlier run must relist (410 Gone, as after a reset etcd cluster),
    never be served a stream that silently skips what it missed."""
    path = "/apis/example.kgen.dev/v1/namespaces/default/frobbers"
    with ServeProcess() as first, first.client() as client:
        created = client.post(path, json=frobber("a")).json()
        old = created["metadata"]["resourceVersion"]
    with ServeProcess() as second, second.client() as client:
        current = client.get(path).json()["metadata"]["resourceVersion"]
        assert int(current) > int(old)
        exact = client.get(path, params={"resourceVersion": old, "resourceVersionMatch": "Exact"})
        assert exact.status_code == 410 and exact.json()["reason"] == "Expired", exact.text
        with client.stream("GET", path, params={"watch": "1", "resourceVersion": old}, timeout=10) as watch:
            first_event = json.loads(next(watch.iter_lines()))
        assert first_event["type"] == "ERROR" and first_event["object"]["code"] == 410, first_event


def test_a_store_given_an_epoch_counts_earlier_revisions_as_compacted():
    from kgen.runtime.store import MemoryBackend, SqliteBackend
    from kgen.runtime.store.backend import CompactedError

    for backend in (MemoryBackend(epoch=1_000), SqliteBackend(":memory:", epoch=1_000)):
        kv = backend.create("/k", b"v")
        assert kv.mod_revision == 1_001
        with pytest.raises(CompactedError):
            backend.range("/", revision=999)
        backend.close()


def test_a_token_is_required_by_default_even_on_loopback_and_the_host_must_be_loopback(tmp_path):
    """A web page that reaches 127.0.0.1 (DNS rebinding) or another user's process on the
    machine finds nothing without the token; kubectl and the clients read it from the
    kubeconfig. The token is taken from a file here (a command line is visible to `ps`)."""
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token\n")
    with ServeProcess("--token-file", str(token_file)) as server:
        assert server.url.startswith("https://127.0.0.1:") and server.token == "s3cret-token"
        with httpx.Client(base_url=server.url, verify=server.verify()) as anonymous:
            assert anonymous.get("/apis").status_code == 401
            assert anonymous.get("/readyz").text == "ok"
        with server.client() as client:
            assert client.get("/apis").status_code == 200
            port = server.url.rsplit(":", 1)[1]
            for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
                assert client.get("/apis", headers={"Host": host}).status_code == 200
            rebound = client.get("/apis", headers={"Host": f"attacker.example:{port}"})
            assert rebound.status_code == 403 and rebound.json()["reason"] == "Forbidden", rebound.text


def test_a_token_on_the_command_line_is_warned_about_and_no_auth_serves_plain_http_on_loopback(tmp_path):
    with ServeProcess("--token", "visible-token") as server:
        assert "visible to every local user" in server.output()
    with ServeProcess("--no-tls", "--no-auth") as server, server.client() as client:
        assert server.url.startswith("http://127.0.0.1:") and not server.token
        assert client.get("/apis").status_code == 200


def test_the_tls_key_is_private_and_keys_of_killed_servers_are_removed(tmp_path):
    cache = tmp_path / "cache"
    stale = cache / "serve" / "tls" / "pid-999999999-old"
    stale.mkdir(parents=True)
    (stale / "tls.key").write_text("left behind")
    with ServeProcess(env={"KGEN_CACHE_DIR": str(cache)}) as server:
        assert not stale.exists()
        (mine,) = [p for p in (cache / "serve" / "tls").iterdir()]
        assert (mine.stat().st_mode & 0o777) == 0o700 and (mine / "tls.key").is_file()
        server.stop(signal.SIGKILL)
    assert mine.exists()  # a killed server cannot clean up: the next start does
    with ServeProcess(env={"KGEN_CACHE_DIR": str(cache)}):
        assert not mine.exists()


def test_websocket_upgrades_need_the_token_too():
    import asyncio

    from kgen.serve.security import BearerTokenAuth

    reached, sent = [], []

    async def app(scope, receive, send):
        reached.append(scope["type"])

    async def send(message):
        sent.append(message)

    guarded = BearerTokenAuth(app, "t")
    scope = {"type": "websocket", "path": "/api/v1/namespaces/default/pods/p/exec", "headers": []}
    asyncio.run(guarded(scope, None, send))
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]
    asyncio.run(guarded({**scope, "headers": [(b"authorization", b"Bearer t")]}, None, send))
    assert reached == ["websocket"]


def _raw_get(server: ServeProcess, target: str, extra_headers: str = "") -> tuple[int, dict]:
    """GET `target` over the server's TLS with its token, written by hand: HTTP clients
    refuse URLs this long before they are sent."""
    import ssl
    from urllib.parse import urlsplit

    url = urlsplit(server.url)
    context = ssl.create_default_context(cadata=server.ca.decode())
    with socket.create_connection((url.hostname, url.port), timeout=30) as raw, context.wrap_socket(raw, server_hostname=url.hostname) as tls:
        tls.sendall(
            f"GET {target} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: Bearer {server.token}\r\n"
            f"Accept: application/json\r\n{extra_headers}Connection: close\r\n\r\n".encode()
        )
        data = b""
        while chunk := tls.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_long_selectors_and_urls_reach_the_api_and_get_a_status():
    """Go's http server takes a megabyte of request line and headers, and the API answers
    what is inside with a Status (an invalid selector is 400 BadRequest, an unknown path 404)."""
    with ServeProcess() as server:
        path = "/apis/example.kgen.dev/v1/namespaces/default/frobbers"
        status, body = _raw_get(server, path + "?labelSelector=a%3D" + "b" * 900_000)
        assert status == 400 and body["kind"] == "Status" and body["reason"] == "BadRequest", body
        status, body = _raw_get(server, path + "/" + "x" * 100_000)
        assert status in (400, 404) and body["kind"] == "Status", body
        # Past the megabyte Go's server answers 431 (net/http's errTooLarge); here as a Status.
        status, body = _raw_get(server, path, extra_headers="X-Padding: " + "p" * 2_000_000 + "\r\n")
        assert status == 431 and body["kind"] == "Status" and body["code"] == 431, body
        # A request the HTTP parser cannot read at all is 400, a Status too.
        status, body = _raw_get(server, path, extra_headers="Broken header line\r\n")
        assert status == 400 and body["kind"] == "Status" and body["reason"] == "BadRequest", body


def test_clients_trickling_their_bodies_hold_no_write_slot_on_a_real_server():
    """Fifty clients send a POST's headers and then a byte now and then: kube-apiserver
    counts a request against --max-mutating-requests-inflight while its handler runs, and
    its handler reads the body within --request-timeout. Honest writers still get through
    (201, not 429), and each trickler ends in 504 Timeout once its deadline passes."""
    import ssl
    from urllib.parse import urlsplit

    with ServeProcess("--max-mutating-requests-inflight", "5", "--request-timeout", "4") as server:
        url = urlsplit(server.url)
        context = ssl.create_default_context(cadata=server.ca.decode())
        path = "/apis/example.kgen.dev/v1/namespaces/default/frobbers"
        tricklers = []
        try:
            for _ in range(50):
                raw = socket.create_connection((url.hostname, url.port), timeout=30)
                tls = context.wrap_socket(raw, server_hostname=url.hostname)
                tls.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: Bearer {server.token}\r\n"
                    "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{".encode()
                )
                tricklers.append(tls)
            time.sleep(0.5)
            with server.client() as client:
                for i in range(3):
                    body = {"apiVersion": "example.kgen.dev/v1", "kind": "Frobber", "metadata": {"name": f"honest-{i}"}, "spec": {"replicas": 1}}
                    answer = client.post(path, json=body)
                    assert answer.status_code == 201, answer.text[:300]
            for tls in tricklers[:5]:
                tls.sendall(b" ")  # still sending, slowly
            for tls in tricklers:
                data = b""
                while b"\r\n\r\n" not in data and (chunk := tls.recv(65536)):
                    data += chunk
                assert data.split()[1] == b"504", data[:200]
        finally:
            for tls in tricklers:
                tls.close()
