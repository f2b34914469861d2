"""OpenAPI v2/v3 documents: names, types, descriptions and extensions as openapi-gen and
the API server write them, every validation constraint carried over, API rule violations
reported as openapi-gen reports them, and documents a validator accepts."""

from __future__ import annotations

import json
import re

import pytest
from openapi_spec_validator import validate

from conftest import REPO
from kgen.diagnostics import InputError
from kgen.generators.openapi import names_match
from kgen.generators.schema import definition_name, description

DOC = "// +groupName=widgets.example.com\npackage v1\n"

TYPES = """
package v1

import (
    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
    "k8s.io/apimachinery/pkg/api/resource"
    "k8s.io/apimachinery/pkg/runtime"
    "k8s.io/apimachinery/pkg/util/intstr"
)

// Widget is a thing.
//
// It has two paragraphs.
// ---
// Nothing after the line is published.
// +genclient
type Widget struct {
    metav1.TypeMeta   `json:",inline"`
    // Standard object's metadata.
    // +optional
    metav1.ObjectMeta `json:"metadata,omitempty"`
    // +optional
    Spec WidgetSpec `json:"spec,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
    metav1.TypeMeta `json:",inline"`
    // +optional
    metav1.ListMeta `json:"metadata,omitempty"`
    Items []Widget `json:"items"`
}

// Common fields, embedded without a JSON name.
type Common struct {
    // Owner of the widget.
    Owner string `json:"owner"`
}

// +enum
type Shape string

const (
    // ShapeRound is round.
    ShapeRound Shape = "Round"
    // ShapeSquare has corners.
    ShapeSquare Shape = "Square"
)

// Names is a named slice: written out where it is used.
// +listType=set
type Names []string

// WidgetSpec is the desired state.
type WidgetSpec struct {
    Common `json:",inline"`
    // Size in bytes.
    // TODO: a one-line TODO is dropped.
    //
    //	Example: 1Gi
    Size resource.Quantity `json:"size"`
    // +optional
    Port *intstr.IntOrString `json:"port,omitempty"`
    // +optional
    Since *metav1.Time `json:"since,omitempty"`
    // +optional
    Extra runtime.RawExtension `json:"extra,omitempty"`
    // Shape of the widget.
    // +optional
    // +default="Round"
    Shape Shape `json:"shape,omitempty"`
    // +optional
    Aliases Names `json:"aliases,omitempty"`
    // +listType=map
    // +listMapKey=name
    // +patchStrategy=merge
    // +patchMergeKey=name
    // +optional
    Parts []Part `json:"parts,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
    // +mapType=atomic
    // +optional
    Labels map[string]string `json:"labels,omitempty"`
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=10
    // +kubebuilder:validation:ExclusiveMaximum=true
    // +optional
    Count *int32 `json:"count,omitempty"`
    // +kubebuilder:validation:Pattern=`^[a-z]+$`
    // +kubebuilder:validation:MaxLength=10
    // +kubebuilder:validation:XValidation:rule="self != 'bad'",message="may not be bad"
    // +optional
    Tag string `json:"tag,omitempty"`
    // Ratio is a float.
    // +optional
    Ratio float64 `json:"ratio,omitempty"`
    Weight int64 `json:"weight"`
    // +k8s:unionDiscriminator
    // +optional
    Kind string `json:"kind,omitempty"`
    // +k8s:unionMember
    // +optional
    Bolt *Part `json:"bolt,omitempty"`
    // +k8s:unionMember
    // +optional
    Nut *Part `json:"nut,omitempty"`
}

// Part of a widget.
// +structType=atomic
type Part struct {
    Name string `json:"name"`
    Data []byte `json:"data,omitempty"`
}
"""


def _documents(generate_project, files):
    _, result = generate_project(files)
    return {f.path: f.content for f in result.files}


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    import os

    from conftest import write_tree
    from kgen import pipeline
    from kgen.generators import GENERATORS
    from kgen.options import resolve_options

    root = tmp_path_factory.mktemp("openapi")
    write_tree(root, {"api/widgets/v1/doc.go": DOC, "api/widgets/v1/types.go": TYPES})
    cwd = os.getcwd()
    os.chdir(root)
    try:
        options = resolve_options(config_path=root / "none.toml", input="api", output="out", module="example.com/apis",
                                  registered=tuple(GENERATORS))  # fmt: skip
        result = pipeline.generate(options, use_cache=False)
    finally:
        os.chdir(cwd)
    return {f.path: f.content for f in result.files}


def _definitions(documents, version="v2"):
    if version == "v2":
        return json.loads(documents["openapi/swagger.json"])["definitions"]
    return json.loads(documents["openapi/v3/apis/widgets.example.com/v1.json"])["components"]["schemas"]


