"""The webhook application of the example API (generated/webhook.py): ConversionReviews and
AdmissionReviews answered as a cluster needs them, in process and over its ASGI app.

Upstream facts followed (cited where a test relies on one):
- apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go: what the API
  server sends (`createConversionReviewObjects`: v1 or v1beta1, only the objects not in
  `desiredAPIVersion`, an empty `response` alongside the v1 request) and checks of the
  answer (`getConvertedObjectsFromResponse`: uid, `result.status` Success, one object per
  object sent; `restoreObjectMeta`: only labels and annotations may change).
- apiserver pkg/admission/plugin/webhook/request/admissionreview.go: the AdmissionReview
  it sends (`CreateV1AdmissionReview`) and the checks of the answer
  (`VerifyAdmissionResponse`: uid, review apiVersion, `patch` with `patchType: JSONPatch`,
  no patch from a validating webhook); webhook/errors/statuserror.go `ToStatusErr` for how
  a denial's Status reaches the client.
- controller-runtime pkg/webhook/admission: a patch of what defaulting changed
  (defaulter_custom.go), DELETE validated on `oldObject` (validator_custom.go), the 7 MiB
  body limit and `application/json` only (http.go).

The golden pairs under testdata/webhooks/ are requests shaped as the API server sends them
and the answers reviewed as correct; `KGEN_WRITE_GOLDEN=1` rewrites the answers (review the
diff like code).
"""

from __future__ import annotations

import base64
import copy
import json
import os
import sys
from pathlib import Path

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, TESTDATA
from kgen.generators.strategies import strategy_name
from kgen.runtime import gojson
from kgen.runtime.patch.jsonpatch import apply_json_patch
from kgen.runtime.scheme import SCHEME
from kgen.runtime.semantic import semantic_diff, semantic_equal
from kgen.webhook import Resource, Webhooks, current_request
from kgen.webhook.conversion import merge
from kgen.webhook.patches import mutation_patch

sys.path.insert(0, str(REPO))
import generated.webhook as generated_webhook  # noqa: E402
from generated.example.v1 import models as v1  # noqa: E402
from generated.example.v1 import strategies as v1_strategies  # noqa: E402
from generated.example.v1beta1 import models as v1beta1  # noqa: E402
from generated.example.v1beta1 import strategies as v1beta1_strategies  # noqa: E402

GOLDEN = TESTDATA / "webhooks"
GROUP = "example.kgen.dev"
ANNOTATION = f"{GROUP}/conversion-data"


@pytest.fixture(scope="module")
def webhooks() -> Webhooks:
    return generated_webhook.webhooks()


def _wire(body):
    """A body as it crosses HTTP: encoded as Go would, decoded again."""
    return orjson.loads(gojson.marshal_struct(body))


def review(webhooks: Webhooks, path: str, body):
    return _wire(webhooks.review(path, _wire(body)))


def conversion_review(desired: str, objects: list, uid: str = "u-1") -> dict:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects}}  # fmt: skip


def convert(webhooks: Webhooks, desired: str, *objects) -> list[dict]:
    answer = review(webhooks, "/convert", conversion_review(desired, list(objects)))
    response = answer["response"]
    assert response["result"] == {"status": "Success"}, response["result"]
    return response["convertedObjects"]


# -- golden request/response pairs ---------------------------------------------------------------


GOLDEN_CASES = sorted(GOLDEN.glob("*.json"))


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[p.stem for p in GOLDEN_CASES])
def test_golden_review(webhooks, case: Path):
    data = json.loads(case.read_text())
    answer = review(webhooks, data["path"], data["request"])
    if os.environ.get("KGEN_WRITE_GOLDEN"):
        data["response"] = answer
        case.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    assert answer == data["response"], f"{case.name}: {data['description']}"


def test_the_golden_cases_cover_every_path_and_review_version():
    seen = {(json.loads(p.read_text())["path"].split("-", 1)[0], json.loads(p.read_text())["request"]["apiVersion"])
            for p in GOLDEN_CASES}  # fmt: skip
    assert seen >= {
        ("/convert", "apiextensions.k8s.io/v1"), ("/convert", "apiextensions.k8s.io/v1beta1"),
        ("/mutate", "admission.k8s.io/v1"), ("/mutate", "admission.k8s.io/v1beta1"), ("/validate", "admission.k8s.io/v1"),
    }  # fmt: skip
    operations = {json.loads(p.read_text())["request"].get("request", {}).get("operation") for p in GOLDEN_CASES}
    assert operations >= {"CREATE", "UPDATE", "DELETE"}


