"""ValidatingAdmissionPolicy on `FakeCluster`: the policies, their bindings, and the admission
stage that enforces them on every write, as kube-apiserver runs them.

A small kubebuilder-style API (Gadgets in two versions with /status and /scale, GadgetLimits
and GadgetClasses to take parameters from) is served, and each check names what it
reproduces: k8s.io/apiserver's pkg/admission/plugin/policy/validating (dispatcher.go,
validator.go, policy_decision.go, typechecking.go), policy/generic (policy_source.go,
policy_dispatcher.go's CollectParams), policy/matching (matching.go), webhook/predicates
(rules, namespace, object), admission/plugin/cel (compile.go, activation.go,
composition.go, condition.go), pkg/admission/errors.go (NewForbidden), and kubernetes'
pkg/apis/admissionregistration/validation/validation.go, pkg/apis/admissionregistration/v1
defaults and pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go.
Policies match narrowly (an object label per test) so that the tests share one cluster.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conftest import write_tree
from tests.serve_fixtures import SERVERS, served_api
from tests.store_fixtures import etcd_server  # noqa: F401

DOC = """
// +k8s:deepcopy-gen=package
// +groupName=policy.example.com

// Package {version} is the gadget API.
package {version}
"""

GADGET = """
package {version}

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
{storage}
// Gadget is a gadget.
type Gadget struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}}

// GadgetSpec is what the gadget should be.
type GadgetSpec struct {{
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// +optional
	Color string `json:"color,omitempty"`
	// +optional
	Parts []string `json:"parts,omitempty"`
}}

// GadgetStatus is what the gadget is.
type GadgetStatus struct {{
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// +optional
	Ready bool `json:"ready,omitempty"`
}}

// +kubebuilder:object:root=true

// GadgetList is a list of gadgets.
type GadgetList struct {{
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}}
"""

PARAMS = """
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// GadgetLimit says how many replicas gadgets of a namespace may have.
type GadgetLimit struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
}

// +kubebuilder:object:root=true

