"""Protobuf: go-to-protobuf's `.proto` for the same types, compiled, converted both ways,
the envelope, the missing-tag and tombstone diagnostics, and `kgen protobuf-tags`."""

from __future__ import annotations

import importlib
import re
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, build, messages, write_tree
from kgen.generators import protobuf
from kgen.generators.strategies import strategy_name
from kgen.protobuf_tags import insert_tags, missing
from kgen.runtime import protobuf as runtime
from kgen.runtime.semantic import semantic_diff, semantic_equal

DOC = """
// +k8s:deepcopy-gen=package
// +k8s:protobuf-gen=package
// +groupName=widgets.example.com

// Package {version} holds the widgets API.
package {version} // import "example.com/apis/widgets/{version}"
"""

WIDGETS = """
/*
Copyright The Widget Authors.
*/

package v1

import (
    "k8s.io/apimachinery/pkg/api/resource"
    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
    "k8s.io/apimachinery/pkg/util/intstr"

    shared "example.com/apis/shared/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Widget is a widget.
type Widget struct {
    metav1.TypeMeta `json:",inline"`
    // +optional
    metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

    // +optional
    Spec WidgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// WidgetSpec is what a widget should be.
//
// +k8s:deprecated=legacyColor,protobuf=7
type WidgetSpec struct {
    // WidgetCommon is shared by every version.
    WidgetCommon `json:",inline" protobuf:"bytes,1,opt,name=widgetCommon"`

    // Tags label the widget.
    // +optional
    Tags TagList `json:"tags,omitempty" protobuf:"bytes,2,opt,name=tags"`

    // Limits per resource.
    // +optional
    Limits ResourceLimits `json:"limits,omitempty" protobuf:"bytes,3,rep,name=limits,casttype=ResourceLimits,castkey=ResourceName"`

    // PortsByZone lists the ports open in each zone.
    // +optional
    PortsByZone map[Zone]Ports `json:"portsByZone,omitempty" protobuf:"bytes,4,rep,name=portsByZone,castkey=Zone"`

    // Count is a plain int.
    Count int `json:"count" protobuf:"varint,5,opt,name=count"`

    // Ratio is a float.
    // +optional
    Ratio *float64 `json:"ratio,omitempty" protobuf:"fixed64,6,opt,name=ratio"`

    // Shape is a named string.
    Shape Shape `json:"shape" protobuf:"bytes,8,opt,name=shape,casttype=Shape"`

    // Since is when the widget was first made.
    // +optional
    Since *metav1.Time `json:"since,omitempty" protobuf:"bytes,9,opt,name=since"`

    // Every is how often it is polished.
    // +optional
    Every metav1.Duration `json:"every,omitempty" protobuf:"bytes,10,opt,name=every"`

    // Surge is a number or a percentage.
    // +optional
    Surge *intstr.IntOrString `json:"surge,omitempty" protobuf:"bytes,11,opt,name=surge"`

    // Blob is opaque.
    // +optional
    Blob []byte `json:"blob,omitempty" protobuf:"bytes,12,opt,name=blob"`

    // Imported comes from another package.
    // +optional
    Imported *ImportedSpec `json:"imported,omitempty" protobuf:"bytes,13,opt,name=imported"`

    // Counts are unsigned.
    // +optional
    Counts map[string]uint32 `json:"counts,omitempty" protobuf:"bytes,14,rep,name=counts"`
}

// WidgetCommon holds what every version shares.
type WidgetCommon struct {
    // Color of the widget.
    Color string `json:"color" protobuf:"bytes,1,opt,name=color"`
}

// TagList is a list of tags.
// +protobuf.nullable=true
type TagList []string

// Ports are port numbers.
type Ports []int32

// Zone names a zone.
type Zone string

// Shape of a widget.
type Shape string

// ResourceName names a resource.
type ResourceName string

// ResourceLimits maps resources to quantities.
type ResourceLimits map[ResourceName]resource.Quantity

// ImportedSpec is defined from another package's type.
type ImportedSpec shared.Spec

// WidgetList is a list of widgets.
type WidgetList struct {
    metav1.TypeMeta `json:",inline"`
    // +optional
    metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
    Items []Widget `json:"items" protobuf:"bytes,2,rep,name=items"`
}
"""