W = "com.example.apis.widgets.v1."


def test_definition_names_reverse_the_domain_and_keep_the_dots():
    assert definition_name("k8s.io/api/core/v1", "Pod") == "io.k8s.api.core.v1.Pod"
    assert definition_name("k8s.io/apimachinery/pkg/apis/meta/v1", "ObjectMeta") == (
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    )
    assert definition_name("example.com/apis/widgets/v1", "Widget") == "com.example.apis.widgets.v1.Widget"


def test_descriptions_are_formatted_as_openapi_gen_formats_them():
    assert description("Line one\nline two.\n\nSecond paragraph.") == "Line one line two.\n\nSecond paragraph."
    assert description("Example:\n\tkubectl get\nafter") == "Example:\n\tkubectl get\nafter"
    assert description("Kept.\nTODO: drop me\n---\nHidden.") == "Kept."
    assert description("") == ""


def test_kinds_have_gvk_refs_and_flattened_embedded_structs(documents):
    definitions = _definitions(documents)
    widget = definitions[W + "Widget"]
    assert widget["description"] == "Widget is a thing.\n\nIt has two paragraphs."
    assert widget["x-kubernetes-group-version-kind"] == [{"group": "widgets.example.com", "kind": "Widget", "version": "v1"}]
    assert definitions[W + "WidgetList"]["x-kubernetes-group-version-kind"][0]["kind"] == "WidgetList"
    assert sorted(widget["properties"]) == ["apiVersion", "kind", "metadata", "spec"]
    assert widget["properties"]["metadata"] == {
        "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "description": "Standard object's metadata.",
    }
    spec = definitions[W + "WidgetSpec"]
    assert "owner" in spec["properties"]  # the inline-embedded Common is flattened
    assert spec["required"] == ["owner", "size", "weight"]  # in field order