// GadgetLimitList is a list of limits.
type GadgetLimitList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GadgetLimit `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster

// GadgetClass names the colors gadgets may have.
type GadgetClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Colors []string `json:"colors,omitempty"`
}

// +kubebuilder:object:root=true

// GadgetClassList is a list of classes.
type GadgetClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GadgetClass `json:"items"`
}
"""

GROUP = "policy.example.com"
POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
BINDINGS = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
NAMESPACES = "/api/v1/namespaces"


def _files() -> dict[str, str]:
    files = {
        "pyproject.toml": '[tool.kgen]\ninput = "apis"\noutput = "policy_served"\n',
        "apis/go.mod": "module example.com/policy/apis\n\ngo 1.22\n",
        "apis/policy/v1/params.go": PARAMS,
    }
    for version, storage in (("v1", "// +kubebuilder:storageversion"), ("v1beta1", "")):
        files[f"apis/policy/{version}/doc.go"] = DOC.format(version=version)
        files[f"apis/policy/{version}/types.go"] = GADGET.format(version=version, storage=storage)
    return files


@pytest.fixture(scope="module", params=SERVERS)
def http(request, tmp_path_factory) -> Iterator[httpx.Client]:
    """The API served by FakeCluster, and by kgen serve on SQLite and on etcd (every check runs on each)."""
    root = write_tree(tmp_path_factory.mktemp("admission-policies"), _files())
    with served_api(request, root / "pyproject.toml", root) as connect, connect() as client:
        for name, labels in (("team-a", {"team": "a"}), ("team-b", {"team": "b"})):
            created = client.post(NAMESPACES, json={"metadata": {"name": name, "labels": labels}})
            assert created.status_code == 201, created.text
        yield client


# -- helpers ----------------------------------------------------------------------------------


def gadgets(namespace: str = "default", version: str = "v1") -> str:
    return f"/apis/{GROUP}/{version}/namespaces/{namespace}/gadgets"


def gadget(name: str, test: str, version: str = "v1", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "Gadget",
        "metadata": {"name": name, "labels": {"test": test}},
        "spec": spec,
    }


def rule(resources: list[str] | None = None, operations: list[str] | None = None, **more: Any) -> dict[str, Any]:
    return {
        "apiGroups": [GROUP],
        "apiVersions": ["v1"],
        "resources": resources or ["gadgets"],
        "operations": operations or ["CREATE", "UPDATE"],
        **more,
    }


def policy(name: str, test: str | None, validations: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    """A policy of the gadgets labelled `test: <test>` (every request when `test` is None)."""
    constraints = spec.pop("matchConstraints", None) or {"resourceRules": spec.pop("rules", None) or [rule()]}
    if test is not None:
        constraints.setdefault("objectSelector", {"matchLabels": {"test": test}})
    body = {"matchConstraints": constraints, **spec}
    if validations is not None:
        body["validations"] = validations
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name}, "spec": body}  # fmt: skip


def binding(name: str, policy_name: str, actions: tuple[str, ...] = ("Deny",), **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name}, "spec": {"policyName": policy_name, "validationActions": list(actions), **spec}}  # fmt: skip


@contextlib.contextmanager
def installed(http: httpx.Client, *objects: dict[str, Any]) -> Iterator[list[dict[str, Any]]]:
    """Create policies and bindings; delete them afterwards."""
    made = []
    try:
        for obj in objects:
            base = POLICIES if obj["kind"] == "ValidatingAdmissionPolicy" else BINDINGS
            created = http.post(base, json=obj)
            assert created.status_code == 201, created.text
            made.append((base, created.json()))
        yield [obj for _, obj in made]
    finally:
        for base, obj in reversed(made):
            http.delete(f"{base}/{obj['metadata']['name']}")


def denial(response: httpx.Response, code: int = 422, reason: str = "Invalid") -> str:
    """The message of a denial's cause, after checking the Status around it."""
    assert response.status_code == code, response.text
    status = response.json()
    assert status["reason"] == reason and status["code"] == code
    details = status["details"]
    (cause,) = details["causes"]
    assert set(cause) == {"message"}
    assert status["message"].endswith(f"is forbidden: {cause['message']}")
    return cause["message"]


def warnings(response: httpx.Response) -> list[str]:
    return response.headers.get_list("warning")


def settled(http: httpx.Client, name: str, generation: int = 1) -> dict[str, Any]:
    """The policy once its status controller observed `generation` (a watch, no polling)."""
    current = http.get(f"{POLICIES}/{name}").json()
    if (current.get("status") or {}).get("observedGeneration") == generation:
        return current
    params = {
        "watch": "true",
        "fieldSelector": f"metadata.name={name}",
        "resourceVersion": current["metadata"]["resourceVersion"],
    }
    with http.stream("GET", POLICIES, params=params) as events:
        for line in events.iter_lines():
            obj = json.loads(line)["object"]
            if (obj.get("status") or {}).get("observedGeneration") == generation:
                return obj
    raise AssertionError(f"the status of {name} never observed generation {generation}")


# -- the denial --------------------------------------------------------------------------------


def test_a_failed_validation_denies_with_the_policy_and_binding_named(http):
    """dispatcher.go Dispatch: the first denied decision answers, `ValidatingAdmissionPolicy '<p>'
    with binding '<b>' denied request: <message>`, wrapped by admission.NewForbidden
    (`<resource>.<group> "<name>" is forbidden: ...`, details naming group, resource and name),
    reason Invalid and code 422 when the validation has no reason (reasonToCode), the message
    as the only cause; validator.go: with no message, `failed expression: <expression>`."""
    with installed(http, policy("replicas", "deny", [{"expression": " object.spec.replicas <= 5 "}]),
                   binding("replicas-binding", "replicas")):  # fmt: skip
        refused = http.post(gadgets(), json=gadget("big", "deny", replicas=9))
        message = denial(refused)
        assert message == (
            "ValidatingAdmissionPolicy 'replicas' with binding 'replicas-binding' denied request: "
            "failed expression: object.spec.replicas <= 5"
        )
        status = refused.json()
        assert status["message"] == f'gadgets.policy.example.com "big" is forbidden: {message}'
        assert {k: v for k, v in status["details"].items() if k != "causes"} == {
            "name": "big", "group": GROUP, "kind": "gadgets"
        }  # fmt: skip
        assert http.post(gadgets(), json=gadget("small", "deny", replicas=2)).status_code == 201
        # dry run: admission runs inside the store's write, dry or not
        dry = http.post(gadgets(), json=gadget("dry", "deny", replicas=9), params={"dryRun": "All"})
        assert "failed expression" in denial(dry)
        # a generated name is the name of the denial (AdmissionToValidateObjectFunc)
        generated = gadget("", "deny", replicas=9)
        generated["metadata"] = {"generateName": "gen-", "labels": {"test": "deny"}}
        named = http.post(gadgets(), json=generated).json()
        assert named["details"]["name"].startswith("gen-") and len(named["details"]["name"]) == 9
    assert http.post(gadgets(), json=gadget("big", "deny", replicas=9)).status_code == 201


def test_message_message_expression_and_reason(http):
    """validator.go: a messageExpression's string (trimmed) wins; one that fails, is not a
    string, is blank or has a line break falls back to `message`, then to the expression;
    the reason sets the Status reason and code (Forbidden 403, RequestEntityTooLarge 413,
    Invalid 422)."""
    validations = [
        {"expression": "object.spec.color != 'red'", "message": " no red ", "reason": "Forbidden"},
        {"expression": "object.spec.color != 'blue'", "message": "no blue",
         "messageExpression": "'color ' + object.spec.color + ' is taken'", "reason": "RequestEntityTooLarge"},
        {"expression": "object.spec.color != 'green'", "message": "no green", "messageExpression": "object.spec.nope"},
        {"expression": "object.spec.color != 'pink'", "message": "no pink", "messageExpression": "' '"},
        {"expression": "object.spec.color != 'gray'", "messageExpression": "'a\\nb'"},
    ]  # fmt: skip
    with installed(http, policy("colors", "colors", validations), binding("colors", "colors")):
        red = http.post(gadgets(), json=gadget("red", "colors", color="red"))
        assert denial(red, 403, "Forbidden").endswith("denied request: no red")
        blue = http.post(gadgets(), json=gadget("blue", "colors", color="blue"))
        assert denial(blue, 413, "RequestEntityTooLarge").endswith("denied request: color blue is taken")
        assert denial(http.post(gadgets(), json=gadget("green", "colors", color="green"))).endswith("no green")
        assert denial(http.post(gadgets(), json=gadget("pink", "colors", color="pink"))).endswith("no pink")
        gray = denial(http.post(gadgets(), json=gadget("gray", "colors", color="gray")))
        assert gray.endswith("denied request: failed expression: object.spec.color != 'gray'")


def test_warn_and_audit_actions(http):
    """dispatcher.go: Warn adds the warning `Validation failed for ValidatingAdmissionPolicy
    '<p>' with binding '<b>': <message>` and lets the request through; Audit changes nothing
    the client sees; Deny with Audit denies."""
    body = policy("warned", "warned", [{"expression": "object.spec.replicas < 3", "message": "too many"}])
    with installed(
        http, body, binding("warned-warn", "warned", ("Warn",)), binding("warned-audit", "warned", ("Audit",))
    ):
        created = http.post(gadgets(), json=gadget("warned", "warned", replicas=4))
        assert created.status_code == 201
        assert warnings(created) == [
            "299 - \"Validation failed for ValidatingAdmissionPolicy 'warned' with binding 'warned-warn': too many\""
        ]
        assert warnings(http.post(gadgets(), json=gadget("fine", "warned", replicas=1))) == []
    with installed(
        http, body, binding("warned-deny", "warned", ("Deny", "Audit")), binding("warned-warn", "warned", ("Warn",))
    ):
        refused = http.post(gadgets(), json=gadget("refused", "warned", replicas=4))
        assert denial(refused).endswith("with binding 'warned-deny' denied request: too many")
        # warnings found on the way are written on the refusal too
        assert warnings(refused) == [
            "299 - \"Validation failed for ValidatingAdmissionPolicy 'warned' with binding 'warned-warn': too many\""
        ]


def test_policy_changes_apply_to_the_next_request(http):
    """policy_source.go: bindings of a policy that does not exist are skipped; a policy with
    no binding does nothing; what is written applies to the next request, what is deleted no
    longer applies."""
    body = policy("live", "live", [{"expression": "object.spec.color == 'red'"}])
    with installed(http, binding("live-binding", "live")):
        assert http.post(gadgets(), json=gadget("before", "live", color="blue")).status_code == 201
        with installed(http, body):
            assert "failed expression" in denial(http.post(gadgets(), json=gadget("during", "live", color="blue")))
            stored = settled(http, "live")  # the status controller's write done: no conflict
            stored["spec"]["validations"] = [{"expression": "object.spec.color in ['red', 'blue']"}]
            assert http.put(f"{POLICIES}/live", json=stored).status_code == 200
            assert http.post(gadgets(), json=gadget("changed", "live", color="blue")).status_code == 201
            assert http.delete(f"{BINDINGS}/live-binding").status_code == 200
            assert http.post(gadgets(), json=gadget("unbound", "live", color="green")).status_code == 201
    with installed(http, body):
        assert http.post(gadgets(), json=gadget("no-binding", "live", color="green")).status_code == 201


# -- operations and subresources ----------------------------------------------------------------


def test_update_and_delete_see_the_old_object(http):
    """Admission runs in the store's update (the updated object as `object`, the stored one as
    `oldObject`) and delete (`object` null, the stored object as `oldObject`), as the generic
    registry's updateValidation and deleteValidation; patches go through the update."""
    validations = [
        {"expression": "request.operation != 'UPDATE' || object.spec.replicas >= oldObject.spec.replicas",
         "message": "replicas may not go down"},
        {"expression": "request.operation != 'DELETE' || (object == null && !has(oldObject.metadata.labels.keep))",
         "message": "kept"},
    ]  # fmt: skip
    rules = [rule(operations=["UPDATE", "DELETE"])]
    with installed(http, policy("updates", "updates", validations, rules=rules), binding("updates", "updates")):
        made = http.post(gadgets(), json=gadget("grows", "updates", replicas=3)).json()
        made["spec"]["replicas"] = 2
        assert denial(http.put(f"{gadgets()}/grows", json=made)).endswith("replicas may not go down")
        made["spec"]["replicas"] = 4
        assert http.put(f"{gadgets()}/grows", json=made).status_code == 200
        patch = http.patch(f"{gadgets()}/grows", content=json.dumps({"spec": {"replicas": 1}}),
                           headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
        assert denial(patch).endswith("replicas may not go down")
        http.patch(f"{gadgets()}/grows", content=json.dumps({"metadata": {"labels": {"keep": "yes"}}}),
                   headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
        deleted = http.delete(f"{gadgets()}/grows")
        assert denial(deleted).endswith("denied request: kept")
        assert deleted.json()["details"]["name"] == "grows"
        assert "kept" in denial(http.delete(f"{gadgets()}/grows", params={"dryRun": "All"}))
        http.patch(f"{gadgets()}/grows", content=json.dumps({"metadata": {"labels": {"keep": None}}}),
                   headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
        assert http.delete(f"{gadgets()}/grows").status_code == 200


def test_server_side_apply_is_a_create_or_an_update(http):
    """An apply that creates is admitted as CREATE (patchToCreateOptions: CreateOptions), one
    that changes an object as UPDATE (UpdateOptions), as the patch handler admits them."""
    validations = [{"expression": "object.spec.replicas < 5",
                    "messageExpression": "request.operation + ' ' + request.options.kind"}]  # fmt: skip
    apply = {"Content-Type": "application/apply-patch+yaml"}
    with installed(http, policy("applies", "applies", validations), binding("applies", "applies")):
        body = json.dumps(gadget("applied", "applies", replicas=7))
        created = http.patch(f"{gadgets()}/applied", content=body, headers=apply, params={"fieldManager": "me"})
        assert denial(created).endswith("denied request: CREATE CreateOptions")
        body = json.dumps(gadget("applied", "applies", replicas=1))
        assert (
            http.patch(f"{gadgets()}/applied", content=body, headers=apply, params={"fieldManager": "me"}).status_code
            == 201
        )
        body = json.dumps(gadget("applied", "applies", replicas=8))
        updated = http.patch(f"{gadgets()}/applied", content=body, headers=apply, params={"fieldManager": "me"})
        assert denial(updated).endswith("denied request: UPDATE UpdateOptions")


def test_status_and_scale_subresources(http):
    """rules.go: `gadgets` matches the main resource only, `gadgets/status` the status
    subresource, `*/*` every resource and subresource, `*/scale` every scale subresource; a
    /scale request is admitted with its Scale (autoscaling/v1) as the object, as the scale
    REST's validation converts it."""
    status_rule = [rule(["gadgets/status"], ["UPDATE"])]
    with installed(http, policy("status-only", "subresources", [{"expression": "object.status.ready"}], rules=status_rule),
                   binding("status-only", "status-only")):  # fmt: skip
        made = http.post(gadgets(), json=gadget("sub", "subresources", replicas=1)).json()
        made["spec"]["replicas"] = 2
        updated = http.put(f"{gadgets()}/sub", json=made).json()
        updated["status"] = {"ready": False}
        status = http.put(f"{gadgets()}/sub/status", json=updated)
        assert denial(status).endswith("failed expression: object.status.ready")
        updated["status"] = {"ready": True}
        assert http.put(f"{gadgets()}/sub/status", json=updated).status_code == 200
    every = [{"apiGroups": [GROUP], "apiVersions": ["*"], "resources": ["*/*"], "operations": ["UPDATE"]}]
    with installed(http, policy("every-subresource", "subresources", [{"expression": "false", "message": "frozen"}],
                                rules=every), binding("every-subresource", "every-subresource")):  # fmt: skip
        current = http.get(f"{gadgets()}/sub").json()
        assert denial(http.put(f"{gadgets()}/sub", json=current)).endswith("frozen")  # */* : the resource too
        assert denial(http.put(f"{gadgets()}/sub/status", json=current)).endswith("frozen")
    scale_rule = [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/scale"], "operations": ["UPDATE"]}]
    validations = [{"expression": "object.spec.replicas <= 3",
                    "messageExpression": "object.kind + ' ' + object.apiVersion + ' ' + request.kind.kind + ' ' + "
                                         "request.subResource + ' ' + request.resource.resource"}]  # fmt: skip
    with installed(http, policy("scales", None, validations, rules=scale_rule), binding("scales", "scales")):
        scale = http.get(f"{gadgets()}/sub/scale").json()
        scale["spec"]["replicas"] = 7
        refused = http.put(f"{gadgets()}/sub/scale", json=scale)
        assert denial(refused).endswith("denied request: Scale autoscaling/v1 Scale scale gadgets")
        scale["spec"]["replicas"] = 3
        assert http.put(f"{gadgets()}/sub/scale", json=scale).status_code == 200


# -- matching ---------------------------------------------------------------------------------


def test_resource_rules_names_exclusions_and_scope(http):
    """matching.go and rules.go: wildcards of groups, versions and resources, resourceNames
    (an empty list matches every name), excludeResourceRules (never matched), scope
    Namespaced (never a namespace itself) and Cluster (namespaces count as cluster-scoped)."""
    constraints = {
        "resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "operations": ["CREATE"],
                           "resourceNames": ["named-a", "named-b"], "scope": "Namespaced"}],
        "excludeResourceRules": [{"apiGroups": [GROUP], "apiVersions": ["*"], "resources": ["gadgets"],
                                  "operations": ["*"], "resourceNames": ["named-b"]}],
    }  # fmt: skip
    with installed(http, policy("names", None, [{"expression": "false", "message": "named"}], matchConstraints=constraints),
                   binding("names", "names")):  # fmt: skip
        assert denial(http.post(gadgets(), json=gadget("named-a", "names"))).endswith("denied request: named")
        assert http.post(gadgets(), json=gadget("named-b", "names")).status_code == 201  # excluded
        assert http.post(gadgets(), json=gadget("named-c", "names")).status_code == 201  # not named
        assert http.post(NAMESPACES, json={"metadata": {"name": "named-a"}}).status_code == 201  # not namespaced
    cluster_rule = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"], "operations": ["CREATE"],
                     "scope": "Cluster"}]  # fmt: skip
    body = policy("cluster-scope", None, [{"expression": "object.metadata.name.startsWith('ok-')"}], rules=cluster_rule)
    with installed(http, body, binding("cluster-scope", "cluster-scope")):
        refused = http.post(NAMESPACES, json={"metadata": {"name": "not-ok"}})
        assert denial(refused).startswith("ValidatingAdmissionPolicy 'cluster-scope' with binding 'cluster-scope'")
        assert refused.json()["message"].startswith('namespaces "not-ok" is forbidden: ')
        assert "group" not in refused.json()["details"]  # the core group: omitted, as Go omits it
        assert http.post(NAMESPACES, json={"metadata": {"name": "ok-one"}}).status_code == 201


def test_equivalent_match_converts_to_the_rules_version(http):
    """matching.go matchesResourceRules: with matchPolicy Equivalent a v1beta1 request matches
    a rule naming v1 through the equivalent resource, and the policy sees the object converted
    to v1 (`request.kind`/`resource` the matched version, `requestKind`/`requestResource` the
    request's: CreateAdmissionRequest); with Exact it does not match."""
    validations = [{"expression": "false",
                    "messageExpression": "object.apiVersion + ' ' + request.kind.version + ' ' + request.resource.version"
                                         " + ' ' + request.requestKind.version + ' ' + request.requestResource.version"}]  # fmt: skip
    with installed(http, policy("equivalent", "versions", validations), binding("equivalent", "equivalent")):
        refused = http.post(gadgets(version="v1beta1"), json=gadget("old-version", "versions", "v1beta1"))
        assert denial(refused).endswith("denied request: policy.example.com/v1 v1 v1 v1beta1 v1beta1")
    exact = policy(
        "exact", "versions", validations, matchConstraints={"resourceRules": [rule()], "matchPolicy": "Exact"}
    )
    with installed(http, exact, binding("exact", "exact")):
        assert http.post(gadgets(version="v1beta1"), json=gadget("exact", "versions", "v1beta1")).status_code == 201
        assert "denied request" in denial(http.post(gadgets(), json=gadget("exact-v1", "versions")))


def test_namespace_and_object_selectors(http):
    """namespace/matcher.go: the labels of the request's namespace (a namespace's own on its
    create and update); object/matcher.go: the labels of the new or the old object."""
    constraints = {"resourceRules": [rule(operations=["*"])], "namespaceSelector": {"matchLabels": {"team": "a"}},
                   "objectSelector": {"matchExpressions": [{"key": "selected", "operator": "Exists"}]}}  # fmt: skip
    with installed(http, policy("selectors", None, [{"expression": "false", "message": "selected"}],
                                matchConstraints=constraints), binding("selectors", "selectors")):  # fmt: skip
        labelled = {"metadata": {"name": "sel", "labels": {"selected": "yes"}}, "spec": {}}
        assert denial(http.post(gadgets("team-a"), json=labelled)).endswith("selected")
        assert http.post(gadgets("team-b"), json=labelled).status_code == 201
        assert http.post(gadgets("team-a"), json={"metadata": {"name": "unlabelled"}, "spec": {}}).status_code == 201
        # removing the label still matches: the old object has it
        made = http.post(
            gadgets("team-b"), json={"metadata": {"name": "moved", "labels": {"selected": "1"}}, "spec": {}}
        )
        assert made.status_code == 201
    namespace_rule = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"], "operations": ["CREATE"]}]
    own = {"resourceRules": namespace_rule, "namespaceSelector": {"matchLabels": {"locked": "true"}}}
    with installed(http, policy("own-labels", None, [{"expression": "false", "message": "locked"}], matchConstraints=own),
                   binding("own-labels", "own-labels")):  # fmt: skip
        locked = http.post(NAMESPACES, json={"metadata": {"name": "locked-ns", "labels": {"locked": "true"}}})
        assert denial(locked).endswith("locked")
        assert http.post(NAMESPACES, json={"metadata": {"name": "open-ns"}}).status_code == 201
    removal = {"resourceRules": [rule(operations=["UPDATE"])], "objectSelector": {"matchLabels": {"guard": "on"}}}
    with installed(http, policy("old-labels", None, [{"expression": "false", "message": "guarded"}],
                                matchConstraints=removal), binding("old-labels", "old-labels")):  # fmt: skip
        guarded = http.post(
            gadgets(), json={"metadata": {"name": "guarded", "labels": {"guard": "on"}}, "spec": {}}
        ).json()
        guarded["metadata"]["labels"] = {}
        assert denial(http.put(f"{gadgets()}/guarded", json=guarded)).endswith("guarded")


def test_namespaces_are_selected_by_their_name_label(http):
    """Every namespace carries `kubernetes.io/metadata.name: <name>` (core v1 SetDefaults_Namespace;
    the namespace strategy's Canonicalize), which is how a namespaceSelector leaves out
    namespaces by name."""
    assert http.get(f"{NAMESPACES}/team-a").json()["metadata"]["labels"] == {
        "team": "a",
        "kubernetes.io/metadata.name": "team-a",
    }
    constraints = {
        "resourceRules": [rule()],
        "namespaceSelector": {
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["team-b"]}]
        },
        "objectSelector": {"matchLabels": {"test": "by-name"}},
    }
    with installed(http, policy("by-name", None, [{"expression": "false", "message": "not here"}], matchConstraints=constraints),
                   binding("by-name", "by-name")):  # fmt: skip
        assert denial(http.post(gadgets("team-a"), json=gadget("n", "by-name"))).endswith("not here")
        assert http.post(gadgets("team-b"), json=gadget("n", "by-name")).status_code == 201


def test_binding_match_resources_restrict_the_policy(http):
    """policy_matcher.go BindingMatches: a binding's matchResources further restricts where
    its policy applies; another binding of the same policy applies elsewhere."""
    body = policy("restricted", "restricted", [{"expression": "false", "message": "restricted"}])
    only_a = binding("restricted-a", "restricted", matchResources={"namespaceSelector": {"matchLabels": {"team": "a"}}})
    with installed(http, body, only_a):
        assert "restricted-a" in denial(http.post(gadgets("team-a"), json=gadget("r", "restricted")))
        assert http.post(gadgets("team-b"), json=gadget("r", "restricted")).status_code == 201


# -- params -------------------------------------------------------------------------------------


def limits(namespace: str) -> str:
    return f"/apis/{GROUP}/v1/namespaces/{namespace}/gadgetlimits"


def test_params_by_name_and_by_selector(http):
    """CollectParams: a namespaced param by name is looked up in the request's namespace
    unless paramRef names one; a selector selects every matching param, each evaluated (any
    denial denies); none found is allowed (Allow) or `no params found for policy binding with
    `Deny` parameterNotFoundAction`; `params` carries the paramKind's apiVersion and kind."""
    assert (
        http.post(
            limits("team-a"), json={"metadata": {"name": "limit", "labels": {"tier": "x"}}, "maxReplicas": 2}
        ).status_code
        == 201
    )
    assert (
        http.post(
            limits("team-a"), json={"metadata": {"name": "other", "labels": {"tier": "x"}}, "maxReplicas": 4}
        ).status_code
        == 201
    )
    validations = [{"expression": "object.spec.replicas <= params.maxReplicas",
                    "messageExpression": "'at most ' + string(params.maxReplicas) + ' (' + params.kind + ' ' + params.metadata.name + ')'"}]  # fmt: skip
    kind = {"apiVersion": f"{GROUP}/v1", "kind": "GadgetLimit"}
    body = policy("limited", "params", validations, paramKind=kind)
    by_name = binding("limited-name", "limited", paramRef={"name": "limit", "parameterNotFoundAction": "Deny"})
    with installed(http, body, by_name):
        message = denial(http.post(gadgets("team-a"), json=gadget("three", "params", replicas=3)))
        assert message.endswith("denied request: at most 2 (GadgetLimit limit)")
        assert http.post(gadgets("team-a"), json=gadget("two", "params", replicas=2)).status_code == 201
        missing = denial(http.post(gadgets("team-b"), json=gadget("none", "params", replicas=1)))
        assert missing == ("ValidatingAdmissionPolicy 'limited' with binding 'limited-name' denied request: failed to "
                           "configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")  # fmt: skip
    elsewhere = binding("limited-there", "limited", paramRef={"name": "limit", "namespace": "team-a",
                                                              "parameterNotFoundAction": "Allow"})  # fmt: skip
    with installed(http, body, elsewhere):
        assert "at most 2" in denial(http.post(gadgets("team-b"), json=gadget("there", "params", replicas=3)))
    selected = binding("limited-selector", "limited", paramRef={"selector": {"matchLabels": {"tier": "x"}},
                                                                "parameterNotFoundAction": "Allow"})  # fmt: skip
    with installed(http, body, selected):
        assert "at most 2" in denial(http.post(gadgets("team-a"), json=gadget("sel3", "params", replicas=3)))
        assert http.post(gadgets("team-b"), json=gadget("sel3", "params", replicas=9)).status_code == 201  # none: Allow
    # a binding with no paramRef: `params` is null (CollectParams' [nil])
    with installed(http, policy("limited-null", "params", [{"expression": "params == null", "message": "null"}],
                                paramKind=kind), binding("limited-null", "limited-null")):  # fmt: skip
        assert http.post(gadgets("team-a"), json=gadget("null-params", "params", replicas=9)).status_code == 201


def test_param_configuration_errors_follow_the_failure_policy(http):
    """policy_source.go and CollectParams: a paramKind nothing serves (`failed to configure
    policy: failed to find resource referenced by paramKind: '<group>/<version>, Kind=<kind>'`),
    a namespaced param for a cluster-scoped request without a namespace, a namespace given for
    a cluster-scoped paramKind: each denies under Fail and is ignored under Ignore."""
    namespace_rule = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"], "operations": ["CREATE"]}]
    nothing = policy("no-kind", None, [{"expression": "true"}], rules=[rule()],
                     paramKind={"apiVersion": "nowhere.example.com/v1", "kind": "Nope"},
                     matchConstraints={"resourceRules": [rule()], "objectSelector": {"matchLabels": {"test": "kinds"}}})  # fmt: skip
    with installed(
        http, nothing, binding("no-kind", "no-kind", paramRef={"name": "x", "parameterNotFoundAction": "Allow"})
    ):
        assert denial(http.post(gadgets(), json=gadget("kinds", "kinds"))) == (
            "ValidatingAdmissionPolicy 'no-kind' denied request: failed to configure policy: failed to find resource "
            "referenced by paramKind: 'nowhere.example.com/v1, Kind=Nope'"
        )
        ignored = {**nothing, "spec": {**nothing["spec"], "failurePolicy": "Ignore"}}
        assert (
            http.put(
                f"{POLICIES}/no-kind", json={**ignored, "metadata": settled(http, "no-kind")["metadata"]}
            ).status_code
            == 200
        )
        assert http.post(gadgets(), json=gadget("kinds", "kinds")).status_code == 201
    namespaced = policy("ns-param", None, [{"expression": "true"}], rules=namespace_rule,
                        paramKind={"apiVersion": f"{GROUP}/v1", "kind": "GadgetLimit"})  # fmt: skip
    with installed(
        http,
        namespaced,
        binding("ns-param", "ns-param", paramRef={"name": "limit", "parameterNotFoundAction": "Allow"}),
    ):
        assert denial(http.post(NAMESPACES, json={"metadata": {"name": "ns-param"}})) == (
            "ValidatingAdmissionPolicy 'ns-param' with binding 'ns-param' denied request: failed to configure binding: "
            "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
        )
    classes = policy(
        "class-param",
        "classes",
        [{"expression": "true"}],
        paramKind={"apiVersion": f"{GROUP}/v1", "kind": "GadgetClass"},
    )
    with installed(http, classes, binding("class-param", "class-param",
                                          paramRef={"name": "c", "namespace": "default", "parameterNotFoundAction": "Allow"})):  # fmt: skip
        assert denial(http.post(gadgets(), json=gadget("classes", "classes"))).endswith(
            "failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
        )


def test_cluster_scoped_params(http):
    """A cluster-scoped paramKind's param is looked up by name alone."""
    assert (
        http.post(
            f"/apis/{GROUP}/v1/gadgetclasses", json={"metadata": {"name": "warm"}, "colors": ["red", "orange"]}
        ).status_code
        == 201
    )
    body = policy("warm", "warm", [{"expression": "object.spec.color in params.colors", "message": "not warm"}],
                  paramKind={"apiVersion": f"{GROUP}/v1", "kind": "GadgetClass"})  # fmt: skip
    with installed(http, body, binding("warm", "warm", paramRef={"name": "warm", "parameterNotFoundAction": "Deny"})):
        assert http.post(gadgets(), json=gadget("warm", "warm", color="red")).status_code == 201
        assert denial(http.post(gadgets(), json=gadget("cold", "warm", color="blue"))).endswith("not warm")


# -- expressions -------------------------------------------------------------------------------


def test_match_conditions(http):
    """matchconditions/matcher.go: every condition must be true for the validations to run
    (a false one skips them, whatever errors others had); an error denies under Fail with the
    condition's error and is a non-match under Ignore; conditions see no namespaceObject."""
    conditions = [
        {"name": "big", "expression": "object.spec.replicas > 3"},
        {"name": "no-namespace", "expression": "namespaceObject == null"},
    ]
    body = policy("conditions", "conditions", [{"expression": "false", "message": "big"}], matchConditions=conditions)
    with installed(http, body, binding("conditions", "conditions")):
        assert http.post(gadgets(), json=gadget("c-small", "conditions", replicas=1)).status_code == 201
        assert denial(http.post(gadgets(), json=gadget("c-big", "conditions", replicas=5))).endswith(
            "denied request: big"
        )
    failing = [{"name": "errors", "expression": "object.spec.nope > 1"}]
    broken = policy("conditions-error", "conditions", [{"expression": "false"}], matchConditions=failing)
    with installed(http, broken, binding("conditions-error", "conditions-error")):
        assert denial(http.post(gadgets(), json=gadget("c-error", "conditions"))) == (
            "ValidatingAdmissionPolicy 'conditions-error' with binding 'conditions-error' denied request: "
            "expression 'object.spec.nope > 1' resulted in error: no such key: nope"
        )
    broken["spec"]["failurePolicy"] = "Ignore"
    with installed(http, broken, binding("conditions-error", "conditions-error")):
        assert http.post(gadgets(), json=gadget("c-ignored", "conditions")).status_code == 201


def test_variables_are_evaluated_when_read(http):
    """composition.go: `variables.<name>` evaluates the variable on first read (one variable
    may read an earlier one); a variable that fails fails what reads it (`composited variable
    "<name>" fails to evaluate: ...`), and nothing that does not read it."""
    variables = [
        {"name": "doubled", "expression": "object.spec.replicas * 2"},
        {"name": "limit", "expression": "variables.doubled + 1"},
        {"name": "broken", "expression": "object.spec.nope"},
    ]
    validations = [
        {"expression": "variables.limit < 10", "messageExpression": "'limit ' + string(variables.limit)"},
        {"expression": "!has(object.spec.color) || object.spec.color != 'x' || variables.broken == 1"},
    ]
    with installed(
        http, policy("variables", "variables", validations, variables=variables), binding("variables", "variables")
    ):
        assert http.post(gadgets(), json=gadget("v-ok", "variables", replicas=2)).status_code == 201
        assert denial(http.post(gadgets(), json=gadget("v-big", "variables", replicas=5))).endswith(
            "denied request: limit 11"
        )
        assert denial(http.post(gadgets(), json=gadget("v-x", "variables", replicas=1, color="x"))) == (
            "ValidatingAdmissionPolicy 'variables' with binding 'variables' denied request: expression "
            "'!has(object.spec.color) || object.spec.color != 'x' || variables.broken == 1' resulted in error: "
            'composited variable "broken" '
            "fails to evaluate: no such key: nope"
        )


def test_evaluation_errors_follow_the_failure_policy(http):
    """validator.go: an expression that fails to evaluate is denied under Fail
    (`expression '<e>' resulted in error: <error>`, activation.go) and admitted under Ignore;
    a null object read on a delete is cel-go's `no such key`."""
    validations = [{"expression": "object.spec.replicas / object.spec.replicas >= 1"}]
    body = policy("errors", "errors", validations, rules=[rule(operations=["CREATE", "DELETE"])])
    with installed(http, body, binding("errors", "errors")):
        assert denial(http.post(gadgets(), json=gadget("e-zero", "errors", replicas=0))).endswith(
            "expression 'object.spec.replicas / object.spec.replicas >= 1' resulted in error: division by zero"
        )
        assert http.post(gadgets(), json=gadget("e-one", "errors", replicas=1)).status_code == 201
        assert denial(http.delete(f"{gadgets()}/e-one")).endswith("resulted in error: no such key: spec")
        body["spec"]["failurePolicy"] = "Ignore"
        stored = settled(http, "errors")
        stored["spec"]["failurePolicy"] = "Ignore"
        assert http.put(f"{POLICIES}/errors", json=stored).status_code == 200
        assert http.post(gadgets(), json=gadget("e-zero", "errors", replicas=0)).status_code == 201
        assert http.delete(f"{gadgets()}/e-one").status_code == 200


def test_request_variable(http):
    """CreateAdmissionRequest: the request's kind, resource, name, namespace, operation,
    userInfo (FakeCluster asks with no credentials: system:anonymous), dryRun and options;
    `has()` is false for what an AdmissionRequest leaves out (a subresource it has none of)."""
    expression = ("request.operation + ' ' + request.kind.group + '/' + request.kind.version + '/' + request.kind.kind"
                  " + ' ' + request.resource.resource + ' ' + request.name + ' ' + request.namespace + ' '"
                  " + request.userInfo.username + ' ' + request.userInfo.groups.join(',') + ' ' + string(request.dryRun)"
                  " + ' ' + request.options.kind + ' ' + request.options.apiVersion + ' ' + request.options.fieldManager"
                  " + ' ' + string(has(request.subResource)) + ' ' + string(request.object == null) + ' [' + request.uid + ']'")  # fmt: skip
    with installed(http, policy("request", "request", [{"expression": "false", "messageExpression": expression}]),
                   binding("request", "request")):  # fmt: skip
        refused = http.post(
            gadgets("team-b"), json=gadget("asked", "request"), params={"dryRun": "All", "fieldManager": "tester"}
        )
        assert denial(refused).endswith(
            "denied request: CREATE policy.example.com/v1/Gadget gadgets asked team-b system:anonymous "
            "system:unauthenticated true CreateOptions meta.k8s.io/v1 tester false true []"
        )


def test_namespace_object_and_authorizer(http):
    """activation.go: `namespaceObject` is the request's namespace (CreateNamespaceObject),
    null for cluster-scoped objects; `authorizer` answers kgen serve's one user, who may do
    everything (every check allowed, with no reason or error)."""
    validations = [
        {"expression": "namespaceObject.metadata.labels.team == 'a'", "message": "team a only"},
        {"expression": "authorizer.group('apps').resource('deployments').namespace('x').check('create').allowed()"},
        {"expression": "authorizer.requestResource.check('delete').allowed() && authorizer.path('/healthz')"
                       ".check('get').reason() == '' && !authorizer.serviceAccount('a', 'b').group('')"
                       ".resource('pods').check('get').errored()"},
    ]  # fmt: skip
    with installed(http, policy("namespace", "namespace", validations), binding("namespace", "namespace")):
        assert http.post(gadgets("team-a"), json=gadget("ns", "namespace")).status_code == 201
        assert denial(http.post(gadgets("team-b"), json=gadget("ns", "namespace"))).endswith("team a only")


def test_audit_annotations(http):
    """validator.go: audit annotations are evaluated (kgen serve keeps no audit log); one that
    fails denies under Fail whatever the binding's actions, one of another type than string
    or null is `valueExpression '<e>' resulted in unsupported return type: int. Return type must
    be either string or null.`"""
    annotations = [{"key": "color", "valueExpression": "object.spec.color"}]
    with installed(
        http, policy("audited", "audited", auditAnnotations=annotations), binding("audited", "audited", ("Audit",))
    ):
        assert http.post(gadgets(), json=gadget("a-fine", "audited", color="red")).status_code == 201
        assert denial(http.post(gadgets(), json=gadget("a-none", "audited"))).endswith(
            "denied request: expression 'object.spec.color' resulted in error: no such key: color"
        )
    numbers = [{"key": "count", "valueExpression": "dyn(object.spec.replicas)"}]
    with installed(http, policy("counted", "audited", auditAnnotations=numbers), binding("counted", "counted")):
        assert denial(http.post(gadgets(), json=gadget("a-count", "audited", replicas=2))).endswith(
            "valueExpression 'dyn(object.spec.replicas)' resulted in unsupported return type: int. "
            "Return type must be either string or null."
        )


def test_cost_limits(http):
    """activation.go with the base environment's CostLimit: an expression that would cost
    more than the per-call limit fails (`operation cancelled: actual cost limit exceeded`);
    the validations of one evaluation share RuntimeCELCostBudget, and when it is spent the
    evaluation stops: `validation failed due to running out of cost budget, no further
    validation rules will be run`."""
    parts = [f"p{i}" for i in range(600)]
    quadratic = "object.spec.parts.all(a, object.spec.parts.all(b, a == b || a != b))"
    with installed(http, policy("costly", "costly", [{"expression": quadratic}]), binding("costly", "costly")):
        assert denial(http.post(gadgets(), json=gadget("costly", "costly", parts=parts))).endswith(
            f"expression '{quadratic}' resulted in error: operation cancelled: actual cost limit exceeded"
        )
        assert http.post(gadgets(), json=gadget("cheap", "costly", parts=parts[:10])).status_code == 201
    linear = "object.spec.parts.all(a, object.spec.parts.exists(b, b == a))"
    many = [{"expression": linear}] * 12
    with installed(http, policy("budget", "budget", many), binding("budget", "budget")):
        assert denial(http.post(gadgets(), json=gadget("budget", "budget", parts=parts[:420]))).endswith(
            "denied request: validation failed due to running out of cost budget, no further validation rules will be run"
        )


# -- what policies apply to --------------------------------------------------------------------


def test_built_in_kinds_and_runtime_custom_resources(http):
    """Every served resource is admitted: built-ins (Leases, Events, namespaces) and the kinds
    of a CRD installed while the server runs."""
    everything = [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "operations": ["CREATE"]}]
    body = policy("everywhere", None, [{"expression": "has(object.metadata.labels) && 'owner' in object.metadata.labels",
                                        "message": "an owner label is required"}],
                  matchConstraints={"resourceRules": everything, "namespaceSelector": {"matchLabels": {"team": "b"}}})  # fmt: skip
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "sprockets.late.example.com"},
        "spec": {"group": "late.example.com", "scope": "Namespaced",
                 "names": {"plural": "sprockets", "singular": "sprocket", "kind": "Sprocket", "listKind": "SprocketList"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
    }  # fmt: skip
    assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd).status_code == 201
    with installed(http, body, binding("everywhere", "everywhere")):
        lease = http.post(
            "/apis/coordination.k8s.io/v1/namespaces/team-b/leases", json={"metadata": {"name": "l"}, "spec": {}}
        )
        assert denial(lease).endswith("an owner label is required")
        assert lease.json()["message"].startswith('leases.coordination.k8s.io "l" is forbidden: ')
        # (The event must be valid first: admission runs after validation, and a core event's
        # involvedObject must be in its namespace.)
        event = http.post(
            "/api/v1/namespaces/team-b/events",
            json={"metadata": {"name": "e"}, "involvedObject": {"namespace": "team-b"}},
        )
        assert denial(event).endswith("an owner label is required")
        sprocket = http.post("/apis/late.example.com/v1/namespaces/team-b/sprockets", json={"metadata": {"name": "s"}})
        assert denial(sprocket).endswith("an owner label is required")
        owned = {"metadata": {"name": "s", "labels": {"owner": "me"}}}
        assert http.post("/apis/late.example.com/v1/namespaces/team-b/sprockets", json=owned).status_code == 201
        assert (
            http.post(
                "/apis/late.example.com/v1/namespaces/team-a/sprockets", json={"metadata": {"name": "s"}}
            ).status_code
            == 201
        )


def test_policies_never_apply_to_their_own_resources(http):
    """generic/plugin.go Dispatch: the admissionregistration policy resources are excluded from
    API-based policies (no policy can lock itself in)."""
    everything = [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "operations": ["*"]}]
    with installed(http, policy("locks", None, [{"expression": "false"}], rules=everything), binding("locks", "locks")):
        assert http.post(POLICIES, json=policy("other", "x", [{"expression": "true"}])).status_code == 201
        assert http.delete(f"{POLICIES}/other").status_code == 200
        assert http.delete(f"{BINDINGS}/locks").status_code == 200


def test_namespace_delete_and_collection_delete(http):
    """The namespace registry's delete admits the namespace as oldObject (in its guaranteed
    update); a collection delete admits each object with no name (AdmissionToValidateObjectDeleteFunc:
    the static attributes' empty name), so NewForbidden names it `Unknown`."""
    assert http.post(NAMESPACES, json={"metadata": {"name": "keep-me", "labels": {"keep": "yes"}}}).status_code == 201
    namespace_rule = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"], "operations": ["DELETE"]}]
    keep = policy(
        "keeps", None, [{"expression": "!has(oldObject.metadata.labels.keep)", "message": "kept"}], rules=namespace_rule
    )
    with installed(http, keep, binding("keeps", "keeps")):
        refused = http.delete(f"{NAMESPACES}/keep-me")
        assert denial(refused).endswith("kept") and refused.json()["details"]["name"] == "keep-me"
        assert "kept" in denial(http.delete(f"{NAMESPACES}/keep-me", params={"dryRun": "All"}))
    assert http.get(f"{NAMESPACES}/keep-me").json()["status"]["phase"] == "Active"
    for name in ("c1", "c2"):
        assert http.post(gadgets("team-a"), json=gadget(name, "collection")).status_code == 201
    delete_rule = [rule(operations=["DELETE"])]
    body = policy("collection", None, [{"expression": "has(request.name)", "message": "one at a time"}],
                  rules=delete_rule, matchConstraints={"resourceRules": delete_rule, "namespaceSelector": {"matchLabels": {"team": "a"}}})  # fmt: skip
    with installed(http, body, binding("collection", "collection")):
        refused = http.delete(gadgets("team-a"), params={"labelSelector": "test=collection"})
        assert denial(refused).endswith("one at a time")
        assert refused.json()["message"].startswith('gadgets.policy.example.com "Unknown" is forbidden: ')
        assert http.delete(f"{gadgets('team-a')}/c1").status_code == 200


# -- the policy objects ------------------------------------------------------------------------


def invalid(response: httpx.Response) -> list[tuple[str, str, str]]:
    assert response.status_code == 422, response.text
    status = response.json()
    assert status["reason"] == "Invalid"
    return [(c["reason"], c["field"], c["message"]) for c in status["details"]["causes"]]


def test_policy_defaults_generation_and_status(http):
    """v1 defaults (failurePolicy Fail, matchPolicy Equivalent, empty selectors, rule scope *);
    the strategy: generation 1 and an empty status on create, generation + 1 on a spec
    change, the status kept by main updates and written through /status, no unconditional
    update."""
    made = http.post(POLICIES, json=policy("defaults", None, [{"expression": "true"}]))
    assert made.status_code == 201
    obj = made.json()
    assert obj["spec"]["failurePolicy"] == "Fail" and obj["status"] == {} and obj["metadata"]["generation"] == 1
    assert obj["spec"]["matchConstraints"] == {
        "namespaceSelector": {}, "objectSelector": {}, "matchPolicy": "Equivalent",
        "resourceRules": [{**rule(), "scope": "*"}],
    }  # fmt: skip
    obj = settled(http, "defaults")
    assert obj["status"] == {"observedGeneration": 1, "typeChecking": {}}
    unconditional = {**obj, "metadata": {"name": "defaults"}}
    assert invalid(http.put(f"{POLICIES}/defaults", json=unconditional)) == [
        ("FieldValueInvalid", "metadata.resourceVersion", "Invalid value: 0: must be specified for an update")
    ]
    obj["metadata"]["labels"] = {"a": "b"}
    obj["status"] = {"observedGeneration": 9}
    relabelled = http.put(f"{POLICIES}/defaults", json=obj).json()
    assert relabelled["metadata"]["generation"] == 1 and relabelled["status"]["observedGeneration"] == 1
    relabelled["spec"]["validations"] = [{"expression": "1 < 2"}]
    changed = http.put(f"{POLICIES}/defaults", json=relabelled).json()
    assert changed["metadata"]["generation"] == 2
    assert settled(http, "defaults", 2)["status"]["observedGeneration"] == 2
    status = http.get(f"{POLICIES}/defaults/status").json()
    status["status"]["conditions"] = [{"type": "Checked", "status": "Maybe"}]
    assert invalid(http.put(f"{POLICIES}/defaults/status", json=status)) == [
        (
            "FieldValueNotSupported",
            "status.conditions[0].status",
            'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
        ),
        ("FieldValueRequired", "status.conditions[0].lastTransitionTime", "Required value: must be set"),
        ("FieldValueRequired", "status.conditions[0].reason", "Required value: must be set"),
    ]
    status["status"]["conditions"] = [{"type": "Checked", "status": "True", "reason": "Fine", "message": "",
                                       "lastTransitionTime": "2024-01-01T00:00:00Z"}]  # fmt: skip
    status["spec"] = {}
    written = http.put(f"{POLICIES}/defaults/status", json=status).json()
    assert written["status"]["conditions"][0]["type"] == "Checked" and written["spec"]["validations"] == [
        {"expression": "1 < 2"}
    ]
    http.delete(f"{POLICIES}/defaults")


def test_policy_status_controller_type_checks(http):
    """validatingadmissionpolicy-status: observedGeneration and typeChecking are applied by the
    controller after a spec change; a field the matched kind's schema lacks is a warning,
    `<group>/<version>, Kind=<kind>: ERROR: <input>:1:13: undefined field 'size'` with cel-go's
    snippet (typechecking.go TypeCheckingResult)."""
    body = policy("checked", None, [{"expression": "object.spec.size > 1"}, {"expression": "object.spec.replicas > 1"}])
    made = http.post(POLICIES, json=body).json()
    with http.stream("GET", POLICIES, params={"watch": "true", "fieldSelector": "metadata.name=checked",
                                              "resourceVersion": made["metadata"]["resourceVersion"]}) as events:  # fmt: skip
        for line in events.iter_lines():
            event = json.loads(line)
            if event["object"].get("status"):
                status = event["object"]["status"]
                managers = [m["manager"] for m in event["object"]["metadata"]["managedFields"]]
                break
    assert status == {"observedGeneration": 1, "typeChecking": {"expressionWarnings": [{
        "fieldRef": "spec.validations[0].expression",
        "warning": "policy.example.com/v1, Kind=Gadget: ERROR: <input>:1:12: undefined field 'size'\n"
                   " | object.spec.size > 1\n | ...........^\n",
    }]}}  # fmt: skip
    assert "validatingadmissionpolicy-status" in managers
    http.delete(f"{POLICIES}/checked")


def test_policy_validation(http):
    """validation.go validateValidatingAdmissionPolicySpec: required fields, supported values,
    rules, selectors, match conditions, variables, validations and audit annotations, with
    their exact field paths; CEL that does not compile is `compilation failed: ERROR: <input>...`
    (undeclared names: `undeclared reference to 'self' (in container '')`)."""
    body = {"metadata": {"name": "broken"}, "spec": {
        "failurePolicy": "Sometimes",
        "paramKind": {"apiVersion": "a/b/c", "kind": ""},
        "matchConstraints": {"resourceRules": [{"apiGroups": ["*", "x"], "apiVersions": [], "resources": ["*", "pods"],
                                                "operations": ["CREATE", "PATCH"], "scope": "Everywhere",
                                                "resourceNames": ["a", "a"]}],
                             "namespaceSelector": {"matchExpressions": [{"key": "k", "operator": "In"}]}},
        "matchConditions": [{"name": "c", "expression": "variables.x"}, {"name": "c", "expression": "true"}],
        "variables": [{"name": "1x", "expression": "object."}],
        "validations": [{"expression": "self.replicas > 1"}, {"expression": "true", "message": "a\nb", "reason": "Teapot"},
                        {"expression": "'text'", "messageExpression": "1"}],
        "auditAnnotations": [{"key": "bad key!", "valueExpression": "1"}],
    }}  # fmt: skip
    causes = invalid(http.post(POLICIES, json=body))
    assert causes == [
        (
            "FieldValueNotSupported",
            "spec.failurePolicy",
            'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
        ),
        (
            "FieldValueInvalid",
            "spec.paramKind.apiVersion",
            'Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        ),
        ("FieldValueRequired", "spec.paramKind.kind", "Required value"),
        (
            "FieldValueRequired",
            "spec.matchConstraints.namespaceSelector.matchExpressions[0].values",
            "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        ),
        ("FieldValueDuplicate", "spec.matchConstraints.resourceRules[0].resourceNames[1]", 'Duplicate value: "a"'),
        (
            "FieldValueNotSupported",
            "spec.matchConstraints.resourceRules[0].operations[1]",
            'Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
        ),
        (
            "FieldValueInvalid",
            "spec.matchConstraints.resourceRules[0].apiGroups",
            'Invalid value: ["*","x"]: if \'*\' is present, must not specify other API groups',
        ),
        ("FieldValueRequired", "spec.matchConstraints.resourceRules[0].apiVersions", "Required value"),
        (
            "FieldValueInvalid",
            "spec.matchConstraints.resourceRules[0].resources",
            'Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
        ),
        (
            "FieldValueNotSupported",
            "spec.matchConstraints.resourceRules[0].scope",
            'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
        ),
        (
            "FieldValueInvalid",
            "spec.matchConditions[0].expression",
            "Invalid value: \"variables.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' "
            "(in container '')\n | variables.x\n | ^",
        ),
        ("FieldValueDuplicate", "spec.matchConditions[1].name", 'Duplicate value: "c"'),
        ("FieldValueInvalid", "spec.variables[0].name", 'Invalid value: "1x": name is not a valid CEL identifier'),
        (
            "FieldValueInvalid",
            "spec.variables[0].expression",
            'Invalid value: "object.": compilation failed: ERROR: <input>:1:8: Syntax error: no viable alternative at '
            "input '.'\n | object.\n | .......^",
        ),
        (
            "FieldValueInvalid",
            "spec.validations[0].expression",
            'Invalid value: "self.replicas > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to '
            "'self' (in container '')\n | self.replicas > 1\n | ^",
        ),
        (
            "FieldValueInvalid",
            "spec.validations[1].message",
            'Invalid value: "a\\nb": message must not contain line breaks',
        ),
        (
            "FieldValueNotSupported",
            "spec.validations[1].reason",
            'Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
        ),
        (
            "FieldValueInvalid",
            "spec.validations[2].expression",
            "Invalid value: \"'text'\": must evaluate to bool but got string",
        ),
        (
            "FieldValueInvalid",
            "spec.validations[2].messageExpression",
            'Invalid value: "1": must evaluate to string but got int',
        ),
        (
            "FieldValueInvalid",
            "spec.auditAnnotations[0].key",
            "Invalid value: \"broken/bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and "
            "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            "FieldValueInvalid",
            "spec.auditAnnotations[0].valueExpression",
            'Invalid value: "1": must evaluate to one of [string null_type] but got int',
        ),
    ]
    empty = invalid(http.post(POLICIES, json={"metadata": {"name": "empty"}, "spec": {}}))
    assert empty == [
        ("FieldValueRequired", "spec.matchConstraints", "Required value"),
        (
            "FieldValueRequired",
            "spec.validations",
            "Required value: validations or auditAnnotations must contain at least one item",
        ),
        (
            "FieldValueRequired",
            "spec.auditAnnotations",
            "Required value: validations or auditAnnotations must contain at least one item",
        ),
    ]
    rules_required = invalid(http.post(POLICIES, json={"metadata": {"name": "norules"}, "spec": {
        "matchConstraints": {}, "validations": [{"expression": "params.x", "messageExpression": "authorizer.group('')"}]}}))  # fmt: skip
    assert [(field, message.split("\n")[0]) for _, field, message in rules_required] == [
        ("spec.matchConstraints.resourceRules", "Required value"),
        (
            "spec.validations[0].expression",
            "Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
        ),
        (
            "spec.validations[0].messageExpression",
            "Invalid value: \"authorizer.group('')\": compilation failed: ERROR: <input>:1:1: undeclared reference to "
            "'authorizer' (in container '')",
        ),
    ]


def test_binding_validation(http):
    """validation.go validateValidatingAdmissionPolicyBinding: policyName required, paramRef's
    name and selector exclusive and parameterNotFoundAction required, validationActions
    required, unique, supported and not both Deny and Warn; matchResources errors are under
    `spec.matchResouces`, as upstream spells it."""
    body = {"metadata": {"name": "bad-binding"}, "spec": {
        "paramRef": {"name": "a/b", "selector": {}},
        "matchResources": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": [], "operations": ["CREATE"]}]},
        "validationActions": ["Deny", "Warn", "Deny", "Shout"],
    }}  # fmt: skip
    assert invalid(http.post(BINDINGS, json=body)) == [
        ("FieldValueRequired", "spec.policyName", "Required value"),
        ("FieldValueInvalid", "spec.paramRef.name", "Invalid value: \"a/b\": may not contain '/'"),
        ("FieldValueForbidden", "spec.paramRef.name", "Forbidden: name and selector are mutually exclusive"),
        ("FieldValueForbidden", "spec.paramRef.selector", "Forbidden: name and selector are mutually exclusive"),
        ("FieldValueRequired", "spec.paramRef.parameterNotFoundAction", "Required value"),
        ("FieldValueRequired", "spec.matchResouces.resourceRules[0].resources", "Required value"),
        ("FieldValueDuplicate", "spec.validationActions[2]", 'Duplicate value: "Deny"'),
        (
            "FieldValueNotSupported",
            "spec.validationActions[3]",
            'Unsupported value: "Shout": supported values: "Audit", "Deny", "Warn"',
        ),
        (
            "FieldValueInvalid",
            "spec.validationActions",
            'Invalid value: ["Deny","Warn","Deny","Shout"]: must not contain both Deny and Warn (repeating the same validation '
            "failure information in the API response and headers serves no purpose)",
        ),
    ]
    assert invalid(http.post(BINDINGS, json={"metadata": {"name": "no-actions"}, "spec": {"policyName": "p"}})) == [
        ("FieldValueRequired", "spec.validationActions", "Required value: at least one validation action is required")
    ]


def test_decoding_as_the_typed_decoder(http):
    """The typed decoder: a value of the wrong type is 400 `<Kind> in version "v1" cannot be
    handled as a <Kind>: json: cannot unmarshal ... into Go struct field <Struct>.<path> of type
    <type>`; unknown fields are warnings, or with fieldValidation=Strict the same 400 of
    `strict decoding error: ...` (endpoints/handlers/create.go: transformDecodeError of the
    strict decoding error, rest.go), and no causes."""
    wrong = http.post(POLICIES, json={"metadata": {"name": "typed"}, "spec": {"failurePolicy": 1}})
    assert wrong.status_code == 400 and wrong.json()["message"] == (
        'ValidatingAdmissionPolicy in version "v1" cannot be handled as a ValidatingAdmissionPolicy: json: cannot '
        "unmarshal number into Go struct field ValidatingAdmissionPolicySpec.spec.failurePolicy of type v1.FailurePolicyType"
    )
    item = http.post(POLICIES, json={"metadata": {"name": "typed"}, "spec": {"validations": [{"expression": True}]}})
    assert item.json()["message"].endswith(
        "cannot unmarshal bool into Go struct field Validation.spec.validations.expression of type string"
    )
    body = policy("unknown-fields", None, [{"expression": "true", "shout": 1}])
    made = http.post(POLICIES, json=body)
    assert made.status_code == 201 and warnings(made) == ['299 - "unknown field \\"spec.validations[0].shout\\""']
    http.delete(f"{POLICIES}/unknown-fields")
    strict = http.post(POLICIES, json=body, params={"fieldValidation": "Strict"})
    assert strict.status_code == 400 and strict.json()["message"] == (
        'ValidatingAdmissionPolicy in version "v1" cannot be handled as a ValidatingAdmissionPolicy: '
        'strict decoding error: unknown field "spec.validations[0].shout"'
    )
    assert "details" not in strict.json()
    typo = binding("typo", "p", policyNmae="p")
    refused = http.post(BINDINGS, json=typo, params={"fieldValidation": "Strict"}).json()["message"]
    assert refused == (
        'ValidatingAdmissionPolicyBinding in version "v1" cannot be handled as a ValidatingAdmissionPolicyBinding: '
        'strict decoding error: unknown field "spec.policyNmae"'
    )


def test_decoding_follows_go_encoding_json(http):
    """The body is read into the Go types as encoding/json reads it (sigs.k8s.io/json): unknown
    and duplicate fields in document order, inside the metadata's owner references too; a
    metav1.Time that does not parse is its UnmarshalJSON's error (time.Parse's words); a second
    `metadata` is decoded into the first; and the object is written back as Go writes it: a
    timestamp in UTC, empty `omitempty` values left out, a pointer set to "" kept (so
    failurePolicy "" is not defaulted and fails validation, as on a cluster)."""
    raw = (
        b'{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",'
        b'"metadata":{"name":"go-json","ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"u","x":1}]},'
        b'"spec":{"y":1,"failurePolicy":"Fail","failurePolicy":"Ignore","z":2}}'
    )
    strict = http.post(POLICIES, content=raw, params={"fieldValidation": "Strict"},
                       headers={"content-type": "application/json"})  # fmt: skip
    assert strict.json()["message"].endswith(
        'strict decoding error: unknown field "metadata.ownerReferences[0].x", unknown field "spec.y", '
        'duplicate field "spec.failurePolicy", unknown field "spec.z"'
    )
    late = http.post(POLICIES, json={"metadata": {"name": "late", "creationTimestamp": "yesterday"}, "spec": {}})
    assert late.status_code == 400 and late.json()["message"] == (
        'ValidatingAdmissionPolicy in version "v1" cannot be handled as a ValidatingAdmissionPolicy: '
        'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'
    )
    number = http.post(POLICIES, json={"metadata": {"name": "late", "creationTimestamp": 5}, "spec": {}})
    assert number.json()["message"].endswith(
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"
    )
    body = policy("go-json", None, [{"expression": "true", "message": ""}])
    body["metadata"].update(annotations={}, finalizers=[])
    body["spec"]["matchConstraints"]["namespaceSelector"] = {"matchLabels": {}}
    made = http.post(POLICIES, json=body)
    assert made.status_code == 201, made.text
    obj = made.json()
    assert "annotations" not in obj["metadata"] and "finalizers" not in obj["metadata"]
    assert obj["spec"]["validations"] == [{"expression": "true"}]
    assert obj["spec"]["matchConstraints"]["namespaceSelector"] == {}
    http.delete(f"{POLICIES}/go-json")
    empty = policy("empty-failure-policy", None, [{"expression": "true"}], failurePolicy="")
    assert invalid(http.post(POLICIES, json=empty)) == [
        ("FieldValueNotSupported", "spec.failurePolicy", 'Unsupported value: "": supported values: "Fail", "Ignore"')
    ]


def test_a_patch_the_decoder_refuses_is_invalid_at_patch(http):
    """endpoints/handlers/patch.go applyPatchToCurrentObject: a patched object with an unknown
    field under fieldValidation=Strict is 422 Invalid at `patch`, quoting the patched object,
    with the strict decoding error; with Warn it is a warning."""
    with installed(http, policy("patched", None, [{"expression": "true"}])):
        url = f"{POLICIES}/patched"
        headers = {"content-type": "application/merge-patch+json"}
        refused = http.patch(
            url, content=b'{"spec":{"shout":1}}', headers=headers, params={"fieldValidation": "Strict"}
        )
        assert refused.status_code == 422
        (cause,) = refused.json()["details"]["causes"]
        assert cause["field"] == "patch" and cause["reason"] == "FieldValueInvalid"
        assert cause["message"].startswith('Invalid value: "{\\"apiVersion\\":\\"admissionregistration.k8s.io/v1\\"')
        assert cause["message"].endswith(': strict decoding error: unknown field "spec.shout"')
        warned = http.patch(url, content=b'{"spec":{"shout":1}}', headers=headers, params={"fieldValidation": "Warn"})
        assert warned.status_code == 200 and warnings(warned) == ['299 - "unknown field \\"spec.shout\\""']


def test_discovery_and_openapi(http):
    """Both resources are discovered as cluster-scoped built-ins (category api-extensions, the
    policy's /status), and their OpenAPI v3 definitions are published for the group."""
    listed = {r["name"]: r for r in http.get("/apis/admissionregistration.k8s.io/v1").json()["resources"]}
    assert set(listed) == {
        "validatingadmissionpolicies",
        "validatingadmissionpolicies/status",
        "validatingadmissionpolicybindings",
        "mutatingwebhookconfigurations",  # the webhooks' configurations share the group (test_admission_webhooks.py)
        "validatingwebhookconfigurations",
    }
    assert not listed["validatingadmissionpolicies"]["namespaced"]
    assert listed["validatingadmissionpolicybindings"]["categories"] == ["api-extensions"]
    document = http.get("/openapi/v3/apis/admissionregistration.k8s.io/v1").json()
    schemas = document["components"]["schemas"]
    spec = schemas["io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec"]
    assert spec["properties"]["variables"]["x-kubernetes-list-map-keys"] == ["name"]
    assert spec["properties"]["failurePolicy"]["enum"] == ["Fail", "Ignore"]
    binding_spec = schemas["io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec"]
    assert binding_spec["properties"]["validationActions"]["items"]["enum"] == ["Audit", "Deny", "Warn"]
    listed_kind = schemas["io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyList"]
    assert listed_kind["required"] == ["items"] and listed_kind["x-kubernetes-group-version-kind"] == [
        {"group": "admissionregistration.k8s.io", "kind": "ValidatingAdmissionPolicyList", "version": "v1"}
    ]
    assert schemas["io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy"][
        "x-kubernetes-group-version-kind"
    ] == [{"group": "admissionregistration.k8s.io", "kind": "ValidatingAdmissionPolicy", "version": "v1"}]
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector" in schemas
    assert "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/{name}/status" in document["paths"]


# -- kubectl against kgen serve ------------------------------------------------------------------

KUBECTL_POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: frobber-replicas
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["example.kgen.dev"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["frobbers"]
  variables:
  - name: replicas
    expression: "has(object.spec.replicas) ? object.spec.replicas : 1"
  validations:
  - expression: "variables.replicas <= 5"
    messageExpression: "'frobber ' + object.metadata.name + ' asks for ' + string(variables.replicas) + ' replicas, at most 5 are allowed (' + request.userInfo.username + ')'"
  - expression: "!has(object.spec.mode) || object.spec.mode != 'Sleepy'"
    message: "sleepy frobbers are discouraged"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: frobber-replicas
spec:
  policyName: frobber-replicas
  validationActions: [Deny]
  matchResources:
    objectSelector:
      matchExpressions:
      - {key: mode, operator: NotIn, values: [warn]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: frobber-replicas-warn
spec:
  policyName: frobber-replicas
  validationActions: [Warn]
  matchResources:
    objectSelector:
      matchLabels: {mode: warn}
"""


@pytest.mark.slow
def test_kubectl_applies_policies_and_is_refused_as_by_a_cluster():
    """kubectl apply of a policy and two bindings from YAML; `kubectl create` of a violating
    object fails with the policy's message as kubectl prints an Invalid Status ("The frobbers
    "x" is invalid: <cause>"); a compliant one is created; a Warn binding's failure is printed
    as kubectl prints warnings (`Warning: ...`) and the object is created; get and delete.
    (kubectl prints the cause's empty field before its message: the `: :` of the Kubernetes
    documentation's example of a denial.) `request.userInfo` is the token's user, `kgen`."""
    from tests.serve_fixtures import PYDANTIC_EXAMPLE, ServeProcess, kubectl_available

    if not kubectl_available():
        pytest.skip("kubectl is not installed")
    with ServeProcess(config=PYDANTIC_EXAMPLE.config) as server:
        applied = server.kubectl("apply", "-f", "-", input=KUBECTL_POLICY).stdout
        assert applied.splitlines() == [
            "validatingadmissionpolicy.admissionregistration.k8s.io/frobber-replicas created",
            "validatingadmissionpolicybinding.admissionregistration.k8s.io/frobber-replicas created",
            "validatingadmissionpolicybinding.admissionregistration.k8s.io/frobber-replicas-warn created",
        ]
        again = server.kubectl("apply", "-f", "-", input=KUBECTL_POLICY.replace("at most 5 are", "at most 5 is")).stdout
        assert (
            "validatingadmissionpolicy.admissionregistration.k8s.io/frobber-replicas configured" in again.splitlines()
        )

        def frobber(name: str, replicas: int, **labels: str) -> str:
            return json.dumps({"apiVersion": "example.kgen.dev/v1", "kind": "Frobber",
                               "metadata": {"name": name, "labels": labels}, "spec": {"replicas": replicas}})  # fmt: skip

        refused = server.kubectl("create", "-f", "-", input=frobber("greedy", 9), check=False)
        assert refused.returncode == 1
        assert refused.stderr.strip() == (
            "The frobbers \"greedy\" is invalid: : ValidatingAdmissionPolicy 'frobber-replicas' with binding "
            "'frobber-replicas' denied request: frobber greedy asks for 9 replicas, at most 5 is allowed (kgen)"
        )
        created = server.kubectl("create", "-f", "-", input=frobber("modest", 2))
        assert created.stdout.strip() == "frobber.example.kgen.dev/modest created"
        warned = server.kubectl("create", "-f", "-", input=frobber("warned", 7, mode="warn"))
        assert warned.stdout.strip() == "frobber.example.kgen.dev/warned created"
        assert warned.stderr.strip() == (
            "Warning: Validation failed for ValidatingAdmissionPolicy 'frobber-replicas' with binding "
            "'frobber-replicas-warn': frobber warned asks for 7 replicas, at most 5 is allowed (kgen)"
        )
        listed = server.kubectl("get", "validatingadmissionpolicybindings").stdout.splitlines()
        assert listed[0].split() == ["NAME", "POLICYNAME", "AGE"]
        assert [line.split()[:2] for line in listed[1:]] == [
            ["frobber-replicas", "frobber-replicas"], ["frobber-replicas-warn", "frobber-replicas"]
        ]  # fmt: skip
        policy = json.loads(server.kubectl("get", "validatingadmissionpolicy", "frobber-replicas", "-o", "json").stdout)
        assert policy["metadata"]["generation"] == 2
        deleted = server.kubectl("delete", "validatingadmissionpolicybinding", "frobber-replicas").stdout
        assert (
            deleted.strip()
            == 'validatingadmissionpolicybinding.admissionregistration.k8s.io "frobber-replicas" deleted'
        )
        assert server.kubectl("create", "-f", "-", input=frobber("greedy", 9)).returncode == 0


# -- the evaluation on its own -------------------------------------------------------------------


def test_an_expression_that_does_not_compile_follows_the_failure_policy():
    """activation.go Evaluate: an expression stored without compiling (the API refuses to
    store one; a policy written before a library function went away would be one) is the
    decision `compilation error: <detail>`, denied under Fail and admitted under Ignore."""
    from kgen.serve.policies.evaluation import CompiledPolicy

    spec = {"failurePolicy": "Fail", "matchConstraints": {}, "validations": [{"expression": "self.x > 1"}]}
    values = {"object": {"spec": {}}, "oldObject": None, "request": {}, "namespaceObject": None, "params": None}
    (decision,) = CompiledPolicy({"metadata": {"name": "p"}, "spec": spec}).validate(values).decisions
    assert (
        decision.deny
        and decision.error
        and decision.message
        == (
            "compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')"
            "\n | self.x > 1\n | ^"
        )
    )
    ignored = CompiledPolicy({"metadata": {"name": "p"}, "spec": {**spec, "failurePolicy": "Ignore"}}).validate(values)
    assert not ignored.decisions[0].deny


def test_presence_tests_and_reads_of_null_as_cel_go():
    """cel-go's attribute qualifiers: `has()` on null (a create's oldObject) is false, and a
    field read of null is the error `no such key: <field>`; `string()` converts as cel-go."""
    from kgen.serve.policies.expressions import Activation, Declarations, Expression

    activation = Activation({"object": {"spec": {"n": 1000000.5, "m": 2.0}}, "oldObject": None, "request": {}})
    assert (
        activation.evaluate(Expression("!has(oldObject.spec)", Declarations(), ("bool",)), 1_000_000)[0].value is True
    )
    result, _ = activation.evaluate(Expression("oldObject.spec.x == 1", Declarations(), ("bool",)), 1_000_000)
    assert result.error == "expression 'oldObject.spec.x == 1' resulted in error: no such key: spec"
    text = Expression("string(object.spec.n) + ' ' + string(object.spec.m) + ' ' + string(true)", Declarations(), None)
    assert activation.evaluate(text, 1_000_000)[0].value == "1.0000005e+06 2 true"
