"""The conformance command's comparisons, on small documents of our own: what counts as
equal, and how differences are grouped."""

from __future__ import annotations

from bench.conformance.compare import (
    compare_conversions,
    compare_crds,
    marker_rule_text,
    compare_swagger,
    conversion_keys_go,
    flatten_schema,
)


def test_swagger_properties_compare_types_refs_items_and_extensions_but_not_descriptions():
    upstream = {"definitions": {
        "io.k8s.api.x.v1.A": {
            "required": ["a"],
            "properties": {
                "a": {"type": "string", "description": "upstream words"},
                "b": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.x.v1.B"}, "x-kubernetes-list-type": "atomic"},
                "c": {"type": "integer", "format": "int32"},
            },
            "x-kubernetes-group-version-kind": [{"group": "x", "kind": "A", "version": "v1"}],
        },
        "io.k8s.api.x.v1.Missing": {"properties": {"m": {"type": "string"}}},
        "io.other.Ignored": {"properties": {"z": {"type": "string"}}},
    }}  # fmt: skip
    ours = {"definitions": {
        "io.k8s.api.x.v1.A": {
            "properties": {
                "a": {"type": "string", "description": "kgen's words"},
                "b": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.x.v1.B"}},
                "c": {"type": "integer", "format": "int64"},
            },
            "x-kubernetes-group-version-kind": [{"group": "x", "kind": "A", "version": "v1"}],
        },
    }}  # fmt: skip
    score, missing = compare_swagger(upstream, ours, ("io.k8s.api.",))
    assert (score.equal, score.total) == (1, 5)
    assert missing == ["io.k8s.api.x.v1.Missing"]
    assert dict(score.differences) == {"required": 1, "x-kubernetes-list-type": 1, "format": 1, "missing property": 1}


