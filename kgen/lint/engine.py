"""Running lint rules: the rule record, what a rule is given (`Context`), and the edits its
fixes make.

A rule is a function of a `Context`: it walks the packages (`ctx.fields()`, `ctx.types()`)
and reports findings with `ctx.report_*`, each optionally with a fix built from `Edits`
(remove a marker line, insert a line above a declaration, replace bytes). Fixes are edits
of the Go source as written: comments and formatting outside the edited bytes stay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kgen.findings import Edit, Finding, Fix, Severity
from kgen.lint.markers import Marker
from kgen.lint.model import LintField, LintFile, LintStruct, LintType, World

CRD, BUILTIN = "crd", "builtin"
PROFILES = (CRD, BUILTIN)
"""`crd`: custom resources (kubebuilder projects); `builtin`: Kubernetes-style built-in APIs
(validated in code, served with protobuf and strategic merge patch)."""


@dataclass(frozen=True)
class Option:
    """A setting of a rule: its default, the values it takes (empty: any of the default's
    type) and what it does."""

    default: Any
    help: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """One lint rule, as the registry lists it."""

    id: str
    explanation: str
    """One line: what the rule asks for and why."""
    check: Callable[[Context], None]
    severity: Severity = Severity.WARNING
    profiles: frozenset[str] = frozenset(PROFILES)
    """The profiles that turn it on by default."""
    options: dict[str, Option] = field(default_factory=dict)
    profile_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per profile, option values other than the defaults (conditions' useProtobuf for CRDs)."""
    fixable: bool = False
    origin: str = "kube-api-linter"
    """kube-api-linter, openapi-gen (its API rules), or kgen (conventions none of them checks)."""
    markers: Callable[[dict[str, Any]], frozenset[str]] | None = None
    """Marker identifiers the rule's settings name, read with their arguments (forbiddenmarkers...)."""
    validate: Callable[[dict[str, Any], str], list[str]] | None = None
    """What is wrong with settings of the rule (each problem prefixed with where it is)."""
    needs_universe: bool = False
    """Reads the IR (kinds, versions, CRD schemas): skipped when linting sources alone."""


class Context:
    """What a rule sees while it runs: the packages, its settings, and where findings go."""

    def __init__(self, world: World, rule: Rule, options: dict[str, Any], severity: Severity, known: frozenset[str]):
        self.world = world
        self.rule = rule
        self.options = options
        self.severity = severity
        self.known = known
        self.findings: list[Finding] = []

    # -- walking ----------------------------------------------------------------------------

    def types(self) -> Iterator[LintType]:
        """Every type declaration of the linted packages."""
        for package in self.world.linted_packages():
            for lint_file in package.files:
                for decl in lint_file.go.types:
                    found = package.types.get(decl.name)
                    if found is not None and found.decl is decl:
                        yield found

    def structs(self) -> Iterator[LintStruct]:
        for package in self.world.linted_packages():
            yield from package.structs

    def fields(self, include_lists: bool = False) -> Iterator[LintField]:
        """Every struct field, as kube-api-linter's inspector visits them: not those of list
        kinds (unless `include_lists`), not `json:"-"` ones, not schemaless ones."""
        for struct in self.structs():
            if not include_lists and struct.is_list_type():
                continue
            if any(_skipped(parent) for parent in _parents(struct)):
                continue  # a struct inside an ignored field is not looked into
            for lint_field in struct.fields:
                if not _skipped(lint_field):
                    yield lint_field

    # -- reporting --------------------------------------------------------------------------

    def report(self, file: LintFile, line: int, col: int, message: str, subject: str, fix: Fix | None = None,
               severity: Severity | None = None) -> None:  # fmt: skip
        """A finding of this rule at `file:line:col`."""
        self.findings.append(
            Finding(
                rule=self.rule.id, severity=severity or self.severity, message=message,
                explanation=self.rule.explanation, path=file.path, line=line, col=col, fix=fix,
                subject=f"{file.package.import_path}.{subject}",
            )
        )  # fmt: skip

    def report_field(self, lint_field: LintField, message: str, fix: Fix | None = None, **kwargs: Any) -> None:
        self.report(lint_field.file, lint_field.line, lint_field.col, message, lint_field.qualified_name, fix, **kwargs)

    def report_type(self, lint_type: LintType, message: str, fix: Fix | None = None, **kwargs: Any) -> None:
        position = lint_type.decl.position
        self.report(lint_type.file, position.line, position.col, message, lint_type.name, fix, **kwargs)


def _skipped(lint_field: LintField) -> bool:
    return lint_field.tag.ignored or lint_field.markers.has("kubebuilder:validation:Schemaless")


def _parents(struct: LintStruct) -> Iterator[LintField]:
    parent = struct.parent
    while parent is not None:
        yield parent
        parent = parent.struct.parent


# -- edits --------------------------------------------------------------------------------


def remove_line(file: LintFile, line: int) -> Edit:
    """Delete a whole line (a marker's), its indentation and newline included."""
    start, end = file.line_span(line)
    return Edit(file.path, start, end, "")


def remove_marker(marker: Marker, file: LintFile) -> Edit:
    return remove_line(file, marker.line)


def replace_marker(marker: Marker, file: LintFile, text: str) -> Edit:
    """Rewrite a marker comment (`// +...`), leaving its indentation."""
    return Edit(file.path, marker.start, marker.end, text)


def insert_line_above(file: LintFile, line: int, text: str) -> Edit:
    """Insert `text` as a line of its own above `line`, indented as that line is."""
    start, _ = file.line_span(line)
    return Edit(file.path, start, start, f"{file.indentation(line)}{text}\n")


def insert_lines_above(file: LintFile, line: int, *texts: str) -> Edit:
    """Insert several lines above `line`, in order, each indented as that line is."""
    start, _ = file.line_span(line)
    indent = file.indentation(line)
    return Edit(file.path, start, start, "".join(f"{indent}{text}\n" for text in texts))


def replace(file: LintFile, start: int, end: int, text: str) -> Edit:
    return Edit(file.path, start, end, text)


def fix(description: str, *edits: Edit) -> Fix:
    return Fix(description, tuple(edits))


def apply_edits(source: bytes, edits: list[Edit]) -> bytes:
    """Apply non-overlapping edits (sorted here) to one file's bytes."""
    out = bytearray()
    at = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out += source[at : edit.start]
        out += edit.text.encode()
        at = edit.end
    out += source[at:]
    return bytes(out)


def select_fixes(findings: list[Finding]) -> tuple[dict[str, list[Edit]], list[Finding]]:
    """The edits of as many fixes as apply together, by file: a fix is taken whole or not at
    all, and not when it overlaps one already taken (an identical edit counts once). Also
    returns the findings whose fixes were taken."""
    taken: dict[str, list[Edit]] = {}
    applied: list[Finding] = []
    for finding in sorted(findings, key=Finding.sort_key):
        if finding.fix is None:
            continue
        new = [e for e in finding.fix.edits if e not in taken.get(e.path, ())]
        if any(_overlaps(e, other) for e in new for other in taken.get(e.path, ())):
            continue
        if any(_overlaps(a, b) for i, a in enumerate(new) for b in new[i + 1 :] if a.path == b.path):
            continue
        for edit in new:
            taken.setdefault(edit.path, []).append(edit)
        applied.append(finding)
    return taken, applied


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end and b.start == b.end:
        return a.start == b.start  # two insertions at one place: their order would be a guess
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end