def test_golden_answers_pass_the_checks_of_the_api_server():
    """What `VerifyAdmissionResponse` and `getConvertedObjectsFromResponse` check, and
    `restoreObjectMeta`'s rule that a conversion changes no metadata but labels and annotations."""
    for case in GOLDEN_CASES:
        data = json.loads(case.read_text())
        request, answer = data["request"], data["response"]
        assert answer["apiVersion"] == request["apiVersion"] and answer["kind"] == request["kind"], case.name
        response = answer["response"]
        assert response["uid"] == request["request"]["uid"], case.name
        if request["kind"] == "ConversionReview":
            if response["result"]["status"] != "Success":
                assert response["result"]["status"] == "Failure" and response["result"]["message"], case.name
                continue
            sent = [o for o in request["request"]["objects"]]
            assert len(response["convertedObjects"]) == len(sent), case.name
            for original, converted in zip(sent, response["convertedObjects"]):
                assert converted["apiVersion"] == request["request"]["desiredAPIVersion"], case.name
                assert converted["kind"] == original["kind"], case.name
                keep = {k: v for k, v in original["metadata"].items() if k not in ("labels", "annotations")}
                assert {k: v for k, v in converted["metadata"].items() if k not in ("labels", "annotations")} == keep
        else:
            mutating = data["path"].startswith("/mutate")
            assert ("patch" in response) == ("patchType" in response), case.name
            if not mutating:
                assert "patch" not in response and "patchType" not in response, case.name
            if "patch" in response:
                assert response["patchType"] == "JSONPatch"
            if not response["allowed"]:
                assert response["status"]["code"] >= 400 and response["status"]["status"] == "Failure", case.name


def test_a_mutation_patch_applies_to_the_object_sent_and_is_idempotent(webhooks):
    """The patch, applied by the API server (evanphx/json-patch, as kgen.runtime.patch applies
    it) to the object it sent, gives the defaulted object; sent again, nothing changes."""
    data = json.loads((GOLDEN / "mutate-create-defaults.json").read_text())
    sent = data["request"]["request"]["object"]
    patch = json.loads(base64.b64decode(data["response"]["response"]["patch"]))
    patched = apply_json_patch(sent, patch)
    assert patched["spec"]["replicas"] == 1 and patched["spec"]["mode"] == "Gentle"
    assert patched["spec"]["ports"][0]["protocol"] == "TCP"
    assert patched["spec"]["resources"] == {"cpu": "0.5"}  # as the client wrote it, not re-encoded
    assert patched["metadata"] == sent["metadata"]
    again = copy.deepcopy(data["request"])
    again["request"]["object"] = patched
    assert review(webhooks, data["path"], again)["response"] == {"uid": again["request"]["uid"], "allowed": True}


def test_a_patch_is_made_of_exactly_what_changed():
    raw = {"spec": {"a": "0.50", "list": [{"x": 1}], "gone": None}}
    before = {"spec": {"a": "500m", "list": [{"x": 1, "zero": 0}]}}
    after = {"spec": {"a": "500m", "list": [{"x": 1, "zero": 0, "new": 2}], "added": {"b": 1}}}
    assert mutation_patch(raw, before, after) == [
        {"op": "add", "path": "/spec/list/0/new", "value": 2},
        {"op": "add", "path": "/spec/added", "value": {"b": 1}},
    ]
    assert mutation_patch({"a/b~": [1, 2]}, {"a/b~": [1, 2]}, {"a/b~": [1, 2, 3]}) == [
        {"op": "replace", "path": "/a~1b~0", "value": [1, 2, 3]}
    ]
    assert mutation_patch({"a": 1, "b": 2}, {"a": 1, "b": 2}, {"a": 1}) == [{"op": "remove", "path": "/b"}]
    assert mutation_patch({}, {"spec": {}}, {"spec": {"replicas": 1}}) == [
        {"op": "add", "path": "/spec", "value": {"replicas": 1}}
    ]


