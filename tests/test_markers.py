"""The marker grammar and registry: every form, typed values, and diagnostics."""

from __future__ import annotations

import pytest

from kgen.diagnostics import Diagnostics, Position
from kgen.markers.grammar import RawMarker, doc_lines, extract_markers
from kgen.markers.registry import REGISTRY, Marker, Scope
from kgen.source.syntax import CommentBlock, CommentLine

FIELD, TYPE, PACKAGE = Scope.FIELD, Scope.TYPE, Scope.PACKAGE


def parse(text: str, scope: Scope = FIELD):
    diagnostics = Diagnostics()
    marker = REGISTRY.parse(RawMarker(text, Position("types.go", 7, 5)), scope, diagnostics)
    return marker, [str(d) for d in diagnostics.items]


@pytest.mark.parametrize(
    "text, scope, name, value, args",
    [
        ("optional", FIELD, "optional", None, {}),
        ("genclient", TYPE, "genclient", None, {}),
        ("genclient:nonNamespaced", TYPE, "genclient:nonNamespaced", None, {}),
        ("groupName=example.com", PACKAGE, "groupName", "example.com", {}),
        ("k8s:minimum=0", FIELD, "k8s:minimum", 0, {}),
        ("k8s:maxLength=63", FIELD, "k8s:maxLength", 63, {}),
        ("default=1", FIELD, "default", 1, {}),
        ('default="Always"', FIELD, "default", "Always", {}),
        ('default={"a": [1, 2]}', FIELD, "default", {"a": [1, 2]}, {}),
        ("listType=map", FIELD, "listType", "map", {}),
        ("listMapKey=name", FIELD, "listMapKey", "name", {}),
        ("kubebuilder:validation:Minimum:=1", FIELD, "kubebuilder:validation:Minimum", 1, {}),
        ("kubebuilder:validation:Maximum=2.5", FIELD, "kubebuilder:validation:Maximum", 2.5, {}),
        ("kubebuilder:validation:Enum=A;B;C", FIELD, "kubebuilder:validation:Enum", ["A", "B", "C"], {}),
        ("kubebuilder:validation:Pattern=`^[a-z]+$`", FIELD, "kubebuilder:validation:Pattern", "^[a-z]+$", {}),
        ("kubebuilder:default=Always", FIELD, "kubebuilder:default", "Always", {}),
        # controller-gen's own value syntax, as Gateway API's types write their defaults.
        ('kubebuilder:default={{matches: {{path: {type: "PathPrefix", value: "/"}}}}}', FIELD, "kubebuilder:default",
         [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}], {}),
        ('kubebuilder:default={type: "PathPrefix", value: "/"}', FIELD, "kubebuilder:default",
         {"type": "PathPrefix", "value": "/"}, {}),
        ("kubebuilder:default={}", FIELD, "kubebuilder:default", {}, {}),
        ("kubebuilder:default={a,b}", FIELD, "kubebuilder:default", ["a", "b"], {}),
        ("kubebuilder:default={1, 2}", FIELD, "kubebuilder:default", [1, 2], {}),
        ("kubebuilder:default=a;b", FIELD, "kubebuilder:default", ["a", "b"], {}),
        ("kubebuilder:default={port: 80, tls: false, ratio: -0.5, tags: {x, y}}", FIELD, "kubebuilder:default",
         {"port": 80, "tls": False, "ratio": -0.5, "tags": ["x", "y"]}, {}),
        ("kubebuilder:default=100Mi", FIELD, "kubebuilder:default", "100Mi", {}),
        ("kubebuilder:default=08", FIELD, "kubebuilder:default", "08", {}),  # not a Go integer: a string
        ("kubebuilder:default=https://example.com/a", FIELD, "kubebuilder:default", "https://example.com/a", {}),
        ('kubebuilder:default={msg: "a, b: c"}', FIELD, "kubebuilder:default", {"msg": "a, b: c"}, {}),
        ("kubebuilder:default={a: x y}", FIELD, "kubebuilder:default", {"a": "x y"}, {}),
        ("k8s:subfield(name)=+k8s:format=k8s-short-name", FIELD, "k8s:subfield",
         Marker(name="k8s:format", value="k8s-short-name", position="types.go:7:5"), {"": "name"}),
        ('k8s:item(name: "http", port: 80)=+k8s:immutable', FIELD, "k8s:item",
         Marker(name="k8s:immutable", position="types.go:7:5"), {"name": "http", "port": "80"}),
        ('k8s:ifEnabled("FrobberTurbo")=+k8s:required', FIELD, "k8s:ifEnabled",
         Marker(name="k8s:required", position="types.go:7:5"), {"": "FrobberTurbo"}),
        ("k8s:update=NoSet;NoModify", FIELD, "k8s:update", ["NoSet", "NoModify"], {}),
        ("genclient:onlyVerbs=create,get", TYPE, "genclient:onlyVerbs", ["create", "get"], {}),
        ("kubebuilder:resource:path=frobbers,scope=Cluster,shortName={fb,frob}", TYPE, "kubebuilder:resource",
         None, {"path": "frobbers", "scope": "Cluster", "shortName": ["fb", "frob"]}),
        ('kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",priority=1', TYPE,
         "kubebuilder:printcolumn", None,
         {"name": "Age", "type": "date", "JSONPath": ".metadata.creationTimestamp", "priority": 1}),
        ("kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas", TYPE,
         "kubebuilder:subresource:scale", None, {"specpath": ".spec.replicas", "statuspath": ".status.replicas"}),
        ("kubebuilder:subresource:status", TYPE, "kubebuilder:subresource:status", None, {}),
        ("k8s:deprecated=legacyMode,protobuf=9", TYPE, "k8s:deprecated", "legacyMode,protobuf=9", {}),
    ],
)  # fmt: skip
def test_marker_forms(text, scope, name, value, args):
    marker, problems = parse(text, scope)
    assert problems == []
    assert (marker.name, marker.value, marker.args) == (name, value, args)


