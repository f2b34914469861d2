"""What an independent fuzzing campaign found in `kgen generate`, each as the input that found it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write_tree

META = 'metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"'

KIND = """package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// {kind} is a kind.
type {kind} struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size int32 `json:"size"`
}}

// +kubebuilder:object:root=true

// {kind}List is a list.
type {kind}List struct {{
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []{kind} `json:"items"`
}}
"""


def _project(root: Path, group: str, kinds: dict[str, str]) -> None:
    files = {f"apis/{group.split('.')[0]}/v1/doc.go": f"// +groupName={group}\npackage v1\n"}
    for name, text in kinds.items():
        files[f"apis/{group.split('.')[0]}/v1/{name}.go"] = text
    write_tree(root, files)


def _run(cli, root: Path, *args: str):
    return cli(["generate", "--input", "apis", "--output", "gen", "--module", "example.com/x/apis", *args], root)


def test_a_renamed_group_leaves_no_openapi_or_crd_behind_and_check_says_so(cli, tmp_path):
    import shutil

    _project(tmp_path, "old.example.com", {"types": KIND.format(kind="Widget")})
    assert _run(cli, tmp_path).exit_code == 0
    gen = tmp_path / "gen"
    assert (gen / "openapi/v3/apis/old.example.com/v1.json").exists()
    assert (gen / "crds/old.example.com_widgets.yaml").exists()
    shutil.rmtree(tmp_path / "apis")
    _project(tmp_path, "new.example.com", {"types": KIND.format(kind="Widget")})
    checked = _run(cli, tmp_path, "--verify-only")
    assert checked.exit_code == 1
    assert "orphaned: gen/openapi/v3/apis/old.example.com/v1.json" in checked.output
    assert "orphaned: gen/crds/old.example.com_widgets.yaml" in checked.output
    assert _run(cli, tmp_path).exit_code == 0
    assert not (gen / "openapi/v3/apis/old.example.com").exists() or not any((gen / "openapi/v3/apis/old.example.com").iterdir())
    assert not (gen / "crds/old.example.com_widgets.yaml").exists()
    assert _run(cli, tmp_path, "--verify-only").exit_code == 0


def test_removing_every_kind_that_had_a_crd_is_drift(cli, tmp_path):
    _project(tmp_path, "ops.example.com", {"types": KIND.format(kind="Widget")})
    assert _run(cli, tmp_path).exit_code == 0
    plain = "package v1\n\n// Settings is not a kind.\ntype Settings struct {\n\tSize int32 `json:\"size\"`\n}\n"
    (tmp_path / "apis/ops/v1/types.go").write_text(plain)
    checked = _run(cli, tmp_path, "--verify-only")
    assert checked.exit_code == 1 and "orphaned: gen/crds/ops.example.com_widgets.yaml" in checked.output
    # a file of the user's in the same directory is never kgen's to remove
    (tmp_path / "gen/crds/kustomization.yaml").write_text("resources: []\n")
    assert _run(cli, tmp_path).exit_code == 0
    assert not (tmp_path / "gen/crds/ops.example.com_widgets.yaml").exists()
    assert (tmp_path / "gen/crds/kustomization.yaml").read_text() == "resources: []\n"
