"""Conversion: the guide's cases in the example API, automatic shapes, hook discovery."""

from __future__ import annotations

import sys

import pytest

from conftest import REPO
from kgen.diagnostics import InputError
from kgen.runtime.conversion import Scope

sys.path.insert(0, str(REPO))

from generated.example import models as internal  # noqa: E402
from generated.example.v1 import Frobber as FrobberV1  # noqa: E402
from generated.example.v1 import conversion as v1  # noqa: E402
from generated.example.v1beta1 import Frobber as FrobberBeta  # noqa: E402
from generated.example.v1beta1 import FrobberList as FrobberListBeta  # noqa: E402
from generated.example.v1beta1 import conversion as beta  # noqa: E402
from generated.example.v1beta1.defaulters import set_object_defaults_Frobber as default_beta  # noqa: E402

GATE_ON = Scope({"FrobberTurbo": True})


def beta_object(spec: str) -> FrobberBeta:
    obj = FrobberBeta.from_json(b'{"metadata":{"name":"f"},"spec":' + spec.encode() + b"}")
    default_beta(obj)
    return obj


# -- a singular field made plural (v1beta1 param, internal params) ------------------------


@pytest.mark.parametrize(
    "spec, params, served_param",
    [
        ('{"param": "x"}', ["x"], "x"),  # old client: the singular alone
        ('{"params": ["a", "b"]}', ["a", "b"], "a"),  # new client: the plural alone
        ('{"param": "a", "params": ["a", "b"]}', ["a", "b"], "a"),  # both, consistent
        ("{}", None, ""),
    ],
)
def test_create(spec, params, served_param):
    stored = beta.to_internal_Frobber(beta_object(spec))
    assert stored.spec.params == params
    served = beta.from_internal_Frobber(stored)
    assert (served.spec.param, served.spec.params) == (served_param, params)


def _update(stored: internal.Frobber, edit) -> internal.Frobber:
    served = beta.from_internal_Frobber(stored)
    edit(served.spec)
    default_beta(served)
    return beta.to_internal_Frobber(served, Scope().for_update(stored))


STORED = '{"params": ["a", "b"]}'


def test_update_old_client_changes_the_singular():
    stored = beta.to_internal_Frobber(beta_object(STORED))
    assert _update(stored, lambda spec: setattr(spec, "param", "c")).spec.params == ["c"]


def test_update_old_client_clears_the_singular():
    stored = beta.to_internal_Frobber(beta_object(STORED))
    assert _update(stored, lambda spec: setattr(spec, "param", "")).spec.params is None


def test_update_old_client_replacing_the_object_without_the_plural():
    stored = beta.to_internal_Frobber(beta_object(STORED))

    def old_client(spec):  # an old client knows no `params`: its PUT carries none
        spec.params = None
        spec.param = "z"

    assert _update(stored, old_client).spec.params == ["z"]


def test_update_new_client_changes_the_plural():
    stored = beta.to_internal_Frobber(beta_object(STORED))
    assert _update(stored, lambda spec: setattr(spec, "params", ["b", "c"])).spec.params == ["b", "c"]


def test_update_without_changes_keeps_both():
    stored = beta.to_internal_Frobber(beta_object(STORED))
    assert _update(stored, lambda spec: None).spec.params == ["a", "b"]


# -- a renamed field and fields newer than v1beta1 ---------------------------------------------


def test_renamed_field_with_units():
    stored = beta.to_internal_Frobber(beta_object('{"height": 70}'))
    assert stored.spec.height_in_inches == 70
    assert beta.from_internal_Frobber(stored).spec.height == 70
    assert v1.from_internal_Frobber(stored).spec.height_in_inches == 70


def test_fields_newer_than_v1beta1_are_not_served_by_it():
    stored = v1.to_internal_Frobber(FrobberV1.from_json(b'{"spec":{"width":3,"ports":[{"name":"p","port":1,"targetPort":8}]}}'))
    served = beta.from_internal_Frobber(stored)
    assert "width" not in served.to_dict()["spec"] and "targetPort" not in served.to_dict()["spec"]["ports"][0]


# -- a feature-gated alpha field --------------------------------------------------------------

TURBO = b'{"spec":{"turbo":true}}'


