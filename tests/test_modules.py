"""Finding imported packages as the go command does: go.mod found upward, require and
replace (to versions and to directories), go.work, vendor/, the module cache with its
escaping, and errors that say where kgen looked and what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build, messages, write_tree
from kgen.source.modules import ModFileError, PackageNotFound, Workspace, escape, module_cache, parse_mod_file

GO_MOD = """\
module example.com/operator // the main module

go 1.24.0

toolchain go1.24.4

require (
	k8s.io/api v0.36.3
	k8s.io/apimachinery v0.36.3 // indirect
	github.com/Azure/azure-sdk v1.2.0
	example.org/shared v0.1.0
	example.org/forked v1.0.0
)

require "example.org/quoted" v2.0.0+incompatible

replace example.org/shared => ../shared

replace (
	example.org/forked v1.0.0 => example.org/fork v1.0.1-0.20260101000000-abcdef123456
)

exclude k8s.io/api v0.36.0

retract [v0.1.0, v0.1.1]
"""


def _tree(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    files = {
        "operator/go.mod": GO_MOD,
        "operator/api/v1/types.go": "package v1\n",
        "shared/go.mod": "module example.org/shared\n",
        "shared/names/names.go": "package names\n",
        "cache/k8s.io/api@v0.36.3/core/v1/types.go": "package v1\n",
        "cache/github.com/!azure/azure-sdk@v1.2.0/models/models.go": "package models\n",
        "cache/example.org/fork@v1.0.1-0.20260101000000-abcdef123456/types/types.go": "package types\n",
        "cache/example.org/quoted@v2.0.0+incompatible/q/q.go": "package q\n",
    }
    write_tree(tmp_path, files | (extra or {}))
    return tmp_path


def test_go_mod_directives_as_modfile_reads_them(tmp_path):
    _tree(tmp_path)
    mod = parse_mod_file(tmp_path / "operator/go.mod")
    assert (mod.module, mod.go) == ("example.com/operator", "1.24.0")
    assert mod.requires == {
        "k8s.io/api": "v0.36.3", "k8s.io/apimachinery": "v0.36.3", "github.com/Azure/azure-sdk": "v1.2.0",
        "example.org/shared": "v0.1.0", "example.org/forked": "v1.0.0", "example.org/quoted": "v2.0.0+incompatible",
    }  # fmt: skip
    assert mod.replacement("example.org/shared", "v0.1.0").directory == (tmp_path / "shared").resolve()
    forked = mod.replacement("example.org/forked", "v1.0.0")
    assert (forked.module, forked.version) == ("example.org/fork", "v1.0.1-0.20260101000000-abcdef123456")
    assert mod.replacement("example.org/forked", "v1.0.9") is None  # a versioned replace is for that version


@pytest.mark.parametrize(
    "import_path, relative, via",
    [
        ("example.com/operator/api/v1", "operator/api/v1", "main module"),
        ("k8s.io/api/core/v1", "cache/k8s.io/api@v0.36.3/core/v1", "module cache"),
        ("github.com/Azure/azure-sdk/models", "cache/github.com/!azure/azure-sdk@v1.2.0/models", "module cache"),
        ("example.org/shared/names", "shared/names", "replace"),
        ("example.org/forked/types", "cache/example.org/fork@v1.0.1-0.20260101000000-abcdef123456/types", "module cache"),
        ("example.org/quoted/q", "cache/example.org/quoted@v2.0.0+incompatible/q", "module cache"),
    ],
)
def test_packages_are_found_where_the_go_command_finds_them(tmp_path, import_path, relative, via):
    _tree(tmp_path)
    workspace = Workspace.find(tmp_path / "operator/api/v1", {"GOMODCACHE": str(tmp_path / "cache")})
    located = workspace.locate(import_path)
    assert (located.directory, located.via) == ((tmp_path / relative).resolve(), via)


def test_the_input_import_path_comes_from_the_go_mod_above_it(tmp_path):
    _tree(tmp_path)
    assert Workspace.find(tmp_path / "operator/api/v1").import_path_of(tmp_path / "operator/api/v1") == (
        "example.com/operator/api/v1"
    )


@pytest.mark.parametrize(
    "environ, expected",
    [
        ({"GOMODCACHE": "/m", "GOPATH": "/g"}, "/m"),
        ({"GOPATH": "/g1:/g2"}, "/g1/pkg/mod"),
        ({}, str(Path.home() / "go/pkg/mod")),
    ],
)
def test_the_module_cache_is_where_go_env_gomodcache_says(environ, expected):
    assert module_cache(environ) == Path(expected)


@pytest.mark.parametrize("path, escaped", [("github.com/Azure/go-autorest", "github.com/!azure/go-autorest"), ("v1.0.0-RC1", "v1.0.0-!r!c1")])
def test_capital_letters_are_escaped_as_in_the_module_cache(path, escaped):
    assert escape(path) == escaped


def test_vendor_mode_reads_vendor_when_go_does(tmp_path):
    _tree(tmp_path, {
        "operator/vendor/modules.txt": "# k8s.io/api v0.36.3\n## explicit\nk8s.io/api/core/v1\n",
        "operator/vendor/k8s.io/api/core/v1/types.go": "package v1\n",
    })  # fmt: skip
    environ = {"GOMODCACHE": str(tmp_path / "cache")}
    located = Workspace.find(tmp_path / "operator", environ).locate("k8s.io/api/core/v1")
    assert (located.directory, located.via) == ((tmp_path / "operator/vendor/k8s.io/api/core/v1").resolve(), "vendor")
    located = Workspace.find(tmp_path / "operator", environ | {"GOFLAGS": "-mod=mod"}).locate("k8s.io/api/core/v1")
    assert located.via == "module cache"


def test_go_work_use_directories_are_modules_of_the_workspace(tmp_path):
    _tree(tmp_path, {
        "go.work": "go 1.24\n\nuse (\n\t./operator\n\t./lib\n)\n",
        "lib/go.mod": "module example.org/lib\n",
        "lib/things/things.go": "package things\n",
    })  # fmt: skip
    environ = {"GOMODCACHE": str(tmp_path / "cache")}
    located = Workspace.find(tmp_path / "operator/api/v1", environ).locate("example.org/lib/things")
    assert (located.directory, located.via) == ((tmp_path / "lib/things").resolve(), "workspace")
    with pytest.raises(PackageNotFound):
        Workspace.find(tmp_path / "operator/api/v1", environ | {"GOWORK": "off"}).locate("example.org/lib/things")


def test_a_nested_module_is_not_part_of_the_main_module(tmp_path):
    _tree(tmp_path, {"operator/tools/go.mod": "module example.com/operator/tools\n", "operator/tools/gen/gen.go": "package gen\n"})
    workspace = Workspace.find(tmp_path / "operator", {"GOMODCACHE": str(tmp_path / "cache")})
    with pytest.raises(PackageNotFound, match="no module required by"):
        workspace.locate("example.com/operator/tools/gen")


def test_a_package_that_is_nowhere_says_where_kgen_looked_and_the_fix(tmp_path):
    _tree(tmp_path)
    workspace = Workspace.find(tmp_path / "operator", {"GOMODCACHE": str(tmp_path / "cache")})
    with pytest.raises(PackageNotFound) as caught:
        workspace.locate("k8s.io/apimachinery/pkg/util/sets")
    message = str(caught.value)
    assert message.startswith(
        "cannot find package 'k8s.io/apimachinery/pkg/util/sets' (module k8s.io/apimachinery v0.36.3, required by "
    )
    assert "k8s.io/apimachinery@v0.36.3/pkg/util/sets (module cache)" in message
    assert message.endswith(
        "run `go mod download k8s.io/apimachinery`, or add an import-map line k8s.io/apimachinery/pkg/util/sets=DIR"
    )
    with pytest.raises(PackageNotFound, match="add it with `go get example.net/other`"):
        workspace.locate("example.net/other")


@pytest.mark.parametrize(
    "text, message",
    [
        ("module a\nrequire b\n", "go.mod:2:1: usage: require module/path v1.2.3"),
        ("module a\nreplace b => c\n", "go.mod:2:1: replacement module 'c' needs a version"),
        ("module a\ngo one\n", "go.mod:2:1: invalid go version 'one'"),
        ("module a\nrequire (\n\tb v1.0.0\n", "go.mod:4:1: require block is not closed"),
    ],
)
def test_a_malformed_go_mod_is_an_error_with_its_line(tmp_path, text, message):
    (tmp_path / "go.mod").write_text(text)
    with pytest.raises(ModFileError, match=message):
        parse_mod_file(tmp_path / "go.mod")


def test_a_project_finds_k8s_api_in_the_module_cache_and_reads_only_what_it_uses(tmp_path, monkeypatch):
    """An operator's API embeds core/v1 types; k8s.io/api is in the module cache at the version
    go.mod requires. Only the packages its types reach are read: a broken package elsewhere in
    k8s.io/api is never parsed."""
    write_tree(tmp_path, {
        "go.mod": "module example.com/operator\n\ngo 1.24\n\nrequire k8s.io/api v0.36.3\n",
        "api/v1/doc.go": "// +groupName=apps.example.com\npackage v1\n",
        "api/v1/types.go": 'package v1\n\nimport corev1 "k8s.io/api/core/v1"\n\n'
                           'type WorkerSpec struct {\n\tTemplate corev1.PodTemplateSpec `json:"template"`\n}\n',
        "cache/k8s.io/api@v0.36.3/core/v1/types.go": 'package v1\n\ntype PodTemplateSpec struct {\n\tSpec PodSpec `json:"spec"`\n}\n\n'
                                                     'type PodSpec struct {\n\tNodeName string `json:"nodeName"`\n}\n',
        "cache/k8s.io/api@v0.36.3/broken/v1/types.go": "package v1\n\ntype X struct {\n",
    })  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOMODCACHE", str(tmp_path / "cache"))
    universe, diagnostics = build(tmp_path / "api", module="example.com/operator/api")
    assert messages(diagnostics) == []
    core = universe.package("k8s.io/api/core/v1")
    assert (core.role, sorted(t.name for t in core.types)) == ("dependency", ["PodSpec", "PodTemplateSpec"])
    assert core.output_dir == "_deps/k8s_io/api/core/v1"
