"""The command line as users of black, ruff, kubebuilder and pre-commit expect it: -h, -q,
--check, colour only on a terminal, settings found from any directory of the project, a
missing --config or module is an error, --strict, `kgen init`, template overrides."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, write_tree
from kgen.console import Console, wants_color

PROJECT = {
    "pyproject.toml": """
        [tool.kgen]
        input = "apis"
        output = "generated"
        module = "example.com/shop/apis"
    """,
    "apis/shop/v1/doc.go": "// +groupName=shop.example.com\npackage v1\n",
    "apis/shop/v1/types.go": """
        package v1

        // Item is sold.
        type Item struct {
            // +kubebuilder:validation:Formatt=uuid
            ID string `json:"id"`
        }
    """,
}


@pytest.fixture
def project(tmp_path):
    return write_tree(tmp_path / "shop", PROJECT)


def test_dash_h_is_help_everywhere(cli, tmp_path):
    for args in (["-h"], ["generate", "-h"], ["init", "-h"]):
        result = cli(args, tmp_path)
        assert result.exit_code == 0
        assert "Usage: " in result.output and "Exit codes:" in result.output


def test_settings_are_found_from_a_subdirectory(cli, project):
    result = cli(["generate"], project / "apis" / "shop")
    assert result.exit_code == 0, result.output
    assert (project / "generated" / "shop" / "v1" / "models.py").is_file()
    assert not (project / "apis" / "shop" / "generated").exists()


def test_a_missing_config_file_is_an_error(cli, project):
    result = cli(["generate", "--config", "nope.toml"], project)
    assert result.exit_code == 2
    assert "kgen: error: --config nope.toml: no such file" in result.output


def test_no_module_and_no_go_mod_is_an_error_that_says_how_to_set_it(cli, tmp_path):
    write_tree(tmp_path, {k: v for k, v in PROJECT.items() if k != "pyproject.toml"})
    result = cli(["generate", "--config", os.devnull], tmp_path)
    assert result.exit_code == 2
    assert "cannot tell the Go import path" in result.output and "[tool.kgen] module" in result.output


def test_check_is_verify_only(cli, project):
    assert cli(["generate", "--check"], project).exit_code == 1  # nothing generated yet
    assert cli(["generate"], project).exit_code == 0
    assert cli(["generate", "--check"], project).exit_code == 0


def test_quiet_prints_problems_only(cli, project):
    loud = cli(["generate"], project)
    assert "Formatt" in loud.output and "written" in loud.output
    quiet = cli(["generate", "-q", "--check"], project)
    assert quiet.exit_code == 0 and quiet.output == ""


def test_strict_makes_warnings_errors_and_writes_nothing(cli, project):
    result = cli(["generate", "--strict"], project)
    assert result.exit_code == 2
    assert "apis/shop/v1/types.go:5:8: warning: unknown marker +kubebuilder:validation:Formatt" in result.output
    assert "1 warning, and warnings are errors (--strict); nothing was written" in result.output
    assert not (project / "generated").exists()
    (project / "pyproject.toml").write_text((project / "pyproject.toml").read_text() + "strict = true\n")
    assert cli(["generate"], project).exit_code == 2


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    class Terminal:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert wants_color(Terminal())
    assert not wants_color(open(os.devnull, "w"))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_color(Terminal())


def test_errors_are_coloured_on_a_terminal(monkeypatch):
    import io

    from kgen.diagnostics import Diagnostic, Position, Severity

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    stream = Terminal()
    Console(stream=stream).diagnostic(Diagnostic(Position("a.go", 1, 2), Severity.ERROR, "bad"))
    assert stream.getvalue() == "a.go:1:2: \x1b[31m\x1b[1merror:\x1b[0m bad\n"
    monkeypatch.setenv("NO_COLOR", "1")
    stream = Terminal()
    Console(stream=stream).diagnostic(Diagnostic(Position("a.go", 1, 2), Severity.ERROR, "bad"))
    assert stream.getvalue() == "a.go:1:2: error: bad\n"


def test_progress_shows_on_a_terminal_after_a_second_and_is_cleared(monkeypatch):
    import io

    from kgen import console

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("TERM", "xterm")
    stream = Terminal()
    shown = Console(stream=stream)
    shown.progress("reading apis")  # under a second: nothing
    assert stream.getvalue() == ""
    monkeypatch.setattr(console, "PROGRESS_AFTER", 0.0)
    shown.progress("generating models (1/10)")
    assert "\rkgen: generating models (1/10)" in stream.getvalue()
    shown.summary("done")
    assert stream.getvalue().endswith("\r\ndone\n") or stream.getvalue().endswith("\rdone\n")
    plain = io.StringIO()
    Console(stream=plain).progress("x")
    assert plain.getvalue() == ""  # never in a pipe


@pytest.mark.slow
def test_init_scaffolds_a_repository_that_generates_and_imports(tmp_path):
    kgen = Path(sys.executable).parent / "kgen"
    done = subprocess.run([kgen, "init", "--group", "shop.example.com", "--kind", "Order"], cwd=tmp_path,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "apis/shop/v1/types.go").is_file() and (tmp_path / ".pre-commit-config.yaml").is_file()
    hooks = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text())
    assert hooks["repos"][0]["hooks"][0]["entry"] == "kgen generate"
    again = subprocess.run([kgen, "init", "--group", "shop.example.com", "--kind", "Order"], cwd=tmp_path,
                           capture_output=True, text=True)  # fmt: skip
    assert "kept    apis/shop/v1/types.go (it exists)" in again.stdout
    generated = subprocess.run([kgen, "generate", "--strict"], cwd=tmp_path, capture_output=True, text=True)
    assert generated.returncode == 0, generated.stderr
    program = (
        "from generated.shop.v1 import Order, validation\n"
        "o = Order.from_json(b'{\"apiVersion\":\"shop.example.com/v1\",\"kind\":\"Order\","
        "\"metadata\":{\"name\":\"a\",\"namespace\":\"d\"},\"spec\":{\"image\":\"\",\"replicas\":200}}')\n"
        "print(sorted(e.field for e in validation.validate_Order(o)))\n"
    )
    imported = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "['spec.image', 'spec.replicas']"


def test_init_appends_to_an_existing_pyproject_and_refuses_bad_names(cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "My Shop"\n')
    result = cli(["init"], tmp_path)
    assert result.exit_code == 0, result.output
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith('[project]\nname = "My Shop"\n\n[tool.kgen]')
    assert 'module = "example.com/my-shop/apis"' in text
    bad = cli(["init", "--group", "Shop", "--dir", "other"], tmp_path)
    assert bad.exit_code == 2 and "--group 'Shop' must be a DNS subdomain" in bad.output


def test_a_users_template_replaces_kgens_and_the_header_stays(cli, project):
    builtin = (REPO / "templates" / "models" / "models.py.j2").read_text()
    override = project / "templates" / "models" / "models.py.j2"
    override.parent.mkdir(parents=True)
    override.write_text(builtin.replace("from __future__ import annotations\n", "from __future__ import annotations\n\nSHOP = 'custom'\n", 1))
    assert cli(["generate"], project).exit_code == 0
    models = (project / "generated" / "shop" / "v1" / "models.py").read_text()
    assert models.startswith("# Code generated by kgen-models. DO NOT EDIT.\n")
    assert "\nSHOP = \"custom\"\n" in models  # black-formatted
    # changing the template is a change of the output: the run cache does not hide it
    override.write_text(builtin)
    assert cli(["generate", "--check"], project).exit_code == 1


def test_the_pre_commit_hooks_run_kgen_generate():
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["kgen-verify"]["entry"] == "kgen generate --check"
    assert hooks["kgen-generate"]["entry"] == "kgen generate -q"
    for hook in hooks.values():
        import re

        pattern = re.compile(hook["files"])
        assert pattern.search("api/v1/types.go") and pattern.search("apis/shop/v1/types.go")
        assert pattern.search("pyproject.toml") and not pattern.search("src/app.py")


def test_a_templates_folder_that_replaces_nothing_changes_nothing_and_overrides_end_with_the_run(project, monkeypatch):
    """A templates/ folder holding no template of kgen's (project assets, say) is no override:
    modules keep the fast formatting path. A run's overrides apply to that run only."""
    from kgen import render

    other = project / "templates" / "mail" / "welcome.j2"
    other.parent.mkdir(parents=True)
    other.write_text("Hello {{ name }}\n")
    with render.templates_from(project / "templates") as overriding:
        assert overriding is False
        assert render._overrides.get() is None
    override = project / "templates" / "models" / "models.py.j2"
    override.parent.mkdir(parents=True)
    override.write_text("custom\n")
    with render.templates_from(project / "templates") as overriding:
        assert overriding is True
        assert render.render_template("models/models.py.j2") == "custom\n"
    assert render._environment().get_template("models/models.py.j2").filename == str(
        render.TEMPLATES / "models" / "models.py.j2"
    )  # kgen's own again
