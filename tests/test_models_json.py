"""Generated models write JSON byte-identical to Go's encoding/json and decode like the API server
(the rules both model backends share run on each: the `either` fixture).

Expected bytes were written from what encoding/json produces for the same struct tags.
"""

from __future__ import annotations

import importlib
import sys
from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from conftest import REPO, write_tree
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.timeutil import Time


SHAPES = """
                package v1

                import (
                    "k8s.io/apimachinery/pkg/api/resource"
                    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
                    "k8s.io/apimachinery/pkg/util/intstr"
                )

                type Inner struct {
                    N int32 `json:"n,omitempty"`
                }

                type Mode string

                const (
                    ModeA Mode = "A"
                    ModeB Mode = "B"
                )

                type Empty struct {
                    S     string            `json:"s,omitempty"`
                    I     int64             `json:"i,omitempty"`
                    F     float64           `json:"f,omitempty"`
                    B     bool              `json:"b,omitempty"`
                    P     *int32            `json:"p,omitempty"`
                    L     []string          `json:"l,omitempty"`
                    M     map[string]string `json:"m,omitempty"`
                    Raw   []byte            `json:"raw,omitempty"`
                    St    Inner             `json:"st,omitempty"`
                    T     metav1.Time       `json:"t,omitempty"`
                    TP    *metav1.Time      `json:"tp,omitempty"`
                    Q     resource.Quantity `json:"q,omitempty"`
                    IOS   intstr.IntOrString `json:"ios,omitempty"`
                    Mode  Mode              `json:"mode,omitempty"`
                }

                type Plain struct {
                    S   string            `json:"s"`
                    P   *int32            `json:"p"`
                    L   []string          `json:"l"`
                    M   map[string]string `json:"m"`
                    Raw []byte            `json:"raw"`
                    St  Inner             `json:"st"`
                    T   metav1.Time       `json:"t"`
                    Q   resource.Quantity `json:"q"`
                    D   *metav1.Duration  `json:"d"`
                }

                type Zero struct {
                    St Inner        `json:"st,omitzero"`
                    T  metav1.Time  `json:"t,omitzero"`
                    L  []string     `json:"l,omitzero"`
                    P  *int32       `json:"p,omitzero"`
                    Both []string   `json:"both,omitempty,omitzero"`
                }

                type Options struct {
                    Count  int64   `json:"count,string"`
                    Flag   bool    `json:"flag,string,omitempty"`
                    Ratio  float64 `json:"ratio"`
                    Hidden string  `json:"-"`
                    NoTag  string
                }
            """
"""One field of every shape and tag option (`Options` holds the `,string` fields msgspec refuses)."""


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    """A package with one field of every shape and tag option, generated and imported."""
    root = tmp_path_factory.mktemp("shapes")
    write_tree(
        root,
        {
            "apis/shapes/v1/types.go": SHAPES,
        },
    )
    from click.testing import CliRunner

    from kgen.cli import main

    result = CliRunner().invoke(
        main, ["generate", "--input", str(root / "apis"), "--output", str(root / "shapes_out"), "--module", "x.io/apis"]
    )
    assert result.exit_code == 0, result.output
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("shapes_out.shapes.v1")
    finally:
        sys.path.remove(str(root))


@pytest.fixture(scope="module", params=["pydantic", "msgspec"])
def either(request, tmp_path_factory):
    """The shapes on each model backend: the msgspec package has all but `Options`, whose
    `,string` fields the msgspec backend refuses (tests/test_models_msgspec.py)."""
    if request.param == "pydantic":
        yield request.getfixturevalue("shapes")
        return
    from click.testing import CliRunner

    from kgen.cli import main

    root = tmp_path_factory.mktemp("shapes-msgspec")
    write_tree(root, {"apis/shapes/v1/types.go": SHAPES[: SHAPES.index("type Options struct")]})
    arguments = ["--input", str(root / "apis"), "--output", str(root / "shapes_structs"), "--module", "x.io/apis"]
    result = CliRunner().invoke(main, ["generate", *arguments, "--models", "msgspec"])
    assert result.exit_code == 0, result.output
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("shapes_structs.shapes.v1")
    finally:
        sys.path.remove(str(root))


def test_omitempty_drops_exactly_what_go_drops(either):
    # Structs are never empty for omitempty; a zero metav1.Time marshals as null;
    # a zero Quantity as "0" and a zero IntOrString as 0 (both are structs in Go).
    assert either.Empty().to_json() == b'{"st":{},"t":null,"q":"0","ios":0}'