def test_types_and_formats_follow_openapi_gen(documents):
    p = _definitions(documents)[W + "WidgetSpec"]["properties"]
    assert p["size"] == {"$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity",
                         "description": "Size in bytes.\n\n\tExample: 1Gi"}  # fmt: skip
    assert p["port"]["$ref"].endswith("io.k8s.apimachinery.pkg.util.intstr.IntOrString")
    assert p["ratio"]["type"] == "number" and p["ratio"]["format"] == "double"
    assert p["weight"] == {"format": "int64", "type": "integer"}  # v2 states no defaults
    v3_spec = _definitions(documents, "v3")[W + "WidgetSpec"]["properties"]
    assert v3_spec["weight"] == {"default": 0, "format": "int64", "type": "integer"}  # always serialized: zero default
    data = _definitions(documents)[W + "Part"]["properties"]["data"]
    assert data == {"format": "byte", "type": "string"}
    d = _definitions(documents)
    assert d["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]["format"] == "date-time"
    assert d["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"] == "int-or-string"
    assert d["io.k8s.apimachinery.pkg.runtime.RawExtension"]["x-kubernetes-preserve-unknown-fields"] is True
    v3 = _definitions(documents, "v3")
    assert v3["io.k8s.apimachinery.pkg.api.resource.Quantity"]["oneOf"] == [{"type": "string"}, {"type": "number"}]
    assert v3[W + "WidgetSpec"]["properties"]["size"]["allOf"] == [
        {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}
    ]


def test_enums_defaults_and_every_extension(documents):
    spec = _definitions(documents)[W + "WidgetSpec"]
    p = spec["properties"]
    assert p["shape"] == {
        "description": "Shape of the widget.\n\nPossible enum values:\n - `\"Round\"` is round.\n - `\"Square\"` has corners.",
        "enum": ["Round", "Square"],
        "type": "string",
    }  # v2: a custom resource's enum, but no default
    assert _definitions(documents, "v3")[W + "WidgetSpec"]["properties"]["shape"]["default"] == "Round"
    assert p["aliases"]["x-kubernetes-list-type"] == "set"  # from the named type
    assert p["parts"]["x-kubernetes-list-type"] == "map"
    assert p["parts"]["x-kubernetes-list-map-keys"] == ["name"]
    assert p["parts"]["x-kubernetes-patch-strategy"] == "merge"
    assert p["parts"]["x-kubernetes-patch-merge-key"] == "name"
    assert p["labels"]["x-kubernetes-map-type"] == "atomic"
    assert _definitions(documents)[W + "Part"]["x-kubernetes-map-type"] == "atomic"
    assert {k: p["count"][k] for k in ("minimum", "maximum", "exclusiveMaximum")} == {
        "minimum": 1, "maximum": 10, "exclusiveMaximum": True}  # fmt: skip
    assert p["tag"]["pattern"] == "^[a-z]+$" and p["tag"]["maxLength"] == 10
    assert p["tag"]["x-kubernetes-validations"] == [{"message": "may not be bad", "rule": "self != 'bad'"}]
    assert spec["x-kubernetes-unions"] == [
        {"discriminator": "kind", "fields-to-discriminateBy": {"bolt": "Bolt", "nut": "Nut"}}
    ]


ELEMENTS = """
package v1

// Loose has nothing required, so {} is a valid value of it.
type Loose struct {
    // +optional
    A string `json:"a,omitempty"`
}

// Strict has a required field: {} would not validate.
type Strict struct {
    B string `json:"b"`
}

type Holder struct {
    Names []string `json:"names"`
    Counts map[string]int32 `json:"counts"`
    Flags []bool `json:"flags"`
    Plain []Loose `json:"plain"`
    Strict []Strict `json:"strict"`
    Pointers []*Loose `json:"pointers"`
    // +kubebuilder:validation:items:MinLength=1
    Words []string `json:"words"`
    Blobs [][]byte `json:"blobs"`
}
"""


def test_list_items_and_map_values_state_their_zero_value_as_openapi_gen_does(generate_project):
    documents = _documents(generate_project, {"widgets/v1/doc.go": DOC, "widgets/v1/types.go": ELEMENTS})
    v2 = json.loads(documents["openapi/swagger.json"])["definitions"][W + "Holder"]["properties"]
    v3 = json.loads(documents["openapi/v3/apis/widgets.example.com/v1.json"])["components"]["schemas"][W + "Holder"]["properties"]
    assert v3["names"]["items"] == {"default": "", "type": "string"}
    assert v3["counts"]["additionalProperties"] == {"default": 0, "format": "int32", "type": "integer"}
    assert v3["flags"]["items"] == {"default": False, "type": "boolean"}
    assert v3["plain"]["items"] == {"allOf": [{"$ref": "#/components/schemas/" + W + "Loose"}], "default": {}}
    # No default that would not validate, and none for what has no zero value in JSON.
    assert "default" not in v3["strict"]["items"] and "default" not in v3["pointers"]["items"]
    assert v3["words"]["items"] == {"minLength": 1, "type": "string"}
    assert v3["blobs"]["items"] == {"format": "byte", "type": "string"}
    # The API server's v2 document states no defaults.
    assert v2["names"]["items"] == {"type": "string"}
    assert v2["plain"]["items"] == {"$ref": "#/definitions/" + W + "Loose"}


def test_documents_are_valid_openapi(documents):
    validate(json.loads(documents["openapi/swagger.json"]))
    validate(json.loads(documents["openapi/v3/apis/widgets.example.com/v1.json"]))


def test_the_example_api_documents_are_valid_openapi():
    for path in [REPO / "generated/openapi/swagger.json", *sorted((REPO / "generated/openapi/v3").rglob("*.json"))]:
        validate(json.loads(path.read_text()))


def test_json_documents_carry_kgens_header_so_orphans_are_found(documents):
    from kgen.render import generator_of

    assert generator_of(documents["openapi/swagger.json"]) == "openapi"
    assert generator_of('{\n  "swagger": "2.0"\n}\n') is None


# -- API rule violations ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("go", "json_name", "match"),
    [("PodSpec", "podSpec", True), ("PodSpec", "PodSpec", False), ("podSpec", "podSpec", False),
     ("PodSpec", "spec", False), ("Spec", "podSpec", False), ("JSONSpec", "jsonSpec", True),
     ("JSONSpec", "jsonspec", False), ("HTTPJSONSpec", "httpJSONSpec", True), ("HTTPJSONSpec", "httpjsonSpec", True),
     ("PodSpec", "metadata", True), ("PodSpec", "", True)],
)  # fmt: skip
def test_names_match_is_openapi_gens_rule(go, json_name, match):
    assert names_match(go, json_name) is match


BAD = """
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Gadget struct {
    metav1.TypeMeta `json:",inline"`
    metav1.ObjectMeta `json:"metadata,omitempty"`
    Spec GadgetSpec `json:"spec"`
}

type GadgetList struct {
    metav1.TypeMeta `json:",inline"`
    metav1.ListMeta `json:"metadata,omitempty"`
    Items []Gadget `json:"items"`
}

type GadgetSpec struct {
    Hosts []string `json:"hosts,omitempty"`
    MaxSize int32 `json:"max_size,omitEmpty"`
}
"""

REPORTED = [
    "API rule violation: list_type_missing,example.com/apis/widgets/v1,GadgetSpec,Hosts",
    "API rule violation: names_match,example.com/apis/widgets/v1,GadgetSpec,MaxSize",
    "API rule violation: omitempty_match_case,example.com/apis/widgets/v1,GadgetSpec,MaxSize",
]