SHARED = """
package v1

// Spec is shared.
type Spec struct {
    // Name is a name.
    Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
    // Mode is a mode.
    // +optional
    Mode *Mode `json:"mode,omitempty" protobuf:"bytes,5,opt,name=mode"`
}

// Mode is a mode.
type Mode struct {
    // Fast goes fast.
    Fast bool `json:"fast" protobuf:"varint,1,opt,name=fast"`
}
"""


def _project(tmp_path, widgets: str = WIDGETS, shared: str = SHARED):
    return write_tree(tmp_path / "apis", {
        "widgets/v1/doc.go": DOC.format(version="v1"),
        "widgets/v1/types.go": widgets,
        "shared/v1/doc.go": "// +k8s:protobuf-gen=package\npackage v1\n",
        "shared/v1/types.go": shared,
    })  # fmt: skip


def _proto(tmp_path, widgets: str = WIDGETS) -> str:
    universe, diagnostics = build(_project(tmp_path, widgets), module="example.com/apis")
    assert not diagnostics.errors, messages(diagnostics)
    protobuf.check(universe, diagnostics)
    assert not diagnostics.errors, messages(diagnostics)
    return protobuf.render_proto(protobuf.plan(universe).files["example.com/apis/widgets/v1"])


def _message(text: str, name: str) -> str:
    match = re.search(rf"^message {name} {{\n(.*?)^}}", text, re.S | re.M)
    assert match, f"no message {name}"
    return match.group(1)


def _errors(tmp_path, widgets: str) -> list[str]:
    universe, diagnostics = build(_project(tmp_path, widgets), module="example.com/apis")
    protobuf.check(universe, diagnostics)
    return [str(d) for d in diagnostics.errors]


# -- the .proto ---------------------------------------------------------------------------


def test_file_layout_as_go_to_protobuf(tmp_path):
    text = _proto(tmp_path)
    assert text.startswith("// Code generated by kgen-protobuf. DO NOT EDIT.\n")
    assert '\nsyntax = "proto2";\n\npackage example.com.apis.widgets.v1;\n' in text
    imports = re.findall(r'^import "(.*)";$', text, re.M)
    assert imports == sorted(imports) == [
        "example.com/apis/shared/v1/generated.proto",
        "k8s.io/apimachinery/pkg/api/resource/generated.proto",
        "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto",
        "k8s.io/apimachinery/pkg/util/intstr/generated.proto",
    ]
    assert '// Package-wide variables from generator "generated".\noption go_package = "example.com/apis/widgets/v1";' in text
    names = re.findall(r"^message (\w+) {", text, re.M)
    assert names == sorted(names)
    assert "TypeMeta" not in _message(text, "Widget")  # carried by the envelope, as upstream leaves it out


def test_fields_are_named_numbered_and_typed_as_upstream(tmp_path):
    spec = _message(_proto(tmp_path), "WidgetSpec")
    expected = [
        "optional WidgetCommon widgetCommon = 1;",  # an embedded struct: a field named after its type
        "optional TagList tags = 2;",  # +protobuf.nullable named slice: its wrapper message
        "map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 3;",  # map with a named key
        "map<string, Ports> portsByZone = 4;",  # map of a named slice: wrapper message values
        "optional int64 count = 5;",  # int -> int64
        "optional double ratio = 6;",  # float64 -> double
        "optional string shape = 8;",  # a named scalar -> its underlying scalar
        "optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time since = 9;",
        "optional .k8s.io.apimachinery.pkg.apis.meta.v1.Duration every = 10;",
        "optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString surge = 11;",
        "optional bytes blob = 12;",
        "optional ImportedSpec imported = 13;",
        "map<string, uint32> counts = 14;",
    ]
    fields = [line.strip() for line in spec.splitlines() if line.strip() and not line.strip().startswith(("//", "reserved"))]
    assert fields == expected
    # comments are copied as written, markers included, as go-to-protobuf copies them
    assert "  // Ratio is a float.\n  // +optional\n  optional double ratio = 6;" in spec


