"""A CRD whose conversion strategy is Webhook, served as a cluster serves it: every object that
crosses versions goes through the webhook in a ConversionReview, and what the webhook answers
is checked before it is used.

The behaviour is the apiextensions-apiserver's (pkg/apiserver/conversion/webhook_converter.go:
the review, getConvertedObjectsFromResponse, validateConvertedObject, restoreObjectMeta; the
CRD checks of pkg/apis/apiextensions/validation/validation.go validateCustomResourceConversion
and k8s.io/apiserver pkg/util/webhook/validation.go). The webhook is an ASGI application the
test writes, given to FakeCluster by the Service the CRD names.
"""

from __future__ import annotations

import json
import socket
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
        "conversion": {
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {"service": {"namespace": "tools", "name": "gadget-webhook", "path": "/convert"}},
            },
        },
        "versions": [
            {
                "name": "v1", "served": True, "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"host": {"type": "string"}}}}}},
            },
            {
                "name": "v2", "served": True, "storage": False,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"hostname": {"type": "string"}}}}}},
            },
        ],
    },
}  # fmt: skip


class ConversionWebhook:
    """A conversion webhook for Gadgets (spec.host in v1 is spec.hostname in v2) that records
    its reviews and can be told to misbehave."""

    def __init__(self) -> None:
        self.reviews: list[dict[str, Any]] = []
        self.misbehave = ""

    def convert(self, obj: dict[str, Any], desired: str) -> dict[str, Any]:
        spec = dict(obj.get("spec") or {})
        if desired.endswith("/v2") and "host" in spec:
            spec["hostname"] = spec.pop("host")
        if desired.endswith("/v1") and "hostname" in spec:
            spec["host"] = spec.pop("hostname")
        converted = {**obj, "apiVersion": desired, "spec": spec}
        if self.misbehave == "rename":
            converted["metadata"] = {**obj["metadata"], "name": "other"}
        if self.misbehave == "label":
            converted["metadata"] = {**obj["metadata"], "labels": {"converted-by": "webhook"}}
        return converted

    async def __call__(self, scope, receive, send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        review = json.loads(body)
        self.reviews.append(review)
        request = review["request"]
        if self.misbehave == "fail":
            response = {"uid": request["uid"], "result": {"status": "Failure", "message": "cannot convert gadgets today"}}
        else:
            response = {
                "uid": request["uid"] if self.misbehave != "uid" else "not-the-uid",
                "result": {"status": "Success"},
                "convertedObjects": [self.convert(o, request["desiredAPIVersion"]) for o in request["objects"]],
            }
        answer = json.dumps({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": answer})


@pytest.fixture
def served():
    from kgen.serve.fake import FakeCluster, _SyncBridge

    webhook = ConversionWebhook()
    with FakeCluster(config=REPO / "pyproject.toml", webhooks={"tools/gadget-webhook": webhook}) as cluster:
        with httpx.Client(transport=_SyncBridge(cluster), base_url="https://fake.cluster") as http:
            assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
            yield http, webhook


def _path(version: str) -> str:
    return f"/apis/tools.example.io/{version}/namespaces/default/gadgets"


def _gadget(name: str, version: str = "v2", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"tools.example.io/{version}", "kind": "Gadget", "metadata": {"name": name}, "spec": spec}


def test_objects_cross_versions_through_the_webhook(served):
    """A create through v2 is stored in v1 (a review with desiredAPIVersion v1), read back
    through v2 (another review), and a list through v2 converts its items in one review."""
    http, webhook = served
    made = http.post(_path("v2"), json=_gadget("a", hostname="a.example"))
    assert made.status_code == 201, made.text
    assert made.json()["spec"] == {"hostname": "a.example"} and made.json()["apiVersion"] == "tools.example.io/v2"
    first = webhook.reviews[0]
    assert (first["apiVersion"], first["kind"]) == ("apiextensions.k8s.io/v1", "ConversionReview")
    assert first["request"]["desiredAPIVersion"] == "tools.example.io/v1"
    assert first["request"]["objects"][0]["spec"] == {"hostname": "a.example"}
    assert http.get(_path("v1") + "/a").json()["spec"] == {"host": "a.example"}
    assert http.post(_path("v1"), json=_gadget("b", "v1", host="b.example")).status_code == 201
    before = len(webhook.reviews)
    listed = http.get(_path("v2")).json()
    assert [item["spec"] for item in listed["items"]] == [{"hostname": "a.example"}, {"hostname": "b.example"}]
    assert len(webhook.reviews) == before + 1 and len(webhook.reviews[-1]["request"]["objects"]) == 2


def test_a_webhook_may_change_labels_but_not_names(served):
    """restoreObjectMeta keeps the original metadata but for labels and annotations;
    validateConvertedObject refuses another name (500 InternalError naming the kind)."""
    http, webhook = served
    webhook.misbehave = "label"
    made = http.post(_path("v2"), json=_gadget("labelled", hostname="x"))
    assert made.status_code == 201 and made.json()["metadata"]["labels"] == {"converted-by": "webhook"}
    webhook.misbehave = "rename"
    refused = http.post(_path("v2"), json=_gadget("renamed", hostname="x"))
    assert refused.status_code == 500 and refused.json()["reason"] == "InternalError"
    assert refused.json()["message"] == (
        "Internal error occurred: conversion webhook for tools.example.io/v2, Kind=Gadget returned invalid object: "
        "must have the same name: renamed != other"
    )


@pytest.mark.parametrize(
    "misbehave, problem",
    [
        ("fail", "cannot convert gadgets today"),
        ("uid", 'expected response.uid="{uid}", got "not-the-uid"'),
    ],
)
def test_a_failed_conversion_is_an_internal_error(served, misbehave, problem):
    http, webhook = served
    webhook.misbehave = misbehave
    refused = http.post(_path("v2"), json=_gadget("failing", hostname="x"))
    assert refused.status_code == 500
    uid = webhook.reviews[-1]["request"]["uid"]
    assert refused.json()["message"] == (
        f"Internal error occurred: conversion webhook for tools.example.io/v2, Kind=Gadget failed: {problem.format(uid=uid)}"
    )
    assert http.get(_path("v1") + "/failing").status_code == 404


def test_a_webhook_that_is_down_fails_every_conversion(tmp_path):
    """With the Service's webhook not listening, a conversion is the HTTP client's error."""
    from kgen.serve.fake import FakeCluster, _SyncBridge

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the block ends: nothing listens there
    with FakeCluster(config=REPO / "pyproject.toml", webhooks={"tools/gadget-webhook": f"127.0.0.1:{port}"}) as cluster:
        with httpx.Client(transport=_SyncBridge(cluster), base_url="https://fake.cluster") as http:
            assert http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
            refused = http.post(_path("v2"), json=_gadget("down", hostname="x"))
            assert refused.status_code == 500
            assert refused.json()["message"] == (
                "Internal error occurred: conversion webhook for tools.example.io/v2, Kind=Gadget failed: "
                f'Post "https://gadget-webhook.tools.svc:443/convert?timeout=30s": dial tcp 127.0.0.1:{port}: connect: '
                "connection refused"
            )
            assert http.post(_path("v1"), json=_gadget("same-version", "v1", host="x")).status_code == 201  # nothing to convert


@pytest.mark.parametrize(
    "conversion, expected",
    [
        ({"strategy": "Webhook"}, [
            ("FieldValueRequired", "spec.conversion.webhookClientConfig", "Required value: required when strategy is set to Webhook"),
            ("FieldValueRequired", "spec.conversion.conversionReviewVersions", "Required value"),
        ]),
        ({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v9"], "clientConfig": {"url": "http://h/convert?x=1"}}}, [
            ("FieldValueInvalid", "spec.conversion.webhookClientConfig.url", "Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"),
            ("FieldValueInvalid", "spec.conversion.webhookClientConfig.url", 'Invalid value: "x=1": query parameters are not permitted in the URL'),
            ("FieldValueInvalid", "spec.conversion.conversionReviewVersions", 'Invalid value: ["v9"]: must include at least one of v1, v1beta1'),
        ]),
        ({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"service": {"name": "w", "path": "convert"}}}}, [
            ("FieldValueRequired", "spec.conversion.webhookClientConfig.service.namespace", "Required value"),
            ("FieldValueInvalid", "spec.conversion.webhookClientConfig.service.path", "Invalid value: \"convert\": must start with a '/'"),
        ]),
        ({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": "https://h/c"}}}, [
            ("FieldValueForbidden", "spec.conversion.webhookClientConfig", "Forbidden: should not be set when strategy is not set to Webhook"),
            ("FieldValueForbidden", "spec.conversion.conversionReviewVersions", "Forbidden: should not be set when strategy is not set to Webhook"),
        ]),
    ],
)  # fmt: skip
def test_a_crds_conversion_stanza_is_checked(served, conversion, expected):
    http, _ = served
    crd = json.loads(json.dumps(CRD))
    crd["metadata"]["name"] = "widgets.checked.example.io"
    crd["spec"].update(group="checked.example.io", names={"kind": "Widget", "plural": "widgets"}, conversion=conversion)
    refused = http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd)
    assert refused.status_code == 422, refused.text
    assert [(c["reason"], c["field"], c["message"]) for c in refused.json()["details"]["causes"]] == expected
