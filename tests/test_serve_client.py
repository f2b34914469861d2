"""The official `kubernetes` Python client (its dynamic client) against kgen serve:
discovery, create, get, list, patch, replace, delete and watch, as against a cluster."""

from __future__ import annotations

import threading
import time

import pytest

from tests.serve_fixtures import MODELS, ServeProcess, example_api

# kgen serve (uvicorn) in a subprocess, driven by the official Python client.
pytestmark = pytest.mark.slow

kubernetes = pytest.importorskip("kubernetes")


@pytest.fixture(scope="module", params=MODELS)
def dynamic(request):
    from kubernetes import config, dynamic

    with ServeProcess(config=example_api(request, request.param).config) as server:
        yield dynamic.DynamicClient(config.new_client_from_config(config_file=str(server.kubeconfig)))


@pytest.fixture(scope="module")
def frobbers(dynamic):
    return dynamic.resources.get(api_version="example.kgen.dev/v1", kind="Frobber")


def body(name: str, **spec) -> dict:
    return {"apiVersion": "example.kgen.dev/v1", "kind": "Frobber", "metadata": {"name": name}, "spec": spec}


def test_discovery_finds_every_resource(dynamic):
    assert dynamic.resources.get(api_version="example.kgen.dev/v1beta1", kind="Frobber").namespaced
    classes = dynamic.resources.get(api_version="example.kgen.dev/v1", kind="FrobberClass")
    assert not classes.namespaced and classes.name == "frobberclasses"
    assert dynamic.resources.get(api_version="v1", kind="Namespace").name == "namespaces"


def test_crud(dynamic, frobbers):
    from kubernetes.dynamic.exceptions import ConflictError, NotFoundError, UnprocessibleEntityError

    created = frobbers.create(body=body("crud", replicas=2), namespace="default")
    assert created.metadata.uid and created.spec.mode == "Gentle"
    fetched = frobbers.get(name="crud", namespace="default")
    assert fetched.spec.replicas == 2
    assert "crud" in [item.metadata.name for item in frobbers.get(namespace="default").items]
    patched = frobbers.patch(name="crud", namespace="default", body={"spec": {"replicas": 3}}, content_type="application/merge-patch+json")
    assert patched.spec.replicas == 3 and patched.metadata.generation == 2
    stale = fetched.to_dict()
    stale["spec"]["replicas"] = 9
    with pytest.raises(ConflictError):
        frobbers.replace(body=stale, namespace="default")
    with pytest.raises(UnprocessibleEntityError):
        frobbers.create(body=body("invalid", replicas=-1), namespace="default")
    applied = frobbers.server_side_apply(body=body("crud", replicas=5), name="crud", namespace="default", field_manager="py", force_conflicts=True)
    assert applied.spec.replicas == 5
    frobbers.delete(name="crud", namespace="default")
    with pytest.raises(NotFoundError):
        frobbers.get(name="crud", namespace="default")


def test_watch(frobbers):
    events = []

    def watch():
        for event in frobbers.watch(namespace="default", timeout=10, field_selector="metadata.name=watched"):
            events.append((event["type"], event["object"].spec.replicas))
            if len(events) == 3:
                return

    thread = threading.Thread(target=watch)
    thread.start()
    time.sleep(1.0)
    frobbers.create(body=body("watched", replicas=1), namespace="default")
    frobbers.patch(name="watched", namespace="default", body={"spec": {"replicas": 2}}, content_type="application/merge-patch+json")
    frobbers.delete(name="watched", namespace="default")
    thread.join(15)
    assert events == [("ADDED", 1), ("MODIFIED", 2), ("DELETED", 2)]


@pytest.fixture(scope="module")
def api_client():
    from kubernetes import config

    with ServeProcess() as server:
        yield config.new_client_from_config(config_file=str(server.kubeconfig))


def test_the_typed_apis_discovery_and_version_calls(api_client):
    """`ApisApi().get_api_versions()` asks for /apis/ and `VersionApi().get_code()` for
    /version/: kube-apiserver serves both with the trailing slash too."""
    from kubernetes import client

    groups = client.ApisApi(api_client).get_api_versions()
    assert "example.kgen.dev" in [g.name for g in groups.groups]
    assert client.VersionApi(api_client).get_code().git_version.startswith("v1.")
    assert client.CoreApi(api_client).get_api_versions().versions == ["v1"]