@pytest.mark.parametrize("convert", [v1.to_internal_Frobber, beta.to_internal_Frobber])
def test_gate_off_drops_the_field_on_create(convert):
    obj = (FrobberV1 if convert is v1.to_internal_Frobber else FrobberBeta).from_json(TURBO)
    assert convert(obj).spec.turbo is None
    assert convert(obj, GATE_ON).spec.turbo is True


def test_gate_off_keeps_the_field_on_update_when_already_set():
    stored = v1.to_internal_Frobber(FrobberV1.from_json(TURBO), GATE_ON)
    update = FrobberV1.from_json(b'{"spec":{"turbo":false,"replicas":2}}')
    assert v1.to_internal_Frobber(update, Scope().for_update(stored)).spec.turbo is False


def test_gate_off_drops_the_field_on_update_when_not_set_before():
    stored = v1.to_internal_Frobber(FrobberV1.from_json(b'{"spec":{}}'))
    assert v1.to_internal_Frobber(FrobberV1.from_json(TURBO), Scope().for_update(stored)).spec.turbo is None


# -- what the generated code does by itself ----------------------------------------------------


def test_objects_carry_their_own_version_and_share_nothing():
    source = FrobberV1.from_json(
        b'{"metadata":{"name":"f","labels":{"a":"1"}},"spec":{"ports":[{"name":"p","port":1}],'
        b'"extraArgs":{"k":["v"]},"resources":{"cpu":"1"},"config":{"x":[1]}}}'
    )
    stored = v1.to_internal_Frobber(source)
    assert (stored.kind, stored.api_version) == ("", "")
    assert stored.spec.extra_args == {"k": ["v"]} and stored.spec.resources == {"cpu": "1"}
    stored.metadata.labels["b"] = "2"
    stored.spec.ports[0].name = "changed"
    stored.spec.extra_args["k"].append("w")
    stored.spec.config.raw["x"].append(2)
    assert source.to_json() == FrobberV1.from_json(source.to_json()).to_json()
    assert source.metadata.labels == {"a": "1"} and source.spec.ports[0].name == "p"
    assert source.spec.extra_args == {"k": ["v"]} and source.spec.config.raw == {"x": [1]}
    back = v1.from_internal_Frobber(stored)
    assert (back.kind, back.api_version) == ("Frobber", "example.kgen.dev/v1")


def test_converted_fields_are_marked_set_and_a_shared_fields_set_is_left_alone():
    source = FrobberV1.from_json(b'{"spec":{"description":"d"}}')
    converted = v1.to_internal_Frobber(source)
    assert converted.spec.model_fields_set >= {"description", "replicas", "ports"}
    assert converted.spec.model_dump(exclude_unset=True)["description"] == "d"

    original = internal.FrobberSpec()
    target = original.deep_copy()  # shares its fields set with `original`
    v1.convert_v1_FrobberSpec_to_internal_FrobberSpec(source.spec, target, Scope())
    assert target.description == "d" and "description" in target.model_fields_set
    assert original.model_fields_set == set()


def test_kinds_and_lists_are_registered_both_ways():
    assert v1.TO_INTERNAL[FrobberV1] is v1.to_internal_Frobber
    assert v1.FROM_INTERNAL[internal.Frobber] is v1.from_internal_Frobber
    assert set(beta.TO_INTERNAL) == {FrobberBeta, FrobberListBeta}


# -- hook discovery -----------------------------------------------------------------------------

INTERNAL_TYPES = "package shapes\n\ntype Thing struct {\n\tName string `json:\"name\"`\n\tSize int64 `json:\"size\"`\n}\n"
EXTERNAL_TYPES = (
    "package v1\n\ntype Thing struct {\n\tName string `json:\"name\"`\n\tSize int32 `json:\"size\"`\n"
    "\tExtra string `json:\"extra\"`\n}\n"
)
FILES = {
    "shapes/doc.go": "// +groupName=shapes.example.com\npackage shapes\n",
    "shapes/types.go": INTERNAL_TYPES,
    "shapes/v1/doc.go": "// +groupName=shapes.example.com\npackage v1\n",
    "shapes/v1/types.go": EXTERNAL_TYPES,
}


