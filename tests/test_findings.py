"""The shared findings module: severities, the --fail-on threshold and its exit code, and
the four output formats (text, JSON, SARIF 2.1.0, GitHub workflow annotations)."""

from __future__ import annotations

import json

import pytest

from kgen.findings import (
    FORMATS,
    Edit,
    Finding,
    Fix,
    Report,
    RuleInfo,
    Severity,
    exit_code,
    failing,
    render,
)

ERROR = Finding("conditions", Severity.ERROR, "Conditions field in FooStatus must be a slice of metav1.Condition",
                "conditions follow the API conventions", "apis/x/v1/types.go", 12, 2, subject="FooStatus.Conditions")  # fmt: skip
WARNING = Finding(
    "nobools", Severity.WARNING, "field Foo.On should not use a bool", "bools cannot evolve", "apis/x/v1/types.go", 3, 2,
    fix=Fix("make it a string", (Edit("apis/x/v1/types.go", 40, 44, "string"),)), subject="Foo.On",
)  # fmt: skip
INFO = Finding("nophase", Severity.INFO, "phase, with: comma", "conditions over phases", "apis/x/v1/types.go", 0, 0)


@pytest.mark.parametrize(
    "fail_on, code",
    [("error", 1), ("warning", 1), ("info", 1), ("never", 0)],
)
def test_fail_on_threshold(fail_on, code):
    assert exit_code([ERROR, WARNING, INFO], fail_on) == code


def test_fail_on_counts_only_findings_at_or_above():
    assert failing([WARNING, INFO], "error") == []
    assert failing([WARNING, INFO], "warning") == [WARNING]
    assert exit_code([], "info") == 0
    with pytest.raises(ValueError, match="unknown severity 'fatal'"):
        failing([WARNING], "fatal")


def test_id_is_stable_across_line_moves_and_differs_by_subject():
    moved = Finding(WARNING.rule, WARNING.severity, WARNING.message, WARNING.explanation, WARNING.path, 99, 7,
                    subject=WARNING.subject)  # fmt: skip
    assert moved.id == WARNING.id
    other = Finding(WARNING.rule, WARNING.severity, WARNING.message, WARNING.explanation, WARNING.path, 3, 2,
                    subject="Foo.Off")  # fmt: skip
    assert other.id != WARNING.id
    assert WARNING.id.startswith("nobools-")


def test_text_lists_findings_in_file_order_with_the_rules_explained_once():
    text = render(Report([ERROR, WARNING, INFO]), "text")
    lines = text.splitlines()
    assert lines[0] == "apis/x/v1/types.go: info: phase, with: comma [nophase]"
    assert lines[1] == "apis/x/v1/types.go:3:2: warning: field Foo.On should not use a bool [nobools] (fixable)"
    assert lines[2].startswith("apis/x/v1/types.go:12:2: error: Conditions field in FooStatus")
    assert "  conditions  conditions follow the API conventions" in lines
    assert lines[-1] == "3 findings (1 error, 1 warning, 1 info); 1 fixable with --fix"
    assert render(Report([]), "text") == "no findings\n"


def test_json_document():
    document = json.loads(render(Report([WARNING], version="1.2"), "json"))
    assert document["format"] == "kgen.dev/findings/v1"
    assert document["summary"] == {"total": 1, "error": 0, "warning": 1, "info": 0, "fixable": 1}
    (entry,) = document["findings"]
    assert entry["id"] == WARNING.id
    assert (entry["path"], entry["line"], entry["column"]) == ("apis/x/v1/types.go", 3, 2)
    assert entry["fix"]["edits"] == [{"path": "apis/x/v1/types.go", "start": 40, "end": 44, "text": "string"}]


def test_sarif_log():
    report = Report([ERROR, WARNING, INFO], version="1.2",
                    rules={"ssatags": RuleInfo("ssatags", "lists say how they merge", Severity.WARNING)})  # fmt: skip
    log = json.loads(render(report, "sarif"))
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["conditions", "nobools", "nophase", "ssatags"]
    assert rules[3]["defaultConfiguration"] == {"level": "warning"}
    levels = [r["level"] for r in run["results"]]
    assert levels == ["note", "warning", "error"]
    warning = run["results"][1]
    assert rules[warning["ruleIndex"]]["id"] == "nobools"
    assert warning["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "apis/x/v1/types.go", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3, "startColumn": 2},
    }
    assert warning["partialFingerprints"] == {"kgenFindingId/v1": WARNING.id}
    replacement = warning["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement == {"deletedRegion": {"byteOffset": 40, "byteLength": 4}, "insertedContent": {"text": "string"}}
    assert "region" not in run["results"][0]["locations"][0]["physicalLocation"]  # a finding without a line


def test_github_annotations_escape_properties_and_data():
    text = render(Report([INFO, WARNING]), "github")
    lines = text.splitlines()
    assert lines[0] == "::notice file=apis/x/v1/types.go,title=nophase::phase, with: comma (conditions over phases)"
    assert lines[1] == (
        "::warning file=apis/x/v1/types.go,line=3,col=2,title=nobools::field Foo.On should not use a bool "
        "(bools cannot evolve)"
    )
    odd = Finding("r", Severity.ERROR, "50% of\nlines", "", "a,b:c.go", 1, 1)
    assert render(Report([odd]), "github") == "::error file=a%2Cb%3Ac.go,line=1,col=1,title=r::50%25 of%0Alines\n"


def test_every_format_renders_an_empty_report():
    for fmt in FORMATS:
        assert render(Report([]), fmt) or fmt == "github"  # no annotations to print
    with pytest.raises(ValueError, match="unknown format"):
        render(Report([]), "xml")
