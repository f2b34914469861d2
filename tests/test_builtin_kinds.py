"""The built-in kinds kgen serves besides an API's own: ConfigMaps, Secrets, ServiceAccounts,
Events (core v1 and events.k8s.io/v1) and Leases, as kube-apiserver serves them.

A tiny API is served by `FakeCluster`; each check names the upstream behaviour it
reproduces: the kinds' strategies (kubernetes pkg/registry/core/{configmap,secret,
serviceaccount,event}/strategy.go, pkg/registry/coordination/lease/strategy.go), their
validation (pkg/apis/core/validation/validation.go and events.go,
pkg/apis/coordination/validation), core/v1's defaults and conversions
(pkg/apis/core/v1/defaults.go, conversion.go; pkg/apis/events/v1/conversion.go), the
printers (pkg/printers/internalversion/printers.go), the typed decoder (sigs.k8s.io/json,
apimachinery's json serializer) and the handlers (k8s.io/apiserver
pkg/endpoints/handlers/create.go transformDecodeError, registry/generic/registry/store.go).
"""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any

import httpx
import pytest

from conftest import write_tree
from tests.serve_fixtures import SERVERS, served_api
from tests.store_fixtures import etcd_server  # noqa: F401

TYPES = """
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Gadget is a gadget.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec GadgetSpec `json:"spec,omitempty"`
}

// GadgetSpec is what a gadget should be.
type GadgetSpec struct {
	// +optional
	Size int32 `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// GadgetList is a list of gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}
"""

FILES = {
    "pyproject.toml": '[tool.kgen]\ninput = "apis"\noutput = "gadgets_served"\n',
    "apis/go.mod": "module example.com/gadgets/apis\n\ngo 1.22\n",
    "apis/gadgets/v1/doc.go": "// +k8s:deepcopy-gen=package\n// +groupName=gadgets.example.com\n\n// Package v1 is the gadgets API.\npackage v1\n",
    "apis/gadgets/v1/types.go": TYPES,
}  # fmt: skip

CM = "/api/v1/namespaces/default/configmaps"
SECRETS = "/api/v1/namespaces/default/secrets"
SA = "/api/v1/namespaces/default/serviceaccounts"
EVENTS = "/api/v1/namespaces/default/events"
EVENTS_V1 = "/apis/events.k8s.io/v1/namespaces/default/events"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
TABLE = {"Accept": "application/json;as=Table;g=meta.k8s.io;v=v1"}
SMP = {"Content-Type": "application/strategic-merge-patch+json"}
PROTOBUF = "application/vnd.kubernetes.protobuf"
CONFIG_KEY = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  "
    "or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)


@pytest.fixture(scope="module", params=SERVERS)
def client(request, tmp_path_factory):
    """The API served by FakeCluster, and by kgen serve on SQLite and on etcd (every check runs on each)."""
    root = write_tree(tmp_path_factory.mktemp("builtin-kinds"), FILES)
    with served_api(request, root / "pyproject.toml", root) as connect, connect() as http:
        yield http


def _named(name: str, **fields: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, **fields}


def _status(response: httpx.Response, code: int) -> dict[str, Any]:
    assert response.status_code == code, response.text[:800]
    status: dict[str, Any] = response.json()
    assert status["kind"] == "Status" and status["code"] == code
    return status


def _bad_request(response: httpx.Response) -> str:
    """The message of a 400 BadRequest (which has no causes, as NewBadRequest makes it)."""
    status = _status(response, 400)
    assert status["reason"] == "BadRequest" and "details" not in status
    return str(status["message"])


def _invalid(response: httpx.Response) -> tuple[str, list[tuple[str, str, str]]]:
    """The message and (reason, field, message) of each cause of a 422 Invalid."""
    status = _status(response, 422)
    assert status["reason"] == "Invalid"
    return status["message"], [(c["reason"], c["field"], c["message"]) for c in status["details"]["causes"]]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# -- ConfigMaps --------------------------------------------------------------------------------------


def test_a_config_map_is_stored_as_a_cluster_stores_it(client):
    """configmap/strategy.go: no generation (PrepareForCreate/Update set none), an update
    without resourceVersion overwrites (AllowUnconditionalUpdate), a PUT does not create
    (AllowCreateOnUpdate false), and a delete answers a Status Success (the registry does
    not return deleted objects: store.go finalizeDelete, `kind` is the resource)."""
    made = client.post(CM, json=_named("plain", data={"color": "blue"}, binaryData={"raw": _b64("\x00\x01")}))
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["apiVersion"] == "v1" and body["kind"] == "ConfigMap"
    assert body["data"] == {"color": "blue"} and body["binaryData"] == {"raw": "AAE="}
    assert "generation" not in body["metadata"]
    updated = client.put(f"{CM}/plain", json=_named("plain", data={"color": "red"}))
    assert updated.status_code == 200 and updated.json()["data"] == {"color": "red"}
    assert "generation" not in updated.json()["metadata"] and "binaryData" not in updated.json()
    assert client.put(f"{CM}/absent", json=_named("absent")).status_code == 404
    deleted = client.delete(f"{CM}/plain")
    assert deleted.status_code == 200
    assert deleted.json()["status"] == "Success" and deleted.json()["details"]["kind"] == "configmaps"
    assert deleted.json()["details"]["uid"] == body["metadata"]["uid"]


def test_config_map_keys_are_config_keys_and_not_in_both_maps(client):
    """ValidateConfigMap: every key IsConfigMapKey (at data[key] / binaryData[key]), and a
    key of data may not also be a key of binaryData."""
    message, causes = _invalid(client.post(CM, json=_named("keys", data={"a b": "x", "twice": "1"},
                                                           binaryData={"twice": _b64("2")})))  # fmt: skip
    assert causes == [
        ("FieldValueInvalid", "data[a b]", f'Invalid value: "a b": {CONFIG_KEY}'),
        ("FieldValueInvalid", "data[twice]", 'Invalid value: "twice": duplicate of key present in binaryData'),
    ]
    assert message.startswith('ConfigMap "keys" is invalid: [data[a b]: Invalid value: "a b": a valid config key')