def test_omitempty_keeps_non_zero_values(either):
    value = either.Empty(
        s="x", i=-1, f=0.5, b=True, p=0, l=["a"], m={"k": "v"}, raw=b"\x00\xff", mode="B",
        tp=Time.from_datetime(datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)), q=Quantity("1.5Gi"), ios=IntOrString("50%"),
    )  # fmt: skip
    assert value.to_json() == (
        b'{"s":"x","i":-1,"f":0.5,"b":true,"p":0,"l":["a"],"m":{"k":"v"},"raw":"AP8=","st":{},'
        b'"t":null,"tp":"2024-01-02T03:04:05Z","q":"1536Mi","ios":"50%","mode":"B"}'
    )


def test_without_omitempty_nil_is_null_and_empty_is_empty(either):
    assert either.Plain().to_json() == (
        b'{"s":"","p":null,"l":null,"m":null,"raw":null,"st":{},"t":null,"q":"0","d":null}'
    )
    assert either.Plain(l=[], m={}, raw=b"").to_json() == (
        b'{"s":"","p":null,"l":[],"m":{},"raw":"","st":{},"t":null,"q":"0","d":null}'
    )


def test_omitzero(either):
    assert either.Zero().to_json() == b"{}"
    assert either.Zero(l=[], both=[]).to_json() == b'{"l":[]}'  # an empty slice is not zero; omitempty drops it
    assert either.Zero(st=either.Inner(n=1), p=0).to_json() == b'{"st":{"n":1},"p":0}'


def test_string_option_and_untagged_fields(shapes):
    value = shapes.Options(count=42, flag=True, ratio=1.0, no_tag="x")
    assert value.to_json() == b'{"count":"42","flag":"true","ratio":1,"NoTag":"x"}'
    decoded = shapes.Options.from_json(b'{"count":"7","flag":"false","ratio":2.5,"Hidden":"h","-":"x"}')
    assert (decoded.count, decoded.flag, decoded.ratio) == (7, False, 2.5)
    assert "hidden" not in shapes.Options.model_fields  # json:"-" is not part of the API


@pytest.mark.parametrize(
    "number, written",
    [(1.0, b"1"), (0.1, b"0.1"), (1e-05, b"0.00001"), (1e-07, b"1e-7"), (1e21, b"1e+21"), (123456.789, b"123456.789")],
)
def test_floats_are_formatted_as_go_formats_them(shapes, number, written):
    assert shapes.Options(ratio=number).to_json() == b'{"count":"0","ratio":' + written + b',"NoTag":""}'


@pytest.mark.parametrize(
    "number, written",
    [(1.0, b"1"), (0.1, b"0.1"), (1e-05, b"0.00001"), (1e-07, b"1e-7"), (1e21, b"1e+21"), (-2.5e-300, b"-2.5e-300")],
)
def test_float_fields_are_formatted_as_go_formats_them_on_either_backend(either, number, written):
    assert either.Empty(f=number).to_json() == b'{"f":' + written + b',"st":{},"t":null,"q":"0","ios":0}'


def test_map_keys_are_sorted_and_html_is_escaped(either):
    value = either.Empty(m={"b": "<a&b>", "a": "\u2028"})
    assert value.to_json() == b'{"m":{"a":"\\u2028","b":"\\u003ca\\u0026b\\u003e"},"st":{},"t":null,"q":"0","ios":0}'


def test_decode_null_means_zero_for_non_pointers(either):
    decoded = either.Plain.from_json(b'{"s":null,"st":null,"p":null,"l":null,"t":null,"q":null}')
    assert (decoded.s, decoded.st, decoded.p, decoded.l, decoded.t) == ("", either.Inner(), None, None, None)
    # A zero Quantity is None in a pydantic model and the zero Quantity in a struct: both write "0".
    assert decoded.to_json() == b'{"s":"","p":null,"l":null,"m":null,"raw":null,"st":{},"t":null,"q":"0","d":null}'


def test_decode_ignores_unknown_fields_and_is_case_sensitive(either):
    decoded = either.Empty.from_json(b'{"S":"upper","s":"lower","unknown":1}')
    assert decoded.s == "lower"


@pytest.mark.parametrize(
    "document, problem",
    [
        (b'{"i":"5"}', "Input should be a valid integer"),
        (b'{"i":5.5}', "Input should be a valid integer"),
        (b'{"s":5}', "Input should be a valid string"),
        (b'{"raw":"not base64!"}', "illegal base64 data"),
        (b'{"q":"1.2.3"}', "quantities must match the regular expression"),
        (b'{"q":"1 x"}', "quantities must match the regular expression"),  # Go trims the ends only
        (b'{"t":"yesterday"}', "not an RFC 3339 timestamp"),
        (b'{"l":"a"}', "Input should be a valid array"),
    ],
)
def test_decode_rejects_what_go_rejects(shapes, document, problem):
    with pytest.raises(ValidationError, match=problem):
        shapes.Empty.from_json(document)


