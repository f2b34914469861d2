"""What a Python user meets on a generated model besides JSON: its JSON Schema (FastAPI and
other tools ask pydantic for it), a repr of what was set, and pydantic v1's method names
doing what kgen's do."""

from __future__ import annotations

import warnings

from pydantic import TypeAdapter

from generated.example.v1 import models

BODY = b'{"kind":"Frobber","apiVersion":"example.kgen.dev/v1","metadata":{"name":"a"},"spec":{"replicas":2,"source":{}},"status":{}}'


def test_json_schema_of_a_kind_uses_json_names_and_the_openapi_forms_of_values():
    schema = models.Frobber.model_json_schema()
    items = TypeAdapter(models.FrobberList).json_schema()["properties"]["items"]["anyOf"][0]
    assert items == {"items": {"$ref": "#/$defs/Frobber"}, "type": "array"}
    meta = schema["$defs"]["ObjectMeta"]["properties"]
    assert "creationTimestamp" in meta and "creation_timestamp" not in meta
    assert {"format": "date-time", "type": "string"} in meta["creationTimestamp"]["anyOf"]
    spec = schema["$defs"]["FrobberSpec"]["properties"]
    max_unavailable = next(s for s in spec["maxUnavailable"]["anyOf"] if s.get("type") != "null")
    assert max_unavailable == {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
    resources = next(s for s in spec["resources"]["anyOf"] if s.get("type") != "null")
    assert resources["additionalProperties"]["anyOf"][0]["x-kubernetes-int-or-string"] is True


def test_repr_shows_what_was_set():
    frobber = models.Frobber.from_json(BODY)
    assert repr(frobber) == (
        "Frobber(kind='Frobber', api_version='example.kgen.dev/v1', metadata=ObjectMeta(name='a'), "
        "spec=FrobberSpec(replicas=2, source=FrobberSource()), status=FrobberStatus())"
    )
    assert repr(models.Frobber()) == "Frobber()"
    assert repr(models.FrobberPort(name="http")) == "FrobberPort(name='http')"


def test_pydantic_v1_names_write_and_read_go_json_without_warnings():
    frobber = models.Frobber.from_json(BODY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert frobber.json().encode() == frobber.to_json() == BODY
        assert frobber.dict() == frobber.to_dict()
        assert models.Frobber.parse_raw(frobber.json()) == frobber
        assert models.Frobber.parse_obj(frobber.dict()) == frobber