# -- conversion: lossless round trips through the endpoint -------------------------------------------


def _beta_consistent(obj):
    """v1beta1's rule for the singular field made plural (its validation enforces it): when
    both are set, the singular is the first of the plural (as tests/test_roundtrip.py keeps them)."""
    if isinstance(obj, v1beta1.Frobber) and obj.spec.params:
        obj.spec.param = obj.spec.params[0]
    return obj


STRATEGIES = {
    ("v1", "Frobber"): v1_strategies,
    ("v1", "FrobberClass"): v1_strategies,
    ("v1beta1", "Frobber"): v1beta1_strategies,
}
PAIRS = [
    (kind, source, target)
    for resource in generated_webhook.RESOURCES
    for kind in [resource.kind]
    for source in resource.versions
    for target in resource.versions
]
ROUND_TRIPS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def test_every_kind_and_version_pair_is_round_tripped():
    assert {(k, s, t) for k, s, t in PAIRS} == {
        ("Frobber", "v1", "v1"), ("Frobber", "v1", "v1beta1"), ("Frobber", "v1beta1", "v1"),
        ("Frobber", "v1beta1", "v1beta1"), ("FrobberClass", "v1", "v1"),
    }  # fmt: skip
    assert set(STRATEGIES) == {(s, k) for k, s, _ in PAIRS}


@pytest.mark.parametrize("kind, source, target", PAIRS, ids=[f"{k}.{s}-{t}" for k, s, t in PAIRS])
@ROUND_TRIPS
@given(data=st.data())
def test_conversion_round_trips_are_lossless(webhooks, kind, source, target, data):
    """source -> target -> source through the conversion endpoint (each leg through the hub)
    gives back the object, semantically (apiequality): what the target cannot hold travels in
    the conversion-data annotation. Objects are defaulted first, as stored objects are; the
    API server sends no object already in the desired version, and one sent anyway comes back
    as it is."""
    module = STRATEGIES[(source, kind)]
    original = _beta_consistent(data.draw(getattr(module, strategy_name(kind))()))
    SCHEME.default(original)
    there = convert(webhooks, f"{GROUP}/{target}", original.to_dict())[0]
    assert there["apiVersion"] == f"{GROUP}/{target}"
    back = convert(webhooks, f"{GROUP}/{source}", there)[0]
    decoded = type(original).from_dict(back)
    assert semantic_equal(decoded, original), "; ".join(semantic_diff(original, decoded))
    if source == target:
        assert there == original.to_dict()
    else:
        assert ANNOTATION not in ((back.get("metadata") or {}).get("annotations") or {})
    # the hub round trip itself, without the endpoint: source -> hub -> source
    hub = SCHEME.to_internal(original, webhooks.converter.scope)
    assert semantic_equal(SCHEME.from_internal(hub, f"{GROUP}/{source}", webhooks.converter.scope), original)


def test_what_an_old_client_changed_wins_and_the_rest_is_restored(webhooks):
    stored = json.loads((GOLDEN / "convert-v1-to-v1beta1-keeps-what-v1beta1-cannot-hold.json").read_text())
    original = stored["request"]["request"]["objects"][0]
    old = stored["response"]["response"]["convertedObjects"][0]
    assert ANNOTATION in old["metadata"]["annotations"]
    edited = copy.deepcopy(old)
    edited["spec"]["description"] = "edited by an old client"
    edited["spec"]["height"] = 71
    edited["spec"]["ports"][1]["port"] = 9091
    back = convert(webhooks, f"{GROUP}/v1", edited)[0]
    expected = copy.deepcopy(original)
    expected["spec"].update({"description": "edited by an old client", "heightInInches": 71})
    expected["spec"]["ports"][1]["port"] = 9091
    assert back["spec"] == v1.Frobber.from_dict(expected).to_dict()["spec"]
    assert back["status"] == v1.Frobber.from_dict(expected).to_dict()["status"]
    assert ANNOTATION not in (back["metadata"].get("annotations") or {})
    # a port added by the old client: the list changed length, so the client's list wins
    # whole (its items have no targetPort to restore: Go's zero), the rest is still restored
    grown = copy.deepcopy(old)
    grown["spec"]["ports"].append({"name": "admin", "port": 8443, "protocol": "TCP"})
    back = convert(webhooks, f"{GROUP}/v1", grown)[0]
    assert [p["targetPort"] for p in back["spec"]["ports"]] == [0, 0, 0]
    assert back["spec"]["width"] == 30 and back["spec"]["source"] == original["spec"]["source"]


