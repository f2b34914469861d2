"""`kgen lint` on the command line: output formats, the --fail-on exit code, settings from
[tool.kgen.lint], --fix, the baseline, and the pre-commit hook (one real subprocess)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from click.testing import CliRunner

from conftest import REPO, write_tree
from kgen.cli import main

PROJECT = {
    "pyproject.toml": """
        [tool.kgen]
        input = "apis"
        module = "example.com/shop/apis"

        [tool.kgen.lint]
        enable = ["nobools"]
        disable = ["commentstart", "maxlength"]
    """,
    "apis/shop/v1/doc.go": "// +groupName=shop.example.com\npackage v1\n",
    "apis/shop/v1/types.go": """
        package v1

        // Item is sold.
        type Item struct {
        	// +optional
        	Count int32 `json:"count,omitempty"`
        	// +required
        	Gift bool `json:"gift"`
        }
    """,
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "shop", PROJECT)
    monkeypatch.chdir(root)
    return root


def lint(*args: str):
    return CliRunner().invoke(main, ["lint", *args], catch_exceptions=False)


def test_text_output_and_exit_code(project):
    result = lint()
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert (
        lines[0]
        == "apis/shop/v1/types.go:6:2: warning: field Item.Count should be a pointer. [optionalfields] (fixable)"
    )
    assert "apis/shop/v1/types.go:8:2: warning: field Item.Gift should not use a bool. Use a string type with meaningful " \
           "constant values as an enum. [nobools]" in lines  # fmt: skip
    assert lines[-1] == "4 findings (4 warnings); 3 fixable with --fix"
    assert any(re.match(r"  nobools +no bool fields", line) for line in lines)


def test_fail_on_threshold(project):
    assert lint("--fail-on", "error").exit_code == 0
    assert lint("--fail-on", "never").exit_code == 0
    assert lint("--fail-on", "warning").exit_code == 1


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_machine_formats(project, fmt):
    result = lint("--format", fmt, "--select", "nobools")
    assert result.exit_code == 1
    if fmt == "json":
        (finding,) = json.loads(result.output)["findings"]
        assert (finding["rule"], finding["path"], finding["line"], finding["column"]) == (
            "nobools",
            "apis/shop/v1/types.go",
            8,
            2,
        )
    elif fmt == "sarif":
        (run,) = json.loads(result.output)["runs"]
        assert run["results"][0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 8, "startColumn": 2}
        assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["baseline", "nobools"]
    else:
        assert result.output.startswith(
            "::warning file=apis/shop/v1/types.go,line=8,col=2,title=nobools::field Item.Gift"
        )


def test_output_file(project):
    result = lint("--format", "sarif", "-o", "lint.sarif")
    assert result.exit_code == 1
    assert json.loads((project / "lint.sarif").read_text())["version"] == "2.1.0"
    assert "(written to lint.sarif)" in result.output


def test_fix_edits_the_sources(project):
    result = lint("--fix", "--select", "optionalfields")
    assert result.exit_code == 0, result.output
    assert 'Count *int32 `json:"count,omitempty"`' in (project / "apis/shop/v1/types.go").read_text()
    assert "fixed 1 finding in 1 file" in result.output


def test_update_baseline_then_only_new_findings_fail(project):
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'baseline = "lint-baseline.json"\n')
    written = lint("--update-baseline")
    assert written.exit_code == 0 and "wrote 4 accepted findings to" in written.output
    quiet = lint()
    assert quiet.exit_code == 0 and "4 findings accepted by the baseline" in quiet.output
    assert lint("--no-baseline").exit_code == 1


def test_list_rules(project):
    result = lint("--list-rules")
    assert result.exit_code == 0
    assert re.search(r"^optionalfields +warning +builtin,crd +fix kube-api-linter ", result.output, re.M)
    assert "pointers.preference = 'Always' (Always | WhenRequired)" in result.output


def test_bad_settings_exit_2(project):
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('enable = ["nobools"]', 'enable = ["nobool"]'))
    result = CliRunner().invoke(main, ["lint"])
    assert result.exit_code == 2
    assert "unknown rule 'nobool'" in result.output


def test_the_pre_commit_hook():
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    hook = hooks["kgen-lint"]
    assert hook["entry"] == "kgen lint" and hook["pass_filenames"] is False
    pattern = re.compile(hook["files"])
    assert pattern.search("apis/shop/v1/types.go") and pattern.search("api/v1/types.go")
    assert pattern.search("pyproject.toml") and not pattern.search("generated/shop/v1/models.py")


def test_kgen_lint_as_a_process(project):
    """As pre-commit and CI run it: a fresh interpreter, findings on stdout, exit 1."""
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    result = subprocess.run([sys.executable, "-m", "kgen.cli", "lint", "--format", "github"], cwd=project,
                            capture_output=True, text=True, env=env)  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert result.stdout.count("::warning file=apis/shop/v1/types.go") == 4
