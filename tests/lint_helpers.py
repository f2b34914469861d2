"""Helpers of the lint tests: one API package written in a temporary directory, linted in process."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from kgen.findings import Finding
from kgen.lint.config import LintSettings
from kgen.lint.run import LintResult, fix, lint
from kgen.options import Options

CRD_GROUP = "widgets.example.com"
BUILTIN_GROUP = "widgets"
"""A group name without a dot is one of Kubernetes' own groups: the builtin profile."""

IMPORTS = """\
import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var _ = metav1.Time{}
"""


def write_package(root: Path, source: str, group: str = CRD_GROUP, version: str = "v1", name: str = "types.go") -> Path:
    """`apis/<version>/` of a module `example.com/apis`, with doc.go naming the group."""
    directory = root / "apis" / version
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "doc.go").write_text(f"// +groupName={group}\npackage {version}\n", encoding="utf-8")
    body = textwrap.dedent(source).strip("\n") + "\n"
    (directory / name).write_text(f"package {version}\n\n{IMPORTS}\n{body}", encoding="utf-8")
    return directory / name


def options(root: Path) -> Options:
    return Options(input=root / "apis", output=root / "generated", module="example.com/apis")


def settings(rule: str | None = None, config: dict[str, Any] | None = None, **kwargs: Any) -> LintSettings:
    kwargs.setdefault("select", (rule,) if rule else ())
    return LintSettings(options={rule: dict(config)} if rule and config else {}, **kwargs)


def run(root: Path, rule: str | None = None, config: dict[str, Any] | None = None, **kwargs: Any) -> list[Finding]:
    return lint(options(root), settings(rule, config, **kwargs)).findings


def run_result(root: Path, rule: str | None = None, config: dict[str, Any] | None = None, **kwargs: Any) -> LintResult:
    return lint(options(root), settings(rule, config, **kwargs))


def run_fix(root: Path, rule: str | None = None, config: dict[str, Any] | None = None, **kwargs: Any) -> LintResult:
    return fix(options(root), settings(rule, config, **kwargs))


def messages(findings: list[Finding]) -> list[str]:
    return [f"{f.line}: {f.message}" for f in findings]
