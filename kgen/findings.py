"""Findings: what a check of the API (`kgen lint`, `kgen compat`) reports, and how it is shown.

A `Finding` is one problem at one place: the rule that found it, its severity, the message,
a one-line explanation of the rule, `path:line:col`, and optionally a `Fix` (byte edits of
the source). This module owns everything the commands share about findings: the severities
and their order, the threshold (`--fail-on`) and the exit code it gives, and the output
formats: human text, JSON, SARIF 2.1.0 (code-scanning UIs) and GitHub workflow annotations.

Each finding has a stable `id` (a fingerprint of its rule, file, subject and message, not of
its line), so a baseline or a code-scanning UI recognises it after unrelated edits move it.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

FORMATS = ("text", "json", "sarif", "github")
"""The output formats, the default first."""

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
"""A finding at or above the `--fail-on` severity."""

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
JSON_FORMAT = "kgen.dev/findings/v1"


class Severity(str, enum.Enum):
    """How much a finding matters; `rank` orders them (info < warning < error)."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    @classmethod
    def parse(cls, text: str) -> Severity:
        """A severity by name (as settings and flags write it); ValueError names the choices."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"unknown severity {text!r} (one of: {', '.join(s.value for s in cls)})") from None


_RANKS = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}
FAIL_ON_CHOICES = ("error", "warning", "info", "never")
"""What `--fail-on` takes: the lowest severity that fails the run, or never."""


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace bytes `start`..`end` of the file at `path` with `text` (an insertion when equal)."""

    path: str
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """An automatic fix: what it does, and the edits that do it (all of them or none)."""

    description: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem at one place."""

    rule: str
    """The rule's id, as settings and baselines name it (`optionalfields`)."""
    severity: Severity
    message: str
    explanation: str
    """One line: why the rule exists."""
    path: str
    """The file, relative to where the command ran (forward slashes); "" when none."""
    line: int = 0
    col: int = 0
    """1-based; 0 when the finding is about a whole file (or has no place)."""
    fix: Fix | None = None
    subject: str = ""
    """What the finding is about, independent of lines (`apis/shop/v1.OrderSpec.item`): part of the id."""

    @property
    def id(self) -> str:
        """A stable fingerprint: rule, file, subject and message (not the line)."""
        digest = hashlib.sha256("\x1f".join((self.rule, self.path, self.subject, self.message)).encode()).hexdigest()
        return f"{self.rule}-{digest[:12]}"

    @property
    def location(self) -> str:
        """`path:line:col` (or less, when the finding has no line)."""
        if not self.line:
            return self.path
        return f"{self.path}:{self.line}:{self.col}" if self.col else f"{self.path}:{self.line}"

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.col, self.rule, self.message)


