"""What a run prints: warnings about the user's own files; notes, and warnings about packages
the user did not write (the module cache, vendor/, import maps), only with -v."""

from __future__ import annotations

import os

from conftest import write_tree

FILES = {
    "apis/shop/v1/doc.go": "// +groupName=shop.example.com\npackage v1\n",
    "apis/shop/v1/types.go": """
        package v1

        import lib "example.org/lib/v1"

        type StoreSpec struct {
            // +k8s:minimun=1
            Size int32 `json:"size"`
            Ref lib.Ref `json:"ref"`
        }

        func convert() int {
            return new(1 + 2)
        }
        """,
    "third_party/lib/v1/types.go": """
        package v1

        type Ref struct {
            // +kubebuilder:validation:MaxLenght=3
            Name string `json:"name"`
        }
        """,
}


def test_third_party_warnings_and_notes_only_with_verbose(cli, tmp_path):
    write_tree(tmp_path, FILES)
    args = ["generate", "--only", "models", "--module", "example.com/apis", "--import-map", "example.org/lib=third_party/lib"]
    quiet = cli([*args, "--config", os.devnull], tmp_path)
    assert quiet.exit_code == 0, quiet.output
    lines = quiet.stderr.splitlines()
    assert "apis/shop/v1/types.go:6:8: warning: unknown marker +k8s:minimun; did you mean +k8s:minimum?" in lines
    assert not any("MaxLenght" in line or "note:" in line for line in lines), lines
    assert "kgen: 1 warning about third-party packages not shown (-v shows them)" in lines
    verbose = cli([*args, "--config", os.devnull, "-v", "--verify-only"], tmp_path)
    lines = verbose.stderr.splitlines()
    assert any("third_party/lib/v1/types.go:4:8: warning: unknown marker +kubebuilder:validation:MaxLenght" in line for line in lines), lines
    assert any("note: syntax error" in line and "inside a function body" in line for line in lines), lines