def test_wrapper_messages_for_named_slices(tmp_path):
    text = _proto(tmp_path)
    for name, item in (("TagList", "string"), ("Ports", "int32")):
        body = _message(text, name)
        assert body == f"  // items, if empty, will result in an empty slice\n\n  repeated {item} items = 1;\n"
    assert "// TagList is a list of tags.\n// +protobuf.nullable=true\nmessage TagList {" in text
    assert "message Zone" not in text and "message ResourceLimits" not in text  # scalars and plain maps are no messages


def test_defined_from_another_package_keeps_its_fields_and_numbers(tmp_path):
    text = _proto(tmp_path)
    body = _message(text, "ImportedSpec")
    assert "optional string name = 3;" in body
    assert "optional .example.com.apis.shared.v1.Mode mode = 5;" in body


def test_tombstones_are_reserved(tmp_path):
    spec = _message(_proto(tmp_path), "WidgetSpec")
    assert spec.startswith('  reserved 7;\n  reserved "legacyColor";\n\n')


def test_reusing_a_tombstoned_number_or_name_is_an_error(tmp_path):
    reused = WIDGETS.replace(
        "    // Shape is a named string.",
        '    // Paint reuses the tombstone.\n    Paint string `json:"legacyColor" protobuf:"bytes,7,opt,name=legacyColor"`\n\n    // Shape is a named string.',
    )
    errors = _errors(tmp_path, reused)
    assert len(errors) == 2, errors
    assert re.match(r".*widgets/v1/types.go:\d+:5: error: WidgetSpec.Paint reuses protobuf number 7 of the removed field 'legacyColor'", errors[0])
    assert "reuses the name 'legacyColor' of a removed field" in errors[1]


def test_a_member_without_a_tag_is_an_error_with_the_fix(tmp_path):
    untagged = WIDGETS.replace(' protobuf:"varint,5,opt,name=count"', "")
    (error,) = _errors(tmp_path, untagged)
    assert re.match(r".*widgets/v1/types.go:\d+:5: error: WidgetSpec.Count has no protobuf tag", error)
    assert "kgen protobuf-tags --write" in error


@pytest.mark.parametrize(
    "field, problem",
    [
        ('Nested map[string][]string `json:"nested" protobuf:"bytes,20,rep,name=nested"`', "declare a named type for the values"),
        ('Grid [][]int32 `json:"grid" protobuf:"bytes,20,rep,name=grid"`', "declare a named type for the items"),
        ('Same string `json:"same" protobuf:"bytes,5,opt,name=same"`', "both have protobuf number 5"),
        ('Odd string `json:"odd" protobuf:"bytes,19500,opt,name=odd"`', "protobuf number 19500 is not allowed"),
    ],
)
def test_shapes_protobuf_cannot_carry(tmp_path, field, problem):
    bad = WIDGETS.replace("    // Shape is a named string.", f"    {field}\n\n    // Shape is a named string.")
    errors = _errors(tmp_path, bad)
    assert any(problem in e for e in errors), errors


def test_a_type_from_a_package_without_protobuf_is_an_error(tmp_path):
    root = _project(tmp_path)
    (root / "shared/v1/doc.go").write_text("package v1\n")
    universe, diagnostics = build(root, module="example.com/apis")
    protobuf.check(universe, diagnostics)
    assert any("add +k8s:protobuf-gen=package to that package's doc.go" in str(e) for e in diagnostics.errors)


# -- compiled, converted, enveloped ----------------------------------------------------------