def test_chained_marker_with_named_arguments():
    marker, problems = parse('k8s:beta(since: "1.37")=+k8s:optional')
    assert problems == []
    assert marker.args == {"since": "1.37"}
    assert marker.value.name == "k8s:optional"


def test_chains_nest():
    marker, _ = parse("k8s:eachVal=+k8s:eachKey=+k8s:maxLength=10")
    assert (marker.value.name, marker.value.value.name, marker.value.value.value) == (
        "k8s:eachKey", "k8s:maxLength", 10,
    )  # fmt: skip


def test_cel_rule_with_quotes_commas_semicolons_and_equals():
    rule = r'kubebuilder:validation:XValidation:rule="self.a == \"x,y;z=1\" || self.b != \"\"",message="must, be; ok",reason=FieldValueInvalid'
    marker, problems = parse(rule)
    assert problems == []
    assert marker.args == {
        "rule": 'self.a == "x,y;z=1" || self.b != ""',
        "message": "must, be; ok",
        "reason": "FieldValueInvalid",
    }


@pytest.mark.parametrize(
    "text, scope, problem",
    [
        ("k8s:minimum=abc", FIELD, "types.go:7:5: error: invalid value for +k8s:minimum: must be an integer, got 'abc'"),
        ("k8s:maxItems", FIELD, "types.go:7:5: error: marker +k8s:maxItems needs a value (integer), as in +k8s:maxItems=..."),
        ("listType=bag", FIELD, "types.go:7:5: error: invalid value for +listType: must be one of atomic, set, map, got 'bag'"),
        ("default=Always", FIELD,
         "types.go:7:5: error: invalid value for +default: must be a JSON value (strings in double quotes, "
         "e.g. \"Always\"), got 'Always': Expecting value"),
        ("optional=yes", FIELD, "types.go:7:5: error: marker +optional is a flag and takes no value"),
        ("kubebuilder:default={1, x}", FIELD,
         "types.go:7:5: error: invalid value for +kubebuilder:default: must be JSON or controller-gen's value syntax "
         "({key: value} maps, {a, b} lists, quoted or bare strings), got '{1, x}': expected an integer at offset 4, "
         "like the list's first item, found 'x'"),
        ("kubebuilder:default={a: 1", FIELD,
         "types.go:7:5: error: invalid value for +kubebuilder:default: must be JSON or controller-gen's value syntax "
         "({key: value} maps, {a, b} lists, quoted or bare strings), got '{a: 1': expected '}' at offset 5, found the end"),
        ("k8s:eachVal=k8s:minimum=0", FIELD,
         "types.go:7:5: error: marker +k8s:eachVal needs another marker as its value, as in +k8s:eachVal=+k8s:minimum=0"),
        ("kubebuilder:resource:scope=Everywhere", TYPE,
         "types.go:7:5: error: marker +kubebuilder:resource: argument 'scope' must be one of Namespaced, Cluster, got 'Everywhere'"),
        ("kubebuilder:printcolumn:name=x,colour=red", TYPE,
         "types.go:7:5: error: marker +kubebuilder:printcolumn: unknown argument 'colour' "
         "(expected name, type, JSONPath, description, format, priority)"),
        ("k8s:subfield(name=+k8s:optional", FIELD, "types.go:7:5: error: marker +k8s:subfield(name=+k8s:optional has an unclosed '('"),
        ("k8s:frobnicate=1", FIELD, "types.go:7:5: warning: unknown marker +k8s:frobnicate; did you mean +k8s:format?"),
        ("kubebuilder:validation:Minimun=1", FIELD,
         "types.go:7:5: warning: unknown marker +kubebuilder:validation:Minimun; did you mean +kubebuilder:validation:Minimum?"),
        ("optional", TYPE, "types.go:7:5: warning: marker +optional is for fields; on a type it has no effect"),
        ("groupName=x", FIELD, "types.go:7:5: warning: marker +groupName is for packages; on a field it has no effect"),
    ],
)  # fmt: skip
def test_problems_are_reported_with_location(text, scope, problem):
    marker, problems = parse(text, scope)
    assert marker is None
    assert problems == [problem]


