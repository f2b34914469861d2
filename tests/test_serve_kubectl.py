"""kubectl (v1.32) against kgen serve: what a user types works as on a cluster.

Each test runs kubectl in a subprocess with the kubeconfig the server wrote and a private
HOME (kubectl's discovery cache); objects have names of their own, so tests share one server.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.serve_fixtures import MODELS, ServeProcess, example_api, requires_kubectl

# kubectl against kgen serve (uvicorn) in a subprocess.
pytestmark = [requires_kubectl, pytest.mark.slow]


@pytest.fixture(scope="module", params=MODELS)
def server(request):
    with ServeProcess(config=example_api(request, request.param).config) as process:
        yield process


def manifest(name: str, **spec) -> str:
    return json.dumps({"apiVersion": "example.kgen.dev/v1", "kind": "Frobber", "metadata": {"name": name}, "spec": spec})


def test_api_resources(server):
    out = server.kubectl("api-resources").stdout
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert lines["frobbers"] == ["frobbers", "fb", "example.kgen.dev/v1", "true", "Frobber"]
    assert lines["frobberclasses"] == ["frobberclasses", "fbc", "example.kgen.dev/v1", "false", "FrobberClass"]
    assert lines["namespaces"] == ["namespaces", "ns", "v1", "false", "Namespace"]
    assert "frobbers" in server.kubectl("api-resources", "--categories=frob", "-o", "name").stdout


def test_apply_creates_then_configures(server):
    assert "frobber.example.kgen.dev/apply created" in server.kubectl("apply", "-f", "-", input=manifest("apply", replicas=2)).stdout
    assert "configured" in server.kubectl("apply", "-f", "-", input=manifest("apply", replicas=3)).stdout
    assert "unchanged" in server.kubectl("apply", "-f", "-", input=manifest("apply", replicas=3)).stdout
    got = json.loads(server.kubectl("get", "frobber", "apply", "-o", "json").stdout)
    assert got["spec"]["replicas"] == 3 and got["metadata"]["generation"] == 2


def test_server_side_apply_conflict_and_force(server):
    server.kubectl("apply", "--server-side", "-f", "-", input=manifest("ssa", replicas=2))
    conflict = server.kubectl("apply", "--server-side", "--field-manager=other", "-f", "-", input=manifest("ssa", replicas=4), check=False)
    assert conflict.returncode != 0
    assert 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas' in conflict.stderr
    server.kubectl("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-", input=manifest("ssa", replicas=4))
    got = json.loads(server.kubectl("get", "fb", "ssa", "-o", "json", "--show-managed-fields").stdout)
    assert got["spec"]["replicas"] == 4
    assert [m["manager"] for m in got["metadata"]["managedFields"]] == ["other"]


def test_get_yaml_and_printer_columns(server):
    server.kubectl("create", "-f", "-", input=manifest("cols", mode="Vigorous"))
    text = server.kubectl("get", "fb", "cols", "-o", "yaml").stdout
    assert "kind: Frobber" in text and "mode: Vigorous" in text and "uid:" in text
    table = server.kubectl("get", "frobbers").stdout.splitlines()
    assert table[0].split() == ["NAME", "MODE", "PHASE", "AGE"]
    assert any(line.split()[:2] == ["cols", "Vigorous"] for line in table[1:])
    wide = server.kubectl("get", "frobbers.v1beta1.example.kgen.dev", "cols").stdout.splitlines()
    assert wide[0].split() == ["NAME", "AGE"]


def test_get_watch_sees_a_change(server):
    server.kubectl("create", "-f", "-", input=manifest("watched", mode="Gentle"))
    env_args = ["get", "fb", "watched", "-w", "--request-timeout=20s"]
    import os

    env = {**os.environ, "KUBECONFIG": str(server.kubeconfig), "HOME": str(server.home)}
    watcher = subprocess.Popen(["kubectl", *env_args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = watcher.stdout.readline()
        assert first.split()[:3] == ["NAME", "MODE", "PHASE"]
        assert watcher.stdout.readline().split()[:2] == ["watched", "Gentle"]
        server.kubectl("patch", "fb", "watched", "--type=merge", "-p", '{"spec":{"mode":"Vigorous"}}')
        deadline = time.monotonic() + 15
        line = ""
        while time.monotonic() < deadline and "Vigorous" not in line:
            line = watcher.stdout.readline()
        assert line.split()[:2] == ["watched", "Vigorous"]
    finally:
        watcher.kill()
        watcher.wait()


def test_replace_with_a_stale_resource_version_is_a_conflict(server):
    server.kubectl("create", "-f", "-", input=manifest("stale"))
    stale = server.kubectl("get", "fb", "stale", "-o", "json").stdout
    server.kubectl("patch", "fb", "stale", "--type=merge", "-p", '{"spec":{"priority":5}}')
    edited = json.loads(stale)
    edited["spec"]["description"] = "edited"
    result = server.kubectl("replace", "-f", "-", input=json.dumps(edited), check=False)
    assert result.returncode != 0
    assert "Error from server (Conflict)" in result.stderr and "the object has been modified" in result.stderr


def test_patch_types(server):
    server.kubectl("create", "-f", "-", input=manifest("patched", ports=[{"name": "http", "port": 80}]))
    server.kubectl("patch", "fb", "patched", "--type=merge", "-p", '{"spec":{"mode":"Vigorous"}}')
    server.kubectl("patch", "fb", "patched", "--type=json", "-p", '[{"op":"replace","path":"/spec/replicas","value":4}]')
    # A Frobber is a custom resource: a cluster refuses a strategic merge patch of it (415).
    strategic = server.kubectl("patch", "fb", "patched", "--type=strategic", "-p", '{"spec":{"ports":[{"name":"https","port":443}]}}', check=False)
    assert strategic.returncode != 0
    assert "application/strategic-merge-patch+json is not supported by example.kgen.dev/v1, Kind=Frobber" in strategic.stderr
    got = json.loads(server.kubectl("get", "fb", "patched", "-o", "json").stdout)
    assert got["spec"]["mode"] == "Vigorous" and got["spec"]["replicas"] == 4
    assert [p["name"] for p in got["spec"]["ports"]] == ["http"]
    invalid = server.kubectl("patch", "fb", "patched", "--type=merge", "-p", '{"spec":{"replicas":-1}}', check=False)
    assert invalid.returncode != 0 and "spec.replicas: Invalid value: -1" in invalid.stderr


def test_delete_with_a_finalizer(server):
    server.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "example.kgen.dev/v1", "kind": "Frobber",
        "metadata": {"name": "held", "finalizers": ["example.kgen.dev/hold"]},
    }))  # fmt: skip
    server.kubectl("delete", "fb", "held", "--wait=false")
    assert server.kubectl("get", "fb", "held", "-o", "jsonpath={.metadata.deletionTimestamp}").stdout
    server.kubectl("patch", "fb", "held", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    gone = server.kubectl("get", "fb", "held", check=False)
    assert gone.returncode != 0 and 'frobbers.example.kgen.dev "held" not found' in gone.stderr


def test_explain(server):
    out = server.kubectl("explain", "frobbers.spec.ports").stdout
    assert "KIND:       Frobber" in out and "VERSION:    v1" in out
    assert "Ports the Frobber listens on, keyed by name." in out and "port\t<integer> -required-" in out
    beta = server.kubectl("explain", "frobbers.spec.param", "--api-version=example.kgen.dev/v1beta1").stdout
    assert "VERSION:    v1beta1" in beta


def test_namespaces_and_unknown_fields(server):
    server.kubectl("create", "namespace", "team-a")
    server.kubectl("-n", "team-a", "create", "-f", "-", input=manifest("in-a"))
    assert "in-a" in server.kubectl("get", "fb", "-A").stdout
    unknown = server.kubectl("apply", "-f", "-", input=manifest("unknown", nope=1), check=False)
    assert unknown.returncode != 0 and 'unknown field "spec.nope"' in unknown.stderr


def test_a_third_party_crd_applied_at_runtime(server):
    """`kubectl apply -f` of a CRD with no Go types here installs its kind, as on a cluster:
    kubectl finds it in discovery, creates, lists with its printer columns, applies changes
    (a merge patch: the operation lists no strategic merge), watches and deletes it, and
    deleting the CRD removes the kind."""
    from tests.test_custom_resources import THIRD_PARTY_CRD

    out = server.kubectl("apply", "-f", "-", input=THIRD_PARTY_CRD).stdout
    assert "customresourcedefinition.apiextensions.k8s.io/certificates.certs.example.io created" in out
    server.kubectl("wait", "--for=condition=Established", "crd/certificates.certs.example.io", "--timeout=20s")
    cert = {"apiVersion": "certs.example.io/v1", "kind": "Certificate", "metadata": {"name": "web"}, "spec": {"secretName": "web-tls"}}
    assert "certificate.certs.example.io/web created" in server.kubectl("apply", "-f", "-", input=json.dumps(cert)).stdout
    cert["spec"]["dnsNames"] = ["example.com"]
    assert "configured" in server.kubectl("apply", "-f", "-", input=json.dumps(cert)).stdout
    table = server.kubectl("get", "cert").stdout.splitlines()
    assert table[0].split() == ["NAME", "SECRET"] and table[1].split() == ["web", "web-tls"]
    got = json.loads(server.kubectl("get", "certificate", "web", "-o", "json").stdout)
    assert got["spec"] == {"secretName": "web-tls", "duration": "2160h", "dnsNames": ["example.com"]}
    invalid = server.kubectl("apply", "-f", "-", input=json.dumps({**cert, "spec": {"secretName": "x" * 21}}), check=False)
    assert invalid.returncode != 0 and "spec.secretName: Too long: may not be more than 20 bytes" in invalid.stderr
    server.kubectl("delete", "crd", "certificates.certs.example.io")
    gone = server.kubectl("get", "certificates.certs.example.io", check=False)
    assert gone.returncode != 0


def test_builtin_kinds_with_kubectl(server):
    """ConfigMaps, Secrets and ServiceAccounts as kubectl makes them (its typed clients send
    protobuf), read back and printed with the API server's columns (printers.go: DATA,
    TYPE, SECRETS, AGE); an event posted through events.k8s.io/v1 is one of `kubectl get
    events` (the two groups share it)."""
    import base64

    assert server.kubectl("create", "configmap", "kc", "--from-literal=a=b").stdout.strip() == "configmap/kc created"
    assert (
        server.kubectl("create", "secret", "generic", "ks", "--from-literal=k=v").stdout.strip() == "secret/ks created"
    )
    assert server.kubectl("get", "secret", "ks", "-o", "jsonpath={.data.k}").stdout == base64.b64encode(b"v").decode()
    assert server.kubectl("create", "serviceaccount", "ksa").stdout.strip() == "serviceaccount/ksa created"
    tables = [block.splitlines() for block in server.kubectl("get", "cm,secret,sa").stdout.strip().split("\n\n")]
    headers = [table[0].split() for table in tables]
    assert headers == [["NAME", "DATA", "AGE"], ["NAME", "TYPE", "DATA", "AGE"], ["NAME", "SECRETS", "AGE"]]
    listed = {line.split()[0]: line.split() for table in tables for line in table[1:]}
    assert listed["configmap/kc"][1] == "1"
    assert listed["secret/ks"][1:3] == ["Opaque", "1"]
    assert listed["serviceaccount/ksa"][1] == "0"
    event = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "kubectl-seen"},
             "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/operator",
             "reportingInstance": "operator-0", "action": "Reconcile", "reason": "Reconciled", "type": "Normal",
             "note": "reconciled the frobber", "regarding": {"kind": "Frobber", "name": "f", "namespace": "default"}}  # fmt: skip
    with server.client() as http:
        made = http.post("/apis/events.k8s.io/v1/namespaces/default/events", json=event)
        assert made.status_code == 201, made.text
    shown = server.kubectl("get", "events").stdout.splitlines()
    assert shown[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    row = next(line for line in shown[1:] if "frobber/f" in line)
    assert row.split()[1:] == ["Normal", "Reconciled", "frobber/f", "reconciled", "the", "frobber"]
    assert "frobber/f" in server.kubectl("get", "events.events.k8s.io").stdout
    assert (
        "kubectl-seen" in server.kubectl("get", "ev", "--field-selector", "involvedObject.name=f", "-o", "name").stdout
    )
