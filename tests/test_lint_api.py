"""Lint rules that read the whole API (the IR): openapi-gen's API rules, CEL rule costs,
markers across the versions of a kind; and how the profile, settings and baseline are
chosen and applied."""

from __future__ import annotations

import json

import pytest

from lint_helpers import BUILTIN_GROUP, CRD_GROUP, options, run, run_result, settings, write_package
from kgen.findings import Severity
from kgen.lint import baseline
from kgen.lint.config import read_settings
from kgen.lint.run import lint
from kgen.options import OptionsError

# -- openapi-gen's API rules (kube-openapi pkg/generators/rules: names_match.go,
# omitempty_match_case.go, list_type_missing.go), as kgen's OpenAPI generator reports them


def test_names_match(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(
        tmp_path, 'type Spec struct {\n\tPodCIDR string `json:"podCidr"`\n\tPort int32 `json:"port"`\n}', BUILTIN_GROUP
    )
    (found,) = run(tmp_path, "names_match")
    assert found.message == (
        "API rule violation: names_match,example.com/apis/v1,Spec,PodCIDR: the JSON name must be the Go name with its "
        "initial capital (or acronym) lower-cased"
    )
    assert (found.line, found.col) == (10, 2)
    write_package(tmp_path, 'type Spec struct {\n\tPodCIDR string `json:"podCIDR"`\n}', BUILTIN_GROUP)
    assert run(tmp_path, "names_match") == []


def test_omitempty_match_case_and_its_fix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write_package(tmp_path, 'type Spec struct {\n\tPort int32 `json:"port,omitEmpty"`\n}', BUILTIN_GROUP)
    (found,) = run(tmp_path, "omitempty_match_case")
    assert found.message == (
        "API rule violation: omitempty_match_case,example.com/apis/v1,Spec,Port: write `omitempty` in lower case"
    )
    from lint_helpers import run_fix

    result = run_fix(tmp_path, "omitempty_match_case")
    assert result.fixed == 1 and result.findings == []
    assert 'Port int32 `json:"port,omitempty"`' in path.read_text()


def test_list_type_missing_and_the_exceptions_list(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(
        tmp_path, 'type Spec struct {\n\tNames []string `json:"names"`\n\tTags []string `json:"tags"`\n}', BUILTIN_GROUP
    )
    assert [f.message for f in run(tmp_path, "list_type_missing")] == [
        "API rule violation: list_type_missing,example.com/apis/v1,Spec,Names: say how the list merges with "
        "+listType=atomic, +listType=set or +listType=map",
        "API rule violation: list_type_missing,example.com/apis/v1,Spec,Tags: say how the list merges with "
        "+listType=atomic, +listType=set or +listType=map",
    ]
    # a violation the input accepts in api-rules/violation_exceptions.list is no finding, as for openapi-gen
    rules = tmp_path / "apis" / "api-rules"
    rules.mkdir()
    (rules / "violation_exceptions.list").write_text(
        "API rule violation: list_type_missing,example.com/apis/v1,Spec,Names\n"
    )
    assert [f.subject for f in run(tmp_path, "list_type_missing")] == ["example.com/apis/v1.Spec.Tags"]


# -- celcost -------------------------------------------------------------------------------

EXPENSIVE = """
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec WidgetSpec `json:"spec"`
}

// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}

type WidgetSpec struct {
	// +kubebuilder:validation:XValidation:rule="self.all(a, self.all(b, a != b || a == b))"
	// +listType=atomic
	{bound}
	Names []string `json:"names"`
}
"""


def test_celcost_reports_a_rule_over_the_budget_at_its_marker(tmp_path, monkeypatch):
    """apiextensions-apiserver refuses a CRD whose rule's estimated cost exceeds the per-rule
    limit (pkg/apis/apiextensions/validation/validation.go, validateCustomResourceDefinitionValidation)."""
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, EXPENSIVE.replace("\t{bound}\n", ""))
    total, rule = run(tmp_path, "celcost")
    assert {total.severity, rule.severity} == {Severity.ERROR}
    assert (rule.line, rule.col) == (24, 5)  # the XValidation marker
    assert rule.message == (
        "CRD Widget v1: rule 'self.all(a, self.all(b, a != b || a == b))' at "
        "openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule "
        "cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, "
        "and maxLength where arrays, maps, and strings are declared); the API server rejects the CRD"
    )
    assert total.line == 10  # the kind
    assert total.message.startswith(
        "CRD Widget v1: at openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire "
        "OpenAPIv3 schema exceeds budget by factor of more than 100x"
    )
    write_package(
        tmp_path,
        EXPENSIVE.replace(
            "{bound}", "// +kubebuilder:validation:MaxItems=10\n\t// +kubebuilder:validation:items:MaxLength=10"
        ),
    )
    assert run(tmp_path, "celcost") == []


# -- versionmarkers ------------------------------------------------------------------------

VERSION = """
// +kubebuilder:object:root=true
{storage}
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec WidgetSpec `json:"spec"`
}

// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}

type WidgetSpec struct {
	{ports}
	Ports []Port `json:"ports"`
}

type Port struct {
	Name string `json:"name"`
}
"""


def _version(storage: str, ports: str) -> str:
    return VERSION.replace("{storage}", storage).replace("{ports}", ports)


def test_versionmarkers_list_semantics_differ_between_versions(tmp_path, monkeypatch):
    """Apply merges a list by the listType of the request's version (structured-merge-diff
    through the version's OpenAPI schema): versions must agree."""
    monkeypatch.chdir(tmp_path)
    mapped = "// +listType=map\n\t// +listMapKey=name"
    write_package(tmp_path, _version("// +kubebuilder:storageversion", mapped), version="v1")
    write_package(tmp_path, _version("", "// +listType=atomic"), version="v1beta1")
    (found,) = run(tmp_path, "versionmarkers")
    assert found.path == "apis/v1beta1/types.go"
    assert found.message == (
        "Widget v1beta1 field spec.ports is +listType=atomic but +listMapKey=name, +listType=map in v1 "
        "(apis/v1/types.go:27:2): apply and patch through the two versions would merge or change it differently"
    )
    write_package(tmp_path, _version("", mapped), version="v1beta1")
    assert run(tmp_path, "versionmarkers") == []


# -- profiles, settings, baseline -----------------------------------------------------------


def test_profile_follows_the_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, "type Spec struct{}", CRD_GROUP)
    assert run_result(tmp_path).profile == "crd"
    write_package(tmp_path, "type Spec struct{}", BUILTIN_GROUP)
    result = run_result(tmp_path)
    assert result.profile == "builtin"
    assert "nonpointerstructs" in {r.rule.id for r in result.rules} and "maxlength" not in {
        r.rule.id for r in result.rules
    }
    assert run_result(tmp_path, profile="crd").profile == "crd"


