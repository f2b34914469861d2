"""Admission webhooks called as kube-apiserver calls them, on FakeCluster with webhooks that
are ASGI applications of the test's own, reached through the Service their configuration
names.

Each check names what it reproduces from k8s.io/apiserver pkg/admission/plugin/webhook:
generic/webhook.go (ShouldCallHook: selectors, rules, Equivalent matching, match conditions),
request/admissionreview.go (the AdmissionReview sent, VerifyAdmissionResponse),
mutating/dispatcher.go (patches, reinvocation, failure policies), validating/dispatcher.go,
errors/statuserror.go (the refusal's Status) and pkg/util/webhook/error.go (a failed call);
and from kubernetes pkg/apis/admissionregistration: the configurations' defaults and validation.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import socket
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from conftest import REPO

CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.tools.example.io"},
    "spec": {
        "group": "tools.example.io",
        "scope": "Namespaced",
        "names": {"kind": "Gadget", "plural": "gadgets"},
        "versions": [
            {"name": version, "served": True, "storage": version == "v1",
             "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                 "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "color": {"type": "string"}}}}}}}
            for version in ("v1", "v2")
        ],
    },
}  # fmt: skip

REGISTRATION = "/apis/admissionregistration.k8s.io/v1"


class Webhook:
    """An admission webhook: `answer(request)` gives the AdmissionResponse's fields."""

    def __init__(self) -> None:
        self.reviews: list[dict[str, Any]] = []
        self.answer: Callable[[dict[str, Any]], dict[str, Any]] = lambda request: {"allowed": True}
        self.delay = 0.0
        self.envelope: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    def requests(self, path: str = "") -> list[dict[str, Any]]:
        return [r["request"] for r in self.reviews if not path or r["path"] == path]

    async def __call__(self, scope, receive, send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        review = json.loads(body)
        self.reviews.append({**review, "path": scope["path"]})
        if self.delay:
            await asyncio.sleep(self.delay)
        response = {"uid": review["request"]["uid"], **self.answer({**review["request"], "path": scope["path"]})}
        answer = {"apiVersion": review["apiVersion"], "kind": "AdmissionReview", "response": response}
        if self.envelope is not None:
            answer = self.envelope(answer)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": json.dumps(answer).encode()})


def patch(*operations: dict[str, Any]) -> dict[str, Any]:
    """A mutating answer: the JSON patch, base64 as the response carries it."""
    return {"allowed": True, "patchType": "JSONPatch", "patch": base64.b64encode(json.dumps(list(operations)).encode()).decode()}


def webhook_entry(name: str, path: str, **settings: Any) -> dict[str, Any]:
    entry = {
        "name": name,
        "clientConfig": {"service": {"namespace": "tools", "name": "gadget-webhook", "path": path}},
        "rules": [{"operations": ["CREATE", "UPDATE", "DELETE"], "apiGroups": ["tools.example.io"], "apiVersions": ["v1", "v2"],
                   "resources": ["gadgets"]}],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }  # fmt: skip
    entry.update(settings)
    return entry


def configuration(kind: str, name: str, *webhooks: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name}, "webhooks": list(webhooks)}


def mutating(name: str, *webhooks: dict[str, Any]) -> dict[str, Any]:
    return configuration("MutatingWebhookConfiguration", name, *webhooks)


def validating(name: str, *webhooks: dict[str, Any]) -> dict[str, Any]:
    return configuration("ValidatingWebhookConfiguration", name, *webhooks)


class Served:
    def __init__(self, http: httpx.Client, webhook: Webhook):
        self.http, self.webhook = http, webhook

    def install(self, config: dict[str, Any]) -> dict[str, Any]:
        plural = config["kind"].lower() + "s"
        made = self.http.post(f"{REGISTRATION}/{plural}", json=config)
        assert made.status_code == 201, made.text
        return made.json()

    def create(self, name: str, version: str = "v1", namespace: str = "default", **spec: Any) -> httpx.Response:
        body = {"apiVersion": f"tools.example.io/{version}", "kind": "Gadget", "metadata": {"name": name}, "spec": spec}
        return self.http.post(f"/apis/tools.example.io/{version}/namespaces/{namespace}/gadgets", json=body)