def test_without_preservation_a_version_that_cannot_hold_a_field_loses_it():
    plain = Webhooks(generated_webhook.RESOURCES, generated_webhook.ROUTES, preserve=False)
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Frobber", "metadata": {"name": "a", "namespace": "d"},
           "spec": {"width": 3, "params": ["x"]}}  # fmt: skip
    there = convert(plain, f"{GROUP}/v1beta1", obj)[0]
    assert "annotations" not in there["metadata"]
    assert "width" not in convert(plain, f"{GROUP}/v1", there)[0]["spec"]


def test_a_tampered_annotation_is_ignored_not_fatal(webhooks):
    obj = {"apiVersion": f"{GROUP}/v1beta1", "kind": "Frobber",
           "metadata": {"name": "a", "namespace": "d", "annotations": {ANNOTATION: "{not json", "keep": "me"}},
           "spec": {"param": "x", "params": ["x"]}}  # fmt: skip
    back = convert(webhooks, f"{GROUP}/v1", obj)[0]
    assert back["metadata"]["annotations"] == {"keep": "me"} and back["spec"]["params"] == ["x"]
    obj["metadata"]["annotations"][ANNOTATION] = json.dumps({"apiVersion": f"{GROUP}/v1", "kind": "FrobberClass"})
    assert convert(webhooks, f"{GROUP}/v1", obj)[0]["spec"]["params"] == ["x"]


def test_the_three_way_merge():
    base, theirs = {"a": 1, "b": {"c": 1}, "l": [1, 2]}, {"a": 1, "b": {"c": 1, "d": 2}, "l": [1, 3], "x": 5}
    assert merge(base, theirs, base) == theirs
    assert merge(base, theirs, {"a": 2, "b": {"c": 9}, "l": [1, 2]}) == {
        "a": 2,
        "b": {"c": 9, "d": 2},
        "l": [1, 3],
        "x": 5,
    }
    assert merge(base, theirs, {"a": 1, "b": {"c": 1}, "l": [0, 2, 4]}) == {
        "a": 1,
        "b": {"c": 1, "d": 2},
        "l": [0, 2, 4],
        "x": 5,
    }


# -- reviews that are not well formed --------------------------------------------------------------


@pytest.mark.parametrize(
    "body, message",
    [
        ([], "the body must be a ConversionReview"),
        ({"apiVersion": "apiextensions.k8s.io/v2", "kind": "ConversionReview", "request": {}}, "expected a ConversionReview"),
        ({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}, "has no request"),
        ({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "request": {"desiredAPIVersion": "a/v1"}},
         "request.uid: Required value"),
        ({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "request": {"uid": "u", "desiredAPIVersion": "x/v1", "objects": {}}},
         "request.objects: Invalid value"),
    ],
)  # fmt: skip
def test_a_body_that_is_not_a_conversion_review_is_a_bad_request(webhooks, body, message):
    from kgen.webhook import ReviewError

    with pytest.raises(ReviewError) as raised:
        webhooks.review("/convert", body)
    assert raised.value.code == 400 and message in raised.value.message


def _admission(operation="CREATE", obj=None, **request) -> dict:
    base = {"uid": "u", "kind": {"group": GROUP, "version": "v1", "kind": "Frobber"},
            "resource": {"group": GROUP, "version": "v1", "resource": "frobbers"}, "operation": operation,
            "userInfo": {"username": "me"}, "object": obj}  # fmt: skip
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {**base, **request}}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"uid": ""}, "request.uid: Required value"),
        ({"operation": "PATCH"}, 'request.operation: Unsupported value: "PATCH"'),
        ({"kind": {"group": GROUP}}, "request.kind: Invalid value"),
        ({"object": [1]}, "request.object: Invalid value"),
        ({"dryRun": "yes"}, "request.dryRun: Invalid value"),
    ],
)
def test_a_body_that_is_not_an_admission_review_is_a_bad_request(webhooks, change, message):
    from kgen.webhook import ReviewError

    body = _admission()
    body["request"].update(change)
    with pytest.raises(ReviewError) as raised:
        webhooks.review("/validate-example-kgen-dev-v1-frobber", body)
    assert raised.value.code == 400 and message in raised.value.message