def test_missing_hook_is_an_error_with_the_function_to_write(generate_project):
    from conftest import _projects

    with pytest.raises(InputError) as caught:
        generate_project(FILES)
    n = _projects + 1
    messages = [str(d) for d in caught.value.diagnostics]
    assert messages[0] == (
        f"api{n}/shapes/v1/types.go:3:6: error: converting internal Thing to v1 Thing needs a hand-written hook: "
        "fields whose types differ: Size (int64 -> int32). "
        f"Write in api{n}/shapes/v1/conversion.py:\n\n"
        "def convert_internal_Thing_to_v1_Thing(src, dst, scope):\n"
        "    auto_convert_internal_Thing_to_v1_Thing(src, dst, scope)  # from the generated conversion module\n"
        "    # Size (int64 -> int32): convert by hand\n"
    )
    assert messages[1].startswith(
        f"api{n}/shapes/v1/types.go:3:6: error: converting v1 Thing to internal Thing needs a hand-written hook: "
        "fields with no counterpart in internal: Extra (extra); fields whose types differ: Size (int32 -> int64)."
    )


def test_hooks_are_found_and_called(generate_project):
    hooks = (
        "from {out}.shapes.v1 import conversion as generated\n\n\n"
        "def convert_internal_Thing_to_v1_Thing(src, dst, scope):\n"
        "    generated.auto_convert_internal_Thing_to_v1_Thing(src, dst, scope)\n"
        "    dst.size = min(src.size, 2**31 - 1)\n\n\n"
        "def convert_v1_Thing_to_internal_Thing(src, dst, scope):\n"
        "    generated.auto_convert_v1_Thing_to_internal_Thing(src, dst, scope)\n"
        "    dst.size = src.size\n"
    )
    from conftest import _projects

    module, _ = generate_project(FILES | {"shapes/v1/conversion.py": hooks.format(out=f"out{_projects + 1}")})
    conversion = module("shapes.v1.conversion")
    internal_thing = conversion.to_internal_Thing(module("shapes.v1").Thing(name="n", size=3, extra="e"))
    assert (internal_thing.name, internal_thing.size) == ("n", 3)
    big = module("shapes.models").Thing(name="n", size=2**40)
    assert conversion.from_internal_Thing(big).size == 2**31 - 1


def test_hook_with_wrong_parameters_is_an_error(generate_project):
    from conftest import _projects

    hooks = "def convert_internal_Thing_to_v1_Thing(src, dst):\n    pass\n\n\ndef convert_v1_Thing_to_internal_Thing(src, dst, scope):\n    pass\n"
    with pytest.raises(InputError) as caught:
        generate_project(FILES | {"shapes/v1/conversion.py": hooks})
    assert [str(d) for d in caught.value.diagnostics] == [
        f"api{_projects + 1}/shapes/v1/conversion.py:1:1: error: convert_internal_Thing_to_v1_Thing takes 2 required "
        "parameters; kgen calls it as `convert_internal_Thing_to_v1_Thing(src, dst, scope)`, so write "
        "`def convert_internal_Thing_to_v1_Thing(src, dst, scope):`"
    ]


def test_markers_drop_fields_and_opt_types_out(generate_project):
    external = (
        "package v1\n\ntype Thing struct {\n\tName string `json:\"name\"`\n\t// +k8s:conversion-fn=drop\n"
        "\tSize int32 `json:\"size\"`\n\t// +k8s:conversion-gen=false\n\tExtra string `json:\"extra\"`\n}\n\n"
        "// +k8s:conversion-gen=false\ntype Other struct {\n\tX int `json:\"x\"`\n}\n"
    )
    internal_types = INTERNAL_TYPES + "\ntype Other struct {\n\tY string `json:\"y\"`\n}\n"
    files = FILES | {"shapes/v1/types.go": external, "shapes/types.go": internal_types}
    internal_types_with_size = files["shapes/types.go"].replace("\tSize int64 `json:\"size\"`\n", "\t// +k8s:conversion-fn=drop\n\tSize int64 `json:\"size\"`\n")
    module, result = generate_project(files | {"shapes/types.go": internal_types_with_size})
    conversion = module("shapes.v1.conversion")
    assert not hasattr(conversion, "to_internal_Other")
    assert conversion.to_internal_Thing(module("shapes.v1").Thing(name="n", size=5, extra="e")).size == 0
