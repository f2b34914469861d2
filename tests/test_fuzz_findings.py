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


def test_a_dangling_link_among_the_inputs_is_a_located_error(cli, tmp_path):
    _project(tmp_path, "ops.example.com", {"types": KIND.format(kind="Widget")})
    (tmp_path / "apis/ops/v1/broken.go").symlink_to(tmp_path / "nowhere.go")
    for args in ((), ("--verify-only",)):
        result = _run(cli, tmp_path, *args)
        assert result.exit_code == 2, result.output
        assert "apis/ops/v1/broken.go:1:1: error: cannot read file: it is a symbolic link to nothing" in result.output
    assert not (tmp_path / "gen").exists()


def test_hooks_in_a_directory_python_cannot_import_are_an_error_that_says_what_to_do(cli, tmp_path):
    """An input directory named `in` (a keyword): the generated modules would import the
    hooks as `in.ops.v1.defaults`, which Python cannot."""
    write_tree(tmp_path, {
        "in/ops/v1/doc.go": "// +groupName=ops.example.com\npackage v1\n",
        "in/ops/v1/types.go": KIND.format(kind="Widget"),
        "in/ops/v1/defaults.py": "def set_defaults_Widget(obj):\n    obj.size = obj.size or 1\n",
    })  # fmt: skip
    result = cli(["generate", "--input", "in", "--output", "gen", "--module", "example.com/x/apis"], tmp_path)
    assert result.exit_code == 2
    assert ("in/ops/v1/defaults.py:1:1: error: the hooks beside example.com/x/apis/ops/v1 cannot be imported as "
            "in.ops.v1: 'in' is not a Python package name; rename that directory, or set hooks-package") in result.output


def test_an_identifier_with_a_combining_mark_is_refused_as_go_refuses_it(cli, tmp_path):
    decomposed = "Cafe\u0301"
    composed = "Caf\u00e9"
    types = (f"package v1\n\n// A is a.\ntype {decomposed} struct {{\n\tX int32 `json:\"x\"`\n}}\n\n"
             f"// B is fine.\ntype {composed} struct {{\n\tY int32 `json:\"y\"`\n}}\n")  # fmt: skip
    _project(tmp_path, "ops.example.com", {"types": types})
    result = _run(cli, tmp_path)
    assert result.exit_code == 2
    assert f"apis/ops/v1/types.go:4:6: error: invalid character U+0301 in identifier {decomposed!r}" in result.output
    assert result.output.count("error:") == 1  # the precomposed letter is a letter


def test_two_kinds_with_one_plural_are_an_error_at_the_kind(cli, tmp_path):
    _project(tmp_path, "ops.example.com", {"box": KIND.format(kind="Box"), "boxe": KIND.format(kind="Boxe")})
    result = _run(cli, tmp_path)
    assert result.exit_code == 2
    assert ("apis/ops/v1/boxe.go:8:6: error: kinds Box and Boxe of group ops.example.com have the same plural 'boxes'"
            in result.output)


def test_a_file_name_longer_than_file_systems_allow_stops_before_anything_is_written(cli, tmp_path):
    _project(tmp_path, "ops.example.com", {"types": KIND.format(kind="K" + "a" * 250)})
    for args in ((), ("--verify-only",)):
        result = _run(cli, tmp_path, *args)
        assert result.exit_code == 2, result.output
        assert "generator crd would write a file name of 273 bytes" in result.output
    assert not (tmp_path / "gen").exists()