def test_crd_schemas_flatten_to_paths_without_descriptions():
    schema = {"type": "object", "description": "d", "properties": {
        "spec": {"type": "object", "properties": {"ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    }}  # fmt: skip
    assert flatten_schema(schema) == {
        ".": {"type": "object"}, ".spec": {"type": "object"}, ".spec.ports": {"type": "array"},
        ".spec.ports[]": {"type": "object"}, ".spec.ports[].name": {"type": "string"},
        ".labels": {"type": "object"}, ".labels{}": {"type": "string"},
    }  # fmt: skip


def _crd(schema: dict, rules: list | None = None, storage: bool = True) -> dict:
    if rules:
        schema = dict(schema, **{"x-kubernetes-validations": rules})
    return {
        "kind": "CustomResourceDefinition", "metadata": {"name": "things.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Thing", "plural": "things"}, "scope": "Namespaced",
                 "versions": [{"name": "v1", "served": True, "storage": storage, "schema": {"openAPIV3Schema": schema}}]},
    }  # fmt: skip


def test_crds_compare_paths_rules_and_version_flags():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    upstream = {"things.example.com": _crd(schema, [{"rule": "self.n > 0", "message": "m"}])}
    ours = {"things.example.com": _crd({"type": "object", "properties": {"n": {"type": "integer"}}}, [{"message": "m", "rule": "self.n > 0"}], storage=False)}
    scores = compare_crds(upstream, ours)
    assert (scores["paths"].equal, scores["paths"].total) == (1, 2)  # `.n` lacks its minimum
    assert scores["paths"].differences["minimum"] == 1
    assert (scores["rules"].equal, scores["rules"].total) == (1, 1)  # the same rule, whatever the key order
    assert scores["parts"].differences == {"version storage": 1}


def test_rules_no_marker_of_the_source_holds_are_counted_apart():
    schema = {"type": "object"}
    rules = [{"rule": "self.a == 1"}, {"rule": "self.b != \"x\""}]
    upstream = {"things.example.com": _crd(schema, rules)}
    ours = {"things.example.com": _crd(schema, rules[:1])}
    source = 'package v1\n// +kubebuilder:validation:XValidation:rule="self.a == 1"\n// <gateway:experimental:validation:XValidation:rule="self.b != \\"x\\"">\n'
    scores = compare_crds(upstream, ours, marker_rule_text([source]))
    assert (scores["rules"].equal, scores["rules"].total) == (1, 1)
    assert (scores["rules outside markers"].equal, scores["rules outside markers"].total) == (0, 1)


def test_conversion_functions_are_matched_by_versions_and_types():
    go = (
        "func Convert_v1beta1_Cluster_To_v1beta2_Cluster(in *Cluster, out *v1beta2.Cluster, s conversion.Scope) error {\n"
        "func Convert_v1_Carp_To_testapigroup_Carp(in *Carp, out *testapigroup.Carp, s conversion.Scope) error {\n"
        "func Convert_v1beta1_Gone_To_v1beta2_Gone(in *Gone, out *v1beta2.Gone, s conversion.Scope) error {\n"
    )
    assert [k[1:] for k in conversion_keys_go(go)][1] == ("v1", "Carp", "internal", "Carp")
    python = "def convert_v1beta1_Cluster_to_v1beta2_Cluster(src, dst, scope):\ndef convert_v1_Carp_to_internal_Carp(src, dst, scope):\n"
    score = compare_conversions([go], [python])
    assert (score.equal, score.total) == (2, 3)
    assert score.examples["no kgen equivalent"] == ["Convert_v1beta1_Gone_To_v1beta2_Gone"]


def test_apimachinery_tables_are_read_and_scored(tmp_path):
    """The reader of apimachinery's test tables, on tables of our own written in their style:
    a value list, a keyed strfmt table and quantity rows; one deliberately wrong case fails."""
    from bench.conformance.apimachinery import run

    validation = tmp_path / "pkg/util/validation"
    validation.mkdir(parents=True)
    (validation / "validation_test.go").write_text('''package validation

func TestIsDNS1123Label(t *testing.T) {
	goodValues := []string{"a", "ab-c", strings.Repeat("a", 63)}
	for _, val := range goodValues {
		if msgs := IsDNS1123Label(val); len(msgs) != 0 {
			t.Errorf("expected true for '%s': %v", val, msgs)
		}
	}
	badValues := []string{"", "A", "a.b", "wrong-but-listed-as-bad-is-fine-", "fine"}
	for _, val := range badValues {
		if msgs := IsDNS1123Label(val); len(msgs) == 0 {
			t.Errorf("expected false for '%s'", val)
		}
	}
}
''')
    strfmt = tmp_path / "pkg/api/validate"
    strfmt.mkdir(parents=True)
    (strfmt / "strfmt_test.go").write_text('''package validate

func TestShortName(t *testing.T) {
	fldPath := field.NewPath("test")
	testCases := []struct {
		name     string
		input    string
		wantErrs field.ErrorList
	}{{
		name:  "valid",
		input: "abc",
	}, {
		name:  "too long",
		input: strings.Repeat("a", 64),
		wantErrs: field.ErrorList{
			field.Invalid(fldPath, nil, "must be no more than 63 bytes").WithOrigin("format=k8s-short-name"),
		},
	}}
}
''')
    quantity = tmp_path / "pkg/api/resource"
    quantity.mkdir(parents=True)
    (quantity / "quantity_test.go").write_text('''package resource

func TestQuantityParse(t *testing.T) {
	table := []struct {
		input  string
		expect Quantity
	}{
		{"1Ki", decQuantity(1024, 0, BinarySI)},
		{"1.5", decQuantity(15, -1, DecimalSI)},
	}
	invalid := []string{"1 ", "aoeu"}
}

func TestQuantityString(t *testing.T) {
	table := []struct {
		in        Quantity
		expect    string
		alternate string
	}{
		{decQuantity(1024*1024, 0, BinarySI), "1Mi", "1024Ki"},
	}
}
''')
    areas = run(tmp_path)
    label = areas["IsDNS1123Label"]
    assert (label.passed, len(label.failed)) == (7, 1)  # "fine" is listed as bad but is a label
    assert "'fine'" in label.failed[0]
    assert (areas["format=k8s-short-name"].passed, areas["format=k8s-short-name"].failed) == (2, [])
    assert areas["Quantity parse: value and format"].passed == 6  # each row as is, with -, with +
    assert areas["Quantity parse: rejected inputs"].passed == 3  # and the empty string
    assert areas["Quantity canonical string"].passed == 2


def test_lint_scoring_reads_want_comments_and_finds_them_among_findings(tmp_path, monkeypatch):
    """kube-api-linter's test packages say what each line reports in `// want "regexp"`
    comments (golang.org/x/tools analysistest); kgen lint is scored against them."""
    from bench.conformance import lint as lint_scores

    linter = tmp_path / "pkg" / "analysis" / "nobools" / "testdata" / "src" / "a"
    linter.mkdir(parents=True)
    (linter / "a.go").write_text(
        "package a\n\ntype T struct {\n"
        '\tOn bool // want "field T.On should not use a bool"\n'
        "\tOff *bool // want `field T\\.Off pointer should not`\n"
        "\tCount int32\n}\n"
    )
    wants = lint_scores.expectations([linter / "a.go"])
    assert [(w.line, w.pattern) for w in wants] == [(4, "field T.On should not use a bool"), (5, r"field T\.Off pointer should not")]
    monkeypatch.setattr(lint_scores, "CASES", [("nobools", "a", {}, False)])
    recall, precision, _, (result,) = lint_scores.score_kube_api_linter(tmp_path)
    assert (recall.equal, recall.total, precision.equal, precision.total) == (2, 2, 2, 2)
    assert result.missed == [] and result.unexpected == []
    assert lint_scores._triple("k8s.io/api/core/v1.PodSpec.Containers") == ("k8s.io/api/core/v1", "PodSpec", "Containers")