def test_compiles_and_round_trips(generate_project):
    files = {
        "widgets/v1/doc.go": DOC.format(version="v1"),
        "widgets/v1/types.go": WIDGETS,
        "shared/v1/doc.go": "// +k8s:protobuf-gen=package\npackage v1\n",
        "shared/v1/types.go": SHARED,
    }
    load, result = generate_project(files)
    paths = {f.path for f in result.files}
    assert {"widgets/v1/generated.proto", "widgets/v1/generated_pb2.py", "widgets/v1/generated_pb2.pyi", "widgets/v1/protobuf.py"} <= paths
    models = load("widgets.v1.models")
    load("widgets.v1.protobuf")
    pb2 = load("widgets.v1.generated_pb2")
    assert pb2.DESCRIPTOR.name == "example.com/apis/widgets/v1/generated.proto"
    widget = models.Widget.from_json(textwrap.dedent("""
        {"apiVersion": "widgets.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"a": "b"}},
         "spec": {"color": "red", "tags": ["x"], "limits": {"cpu": "1500m"}, "portsByZone": {"a": [80, 443], "b": []},
                  "count": -3, "ratio": 0.5, "shape": "round", "since": "2024-05-06T07:08:09Z", "every": "1h2m",
                  "surge": "10%", "blob": "AAEC", "imported": {"name": "n", "mode": {"fast": true}}, "counts": {"a": 4}}}
    """))
    data = runtime.encode(widget)
    back = runtime.decode(data)
    assert type(back) is models.Widget
    assert semantic_equal(widget, back), semantic_diff(widget, back)
    # an empty list in a wrapper comes back nil, as Go's unmarshaler gives it back
    assert widget.spec.ports_by_zone["b"] == [] and back.spec.ports_by_zone["b"] is None
    back.spec.ports_by_zone["b"] = []
    assert back.to_json() == widget.to_json()
    message = pb2.Widget.FromString(runtime.decode_envelope(data).raw)
    assert message.spec.widgetCommon.color == "red"
    assert list(message.spec.portsByZone["a"].items) == [80, 443]
    assert message.spec.limits["cpu"].string == "1500m"
    assert (message.spec.since.seconds, message.spec.every.duration) == (1714979289, 3720 * 10**9)
    assert (message.spec.surge.type, message.spec.surge.strVal) == (1, "10%")


def test_envelope_bytes():
    body = runtime.encode_envelope("example.kgen.dev/v1", "Frobber", b"\x0a\x00")
    # magic, then Unknown: typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3, contentType=4
    assert body == (
        b"k8s\x00" + b"\x0a\x1e" + b"\x0a\x13example.kgen.dev/v1" + b"\x12\x07Frobber"
        + b"\x12\x02\x0a\x00" + b"\x1a\x00" + b"\x22\x00"
    )  # fmt: skip
    envelope = runtime.decode_envelope(body)
    assert (envelope.api_version, envelope.kind, envelope.raw) == ("example.kgen.dev/v1", "Frobber", b"\x0a\x00")
    with pytest.raises(runtime.ProtobufError, match="does not start with"):
        runtime.decode_envelope(b'{"kind": "Frobber"}')
    with pytest.raises(runtime.ProtobufError, match="not a runtime.Unknown"):
        runtime.decode_envelope(b"k8s\x00\xff\xff")
    with pytest.raises(runtime.ProtobufError, match="no protobuf converters for Gizmo"):
        runtime.decode(runtime.encode_envelope("x/v1", "Gizmo", b""))


sys.path.insert(0, str(REPO))
from generated.example.v1 import register as v1_register  # noqa: E402
from generated.example.v1beta1 import register as beta_register  # noqa: E402

KINDS = [(register, kind) for register in (v1_register, beta_register) for kind in register.KINDS]


@pytest.mark.slow
@pytest.mark.parametrize("register, kind", KINDS, ids=[f"{r.GROUP_VERSION.version}.{k}" for r, k in KINDS])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_example_kind_round_trips_through_protobuf(register, kind, data):
    package = register.__name__.rsplit(".", 1)[0]
    importlib.import_module(f"{package}.protobuf")
    strategies = importlib.import_module(f"{package}.strategies")
    obj = data.draw(getattr(strategies, strategy_name(register.KINDS[kind].__name__))())
    back = runtime.unmarshal(type(obj), runtime.marshal(obj))
    assert semantic_equal(obj, back), semantic_diff(obj, back)
    # Into the same class: the envelope names only the kind, and another model backend's
    # copy of this API (the msgspec example) may be registered for it in this process too.
    enveloped = runtime.decode(runtime.encode(obj), type(obj))
    assert semantic_equal(obj, enveloped), semantic_diff(obj, enveloped)
    assert type(runtime.decode(runtime.encode(obj))).__name__ == type(obj).__name__
    assert runtime.marshal(back) == runtime.marshal(obj)  # deterministic: the same object, the same bytes


# -- kgen protobuf-tags ---------------------------------------------------------------------


