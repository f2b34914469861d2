"""kgen's built-in apimachinery packages (kgen/wellknown): every API type of the release,
with its JSON names, protobuf numbers and markers; the runtime models generated from
them; and a user's API that uses them, generated with every generator."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import build, write_tree
from kgen.generators.strategies import strategy_name
from kgen.ir.build import WELLKNOWN_ROOT
from kgen.runtime import protobuf
from kgen.runtime.semantic import semantic_diff, semantic_equal

META = "k8s.io/apimachinery/pkg/apis/meta/v1"
RUNTIME = "k8s.io/apimachinery/pkg/runtime"

#: The exported API types of each package in apimachinery v0.36.3 (structs with JSON
#: tags, the named types they use, kinds), by name.
API_TYPES = {
    META: {
        "APIGroup", "APIGroupList", "APIResource", "APIResourceList", "APIVersions", "ApplyOptions",
        "CauseType", "Condition", "ConditionStatus", "CreateOptions", "DeleteOptions", "DeletionPropagation",
        "Duration", "FieldSelectorOperator", "FieldSelectorRequirement", "FieldsV1", "GetOptions", "GroupKind",
        "GroupResource", "GroupVersion", "GroupVersionForDiscovery", "GroupVersionKind", "GroupVersionResource",
        "IncludeObjectPolicy", "LabelSelector", "LabelSelectorOperator", "LabelSelectorRequirement", "List",
        "ListMeta", "ListOptions", "ManagedFieldsEntry", "ManagedFieldsOperationType", "MicroTime", "ObjectMeta",
        "OwnerReference", "PartialObjectMetadata", "PartialObjectMetadataList", "Patch", "PatchOptions",
        "Preconditions", "ResourceVersionMatch", "RootPaths", "RowConditionType", "ServerAddressByClientCIDR",
        "ShardInfo", "Status", "StatusCause", "StatusDetails", "StatusReason", "Table", "TableColumnDefinition",
        "TableOptions", "TableRow", "TableRowCondition", "Time", "Timestamp", "TypeMeta", "UpdateOptions",
        "Verbs", "WatchEvent",
    },
    RUNTIME: {"RawExtension", "TypeMeta", "Unknown"},
    "k8s.io/apimachinery/pkg/runtime/schema": {"GroupKind", "GroupResource", "GroupVersion", "GroupVersionKind", "GroupVersionResource"},
    "k8s.io/apimachinery/pkg/types": {"NodeName", "PatchType", "UID"},
    "k8s.io/apimachinery/pkg/api/resource": {"Format", "Quantity", "QuantityValue"},
    "k8s.io/apimachinery/pkg/util/intstr": {"IntOrString", "Type"},
    "k8s.io/apimachinery/pkg/version": {"Info"},
}  # fmt: skip


@pytest.fixture(scope="module")
def builtin(tmp_path_factory):
    """kgen's built-in packages as kgen builds its runtime from them (every type; a user's
    project gets only the types its own reach)."""
    from kgen.diagnostics import Diagnostics
    from kgen.ir.build import WELLKNOWN_ROOT, BuildOptions, build_universe

    diagnostics = Diagnostics()
    universe = build_universe(BuildOptions(input=WELLKNOWN_ROOT, module="", bootstrap=True), diagnostics)
    return universe, diagnostics


def _type(universe, package, name):
    return next(t for t in universe.package(package).types if t.name == name)


def _field(universe, package, type_name, json_name):
    return next(f for f in _type(universe, package, type_name).fields if f.json_name == json_name)


def test_every_api_type_of_the_release_is_declared(builtin):
    universe, _ = builtin
    declared = {p.import_path: {t.name for t in p.types} for p in universe.packages if p.builtin}
    assert declared == API_TYPES


def test_the_builtin_packages_read_without_a_warning(builtin):
    # Every user run builds them: a marker kgen does not know would warn on every run.
    _, diagnostics = builtin
    assert [str(d) for d in diagnostics.sorted()] == []


# type, JSON name: (Go name, omitempty, omitzero, protobuf number, protobuf name, label, casttype)
FIELDS = {
    ("ObjectMeta", "creationTimestamp"): ("CreationTimestamp", True, True, 8, "creationTimestamp", "opt", None),
    ("ObjectMeta", "uid"): ("UID", True, False, 5, "uid", "opt", "k8s.io/kubernetes/pkg/types.UID"),
    ("ListMeta", "shardInfo"): ("ShardInfo", True, False, 5, "shardInfo", "opt", None),
    ("ShardInfo", "selector"): ("Selector", False, False, 1, "selector", "opt", None),
    ("ListOptions", "resourceVersionMatch"): ("ResourceVersionMatch", True, False, 10, "resourceVersionMatch", "opt", "ResourceVersionMatch"),
    ("ListOptions", "sendInitialEvents"): ("SendInitialEvents", True, False, 11, "sendInitialEvents", "opt", None),
    ("ListOptions", "shardSelector"): ("ShardSelector", True, False, 15, "shardSelector", "opt", None),
    ("DeleteOptions", "propagationPolicy"): ("PropagationPolicy", True, False, 4, "propagationPolicy", "opt", None),
    ("DeleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential"):
        ("IgnoreStoreReadErrorWithClusterBreakingPotential", True, False, 6, "ignoreStoreReadErrorWithClusterBreakingPotential", "opt", None),
    ("CreateOptions", "fieldManager"): ("FieldManager", True, False, 3, "fieldManager", "", None),
    ("ApplyOptions", "force"): ("Force", False, False, 2, "force", "opt", None),
    ("UpdateOptions", "fieldValidation"): ("FieldValidation", True, False, 3, "fieldValidation", "", None),
    ("Preconditions", "uid"): ("UID", True, False, 1, "uid", "opt", "k8s.io/apimachinery/pkg/types.UID"),
    ("StatusCause", "reason"): ("Type", True, False, 1, "reason", "opt", "CauseType"),
    ("APIResourceList", "resources"): ("APIResources", False, False, 2, "resources", "rep", None),
    ("APIResource", "verbs"): ("Verbs", False, False, 4, "verbs", "opt", None),
    ("APIResource", "storageVersionHash"): ("StorageVersionHash", True, False, 10, "storageVersionHash", "opt", None),
    ("APIGroup", "preferredVersion"): ("PreferredVersion", True, False, 3, "preferredVersion", "opt", None),
    ("List", "items"): ("Items", False, False, 2, "items", "rep", None),
    ("PartialObjectMetadataList", "items"): ("Items", False, False, 2, "items", "rep", None),
    ("TableOptions", "includeObject"): ("IncludeObject", True, False, 1, "includeObject", "opt", "IncludeObjectPolicy"),
    ("WatchEvent", "object"): ("Object", False, False, 2, "object", "opt", None),
    ("FieldSelectorRequirement", "operator"): ("Operator", False, False, 2, "operator", "opt", "FieldSelectorOperator"),
    ("GroupVersionKind", "kind"): ("Kind", False, False, 3, "kind", "opt", None),
    ("GroupVersionResource", "resource"): ("Resource", False, False, 3, "resource", "opt", None),
    ("Timestamp", "nanos"): ("Nanos", False, False, 2, "nanos", "opt", None),
}  # fmt: skip


@pytest.mark.parametrize("type_name, json_name", list(FIELDS), ids=[".".join(k) for k in FIELDS])
def test_fields_carry_the_release_tags(builtin, type_name, json_name):
    universe, _ = builtin
    f = _field(universe, META, type_name, json_name)
    go_name, omitempty, omitzero, number, proto_name, label, casttype = FIELDS[(type_name, json_name)]
    assert (f.go_name, f.omitempty, f.omitzero) == (go_name, omitempty, omitzero)
    assert (f.protobuf.number, f.protobuf.name, f.protobuf.label) == (number, proto_name, label)
    assert f.protobuf.options.get("casttype") == casttype


def test_markers_and_shapes_of_the_release(builtin):
    universe, _ = builtin
    assert _field(universe, META, "ListMeta", "shardInfo").has_marker("featureGate")
    assert _field(universe, META, "ObjectMeta", "ownerReferences").patch_merge_key == "uid"
    assert _field(universe, META, "LabelSelectorRequirement", "key").patch_strategy is None
    assert _field(universe, META, "TableRow", "cells").type.elem.kind == "any"
    for name in ("Table", "TableColumnDefinition", "TableRow", "TableRowCondition"):
        assert _type(universe, META, name).marker("protobuf").value is False
    assert _type(universe, META, "Verbs").has_marker("protobuf.nullable")
    assert [f.go_name for f in _type(universe, "k8s.io/apimachinery/pkg/runtime/schema", "GroupVersionKind").fields] == [
        "Group", "Version", "Kind"
    ]  # fmt: skip
    unknown = {f.go_name: f.json_name for f in _type(universe, RUNTIME, "Unknown").fields}
    assert unknown == {"APIVersion": "apiVersion", "Kind": "kind", "ContentEncoding": "ContentEncoding", "ContentType": "ContentType"}
    kinds = {t.name for t in universe.package(META).types if t.is_kind}
    lists = {t.name for t in universe.package(META).types if t.is_list}
    assert kinds == {
        "APIGroup", "APIGroupList", "APIResourceList", "APIVersions", "CreateOptions", "DeleteOptions", "GetOptions",
        "ListOptions", "PartialObjectMetadata", "PatchOptions", "Status", "Table", "TableOptions", "UpdateOptions",
    }  # fmt: skip
    assert lists == {"List", "PartialObjectMetadataList"}


def test_enum_constants_of_the_release(builtin):
    universe, _ = builtin
    values = {t.name: [v.value for v in t.enum_values] for p in universe.packages if p.builtin for t in p.types}
    assert "FieldValueTypeInvalid" in values["CauseType"]
    assert values["DeletionPropagation"] == ["Orphan", "Background", "Foreground"]
    assert values["ResourceVersionMatch"] == ["NotOlderThan", "Exact"]
    assert values["IncludeObjectPolicy"] == ["None", "Metadata", "Object"]
    assert values["FieldSelectorOperator"] == ["In", "NotIn", "Exists", "DoesNotExist"]
    assert values["Format"] == ["DecimalExponent", "BinarySI", "DecimalSI"]
    assert values["PatchType"] == [
        "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json",
        "application/apply-patch+yaml", "application/apply-patch+yaml", "application/apply-patch+cbor",
    ]  # fmt: skip


def test_tombstoned_numbers_are_reserved():
    text = (WELLKNOWN_ROOT.parent / "runtime/apimachinery/meta/v1/generated.proto").read_text()
    for message, number, name in (
        ("ObjectMeta", 15, "clusterName"), ("ListOptions", 6, "includeUninitialized"),
        ("GetOptions", 2, "includeUninitialized"), ("CreateOptions", 2, "includeUninitialized"),
        ("ManagedFieldsEntry", 5, "fields"),
    ):  # fmt: skip
        body = text.split(f"message {message} {{\n", 1)[1].split("\n}\n", 1)[0]
        assert f'  reserved {number};\n  reserved "{name}";' in body, message


# -- the runtime models -----------------------------------------------------------------------


def test_zero_creation_timestamp_is_left_out_as_go_does():
    from kgen.runtime.apimachinery.meta.v1 import ObjectMeta

    # ObjectMeta.creationTimestamp is `omitempty,omitzero`: Go writes no zero time.
    assert ObjectMeta(name="a").to_json() == b'{"name":"a"}'
    stamped = ObjectMeta.from_json(b'{"name":"a","creationTimestamp":"2024-05-06T07:08:09Z"}')
    assert stamped.creation_timestamp == datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
    assert stamped.to_json() == b'{"name":"a","creationTimestamp":"2024-05-06T07:08:09Z"}'


def test_the_new_kinds_speak_the_api_servers_json():
    from kgen.runtime.apimachinery.meta import v1
    from kgen.runtime.apimachinery.version.models import Info

    table = (
        b'{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},'
        b'"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"","priority":0}],'
        b'"rows":[{"cells":["a",1,2.5,true,null,{"k":[1]}],"object":{"kind":"PartialObjectMetadata","metadata":{"name":"a"}}}]}'
    )
    decoded = v1.Table.from_json(table)
    assert decoded.rows[0].cells == ["a", 1, 2.5, True, None, {"k": [1]}]
    assert decoded.to_json() == table
    copied = decoded.deep_copy()
    copied.rows[0].cells[5]["k"].append(2)
    assert decoded.rows[0].cells[5] == {"k": [1]}  # cells are copied, not shared
    event = v1.WatchEvent.from_json(b'{"type":"ADDED","object":{"kind":"Pod","spec":{}}}')
    assert event.to_json() == b'{"type":"ADDED","object":{"kind":"Pod","spec":{}}}'
    options = v1.DeleteOptions.from_json(b'{"propagationPolicy":"Foreground","preconditions":{"uid":"u"},"dryRun":["All"]}')
    assert options.propagation_policy == v1.DeletionPropagation.FOREGROUND
    assert options.to_json() == b'{"preconditions":{"uid":"u"},"propagationPolicy":"Foreground","dryRun":["All"]}'
    resource = v1.APIResource(name="pods", verbs=["get", "list"])
    assert json.loads(resource.to_json()) == {"name": "pods", "singularName": "", "namespaced": False, "kind": "", "verbs": ["get", "list"]}
    assert json.loads(Info(major="1", minor="36").to_json())["gitVersion"] == ""
    assert v1.Patch().to_json() == b"{}"


def _meta_v1_structs() -> list[str]:
    from kgen.runtime.apimachinery.meta.v1 import models
    from kgen.runtime.model import Model

    return sorted(n for n in models.__all__ if isinstance(getattr(models, n), type) and issubclass(getattr(models, n), Model))


NO_MESSAGE = {"Table", "TableColumnDefinition", "TableRow", "TableRowCondition"}


@pytest.mark.slow
@pytest.mark.parametrize("name", _meta_v1_structs())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_meta_v1_struct_round_trips(builtin, name, data):
    from kgen.runtime.apimachinery.meta.v1 import models, strategies
    from kgen.runtime.apimachinery.meta.v1 import protobuf as _  # noqa: F401  (registers the converters)

    obj = data.draw(getattr(strategies, strategy_name(name))())
    back = getattr(models, name).from_json(obj.to_json())
    assert back.to_json() == obj.to_json()
    assert obj.deep_copy() == obj
    if name not in NO_MESSAGE:
        universe, _ = builtin
        if any(m.go_name == "TypeMeta" and m.promoted for m in _type(universe, META, name).members):
            obj = obj.model_copy(update={"kind": "", "api_version": ""})  # the envelope carries them, not the message
        unmarshaled = protobuf.unmarshal(type(obj), protobuf.marshal(obj))
        assert semantic_equal(obj, unmarshaled), semantic_diff(obj, unmarshaled)


# -- a user's API built on them ---------------------------------------------------------------


USER_TYPES = """
package v1

