"""kgen serve's discovery, OpenAPI documents and representations (memory storage).

What kubectl and client libraries read before they touch an object (/api, /apis,
aggregated discovery, /openapi/v2, /openapi/v3, /version, health), and every form an
object travels in: JSON, YAML, protobuf (objects, lists, bodies, watch frames, errors),
Table with the printer columns, PartialObjectMetadata, gzip; field validation warnings.
"""

from __future__ import annotations

import gzip
import json
import struct

import pytest

from tests.serve_fixtures import MODELS, ServeProcess, example_api, frobber

# kgen serve (uvicorn) in a subprocess.
pytestmark = pytest.mark.slow

FROBBERS = "/apis/example.kgen.dev/v1/namespaces/default/frobbers"
TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1"
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"


@pytest.fixture(scope="module", params=MODELS)
def server(request):
    with ServeProcess(config=example_api(request, request.param).config) as process:
        yield process


@pytest.fixture(scope="module")
def client(server):
    with server.client() as http:
        yield http


def test_health_and_version(client):
    for path in ("/healthz", "/livez", "/readyz"):
        assert client.get(path).text == "ok"
    version = client.get("/version").json()
    assert version["major"] == "1" and version["gitVersion"].startswith("v1.")


def test_legacy_discovery(client):
    assert client.get("/api").json()["versions"] == ["v1"]
    groups = client.get("/apis").json()
    assert groups["kind"] == "APIGroupList"
    # ValidatingAdmissionPolicies, CustomResourceDefinitions, Leases and events.k8s.io Events are served, as on a cluster.
    registration, extensions, coordination, events, example = groups["groups"]
    assert registration["name"] == "admissionregistration.k8s.io"
    assert (extensions["name"], coordination["name"], events["name"]) == ("apiextensions.k8s.io", "coordination.k8s.io", "events.k8s.io")
    assert example["name"] == "example.kgen.dev"
    assert [v["version"] for v in example["versions"]] == ["v1", "v1beta1"]
    assert example["preferredVersion"]["version"] == "v1"
    assert client.get("/apis/example.kgen.dev").json()["kind"] == "APIGroup"
    resources = {r["name"]: r for r in client.get("/apis/example.kgen.dev/v1").json()["resources"]}
    frobbers = resources["frobbers"]
    assert frobbers["namespaced"] and frobbers["kind"] == "Frobber" and frobbers["singularName"] == "frobber"
    assert frobbers["shortNames"] == ["fb"] and frobbers["categories"] == ["all", "frob"]
    assert set(frobbers["verbs"]) == {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
    assert resources["frobbers/status"]["verbs"] == ["get", "patch", "update"]
    assert not resources["frobberclasses"]["namespaced"] and "frobberclasses/status" not in resources
    core = {r["name"]: r for r in client.get("/api/v1").json()["resources"]}
    assert core["namespaces"]["kind"] == "Namespace" and not core["namespaces"]["namespaced"]
    assert client.get("/apis/nope.example.com").status_code == 404
    assert client.post("/apis").status_code == 405


def test_aggregated_discovery(client):
    response = client.get("/apis", headers={"Accept": AGGREGATED})
    assert response.headers["content-type"] == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    document = response.json()
    assert document["kind"] == "APIGroupDiscoveryList" and document["apiVersion"] == "apidiscovery.k8s.io/v2"
    registration, extensions, coordination, events, group = document["items"]
    assert registration["metadata"]["name"] == "admissionregistration.k8s.io"
    assert events["metadata"]["name"] == "events.k8s.io"
    assert (extensions["metadata"]["name"], coordination["metadata"]["name"]) == ("apiextensions.k8s.io", "coordination.k8s.io")
    assert group["metadata"]["name"] == "example.kgen.dev"
    v1 = next(v for v in group["versions"] if v["version"] == "v1")
    frobbers = next(r for r in v1["resources"] if r["resource"] == "frobbers")
    assert frobbers["scope"] == "Namespaced" and frobbers["responseKind"]["kind"] == "Frobber"
    assert frobbers["subresources"][0]["subresource"] == "status"
    core = client.get("/api", headers={"Accept": AGGREGATED}).json()
    assert [r["resource"] for r in core["items"][0]["versions"][0]["resources"]] == ["configmaps", "events", "namespaces", "secrets", "serviceaccounts"]


def test_openapi_documents(client):
    index = client.get("/openapi/v3").json()["paths"]
    assert set(index) == {"api/v1", "apis/admissionregistration.k8s.io/v1", "apis/apiextensions.k8s.io/v1", "apis/coordination.k8s.io/v1", "apis/events.k8s.io/v1", "apis/example.kgen.dev/v1", "apis/example.kgen.dev/v1beta1"}
    address = index["apis/example.kgen.dev/v1"]["serverRelativeURL"]
    response = client.get(address)
    assert "immutable" in response.headers["cache-control"]
    document = response.json()
    # A custom resource, named as the apiextensions-apiserver names it: the group reversed.
    assert "dev.kgen.example.v1.Frobber" in document["components"]["schemas"]
    assert not [name for name in document["components"]["schemas"] if not name.startswith(("io.k8s.", "dev.kgen.example.v1."))]
    patch = document["paths"]["/apis/example.kgen.dev/v1/namespaces/{namespace}/frobbers/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "example.kgen.dev", "version": "v1", "kind": "Frobber"}
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]
    core = client.get(index["api/v1"]["serverRelativeURL"]).json()
    assert "io.k8s.api.core.v1.Namespace" in core["components"]["schemas"]
    swagger = client.get("/openapi/v2", headers={"Accept": "application/json"}).json()
    assert swagger["swagger"] == "2.0" and "/apis/example.kgen.dev/v1/namespaces/{namespace}/frobbers" in swagger["paths"]
    assert client.get("/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}).status_code == 406


def test_yaml_in_and_out(client):
    body = "apiVersion: example.kgen.dev/v1\nkind: Frobber\nmetadata:\n  name: yaml\nspec:\n  replicas: 2\n"
    created = client.post(FROBBERS, content=body, headers={"Content-Type": "application/yaml", "Accept": "application/yaml"})
    assert created.status_code == 201 and created.headers["content-type"].startswith("application/yaml")
    assert "replicas: 2" in created.text and created.text.startswith("apiVersion: example.kgen.dev/v1\n")


def test_protobuf_objects_lists_bodies_errors_and_watch(client):
    """Built-in kinds travel in protobuf (Namespaces here); a custom resource has no protobuf
    encoding, as the apiextensions-apiserver's serializers are JSON and YAML (406 when the
    client takes nothing else, JSON when it also takes JSON)."""
    from kgen.runtime import protobuf
    from kgen.runtime.apimachinery.meta.v1 import generated_pb2
    from kgen.runtime.apimachinery.meta.v1 import protobuf as _meta  # noqa: F401 - registers Status
    from kgen.runtime.apimachinery.meta.v1.models import Status
    from kgen.serve.namespaces import namespace_from_protobuf, namespace_to_protobuf

    accept = {"Accept": "application/vnd.kubernetes.protobuf"}
    namespaces = "/api/v1/namespaces"
    body = namespace_to_protobuf({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "proto", "labels": {"a": "b"}}})
    created = client.post(namespaces, content=body, headers={"Content-Type": "application/vnd.kubernetes.protobuf", **accept})
    assert created.status_code == 201 and created.headers["content-type"] == "application/vnd.kubernetes.protobuf"
    assert namespace_from_protobuf(created.content)["metadata"]["labels"] == {"a": "b", "kubernetes.io/metadata.name": "proto"}
    listed = client.get(namespaces, headers=accept)
    assert listed.headers["content-type"] == "application/vnd.kubernetes.protobuf"
    assert protobuf.decode_envelope(listed.content).kind == "NamespaceList"
    missing = client.get(namespaces + "/nope", headers=accept)
    envelope = protobuf.decode_envelope(missing.content)
    assert missing.status_code == 404 and (envelope.api_version, envelope.kind) == ("v1", "Status")
    assert protobuf.unmarshal(Status, envelope.raw).reason == "NotFound"
    with client.stream("GET", namespaces, params={"watch": "1", "timeoutSeconds": "1", "fieldSelector": "metadata.name=proto"}, headers=accept) as stream:
        assert stream.headers["content-type"] == "application/vnd.kubernetes.protobuf;stream=watch"
        data = stream.read()
    size = struct.unpack(">I", data[:4])[0]
    event = generated_pb2.WatchEvent()
    event.ParseFromString(data[4 : 4 + size])
    assert event.type == "ADDED" and namespace_from_protobuf(event.object.raw)["metadata"]["name"] == "proto"
    refused = client.get(FROBBERS, headers=accept)
    assert refused.status_code == 406 and refused.json()["reason"] == "NotAcceptable"
    assert client.get(FROBBERS, headers={"Accept": "application/vnd.kubernetes.protobuf, application/json"}).json()["kind"] == "FrobberList"


def test_table_and_partial_metadata(client):
    client.post(FROBBERS, json=frobber("tab", "default", mode="Vigorous"))
    response = client.get(FROBBERS, headers={"Accept": f"{TABLE},application/json"})
    assert response.headers["content-type"] == TABLE
    table = response.json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Mode", "Phase", "Age"]
    row = next(r for r in table["rows"] if r["cells"][0] == "tab")
    assert row["cells"][1:3] == ["Vigorous", None] and row["cells"][3].endswith("s")
    assert row["object"]["kind"] == "PartialObjectMetadata" and row["object"]["metadata"]["name"] == "tab"
    one = client.get(FROBBERS + "/tab", headers={"Accept": TABLE}, params={"includeObject": "None"}).json()
    assert len(one["rows"]) == 1 and "object" not in one["rows"][0]
    beta = client.get(FROBBERS.replace("/v1/", "/v1beta1/"), headers={"Accept": TABLE}).json()
    assert [c["name"] for c in beta["columnDefinitions"]] == ["Name", "Age"]  # no printer columns: Age
    partial = client.get(FROBBERS, headers={"Accept": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"}).json()
    assert partial["kind"] == "PartialObjectMetadataList" and all("spec" not in i for i in partial["items"])
    namespaces = client.get("/api/v1/namespaces", headers={"Accept": TABLE}).json()
    assert [c["name"] for c in namespaces["columnDefinitions"]] == ["Name", "Status", "Age"]
    with client.stream("GET", FROBBERS, params={"watch": "1", "timeoutSeconds": "1", "fieldSelector": "metadata.name=tab"}, headers={"Accept": TABLE}) as stream:
        events = [json.loads(line) for line in stream.iter_lines() if line]
    assert events[0]["object"]["kind"] == "Table" and events[0]["object"]["rows"][0]["cells"][0] == "tab"


def test_large_responses_are_gzipped(client):
    for index in range(3):
        body = frobber(f"large-{index}", "default")
        body["metadata"]["annotations"] = {"blob": "x" * 60_000}
        assert client.post(FROBBERS, json=body).status_code == 201
    raw = client.get(FROBBERS, headers={"Accept-Encoding": "gzip"}, extensions={})
    assert raw.headers.get("content-encoding") == "gzip"
    assert len(raw.json()["items"]) >= 3  # httpx decompressed it
    plain = client.get(FROBBERS, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert len(gzip.compress(plain.content)) < len(plain.content)


def test_field_validation_modes(client):
    body = frobber("fv", "default")
    body["spec"]["nope"] = 1
    strict = client.post(FROBBERS, json=body, params={"fieldValidation": "Strict"})
    assert strict.status_code == 400 and 'unknown field "spec.nope"' in strict.json()["message"]
    warned = client.post(FROBBERS, json=body, params={"fieldValidation": "Warn"})
    assert warned.status_code == 201 and warned.headers["warning"] == '299 - "unknown field \\"spec.nope\\""'
    body["metadata"]["name"] = "fv2"
    assert client.post(FROBBERS, json=body, params={"fieldValidation": "Ignore"}).status_code == 201
    assert client.post(FROBBERS, json=body, params={"fieldValidation": "Loose"}).status_code == 400


def test_patches_of_a_custom_resource(client):
    """A custom resource takes JSON patch, merge patch and apply (a merge patch replaces a
    list whole, whatever its strategy); a strategic merge patch is 415, listing the others."""
    client.post(FROBBERS, json=frobber("smp", "default", ports=[{"name": "http", "port": 80}], params=["a"]))
    refused = client.patch(FROBBERS + "/smp", content=b'{"spec":{"params":["b"]}}',
                           headers={"Content-Type": "application/strategic-merge-patch+json"})  # fmt: skip
    assert refused.status_code == 415 and refused.json()["message"] == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    )
    merged = client.patch(FROBBERS + "/smp", content=b'{"spec":{"ports":[{"name":"only","port":1}]}}',
                          headers={"Content-Type": "application/merge-patch+json"}).json()  # fmt: skip
    assert [p["name"] for p in merged["spec"]["ports"]] == ["only"]
    managers = [(m["manager"], m["operation"]) for m in merged["metadata"]["managedFields"]]
    assert ("python-httpx", "Update") in managers