def test_crd_profile_leaves_protobuf_and_patch_tags_of_conditions_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = """
        type Status struct {
        	// +listType=map
        	// +listMapKey=type
        	// +optional
        	Conditions []metav1.Condition `json:"conditions,omitempty"`
        }"""
    write_package(tmp_path, source, CRD_GROUP)
    assert run(tmp_path, "conditions") == []
    write_package(tmp_path, source, BUILTIN_GROUP)
    assert len(run(tmp_path, "conditions")) == 2  # patch markers and tags


def test_settings_tables(tmp_path):
    parsed = read_settings(
        {"profile": "crd", "enable": ["nobools"], "disable": ["commentstart"], "fail-on": "error",
         "baseline": "lint.json", "rules": {"optionalfields": {"pointers": {"preference": "WhenRequired"},
                                                               "severity": "error"}}},
        tmp_path,
    )  # fmt: skip
    assert parsed.profile == "crd" and parsed.fail_on == "error" and parsed.baseline == tmp_path / "lint.json"
    assert parsed.options == {"optionalfields": {"pointers.preference": "WhenRequired"}}
    assert parsed.severities == {"optionalfields": Severity.ERROR}


@pytest.mark.parametrize(
    "table, message",
    [
        ({"profil": "crd"}, "[tool.kgen.lint]: unknown settings: profil"),
        ({"profile": "native"}, "[tool.kgen.lint] profile = 'native': one of crd, builtin"),
        ({"enable": ["nobool"]}, "[tool.kgen.lint] enable: unknown rule 'nobool'"),
        ({"fail-on": "fatal"}, "[tool.kgen.lint] fail-on = 'fatal': one of error, warning, info, never"),
        ({"rules": {"nomaps": {"policy": "Never"}}},
         "[tool.kgen.lint].rules.nomaps policy = 'Never': one of Enforce, AllowStringToStringMaps, Ignore"),
        ({"rules": {"nomaps": {"polcy": "Enforce"}}}, "[tool.kgen.lint].rules.nomaps: unknown setting 'polcy'"),
        ({"rules": {"nomaps": {"severity": "fatal"}}}, "[tool.kgen.lint].rules.nomaps severity: unknown severity 'fatal'"),
        ({"rules": {"namingconventions": {"conventions": [{"name": "x", "violationMatcher": "(", "operation": "Inform",
                                                           "message": "m"}]}}},
         "[tool.kgen.lint].rules.namingconventions.conventions[0].violationMatcher: Invalid value: '(': violationMatcher "
         "regular expression failed to compile"),
    ],
)  # fmt: skip
def test_bad_settings_say_what_is_wrong(tmp_path, table, message):
    with pytest.raises(OptionsError) as raised:
        read_settings(table, tmp_path)
    assert str(raised.value).startswith(message)


