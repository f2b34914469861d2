"""The tree-sitter reader: every construct API type files use, and syntax errors."""

from __future__ import annotations

import pytest

from conftest import parse


def test_package_imports_and_license_block():
    go_file, diagnostics = parse(
        """
        /*
        Copyright 2024 The Authors.
        */

        // +groupName=example.com

        // Package v1 is the v1 API.
        package v1

        import (
            metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
            "k8s.io/apimachinery/pkg/util/intstr"
            _ "embed"
        )
        """
    )
    assert not diagnostics.items
    assert go_file.package == "v1"
    assert [(i.alias, i.path) for i in go_file.imports] == [
        ("metav1", "k8s.io/apimachinery/pkg/apis/meta/v1"),
        ("", "k8s.io/apimachinery/pkg/util/intstr"),
        ("_", "embed"),
    ]
    doc_texts = [[line.text for line in block.lines] for block in go_file.package_doc]
    assert doc_texts == [[" +groupName=example.com"], [" Package v1 is the v1 API."]]


def test_struct_fields_of_every_shape():
    go_file, diagnostics = parse(
        """
        package v1

        type Spec struct {
            Name     string `json:"name"`
            Replicas *int32 `json:"replicas,omitempty"`
            Args     []string
            Env      map[string][]byte
            Limits   map[ResourceName]resource.Quantity
            Raw      []byte
            Ref      *metav1.ObjectMeta
            A, B     int32 `json:"ab"` // two names share a type and a tag
        }
        """
    )
    assert not diagnostics.items
    fields = go_file.types[0].type.fields
    shapes = [(f.names, f.type.kind, f.type.text, f.tag) for f in fields]
    assert shapes == [
        (("Name",), "ident", "string", 'json:"name"'),
        (("Replicas",), "pointer", "*int32", 'json:"replicas,omitempty"'),
        (("Args",), "slice", "[]string", None),
        (("Env",), "map", "map[string][]byte", None),
        (("Limits",), "map", "map[ResourceName]resource.Quantity", None),
        (("Raw",), "slice", "[]byte", None),
        (("Ref",), "pointer", "*metav1.ObjectMeta", None),
        (("A", "B"), "ident", "int32", 'json:"ab"'),
    ]
    limits = fields[4].type
    assert (limits.key.kind, limits.key.name) == ("ident", "ResourceName")
    assert (limits.elem.kind, limits.elem.package, limits.elem.name) == ("qualified", "resource", "Quantity")
    assert fields[7].trailing.text == " two names share a type and a tag"


@pytest.mark.parametrize(
    "declaration, embedded_text, tag",
    [
        ("metav1.TypeMeta `json:\",inline\"`", "metav1.TypeMeta", 'json:",inline"'),
        ("Common `json:\"\"`", "Common", 'json:""'),
        ("Common", "Common", None),
        ("*Common", "*Common", None),
        ("metav1.ObjectMeta `json:\"metadata,omitempty\"`", "metav1.ObjectMeta", 'json:"metadata,omitempty"'),
    ],
)
def test_embedded_fields_in_every_spelling(declaration, embedded_text, tag):
    go_file, diagnostics = parse(f"package v1\n\ntype T struct {{\n\t{declaration}\n}}\n")
    assert not diagnostics.items
    field = go_file.types[0].type.fields[0]
    assert field.embedded and field.names == ()
    assert (field.type.text, field.tag) == (embedded_text, tag)


def test_grouped_types_aliases_and_named_types():
    go_file, _ = parse(
        """
        package v1

        type (
            // ResourceList is a named map.
            ResourceList map[ResourceName]resource.Quantity
            ExtraValue []string
            Time = metav1.Time
            Local = ExtraValue
            GRPCRoute gwv1.GRPCRoute
        )
        """
    )
    declared = [(t.name, t.alias, t.type.kind) for t in go_file.types]
    assert declared == [
        ("ResourceList", False, "map"),
        ("ExtraValue", False, "slice"),
        ("Time", True, "qualified"),
        ("Local", True, "ident"),
        ("GRPCRoute", False, "qualified"),
    ]
    assert go_file.types[0].doc.lines[0].text == " ResourceList is a named map."


def test_type_markers_come_from_both_comment_blocks_above_a_type():
    go_file, _ = parse(
        """
        package v1

        // +genclient
        // +genclient:nonNamespaced

        // Widget is a thing.
        //
        // Second paragraph.
        // +kubebuilder:object:root=true
        type Widget struct{}
        """
    )
    widget = go_file.types[0]
    assert [line.text for line in widget.prior.lines] == [" +genclient", " +genclient:nonNamespaced"]
    assert [line.text for line in widget.doc.lines] == [
        " Widget is a thing.",
        "",
        " Second paragraph.",
        " +kubebuilder:object:root=true",
    ]


def test_const_blocks_typed_values_and_iota():
    go_file, _ = parse(
        """
        package v1

        type Phase string
        type Level int32

        const (
            // PhaseRunning is running.
            PhaseRunning Phase = "Running"
            PhaseFailed  Phase = `Failed`
        )

        const (
            LevelLow Level = iota + 1
            LevelMid
            _
            LevelTop
        )

        const Single Phase = "Single"
        const Shifted = 1 << 3
        """
    )
    values = [(c.name, c.type_name.name if c.type_name else None, c.value) for c in go_file.consts]
    assert values == [
        ("PhaseRunning", "Phase", "Running"),
        ("PhaseFailed", "Phase", "Failed"),
        ("LevelLow", "Level", 1),
        ("LevelMid", "Level", 2),
        ("LevelTop", "Level", 4),
        ("Single", "Phase", "Single"),
        ("Shifted", None, 8),
    ]
    assert go_file.consts[0].doc.lines[0].text == " PhaseRunning is running."


def test_functions_methods_and_variables_are_ignored():
    go_file, diagnostics = parse(
        """
        package v1

        var SchemeGroupVersion = 1

        func (in *Widget) DeepCopy() *Widget { return in }

        type Widget struct{}
        """
    )
    assert not diagnostics.items
    assert [t.name for t in go_file.types] == ["Widget"]


def test_generated_files_are_recognised():
    go_file, _ = parse(
        """
        //go:build !ignore_autogenerated

        // Code generated by deepcopy-gen. DO NOT EDIT.

        package v1
        """
    )
    assert go_file.generated


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            "package v1\n\ntype A struct {\n\tB int `json:\"b\"\n}\n",
            [
                "types.go:3:1: error: syntax error near 'type A struct {': the file must be valid Go "
                "(look for an unclosed brace, parenthesis or string)"
            ],
        ),
        (
            "package v1\n\ntype A struct {\n\tB int\n",
            [
                "types.go:3:1: error: syntax error near 'type A struct {': the file must be valid Go "
                "(look for an unclosed brace, parenthesis or string)"
            ],
        ),
        (
            "type A struct{}\n",
            ["types.go:1:1: error: missing package clause: a Go file starts with `package <name>`"],
        ),
    ],
)
def test_syntax_errors_are_diagnostics_with_position(source, expected):
    go_file, diagnostics = parse(source)
    assert go_file is None
    assert [str(d) for d in diagnostics.items] == expected