def test_protobuf_tags_adds_the_next_numbers_and_nothing_else(tmp_path, cli):
    untagged = (
        WIDGETS.replace(' protobuf:"varint,5,opt,name=count"', "")
        .replace(' protobuf:"bytes,12,opt,name=blob"', "")
        .replace('Shape Shape `json:"shape" protobuf:"bytes,8,opt,name=shape,casttype=Shape"`', "Shape Shape // no tag at all")
    )
    root = _project(tmp_path, untagged)
    (tmp_path / "apis/go.mod").write_text("module example.com/apis\n")
    path = root / "widgets/v1/types.go"
    before = path.read_bytes()
    listed = cli(["protobuf-tags", "--input", "apis"], tmp_path)
    assert listed.exit_code == 1
    assert path.read_bytes() == before  # without --write nothing changes
    assert re.search(r'types.go:\d+:5: WidgetSpec.Count: protobuf:"varint,15,opt,name=count"', listed.output)
    written = cli(["protobuf-tags", "--input", "apis", "--write"], tmp_path)
    assert written.exit_code == 0, written.output
    after = path.read_text()
    # highest (14) + 1 in field order; named types get go-to-protobuf's casttype
    assert 'Count int `json:"count" protobuf:"varint,15,opt,name=count"`' in after
    assert 'Shape Shape `protobuf:"bytes,16,opt,name=shape,casttype=Shape"` // no tag at all' in after
    assert 'Blob []byte `json:"blob,omitempty" protobuf:"bytes,17,opt,name=blob"`' in after
    removed = (after.replace(' protobuf:"varint,15,opt,name=count"', "").replace(' protobuf:"bytes,17,opt,name=blob"', "")
               .replace(' `protobuf:"bytes,16,opt,name=shape,casttype=Shape"`', ""))  # fmt: skip
    assert removed.encode() == before  # every other byte as it was
    again = cli(["protobuf-tags", "--input", "apis"], tmp_path)
    assert again.exit_code == 0 and "every member" in again.output


def test_new_numbers_skip_tombstones(tmp_path):
    untagged = WIDGETS.replace(
        "// +k8s:deprecated=legacyColor,protobuf=7", "// +k8s:deprecated=legacyColor,protobuf=7\n// +k8s:deprecated=legacySize,protobuf=30"
    ).replace(' protobuf:"varint,5,opt,name=count"', "")
    universe, diagnostics = build(_project(tmp_path, untagged), module="example.com/apis")
    (addition,) = missing(universe, diagnostics)
    assert addition.tag == "varint,31,opt,name=count"


def test_insert_tags_into_interpreted_tag_strings():
    source = b'package v1\n\ntype T struct {\n\tA string "json:\\"a\\""\n\tB, C int\n}\n'
    out = insert_tags(source, [(4, 2, "bytes,1,opt,name=a")])
    assert out == b'package v1\n\ntype T struct {\n\tA string "json:\\"a\\" protobuf:\\"bytes,1,opt,name=a\\""\n\tB, C int\n}\n'


def test_members_sharing_a_declaration_are_not_numbered(tmp_path):
    shared_line = WIDGETS.replace(
        "    // Shape is a named string.", '    Left, Right int32\n\n    // Shape is a named string.'
    )
    universe, diagnostics = build(_project(tmp_path, shared_line), module="example.com/apis")
    missing(universe, diagnostics)
    assert any("Left, Right share one declaration" in str(e) for e in diagnostics.errors)


def test_a_field_tagged_protobuf_dash_is_left_out_of_the_message(tmp_path, monkeypatch):
    from conftest import build, messages, write_tree

    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {
        "v1/doc.go": "// +k8s:protobuf-gen=package\n// +groupName=things.example.com\npackage v1\n",
        "v1/types.go": 'package v1\n\ntype Thing struct {\n\tName string `json:"name" protobuf:"bytes,1,opt,name=name"`\n'
                       '\tCache string `json:"cache,omitempty" protobuf:"-"`\n}\n',
    })  # fmt: skip
    universe, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert messages(diagnostics) == []
    members = universe.package("example.com/apis/v1").type("Thing").members
    assert [(m.go_name, m.protobuf is not None) for m in members] == [("Name", True), ("Cache", False)]
