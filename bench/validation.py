"""Generated validation against JSON Schema validators checking the same object.

A user without generated validators would validate the object's JSON against a schema
(what a CRD's openAPIV3Schema is): `jsonschema` (the reference implementation) or
`fastjsonschema` (which compiles the schema to Python). The schema is the one kgen
publishes for Frobber in `openapi/swagger.json`, as a draft 7 document: types, required,
limits, patterns, enums, formats. JSON Schema validators skip its CEL rules
(`x-kubernetes-validations`) and cannot say list-map keys, update rules, metadata name
rules or hooks, which the generated validator also checks. Times are per object, best of 5.
"""

from __future__ import annotations

import json
import timeit
from typing import Any

from kgen.generators.schema import SchemaBuilder
from kgen.ir.model import Universe

OBJECT = {
    "apiVersion": "example.kgen.dev/v1",
    "kind": "Frobber",
    "metadata": {"name": "demo", "namespace": "default", "labels": {"app.kubernetes.io/name": "demo"}},
    "spec": {
        "description": "frobs widgets",
        "priority": 5,
        "replicas": 3,
        "mode": "Gentle",
        "params": [f"p{i}" for i in range(10)],
        "ports": [{"name": f"port-{i}", "port": 8000 + i, "protocol": "TCP"} for i in range(8)],
        "source": {"type": "Git", "git": {"url": "https://example.com/repo.git", "revision": "main"}},
        "extraArgs": {"widget": ["--fast", "--loud"], "gadget": ["--slow"]},
        "schedule": {
            "trigger": "Cron",
            "cron": "0 * * * *",
            "startHour": 8,
            "endHour": 18,
            "weekdays": ["Mon", "Tue", "Wed"],
            "timeZone": "Europe/Paris",
            "owner": "ops@example.com",
            "window": "90m",
            "widgetLabels": {"example.com/frobbed": "yes", "tier": "gold"},
        },
    },
    "status": {"observedGeneration": 2, "readyReplicas": 1},
}


def draft7_schema(universe: Universe, package: str, name: str) -> dict[str, Any]:
    """The OpenAPI v2 definitions kgen publishes (`kgen.generators.schema`), as a draft 7
    document: the same schema a client or CRD validation would check."""
    builder = SchemaBuilder(universe, "v2")
    root = builder.define(universe.package(package).type(name))
    document = {"$schema": "http://json-schema.org/draft-07/schema#", "$ref": builder.ref_path(root),
                "definitions": builder.definitions}  # fmt: skip
    return _draft7(document)


def _draft7(schema: Any) -> Any:
    """OpenAPI's boolean exclusiveMinimum/Maximum become draft 7's numeric ones."""
    if isinstance(schema, list):
        return [_draft7(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _draft7(value) for key, value in schema.items()}
    for bound in ("Minimum", "Maximum"):
        if out.get(f"exclusive{bound}") is True:
            out[f"exclusive{bound}"] = out.pop(bound.lower())
    return out


def _best(statement, number: int) -> float:
    return min(timeit.repeat(statement, number=number, repeat=5)) / number


def run(universe: Universe) -> list[str]:
    import fastjsonschema
    import jsonschema

    from generated.example.v1 import validation
    from generated.example.v1.models import Frobber

    schema = draft7_schema(universe, "kgen.dev/example/apis/example/v1", "Frobber")
    data = json.loads(json.dumps(OBJECT))
    obj = Frobber.from_dict(data)
    assert validation.validate_Frobber(obj) == [], validation.validate_Frobber(obj)
    # Both get kgen's format checks for the formats JSON Schema does not know.
    from kgen.runtime.validation.formats import FORMATS

    checker = jsonschema.FormatChecker()
    extra = {}
    for name, check in FORMATS.items():
        if name not in checker.checkers:
            checker.checks(name)(lambda value, check=check: not isinstance(value, str) or not check(value))
            extra[name] = lambda value, check=check: not check(value)
    reference = jsonschema.Draft7Validator(schema, format_checker=checker)
    assert not list(reference.iter_errors(data))
    compiled = fastjsonschema.compile(schema, formats=extra)
    compiled(data)

    generated = _best(lambda: validation.validate_Frobber(obj), 2000)
    changed = Frobber.from_dict({**data, "spec": {**data["spec"], "replicas": 4}})
    update = _best(lambda: validation.validate_Frobber_update(changed, obj), 2000)
    with_reference = _best(lambda: list(reference.iter_errors(data)), 100)
    with_compiled = _best(lambda: compiled(data), 2000)
    return [
        "validation of one Frobber (8 ports, schedule, source union; every check passes):",
        f"  generated validate_Frobber:          {generated * 1e6:8.1f} us",
        f"  generated validate_Frobber_update:   {update * 1e6:8.1f} us  (one field changed: the rest is ratcheted)",
        f"  jsonschema Draft7Validator:          {with_reference * 1e6:8.1f} us  -> generated is {with_reference / generated:5.1f}x faster",
        f"  fastjsonschema (compiled):           {with_compiled * 1e6:8.1f} us  -> generated is {with_compiled / generated:5.2f}x as fast",
        "  (the schema checks types, limits, patterns, enums, formats; the generated validator also checks",
        "   list-map keys, unions, CEL rules, metadata and hooks)",
    ]
