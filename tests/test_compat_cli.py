"""`kgen compat` on the command line: a real git repository, the output formats, `--fail-on`
and its exit codes, the `[tool.kgen.compat]` settings and allow list, CRD files as NEW, and
the pre-commit hook."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from conftest import REPO, write_tree

TYPES = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Order is bought.
type Order struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec OrderSpec `json:"spec"`
}

// OrderSpec is what was ordered.
type OrderSpec struct {
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	Item string `json:"item"`

	// +kubebuilder:validation:Minimum=0
	// +optional
	Quantity int32 `json:"quantity,omitempty"`

	// +optional
	// +kubebuilder:default=standard
	Shipping string `json:"shipping,omitempty"`
}
"""

PROJECT = {
    "pyproject.toml": """
        [tool.kgen]
        input = "apis"
        output = "generated"
        module = "example.com/shop/apis"
    """,
    "apis/shop/v1/doc.go": "// +groupName=shop.example.com\npackage v1\n",
    "apis/shop/v1/types.go": TYPES,
}


def git(*args: str, cwd) -> str:
    done = subprocess.run(["git", "-c", "user.name=kgen", "-c", "user.email=kgen@example.com", *args], cwd=cwd,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout


@pytest.fixture
def repository(tmp_path):
    """A project committed once, then changed in the working tree: quantity's minimum raised
    and the shipping default changed."""
    root = write_tree(tmp_path / "shop", PROJECT)
    git("init", "-q", "-b", "main", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "the first API", cwd=root)
    types = root / "apis/shop/v1/types.go"
    types.write_text(TYPES.replace("Minimum=0", "Minimum=1").replace("default=standard", "default=express"))
    return root


BOUNDS = (
    "apis/shop/v1/types.go:22:2: error: Order shop.example.com/v1 spec.quantity: minimum raised from 0 to 1; for "
    'example {"spec":{"item":"a","quantity":0}} is accepted before the change and refused after it: spec.quantity: '
    "Invalid value: 0: spec.quantity in body should be greater than or equal to 1 [bounds-tightened]"
)
DEFAULT = (
    'apis/shop/v1/types.go:26:2: error: Order shop.example.com/v1 spec.shipping: default changed from "standard" to '
    '"express"; for example {"spec":{"item":"a"}}, stored before the change, reads back with spec.shipping '
    '"standard" before and with spec.shipping "express" after it [default-changed]'
)


def test_against_a_git_revision_in_text_with_exit_1(cli, repository):
    result = cli(["compat", "--against", "main"], repository)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == [BOUNDS, DEFAULT]
    assert lines[-1] == "2 findings (2 errors)"


def test_fail_on_sets_the_threshold(cli, repository):
    assert cli(["compat", "--against", "main", "--fail-on", "never"], repository).exit_code == 0
    assert cli(["compat", "--against", "main", "--fail-on", "info"], repository).exit_code == 1


def test_json_sarif_and_github_annotations(cli, repository):
    document = json.loads(cli(["compat", "--against", "main", "--format", "json"], repository).stdout)
    assert [(f["rule"], f["path"], f["line"]) for f in document["findings"]] == [
        ("bounds-tightened", "apis/shop/v1/types.go", 22), ("default-changed", "apis/shop/v1/types.go", 26)]  # fmt: skip
    assert document["summary"]["error"] == 2
    assert document["findings"][0]["subject"] == "example.com/shop/apis/shop/v1.OrderSpec.quantity"
    sarif = json.loads(cli(["compat", "--against", "main", "--format", "sarif"], repository).stdout)
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["bounds-tightened", "default-changed"]
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 22, "startColumn": 2}
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert {"field-removed", "protobuf-number-reused", "bounds-tightened"} <= rules  # the whole rule table
    github = cli(["compat", "--against", "main", "--format", "github"], repository).stdout.splitlines()
    assert github[0].startswith("::error file=apis/shop/v1/types.go,line=22,col=2,title=bounds-tightened::Order ")


def test_output_file(cli, repository):
    result = cli(["compat", "--against", "main", "-o", "compat.json", "--format", "json"], repository)
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads((repository / "compat.json").read_text())["summary"]["total"] == 2


def test_settings_give_the_revision_the_threshold_and_the_allow_list(cli, repository):
    with (repository / "pyproject.toml").open("a") as settings:
        settings.write(
            '\n[tool.kgen.compat]\nagainst = "main"\n\n'
            '[[tool.kgen.compat.allow]]\nrule = "default-changed"\npath = "spec.shipping"\n'
            'reason = "express is the house default from 2.0 on"\n\n'
            '[[tool.kgen.compat.allow]]\nrule = "field-removed"\nreason = "nothing is removed"\n'
        )
    result = cli(["compat"], repository)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == BOUNDS
    assert (
        "allowed: apis/shop/v1/types.go:26:2: Order shop.example.com/v1 spec.shipping: default changed from "
        '"standard" to "express"; for example {"spec":{"item":"a"}}, stored before the change, reads back with '
        'spec.shipping "standard" before and with spec.shipping "express" after it [default-changed] (express is '
        "the house default from 2.0 on)"
    ) in lines
    assert any("[[tool.kgen.compat.allow]] entry 2: allows field-removed, but nothing matches it now; remove it" in l
               for l in lines)  # fmt: skip
    assert lines[-1] == "1 finding (1 error)"


