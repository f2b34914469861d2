"""Rules of structs embedded inline, and openapi-gen's union forms.

An embedded struct's fields are the outer struct's fields in JSON, so its unions and type
rules hold of the outer object: in the generated validation, the OpenAPI documents and the
CRD schema alike. `+unionDeprecated` fields of a struct that is not a `+union` form a union
of which at most one is set, as openapi-gen reads them.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

from kgen.diagnostics import InputError
from kgen.runtime import validation as v

DOC = "// +groupName=widgets.example.com\npackage v1\n"

TYPES = """
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
type Widget struct {{
    metav1.TypeMeta   `json:",inline"`
    // +optional
    metav1.ObjectMeta `json:"metadata,omitempty"`
    // +optional
    Spec WidgetSpec `json:"spec,omitempty"`
}}

// WidgetList is a list of Widgets.
type WidgetList struct {{
    metav1.TypeMeta `json:",inline"`
    // +optional
    metav1.ListMeta `json:"metadata,omitempty"`
    Items []Widget `json:"items"`
}}

// Source is where the widget comes from: exactly one member, named by Type.
// +union
type Source struct {{
    // +unionDiscriminator
    // +optional
    Type string `json:"type,omitempty"`
    // +optional
    Git *string `json:"git,omitempty"`
    // +optional
    Image *string `json:"image,omitempty"`
}}

// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas"
type Bounds struct {{
    // +optional
    MinReplicas *int32 `json:"minReplicas,omitempty"`
    // +optional
    MaxReplicas *int32 `json:"maxReplicas,omitempty"`
}}

// Legacy is an old-style union: no +union, members marked one by one.
type Legacy struct {{
    // +unionDiscriminator
    // +optional
    Mode string `json:"mode,omitempty"`
    // +unionDeprecated
    // +optional
    Fast *bool `json:"fast,omitempty"`
    // +unionDeprecated
    // +optional
    Slow *bool `json:"slow,omitempty"`
}}