@pytest.mark.parametrize(
    "document", [b'{"i":"5"}', b'{"i":5.5}', b'{"s":5}', b'{"raw":"not base64!"}', b'{"q":"1.2.3"}', b'{"q":"1 x"}',
                 b'{"t":"yesterday"}', b'{"l":"a"}', b'{"m":{"k":1}}', b'{"st":[]}', b'{"ios":true}']
)  # fmt: skip
def test_decode_rejects_what_go_rejects_on_either_backend(either, document):
    with pytest.raises(ValueError):  # pydantic's ValidationError, msgspec's DecodeError: both ValueErrors
        either.Empty.from_json(document)


def test_int32_range_is_enforced(either):
    with pytest.raises(ValueError, match="less than or equal to 2147483647|Expected `int` <= 2147483647"):
        either.Inner.from_json(b'{"n":2147483648}')
    assert either.Inner.from_json(b'{"n":2147483647}').n == 2147483647


def test_open_enum_accepts_unknown_values(either):
    assert either.Mode.A == "A" and either.Mode.values() == ("A", "B")
    assert either.Empty.from_json(b'{"mode":"FromTheFuture"}').mode == "FromTheFuture"


def test_python_names_construct_and_json_names_decode(shapes):
    assert shapes.Options(no_tag="x").no_tag == "x"
    assert shapes.Options.from_dict({"NoTag": "y"}).no_tag == "y"


def test_example_frobber_round_trips_byte_for_byte():
    sys.path.insert(0, str(REPO))
    from generated.example.v1 import Frobber

    document = (
        b'{"kind":"Frobber","apiVersion":"example.kgen.dev/v1","metadata":{"name":"f","namespace":"ns",'
        b'"creationTimestamp":"2024-01-01T00:00:00Z","labels":{"a":"1","b":"2"}},"spec":{"description":"d",'
        b'"params":["x"],"replicas":2,"mode":"Gentle","ports":[{"name":"http","port":80,"targetPort":"web"}],'
        b'"resources":{"cpu":"100m","memory":"1536Mi"},"source":{"type":"Git","git":{"url":"https://x"}},'
        b'"maxUnavailable":1,"interval":"1m30s","extraArgs":{"a":["1"]},"config":{"k":[1,{"n":null}]},'
        b'"checksum":"aGk="},"status":{"conditions":[{"type":"Ready","status":"True",'
        b'"lastTransitionTime":"2024-01-01T00:00:00Z","reason":"Ok","message":""}]}}'
    )
    assert Frobber.from_json(document).to_json() == document
    assert Frobber().api_version == "example.kgen.dev/v1" and Frobber().kind == "Frobber"
    assert Frobber.__kgen_group_version_kind__ == ("example.kgen.dev", "v1", "Frobber")


def test_python_constructors_reject_unknown_names_while_decoding_ignores_them(shapes):
    with pytest.raises(ValidationError, match="Options has no field colour"):
        shapes.Options(colour="red")
    with pytest.raises(ValidationError, match="Inner has no field m"):
        shapes.Plain(st={"m": 1})
    assert shapes.Options.from_json(b'{"colour":"red"}') == shapes.Options()


# -- the decoding path: Go's null rule in the schema, errors, value caches, large documents --


def test_an_error_names_the_field_once_without_the_null_branch(shapes):
    with pytest.raises(ValidationError) as caught:
        shapes.Plain.from_json(b'{"st":{"n":"5"},"s":7}')
    assert [(e["loc"], e["type"]) for e in caught.value.errors()] == [(("s",), "string_type"), (("st", "n"), "int_type")]
    with pytest.raises(ValidationError) as caught:
        shapes.Plain(st={"n": []})
    assert [e["loc"] for e in caught.value.errors()] == [("st", "n")]


def test_each_field_gets_the_null_branch_once_however_many_classes_hold_its_class(shapes):
    from kgen.runtime.decoded import QUIET_BRANCH

    nested: list[str] = []

    def walk(schema, path):
        if isinstance(schema, dict):
            choices = schema.get("choices") if schema.get("type") == "union" else None
            if choices and isinstance(choices[-1], tuple) and choices[-1][1] == QUIET_BRANCH:
                inner = choices[0][0]
                if inner.get("type") == "union" and isinstance(inner["choices"][-1], tuple):
                    nested.append(path)
            for key, value in schema.items():
                if key not in ("cls", "function", "default", "default_factory"):
                    walk(value, f"{path}.{key}")
        elif isinstance(schema, (list, tuple)):
            for index, value in enumerate(schema):
                walk(value, f"{path}[{index}]")

    from generated.example.v1 import models as example

    for cls in (example.Frobber, example.FrobberList):  # both hold FrobberSpec's fields, and more
        cls.model_rebuild()
        walk(cls.__pydantic_core_schema__, cls.__name__)
    assert nested == []
    assert shapes.Plain.from_json(b'{"st":null,"s":null}') == shapes.Plain()