# -- hooks ------------------------------------------------------------------------------------------


def test_delete_hooks_warnings_and_denials_raised_by_hooks():
    from kgen.runtime.errors import APIError
    from kgen.runtime.validation import field

    seen = []

    def refuse_running(obj):
        seen.append((current_request().operation, current_request().dry_run))
        if obj.status.phase == "Running":
            return [field.forbidden(field.Path.root("status", "phase"), "a running Frobber cannot be deleted", "")]
        return []

    def quota(obj):
        raise APIError(403, "Forbidden", 'frobbers "a" is forbidden: exceeded quota')

    webhooks = Webhooks(
        generated_webhook.RESOURCES, delete_validators={v1.Frobber: refuse_running}, create_warnings={v1.Frobber: quota}
    )
    running = {"apiVersion": f"{GROUP}/v1", "kind": "Frobber", "metadata": {"name": "a", "namespace": "d"},
               "status": {"phase": "Running"}}  # fmt: skip
    answer = review(
        webhooks, "/validate-example-kgen-dev-v1-frobber", _admission("DELETE", None, oldObject=running, dryRun=True)
    )
    assert answer["response"]["allowed"] is False
    assert answer["response"]["status"]["message"] == (
        'Frobber.example.kgen.dev "a" is invalid: status.phase: Forbidden: a running Frobber cannot be deleted'
    )
    assert seen == [("DELETE", True)]
    assert current_request() is None  # only while a review runs
    running["status"]["phase"] = "Pending"
    assert review(webhooks, "/validate-example-kgen-dev-v1-frobber", _admission("DELETE", None, oldObject=running))[
        "response"
    ] == {"uid": "u", "allowed": True}
    created = review(webhooks, "/validate-example-kgen-dev-v1-frobber", _admission("CREATE", running))["response"]
    assert created["allowed"] is False and created["status"]["code"] == 403
    assert created["status"]["message"] == 'frobbers "a" is forbidden: exceeded quota'


def test_a_hook_that_raises_is_a_denial_with_a_status_never_a_crash():
    def broken(obj):
        raise ZeroDivisionError("division by zero")

    webhooks = Webhooks(generated_webhook.RESOURCES, create_warnings={v1.Frobber: broken})
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Frobber", "metadata": {"name": "a", "namespace": "d"}}
    answer = review(webhooks, "/validate-example-kgen-dev-v1-frobber", _admission("CREATE", obj))["response"]
    assert answer["allowed"] is False and answer["status"]["code"] == 500
    assert answer["status"]["message"] == "Internal error occurred: ZeroDivisionError: division by zero"


def test_feature_gates_reach_admission_but_conversion_keeps_every_field():
    gated = generated_webhook.webhooks({"FrobberTurbo": True})
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Frobber", "metadata": {"name": "a", "namespace": "d"},
           "spec": {"turbo": True, "replicas": 1, "mode": "Gentle"}}  # fmt: skip
    assert review(gated, "/mutate-example-kgen-dev-v1-frobber", _admission("CREATE", obj))["response"] == {
        "uid": "u",
        "allowed": True,
    }
    plain = generated_webhook.webhooks()
    patch = review(plain, "/mutate-example-kgen-dev-v1-frobber", _admission("CREATE", obj))["response"]["patch"]
    assert json.loads(base64.b64decode(patch)) == [{"op": "remove", "path": "/spec/turbo"}]
    assert convert(plain, f"{GROUP}/v1beta1", obj)[0]["spec"]["turbo"] is True


# -- the ASGI application -----------------------------------------------------------------------------


def _run(coroutine):
    import asyncio

    return asyncio.run(coroutine)


async def _post(app, path, content, headers):
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://webhook") as http:
        return await http.post(path, content=content, headers=headers)