def test_markers_under_unknown_prefixes_are_ignored_silently():
    marker, problems = parse("someothertool:setting=1")
    assert marker is None and problems == []


def test_extraction_finds_markers_and_leaves_the_doc():
    lines = [
        " Replicas is the number of workers.",
        " +optional",
        "+k8s:minimum=0",
        "   +default=1",
        " a + b is not a marker; neither is +5 or a lone +",
        " +",
    ]
    block = CommentBlock(tuple(CommentLine(Position("t.go", 10 + i, 2), t) for i, t in enumerate(lines)))
    assert [(m.text, m.position.line, m.position.col) for m in extract_markers(block)] == [
        ("optional", 11, 5),
        ("k8s:minimum=0", 12, 4),
        ("default=1", 13, 7),
    ]
    assert doc_lines(block) == [
        "Replicas is the number of workers.",
        "a + b is not a marker; neither is +5 or a lone +",
        "+",
    ]


def test_registry_covers_the_upstream_families():
    names = set(REGISTRY.definitions)
    for expected in [
        "k8s:deepcopy-gen", "k8s:deepcopy-gen:interfaces", "k8s:defaulter-gen", "k8s:conversion-gen",
        "k8s:conversion-fn", "k8s:openapi-gen", "k8s:protobuf-gen", "k8s:optional", "k8s:required",
        "k8s:minimum", "k8s:format", "k8s:enum", "k8s:listType", "k8s:listMapKey", "k8s:eachVal",
        "k8s:subfield", "k8s:unionMember", "k8s:immutable", "k8s:update", "k8s:deprecated", "genclient",
        "genclient:nonNamespaced", "genclient:method", "groupName", "optional", "required", "default",
        "listType", "listMapKey", "mapType", "structType", "patchStrategy", "patchMergeKey", "union",
        "unionDiscriminator", "enum", "featureGate", "kubebuilder:object:root", "kubebuilder:resource",
        "kubebuilder:printcolumn", "kubebuilder:validation:XValidation", "kubebuilder:validation:items:MaxLength",
        "kubebuilder:default", "kubebuilder:storageversion",
    ]:  # fmt: skip
        assert expected in names, expected