def test_null_means_zero_wherever_pydantic_validates_a_model_not_only_in_kgens_methods():
    # The rule is in the schema: a TypeAdapter, a kgen model inside a user's model and the
    # defaulters' decode_value apply it too, below classes of modules not built yet as well.
    import subprocess
    import textwrap

    program = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, sys.argv[1])
        from pydantic import BaseModel, TypeAdapter
        from generated.example.v1.models import Frobber, FrobberSpec
        from kgen.runtime.model import decode_value

        manifest = "metadata:\\n  name: f\\nspec:\\n  selector:\\n    matchExpressions:\\n    - key: app\\n      operator:\\n"
        assert Frobber.from_yaml(manifest).spec.selector.match_expressions[0].operator == ""
        owner = Frobber.from_json(b'{"metadata":{"ownerReferences":[{"kind":"X","name":null}]}}')
        assert owner.metadata.owner_references[0].name == ""

        class Wrapper(BaseModel):
            obj: Frobber

        assert Wrapper.model_validate({"obj": {"spec": {"description": None}}}).obj.spec.description == ""
        assert TypeAdapter(list[Frobber]).validate_python([{"spec": {"description": None}}])[0].spec.description == ""
        assert decode_value(FrobberSpec, {"description": None}).description == ""
        """
    )
    # A fresh interpreter: metav1's classes are not built yet when the first document decodes.
    result = subprocess.run([sys.executable, "-c", program, str(REPO)], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr


def test_null_is_no_field_the_json_schema_allows_and_unknown_fields_are_not_refused_there(shapes):
    schema = shapes.Plain.model_json_schema()
    assert schema["properties"]["s"] == {"default": "", "title": "S", "type": "string"}
    assert "additionalProperties" not in schema


def test_decoded_values_shared_by_text_keep_their_own_form(either):
    first = either.Empty.from_json(b'{"q":"1","t":"2024-01-01T00:00:00Z","ios":"25%"}')
    second = either.Empty.from_json(b'{"q":"1000m","t":"2024-01-01T00:00:00.5Z","ios":25}')
    again = either.Empty.from_json(b'{"q":"1","t":"2024-01-01T00:00:00Z","ios":"25%"}')
    assert first.q == second.q and str(first.q) == "1" and str(second.q) == "1" and str(again.q) == "1"
    assert first.t.microsecond == 0 and second.t.microsecond == 500000
    assert first.ios.str_val == "25%" and second.ios.int_val == 25
    assert either.Empty.from_json(b'{"q":2}').q == either.Empty.from_json(b'{"q":"2"}').q
    assert second.to_json() == b'{"st":{},"t":"2024-01-01T00:00:00Z","q":"1","ios":25}'


def test_large_documents_decode_with_the_collector_paused_and_resumed(shapes):
    import gc

    big = b'{"m":{' + b",".join(b'"k%d":"v"' % i for i in range(8000)) + b"}}"
    assert len(shapes.Empty.from_json(big).m) == 8000 and gc.isenabled()
    with pytest.raises(ValidationError):
        shapes.Empty.from_json(big[:-2] + b',"x":1}}')
    assert gc.isenabled()
    gc.disable()
    try:
        shapes.Empty.from_json(big)
        assert not gc.isenabled()  # a caller's choice stays
    finally:
        gc.enable()


def test_raw_json_changed_after_decoding_is_checked_when_written():
    from kgen.runtime.rawjson import JSON

    holder = JSON({"a": [1.5]})
    holder.raw["a"].append(float("nan"))
    with pytest.raises(ValueError, match="finite"):
        holder.to_json()
    holder.raw["a"][-1] = object()
    with pytest.raises(ValueError, match="not JSON data"):
        holder.to_json()
    holder.raw["a"][-1] = -129  # marshal writes bytes that look like a NaN's: the full check clears it
    assert holder.to_json() == {"a": [1.5, -129]}


def test_writing_json_falls_back_where_the_fast_encoder_stops(shapes):
    from kgen.runtime.gojson import marshal_struct

    assert shapes.Options(count=2**63 - 1, ratio=1e-7).to_json() == b'{"count":"9223372036854775807","ratio":1e-7,"NoTag":""}'
    assert marshal_struct({"big": 2**70, "html": "<&>"}) == b'{"big":1180591620717411303424,"html":"\\u003c\\u0026\\u003e"}'
    with pytest.raises(UnicodeEncodeError):
        shapes.Empty(s="\ud800").to_json()