async def _get(app, path):
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://webhook") as http:
        return await http.get(path)


JSON = {"content-type": "application/json"}


def test_the_asgi_app_answers_reviews_over_http(webhooks):
    data = json.loads((GOLDEN / "convert-v1beta1-to-v1.json").read_text())
    answer = _run(_post(webhooks.asgi(), "/convert", json.dumps(data["request"]), JSON))
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json() == data["response"]
    data = json.loads((GOLDEN / "validate-create-invalid.json").read_text())
    answer = _run(
        _post(
            webhooks.asgi(),
            data["path"],
            json.dumps(data["request"]),
            {"content-type": "application/json; charset=utf-8"},
        )
    )
    assert answer.status_code == 200 and answer.json() == data["response"]


@pytest.mark.parametrize(
    "method, path, content, headers, code, reason",
    [
        ("POST", "/nowhere", b"{}", JSON, 404, "NotFound"),
        ("GET", "/convert", b"", JSON, 405, "MethodNotAllowed"),
        ("POST", "/convert", b"{}", {"content-type": "application/yaml"}, 415, "UnsupportedMediaType"),
        ("POST", "/convert", b"", JSON, 400, "BadRequest"),
        ("POST", "/convert", b"{nope", JSON, 400, "BadRequest"),
        (
            "POST",
            "/validate-example-kgen-dev-v1-frobber",
            b" " * (7 * 1024 * 1024 + 1),
            JSON,
            413,
            "RequestEntityTooLarge",
        ),
    ],
)
def test_a_request_that_is_no_review_gets_a_status(webhooks, method, path, content, headers, code, reason):
    async def call():
        transport = httpx.ASGITransport(app=webhooks.asgi())
        async with httpx.AsyncClient(transport=transport, base_url="https://webhook") as http:
            return await http.request(method, path, content=content, headers=headers)

    answer = _run(call())
    assert answer.status_code == code
    status = answer.json()
    assert status["kind"] == "Status" and status["code"] == code and status["reason"] == reason


def test_health_probes(webhooks):
    for path in ("/healthz", "/readyz"):
        answer = _run(_get(webhooks.asgi(), path))
        assert answer.status_code == 200 and answer.text == "ok"


def test_the_generated_module_serves_every_kind_and_version(webhooks):
    assert webhooks.paths == [
        "/convert",
        "/mutate-example-kgen-dev-v1-frobber", "/mutate-example-kgen-dev-v1-frobberclass",
        "/mutate-example-kgen-dev-v1beta1-frobber", "/validate-example-kgen-dev-v1-frobber",
        "/validate-example-kgen-dev-v1-frobberclass", "/validate-example-kgen-dev-v1beta1-frobber",
    ]  # fmt: skip
    assert generated_webhook.RESOURCES == (
        Resource(GROUP, "Frobber", "frobbers", True, ("v1", "v1beta1"), "v1"),
        Resource(GROUP, "FrobberClass", "frobberclasses", False, ("v1",), "v1"),
    )


MUTATED = [("v1", "Frobber"), ("v1beta1", "Frobber"), ("v1", "FrobberClass")]


@pytest.mark.parametrize("version, kind", MUTATED, ids=[f"{v}.{k}" for v, k in MUTATED])
@ROUND_TRIPS
@given(data=st.data())
def test_mutation_patches_apply_and_reinvocation_changes_nothing(webhooks, version, kind, data):
    """For random objects: the patch applied to the object sent gives the defaulted object
    (what the generated defaulters make of it), and the webhook called again on the patched
    object (reinvocationPolicy: IfNeeded) answers without a patch."""
    module = STRATEGIES[(version, kind)]
    obj = _beta_consistent(data.draw(getattr(module, strategy_name(kind))()))
    sent = _wire(obj.to_dict())
    path = f"/mutate-example-kgen-dev-{version}-{kind.lower()}"
    plural = "frobbers" if kind == "Frobber" else "frobberclasses"
    body = _admission("CREATE", sent, kind={"group": GROUP, "version": version, "kind": kind},
                      resource={"group": GROUP, "version": version, "resource": plural})  # fmt: skip
    answer = review(webhooks, path, body)["response"]
    assert answer["allowed"] is True, answer
    patched = sent
    if "patch" in answer:
        patched = apply_json_patch(sent, json.loads(base64.b64decode(answer["patch"])))
    expected = copy.deepcopy(obj)
    SCHEME.default(expected)
    got = type(obj).from_dict(patched)
    if kind == "Frobber":  # with every gate off, a new object has no turbo
        expected.spec.turbo = None
    assert semantic_equal(got, expected), "; ".join(semantic_diff(expected, got))
    body["request"]["object"] = patched
    assert review(webhooks, path, body)["response"] == {"uid": "u", "allowed": True}


