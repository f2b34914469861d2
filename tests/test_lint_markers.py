"""Markers as the linters read them: identifier, arguments and payload of every `// +` line
(known to kgen or not), and which comment groups belong to a type or field. Semantics of
kube-api-linter's markers helper (pkg/analysis/helpers/markers/analyzer.go) and, for
`+k8s:` tags, of gengo's tag parser (gengo v2 codetags/parser.go)."""

from __future__ import annotations

import pytest

from lint_helpers import write_package
from kgen.diagnostics import Diagnostics
from kgen.lint.markers import MarkerSet, parse_marker
from kgen.lint.model import build_package
from kgen.source.loader import load_packages


@pytest.mark.parametrize(
    "text, identifier, arguments, payload",
    [
        ("optional", "optional", (), ""),
        ("kubebuilder:validation:MaxLength=10", "kubebuilder:validation:MaxLength", (), "10"),
        ("kubebuilder:validation:MaxLength:=10", "kubebuilder:validation:MaxLength", (), "10"),
        ('default="web"', "default", (), '"web"'),
        ("kubebuilder:object:root:=true", "kubebuilder:object:root", (), "true"),
        ('kubebuilder:validation:XValidation:rule="self.a == 1",message="m"', "kubebuilder:validation:XValidation",
         (("rule", '"self.a == 1"'), ("message", '"m"')), ""),
        ('kubebuilder:printcolumn:name="Age",type="date"', "kubebuilder:printcolumn", (("name", '"Age"'), ("type", '"date"')), ""),
        ("custom:marker:fruit=apple,color=blue", "custom:marker", (("fruit", "apple"), ("color", "blue")), ""),
        ("genclient:nonNamespaced", "genclient:nonNamespaced", (), ""),
        ("kubebuilder:validation:Enum=a;b", "kubebuilder:validation:Enum", (), "a;b"),
        ('k8s:ifEnabled("Gate")=+k8s:required', "k8s:ifEnabled", (("", "Gate"),), ""),
        ('k8s:item(name: "x")=+k8s:optional', "k8s:item", (("name", "x"),), ""),
        ("k8s:maxLength=10", "k8s:maxLength", (), "10"),
    ],
)  # fmt: skip
def test_marker_parts(text, identifier, arguments, payload):
    marker = parse_marker(text)
    assert (marker.identifier, marker.arguments, marker.payload) == (identifier, arguments, payload)


def test_chained_tags_and_tags_that_do_not_parse():
    chained = parse_marker("k8s:eachVal=+k8s:minimum=0")
    assert chained.payload_marker is not None
    assert (chained.payload_marker.identifier, chained.payload_marker.payload) == ("k8s:minimum", "0")
    assert parse_marker("k8s:maxLength=10 words") is None  # not a tag: no marker at all
    assert parse_marker("k8s:item(a, b)") is None  # two positional arguments


def test_has_value_compares_arguments_and_payload():
    markers = MarkerSet.of([parse_marker("listType=map"), parse_marker("kubebuilder:object:root=true")])
    assert markers.has_value("listType=map") and not markers.has_value("listType=set")
    assert markers.has_value("kubebuilder:object:root:=true")


def test_which_comment_groups_belong_to_types_and_fields(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(
        tmp_path,
        """
        // +kubebuilder:object:root=true
        // +kubebuilder:subresource:status

        // Widget is a widget: the group of markers above its doc comment is its.
        type Widget struct {
        	// +optional
        	// +listType=atomic

        	// items are kept: a group of markers only, above the doc comment.
        	Items []string `json:"items"`

        	// +required
        	// the group above is this field's doc, not the next field's.
        	Name string `json:"name"`

        	// size is the size.
        	Size int32 `json:"size"` // +optional is a trailing comment, not a marker of Size
        }

        // +enum
        var documented = 1

        // Mode is not marked: the group above documents the variable.
        type Mode string""",
    )
    (source,) = load_packages(tmp_path / "apis", "example.com/apis", Diagnostics())
    package = build_package(source)
    widget = package.types["Widget"]
    assert [m.identifier for m in widget.markers] == ["kubebuilder:object:root", "kubebuilder:subresource:status"]
    fields = {f.name: f for f in widget.struct.fields}
    assert [m.identifier for m in fields["Items"].markers] == ["optional", "listType"]
    assert [m.identifier for m in fields["Name"].markers] == ["required"]
    assert len(fields["Size"].markers) == 0
    assert len(package.types["Mode"].markers) == 0
    marker = fields["Name"].markers.get("required")[0]
    assert (marker.line, marker.col, str(marker)) == (20, 2, "required")
    assert source.files[1].path == "apis/v1/types.go"
