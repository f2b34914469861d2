"""Hostile values in API sources: every string that reaches generated code means exactly
what the source says, and values that name things (groups, versions, import paths) are
checked where they are read."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write_tree

# Quotes of every kind, backslashes, a line separator, braces and an attempt to close the
# string and run code: each must come out of the generated code exactly as written.
NASTY = "a\\\"\"\"b'''c{d}\\\\ \u2028 \"); __import__('os').system('false'); (\""


def _go_string(text: str) -> str:
    """A Go interpreted string literal for `text`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\u2028", "\\u2028") + '"'


def _hostile_api() -> dict[str, str]:
    """tests/testdata/hostile: an API whose strings are all hostile (NASTY in its constants)."""
    root = Path(__file__).parent / "testdata" / "hostile"
    return {
        f"hostile/{p.relative_to(root).as_posix()}": p.read_text().replace("NASTY_LITERAL", _go_string(NASTY))
        for p in sorted(root.rglob("*.go"))
    }


def test_hostile_strings_reach_generated_code_exactly(generate_project):
    module, result = generate_project(_hostile_api())
    models = module("hostile.v1.models")
    assert models.Mode.NASTY == NASTY
    assert models.Mode("plain") == "plain"
    assert '"""' in models.Widget.__doc__ and "\\" in models.Widget.__doc__
    defaulters = module("hostile.v1.defaulters")
    widget = models.Widget()
    defaulters.default_Widget(widget)
    assert widget.spec.text == NASTY
    assert models.WidgetSpec.from_json(b'{"odd$name{x}":"y"}').odd_name_x == "y"
    validation = module("hostile.v1.validation")
    good = models.Widget.from_dict({"metadata": {"name": "w", "namespace": "n"}, "spec": {"quoted": 'x"""y', "rule": "fine"}})
    assert validation.validate_Widget(good) == []
    bad = models.Widget.from_dict({"metadata": {"name": "w", "namespace": "n"}, "spec": {"quoted": "x'y", "rule": '"""'}})
    details = [str(e) for e in validation.validate_Widget(bad)]
    assert any("spec.quoted" in d for d in details)
    assert any('no "triple" quotes \\ here' in d for d in details)
    register = module("hostile.v1.register")
    assert register.GROUP_VERSION.group == "hostile.example.com"


def _generate(cli, root: Path, files: dict[str, str]):
    write_tree(root, files)
    return cli(["generate", "--input", "apis", "--output", "gen", "--module", "example.com/x"], root)


def test_a_group_that_is_not_a_dns_subdomain_is_an_error_at_the_marker(cli, tmp_path):
    result = _generate(cli, tmp_path, {
        "apis/ex/v1/doc.go": """
            // +groupName=g.example.com", __import__("os").system("false"), "
            package v1
            """,
        "apis/ex/v1/types.go": "package v1\n\ntype A struct {\n\tX string `json:\"x\"`\n}\n",
    })  # fmt: skip
    assert result.exit_code == 2
    assert "apis/ex/v1/doc.go:1:4: error: +groupName gives group 'g.example.com\", __import__" in result.output
    assert not (tmp_path / "gen").exists()


def test_a_version_that_is_not_a_dns_label_is_an_error(cli, tmp_path):
    result = _generate(cli, tmp_path, {
        "apis/ex/v1/doc.go": "// +groupName=ex.io\n// +versionName=V1\npackage v1\n",
        "apis/ex/v1/types.go": "package v1\n\ntype A struct {\n\tX string `json:\"x\"`\n}\n",
    })  # fmt: skip
    assert result.exit_code == 2
    assert "apis/ex/v1/doc.go:2:4: error: +versionName gives version 'V1'" in result.output


def test_an_import_path_go_would_reject_is_an_error(cli, tmp_path):
    result = _generate(cli, tmp_path, {
        'apis/ex/v"1/types.go': "// +groupName=ex.io\npackage v1\n\ntype A struct {\n\tX string `json:\"x\"`\n}\n",
    })  # fmt: skip
    assert result.exit_code == 2
    assert "import path 'example.com/x/ex/v\"1' is not one Go accepts" in result.output