@dataclass
class Report:
    """The findings of one run and what the run knows about them."""

    findings: list[Finding]
    tool: str = "kgen"
    version: str = ""
    information_uri: str = ""
    rules: dict[str, RuleInfo] = field(default_factory=dict)
    """Every rule that ran (for SARIF's rule table and the text legend), by id."""
    notes: list[str] = field(default_factory=list)
    """Run-level remarks printed after the findings (a stale baseline entry, fixes applied)."""

    def sorted(self) -> list[Finding]:
        return sorted(self.findings, key=Finding.sort_key)

    def counts(self) -> Counter[Severity]:
        return Counter(f.severity for f in self.findings)


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What output formats show about a rule."""

    id: str
    explanation: str
    severity: Severity
    help_uri: str = ""


def failing(findings: Iterable[Finding], fail_on: str) -> list[Finding]:
    """The findings at or above the threshold (`fail_on` is a severity name or "never")."""
    if fail_on == "never":
        return []
    threshold = Severity.parse(fail_on).rank
    return [f for f in findings if f.severity.rank >= threshold]


def exit_code(findings: Iterable[Finding], fail_on: str) -> int:
    """1 when any finding is at or above `fail_on`, else 0."""
    return EXIT_FINDINGS if failing(findings, fail_on) else EXIT_CLEAN


def render(report: Report, fmt: str, *, color: bool = False) -> str:
    """The report in one of `FORMATS` (text ends with a summary line; the others are documents)."""
    if fmt == "text":
        return render_text(report, color=color)
    if fmt == "json":
        return render_json(report)
    if fmt == "sarif":
        return render_sarif(report)
    if fmt == "github":
        return render_github(report)
    raise ValueError(f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")


# -- text ---------------------------------------------------------------------------------

_COLORS = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.INFO: "\x1b[36m"}


def render_text(report: Report, *, color: bool = False) -> str:
    """`path:line:col: severity: message [rule]` per finding, each rule's explanation once,
    then the counts."""
    lines: list[str] = []
    findings = report.sorted()
    for finding in findings:
        label = finding.severity.value + ":"
        if color:
            label = f"{_COLORS[finding.severity]}{label}\x1b[0m"
        fixable = " (fixable)" if finding.fix is not None else ""
        lines.append(f"{finding.location}: {label} {finding.message} [{finding.rule}]{fixable}")
    if findings:
        lines.append("")
        explained: dict[str, str] = {}
        for finding in findings:
            explained.setdefault(finding.rule, finding.explanation)
        width = max(len(rule) for rule in explained)
        lines.extend(f"  {rule:<{width}}  {text}" for rule, text in sorted(explained.items()))
    lines.extend(report.notes)
    lines.append(summary(findings))
    return "\n".join(lines) + "\n"


def summary(findings: Sequence[Finding]) -> str:
    """One line: how many findings of each severity, and how many a fix would remove."""
    if not findings:
        return "no findings"
    counts = Counter(f.severity for f in findings)
    parts = [
        f"{counts[s]} {s.value}{'s' if counts[s] != 1 else ''}"
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if counts[s]
    ]
    fixable = sum(1 for f in findings if f.fix is not None)
    total = f"{len(findings)} finding{'s' if len(findings) != 1 else ''} ({', '.join(parts)})"
    return total + (f"; {fixable} fixable with --fix" if fixable else "")


# -- JSON ---------------------------------------------------------------------------------


def finding_json(finding: Finding) -> dict[str, Any]:
    """A finding as the JSON format writes it."""
    document: dict[str, Any] = {
        "id": finding.id,
        "rule": finding.rule,
        "severity": finding.severity.value,
        "message": finding.message,
        "explanation": finding.explanation,
        "path": finding.path,
        "line": finding.line,
        "column": finding.col,
        "subject": finding.subject,
    }
    if finding.fix is not None:
        document["fix"] = {
            "description": finding.fix.description,
            "edits": [{"path": e.path, "start": e.start, "end": e.end, "text": e.text} for e in finding.fix.edits],
        }
    return document


def render_json(report: Report) -> str:
    """`{"format", "tool", "findings": [...], "summary": {...}}`, findings in file order."""
    findings = report.sorted()
    counts = report.counts()
    document = {
        "format": JSON_FORMAT,
        "tool": {"name": report.tool, "version": report.version},
        "findings": [finding_json(f) for f in findings],
        "summary": {
            "total": len(findings),
            **{s.value: counts[s] for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)},
            "fixable": sum(1 for f in findings if f.fix is not None),
        },
        "notes": list(report.notes),
    }
    return json.dumps(document, indent=2) + "\n"


# -- SARIF 2.1.0 --------------------------------------------------------------------------

_SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def render_sarif(report: Report) -> str:
    """A SARIF 2.1.0 log with one run: the rule table, one result per finding (locations
    relative to %SRCROOT%, the stable id as a partial fingerprint, fixes as replacements)."""
    findings = report.sorted()
    rules = dict(report.rules)
    for finding in findings:
        rules.setdefault(finding.rule, RuleInfo(finding.rule, finding.explanation, finding.severity))
    order = sorted(rules)
    index = {rule: i for i, rule in enumerate(order)}
    driver: dict[str, Any] = {"name": report.tool, "rules": [_sarif_rule(rules[rule]) for rule in order]}
    if report.version:
        driver["version"] = report.version
    if report.information_uri:
        driver["informationUri"] = report.information_uri
    results = []
    for finding in findings:
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": index[finding.rule],
            "level": _SARIF_LEVELS[finding.severity],
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": _sarif_location(finding)}],
            "partialFingerprints": {"kgenFindingId/v1": finding.id},
        }
        if finding.fix is not None:
            result["fixes"] = [_sarif_fix(finding.fix)]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json.dumps(log, indent=2) + "\n"


def _sarif_rule(rule: RuleInfo) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": rule.id,
        "name": rule.id,
        "shortDescription": {"text": rule.explanation},
        "defaultConfiguration": {"level": _SARIF_LEVELS[rule.severity]},
    }
    if rule.help_uri:
        entry["helpUri"] = rule.help_uri
    return entry


def _sarif_location(finding: Finding) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": finding.path, "uriBaseId": "%SRCROOT%"}}
    if finding.line:
        region: dict[str, Any] = {"startLine": finding.line}
        if finding.col:
            region["startColumn"] = finding.col
        location["region"] = region
    return location


def _sarif_fix(fix: Fix) -> dict[str, Any]:
    by_path: dict[str, list[Edit]] = {}
    for edit in fix.edits:
        by_path.setdefault(edit.path, []).append(edit)
    return {
        "description": {"text": fix.description},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
                "replacements": [
                    {
                        "deletedRegion": {"byteOffset": e.start, "byteLength": e.end - e.start},
                        "insertedContent": {"text": e.text},
                    }
                    for e in sorted(edits, key=lambda e: (e.start, e.end))
                ],
            }
            for path, edits in sorted(by_path.items())
        ],
    }


# -- GitHub annotations -------------------------------------------------------------------

_GITHUB_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    """One workflow command per finding (`::error file=...,line=...,col=...,title=...::message`),
    which GitHub Actions shows on the lines of a pull request."""
    lines = []
    for finding in report.sorted():
        properties = [f"file={_escape_property(finding.path)}"] if finding.path else []
        if finding.line:
            properties.append(f"line={finding.line}")
        if finding.col:
            properties.append(f"col={finding.col}")
        properties.append(f"title={_escape_property(finding.rule)}")
        message = f"{finding.message} ({finding.explanation})" if finding.explanation else finding.message
        lines.append(f"::{_GITHUB_COMMANDS[finding.severity]} {','.join(properties)}::{_escape_data(message)}")
    return "".join(line + "\n" for line in lines)