def test_a_compatible_change_passes(cli, repository):
    (repository / "apis/shop/v1/types.go").write_text(
        TYPES.replace("Minimum=0", "Minimum=-5")
        + '\n// Note is new.\ntype Note struct {\n\t// +optional\n\tText string `json:"text,omitempty"`\n}\n'
    )
    result = cli(["compat", "--against", "main", "--fail-on", "error"], repository)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "1 finding (1 warning)"  # relaxed validation on a stable version


def test_a_revision_without_the_api_has_nothing_to_compare(cli, repository):
    empty_tree = git("hash-object", "-t", "tree", "/dev/null", cwd=repository).strip()
    commit = git("commit-tree", empty_tree, "-m", "nothing yet", cwd=repository).strip()
    git("branch", "empty", commit, cwd=repository)
    result = cli(["compat", "--against", "empty"], repository)
    assert (result.exit_code, result.stdout) == (0, "no findings\n")


def test_bad_input_exits_2_with_a_message(cli, repository):
    result = cli(["compat", "--against", "no-such-branch"], repository)
    assert result.exit_code == 2
    assert "--against no-such-branch: not a file, a directory, or a revision of the git repository" in result.stderr
    assert cli(["compat"], repository).exit_code == 2  # nothing to compare with
    with (repository / "pyproject.toml").open("a") as settings:
        settings.write('\n[tool.kgen.compat.allow]\nfield-gone = "typo"\n')
    result = cli(["compat", "--against", "main"], repository)
    assert result.exit_code == 2 and "unknown compat rule 'field-gone'" in result.stderr


def test_crd_files_as_old_and_new(cli, tmp_path):
    """crdify's use: two sets of CRD manifests, no Go types and no project."""
    crd = yaml.safe_dump({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "orders.shop.example.com"},
        "spec": {"group": "shop.example.com", "scope": "Namespaced",
                 "names": {"kind": "Order", "plural": "orders"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "properties": {"spec": {"type": "object", "properties": {
                         "quantity": {"type": "integer", "minimum": 0}}}}}}}]},
    })  # fmt: skip
    (tmp_path / "old.yaml").write_text(crd)
    (tmp_path / "new.yaml").write_text(crd.replace("scope: Namespaced", "scope: Cluster"))
    result = cli(["compat", "--config", "/dev/null", "--against", "old.yaml", "new.yaml"], tmp_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "new.yaml:1:1: error: Order (shop.example.com): scope changed from Namespaced to Cluster [scope-changed]"
    )


def test_rules_lists_every_rule(cli, tmp_path):
    from kgen.compat.rules import RULES

    lines = cli(["compat", "--rules"], tmp_path).stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(RULES)
    assert lines[0].split()[1] == "error"


def test_the_pre_commit_hook_compares_with_origin_main():
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["kgen-compat"]["entry"] == "kgen compat"
    assert hooks["kgen-compat"]["args"] == ["--against", "origin/main"]
    assert hooks["kgen-compat"]["pass_filenames"] is False


def test_the_readme_settings_are_what_compat_reads(tmp_path):
    """The [tool.kgen.compat] block of the README loads as written."""
    import re

    from kgen.compat import settings

    blocks = re.findall(r"```toml\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    text = next(b for b in blocks if "[tool.kgen.compat]" in b)
    (tmp_path / "pyproject.toml").write_text(text)
    loaded = settings.load(tmp_path / "pyproject.toml")
    assert loaded.against == ("origin/main",) and loaded.fail_on == "error"
    assert [(a.rule, a.kind, a.version, a.path) for a in loaded.allow] == [
        ("field-removed", "Frobber", "v1alpha1", "spec.legacy*")
    ]


def test_crd_files_against_their_copies_in_a_revision(cli, tmp_path):
    """A project that keeps only CRD manifests: `--against REVISION FILES` reads the same
    files from the revision."""
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "orders.shop.example.com"},
        "spec": {"group": "shop.example.com", "scope": "Namespaced", "names": {"kind": "Order", "plural": "orders"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "properties": {"spec": {"type": "object", "properties": {
                         "quantity": {"type": "integer"}, "note": {"type": "string"}}}}}}}]},
    }  # fmt: skip
    root = tmp_path / "crds-only"
    (root / "config/crd").mkdir(parents=True)
    (root / "config/crd/orders.yaml").write_text(yaml.safe_dump(crd))
    git("init", "-q", "-b", "main", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "orders", cwd=root)
    del crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["note"]
    (root / "config/crd/orders.yaml").write_text(yaml.safe_dump(crd))
    result = cli(["compat", "--config", "/dev/null", "--against", "main", "config/crd"], root)
    assert result.exit_code == 1, result.output
    assert [line.split(": ", 2)[2] for line in result.stdout.splitlines()[:1]] == [
        "Order shop.example.com/v1 spec.note: removed; for example the API server drops spec.note from "
        '{"spec":{"note":"a"}} (unknown field "spec.note"), and from stored objects on their next write [field-removed]'
    ]


def test_a_revision_whose_types_do_not_build_is_an_input_error_naming_it(cli, repository):
    """Bad input in the old revision is located in the working tree's terms, never a traceback."""
    (repository / "apis/shop/v1/types.go").write_text(
        TYPES.replace("type OrderSpec struct {", "type OrderSpec struct {{")
    )
    git("commit", "-qam", "broken", cwd=repository)
    (repository / "apis/shop/v1/types.go").write_text(TYPES)
    result = cli(["compat", "--against", "HEAD"], repository)
    assert result.exit_code == 2
    assert "apis/shop/v1/types.go:" in result.stderr and "(in HEAD)" in result.stderr
    assert "Traceback" not in result.output + result.stderr