def test_a_configurable_rule_enabled_without_its_settings_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, "type Spec struct{}")
    with pytest.raises(OptionsError, match="rule namingconventions is enabled but not configured"):
        run(tmp_path, "namingconventions")


def test_severity_override(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, 'type Spec struct {\n\tOn bool `json:"on"`\n}')
    (found,) = run(tmp_path, "nobools", severities={"nobools": Severity.ERROR})
    assert found.severity is Severity.ERROR


def test_baseline_accepts_known_findings_and_reports_stale_entries(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, 'type Spec struct {\n\tOn bool `json:"on"`\n\tOff bool `json:"off"`\n}')
    findings = run(tmp_path, "nobools")
    assert len(findings) == 2
    path = tmp_path / "lint-baseline.json"
    baseline.write(findings, path)
    assert run(tmp_path, "nobools", baseline=path) == []
    # a new finding is reported; an entry whose finding went away is reported as stale
    write_package(tmp_path, 'type Spec struct {\n\tOn bool `json:"on"`\n\tLater bool `json:"later"`\n}')
    result = lint(options(tmp_path), settings("nobools", baseline=path))
    assert result.accepted == 1
    new, stale = sorted(result.findings, key=lambda f: f.rule != "nobools")
    assert new.message.startswith("field Spec.Later should not use a bool")
    assert stale.rule == "baseline" and stale.path == "lint-baseline.json" and stale.line > 0
    gone = next(f for f in findings if f.subject.endswith("Spec.Off"))
    assert stale.message.startswith(f"baseline entry {gone.id} (nobools at apis/v1/types.go: field Spec.Off")
    assert stale.message.endswith("matches no finding any more; remove it (kgen lint --update-baseline)")
    assert json.loads(path.read_text())["format"] == "kgen.dev/lint-baseline/v1"


def test_ids_survive_edits_elsewhere_in_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, 'type Spec struct {\n\tOn bool `json:"on"`\n}')
    (before,) = run(tmp_path, "nobools")
    write_package(tmp_path, '// Other is unrelated.\ntype Other string\n\ntype Spec struct {\n\tOn bool `json:"on"`\n}')
    (after,) = run(tmp_path, "nobools", disable=("nofloats",))
    assert after.line == before.line + 3 and after.id == before.id


def test_the_readme_settings_block_is_valid_lint_settings(tmp_path):
    import re
    import tomllib

    from conftest import REPO

    blocks = [
        b for b in re.findall(r"```toml\n(.*?)```", (REPO / "README.md").read_text(), re.S) if "[tool.kgen.lint]" in b
    ]
    assert blocks
    for block in blocks:
        parsed = read_settings(tomllib.loads(block)["tool"]["kgen"]["lint"], tmp_path)
        assert parsed.profile == "crd" and parsed.options["optionalfields"]["pointers.preference"] == "WhenRequired"