def test_markers_without_a_space_after_the_slashes():
    from conftest import parse as parse_go

    go_file, _ = parse_go(
        """
        package v1

        //+genclient
        //+kubebuilder:object:root=true

        // Widget is a widget.
        type Widget struct{}
        """
    )
    widget = go_file.types[0]
    raws = extract_markers(widget.prior)
    assert [(m.text, m.position.col) for m in raws] == [("genclient", 3), ("kubebuilder:object:root=true", 3)]
    parsed = [REGISTRY.parse(raw, TYPE, Diagnostics()) for raw in raws]
    assert [(m.name, m.value) for m in parsed] == [("genclient", None), ("kubebuilder:object:root", True)]


@pytest.mark.parametrize(
    "text, name, value",
    [
        # gengo's codetags: whitespace and `#` end a validation-gen tag.
        ("k8s:maximum=1000000000 # HighestUserDefinablePriority", "k8s:maximum", 1000000000),
        ("k8s:validation-gen-nolint // Note: remove this when the API is GA", "k8s:validation-gen-nolint", None),
        ('k8s:format="k8s-long-name" # a comment', "k8s:format", "k8s-long-name"),
        # No whitespace before the `#`: part of the value.
        ("k8s:neq=a#b", "k8s:neq", "a#b"),
    ],
)
def test_validation_gen_tags_end_at_a_trailing_comment(text, name, value):
    marker, problems = parse(text)
    assert problems == []
    assert (marker.name, marker.value) == (name, value)


def test_a_kubebuilder_value_keeps_its_hash():
    marker, problems = parse("kubebuilder:validation:Pattern=`^#[0-9a-f]{6} #x$`")
    assert problems == [] and marker.value == "^#[0-9a-f]{6} #x$"


@pytest.mark.parametrize(
    "text, package, name",
    [
        ("default=ref(AzureDataDiskCachingReadWrite)", "", "AzureDataDiskCachingReadWrite"),
        ("default=ref(sigs.k8s.io/cluster-api/api/core/v1beta2.FieldValueInvalid)", "sigs.k8s.io/cluster-api/api/core/v1beta2", "FieldValueInvalid"),
    ],
)
def test_default_may_name_a_constant(text, package, name):
    from kgen.markers.registry import ConstRef

    marker, problems = parse(text)
    assert problems == [] and marker.value == ConstRef(package=package, name=name)


@pytest.mark.parametrize(
    "text, name",
    [
        ('k8s:alpha(since: "1.36")=+k8s:member("Limited")=+k8s:required', "k8s:alpha"),
        ('k8s:beta(since: "1.37")=+k8s:ifMode("Queue")=+k8s:required', "k8s:beta"),
        ('k8s:alpha(since: "1.36")=+k8s:discriminator', "k8s:alpha"),
        ('k8s:beta(since: "1.37")=+k8s:modeDiscriminator', "k8s:beta"),
        ('k8s:alpha(since: "1.37")=+k8s:dependentRequired("capacityKey")', "k8s:alpha"),
        ('k8s:dependentForbidden("schedulingGroup")', "k8s:dependentForbidden"),
        ("k8s:customUnique", "k8s:customUnique"),
        ("k8s:customValidation", "k8s:customValidation"),
    ],
)
def test_validation_gen_136_tags_are_known(text, name):
    marker, problems = parse(text)
    assert problems == [] and marker.name == name


def test_conversion_from_query_parameters_is_known_on_types():
    marker, problems = parse("k8s:conversion-gen:explicit-from=net/url.Values", TYPE)
    assert problems == [] and marker.value == "net/url.Values"
