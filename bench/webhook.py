"""The generated webhook application against what a user would otherwise write, reviews per
second on one core (one thread; the best of 9 rounds in which every contender runs in
turn), from the request's bytes to the answer's.

- Conversion: a ConversionReview of a list page of 100 Frobbers, v1beta1 -> v1 (nothing is
  lost) and v1 -> v1beta1 (what v1beta1 cannot hold kept in the annotation; and without
  that, `preserve=False`). The alternative is the plain pydantic handler one writes without
  generated conversions: `model_validate` of the v1beta1 model, `model_dump`, the renamed
  fields moved by hand, `model_validate` of the v1 model, `model_dump` (no hooks, no Go
  JSON, zero values dropped).
- Validation: an AdmissionReview creating one Frobber (every check passes), and an update
  of it. The alternative validates the object against the Frobber schema kgen publishes
  with `fastjsonschema` (compiled) or `jsonschema` (no update rules, hooks, CEL or metadata
  rules, which the webhook also checks).
- Mutation: an AdmissionReview creating one Frobber that needs its defaults.

Both sides parse the body with orjson and write the answer with orjson (kgen through its
Go JSON writer).
"""

from __future__ import annotations

import copy
import json
import timeit
from typing import Any

import orjson

from bench.validation import OBJECT, draft7_schema
from kgen.ir.model import Universe

GROUP = "example.kgen.dev"


def _race(statements: dict[str, tuple[Any, int]], repeat: int = 9) -> dict[str, float]:
    """The best time per call of each statement, the statements taking turns in each round,
    so that a busy machine slows all of them alike."""
    best = {name: float("inf") for name in statements}
    for _ in range(repeat):
        for name, (statement, number) in statements.items():
            best[name] = min(best[name], timeit.timeit(statement, number=number) / number)
    return best


def _beta_frobber(index: int) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/v1beta1", "kind": "Frobber",
        "metadata": {"name": f"frobber-{index}", "namespace": "production", "uid": f"6f1c0c1e-0000-4000-8000-{index:012d}",
                     "resourceVersion": str(100000 + index), "generation": 3, "creationTimestamp": "2026-01-10T09:00:00Z",
                     "labels": {f"app.example.com/label-{i}": f"value-{i}" for i in range(6)}},
        "spec": {"description": "frobs widgets", "priority": index % 7, "param": "p0",
                 "params": [f"p{i}" for i in range(5)], "height": 40 + index % 20, "replicas": 3, "mode": "Gentle",
                 "ports": [{"name": f"port-{i}", "port": 8000 + i, "protocol": "TCP"} for i in range(4)],
                 "resources": {"cpu": "500m", "memory": "1Gi"},
                 "selector": {"matchLabels": {"app": "widgets"}}, "maxUnavailable": "25%"},
        "status": {"observedGeneration": 3, "phase": "Running",
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-10T09:00:00Z",
                                   "reason": "Frobbing", "message": "all workers frob"}]},
    }  # fmt: skip


def _conversion_body(desired: str, objects: list[dict[str, Any]]) -> bytes:
    review = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
              "request": {"uid": "bench", "desiredAPIVersion": desired, "objects": objects}}  # fmt: skip
    return orjson.dumps(review)


def _admission_body(operation: str, obj: dict[str, Any], old: dict[str, Any] | None = None) -> bytes:
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "bench", "kind": {"group": GROUP, "version": "v1", "kind": "Frobber"},
        "resource": {"group": GROUP, "version": "v1", "resource": "frobbers"}, "operation": operation,
        "name": obj["metadata"]["name"], "namespace": obj["metadata"]["namespace"],
        "userInfo": {"username": "bench"}, "object": obj, "oldObject": old, "dryRun": False}}  # fmt: skip
    return orjson.dumps(review)


