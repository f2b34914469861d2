"""The commands that hold kgen's servers against a real API server: the behavioural suite
run on a kubeconfig's server (`bench.conformance.cluster`) and the differential run
(`bench.conformance.differential`). Here both are pointed at a `kgen serve`, where every
check must pass and every answer agree, and the differential run's comparison is shown to
tell apart what differs by nature from what differs in behaviour."""

from __future__ import annotations

import random
import re

import httpx
import pytest

from bench.conformance import cluster, differential
from tests.serve_fixtures import ServeProcess


def _response(code: int, body: dict, warnings: tuple[str, ...] = ()) -> httpx.Response:
    return httpx.Response(code, json=body, headers=[("Warning", w) for w in warnings])


def _widget(uid: str, rv: str, replicas: int = 3) -> dict:
    return {
        "apiVersion": "shop.example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": uid, "resourceVersion": rv, "generation": 1,
                     "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": [{"manager": "x"}]},
        "spec": {"color": "red", "replicas": replicas},
    }  # fmt: skip


def test_answers_that_differ_only_in_uids_versions_and_times_agree():
    a = differential.normal(_response(201, _widget("0b7d3c52-1111-4a4a-9c9c-0123456789ab", "17")))
    b = differential.normal(_response(201, _widget("9f0e1d2c-2222-4b4b-8d8d-ba9876543210", "4")))
    assert differential.first_difference(a, b) is None
    conflict = 'Operation cannot be fulfilled on widgets.shop.example.com "w": the object has been modified; resourceVersion: "12"'
    a = differential.normal(_response(409, {"kind": "Status", "message": conflict}))
    b = differential.normal(_response(409, {"kind": "Status", "message": conflict.replace("12", "3")}))
    assert differential.first_difference(a, b) is None


def test_a_difference_of_behaviour_is_found_where_it_is():
    uid = "0b7d3c52-1111-4a4a-9c9c-0123456789ab"
    a = differential.normal(_response(201, _widget(uid, "1", replicas=3)))
    b = differential.normal(_response(201, _widget(uid, "1", replicas=0)))
    assert differential.first_difference(a, b) == ".body.spec.replicas"
    warned = differential.normal(_response(201, _widget(uid, "1"), ('299 - "unknown field \\"spec.x\\""',)))
    assert (
        differential.first_difference(differential.normal(_response(201, _widget(uid, "1"))), warned)
        == ".warnings[len]"
    )
    causes = [{"reason": "FieldValueRequired", "field": "spec.color"}]
    a = differential.normal(_response(422, {"kind": "Status", "details": {"causes": causes}}))
    b = differential.normal(_response(422, {"kind": "Status", "details": {"causes": [{**causes[0], "field": "spec"}]}}))
    assert differential.first_difference(a, b) == ".body.details.causes[0].field"
    assert differential.first_difference(a, {**a, "code": 400}) == ".code"


def test_random_objects_follow_the_schema_and_are_sometimes_spoiled():
    """Most drawn objects have the schema's types; some carry a value of the wrong type or
    an unknown field (what exercises pruning and validation)."""
    import yaml

    schema = yaml.safe_load(differential.CERTIFICATE_CRD)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    draw = differential.Draw(random.Random(3))
    specs = [draw.object(schema, 0).get("spec") for _ in range(300)]
    typed = [s for s in specs if isinstance(s, dict)]
    assert len(typed) > 250
    assert any(isinstance(s.get("secretName"), str) for s in typed)
    assert any("renewals" in s and not isinstance(s["renewals"], int) for s in typed)
    assert any(set(s) - set(schema["properties"]["spec"]["properties"]) for s in typed)


@pytest.mark.slow
def test_a_kgen_serve_passes_the_suite_and_agrees_with_itself(capsys):
    """Both commands, pointed at a kgen serve, find nothing: the suite's checks pass there
    (with its CRDs installed over the API, replacing the ones kgen serve installed at start)
    and two kgen serves answer the same random requests alike."""
    with ServeProcess("--no-auth") as server:
        assert cluster.main(["--kubeconfig", str(server.kubeconfig)]) == 0
        printed = capsys.readouterr().out
        passed = re.search(r"^(\d+) of (\d+) checks pass on the real server \((\d+) fail, (\d+) skipped", printed, re.M)
        assert passed, printed[-2000:]
        assert passed.group(1) == passed.group(2) and int(passed.group(2)) >= 58 and passed.group(4) == "0"
        assert differential.main(["--reference", str(server.kubeconfig), "--cases", "40", "--seed", "5"]) == 0
        printed = capsys.readouterr().out
        alike = re.search(r"^(\d+) of (\d+) requests answered alike", printed, re.M)
        assert alike and alike.group(1) == alike.group(2) and int(alike.group(2)) > 100, printed[-2000:]
        assert re.search(r"create 201x\d+", printed) and re.search(r"create[^;]* 422x\d+", printed)


def test_the_causes_of_an_invalid_object_compare_in_any_order():
    """A cluster lists an object's properties in Go's map order: the same errors in another
    order agree, other errors do not."""
    a, b = {"field": "spec.a", "reason": "FieldValueRequired", "message": "Required value"}, {
        "field": "spec.b", "reason": "FieldValueInvalid", "message": 'Invalid value: "x": bad'}  # fmt: skip

    def status(*causes: dict) -> dict:
        listed = ", ".join(f"{c['field']}: {c['message']}" for c in causes)
        return {"kind": "Status", "message": f'W "w" is invalid: [{listed}]', "details": {"causes": list(causes)}}

    first, second = differential.normal(_response(422, status(a, b))), differential.normal(_response(422, status(b, a)))
    assert differential.first_difference(first, second) is None
    other = differential.normal(_response(422, status(a, {**b, "message": 'Invalid value: "y": bad'})))
    assert differential.first_difference(first, other) is not None