import (
    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
    "k8s.io/apimachinery/pkg/runtime"
    "k8s.io/apimachinery/pkg/types"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Rollout moves a workload to a new version.
type Rollout struct {
    metav1.TypeMeta `json:",inline"`
    // +optional
    metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

    // +optional
    Spec RolloutSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
    // +optional
    Status RolloutStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// RolloutSpec is what the rollout should do.
type RolloutSpec struct {
    // Target names the workload.
    Target metav1.GroupVersionKind `json:"target" protobuf:"bytes,1,opt,name=target"`
    // Resource is the workload's resource.
    // +optional
    Resource *metav1.GroupVersionResource `json:"resource,omitempty" protobuf:"bytes,2,opt,name=resource"`
    // Node pins the rollout to a node.
    // +optional
    Node types.NodeName `json:"node,omitempty" protobuf:"bytes,3,opt,name=node,casttype=k8s.io/apimachinery/pkg/types.NodeName"`
    // Selector picks the pods.
    // +optional
    Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
    // Fields narrows them by field.
    // +optional
    // +listType=atomic
    Fields []metav1.FieldSelectorRequirement `json:"fields,omitempty" protobuf:"bytes,5,rep,name=fields"`
    // Pause between steps.
    // +optional
    Pause metav1.Duration `json:"pause,omitempty" protobuf:"bytes,6,opt,name=pause"`
    // Cleanup says how replaced objects are deleted.
    // +optional
    Cleanup *metav1.DeleteOptions `json:"cleanup,omitempty" protobuf:"bytes,7,opt,name=cleanup"`
    // Hooks are opaque plugin settings.
    // +optional
    // +listType=atomic
    Hooks []runtime.RawExtension `json:"hooks,omitempty" protobuf:"bytes,8,rep,name=hooks"`
}

// RolloutStatus is what the rollout has done.
type RolloutStatus struct {
    // +optional
    // +listType=map
    // +listMapKey=type
    Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
    // LastProbe is when the target was last probed.
    // +optional
    LastProbe *metav1.MicroTime `json:"lastProbe,omitempty" protobuf:"bytes,2,opt,name=lastProbe"`
    // Failure is the last error.
    // +optional
    Failure *metav1.Status `json:"failure,omitempty" protobuf:"bytes,3,opt,name=failure"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RolloutList is a list of rollouts.
type RolloutList struct {
    metav1.TypeMeta `json:",inline"`
    // +optional
    metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
    Items []Rollout `json:"items" protobuf:"bytes,2,rep,name=items"`
}
"""

# A package without protobuf: the types that have no protobuf form.
INVENTORY_TYPES = """
package v1

import (
    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
    "k8s.io/apimachinery/pkg/runtime/schema"
    "k8s.io/apimachinery/pkg/types"
    "k8s.io/apimachinery/pkg/version"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Server records what an API server serves.
type Server struct {
    metav1.TypeMeta `json:",inline"`
    // +optional
    metav1.ObjectMeta `json:"metadata,omitempty"`

    // Version the server reported.
    Version version.Info `json:"version"`
    // Kinds it serves, as Go code names them.
    // +optional
    // +listType=atomic
    Kinds []schema.GroupKind `json:"kinds,omitempty"`
    // Patches are the patch types it accepts.
    // +optional
    // +listType=set
    Patches []types.PatchType `json:"patches,omitempty"`
    // Resources as a table.
    // +optional
    Resources *metav1.Table `json:"resources,omitempty"`
}
"""

SERVER = {
    "kind": "Server", "apiVersion": "inventory.example.com/v1", "metadata": {"name": "s"},
    "version": {"major": "1", "minor": "36", "gitVersion": "v1.36.0", "gitCommit": "", "gitTreeState": "",
                "buildDate": "", "goVersion": "", "compiler": "", "platform": "linux/amd64"},
    "kinds": [{"Group": "apps", "Kind": "Deployment"}],
    "patches": ["application/apply-patch+yaml"],
    "resources": {"metadata": {}, "columnDefinitions": [], "rows": [{"cells": ["pods", 3], "object": None}]},
}  # fmt: skip

ROLLOUT = {
    "apiVersion": "rollouts.example.com/v1", "kind": "Rollout",
    "metadata": {"name": "r", "namespace": "default", "creationTimestamp": "2024-05-06T07:08:09Z"},
    "spec": {
        "target": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "node": "node-1",
        "selector": {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]},
        "fields": [{"key": "status.phase", "operator": "NotIn", "values": ["Failed"]}],
        "pause": "1m30s",
        "cleanup": {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 5, "propagationPolicy": "Background"},
        "hooks": [{"kind": "Notify", "url": "https://example.com"}],
    },
    "status": {
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-06T07:08:09Z",
                        "reason": "Done", "message": ""}],
        "lastProbe": "2024-05-06T07:08:09.123456Z",
        "failure": {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "Conflict",
                    "details": {"name": "r", "causes": [{"reason": "FieldValueTypeInvalid", "field": "spec"}]}, "code": 409},
    },
}  # fmt: skip


def _nested_type_meta_cleared(rollout):
    """The rollout as protobuf carries it: go-to-protobuf leaves TypeMeta out of every
    message (the envelope carries the top-level one), so nested kinds lose theirs."""
    rollout = rollout.deep_copy()
    for nested in (rollout.spec.cleanup, rollout.status.failure):
        if nested is not None:
            nested.kind = nested.api_version = ""
    return rollout


def test_a_user_api_built_on_the_new_types_generates_and_works(generate_project):
    from kgen.generators import GENERATORS

    files = {
        "go.mod": "module example.com/apis\n",
        "rollouts/v1/doc.go": "// +k8s:deepcopy-gen=package\n// +k8s:protobuf-gen=package\n// +groupName=rollouts.example.com\npackage v1\n",
        "rollouts/v1/types.go": USER_TYPES,
        "inventory/v1/doc.go": "// +k8s:deepcopy-gen=package\n// +groupName=inventory.example.com\npackage v1\n",
        "inventory/v1/types.go": INVENTORY_TYPES,
    }
    load, result = generate_project(files)
    assert [str(d) for d in result.diagnostics.sorted()] == []
    produced = {f.generator for f in result.files}
    assert produced == set(GENERATORS) - {"conversion", "defaulters"}  # no hub, no defaults: nothing to write
    models = load("rollouts.v1.models")
    load("rollouts.v1.protobuf")
    validation = load("rollouts.v1.validation")
    register = load("rollouts.v1.register")
    strategies = load("rollouts.v1.strategies")

    body = json.dumps(ROLLOUT).encode()
    rollout = models.Rollout.from_json(body)
    assert json.loads(rollout.to_json()) == ROLLOUT
    assert rollout.spec.target.kind == "Deployment"
    assert rollout.status.failure.details.causes[0].reason == "FieldValueTypeInvalid"
    assert rollout.deep_copy() == rollout
    assert register.KINDS["Rollout"] is models.Rollout

    back = protobuf.decode(protobuf.encode(rollout))
    assert type(back) is models.Rollout
    expected = _nested_type_meta_cleared(rollout)
    assert semantic_equal(expected, back), semantic_diff(expected, back)

    # ListMeta.shardInfo.selector is +required: a list that says it is a shard must say which.
    shard = models.RolloutList.from_json(b'{"metadata": {"shardInfo": {"selector": ""}}, "items": []}')
    assert [str(e) for e in validation.validate_RolloutList(shard)] == ["metadata.shardInfo.selector: Required value"]
    shard.metadata.shard_info.selector = "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')"
    assert validation.validate_RolloutList(shard) == []

    swagger = json.loads(next(f.content for f in result.files if f.path == "openapi/swagger.json"))["definitions"]
    spec = swagger["com.example.apis.rollouts.v1.RolloutSpec"]["properties"]
    assert spec["target"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.GroupVersionKind"
    assert spec["cleanup"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
    server = swagger["com.example.apis.inventory.v1.Server"]["properties"]
    assert server["kinds"]["items"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.runtime.schema.GroupKind"
    assert server["resources"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Table"
    assert swagger["io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement"]["required"] == ["key", "operator"]
    assert swagger["io.k8s.apimachinery.pkg.version.Info"]["properties"]["platform"]["type"] == "string"
    proto = next(f.content for f in result.files if f.path == "rollouts/v1/generated.proto")
    assert "optional .k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionKind target = 1;" in proto
    assert "repeated .k8s.io.apimachinery.pkg.runtime.RawExtension hooks = 8;" in proto
    assert "optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastProbe = 2;" in proto

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(obj=strategies.rollout_strategy())
    def round_trips(obj):
        assert models.Rollout.from_json(obj.to_json()).to_json() == obj.to_json()
        decoded = protobuf.decode(protobuf.encode(obj))
        expected = _nested_type_meta_cleared(obj)
        assert semantic_equal(expected, decoded), semantic_diff(expected, decoded)

    round_trips()

    inventory = load("inventory.v1.models")
    load("inventory.v1.validation")
    server = inventory.Server.from_json(json.dumps(SERVER).encode())
    assert json.loads(server.to_json()) == SERVER
    assert server.kinds[0].kind == "Deployment" and server.resources.rows[0].cells == ["pods", 3]
    assert server.deep_copy() == server
    crd = next(f.content for f in result.files if f.path == "crds/inventory.example.com_servers.yaml")
    assert "x-kubernetes-preserve-unknown-fields: true" in crd  # the table's cells and objects