def plain_pydantic_conversion(body: bytes) -> bytes:
    """A v1beta1 -> v1 conversion webhook written with pydantic alone."""
    from generated.example.v1 import models as v1
    from generated.example.v1beta1 import models as v1beta1

    review = orjson.loads(body)
    converted = []
    for obj in review["request"]["objects"]:
        data = v1beta1.Frobber.model_validate(obj).model_dump(by_alias=True, exclude_none=True, mode="json")
        spec = data.get("spec", {})
        param = spec.pop("param", "")
        if not spec.get("params") and param:
            spec["params"] = [param]
        if "height" in spec:
            spec["heightInInches"] = spec.pop("height")
        data["apiVersion"] = f"{GROUP}/v1"
        converted.append(v1.Frobber.model_validate(data).model_dump(by_alias=True, exclude_none=True, mode="json"))
    response = {"uid": review["request"]["uid"], "convertedObjects": converted, "result": {"status": "Success"}}
    return orjson.dumps({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": response})


def _schema_validating(validate: Any) -> Any:
    def handle(body: bytes) -> bytes:
        review = orjson.loads(body)
        request = review["request"]
        response: dict[str, Any] = {"uid": request["uid"], "allowed": True}
        try:
            validate(request["object"])
        except Exception as error:  # noqa: BLE001 - either library's error is a denial
            response = {"uid": request["uid"], "allowed": False, "status": {"code": 422, "message": str(error)}}
        return orjson.dumps({"apiVersion": review["apiVersion"], "kind": "AdmissionReview", "response": response})

    return handle


def run(universe: Universe) -> list[str]:
    import fastjsonschema
    import jsonschema

    import generated.webhook as generated_webhook
    from kgen.runtime import gojson
    from kgen.webhook import Webhooks

    webhooks = generated_webhook.webhooks()
    plain = Webhooks(generated_webhook.RESOURCES, generated_webhook.ROUTES, preserve=False)

    def ours(app: Webhooks, path: str) -> Any:
        return lambda body: gojson.marshal_struct(app.review(path, orjson.loads(body)))

    page = [_beta_frobber(i) for i in range(100)]
    to_v1 = _conversion_body(f"{GROUP}/v1", page)
    v1_page = orjson.loads(ours(webhooks, "/convert")(to_v1))["response"]["convertedObjects"]
    for obj in v1_page:  # fields v1beta1 cannot hold, for the way back
        obj["spec"].update({"width": 12, "interval": "5m0s", "extraArgs": {"gear": ["--teeth=12"]}})
    to_beta = _conversion_body(f"{GROUP}/v1beta1", v1_page)
    converted = orjson.loads(ours(webhooks, "/convert")(to_beta))["response"]
    assert converted["result"]["status"] == "Success" and f"{GROUP}/conversion-data" in json.dumps(converted)
    assert len(orjson.loads(plain_pydantic_conversion(to_v1))["response"]["convertedObjects"]) == 100

    schema = draft7_schema(universe, "kgen.dev/example/apis/example/v1", "Frobber")
    compiled = fastjsonschema.compile(schema)
    reference = jsonschema.Draft7Validator(schema)
    valid = copy.deepcopy(OBJECT)
    create = _admission_body("CREATE", valid)
    changed = copy.deepcopy(valid)
    changed["spec"]["replicas"] = 4
    update = _admission_body("UPDATE", changed, valid)
    validate = ours(webhooks, "/validate-example-kgen-dev-v1-frobber")
    assert orjson.loads(validate(create))["response"]["allowed"] is True
    assert orjson.loads(validate(update))["response"]["allowed"] is True
    bare = copy.deepcopy(valid)
    for key in ("replicas", "mode"):
        bare["spec"].pop(key)
    mutate = ours(webhooks, "/mutate-example-kgen-dev-v1-frobber")
    assert "patch" in orjson.loads(mutate(_admission_body("CREATE", bare)))["response"]

    timings = _race({
        "convert": (lambda: ours(webhooks, "/convert")(to_v1), 10),
        "convert unchecked": (lambda: ours(plain, "/convert")(to_v1), 10),
        "plain": (lambda: plain_pydantic_conversion(to_v1), 10),
        "convert back": (lambda: ours(webhooks, "/convert")(to_beta), 5),
        "convert back lossy": (lambda: ours(plain, "/convert")(to_beta), 5),
        "validate": (lambda: validate(create), 200),
        "validate update": (lambda: validate(update), 200),
        "fastjsonschema": (lambda: _schema_validating(compiled)(create), 200),
        "jsonschema": (lambda: _schema_validating(reference.validate)(create), 20),
        "mutate": (lambda: mutate(_admission_body("CREATE", bare)), 200),
    })  # fmt: skip
    rate = {name: 1 / seconds for name, seconds in timings.items()}
    ratio = timings["plain"] / timings["convert"]
    return [
        "webhook reviews per second on one core (body bytes in, answer bytes out; best of 9 rounds):",
        "  conversion, a list of 100 Frobbers:",
        f"    kgen v1beta1 -> v1 (hub, hooks, Go JSON):          {rate['convert']:8.1f} reviews/s"
        f"  ({timings['convert'] * 1e3:6.1f} ms)",
        f"    plain pydantic handler (validate/dump by hand):    {rate['plain']:8.1f} reviews/s"
        f"  -> kgen is {ratio:4.2f}x {'faster' if ratio >= 1 else 'as fast'}",
        f"    kgen v1beta1 -> v1 without the check for lost fields: {rate['convert unchecked']:6.1f} reviews/s"
        f"  ({timings['plain'] / timings['convert unchecked']:4.2f}x the plain handler)",
        f"    kgen v1 -> v1beta1, keeping what v1beta1 cannot hold: {rate['convert back']:6.1f} reviews/s;"
        f" without keeping it: {rate['convert back lossy']:6.1f}",
        "  validation, one Frobber (8 ports, schedule, source union):",
        f"    kgen create:                                       {rate['validate']:8.0f} reviews/s",
        f"    kgen update (ratcheting):                          {rate['validate update']:8.0f} reviews/s",
        f"    fastjsonschema (schema only):                      {rate['fastjsonschema']:8.0f} reviews/s"
        f"  -> kgen does {rate['validate'] / rate['fastjsonschema']:4.2f}x its reviews",
        f"    jsonschema (schema only):                          {rate['jsonschema']:8.0f} reviews/s"
        f"  -> kgen does {rate['validate'] / rate['jsonschema']:4.1f}x its reviews",
        f"  mutation (defaults as a JSON patch), one Frobber:    {rate['mutate']:8.0f} reviews/s",
    ]