def test_objects_without_api_version_and_kind_take_them_from_the_path(api_client):
    """`create_namespace(V1Namespace(metadata=...))` sends no apiVersion or kind; the API
    server's decoder fills them from the request's path (as for any resource)."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    created = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="typed")))
    assert (created.api_version, created.kind, created.metadata.name) == ("v1", "Namespace", "typed")
    custom = client.CustomObjectsApi(api_client)
    made = custom.create_namespaced_custom_object(
        "example.kgen.dev", "v1", "typed", "frobbers", {"metadata": {"name": "f"}, "spec": {"params": ["a"]}}
    )
    assert (made["apiVersion"], made["kind"]) == ("example.kgen.dev/v1", "Frobber")


def test_a_third_party_crd_created_with_the_client_serves_its_kind(api_client):
    """The official client installs a CRD with no Go types here and works its kind through
    CustomObjectsApi (create, get, list, merge patch, watch, delete) and the dynamic client's
    server-side apply, as against a cluster."""
    import yaml
    from kubernetes import client, dynamic, watch

    from tests.test_custom_resources import THIRD_PARTY_CRD

    crds = dynamic.DynamicClient(api_client).resources.get(api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    created = crds.create(body=yaml.safe_load(THIRD_PARTY_CRD))
    assert created.status.conditions is None  # the server's CRD controllers set them after the create
    for _ in range(100):  # what `kubectl wait --for=condition=Established` does
        conditions = {c.type: c.status for c in crds.get(name=created.metadata.name).status.conditions or ()}
        if conditions.get("Established") == "True":
            break
        time.sleep(0.1)
    assert conditions == {"NamesAccepted": "True", "Established": "True"}
    custom = client.CustomObjectsApi(api_client)
    args = ("certs.example.io", "v1", "default", "certificates")
    events = []

    def watching():
        stream = watch.Watch().stream(custom.list_namespaced_custom_object, *args, timeout_seconds=10)
        for event in stream:
            events.append((event["type"], event["object"]["spec"].get("dnsNames")))
            if len(events) == 3:
                return

    thread = threading.Thread(target=watching)
    thread.start()
    time.sleep(1.0)
    made = custom.create_namespaced_custom_object(*args, {"apiVersion": "certs.example.io/v1", "kind": "Certificate", "metadata": {"name": "web"}, "spec": {"secretName": "web-tls"}})
    assert made["spec"]["duration"] == "2160h"
    assert custom.get_namespaced_custom_object(*args, "web")["metadata"]["uid"] == made["metadata"]["uid"]
    assert [i["metadata"]["name"] for i in custom.list_namespaced_custom_object(*args)["items"]] == ["web"]
    patched = custom.patch_namespaced_custom_object(*args, "web", {"spec": {"dnsNames": ["a.example.com"]}})
    assert patched["spec"]["dnsNames"] == ["a.example.com"]
    with pytest.raises(client.ApiException) as invalid:
        custom.patch_namespaced_custom_object(*args, "web", {"spec": {"dnsNames": []}})
    assert invalid.value.status == 422 and "dnsNames may not be empty" in invalid.value.body
    certificates = dynamic.DynamicClient(api_client).resources.get(api_version="certs.example.io/v1", kind="Certificate")
    applied = certificates.server_side_apply(
        body={"apiVersion": "certs.example.io/v1", "kind": "Certificate", "metadata": {"name": "web"}, "spec": {"secretName": "web-tls", "dnsNames": ["b.example.com"]}},
        name="web", namespace="default", field_manager="py", force_conflicts=True,
    )  # fmt: skip
    # dnsNames is a set: the apply adds its item, the patch's manager still owns the other (as on a cluster).
    assert applied.spec.dnsNames == ["a.example.com", "b.example.com"]
    deleted = custom.delete_namespaced_custom_object(*args, "web")
    assert deleted["status"] == "Success" and deleted["details"]["name"] == "web"
    thread.join(15)
    assert events == [("ADDED", None), ("MODIFIED", ["a.example.com"]), ("MODIFIED", ["a.example.com", "b.example.com"])]
    crds.delete(name="certificates.certs.example.io")