def test_violations_are_reported_in_a_generated_list_like_openapi_gens(generate_project):
    files = _documents(generate_project, {"widgets/v1/doc.go": DOC, "widgets/v1/types.go": BAD})
    report = files["openapi/api-rule-violations.list"].splitlines()
    assert report[0] == "# Code generated by kgen-openapi. DO NOT EDIT."
    assert report[1:] == REPORTED  # a list kind's Items needs no list type


def test_with_an_exceptions_list_only_known_violations_pass(generate_project):
    files = {"widgets/v1/doc.go": DOC, "widgets/v1/types.go": BAD,
             "api-rules/violation_exceptions.list": "\n".join(REPORTED[:2]) + "\n"}  # fmt: skip
    with pytest.raises(InputError) as caught:
        generate_project(files)
    found = [str(d) for d in caught.value.diagnostics]
    assert len(found) == 1
    assert re.match(
        r"\S*widgets/v1/types\.go:\d+:\d+: error: API rule violation: omitempty_match_case,example\.com/apis/widgets/v1,"
        r"GadgetSpec,MaxSize: write `omitempty` in lower case, or list it in api-rules/violation_exceptions\.list",
        found[0],
    ), found
    files["api-rules/violation_exceptions.list"] = "\n".join([*REPORTED, "API rule violation: names_match,x,Y,Z"])
    _, result = generate_project(files)
    assert [str(d) for d in result.diagnostics.sorted()] == [
        "api-rules/violation_exceptions.list: warning: 'API rule violation: names_match,x,Y,Z' no longer happens; "
        "remove it from the list"
    ]


def test_real_world_types_give_valid_documents_and_structural_crds(tmp_path):
    """Types as real projects write them (defined from another package's type, maps of
    named keys and of slices, embedded pointers, required struct fields) give documents
    a validator accepts and CRD schemas the API server would take."""
    import yaml

    from conftest import TESTDATA
    from kgen import pipeline
    from kgen.generators import GENERATORS
    from kgen.generators.crd import structural_problems
    from kgen.options import Options

    options = Options(
        TESTDATA / "realworld/apis", tmp_path, "example.com/shop/apis", generators=tuple(GENERATORS),
        import_map={"example.com/gateway/apis/v1": TESTDATA / "realworld/third_party/gateway/v1"},
    )  # fmt: skip
    files = {f.path: f.content for f in pipeline.generate(options, use_cache=False).files}
    documents = [p for p in files if p.endswith(".json")]
    crds = [p for p in files if p.endswith(".yaml")]
    assert len(documents) >= 2 and crds  # swagger.json and the input group version's v3 document
    for path in documents:
        validate(json.loads(files[path]))
    for path in crds:
        for version in yaml.safe_load(files[path].split("---\n", 1)[1])["spec"]["versions"]:
            assert structural_problems(version["schema"]["openAPIV3Schema"]) == [], path


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "replicas"), -1),
        (("spec", "priority"), 101),
        (("spec", "mode"), "Sometimes"),
        (("spec", "description"), "x" * 257),
        (("spec", "params"), [f"p{i}" for i in range(17)]),
        (("spec", "schedule", "startHour"), 24),
        (("spec", "schedule", "timeZone"), "no zone"),
        (("spec", "schedule", "weekdays"), ["Mon", "Funday"]),
        (("spec", "ports"), [{"name": "web", "port": 0}]),
    ],
)
def test_the_published_schema_and_the_generated_validator_give_the_same_verdict(path, value):
    """The validation constraints say the same in both places: an object the OpenAPI
    schema rejects, the generated validator rejects at the same field."""
    import jsonschema

    from bench.validation import OBJECT, draft7_schema
    from generated.example.v1 import validation
    from generated.example.v1.models import Frobber
    from kgen.generators import GENERATORS
    from kgen.options import resolve_options
    from kgen.pipeline import build

    universe, _ = build(resolve_options(config_path=REPO / "pyproject.toml", registered=tuple(GENERATORS)))
    schema = draft7_schema(universe, "kgen.dev/example/apis/example/v1", "Frobber")
    data = json.loads(json.dumps(OBJECT))
    target = data
    for name in path[:-1]:
        target = target[name]
    target[path[-1]] = value
    field = ".".join(path)
    by_schema = {".".join(str(p) for p in e.absolute_path) for e in jsonschema.Draft7Validator(schema).iter_errors(data)}
    by_validator = {e.field for e in validation.validate_Frobber(Frobber.from_dict(data))}
    assert any(p.startswith(field) for p in by_schema), by_schema
    assert any(p.startswith(field) for p in by_validator), by_validator