def test_a_long_ring_of_pointers_is_walked_once_per_type(tmp_path, monkeypatch):
    """`T0 -> *T1 -> ... -> *T0`: whether each struct needs defaulting or validation is found
    once per type (the walk was quadratic: 1,000 types took 22 s), with the same answers."""
    from kgen.generators import defaulters
    from kgen.generators.validation import plan as validation
    from tests.conftest import build

    n = 400
    ring = "".join(
        f"// T{i} links on.\ntype T{i} struct {{\n\t// +optional\n\tNext *T{(i + 1) % n} `json:\"next,omitempty\"`\n"
        + ("\t// +kubebuilder:validation:MaxLength=5\n" if i == n // 2 else "")
        + f"\t// +optional\n\tName string `json:\"name,omitempty\"`\n}}\n\n"
        for i in range(n)
    )
    plain = "// Alone is outside the ring.\ntype Alone struct {\n\t// +optional\n\tName string `json:\"name,omitempty\"`\n}\n"
    write_tree(tmp_path, {"v1/doc.go": "// +groupName=ops.example.com\npackage v1\n", "v1/types.go": "package v1\n\n" + ring + plain})
    monkeypatch.chdir(tmp_path)
    universe, diagnostics = build(tmp_path / "v1", module="example.com/apis/v1")
    assert not diagnostics.errors
    (package,) = [p for p in universe.packages if p.import_path == "example.com/apis/v1"]
    for plan_class in (validation._Plan, defaulters._Plan):
        calls = []

        class Counting(plan_class):  # type: ignore[misc, valid-type]
            def own_needs(self, typedef):
                calls.append(typedef.name)
                return super().own_needs(typedef)

        plan = Counting(universe)
        answers = {t.name: plan.struct_needs(t) for t in package.types if t.kind == "struct"}
        assert len(calls) == len(set(calls)) == n + 1
        if plan_class is validation._Plan:  # the one rule makes every type of the ring reach it
            assert all(answers[f"T{i}"] for i in range(n)) and not answers["Alone"]
        else:
            assert not any(answers.values())


def test_a_hook_module_that_is_not_utf8_is_an_error_at_the_byte(cli, tmp_path):
    _project(tmp_path, "ops.example.com", {"types": KIND.format(kind="Widget")})
    (tmp_path / "apis/ops/v1/defaults.py").write_bytes(b"def set_defaults_Widget(obj):\n    obj.size = 1  # caf\xe9\n")
    result = _run(cli, tmp_path)
    assert result.exit_code == 2
    assert "apis/ops/v1/defaults.py:2:24: error: cannot read hook module: byte 0xe9 is not UTF-8" in result.output


def test_a_protobuf_package_named_after_a_directory_protobuf_refuses_is_a_located_error(cli, tmp_path):
    """go-to-protobuf names the .proto package after the import path; `1x` cannot be a part
    of it (protoc failed, an internal error)."""
    write_tree(tmp_path, {
        "apis/1x/v1/doc.go": "// +k8s:protobuf-gen=package\n// +groupName=ops.example.com\npackage v1\n",
        "apis/1x/v1/types.go": KIND.format(kind="Widget").replace('`json:"size"`', '`json:"size" protobuf:"varint,1,opt,name=size"`'),
    })  # fmt: skip
    result = _run(cli, tmp_path)
    assert result.exit_code == 2, result.output
    assert ("apis/1x/v1/doc.go:1:1: error: the protobuf package example.com.x.apis.1x.v1 (from the import path) "
            "has '1x', which is not a protobuf name") in result.output


def test_a_message_named_in_letters_protobuf_refuses_is_a_located_error(cli, tmp_path):
    """Go takes any Unicode letter in a type name; a protobuf message name is ASCII (protoc
    failed, an internal error: found by the fuzzer's Unicode names)."""
    write_tree(tmp_path, {
        "apis/ops/v1/doc.go": "// +k8s:protobuf-gen=package\n// +groupName=ops.example.com\npackage v1\n",
        "apis/ops/v1/types.go": "package v1\n\n// Ω is a type.\ntype Ω struct {\n\tX int32 `json:\"x\" protobuf:\"varint,1,opt,name=x\"`\n}\n",
    })  # fmt: skip
    result = _run(cli, tmp_path)
    assert result.exit_code == 2, result.output
    assert "apis/ops/v1/types.go:4:6: error: type Ω is a protobuf message, whose name must be ASCII" in result.output