# -- kgen webhook: serving ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["--no-tls", "--address", "0.0.0.0"], "--no-tls serves plain HTTP, which only a loopback address may do"),
        (["--cert-dir", "/nonexistent"], "cannot read /nonexistent/tls.crt (--tls-cert-file, or --cert-dir)"),
        (["--no-tls", "--address", "127.0.0.1", "--feature-gates", "A=yes"], "--feature-gates: 'A=yes' is not NAME=true"),
        (["--no-tls", "--address", "127.0.0.1", "--module", "generated.nothing"], "cannot load the webhook application generated.nothing"),
    ],
)  # fmt: skip
def test_kgen_webhook_refuses_settings_that_cannot_work(args, message, capsys, monkeypatch):
    from kgen.webhook.cli import main

    monkeypatch.chdir(REPO)
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_kgen_webhook_loads_the_generated_app_with_feature_gates(monkeypatch):
    from kgen.webhook.cli import feature_gates, load_app

    monkeypatch.chdir(REPO)
    app = load_app("generated.webhook", REPO, feature_gates("FrobberTurbo=true, Other=false"))
    assert app.webhooks.admission.feature_gates == {"FrobberTurbo": True, "Other": False}


def _write_pair(directory: Path, name: str) -> bytes:
    from kgen.serve.security import self_signed_certificate

    pair = self_signed_certificate("127.0.0.1")
    for filename, data in (("tls.crt", pair.cert_pem), ("tls.key", pair.key_pem)):
        staged = directory / f".{filename}.{name}"
        staged.write_bytes(data)
        staged.replace(directory / filename)  # as a Secret's volume swaps its files
    return pair.cert_pem