def test_a_config_map_holds_at_most_a_mebibyte(client):
    """ValidateConfigMap: data and binaryData together hold at most MaxSecretSize (1 MiB),
    an error about the whole object (field.NewPath(""), printed `[]`)."""
    half = "x" * (512 * 1024)
    assert client.post(CM, json=_named("full", data={"a": half}, binaryData={"b": _b64(half)})).status_code == 201
    message, causes = _invalid(client.post(CM, json=_named("over", data={"a": half, "b": half + "!"})))
    assert causes == [("FieldValueTooLong", "[]", "Too long: may not be more than 1048576 bytes")]
    assert message == 'ConfigMap "over" is invalid: []: Too long: may not be more than 1048576 bytes'


def test_an_immutable_config_map_keeps_its_data(client):
    """ValidateConfigMapUpdate: once `immutable` is true, data and binaryData may not
    change and immutable may not be unset (Forbidden, `field is immutable when
    `immutable` is set`); metadata may still change."""
    assert client.post(CM, json=_named("frozen", immutable=True, data={"a": "1"})).status_code == 201
    relabelled = client.put(f"{CM}/frozen", json={"metadata": {"name": "frozen", "labels": {"x": "y"}}, "immutable": True,
                                                  "data": {"a": "1"}})  # fmt: skip
    assert relabelled.status_code == 200
    _, causes = _invalid(client.put(f"{CM}/frozen", json=_named("frozen", data={"a": "2"})))
    assert causes == [
        ("FieldValueForbidden", "immutable", "Forbidden: field is immutable when `immutable` is set"),
        ("FieldValueForbidden", "data", "Forbidden: field is immutable when `immutable` is set"),
    ]
    _, causes = _invalid(client.patch(f"{CM}/frozen", content='{"binaryData":{"b":"AA=="}}', headers=SMP))
    assert causes == [("FieldValueForbidden", "binaryData", "Forbidden: field is immutable when `immutable` is set")]


