"""`kgen init`: the files a new API repository starts from.

One group/version with one kind written the way Kubernetes API types are written (doc.go
with the package markers, types.go with a kind, its spec, status and list), the
`[tool.kgen]` table in pyproject.toml, and a pre-commit configuration that keeps
`generated/` current. Nothing that exists is overwritten: an existing pyproject.toml gets
the table appended when it has none, and an existing file is reported and left alone.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_VERSION = re.compile(r"v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?")
_KIND = re.compile(r"[A-Z][A-Za-z0-9]*")


class ScaffoldError(ValueError):
    """A name `kgen init` cannot use (exit code 2)."""


@dataclass(frozen=True)
class Scaffold:
    """What `kgen init` writes, and where."""

    root: Path
    group: str
    version: str
    kind: str
    module: str

    @property
    def package_dir(self) -> str:
        return f"apis/{self.group.split('.')[0]}/{self.version}"

    def files(self) -> dict[str, str]:
        """Relative path -> content of every new file (pyproject.toml handled apart)."""
        return {
            f"{self.package_dir}/doc.go": _DOC_GO.format(**self._names()),
            f"{self.package_dir}/types.go": _TYPES_GO.format(**self._names()),
            ".pre-commit-config.yaml": _PRE_COMMIT,
            ".gitignore": _GITIGNORE,
        }

    def _names(self) -> dict[str, str]:
        return {
            "group": self.group,
            "version": self.version,
            "kind": self.kind,
            "plural": self.kind.lower() + "s",
            "package": self.version,
        }

    def config(self) -> str:
        return _CONFIG.format(module=self.module)


def plan(root: Path, group: str, version: str, kind: str, module: str | None) -> Scaffold:
    """Check the names and work out the module path (from the project's name when not given)."""
    if not _DNS_SUBDOMAIN.fullmatch(group) or "." not in group or len(group) > 253:
        raise ScaffoldError(f"--group {group!r} must be a DNS subdomain with a dot, like widgets.example.com")
    if not _VERSION.fullmatch(version):
        raise ScaffoldError(f"--version {version!r} must be an API version like v1, v1beta1 or v2alpha1")
    if not _KIND.fullmatch(kind):
        raise ScaffoldError(f"--kind {kind!r} must be a CamelCase Go identifier, like Widget")
    if module is None:
        module = f"example.com/{_project_name(root)}/apis"
    if not re.fullmatch(r"[A-Za-z0-9][-A-Za-z0-9_.~/]*", module) or "//" in module or module.endswith("/"):
        raise ScaffoldError(f"--module {module!r} is not a Go import path, like github.com/you/project/apis")
    return Scaffold(root, group, version, kind, module)


def _project_name(root: Path) -> str:
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            name = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name")
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            name = None
        if isinstance(name, str) and name:
            return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "project"
    return re.sub(r"[^a-z0-9-]+", "-", root.resolve().name.lower()).strip("-") or "project"


def write(scaffold: Scaffold) -> tuple[list[str], list[str]]:
    """Write the scaffold; returns (written, left alone because they exist)."""
    written, kept = [], []
    for relative, content in scaffold.files().items():
        target = scaffold.root / relative
        if target.exists():
            kept.append(relative)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        written.append(relative)
    pyproject = scaffold.root / "pyproject.toml"
    if not pyproject.exists():
        name = _project_name(scaffold.root)
        pyproject.write_text(_PYPROJECT.format(name=name) + scaffold.config(), encoding="utf-8")
        written.append("pyproject.toml")
    else:
        text = pyproject.read_text(encoding="utf-8")
        try:
            has_table = "kgen" in tomllib.loads(text).get("tool", {})
        except tomllib.TOMLDecodeError as err:
            raise ScaffoldError(f"pyproject.toml is not valid TOML ({err}); fix it, then run kgen init again") from None
        if has_table:
            kept.append("pyproject.toml ([tool.kgen])")
        else:
            separator = "" if text.endswith("\n\n") or not text else ("\n" if text.endswith("\n") else "\n\n")
            pyproject.write_text(text + separator + scaffold.config(), encoding="utf-8")
            written.append("pyproject.toml ([tool.kgen])")
    return written, kept


_PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["kgen-k8s"]

[tool.pytest.ini_options]
# Tests import generated/ from the project root, whether run as `pytest` or `python -m pytest`.
pythonpath = ["."]

"""

_GITIGNORE = """\
.venv/
__pycache__/
*.pyc
.pytest_cache/
.hypothesis/
.mypy_cache/
build/
dist/
*.egg-info/
"""

_CONFIG = """\
[tool.kgen]
# Where the API types are, where generated code goes, and the Go import path of apis/
# (OpenAPI definition names and protobuf packages are derived from it).
input = "apis"
output = "generated"
module = "{module}"
"""

_PRE_COMMIT = """\
# Keeps generated/ what kgen writes for apis/ (https://pre-commit.com).
repos:
  - repo: local
    hooks:
      - id: kgen-generate
        name: kgen generate
        entry: kgen generate
        language: system
        pass_filenames: false
        files: ^(apis/|api/|generated/|pyproject\\.toml$)
"""

_DOC_GO = """\
// Package {package} is version {version} of the {group} API group.
//
// +k8s:deepcopy-gen=package
// +groupName={group}
package {package}
"""

_TYPES_GO = """\
package {package}

import (
\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// {kind}Phase says where a {kind} is in its life.
// +enum
type {kind}Phase string

const (
\t// {kind}Pending means the {kind} is accepted but not ready yet.
\t{kind}Pending {kind}Phase = "Pending"
\t// {kind}Ready means the {kind} is serving.
\t{kind}Ready {kind}Phase = "Ready"
)

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`

// {kind} is the Schema for the {plural} API.
type {kind} struct {{
\tmetav1.TypeMeta   `json:",inline"`
\tmetav1.ObjectMeta `json:"metadata,omitempty"`

\tSpec   {kind}Spec   `json:"spec,omitempty"`
\tStatus {kind}Status `json:"status,omitempty"`
}}

// {kind}Spec is the desired state of a {kind}.
type {kind}Spec struct {{
\t// Replicas is how many copies to run.
\t// +kubebuilder:validation:Minimum=0
\t// +kubebuilder:validation:Maximum=100
\t// +kubebuilder:default=1
\t// +optional
\tReplicas *int32 `json:"replicas,omitempty"`

\t// Image is the container image to run.
\t// +kubebuilder:validation:MinLength=1
\t// +required
\tImage string `json:"image"`
}}

// {kind}Status is the observed state of a {kind}.
type {kind}Status struct {{
\t// Phase is where the {kind} is in its life.
\t// +optional
\tPhase {kind}Phase `json:"phase,omitempty"`

\t// Conditions are the latest observations of the {kind}'s state.
\t// +listType=map
\t// +listMapKey=type
\t// +optional
\tConditions []metav1.Condition `json:"conditions,omitempty"`
}}

// +kubebuilder:object:root=true

// {kind}List is a list of {kind} objects.
type {kind}List struct {{
\tmetav1.TypeMeta `json:",inline"`
\tmetav1.ListMeta `json:"metadata,omitempty"`

\tItems []{kind} `json:"items"`
}}
"""