@pytest.mark.slow
def test_kgen_webhook_serves_over_tls_and_picks_up_a_renewed_certificate(tmp_path):
    import ssl
    import subprocess
    import time

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    certs = tmp_path / "serving-certs"
    certs.mkdir()
    first = _write_pair(certs, "first")
    command = [sys.executable, "-m", "kgen.webhook", "--address", "127.0.0.1", "--port", "0", "--cert-dir", str(certs),
               "--cert-reload-interval", "0.1"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        assert "serving on https://127.0.0.1:" in line, line
        port = int(line.rsplit(":", 1)[1])

        def served_certificate() -> bytes:
            pem = ssl.get_server_certificate(("127.0.0.1", port))
            return x509.load_pem_x509_certificate(pem.encode()).fingerprint(hashes.SHA256())

        context = ssl.create_default_context(cadata=first.decode())
        data = json.loads((GOLDEN / "convert-v1beta1-to-v1.json").read_text())
        with httpx.Client(verify=context) as http:
            answer = http.post(f"https://127.0.0.1:{port}/convert", json=data["request"])
        assert answer.status_code == 200 and answer.json() == data["response"]
        second = _write_pair(certs, "second")
        expected = x509.load_pem_x509_certificate(second).fingerprint(hashes.SHA256())
        deadline = time.monotonic() + 10
        while served_certificate() != expected:
            assert time.monotonic() < deadline, "the renewed certificate was never served"
            time.sleep(0.05)
        # The pair is written a file at a time: a check between the two may find a certificate
        # that does not match its key yet, which the server reports and waits out.
        line = server.stderr.readline()
        while "do not load yet" in line:
            line = server.stderr.readline()
        assert "loaded the new certificate" in line
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_what_a_version_cannot_hold_must_fit_in_the_annotations(webhooks):
    """The API server refuses a conversion's annotations beyond 256 KiB in all (restoreObjectMeta
    validates them): the webhook fails the review naming the object instead."""
    obj = {"apiVersion": f"{GROUP}/v1", "kind": "Frobber", "metadata": {"name": "big", "namespace": "d"},
           "spec": {"extraArgs": {"x": ["y" * 300_000]}}}  # fmt: skip
    answer = review(webhooks, "/convert", conversion_review(f"{GROUP}/v1beta1", [obj]))["response"]
    assert answer["result"]["status"] == "Failure"
    assert answer["result"]["message"].startswith(
        'Frobber "d/big" (example.kgen.dev/v1) cannot be converted to example.kgen.dev/v1beta1: '
    )
    assert "more than the 262,144 bytes an object may carry" in answer["result"]["message"]


# -- either model backend -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def struct_webhooks(msgspec_example):
    """The webhook application of the example API on msgspec structs, in a Scheme of its own."""
    import importlib

    from kgen.runtime.scheme import Scheme

    scheme = Scheme()
    for version in ("", ".v1", ".v1beta1"):
        importlib.import_module(f"{msgspec_example.package}.example{version}.register").add_to_scheme(scheme)
    module = importlib.import_module(f"{msgspec_example.package}.webhook")
    return Webhooks(module.RESOURCES, module.ROUTES, scheme=scheme)


@pytest.mark.parametrize("name", ["convert-v1beta1-to-v1", "convert-v1-to-v1beta1-keeps-what-v1beta1-cannot-hold",
                                  "mutate-create-defaults", "mutate-update-keeps-an-alpha-field-already-set",
                                  "validate-create-invalid", "validate-update-ratchets", "validate-does-not-decode"])  # fmt: skip
def test_msgspec_structs_answer_as_the_pydantic_models_do(struct_webhooks, name):
    data = json.loads((GOLDEN / f"{name}.json").read_text())
    answer = review(struct_webhooks, data["path"], data["request"])
    expected = data["response"]
    if name == "validate-does-not-decode":  # the decoders word a type mismatch each their way
        assert answer["response"]["status"]["code"] == 400
        assert answer["response"]["status"]["details"]["causes"][0]["field"] == "spec.replicas"
        return
    assert answer == expected


def _handshake(server_context, trusted: bytes) -> bytes:
    """The DER certificate a server context presents, from a TLS handshake in memory."""
    import ssl

    client_context = ssl.create_default_context(cadata=trusted.decode())
    client_context.check_hostname = False
    pipes = [ssl.MemoryBIO() for _ in range(4)]
    client = client_context.wrap_bio(pipes[0], pipes[1])
    server = server_context.wrap_bio(pipes[2], pipes[3], server_side=True)
    for _ in range(10):
        for side in (client, server):
            try:
                side.do_handshake()
            except ssl.SSLWantReadError:
                pass
        pipes[2].write(pipes[1].read())
        pipes[0].write(pipes[3].read())
        try:
            client.do_handshake()
            return client.getpeercert(binary_form=True)
        except ssl.SSLWantReadError:
            continue
    raise AssertionError("no handshake")


def test_a_renewed_certificate_is_loaded_only_once_its_key_is_there_too(tmp_path):
    """Caught between the certificate and the key being replaced, the serving context keeps
    the old pair and keeps answering handshakes; once both are there, it serves the new one."""
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    from kgen.webhook.serving import CertificateReloader

    first = _write_pair(tmp_path, "first")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "tls.crt", tmp_path / "tls.key")
    said: list[str] = []
    reloader = CertificateReloader(context, tmp_path / "tls.crt", tmp_path / "tls.key", said.append)
    assert reloader.check() is False and said == []
    old_key = (tmp_path / "tls.key").read_bytes()
    second = _write_pair(tmp_path, "second")
    new_key = (tmp_path / "tls.key").read_bytes()
    (tmp_path / "tls.key").write_bytes(old_key)  # the certificate is new, the key not yet
    assert reloader.check() is False and "keeping the old pair" in said[-1]
    der = lambda pem: x509.load_pem_x509_certificate(pem).public_bytes(Encoding.DER)  # noqa: E731
    assert _handshake(context, first) == der(first)
    (tmp_path / "tls.key").write_bytes(new_key)
    assert reloader.check() is True and "loaded the new certificate" in said[-1]
    assert _handshake(context, second) == der(second)