def _cluster(webhooks: dict[str, Any]):
    from kgen.serve.fake import FakeCluster, _SyncBridge

    cluster = FakeCluster(config=REPO / "pyproject.toml", webhooks=webhooks)
    http = httpx.Client(transport=_SyncBridge(cluster), base_url="https://fake.cluster")
    assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
    return cluster, http


@pytest.fixture
def served():
    webhook = Webhook()
    cluster, http = _cluster({"tools/gadget-webhook": webhook})
    try:
        yield Served(http, webhook)
    finally:
        http.close()
        cluster.close()


def test_a_mutating_webhook_patches_the_object_it_is_sent(served):
    """The AdmissionReview v1 (CreateV1AdmissionReview: kind, resource, requestKind,
    name, namespace, operation, userInfo, object, null oldObject, dryRun, CreateOptions);
    the JSON patch applies to the object before it is stored."""
    served.install(mutating("gadget-defaults", webhook_entry("default.tools.example.io", "/mutate")))
    served.webhook.answer = lambda request: patch({"op": "add", "path": "/spec/color", "value": "blue"})
    made = served.create("a", size=1)
    assert made.status_code == 201, made.text
    assert made.json()["spec"] == {"size": 1, "color": "blue"}
    (review,) = served.webhook.reviews
    assert (review["apiVersion"], review["kind"], review["path"]) == ("admission.k8s.io/v1", "AdmissionReview", "/mutate")
    request = review["request"]
    assert request["kind"] == {"group": "tools.example.io", "version": "v1", "kind": "Gadget"}
    assert request["resource"] == {"group": "tools.example.io", "version": "v1", "resource": "gadgets"}
    assert request["requestKind"] == request["kind"] and request["requestResource"] == request["resource"]
    assert (request["name"], request["namespace"], request["operation"]) == ("a", "default", "CREATE")
    assert request["object"]["spec"] == {"size": 1} and request["oldObject"] is None
    assert request["dryRun"] is False and request["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}
    assert request["userInfo"]["username"] == "system:anonymous"
    assert served.http.get("/apis/tools.example.io/v1/namespaces/default/gadgets/a").json()["spec"]["color"] == "blue"


def test_an_update_sends_the_stored_object_as_old_object(served):
    served.install(mutating("gadget-defaults", webhook_entry("default.tools.example.io", "/mutate")))
    made = served.create("b", size=1).json()
    made["spec"]["size"] = 2
    served.webhook.answer = lambda request: patch({"op": "replace", "path": "/spec/size", "value": request["object"]["spec"]["size"] * 10})
    updated = served.http.put("/apis/tools.example.io/v1/namespaces/default/gadgets/b", json=made)
    assert updated.status_code == 200 and updated.json()["spec"]["size"] == 20
    request = served.webhook.requests()[-1]
    assert request["operation"] == "UPDATE" and request["oldObject"]["spec"] == {"size": 1}
    assert request["options"]["kind"] == "UpdateOptions"
    merged = served.http.patch("/apis/tools.example.io/v1/namespaces/default/gadgets/b", content='{"spec":{"size":3}}',
                               headers={"Content-Type": "application/merge-patch+json"})  # fmt: skip
    assert merged.json()["spec"]["size"] == 30  # a patch goes through the mutating webhooks too


def test_a_webhook_that_asks_is_called_again_after_a_later_change(served):
    """mutating/dispatcher.go with reinvocationPolicy IfNeeded: a webhook called before
    another changed the object is called once more; one with Never is not."""
    calls: list[str] = []

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        calls.append(request["path"])
        spec = request["object"]["spec"]
        if request["path"] == "/second" and "color" not in spec:
            return patch({"op": "add", "path": "/spec/color", "value": "red"})
        if request["path"] == "/first" and spec.get("color") == "red" and "size" not in spec:
            return patch({"op": "add", "path": "/spec/size", "value": 7})
        return {"allowed": True}

    served.webhook.answer = answer
    served.install(mutating("a-first", webhook_entry("first.tools.example.io", "/first", reinvocationPolicy="IfNeeded"),
                            webhook_entry("never.tools.example.io", "/never")))  # fmt: skip
    served.install(mutating("b-second", webhook_entry("second.tools.example.io", "/second")))
    made = served.create("c")
    assert made.json()["spec"] == {"color": "red", "size": 7}
    assert calls == ["/first", "/never", "/second", "/first"]


def test_a_validating_webhook_refuses_with_its_status(served):
    """errors/statuserror.go ToStatusErr: the webhook's code (at least 400), reason and
    message, `admission webhook "<name>" denied the request: <message>`; it sees the object
    the mutating webhooks made, and a delete's stored object as oldObject."""
    served.install(mutating("gadget-defaults", webhook_entry("default.tools.example.io", "/mutate")))
    served.install(validating("gadget-checks", webhook_entry("check.tools.example.io", "/validate")))

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        if request["path"] == "/mutate":
            return patch({"op": "add", "path": "/metadata/labels", "value": {"checked": "yes"}}) if request["operation"] == "CREATE" else {"allowed": True}
        if (request["object"] or {}).get("spec", {}).get("size", 0) > 5:
            return {"allowed": False, "status": {"code": 403, "reason": "Forbidden", "message": "gadgets are small"}}
        if request["operation"] == "DELETE":
            return {"allowed": False, "status": {"message": "keep it"}}
        return {"allowed": True, "warnings": ["gadgets are watched"]}

    served.webhook.answer = answer
    refused = served.create("big", size=9)
    assert refused.status_code == 403
    assert refused.json()["message"] == 'admission webhook "check.tools.example.io" denied the request: gadgets are small'
    assert refused.json()["reason"] == "Forbidden"
    made = served.create("small", size=1)
    assert made.status_code == 201 and made.headers["warning"] == '299 - "gadgets are watched"'
    seen = served.webhook.requests("/validate")[-1]
    assert seen["object"]["metadata"]["labels"] == {"checked": "yes"}  # after the mutating webhook
    deleted = served.http.delete("/apis/tools.example.io/v1/namespaces/default/gadgets/small")
    assert deleted.status_code == 400 and deleted.json()["message"].endswith("denied the request: keep it")
    last = served.webhook.requests("/validate")[-1]
    assert last["operation"] == "DELETE" and last["object"] is None and last["oldObject"]["metadata"]["name"] == "small"
    assert served.http.get("/apis/tools.example.io/v1/namespaces/default/gadgets/small").status_code == 200
    without = served.webhook.answer
    served.webhook.answer = lambda request: {"allowed": request["path"] != "/validate"}
    assert served.create("bare").json()["message"] == 'admission webhook "check.tools.example.io" denied the request without explanation'
    served.webhook.answer = without


def test_a_request_through_another_version_is_sent_in_the_rules_version(served):
    """generic/webhook.go ShouldCallHook with matchPolicy Equivalent: a request of v2 that
    only a v1 rule matches is sent as v1 (kind and resource v1, requestKind v2); with Exact
    it is not sent."""
    only_v1 = webhook_entry("v1only.tools.example.io", "/validate")
    only_v1["rules"][0]["apiVersions"] = ["v1"]
    exact = copy.deepcopy(only_v1) | {"name": "exact.tools.example.io", "matchPolicy": "Exact"}
    served.install(validating("gadget-checks", only_v1, exact))
    assert served.create("through-v2", version="v2", size=1).status_code == 201
    (request,) = served.webhook.requests()
    assert request["kind"]["version"] == "v1" and request["requestKind"]["version"] == "v2"
    assert request["resource"]["version"] == "v1" and request["object"]["apiVersion"] == "tools.example.io/v1"


def test_selectors_and_match_conditions_choose_the_requests(served):
    """namespaceSelector on the namespace's labels, objectSelector on the object's, and
    match conditions (CEL; an error fails the request with 403 under failurePolicy Fail)."""
    http = served.http
    http.post("/api/v1/namespaces", json={"metadata": {"name": "watched", "labels": {"hooks": "on"}}})
    served.install(validating("gadget-checks",
        webhook_entry("ns.tools.example.io", "/ns", namespaceSelector={"matchLabels": {"hooks": "on"}}),
        webhook_entry("obj.tools.example.io", "/obj", objectSelector={"matchExpressions": [{"key": "tier", "operator": "Exists"}]}),
        webhook_entry("cel.tools.example.io", "/cel", matchConditions=[{"name": "big", "expression": "object.spec.size > 3"}]),
    ))  # fmt: skip
    served.create("plain", size=1)
    assert [r["path"] for r in served.webhook.reviews] == []
    served.create("in-watched", namespace="watched", size=1)
    assert [r["path"] for r in served.webhook.reviews] == ["/ns"]
    served.create("large", size=5)
    assert [r["path"] for r in served.webhook.reviews][-1] == "/cel"
    failing = served.create("no-size")  # object.spec.size: no such key
    assert failing.status_code == 403 and failing.json()["reason"] == "Forbidden"
    assert failing.json()["message"].startswith('gadgets.tools.example.io "no-size" is forbidden: ')


def test_a_failed_call_follows_the_failure_policy(served):
    """mutating and validating dispatchers: a webhook that cannot be called (here: one whose
    answer is for another request) fails the request with 500 under Fail
    (`failed calling webhook ... received invalid webhook response`), and is skipped under Ignore."""
    served.install(validating("gadget-checks", webhook_entry("strict.tools.example.io", "/validate")))
    served.webhook.envelope = lambda answer: {**answer, "response": {**answer["response"], "uid": "another"}}
    refused = served.create("x")
    uid = served.webhook.requests()[-1]["uid"]
    assert refused.status_code == 500 and refused.json()["reason"] == "InternalError"
    assert refused.json()["message"] == (
        f'Internal error occurred: failed calling webhook "strict.tools.example.io": received invalid webhook response: '
        f'expected response.uid="{uid}", got "another"'
    )
    stored = served.http.get(f"{REGISTRATION}/validatingwebhookconfigurations/gadget-checks").json()
    stored["webhooks"][0]["failurePolicy"] = "Ignore"
    assert served.http.put(f"{REGISTRATION}/validatingwebhookconfigurations/gadget-checks", json=stored).status_code == 200
    assert served.create("y").status_code == 201


def test_a_slow_webhook_times_out(served):
    """timeoutSeconds bounds a call: the API server's client reports `context deadline exceeded`."""
    served.install(validating("gadget-checks", webhook_entry("slow.tools.example.io", "/validate", timeoutSeconds=1)))
    served.webhook.delay = 1.5
    refused = served.create("slow")
    assert refused.status_code == 500
    assert refused.json()["message"] == (
        'Internal error occurred: failed calling webhook "slow.tools.example.io": failed to call webhook: Post '
        '"https://gadget-webhook.tools.svc:443/validate?timeout=1s": context deadline exceeded'
    )


def test_a_webhook_that_is_down(tmp_path):
    """A Service whose webhook does not listen: the call's error under Fail, nothing under Ignore."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cluster, http = _cluster({"tools/gadget-webhook": f"127.0.0.1:{port}"})
    try:
        served = Served(http, Webhook())
        served.install(mutating("gadget-defaults", webhook_entry("down.tools.example.io", "/mutate")))
        refused = served.create("d")
        assert refused.status_code == 500
        assert refused.json()["message"] == (
            'Internal error occurred: failed calling webhook "down.tools.example.io": failed to call webhook: Post '
            f'"https://gadget-webhook.tools.svc:443/mutate?timeout=10s": dial tcp 127.0.0.1:{port}: connect: connection refused'
        )
        stored = http.get(f"{REGISTRATION}/mutatingwebhookconfigurations/gadget-defaults").json()
        stored["webhooks"][0]["failurePolicy"] = "Ignore"
        http.put(f"{REGISTRATION}/mutatingwebhookconfigurations/gadget-defaults", json=stored)
        assert served.create("e").status_code == 201
    finally:
        http.close()
        cluster.close()


def test_a_dry_run_reaches_webhooks_without_side_effects_and_stores_nothing(served):
    served.install(validating("gadget-checks", webhook_entry("check.tools.example.io", "/validate")))
    body = {"apiVersion": "tools.example.io/v1", "kind": "Gadget", "metadata": {"name": "dry"}, "spec": {}}
    made = served.http.post("/apis/tools.example.io/v1/namespaces/default/gadgets", params={"dryRun": "All"}, json=body)
    assert made.status_code == 201
    request = served.webhook.requests()[-1]
    assert request["dryRun"] is True and request["options"]["dryRun"] == ["All"]
    assert served.http.get("/apis/tools.example.io/v1/namespaces/default/gadgets/dry").status_code == 404


def test_a_webhook_that_reads_only_v1beta1_is_sent_v1beta1(served):
    served.install(validating("gadget-checks", webhook_entry("old.tools.example.io", "/validate", admissionReviewVersions=["v1beta1"])))
    assert served.create("beta").status_code == 201
    assert served.webhook.reviews[-1]["apiVersion"] == "admission.k8s.io/v1beta1"


def test_configurations_are_defaulted_and_validated(served):
    """admissionregistration/v1 defaults, and ValidateMutatingWebhookConfiguration's errors."""
    made = served.install(mutating("defaults", webhook_entry("default.tools.example.io", "/mutate")))
    hook = made["webhooks"][0]
    assert (hook["failurePolicy"], hook["matchPolicy"], hook["timeoutSeconds"], hook["reinvocationPolicy"]) == ("Fail", "Equivalent", 10, "Never")
    assert hook["namespaceSelector"] == {} and hook["objectSelector"] == {} and hook["rules"][0]["scope"] == "*"
    assert hook["clientConfig"]["service"]["port"] == 443 and made["metadata"]["generation"] == 1
    bad = mutating("bad", webhook_entry("short", "mutate", sideEffects="Some", timeoutSeconds=31, admissionReviewVersions=["v3"]),
                   webhook_entry("short", "/m"))  # fmt: skip
    refused = served.http.post(f"{REGISTRATION}/mutatingwebhookconfigurations", json=bad)
    assert refused.status_code == 422
    causes = [(c["field"], c["message"]) for c in refused.json()["details"]["causes"]]
    assert causes == [
        ("webhooks[0].name", 'Invalid value: "short": should be a domain with at least three segments separated by dots'),
        ("webhooks[0].sideEffects", 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'),
        ("webhooks[0].timeoutSeconds", "Invalid value: 31: the timeout value must be between 1 and 30 seconds"),
        ("webhooks[0].clientConfig.service.path", "Invalid value: \"mutate\": must start with a '/'"),
        ("webhooks[0].admissionReviewVersions", 'Invalid value: ["v3"]: must include at least one of v1, v1beta1'),
        ("webhooks[1].name", 'Invalid value: "short": should be a domain with at least three segments separated by dots'),
        ("webhooks[1].name", 'Duplicate value: "short"'),
    ]
    listed = served.http.get(f"{REGISTRATION}/mutatingwebhookconfigurations", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert [c["name"] for c in listed.json()["columnDefinitions"]] == ["Name", "Webhooks", "Age"]