type WidgetSpec struct {{
    Source `json:",inline"`
    *Bounds `json:",inline"`
    Legacy `json:",inline"`
{extra}
}}
"""


def files(extra: str = "", types: str = TYPES) -> dict[str, str]:
    return {"widgets/v1/doc.go": DOC, "widgets/v1/types.go": types.format(extra=extra)}


@pytest.fixture
def project(generate_project):
    load, result = generate_project(files())
    return load("widgets.v1.models"), load("widgets.v1.validation"), {f.path: f.content for f in result.files}


def errors(validation, spec) -> list[str]:
    return [str(e) for e in validation.validate_WidgetSpec(spec, v.Path.root("spec"))]


def test_the_union_of_an_embedded_struct_is_checked_on_the_outer_object(project):
    models, validation, _ = project
    assert errors(validation, models.WidgetSpec(type="Git", git="https://x")) == []
    assert errors(validation, models.WidgetSpec(type="Git", git="https://x", image="img")) == [
        'spec.image: Invalid value: "": may only be specified when `type` is "Image"'
    ]
    assert errors(validation, models.WidgetSpec(type="Image")) == [
        'spec.image: Invalid value: "": must be specified when `type` is "Image"'
    ]


def test_the_cel_rule_of_an_embedded_struct_is_checked_on_the_outer_object(project):
    models, validation, _ = project
    assert errors(validation, models.WidgetSpec(min_replicas=1, max_replicas=3)) == []
    assert errors(validation, models.WidgetSpec(min_replicas=5, max_replicas=3)) == [
        'spec: Invalid value: minReplicas must not exceed maxReplicas'
    ]


def test_a_deprecated_union_allows_at_most_one_member_unless_its_discriminator_names_one(project):
    models, validation, _ = project
    assert errors(validation, models.WidgetSpec(fast=True)) == []
    assert errors(validation, models.WidgetSpec(fast=True, slow=True)) == [
        'spec: Invalid value: "{fast, slow}": must specify at most one of: `fast`, `slow`'
    ]
    assert errors(validation, models.WidgetSpec(mode="Fast", slow=True)) == [
        'spec.fast: Invalid value: "": must be specified when `mode` is "Fast"',
        'spec.slow: Invalid value: "": may only be specified when `mode` is "Slow"',
    ]


def test_openapi_states_the_unions_as_openapi_gen_does_and_carries_the_embedded_rule(project):
    _, _, documents = project
    spec = json.loads(documents["openapi/swagger.json"])["definitions"]["com.example.apis.widgets.v1.WidgetSpec"]
    assert spec["x-kubernetes-unions"] == [
        {"discriminator": "type", "fields-to-discriminateBy": {"git": "Git", "image": "Image"}},
        {"discriminator": "mode", "fields-to-discriminateBy": {"fast": "Fast", "slow": "Slow"}},
    ]
    assert {"rule": "!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",
            "message": "minReplicas must not exceed maxReplicas"} in spec["x-kubernetes-validations"]  # fmt: skip


def test_without_a_discriminator_openapi_gen_still_lists_the_members(generate_project):
    legacy = TYPES.replace("    // +unionDiscriminator\n    // +optional\n    Mode string", "    // +optional\n    Mode string")
    _, result = generate_project(files(types=legacy))
    documents = {f.path: f.content for f in result.files}
    spec = json.loads(documents["openapi/swagger.json"])["definitions"]["com.example.apis.widgets.v1.WidgetSpec"]
    assert spec["x-kubernetes-unions"][1] == {"fields-to-discriminateBy": {"fast": "Fast", "slow": "Slow"}}


def test_the_crd_schema_holds_the_embedded_rules_as_cel(project):
    _, _, documents = project
    content = documents["crds/widgets.example.com_widgets.yaml"]
    crd = yaml.safe_load(content.split("---\n", 1)[1])
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    rules = [r["rule"] for r in spec["x-kubernetes-validations"]]
    assert "(has(self.type) && self.type == 'Git') ? has(self.git) : !has(self.git)" in rules
    assert "!has(self.mode) || self.mode == '' || (self.mode == 'Fast' ? has(self.fast) : !has(self.fast))" in rules
    assert "!(!has(self.mode) || self.mode == '') || [has(self.fast),has(self.slow)].filter(x,x==true).size() <= 1" in rules
    assert "!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas" in rules
    assert "x-kubernetes-unions" not in spec  # an openapi-gen extension; CRDs say it in CEL


def test_a_union_whose_fields_the_outer_struct_hides_is_dropped_with_a_warning(generate_project):
    _, result = generate_project(files(extra='    // +optional\n    Git string `json:"git,omitempty"`'))
    found = [str(d) for d in result.diagnostics.sorted()]
    assert any(
        re.match(r"\S*widgets/v1/types\.go:\d+:\d+: warning: the union of embedded Source does not hold here: "
                 r"its field\(s\) git are hidden by fields of the same JSON name; rename them to keep the union$", line)
        for line in found
    ), found  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("    // +optional\n    Git *string", "    // +unionDeprecated\n    // +optional\n    Git *string",
         "error: field Git: +unionDeprecated has no meaning in a +union struct, whose optional fields are all "
         "members; remove the marker (or +union, to make the marked fields the union)"),
        ("    // +unionDeprecated\n    // +optional\n    Slow *bool `json:\"slow,omitempty\"`",
         "    // +unionDeprecated\n    Slow *bool `json:\"slow\"`",
         "error: field Slow: a union member (+unionDeprecated) must be optional; add +optional"),
    ],
)  # fmt: skip
def test_misused_union_markers_are_errors_with_file_and_line(generate_project, old, new, expected):
    assert old in TYPES
    with pytest.raises(InputError) as raised:
        generate_project(files(types=TYPES.replace(old, new)))
    found = [str(d) for d in raised.value.diagnostics]
    assert any(re.match(r"\S*widgets/v1/types\.go:\d+:\d+: " + re.escape(expected) + "$", line) for line in found), found


def test_a_broken_rule_of_an_embedded_struct_is_reported_once_where_it_is_written(generate_project):
    broken = TYPES.replace("self.minReplicas <= self.maxReplicas\",", "self.minReplicas <=\",")
    with pytest.raises(InputError) as raised:
        generate_project(files(types=broken))
    found = [str(d) for d in raised.value.diagnostics]
    assert len(found) == 1, found
    assert re.match(r"\S*widgets/v1/types\.go:\d+:\d+: error: type Bounds: CEL rule .* does not compile", found[0]), found