def test_a_value_of_the_wrong_type_is_the_typed_decoders_400(client):
    """The typed decoder (sigs.k8s.io/json, Go's encoding/json) refuses a value of the
    wrong type; the handler answers 400 `<Kind> in version "v1" cannot be handled as a
    <Kind>: ...` (transformDecodeError), naming the innermost struct and the JSON field
    path, never the 422 of a custom resource's schema."""
    cases = [
        ({"data": {"a": 1}}, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"),
        ({"metadata": {"name": 7}}, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
        ({"metadata": {"name": "x", "labels": ["a"]}},
         "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
        ({"metadata": "x"}, "json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta"),
        ({"metadata": {"name": "x"}, "immutable": "yes"},
         "json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool"),
    ]  # fmt: skip
    for body, problem in cases:
        message = _bad_request(client.post(CM, json=body))
        assert message == f'ConfigMap in version "v1" cannot be handled as a ConfigMap: {problem}'
    assert client.get(f"{CM}/x").status_code == 404


def test_unknown_and_duplicate_fields_warn_or_fail_strictly(client):
    """Strict decoding's problems, in document order: a Warning header each by default
    (fieldValidation Warn, as a client library sends none), a 400 with Strict
    (`cannot be handled as a ConfigMap: strict decoding error: ...`), nothing with Ignore."""
    text = '{"metadata":{"name":"%s","colour":1},"data":{"a":"1","a":"2"},"dta":{}}'
    warned = client.post(CM, content=text % "warned", headers={"Content-Type": "application/json"})
    assert warned.status_code == 201 and warned.json()["data"] == {"a": "2"}
    assert warned.headers.get_list("warning") == [
        '299 - "unknown field \\"metadata.colour\\""', '299 - "duplicate field \\"data.a\\""', '299 - "unknown field \\"dta\\""',
    ]  # fmt: skip
    strict = client.post(CM, content=text % "strict", params={"fieldValidation": "Strict"},
                         headers={"Content-Type": "application/json"})  # fmt: skip
    assert _bad_request(strict) == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field '
        '"metadata.colour", duplicate field "data.a", unknown field "dta"'
    )
    ignored = client.post(CM, content=text % "ignored", params={"fieldValidation": "Ignore"},
                          headers={"Content-Type": "application/json"})  # fmt: skip
    assert ignored.status_code == 201 and "warning" not in ignored.headers


def test_text_that_is_not_json_is_the_serializers_400(client):
    """apimachinery's json serializer reads apiVersion and kind first (SimpleMetaFactory
    .Interpret), with Go's scanner messages; the handler then has no kind and summarizes
    the body (transformDecodeError, summarizeData)."""
    broken = client.post(
        CM, content=b'{"metadata": {"name": "abcdefghij"},}', headers={"Content-Type": "application/json"}
    )
    assert _bad_request(broken) == (
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: "
        'invalid character \'}\' looking for beginning of object key string ({"metadata": {"name": "abcdefg ...)'
    )
    kind = client.post(CM, content=b'{"kind": 5}', headers={"Content-Type": "application/json"})
    assert _bad_request(kind) == (
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: "
        'json: cannot unmarshal number into Go struct field .kind of type string ({"kind": 5})'
    )
    other = client.post(CM, json={"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}})
    assert _bad_request(other) == "the kind in the data (Secret) does not match the expected kind (ConfigMap)"


def test_config_maps_select_by_name_and_namespace_only(client):
    """ConfigMaps have no field label conversion of their own: apimachinery's default
    (DefaultMetaV1FieldSelectorConversion) allows metadata.name and metadata.namespace."""
    assert client.post(CM, json=_named("selected")).status_code == 201
    listed = client.get(CM, params={"fieldSelector": "metadata.name=selected"}).json()
    assert [item["metadata"]["name"] for item in listed["items"]] == ["selected"]
    assert listed["kind"] == "ConfigMapList" and listed["apiVersion"] == "v1"
    assert _bad_request(client.get(CM, params={"fieldSelector": "data.a=1"})) == (
        '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )


# -- Secrets -----------------------------------------------------------------------------------------


def test_string_data_is_written_into_data_and_never_returned(client):
    """Convert_v1_Secret_To_core_Secret: stringData's values replace data's; the internal
    Secret has no stringData, so it is neither stored nor returned. SetDefaults_Secret: no
    type is Opaque. `kubectl get secret -o jsonpath={.data.k}` reads base64."""
    made = client.post(SECRETS, json=_named("mixed", data={"a": _b64("old"), "b": _b64("kept")},
                                            stringData={"a": "new", "c": "plain"}))  # fmt: skip
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["type"] == "Opaque" and "stringData" not in body
    assert body["data"] == {"a": _b64("new"), "b": _b64("kept"), "c": _b64("plain")}
    assert client.get(f"{SECRETS}/mixed").json()["data"] == body["data"]
    patched = client.patch(f"{SECRETS}/mixed", content='{"stringData":{"b":"changed"}}', headers=SMP)
    assert patched.status_code == 200 and patched.json()["data"]["b"] == _b64("changed")
    managed = json.dumps(patched.json()["metadata"]["managedFields"])
    assert "f:stringData" not in managed and "f:data" in managed  # fields are managed as stored


def test_secret_data_must_be_base64(client):
    """Secret.data is map[string][]byte: Go's decoder reads each value with
    base64.StdEncoding (padding required) and reports base64.CorruptInputError:
    `illegal base64 data at input byte N`, a 400."""
    for value, offset in (("dmFsdWU", 4), ("v@lue===", 1), ("dg==dg==", 4), ("dg=", 3)):
        message = _bad_request(client.post(SECRETS, json=_named("b64", data={"k": value})))
        assert (
            message
            == f'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte {offset}'
        )
    assert client.post(SECRETS, json=_named("b64", data={"k": "dmFs\ndWU="})).json()["data"]["k"] == "dmFsdWU="


def test_a_secrets_type_never_changes(client):
    """ValidateSecretUpdate: `type` is immutable (ValidateImmutableField), and an update
    that leaves it out is defaulted to Opaque before it is compared."""
    tls = {"tls.crt": _b64("cert"), "tls.key": _b64("key")}
    assert client.post(SECRETS, json=_named("typed", type="kubernetes.io/tls", data=tls)).status_code == 201
    _, causes = _invalid(client.put(f"{SECRETS}/typed", json=_named("typed", data=tls)))
    assert causes == [("FieldValueInvalid", "type", 'Invalid value: "Opaque": field is immutable')]
    kept = client.put(
        f"{SECRETS}/typed", json=_named("typed", type="kubernetes.io/tls", data={**tls, "ca.crt": _b64("ca")})
    )
    assert kept.status_code == 200 and kept.json()["type"] == "kubernetes.io/tls"


def test_an_immutable_secret_keeps_its_data(client):
    """ValidateSecretUpdate: with `immutable: true`, data may not change and immutable may
    not be unset; stringData counts as data, being converted into it first."""
    assert client.post(SECRETS, json=_named("sealed", immutable=True, stringData={"k": "v"})).status_code == 201
    _, causes = _invalid(client.patch(f"{SECRETS}/sealed", content='{"stringData":{"k":"w"}}', headers=SMP))
    assert causes == [("FieldValueForbidden", "data", "Forbidden: field is immutable when `immutable` is set")]
    _, causes = _invalid(client.patch(f"{SECRETS}/sealed", content='{"immutable":false}', headers=SMP))
    assert causes == [("FieldValueForbidden", "immutable", "Forbidden: field is immutable when `immutable` is set")]


@pytest.mark.parametrize(
    ("secret_type", "fields", "expected"),
    [
        ("kubernetes.io/service-account-token", {},
         [("FieldValueRequired", "metadata.annotations[kubernetes.io/service-account.name]", "Required value")]),
        ("kubernetes.io/dockercfg", {}, [("FieldValueRequired", "data[.dockercfg]", "Required value")]),
        ("kubernetes.io/dockerconfigjson", {"data": {".dockerconfigjson": _b64("{nope")}},
         [("FieldValueInvalid", "data[.dockerconfigjson]",
           "Invalid value: \"<secret contents redacted>\": invalid character 'n' looking for beginning of object key string")]),
        ("kubernetes.io/dockerconfigjson", {"stringData": {".dockerconfigjson": "[1]"}},
         [("FieldValueInvalid", "data[.dockerconfigjson]",
           'Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}')]),
        ("kubernetes.io/basic-auth", {},
         [("FieldValueRequired", "data[username]", "Required value"), ("FieldValueRequired", "data[password]", "Required value")]),
        ("kubernetes.io/ssh-auth", {"data": {"ssh-privatekey": ""}},
         [("FieldValueRequired", "data[ssh-privatekey]", "Required value")]),
        ("kubernetes.io/tls", {"data": {"tls.key": _b64("k")}}, [("FieldValueRequired", "data[tls.crt]", "Required value")]),
    ],
)  # fmt: skip
def test_a_secret_type_requires_its_keys(client, secret_type, fields, expected):
    """ValidateSecret's switch on the type: the annotation a service account token names,
    the dockercfg / dockerconfigjson key holding a JSON object (Go's json.Unmarshal error,
    contents redacted), a username or a password, an ssh private key, a certificate and a key."""
    _, causes = _invalid(client.post(SECRETS, json={**_named("typed-keys"), "type": secret_type, **fields}))
    assert causes == expected


def test_secret_keys_and_size(client):
    """ValidateSecret: keys are config keys (at data[key]); the values hold at most 1 MiB
    together, reported at `data`."""
    _, causes = _invalid(client.post(SECRETS, json=_named("bad-key", stringData={"no/slash": "x"})))
    assert causes == [("FieldValueInvalid", "data[no/slash]", f'Invalid value: "no/slash": {CONFIG_KEY}')]
    _, causes = _invalid(client.post(SECRETS, json=_named("too-big", stringData={"a": "x" * (1024 * 1024 + 1)})))
    assert causes == [("FieldValueTooLong", "data", "Too long: may not be more than 1048576 bytes")]


def test_secrets_select_by_type(client):
    """AddFieldLabelConversionsForSecret: `type` besides the metadata labels; any other
    label is `field label not supported`."""
    assert client.post(SECRETS, json=_named("by-type", type="example.com/token")).status_code == 201
    found = client.get(SECRETS, params={"fieldSelector": "type=example.com/token"}).json()["items"]
    assert [item["metadata"]["name"] for item in found] == ["by-type"]
    assert (
        _bad_request(client.get(SECRETS, params={"fieldSelector": "data.k=v"})) == "field label not supported: data.k"
    )


# -- ServiceAccounts --------------------------------------------------------------------------------


def test_a_service_account_keeps_secret_names_and_merges_them_by_name(client):
    """serviceaccount/strategy.go cleanSecretReferences: a secret reference keeps its name
    alone; core/v1 ServiceAccount.secrets merges by name in a strategic merge patch; the
    registry returns the deleted account (ReturnDeletedObject)."""
    made = client.post(SA, json=_named("robot", secrets=[{"name": "a", "namespace": "x", "uid": "u"}],
                                       imagePullSecrets=[{"name": "registry"}]))  # fmt: skip
    assert made.status_code == 201 and made.json()["secrets"] == [{"name": "a"}]
    assert "generation" not in made.json()["metadata"]
    patched = client.patch(f"{SA}/robot", content='{"secrets":[{"name":"b","kind":"Secret"}]}', headers=SMP)
    assert patched.status_code == 200 and patched.json()["secrets"] == [{"name": "b"}, {"name": "a"}]
    _, causes = _invalid(client.post(SA, json=_named("Robot")))
    assert causes[0][:2] == ("FieldValueInvalid", "metadata.name")
    deleted = client.delete(f"{SA}/robot")
    assert deleted.status_code == 200 and deleted.json()["kind"] == "ServiceAccount"
    assert deleted.json()["metadata"]["name"] == "robot"


# -- Events -------------------------------------------------------------------------------------------


def _core_event(name: str, **fields: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
            "reason": "Started", "message": "started the container", "type": "Normal", **fields}  # fmt: skip


def _new_event(name: str, **fields: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "eventTime": "2026-01-02T03:04:05.000006Z", "reportingController": "example.com/ctl",
            "reportingInstance": "ctl-1", "action": "Reconcile", "reason": "Reconciled", "note": "all good", "type": "Normal",
            "regarding": {"apiVersion": "gadgets.example.com/v1", "kind": "Gadget", "name": "g", "namespace": "default"},
            **fields}  # fmt: skip


def test_one_event_through_both_groups(client):
    """events.k8s.io events are stored as core events (cohabiting resources) and converted
    field by field (events/v1 Convert_v1_Event_To_core_Event and back): regarding is
    involvedObject, note is message, reportingController is reportingComponent, the
    deprecated fields are source and the timestamps. Each group writes the struct as Go
    does: core's reportingComponent/reportingInstance always, zero times as null, empty
    structs as {}."""
    made = client.post(EVENTS_V1, json=_new_event("through-v1"))
    assert made.status_code == 201, made.text
    as_core = client.get(f"{EVENTS}/through-v1").json()
    assert as_core["apiVersion"] == "v1" and as_core["involvedObject"]["kind"] == "Gadget"
    assert (as_core["message"], as_core["reportingComponent"], as_core["reportingInstance"]) == (
        "all good",
        "example.com/ctl",
        "ctl-1",
    )
    assert as_core["source"] == {} and as_core["firstTimestamp"] is None and as_core["lastTimestamp"] is None
    assert as_core["eventTime"] == "2026-01-02T03:04:05.000006Z" and "count" not in as_core
    client.post(EVENTS, json=_core_event("through-core", count=3, source={"component": "kubelet", "host": "node-1"},
                                         firstTimestamp="2026-01-01T00:00:00Z", lastTimestamp="2026-01-01T00:05:00+01:00"))  # fmt: skip
    as_v1 = client.get(f"{EVENTS_V1}/through-core").json()
    assert as_v1["apiVersion"] == "events.k8s.io/v1" and as_v1["regarding"]["name"] == "web"
    assert as_v1["note"] == "started the container" and as_v1["deprecatedCount"] == 3
    assert as_v1["deprecatedSource"] == {"component": "kubelet", "host": "node-1"}
    assert (as_v1["deprecatedFirstTimestamp"], as_v1["deprecatedLastTimestamp"]) == (
        "2026-01-01T00:00:00Z",
        "2025-12-31T23:05:00Z",
    )
    assert as_v1["eventTime"] is None and "reportingController" not in as_v1
    names = {item["metadata"]["name"] for item in client.get(EVENTS_V1).json()["items"]}
    assert (
        {"through-v1", "through-core"}
        <= names
        == {item["metadata"]["name"] for item in client.get(EVENTS).json()["items"]}
    )
    assert client.delete(f"{EVENTS}/through-v1").status_code == 200
    gone = client.get(f"{EVENTS_V1}/through-v1")
    assert gone.status_code == 404 and gone.json()["message"] == 'events.events.k8s.io "through-v1" not found'


def test_core_v1_events_are_validated_leniently(client):
    """ValidateEventCreate for core v1: only legacyValidateEvent. An old-style event (no
    eventTime) needs its namespace to agree with the involved object's; one with an
    eventTime needs reportingComponent (named so for core v1), reportingInstance, action
    and reason. Nothing else: no name rules, no required type."""
    assert client.post(EVENTS, json={"metadata": {"name": "Odd_Name"}, "involvedObject": {}}).status_code == 201
    _, causes = _invalid(
        client.post(EVENTS, json=_core_event("elsewhere", involvedObject={"kind": "Pod", "namespace": "other"}))
    )
    assert causes == [
        ("FieldValueInvalid", "involvedObject.namespace", 'Invalid value: "other": does not match event.namespace')
    ]
    _, causes = _invalid(
        client.post(EVENTS, json=_core_event("timed", eventTime="2026-01-01T00:00:00.000000Z", reason=""))
    )
    qualified = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                 "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                 "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")  # fmt: skip
    assert causes == [
        ("FieldValueRequired", "reportingComponent", "Required value"),
        ("FieldValueInvalid", "reportingComponent", 'Invalid value: "": name part must be non-empty'),
        ("FieldValueInvalid", "reportingComponent", f'Invalid value: "": {qualified}'),
        ("FieldValueRequired", "reportingInstance", "Required value"),
        ("FieldValueRequired", "action", "Required value"),
        ("FieldValueRequired", "reason", "Required value"),
    ]


def test_events_k8s_io_events_are_validated_strictly(client):
    """ValidateEventCreate for events.k8s.io/v1: the legacy checks (reportingController
    named as this group names it), the metadata, a required eventTime, a type of Normal or
    Warning, the deprecated fields unset, a series of at least 2."""
    _, causes = _invalid(client.post(EVENTS_V1, json={"metadata": {"name": "Bad_Name"}, "deprecatedCount": 2,
                                                      "series": {"count": 1, "lastObservedTime": "2026-01-01T00:00:00.000000Z"}}))  # fmt: skip
    fields = [(reason, field) for reason, field, _ in causes]
    assert fields == [
        ("FieldValueInvalid", "metadata.name"),
        ("FieldValueInvalid", "series.count"),
        ("FieldValueRequired", "eventTime"),
        ("FieldValueInvalid", "type"),
        ("FieldValueInvalid", "count"),
    ]
    assert (
        causes[3][2] == 'Invalid value: "": has invalid value: '
        and causes[4][2] == 'Invalid value: "": needs to be unset'
    )
    assert causes[1][2] == 'Invalid value: "": should be at least 2'
    _, causes = _invalid(client.post(EVENTS_V1, json=_new_event("no-controller", reportingController="")))
    assert causes[0] == ("FieldValueRequired", "reportingController", "Required value")


def test_events_k8s_io_updates_change_only_the_series(client):
    """ValidateEventUpdate for events.k8s.io/v1: every field but the series and the
    metadata is immutable (field.Invalid with the new value, as Go prints it); core v1
    updates are lenient. Event PUTs need no resourceVersion and may create
    (AllowUnconditionalUpdate, AllowCreateOnUpdate)."""
    created = client.put(f"{EVENTS_V1}/put-made", json=_new_event("put-made"))
    assert created.status_code == 201, created.text
    series = {"count": 2, "lastObservedTime": "2026-01-02T03:05:00.000000Z"}
    grown = client.put(f"{EVENTS_V1}/put-made", json=_new_event("put-made", series=series))
    assert grown.status_code == 200 and grown.json()["series"] == series
    _, causes = _invalid(client.put(f"{EVENTS_V1}/put-made", json=_new_event("put-made", series=series, note="changed",
                                                                               regarding={"kind": "Gadget"})))  # fmt: skip
    assert causes == [
        ("FieldValueInvalid", "involvedObject",
         'Invalid value: core.ObjectReference{Kind:"Gadget", Namespace:"", Name:"", UID:"", APIVersion:"", ResourceVersion:"", '
         'FieldPath:""}: field is immutable'),
        ("FieldValueInvalid", "message", 'Invalid value: "changed": field is immutable'),
    ]  # fmt: skip
    core = client.get(f"{EVENTS}/put-made").json()
    core["message"] = "changed through core v1"
    assert client.put(f"{EVENTS}/put-made", json=core).status_code == 200


def test_unknown_event_fields_are_warnings_unless_strict(client):
    """Events decode as typed objects: an unknown field is a Warning by default and a 400
    with fieldValidation=Strict, in either group."""
    warned = client.post(EVENTS, json=_core_event("unknown-field", severity="high"))
    assert warned.status_code == 201 and warned.headers["warning"] == '299 - "unknown field \\"severity\\""'
    assert "severity" not in warned.json()
    strict = client.post(EVENTS_V1, json=_new_event("unknown-strict", regarding={"kind": "Pod", "size": 1}),
                         params={"fieldValidation": "Strict"})  # fmt: skip
    assert _bad_request(strict) == (
        'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "regarding.size"'
    )


def test_events_select_by_their_groups_field_labels(client):
    """AddFieldLabelConversionsForEvent: core v1 selects by involvedObject.*, reason,
    reportingComponent, source and type; events.k8s.io/v1 by regarding.*,
    reportingController, ... mapped onto the same fields; `source` is the reporting
    controller of an event without one (ToSelectableFields)."""
    client.post(
        EVENTS_V1,
        json=_new_event("selected-v1", regarding={"kind": "Gadget", "name": "picked", "namespace": "default"}),
    )
    client.post(EVENTS, json=_core_event("selected-core", involvedObject={"kind": "Pod", "name": "picked", "namespace": "default"},
                                         source={"component": "kubelet"}))  # fmt: skip

    def names(path: str, selector: str) -> set[str]:
        response = client.get(path, params={"fieldSelector": selector})
        assert response.status_code == 200, response.text
        return {item["metadata"]["name"] for item in response.json()["items"]}

    assert names(EVENTS, "involvedObject.name=picked") == {"selected-v1", "selected-core"}
    assert names(EVENTS_V1, "regarding.name=picked,regarding.kind=Gadget") == {"selected-v1"}
    assert names(EVENTS, "involvedObject.name=picked,source=example.com/ctl") == {"selected-v1"}
    assert names(EVENTS_V1, "regarding.name=picked,reportingController=example.com/ctl") == {"selected-v1"}
    assert names(EVENTS, "involvedObject.name=picked,source=kubelet") == {"selected-core"}
    assert _bad_request(client.get(EVENTS_V1, params={"fieldSelector": "involvedObject.name=x"})) == (
        "field label not supported: involvedObject.name"
    )


def test_event_decoding_errors_are_gos(client):
    """The typed decoder on Events: an int32 given text, metav1.Time given text Go's
    time.Parse refuses (the *time.ParseError's message), a MicroTime without its six
    fractional digits (RFC3339Micro), and a number where a time should be (MicroTime's
    UnmarshalJSON reads a string: the error carries the field)."""
    cases = [
        (EVENTS, "Event", _core_event("e", count="x"),
         "json: cannot unmarshal string into Go struct field Event.count of type int32"),
        (EVENTS, "Event", _core_event("e", firstTimestamp="yesterday"),
         'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
        (EVENTS_V1, "Event", _new_event("e", eventTime="2026-01-02T03:04:05Z"),
         'parsing time "2026-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
        (EVENTS_V1, "Event", _new_event("e", eventTime=5),
         "json: cannot unmarshal number into Go struct field Event.eventTime of type string"),
        (EVENTS, "Event", _core_event("e", lastTimestamp="2026-02-30T00:00:00Z"), 'parsing time "2026-02-30T00:00:00Z": day out of range'),
        (EVENTS, "Event", _core_event("e", involvedObject={"uid": 1}),
         "json: cannot unmarshal number into Go struct field ObjectReference.involvedObject.uid of type types.UID"),
    ]  # fmt: skip
    for path, kind, body, problem in cases:
        assert (
            _bad_request(client.post(path, json=body))
            == f'{kind} in version "v1" cannot be handled as a {kind}: {problem}'
        )


def test_events_print_as_kubectl_get_events_shows_them(client):
    """printEvent: the server prints the wide table (LAST SEEN, TYPE, REASON, OBJECT,
    SUBOBJECT, SOURCE, MESSAGE, FIRST SEEN, COUNT, NAME; kubectl hides priority 1), last
    seen from the series or lastTimestamp or the first seen time, a singleton's count 1,
    the object as kind/name, the source as component and host (or the reporting
    controller and instance), the same for both groups."""
    seen = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=73, minutes=30)
    client.post(EVENTS_V1, json=_new_event("printed", regarding={"kind": "Gadget", "name": "shown", "namespace": "default"},
                                           eventTime=seen.strftime("%Y-%m-%dT%H:%M:%S.%fZ")))  # fmt: skip
    for path in (EVENTS, EVENTS_V1):
        table = client.get(f"{path}/printed", headers=TABLE).json()
        columns = [(c["name"], c["type"], c["priority"]) for c in table["columnDefinitions"]]
        assert columns == [("Last Seen", "string", 0), ("Type", "string", 0), ("Reason", "string", 0), ("Object", "string", 0),
                           ("Subobject", "string", 1), ("Source", "string", 1), ("Message", "string", 0),
                           ("First Seen", "string", 1), ("Count", "string", 1), ("Name", "string", 1)]  # fmt: skip
        cells = table["rows"][0]["cells"]
        assert cells == [
            "3d1h",
            "Normal",
            "Reconciled",
            "gadget/shown",
            "",
            "example.com/ctl, ctl-1",
            "all good",
            "3d1h",
            1,
            "printed",
        ]


def test_a_core_event_prints_its_count_and_source(client):
    """printEvent on an old-style event: last seen from lastTimestamp, first seen from
    firstTimestamp, its count, the source's component and host."""
    now = datetime.datetime.now(datetime.timezone.utc)
    first, last = (now - datetime.timedelta(days=9, hours=1)), (now - datetime.timedelta(hours=49, minutes=30))
    client.post(EVENTS, json=_core_event("counted", count=4, source={"component": "kubelet", "host": "node-1"},
                                         firstTimestamp=first.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                         lastTimestamp=last.strftime("%Y-%m-%dT%H:%M:%SZ")))  # fmt: skip
    cells = client.get(f"{EVENTS}/counted", headers=TABLE).json()["rows"][0]["cells"]
    assert cells == [
        "2d1h",
        "Normal",
        "Started",
        "pod/web",
        "",
        "kubelet, node-1",
        "started the container",
        "9d",
        4,
        "counted",
    ]


def test_a_watch_through_events_k8s_io_sees_core_events(client):
    """A watch of events.k8s.io/v1 events sees an event written through core v1, converted,
    and selected by the events.k8s.io field labels."""
    start = client.get(EVENTS_V1).json()["metadata"]["resourceVersion"]
    client.post(
        EVENTS,
        json=_core_event("watched", involvedObject={"kind": "Pod", "name": "watched-pod", "namespace": "default"}),
    )
    client.post(EVENTS, json=_core_event("not-watched"))
    params = {
        "watch": "true",
        "resourceVersion": start,
        "fieldSelector": "regarding.name=watched-pod",
        "timeoutSeconds": "1",
    }
    with client.stream("GET", EVENTS_V1, params=params) as stream:
        lines = [json.loads(line) for line in stream.iter_lines() if line]
    assert [(e["type"], e["object"]["apiVersion"], e["object"]["metadata"]["name"]) for e in lines] == [
        ("ADDED", "events.k8s.io/v1", "watched")
    ]
    assert (
        lines[0]["object"]["regarding"]["name"] == "watched-pod"
        and lines[0]["object"]["note"] == "started the container"
    )


# -- Leases ---------------------------------------------------------------------------------------------


def test_a_lease_update_must_name_its_resource_version(client):
    """lease/strategy.go: AllowUnconditionalUpdate is false (leader election relies on
    optimistic concurrency: store.go answers `must be specified for an update` at the
    resource), AllowCreateOnUpdate true (a PUT takes a lease that is not there yet), no
    generation; a strategic merge patch renews it."""
    taken = client.put(
        f"{LEASES}/leader", json=_named("leader", spec={"holderIdentity": "a", "leaseDurationSeconds": 15})
    )
    assert taken.status_code == 201 and "generation" not in taken.json()["metadata"]
    message, causes = _invalid(client.put(f"{LEASES}/leader", json=_named("leader", spec={"holderIdentity": "b"})))
    assert (
        message
        == 'leases.coordination.k8s.io "leader" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update'
    )
    assert causes == [
        ("FieldValueInvalid", "metadata.resourceVersion", "Invalid value: 0: must be specified for an update")
    ]
    current = taken.json()
    current["spec"]["holderIdentity"] = "b"
    assert client.put(f"{LEASES}/leader", json=current).json()["spec"]["holderIdentity"] == "b"
    renewed = client.patch(
        f"{LEASES}/leader", content='{"spec":{"renewTime":"2026-01-01T00:00:01.000000Z"}}', headers=SMP
    )
    assert renewed.status_code == 200 and renewed.json()["spec"] == {
        "holderIdentity": "b", "leaseDurationSeconds": 15, "renewTime": "2026-01-01T00:00:01.000000Z"}  # fmt: skip
    table = client.get(f"{LEASES}/leader", headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Holder", "Age"]
    assert table["rows"][0]["cells"][:2] == ["leader", "b"]


def test_lease_spec_validation(client):
    """ValidateLeaseSpec: leaseDurationSeconds above 0, leaseTransitions at least 0, and
    (PrepareForCreate) the strategy and preferredHolder of the CoordinatedLeaderElection
    feature dropped while it is off."""
    _, causes = _invalid(
        client.post(LEASES, json=_named("bad", spec={"leaseDurationSeconds": 0, "leaseTransitions": -1}))
    )
    assert causes == [
        ("FieldValueInvalid", "spec.leaseDurationSeconds", "Invalid value: 0: must be greater than 0"),
        ("FieldValueInvalid", "spec.leaseTransitions", "Invalid value: -1: must be greater than or equal to 0"),
    ]
    made = client.post(
        LEASES, json=_named("gated", spec={"holderIdentity": "a", "strategy": "Nope", "preferredHolder": "b"})
    )
    assert made.status_code == 201 and made.json()["spec"] == {"holderIdentity": "a"}
    unknown = client.post(LEASES, json=_named("unknown", spec={"holder": "a"}), params={"fieldValidation": "Strict"})
    assert (
        _bad_request(unknown)
        == 'Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.holder"'
    )


# -- discovery, OpenAPI, protobuf ------------------------------------------------------------------------


def test_discovery_lists_the_builtin_kinds(client):
    """What kubectl's discovery reads: core v1 configmaps (cm), events (ev), secrets,
    serviceaccounts (sa) with every verb; events.k8s.io/v1 events (ev); coordination leases."""
    core = {r["name"]: r for r in client.get("/api/v1").json()["resources"]}
    assert core["configmaps"]["shortNames"] == ["cm"] and core["serviceaccounts"]["shortNames"] == ["sa"]
    assert core["events"]["shortNames"] == ["ev"] and "shortNames" not in core["secrets"]
    assert set(core["secrets"]["verbs"]) == {
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch",
    }
    events = client.get("/apis/events.k8s.io/v1").json()["resources"]
    assert [(r["name"], r["kind"], r["shortNames"]) for r in events] == [("events", "Event", ["ev"])]
    groups = [g["name"] for g in client.get("/apis").json()["groups"]]
    assert "events.k8s.io" in groups and "coordination.k8s.io" in groups


def test_openapi_describes_the_builtin_kinds(client):
    """The OpenAPI v3 documents carry the kinds' schemas (kubectl explain, apply), with the
    list and patch strategies server-side apply and strategic merge patch read."""
    index = client.get("/openapi/v3").json()["paths"]
    core = client.get(index["api/v1"]["serverRelativeURL"]).json()["components"]["schemas"]
    secret = core["io.k8s.api.core.v1.Secret"]
    assert secret["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Secret", "version": "v1"}]
    assert secret["properties"]["data"]["additionalProperties"] == {"type": "string", "format": "byte"}
    secrets = core["io.k8s.api.core.v1.ServiceAccount"]["properties"]["secrets"]
    assert (secrets["x-kubernetes-patch-merge-key"], secrets["x-kubernetes-list-map-keys"]) == ("name", ["name"])
    events = client.get(index["apis/events.k8s.io/v1"]["serverRelativeURL"]).json()["components"]["schemas"]
    assert events["io.k8s.api.events.v1.Event"]["required"] == ["eventTime"]
    applied = client.patch(f"{CM}/applied", params={"fieldManager": "tester"}, headers={"Content-Type": "application/apply-patch+yaml"},
                           content="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '1'\n")  # fmt: skip
    assert applied.status_code == 201 and applied.json()["data"] == {"a": "1"}
    assert applied.json()["metadata"]["managedFields"][0]["manager"] == "tester"


# What `kubectl create configmap pb --from-literal=a=b --from-literal=c=d` (v1.33) sends.
KUBECTL_CONFIG_MAP = bytes.fromhex(
    "6b 38 73 00 0a 0f 0a 02 76 31 12 09 43 6f 6e 66 69 67 4d 61 70 12 24 0a 12 0a 02 70 62 12 00 1a "
    "00 22 00 2a 00 32 00 38 00 42 00 12 06 0a 01 61 12 01 62 12 06 0a 01 63 12 01 64 1a 00 22 00"
)


def test_protobuf_bodies_as_client_go_writes_them(client):
    """kubectl's typed clients send protobuf (k8s.io/api generated.proto, written by the
    gogo marshallers: every non-pointer field, map entries by key): the server reads it and
    writes the same bytes for the same object; lists and responses in protobuf too."""
    from kgen.serve.builtins import core, wire

    made = client.post(CM, content=KUBECTL_CONFIG_MAP, headers={"Content-Type": PROTOBUF, "Accept": "application/json"})
    assert made.status_code == 201, made.text
    assert made.json()["data"] == {"a": "b", "c": "d"} and made.json()["metadata"]["name"] == "pb"
    encoded = wire.encode_object(
        {"metadata": {"name": "pb"}, "data": {"a": "b", "c": "d"}}, core.CONFIG_MAPS.type, "v1", "ConfigMap"
    )
    assert encoded == KUBECTL_CONFIG_MAP
    back = client.get(f"{CM}/pb", headers={"Accept": PROTOBUF})
    assert back.headers["content-type"] == PROTOBUF
    assert wire.decode_object(back.content, core.CONFIG_MAPS)["data"] == {"a": "b", "c": "d"}
    secret = wire.encode_object({"metadata": {"name": "pb"}, "stringData": {"k": "v"}, "type": "Opaque"},
                                core.SECRETS.type, "v1", "Secret")  # fmt: skip
    stored = client.post(SECRETS, content=secret, headers={"Content-Type": PROTOBUF, "Accept": "application/json"})
    assert stored.status_code == 201 and stored.json()["data"] == {"k": _b64("v")}
    listed = client.get(SECRETS, headers={"Accept": PROTOBUF})
    assert listed.status_code == 200 and listed.content.startswith(b"k8s\x00")
    from kgen.runtime import protobuf

    assert protobuf.decode_envelope(listed.content).kind == "SecretList"
    assert wire.unmarshal(core.SECRETS.list_type, protobuf.decode_envelope(listed.content).raw)["items"]


def test_a_protobuf_watch_of_events(client):
    """A watch in protobuf (client-go's informers of built-in kinds): length-prefixed
    WatchEvents, each holding the object in the envelope of the watched group's kind."""
    import struct

    from kgen.runtime import protobuf
    from kgen.runtime.apimachinery.meta.v1 import generated_pb2
    from kgen.serve.builtins import events, wire

    start = client.get(EVENTS_V1).json()["metadata"]["resourceVersion"]
    client.post(EVENTS, json=_core_event("proto-watched"))
    params = {
        "watch": "true",
        "resourceVersion": start,
        "fieldSelector": "metadata.name=proto-watched",
        "timeoutSeconds": "1",
    }
    with client.stream("GET", EVENTS_V1, params=params, headers={"Accept": PROTOBUF}) as stream:
        data = stream.read()
    (length,) = struct.unpack(">I", data[:4])
    event = generated_pb2.WatchEvent.FromString(data[4 : 4 + length])
    envelope = protobuf.decode_envelope(event.object.raw)
    assert (event.type, envelope.api_version, envelope.kind) == ("ADDED", "events.k8s.io/v1", "Event")
    decoded = wire.unmarshal(events.EVENTS.type, envelope.raw)
    assert decoded["note"] == "started the container" and decoded["regarding"]["name"] == "web"


def test_a_config_map_owned_by_a_custom_resource_is_collected_with_it(client):
    """The garbage collector follows ownerReferences of the built-in kinds too: an
    operator's ConfigMap goes with the object that owns it (background deletion)."""
    import time

    gadgets = "/apis/gadgets.example.com/v1/namespaces/default/gadgets"
    owner = client.post(
        gadgets, json={"apiVersion": "gadgets.example.com/v1", "kind": "Gadget", "metadata": {"name": "owner"}}
    ).json()
    reference = {
        "apiVersion": "gadgets.example.com/v1",
        "kind": "Gadget",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
    }
    owned = client.post(CM, json={"metadata": {"name": "owned", "ownerReferences": [reference]}})
    assert owned.status_code == 201 and owned.json()["metadata"]["ownerReferences"] == [reference]
    assert client.delete(f"{gadgets}/owner").status_code == 200
    deadline = time.monotonic() + 10
    while client.get(f"{CM}/owned").status_code != 404 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.get(f"{CM}/owned").status_code == 404


# -- what an API that defines these kinds itself keeps -----------------------------------------------------


def test_an_api_defining_events_keeps_its_own(tmp_path):
    """A repository whose API defines core v1 Events serves its own; events.k8s.io is then
    not served from kgen's definitions (they would share the API's storage). With the
    CoordinatedLeaderElection feature on, a Lease keeps its strategy, which must be one
    ValidateCoordinatedLeaseStrategy knows (it names the field spec.strategy.strategy)."""
    from kgen.serve.fake import FakeCluster, _SyncBridge

    files = dict(FILES)
    files["pyproject.toml"] = '[tool.kgen]\ninput = "apis"\noutput = "own_events"\n'
    files["apis/core/v1/doc.go"] = (
        "// +k8s:deepcopy-gen=package\n// +groupName=\n\n// Package v1 is core.\npackage v1\n"
    )
    files["apis/core/v1/types.go"] = TYPES.replace("Gadget", "Event").replace("GadgetSpec", "EventSpec")
    root = write_tree(tmp_path, files)
    with FakeCluster(config=root / "pyproject.toml", feature_gates={"CoordinatedLeaderElection": True}) as fake:
        with httpx.Client(transport=_SyncBridge(fake), base_url="https://fake.cluster") as http:
            kept = http.post(
                LEASES, json=_named("coordinated", spec={"strategy": "OldestEmulationVersion", "preferredHolder": "a"})
            )
            assert kept.status_code == 201 and kept.json()["spec"]["strategy"] == "OldestEmulationVersion"
            _, causes = _invalid(http.post(LEASES, json=_named("unknown", spec={"strategy": "Nope"})))
            assert causes == [("FieldValueNotSupported", "spec.strategy.strategy",
                               'Unsupported value: "Nope": supported values: "OldestEmulationVersion"')]  # fmt: skip
            _, causes = _invalid(http.post(LEASES, json=_named("holder", spec={"preferredHolder": "a"})))
            assert causes == [("FieldValueForbidden", "spec.preferredHolder",
                               "Forbidden: may only be specified if `strategy` is defined")]  # fmt: skip
            made = http.post(EVENTS, json={"metadata": {"name": "own"}, "spec": {"size": 1}})
            assert made.status_code == 201, made.text
            assert made.json()["spec"] == {"size": 1}
            assert http.get("/apis/events.k8s.io/v1").status_code == 404
            assert http.get("/api/v1/namespaces/default/configmaps").status_code == 200
