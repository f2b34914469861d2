"""Every block of the README is what it claims to be: shell that bash parses, TOML settings
that kgen loads as written, Python that compiles, YAML that loads. (The tutorial's shell
blocks also run, in tests/test_readme_tutorial.py.)"""

from __future__ import annotations

import re
import subprocess
import tomllib

import pytest
import yaml

from conftest import REPO
from kgen.options import load_config

BLOCKS = re.findall(r"```(\w+)\n(.*?)```", (REPO / "README.md").read_text(), re.S)


def _blocks(language: str) -> list[str]:
    return [text for lang, text in BLOCKS if lang == language]


def test_the_readme_has_blocks_of_each_kind():
    assert {lang for lang, _ in BLOCKS} == {"sh", "toml", "python", "yaml"}


@pytest.mark.parametrize("text", _blocks("sh"))
def test_shell_blocks_parse(text):
    done = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("text", _blocks("toml"))
def test_settings_blocks_load_as_kgen_reads_them(text, tmp_path):
    """Copied into pyproject.toml as written, the settings load without complaint, and each
    key is in the table it is documented for."""
    (tmp_path / "pyproject.toml").write_text(text)
    table, _ = load_config(tmp_path / "pyproject.toml")
    data = tomllib.loads(text)["tool"]["kgen"]
    assert table == data
    assert all(isinstance(v, str) for v in data.get("import-map", {}).values())


@pytest.mark.parametrize("text", _blocks("python"))
def test_python_blocks_compile(text):
    compile(text, "README.md", "exec")


@pytest.mark.parametrize("text", _blocks("yaml"))
def test_yaml_blocks_load(text):
    assert yaml.safe_load(text.replace("<this repository>", "repo").replace("<tag>", "v1")) is not None
