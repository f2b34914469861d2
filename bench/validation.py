"""Generated validation against JSON Schema validators checking the same object.

A user without generated validators would validate the object's JSON against a schema
(what a CRD's openAPIV3Schema is): `jsonschema` (the reference implementation) or
`fastjsonschema` (which compiles the schema to Python). The schema here is built from
the same IR constraints the generator reads (types, required, limits, patterns, enums,
formats, uniqueness); it cannot say list-map keys, unions, update rules, metadata rules
or hooks, which the generated validator also checks. Times are per object, best of 5.
"""

from __future__ import annotations

import json
import timeit
from typing import Any

from kgen.generators.python import INT_BITS
from kgen.ir.model import Constraints, TypeRef, Universe

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


class SchemaBuilder:
    """A JSON Schema (draft 7) of a type, from the IR constraints."""

    def __init__(self, universe: Universe):
        self.universe = universe
        self.definitions: dict[str, Any] = {}

    def document(self, package: str, name: str) -> dict[str, Any]:
        root = self.ref(TypeRef(kind="named", package=package, name=name), [])
        return {"$schema": "http://json-schema.org/draft-07/schema#", **root, "definitions": self.definitions}

    def ref(self, ref: TypeRef, constraints: list[Constraints]) -> dict[str, Any]:
        while ref.kind == "pointer":
            ref = ref.elem
        schema: dict[str, Any] = {}
        if ref.kind == "named":
            typedef = self.universe.resolve(ref)
            if typedef.kind == "struct":
                key = f"{typedef.package.replace('/', '.')}.{typedef.name}"
                if key not in self.definitions:
                    self.definitions[key] = {}
                    self.definitions[key] = self.struct(typedef)
                schema = {"$ref": f"#/definitions/{key}"}
            elif typedef.kind == "python":
                schema = {"integer": {"type": "integer"}, "string": {"type": "string"}}.get(typedef.json_type or "", {})
            else:
                if typedef.is_enum:
                    schema["enum"] = sorted(str(e.value) for e in typedef.enum_values if not e.excluded_when)
                inner = self.ref(typedef.underlying, [typedef.validation])
                schema = {**inner, **schema}
        elif ref.kind == "basic":
            schema = {"type": "string" if ref.basic in ("string", "bytes") else "boolean" if ref.basic == "bool"
                      else "integer" if ref.basic in INT_BITS else "number"}  # fmt: skip
        elif ref.kind == "slice":
            items = [c.items for c in constraints if c.items is not None]
            schema = {"type": "array", "items": self.ref(ref.elem, items)}
        elif ref.kind == "map":
            values = [c.items for c in constraints if c.items is not None]
            schema = {"type": "object", "additionalProperties": self.ref(ref.elem, values)}
        for c in constraints:
            schema.update(self.keywords(c))
        return schema

    @staticmethod
    def keywords(c: Constraints) -> dict[str, Any]:
        out: dict[str, Any] = {}
        pairs = {
            "minimum": c.minimum, "maximum": c.maximum, "multipleOf": c.multiple_of, "minLength": c.min_length,
            "maxLength": c.max_length, "pattern": c.pattern, "minItems": c.min_items, "maxItems": c.max_items,
            "minProperties": c.min_properties, "maxProperties": c.max_properties, "format": c.format,
        }  # fmt: skip
        out.update({k: v for k, v in pairs.items() if v is not None})
        if c.exclusive_minimum and c.minimum is not None:
            out["exclusiveMinimum"] = out.pop("minimum")
        if c.exclusive_maximum and c.maximum is not None:
            out["exclusiveMaximum"] = out.pop("maximum")
        if c.enum is not None:
            out["enum"] = list(c.enum)
        if c.unique == "set":
            out["uniqueItems"] = True
        return out

    def struct(self, typedef) -> dict[str, Any]:
        properties = {f.json_name: self.ref(f.type, [f.validation]) for f in typedef.fields}
        required = sorted(f.json_name for f in typedef.fields if f.validation.presence == "required")
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            schema["required"] = required
        return schema


def _best(statement, number: int) -> float:
    return min(timeit.repeat(statement, number=number, repeat=5)) / number


def run(universe: Universe) -> list[str]:
    import fastjsonschema
    import jsonschema

    from generated.example.v1 import validation
    from generated.example.v1.models import Frobber

    schema = SchemaBuilder(universe).document("kgen.dev/example/apis/example/v1", "Frobber")
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
