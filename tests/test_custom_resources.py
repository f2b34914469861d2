"""Custom resources served as a cluster serves them: by their CRD's structural schemas.

A small kubebuilder-style API (two versions of a Widget, the CRD's conversion strategy None)
is served by `FakeCluster` and by `kgen serve` on SQLite and on etcd, from its Go types and
from its CRD installed at runtime, and each check names the upstream behaviour it reproduces:
apiextensions-apiserver's pruning, defaulting and validation (pkg/apiserver/schema/...,
pkg/apiserver/validation/validation.go), its custom resource strategy
(pkg/registry/customresource/strategy.go) and kube-apiserver's handlers
(k8s.io/apiserver pkg/endpoints/handlers).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import write_tree
from tests.serve_fixtures import SERVERS, ServedClient, delete_crd, install_crd, served_api
from tests.store_fixtures import etcd_server  # noqa: F401

DOC = """
// +k8s:deepcopy-gen=package
// +groupName=shop.example.com

// Package {version} is the shop API.
package {version}
"""

TYPES = """
package {version}

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
{storage}
// Widget is a widget of the shop.
type Widget struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}}

// WidgetSpec is what the widget should be.
type WidgetSpec struct {{
	// Color of the widget.
	// +required
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	Color string `json:"color"`

	// Replicas of the widget.
	// +optional
	// +kubebuilder:default=3
	Replicas int32 `json:"replicas,omitempty"`

	// Tier of service.
	// +optional
	// +kubebuilder:default=standard
	Tier string `json:"tier,omitempty"`

	// Note, which may be null.
	// +optional
	// +nullable
	Note *string `json:"note,omitempty"`

	// Port by number or name.
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`

	// Label of the widget.
	// +optional
	// +kubebuilder:validation:MaxLength={max_label}
	Label string `json:"label,omitempty"`

	// Size may not change once set.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="size is immutable"
	Size string `json:"size,omitempty"`

	// Config is free-form.
	// +optional
	Config *WidgetConfig `json:"config,omitempty"`

	// Template is an object the widget makes.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:EmbeddedResource
	Template *runtime.RawExtension `json:"template,omitempty"`

	// Ports of the widget, by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	Ports []WidgetPort `json:"ports,omitempty"`
}}

// WidgetPort is one named port.
type WidgetPort struct {{
	Name string `json:"name"`
	// +optional
	Number int32 `json:"number,omitempty"`
}}

// WidgetConfig keeps whatever it is given besides its mode.
// +kubebuilder:pruning:PreserveUnknownFields
type WidgetConfig struct {{
	// +optional
	Mode string `json:"mode,omitempty"`
}}

// WidgetStatus is what the widget is.
type WidgetStatus struct {{
	// +optional
	Ready bool `json:"ready,omitempty"`
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// +optional
	Selector string `json:"selector,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}}

// +kubebuilder:object:root=true

// WidgetList is a list of widgets.
type WidgetList struct {{
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}}
"""


def _files() -> dict[str, str]:
    files = {
        "pyproject.toml": '[tool.kgen]\ninput = "apis"\noutput = "shop_served"\n',
        "apis/go.mod": "module example.com/shop/apis\n\ngo 1.22\n",
    }
    for version, storage, max_label in (("v1", "// +kubebuilder:storageversion", 5), ("v1beta1", "", 10)):
        files[f"apis/shop/{version}/doc.go"] = DOC.format(version=version)
        files[f"apis/shop/{version}/types.go"] = TYPES.format(version=version, storage=storage, max_label=max_label)
    return files


Served = ServedClient
"""A client of the cluster; its `group` is the group its Widgets are served in."""


@dataclass
class Cluster:
    """One way of serving the Widgets' API: the directory of its sources, and its clients."""

    root: Path
    connect: Callable[[], ServedClient]


@pytest.fixture(scope="module", params=SERVERS)
def cluster(request, tmp_path_factory):
    """The Widgets' API served by `FakeCluster` in process (memory storage), and by `kgen serve`
    (a subprocess, over TLS) on SQLite and on etcd: every check below runs on all three."""
    root = write_tree(tmp_path_factory.mktemp("custom-resources"), _files())
    with served_api(request, root / "pyproject.toml", root) as connect:
        yield Cluster(root, connect)


@pytest.fixture(scope="module", params=["generated", "installed"])
def client(request, cluster):
    """The Widgets served from the Go types (generated), and the same CRD written by kgen,
    moved to another group, installed while the server runs (installed): every check below
    runs on both, and they must agree."""
    from kgen import pipeline
    from kgen.generators import GENERATORS
    from kgen.options import resolve_options

    with cluster.connect() as http:
        http.group = "shop.example.com"
        if request.param == "installed":
            import yaml

            options = resolve_options(config_path=cluster.root / "pyproject.toml", registered=tuple(GENERATORS))
            files = {f.path: f.content for f in pipeline.generate(options, use_cache=False).files}
            text = files["crds/shop.example.com_widgets.yaml"].replace("shop.example.com", "shop-installed.example.com")
            install_crd(http, yaml.safe_load(text.split("---\n", 1)[1]))
            http.group = "shop-installed.example.com"
        yield http
        if request.param == "installed":
            delete_crd(http, "widgets.shop-installed.example.com")


def _needs_controllers(client: Served) -> None:
    """Skip where the server has no core API (a standalone apiextensions-apiserver): there
    are no namespaces to delete and no kube-controller-manager to collect garbage."""
    core = client.get("/api/v1")
    if core.status_code != 200 or not any(r["name"] == "namespaces" for r in core.json()["resources"]):
        pytest.skip("the server has no namespaces and no controllers")


def _path(client: Served, version: str = "v1") -> str:
    return f"/apis/{client.group}/{version}/namespaces/default/widgets"


def _widget(client: Served, name: str, version: str = "v1", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"{client.group}/{version}",
        "kind": "Widget",
        "metadata": {"name": name},
        "spec": {"color": "red", **spec},
    }


def _create(client: Served, body: dict[str, Any], version: str = "v1", **params: str) -> httpx.Response:
    return client.post(_path(client, version), json=body, params=params)


def _invalid(response: httpx.Response) -> list[tuple[str, str, str]]:
    """(reason, field, message) of each cause of a 422 Invalid."""
    assert response.status_code == 422, response.text[:500]
    status = response.json()
    assert status["reason"] == "Invalid"
    return [(c["reason"], c["field"], c["message"]) for c in status["details"]["causes"]]


def test_defaults_apply_to_absent_fields_only(client):
    """pkg/apiserver/schema/defaulting/algorithm.go: a default fills a field that is absent;
    an explicit 0 or "" is a value, kept as given."""
    absent = _create(client, _widget(client, "absent")).json()
    assert (absent["spec"]["replicas"], absent["spec"]["tier"]) == (3, "standard")
    explicit = _create(client, _widget(client, "explicit", replicas=0, tier="")).json()
    assert (explicit["spec"]["replicas"], explicit["spec"]["tier"]) == (0, "")


def test_a_nullable_field_keeps_its_null_and_others_lose_theirs(client):
    """defaulting/prunenulls.go: a null of a field that is not nullable (and has no default)
    is dropped; `nullable: true` keeps it; a null where a default exists becomes the default."""
    created = _create(client, _widget(client, "nulls", note=None, label=None, replicas=None)).json()
    assert created["spec"]["note"] is None
    assert "label" not in created["spec"]
    assert created["spec"]["replicas"] == 3


def test_a_missing_required_field_is_required_value(client):
    """validation.go: kube-openapi's required failure is field.Required at the field; after
    such an error the CRD's CEL rules are not run (customresource/strategy.go hasBlockingErr)
    and the answer says so at <nil>."""
    body = _widget(client, "norequired")
    del body["spec"]["color"]
    assert _invalid(_create(client, body)) == [
        ("FieldValueRequired", "spec.color", "Required value"),
        ("FieldValueInvalid", "<nil>", "Invalid value: null: some validation rules were not checked because the object "
         "was invalid; correct the existing errors to complete validation"),
    ]  # fmt: skip


def test_a_value_of_the_wrong_type_is_422_type_invalid(client):
    """validation.go: an invalid type is FieldValueTypeInvalid with kube-openapi's message; an
    int-or-string takes an integer or a string and nothing else (its anyOf adds the two
    errors a cluster gives besides, the first at <nil>). A cluster reports the properties of
    an object in Go's map order, which changes from request to request: the errors of each
    property come together, in their order, and the properties in any order."""
    causes = _invalid(_create(client, _widget(client, "types", replicas="three", port=True)))
    port = [
        ("FieldValueTypeInvalid", "spec.port", 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'),
        ("FieldValueInvalid", "<nil>", 'Invalid value: "": "spec.port" must validate at least one schema (anyOf)'),
        ("FieldValueTypeInvalid", "spec.port", 'Invalid value: "boolean": spec.port in body must be of type integer: "boolean"'),
    ]  # fmt: skip
    replicas = [
        ("FieldValueTypeInvalid", "spec.replicas", 'Invalid value: "string": spec.replicas in body must be of type integer: "string"'),
    ]  # fmt: skip
    assert causes[:4] in (port + replicas, replicas + port)
    assert causes[4:] == [
        # The scale subresource's replicas path is read as an integer (customresource/validator.go ValidateScaleSpec).
        ("FieldValueInvalid", ".spec.replicas", "Invalid value: 0: .spec.replicas accessor error: three is of the type string, expected int64"),
        ("FieldValueInvalid", "<nil>", "Invalid value: null: some validation rules were not checked because the object "
         "was invalid; correct the existing errors to complete validation"),
    ]  # fmt: skip
    assert _create(client, _widget(client, "port-name", port="http")).status_code == 201
    assert _create(client, _widget(client, "port-number", port=8080)).status_code == 201


def test_a_pattern_error_uses_the_apiextensions_wording(client):
    causes = _invalid(_create(client, _widget(client, "pattern", color="Red!")))
    assert causes == [
        ("FieldValueInvalid", "spec.color", "Invalid value: \"Red!\": spec.color in body should match '^[a-z]+$'")
    ]


def test_unknown_fields_are_pruned_but_preserved_under_preserve_unknown_fields(client):
    """pkg/apiserver/schema/pruning: unknown fields go (a Warning, fieldValidation Warn being
    the default), except below x-kubernetes-preserve-unknown-fields."""
    response = _create(client, _widget(client, "pruned", bogus=1, config={"mode": "fast", "anything": {"x": [1]}}))
    assert response.status_code == 201
    assert response.headers["warning"] == '299 - "unknown field \\"spec.bogus\\""'
    spec = response.json()["spec"]
    assert "bogus" not in spec and spec["config"] == {"mode": "fast", "anything": {"x": [1]}}
    strict = _create(client, _widget(client, "strict", bogus=1), fieldValidation="Strict")
    assert strict.status_code == 400 and 'strict decoding error: unknown field "spec.bogus"' in strict.json()["message"]


def test_each_version_is_validated_by_its_own_schema(client):
    """Every served version has its own schema: a label of 8 characters fits v1beta1
    (maxLength 10) and not v1 (maxLength 5)."""
    assert _create(client, _widget(client, "beta-label", "v1beta1", label="eightchr"), "v1beta1").status_code == 201
    causes = _invalid(_create(client, _widget(client, "v1-label", label="eightchr")))
    assert causes[0] == ("FieldValueTooLong", "spec.label", "Too long: may not be more than 5 bytes")
    assert [c[1] for c in causes[1:]] == ["<nil>"]  # Too long blocks the CEL rules (strategy.go hasBlockingErr)
    # Stored in v1 (conversion strategy None: only the apiVersion changes), read through both.
    read = client.get(_path(client, "v1") + "/beta-label").json()
    assert read["apiVersion"] == f"{client.group}/v1" and read["spec"]["label"] == "eightchr"


def test_a_transition_rule_runs_only_when_there_is_an_old_value(client):
    """A rule reading oldSelf is skipped on create and where the old object had no value
    (apiextensions CEL validation); on an update that changes the value it fails."""
    created = _create(client, _widget(client, "sized", size="s")).json()
    changed = copy.deepcopy(created)
    changed["spec"]["size"] = "l"
    causes = _invalid(client.put(_path(client, "v1") + "/sized", json=changed))
    # The bad value is the value the rule is on (schema/cel/validation.go, 1.35 and later).
    assert causes == [("FieldValueInvalid", "spec.size", 'Invalid value: "l": size is immutable')]
    unsized = _create(client, _widget(client, "unsized")).json()
    unsized["spec"]["size"] = "m"  # no old value: the rule does not run
    assert client.put(_path(client, "v1") + "/unsized", json=unsized).status_code == 200


def test_an_unchanged_invalid_value_is_ratcheted_on_update(client):
    """CRDValidationRatcheting: an update may keep a value its schema no longer allows while
    it changes something else. Stored through v1beta1 (label of 8), updated through v1."""
    _create(client, _widget(client, "ratchet", "v1beta1", label="eightchr"), "v1beta1")
    current = client.get(_path(client, "v1") + "/ratchet").json()
    current["spec"]["replicas"] = 7
    updated = client.put(_path(client, "v1") + "/ratchet", json=current)
    assert updated.status_code == 200, updated.text[:300]
    current = updated.json()
    current["spec"]["label"] = "ninechars"
    assert _invalid(client.put(_path(client, "v1") + "/ratchet", json=current))[0][1] == "spec.label"


def test_the_status_subresource_is_validated_by_the_schema_too(client):
    created = _create(client, _widget(client, "status")).json()
    created["status"] = {"ready": "yes"}
    causes = _invalid(client.put(_path(client, "v1") + "/status/status", json=created))
    assert causes[0][:2] == ("FieldValueTypeInvalid", "status.ready")
    created["status"] = {"ready": True}
    assert client.put(_path(client, "v1") + "/status/status", json=created).json()["status"] == {"ready": True}


def test_patches_go_through_the_same_schema(client):
    _create(client, _widget(client, "patched"))
    path = _path(client, "v1") + "/patched"
    merge = {"Content-Type": "application/merge-patch+json"}
    causes = _invalid(client.patch(path, content=json.dumps({"spec": {"replicas": "x"}}), headers=merge))
    assert causes[0][:2] == ("FieldValueTypeInvalid", "spec.replicas")
    patched = client.patch(path, content=json.dumps({"spec": {"tier": None, "bogus": 1}}), headers=merge)
    assert patched.status_code == 200 and patched.json()["spec"]["tier"] == "standard"  # removed, then defaulted
    smp = client.patch(path, content="{}", headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert smp.status_code == 415


def test_a_strict_patch_with_an_unknown_field_is_invalid_at_patch(client):
    """endpoints/handlers/patch.go: the patched object is decoded strictly; what the decoder
    refuses is a 422 Invalid with no kind or name, at `patch`, quoting the patched object
    (kubectl prints "The request is invalid: patch: Invalid value: ...")."""
    _create(client, _widget(client, "strict-patch"))
    path = _path(client, "v1") + "/strict-patch"
    refused = client.patch(
        path,
        params={"fieldValidation": "Strict"},
        content='{"spec":{"bogus":1}}',
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert refused.status_code == 422, refused.text
    status = refused.json()
    assert status["message"].startswith(' "" is invalid: patch: Invalid value: "{')
    assert status["message"].endswith(': strict decoding error: unknown field "spec.bogus"')
    assert [(c["reason"], c["field"]) for c in status["details"]["causes"]] == [("FieldValueInvalid", "patch")]
    created = _create(client, _widget(client, "strict-create", bogus=1), fieldValidation="Strict")
    assert (
        created.json()["message"]
        == 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"'
    )


def test_the_scale_subresource_reads_and_writes_the_paths_of_the_crd(client):
    """apiextensions-apiserver registry/customresource (ScaleREST): an autoscaling/v1 Scale
    from specReplicasPath, statusReplicasPath and labelSelectorPath; a write sets the
    replicas through the resource's own update, with the Scale's resourceVersion as its
    precondition; replicas below zero are the resource's error at the CRD's replicas path
    (customresource/validator.go ValidateScaleSpec)."""
    created = _create(client, _widget(client, "scaled", replicas=2)).json()
    created["status"] = {"replicas": 1, "selector": "app=scaled"}
    client.put(_path(client, "v1") + "/scaled/status", json=created)
    path = _path(client, "v1") + "/scaled/scale"
    scale = client.get(path).json()
    assert (scale["kind"], scale["apiVersion"]) == ("Scale", "autoscaling/v1")
    assert scale["spec"] == {"replicas": 2} and scale["status"] == {"replicas": 1, "selector": "app=scaled"}
    assert scale["metadata"]["name"] == "scaled" and scale["metadata"]["uid"] == created["metadata"]["uid"]
    scale["spec"]["replicas"] = 5
    updated = client.put(path, json=scale)
    assert updated.status_code == 200 and updated.json()["spec"] == {"replicas": 5}
    assert client.get(_path(client, "v1") + "/scaled").json()["spec"]["replicas"] == 5
    # The replicas a scale write set are its manager's, with subresource "scale" (managedfields ScaleHandler).
    entries = client.get(_path(client, "v1") + "/scaled").json()["metadata"]["managedFields"]
    scaled = [e for e in entries if e.get("subresource") == "scale"]
    assert [(e["manager"], e["operation"], e["fieldsV1"]) for e in scaled] == [
        ("python-httpx", "Update", {"f:spec": {"f:replicas": {}}})
    ]
    assert client.put(path, json=scale).status_code == 409  # its resourceVersion is stale now
    merged = client.patch(
        path, content='{"spec":{"replicas":7}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert merged.json()["spec"]["replicas"] == 7
    negative = client.patch(
        path, content='{"spec":{"replicas":-1}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    # The Scale is not validated itself: the resource's update is, and its scale paths.
    assert _invalid(negative) == [
        ("FieldValueInvalid", ".spec.replicas", "Invalid value: -1: should be a non-negative integer")
    ]
    assert negative.json()["message"].startswith(f'Widget.{client.group} "scaled" is invalid: ')
    # A Scale that is not an autoscaling/v1 Scale (replicas not an int32) fails the decoder.
    scale = client.get(path).json()
    for replicas in ("seven", 2**31):
        refused = client.put(path, json={**scale, "spec": {"replicas": replicas}})
        assert refused.status_code == 400 and refused.json()["message"] == (
            'no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:111"'
        )
    # An object without spec replicas has no Scale (ScaleREST: an internal error).
    bare = _create(client, {"apiVersion": f"{client.group}/v1", "kind": "Widget", "metadata": {"name": "bare"}})
    assert bare.status_code == 201, bare.text[:300]
    missing = client.get(_path(client, "v1") + "/bare/scale")
    assert (missing.status_code, missing.json()["reason"]) == (500, "InternalError")
    assert (
        missing.json()["message"] == 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist'
    )
    resources = client.get(f"/apis/{client.group}/v1").json()["resources"]
    scale_entry = next(r for r in resources if r["name"] == "widgets/scale")
    assert (scale_entry["group"], scale_entry["version"], scale_entry["kind"]) == ("autoscaling", "v1", "Scale")


def test_the_openapi_v3_document_names_a_custom_resource_by_group_and_version(client):
    """The apiextensions-apiserver publishes a CRD's schema under `<reversed group>.<version>.<Kind>`,
    inline (metadata a reference to ObjectMeta), with x-kubernetes-group-version-kind; the
    paths refer to it."""
    document = client.get(f"/openapi/v3/apis/{client.group}/v1").json()
    reversed_group = ".".join(reversed(client.group.split(".")))
    schemas = document["components"]["schemas"]
    widget = schemas[f"{reversed_group}.v1.Widget"]
    assert widget["x-kubernetes-group-version-kind"] == [{"group": client.group, "kind": "Widget", "version": "v1"}]
    assert widget["properties"]["spec"]["properties"]["label"]["maxLength"] == 5  # inline, this version's
    spec = widget["properties"]["spec"]["properties"]
    assert "$ref" not in json.dumps({name: value for name, value in spec.items() if name != "template"})
    # An embedded resource is given apiVersion, kind and metadata (builder.go addEmbeddedProperties).
    template = spec["template"]
    assert template["properties"]["metadata"]["allOf"] == [
        {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    ]
    assert template["required"] == ["kind", "apiVersion"] and template["properties"]["kind"]["type"] == "string"
    assert schemas[f"{reversed_group}.v1.WidgetList"]["properties"]["items"]["items"] == {
        "$ref": f"#/components/schemas/{reversed_group}.v1.Widget"
    }
    assert not [name for name in schemas if not name.startswith(("io.k8s.", f"{reversed_group}.v1."))]
    get = document["paths"][f"/apis/{client.group}/v1/namespaces/{{namespace}}/widgets/{{name}}"]["get"]
    assert (
        get["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        == f"#/components/schemas/{reversed_group}.v1.Widget"
    )


def test_an_embedded_resource_says_what_it_is_and_keeps_its_metadata(client):
    """schema/objectmeta/validation.go: an x-kubernetes-embedded-resource object needs
    apiVersion and kind, and its metadata is ObjectMeta (a name is a path segment); pruning
    keeps apiVersion, kind and metadata of it (schema/pruning)."""
    template = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "made", "labels": {"a": "b"}},
        "data": {"k": "v"},
    }
    made = _create(client, _widget(client, "embedded", template=template))
    assert made.status_code == 201, made.text[:300]
    assert made.json()["spec"]["template"] == template
    causes = _invalid(
        _create(client, _widget(client, "embedded-bad", template={"kind": "Config Map", "metadata": {"name": "a/b"}}))
    )
    assert causes == [
        ("FieldValueRequired", "spec.template.apiVersion", "Required value"),
        ("FieldValueInvalid", "spec.template.kind", 'Invalid value: "Config Map": may have mixed case, but should otherwise match: '
         "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
         "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
         "'[a-z]([-a-z0-9]*[a-z0-9])?')"),
        ("FieldValueInvalid", "spec.template.metadata.name", "Invalid value: \"a/b\": may not contain '/'"),
        ("FieldValueInvalid", "<nil>", "Invalid value: null: some validation rules were not checked because the object "
         "was invalid; correct the existing errors to complete validation"),
    ]  # fmt: skip


def test_a_list_map_refuses_two_items_with_one_key(client):
    """schema/listtype/validation.go: items of an x-kubernetes-list-type map with the same
    x-kubernetes-list-map-keys are a Duplicate value at the second."""
    causes = _invalid(
        _create(client, _widget(client, "ports", ports=[{"name": "http"}, {"name": "http", "number": 2}]))
    )
    assert [(reason, where) for reason, where, _ in causes] == [("FieldValueDuplicate", "spec.ports[1]")]
    assert _create(client, _widget(client, "ports-ok", ports=[{"name": "http"}, {"name": "https"}])).status_code == 201


def test_an_update_must_name_the_resource_version_it_replaces(client):
    """customresource/strategy.go AllowUnconditionalUpdate is false: a PUT without
    metadata.resourceVersion is 422 at that field; a stale one is 409 Conflict (an update
    that changes nothing writes nothing, so its resourceVersion stays current)."""
    created = _create(client, _widget(client, "conditional")).json()
    path = _path(client) + "/conditional"
    unconditional = copy.deepcopy(created)
    del unconditional["metadata"]["resourceVersion"]
    assert _invalid(client.put(path, json=unconditional)) == [
        ("FieldValueInvalid", "metadata.resourceVersion", "Invalid value: 0: must be specified for an update")
    ]
    assert client.put(path, json=created).status_code == 200  # unchanged: nothing written, the same resourceVersion
    created["spec"]["tier"] = "gold"
    assert client.put(path, json=created).status_code == 200
    stale = client.put(path, json=created)
    assert stale.status_code == 409 and stale.json()["reason"] == "Conflict"


def test_a_delete_answers_a_status_naming_what_went(client):
    """The generic registry's finalizeDelete for a store that returns no deleted object
    (custom resources): a Status Success with the name, group, resource as kind, and uid."""
    created = _create(client, _widget(client, "gone")).json()
    deleted = client.delete(_path(client) + "/gone").json()
    assert (deleted["kind"], deleted["status"]) == ("Status", "Success")
    assert deleted["details"] == {
        "name": "gone",
        "group": client.group,
        "kind": "widgets",
        "uid": created["metadata"]["uid"],
    }
    missing = client.delete(_path(client) + "/gone")
    assert missing.status_code == 404 and missing.json()["reason"] == "NotFound"


def test_generation_counts_changes_of_the_spec_only(client):
    """customresource/strategy.go: generation is 1 on create and goes up by one on an update
    that changes anything but metadata and status (with a status subresource); status is
    written only through /status, where generation stays, so observedGeneration can follow."""
    created = _create(client, _widget(client, "generations")).json()
    path = _path(client) + "/generations"
    assert created["metadata"]["generation"] == 1
    created["metadata"]["labels"] = {"seen": "yes"}
    labelled = client.put(path, json=created).json()
    assert labelled["metadata"]["generation"] == 1
    labelled["spec"]["replicas"] = 9
    labelled["status"] = {"ready": True}  # ignored on the main resource
    changed = client.put(path, json=labelled).json()
    assert changed["metadata"]["generation"] == 2 and "status" not in changed
    changed["status"] = {"ready": True, "observedGeneration": changed["metadata"]["generation"]}
    observed = client.put(path + "/status", json=changed).json()
    assert observed["metadata"]["generation"] == 2 and observed["status"]["observedGeneration"] == 2
    merge = {"Content-Type": "application/merge-patch+json"}
    assert client.patch(path, content='{"spec":{"tier":"gold"}}', headers=merge).json()["metadata"]["generation"] == 3


def test_the_scale_paths_are_checked_on_every_write(client):
    """customresource/validator.go ValidateScaleSpec: the value at specReplicasPath must be a
    non-negative integer that fits an int32, reported at the path as the CRD writes it."""
    causes = _invalid(_create(client, _widget(client, "negative", replicas=-1)))
    assert causes == [("FieldValueInvalid", ".spec.replicas", "Invalid value: -1: should be a non-negative integer")]


def test_deleting_a_namespace_deletes_its_custom_resources_then_itself(client):
    """The namespace controller (pkg/controller/namespace/deletion): a deleted namespace is
    Terminating, refuses new content (NamespaceLifecycle admission: 403 Forbidden), deletes
    what it holds, waits for finalizers, and goes once it is empty."""
    _needs_controllers(client)
    namespace = f"doomed-{client.group.split('.')[0]}"
    assert (
        client.post(
            "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        ).status_code
        == 201
    )
    path = f"/apis/{client.group}/v1/namespaces/{namespace}/widgets"
    assert client.post(path, json=_widget(client, "plain")).status_code == 201
    held = _widget(client, "held")
    held["metadata"]["finalizers"] = ["shop.example.com/cleanup"]
    assert client.post(path, json=held).status_code == 201
    terminating = client.delete(f"/api/v1/namespaces/{namespace}").json()
    assert terminating["status"]["phase"] == "Terminating"
    refused = client.post(path, json=_widget(client, "late"))
    assert refused.status_code == 403 and refused.json()["reason"] == "Forbidden"
    assert "because it is being terminated" in refused.json()["message"]
    assert _eventually(lambda: client.get(f"{path}/plain").status_code == 404)
    kept = client.get(f"{path}/held").json()
    assert kept["metadata"]["deletionTimestamp"] and client.get(f"/api/v1/namespaces/{namespace}").status_code == 200
    kept["metadata"]["finalizers"] = []
    assert client.put(f"{path}/held", json=kept).status_code == 200
    assert _eventually(lambda: client.get(f"/api/v1/namespaces/{namespace}").status_code == 404)


def test_the_openapi_v2_document_carries_the_crd_schema_cut_for_v2(client):
    """controller/openapi/v2/conversion.go ToStructuralOpenAPIV2 and builder.go: /openapi/v2
    names a custom resource `<reversed group>.<version>.<Kind>`, its schema inline without
    what v2 cannot say: a nullable field has no type, a field that keeps unknown fields has no
    properties (nor type object), an embedded resource gets apiVersion, kind and metadata
    unless it keeps unknown fields; nothing is named by the Go package."""
    definitions = client.get("/openapi/v2").json()["definitions"]
    reversed_group = ".".join(reversed(client.group.split(".")))
    widget = definitions[f"{reversed_group}.v1.Widget"]
    assert widget["x-kubernetes-group-version-kind"] == [{"group": client.group, "kind": "Widget", "version": "v1"}]
    spec = widget["properties"]["spec"]["properties"]
    assert spec["label"] == {"type": "string", "maxLength": 5, "description": "Label of the widget."}
    assert "type" not in spec["note"] and "nullable" not in spec["note"]
    assert "properties" not in spec["config"] and "type" not in spec["config"]
    assert "properties" not in spec["template"]
    assert spec["port"]["x-kubernetes-int-or-string"] is True and "anyOf" not in spec["port"]
    assert widget["properties"]["metadata"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    assert definitions[f"{reversed_group}.v1.WidgetList"]["properties"]["items"]["items"] == {
        "$ref": f"#/definitions/{reversed_group}.v1.Widget"
    }
    served_names = (
        "com.example.shop.v1.",
        "com.example.shop.v1beta1.",
        "com.example.shop-installed.v1.",
        "com.example.shop-installed.v1beta1.",
    )
    assert not [name for name in definitions if "Widget" in name and not name.startswith(served_names)]


# -- CustomResourceDefinitions installed while the server runs ------------------------------------

THIRD_PARTY_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.certs.example.io
spec:
  group: certs.example.io
  scope: Namespaced
  names:
    kind: Certificate
    plural: certificates
    shortNames: [cert]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Secret
      type: string
      jsonPath: .spec.secretName
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [secretName]
            properties:
              secretName:
                type: string
                maxLength: 20
              duration:
                type: string
                default: 2160h
              dnsNames:
                type: array
                items: {type: string}
                x-kubernetes-list-type: set
            x-kubernetes-validations:
            - rule: "!has(self.dnsNames) || size(self.dnsNames) > 0"
              message: dnsNames may not be empty
          status:
            type: object
            properties:
              ready: {type: boolean}
"""


def test_a_crd_created_at_runtime_serves_its_kind_by_its_schema(client):
    """apiextensions.k8s.io/v1 customresourcedefinitions: a CRD created while the server runs
    is accepted (NamesAccepted, Established) and its kind served at once by the same
    schema-driven path; deleting the CRD deletes its objects and its endpoints."""
    import yaml

    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    delete_crd(client, "certificates.certs.example.io")  # left by an earlier run against a real server
    created = client.post(crds, json=yaml.safe_load(THIRD_PARTY_CRD))
    assert created.status_code == 201, created.text[:500]
    # Stored with an empty status but its stored version (customresourcedefinition/strategy.go);
    # the names and establishing controllers accept it after (controller/status, establish).
    assert created.json()["status"] == {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                                        "storedVersions": ["v1"]}  # fmt: skip
    name = created.json()["metadata"]["name"]
    assert _eventually(lambda: len(client.get(f"{crds}/{name}").json()["status"]["conditions"] or ()) == 2)
    status = client.get(f"{crds}/{name}").json()["status"]
    conditions = {c["type"]: (c["status"], c["reason"], c["message"]) for c in status["conditions"]}
    assert conditions == {
        "NamesAccepted": ("True", "NoConflicts", "no conflicts found"),
        "Established": ("True", "InitialNamesAccepted", "the initial names have been accepted"),
    }
    assert status["acceptedNames"] == {"plural": "certificates", "singular": "certificate", "shortNames": ["cert"],
                                       "kind": "Certificate", "listKind": "CertificateList"}  # fmt: skip
    assert status["storedVersions"] == ["v1"]
    path = "/apis/certs.example.io/v1/namespaces/default/certificates"
    cert = {
        "apiVersion": "certs.example.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "web"},
        "spec": {"secretName": "web-tls", "extra": 1},
    }
    made = client.post(path, json=cert)
    assert made.status_code == 201, made.text[:500]
    assert made.json()["spec"] == {"secretName": "web-tls", "duration": "2160h"}  # pruned, defaulted
    assert made.headers["warning"] == '299 - "unknown field \\"spec.extra\\""'
    too_long = _invalid(
        client.post(path, json={**cert, "metadata": {"name": "long"}, "spec": {"secretName": "x" * 21}})
    )
    assert too_long[0] == ("FieldValueTooLong", "spec.secretName", "Too long: may not be more than 20 bytes")
    assert too_long[1][2].startswith("Invalid value: null: some validation rules were not checked")
    empty = _invalid(
        client.post(path, json={**cert, "metadata": {"name": "empty"}, "spec": {"secretName": "a", "dnsNames": []}})
    )
    # A rule on an object leaves the value out of its error (schema/cel/validation.go, 1.35 and later).
    assert empty == [("FieldValueInvalid", "spec", "Invalid value: dnsNames may not be empty")]
    resources = {r["name"] for r in client.get("/apis/certs.example.io/v1").json()["resources"]}
    assert resources == {"certificates", "certificates/status"}
    schemas = client.get("/openapi/v3/apis/certs.example.io/v1").json()["components"]["schemas"]
    assert "io.example.certs.v1.Certificate" in schemas
    refused = client.post(
        crds, json={**yaml.safe_load(THIRD_PARTY_CRD), "metadata": {"name": "wrong.certs.example.io"}}
    )
    assert (
        "FieldValueInvalid",
        "metadata.name",
        'Invalid value: "wrong.certs.example.io": must be spec.names.plural+"."+spec.group',
    ) in _invalid(refused)
    # A delete adds the cleanup finalizer and the Terminating condition (customresourcedefinition/etcd.go);
    # the finalizer controller deletes the objects, then the CRD (controller/finalizer).
    deleting = client.delete(crds + "/certificates.certs.example.io")
    assert deleting.status_code == 200 and deleting.json()["kind"] == "CustomResourceDefinition"
    assert deleting.json()["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"]
    assert deleting.json()["metadata"]["deletionTimestamp"]
    terminating = deleting.json()["status"]["conditions"][-1]
    assert (terminating["type"], terminating["status"], terminating["reason"], terminating["message"]) == (
        "Terminating", "True", "InstanceDeletionPending",
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    )  # fmt: skip
    assert _eventually(lambda: client.get(path).status_code == 404)
    assert _eventually(lambda: client.get(crds + "/certificates.certs.example.io").status_code == 404)
    assert client.post(crds, json=yaml.safe_load(THIRD_PARTY_CRD)).status_code == 201  # again, empty
    assert _eventually(lambda: client.get(path).status_code == 200)
    assert client.get(path).json()["items"] == []
    delete_crd(client, "certificates.certs.example.io")


def test_a_crd_being_deleted_waits_for_the_finalizers_of_its_objects(client):
    """controller/finalizer: a deleted CRD whose objects have finalizers stays Terminating
    (InstanceDeletionInProgress) while they do; its objects can still be read and changed, a
    new one is Forbidden (customresource_handler.go forbidCreateAdmission), and once the last
    finalizer goes, so do the object and the CRD."""
    import yaml

    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    name = "certificates.certs.example.io"
    delete_crd(client, name)
    assert client.post(crds, json=yaml.safe_load(THIRD_PARTY_CRD)).status_code == 201
    path = "/apis/certs.example.io/v1/namespaces/default/certificates"
    assert _eventually(lambda: client.get(path).status_code == 200)
    cert = {"apiVersion": "certs.example.io/v1", "kind": "Certificate",
            "metadata": {"name": "held", "finalizers": ["example.io/hold"]}, "spec": {"secretName": "s"}}  # fmt: skip
    assert client.post(path, json=cert).status_code == 201
    assert client.delete(f"{crds}/{name}").status_code == 200

    def reason() -> str:
        conditions = client.get(f"{crds}/{name}").json()["status"]["conditions"]
        return next(c["reason"] for c in conditions if c["type"] == "Terminating")

    assert _eventually(lambda: reason() == "InstanceDeletionInProgress")
    assert _eventually(lambda: "deletionTimestamp" in client.get(f"{path}/held").json()["metadata"])
    held = client.get(f"{path}/held").json()
    late = client.post(path, json={**cert, "metadata": {"name": "late"}})
    assert late.status_code == 403, late.text[:300]
    assert late.json()["message"] == (
        'certificates.certs.example.io "late" is forbidden: create not allowed while custom resource definition '
        "is terminating"
    )
    held["metadata"]["finalizers"] = []
    assert client.put(f"{path}/held", json=held).status_code == 200
    assert _eventually(lambda: client.get(f"{crds}/{name}").status_code == 404)
    assert _eventually(lambda: client.get(path).status_code == 404)


def test_a_fake_cluster_takes_crd_files(tmp_path):
    """FakeCluster(crds=[...]) installs a third party's CRDs before the first request."""
    from conftest import REPO
    from kgen.serve.fake import FakeCluster, _SyncBridge

    crd_file = tmp_path / "certificates.yaml"
    crd_file.write_text(THIRD_PARTY_CRD, encoding="utf-8")
    with FakeCluster(config=REPO / "pyproject.toml", crds=[crd_file]) as cluster:
        with httpx.Client(transport=_SyncBridge(cluster), base_url="https://fake.cluster") as http:
            path = "/apis/certs.example.io/v1/namespaces/default/certificates"
            made = http.post(
                path,
                json={
                    "apiVersion": "certs.example.io/v1",
                    "kind": "Certificate",
                    "metadata": {"name": "a"},
                    "spec": {"secretName": "s"},
                },
            )
            assert made.status_code == 201 and made.json()["spec"]["duration"] == "2160h"
            assert http.get(
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/certificates.certs.example.io"
            ).json()["status"]["storedVersions"] == ["v1"]


def test_the_generated_crds_are_installed_and_serve_while_they_stay(tmp_path):
    """On a cluster the generated CRDs are applied before an operator runs: they are listed
    (Established), applying them again changes nothing, and deleting one stops serving its
    kind and deletes its objects (the CRD finalizer); applying it again serves it again."""
    from kgen.serve.fake import FakeCluster, _SyncBridge

    root = write_tree(tmp_path, _files())
    with (
        FakeCluster(config=root / "pyproject.toml") as fake,
        httpx.Client(transport=_SyncBridge(fake), base_url="https://fake.cluster") as http,
    ):
        crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
        listed = {item["metadata"]["name"]: item for item in http.get(crds).json()["items"]}
        assert list(listed) == ["widgets.shop.example.com"]
        installed = listed["widgets.shop.example.com"]
        assert {c["type"]: c["status"] for c in installed["status"]["conditions"]} == {
            "NamesAccepted": "True",
            "Established": "True",
        }
        assert installed["status"]["storedVersions"] == ["v1"]
        path = "/apis/shop.example.com/v1/namespaces/default/widgets"
        body = {
            "apiVersion": "shop.example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w"},
            "spec": {"color": "red"},
        }
        assert http.post(path, json=body).status_code == 201
        again = http.post(
            crds,
            json={k: installed[k] for k in ("apiVersion", "kind", "spec")}
            | {"metadata": {"name": "widgets.shop.example.com"}},
        )
        assert again.status_code == 409 and again.json()["reason"] == "AlreadyExists"
        assert http.delete(f"{crds}/widgets.shop.example.com").status_code == 200
        assert http.get(path).status_code == 404
        assert "shop.example.com" not in {g["name"] for g in http.get("/apis").json()["groups"]}
        reinstalled = http.post(
            crds,
            json={k: installed[k] for k in ("apiVersion", "kind", "spec")}
            | {"metadata": {"name": "widgets.shop.example.com"}},
        )
        assert reinstalled.status_code == 201
        assert http.get(path).json()["items"] == []  # its objects went with it
        assert http.post(path, json=body).status_code == 201


# -- garbage collection of ownerReferences ----------------------------------------------------------


def _eventually(check, seconds: float = 10.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _owned(client: Served, name: str, owner: dict[str, Any], block: bool = False) -> dict[str, Any]:
    body = _widget(client, name)
    reference = {
        "apiVersion": owner["apiVersion"],
        "kind": "Widget",
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }
    if block:
        reference["blockOwnerDeletion"] = True
    body["metadata"]["ownerReferences"] = [reference]
    made = _create(client, body)
    assert made.status_code == 201, made.text[:300]
    return made.json()


@pytest.mark.parametrize("policy", ["Background", "Foreground", "Orphan"])
def test_deleting_an_owner_collects_its_dependents_by_the_propagation_policy(client, policy):
    """The garbage collector (kube-controller-manager's): Background deletes dependents after
    the owner; Foreground keeps the owner (foregroundDeletion finalizer) until its dependents
    are gone; Orphan removes the owner references and keeps the dependents."""
    _needs_controllers(client)
    prefix = f"gc-{policy.lower()}"
    owner = _create(client, _widget(client, f"{prefix}-owner")).json()
    dependents = [_owned(client, f"{prefix}-dep-{i}", owner, block=policy == "Foreground") for i in range(2)]
    grandchild = _owned(client, f"{prefix}-grandchild", dependents[0])
    path = _path(client)
    deleted = client.request("DELETE", f"{path}/{prefix}-owner", json={"propagationPolicy": policy})
    assert deleted.status_code == 200, deleted.text[:300]
    if policy == "Foreground":
        kept = deleted.json()
        assert kept["metadata"]["finalizers"] == ["foregroundDeletion"] and kept["metadata"]["deletionTimestamp"]
    assert _eventually(lambda: client.get(f"{path}/{prefix}-owner").status_code == 404)
    names = [d["metadata"]["name"] for d in dependents] + [grandchild["metadata"]["name"]]
    if policy == "Orphan":
        assert _eventually(
            lambda: all("ownerReferences" not in client.get(f"{path}/{n}").json()["metadata"] for n in names[:2])
        )
        assert client.get(f"{path}/{names[2]}").json()["metadata"]["ownerReferences"][0]["name"] == names[0]
    else:
        assert _eventually(lambda: all(client.get(f"{path}/{n}").status_code == 404 for n in names))


def test_a_dependent_with_another_living_owner_only_loses_the_reference(client):
    _needs_controllers(client)
    first = _create(client, _widget(client, "gc-first")).json()
    second = _create(client, _widget(client, "gc-second")).json()
    body = _widget(client, "gc-shared")
    body["metadata"]["ownerReferences"] = [
        {"apiVersion": o["apiVersion"], "kind": "Widget", "name": o["metadata"]["name"], "uid": o["metadata"]["uid"]}
        for o in (first, second)
    ]
    assert _create(client, body).status_code == 201
    path = _path(client)
    client.delete(f"{path}/gc-first")
    assert _eventually(
        lambda: [r["name"] for r in client.get(f"{path}/gc-shared").json()["metadata"].get("ownerReferences", [])]
        == ["gc-second"]
    )


def test_unknown_metadata_fields_are_dropped_as_unknown_fields(client):
    """A custom resource's metadata is ObjectMeta: what it has no field for is dropped, and
    reported as an unknown field like any other (a Warning, or 400 with Strict)."""
    body = _widget(client, "meta-extra")
    body["metadata"]["colour"] = "blue"
    made = _create(client, body)
    assert made.status_code == 201 and "colour" not in made.json()["metadata"]
    assert made.headers["warning"] == '299 - "unknown field \\"metadata.colour\\""'
    body["metadata"]["name"] = "meta-strict"
    strict = _create(client, body, fieldValidation="Strict")
    assert strict.status_code == 400 and 'unknown field "metadata.colour"' in strict.json()["message"]


def test_a_field_given_twice_is_a_duplicate_field(client):
    """Strict decoding reports a key given twice in the JSON text (`duplicate field`), as it
    reports unknown fields: a Warning by default, 400 with Strict; the last value wins."""
    text = '{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":"%s"},"spec":{"color":"red","color":"blue"}}'
    warned = client.post(
        _path(client), content=text % (client.group, "twice"), headers={"Content-Type": "application/json"}
    )
    assert warned.status_code == 201 and warned.json()["spec"]["color"] == "blue"
    assert warned.headers["warning"] == '299 - "duplicate field \\"spec.color\\""'
    strict = client.post(_path(client), content=text % (client.group, "twice-strict"), params={"fieldValidation": "Strict"},
                         headers={"Content-Type": "application/json"})  # fmt: skip
    assert strict.status_code == 400 and 'duplicate field "spec.color"' in strict.json()["message"]


def _apply(client: Served, body: dict[str, Any], manager: str, force: bool = False) -> httpx.Response:
    params = {"fieldManager": manager, **({"force": "true"} if force else {})}
    return client.patch(
        _path(client) + "/" + body["metadata"]["name"], content=json.dumps(body), params=params,
        headers={"Content-Type": "application/apply-patch+yaml"},
    )  # fmt: skip


def test_server_side_apply_follows_the_crd_list_types_and_types(client):
    """The field manager works on the CRD's structural schema (fieldmanager TypeConverter of
    the CRD): a list-type map merges by key (another manager's item is no conflict) and an
    applied value of the wrong type is refused before anything (500, "failed to create typed
    patch object", structured-merge-diff's words)."""
    created = _create(client, _widget(client, "ssa", ports=[{"name": "a", "number": 1}])).json()
    applied = _apply(client, {**_widget(client, "ssa", ports=[{"name": "b", "number": 2}])}, "other")
    assert applied.status_code == 200, applied.text[:500]
    assert applied.json()["spec"]["ports"] == [{"name": "a", "number": 1}, {"name": "b", "number": 2}]
    conflict = _apply(client, _widget(client, "ssa", color="blue"), "other")
    assert conflict.status_code == 409 and conflict.json()["message"].endswith("conflict with \"python-httpx\" using "
                                                                               f"{client.group}/v1: .spec.color")  # fmt: skip
    wrong = _apply(client, _widget(client, "ssa", replicas="three"), "other")
    assert wrong.status_code == 500 and wrong.json()["message"] == (
        f"failed to create typed patch object (/ssa; {client.group}/v1, Kind=Widget): "
        ".spec.replicas: expected numeric (int or float), got string"
    )
    assert client.get(_path(client) + "/ssa").json()["metadata"]["resourceVersion"] == (
        applied.json()["metadata"]["resourceVersion"]
    )
    # An applied null is kept (the field manager's result is not decoded again) and is a type error.
    nulled = _apply(client, {**_widget(client, "ssa"), "spec": {"color": "red", "label": None}}, "other", force=True)
    assert ("FieldValueTypeInvalid", "spec.label", 'Invalid value: "null": spec.label in body must be of type string: "null"') in _invalid(nulled)  # fmt: skip
    assert created["metadata"]["uid"] == client.get(_path(client) + "/ssa").json()["metadata"]["uid"]


def test_a_failed_delete_precondition_is_a_conflict_named_by_kind(client):
    """rest.BeforeDelete checks the preconditions first: 409 Conflict on `<Kind>.<group>`."""
    created = _create(client, _widget(client, "precondition")).json()
    path = _path(client) + "/precondition"
    wrong_uid = client.request("DELETE", path, json={"preconditions": {"uid": "not-it"}})
    assert wrong_uid.status_code == 409 and wrong_uid.json()["message"] == (
        f'Operation cannot be fulfilled on Widget.{client.group} "precondition": the UID in the precondition (not-it) '
        f'does not match the UID in record ({created["metadata"]["uid"]}). The object might have been deleted and then '
        "recreated"
    )
    assert wrong_uid.json()["details"] == {"name": "precondition", "group": client.group, "kind": "Widget"}
    stale = client.request("DELETE", path, json={"preconditions": {"resourceVersion": "1"}})
    assert stale.json()["message"] == (
        f'Operation cannot be fulfilled on Widget.{client.group} "precondition": the ResourceVersion in the precondition '
        f'(1) does not match the ResourceVersion in record ({created["metadata"]["resourceVersion"]}). The object might '
        "have been modified"
    )
    assert client.delete(path).status_code == 200


def test_metadata_is_written_as_object_meta_writes_it(client):
    """schema/objectmeta Coerce: the metadata of the resource and of an embedded resource go
    through ObjectMeta: empty values are dropped, unknown fields too (and reported)."""
    body = _widget(client, "coerced", template={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "", "labels": {}, "namespace": "x", "colour": "blue", "creationTimestamp": None}})  # fmt: skip
    body["metadata"].update(labels={}, annotations={}, finalizers=[], generateName="")
    made = _create(client, body)
    assert made.status_code == 201, made.text[:500]
    assert made.headers["warning"] == '299 - "unknown field \\"spec.template.metadata.colour\\""'
    metadata = made.json()["metadata"]
    assert not {"labels", "annotations", "finalizers", "generateName"} & set(metadata)
    assert made.json()["spec"]["template"] == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "x"}}


def test_an_update_through_status_is_validated_against_the_status_schema(client):
    """customresource validator ValidateStatusUpdate: the status alone against the status
    schema, rooted at `status` (the messages name paths below it)."""
    created = _create(client, _widget(client, "status-schema")).json()
    created["status"] = {"replicas": "many", "observedGeneration": 1}
    causes = _invalid(client.put(_path(client) + "/status-schema/status", json=created))
    assert ("FieldValueTypeInvalid", "status.replicas",
            'Invalid value: "string": replicas in body must be of type integer: "string"') in causes  # fmt: skip


def test_an_update_reports_metadata_errors_once_per_check(client):
    """rest.BeforeUpdate validates the metadata (ValidateObjectMetaAccessor and
    ValidateObjectMetaAccessorUpdate) and the custom resource validator again: a bad label is
    three causes of the Status, named once in its message (ToAggregate)."""
    created = _create(client, _widget(client, "relabeled")).json()
    created["metadata"]["labels"] = {"app": "-bad-"}
    refused = client.put(_path(client) + "/relabeled", json=created)
    causes = _invalid(refused)
    assert [c[1] for c in causes] == ["metadata.labels"] * 3
    assert refused.json()["message"].count("-bad-") == 1


def test_lists_and_failed_json_patches_are_shaped_as_a_cluster_shapes_them(client):
    """An unstructured list always sets metadata.continue ("" on its last page); a JSON patch
    that cannot apply is 422 with empty details (NewGenericServerResponse)."""
    listed = client.get(_path(client)).json()
    assert listed["metadata"]["continue"] == "" and listed["metadata"]["resourceVersion"]
    _create(client, _widget(client, "json-patched"))
    failed = client.patch(
        _path(client) + "/json-patched", content='[{"op": "test", "path": "/spec/color", "value": "blue"}]',
        headers={"Content-Type": "application/json-patch+json"},
    )  # fmt: skip
    assert failed.status_code == 422 and failed.json()["details"] == {}
    assert failed.json()["message"] == "the server rejected our request due to an error in our request"
