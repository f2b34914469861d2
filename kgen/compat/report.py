"""From changes to findings: subjects, severities, grouping, examples and the allow list.

- Each change is named (`Frobber example.kgen.dev/v1 spec.replicas`) and placed: at the Go
  field that makes it (the new revision's, or the struct that lost it), or at the line of
  the CRD manifest.
- Severity starts from the rule (or the change), then: alpha versions and fields behind a
  `+featureGate` lower it one level; validation under `status` (which the server's own
  controllers write) is `info`; relaxed validation and a changed description are a `warning`
  on a stable version.
- The same change of a Go field seen through several kinds (PodSpec in Pod, Deployment,
  Job, ...) or several versions is one finding, at the most severe of its places, naming
  the others; a change of the Go types that a schema change already shows is left out.
- Examples (`kgen.compat.examples`) are looked for in each finding's first places; a
  change of the values a field accepts (bounds, lengths, counts, pattern, format, enum, CEL
  rules, compositions) that none is found for is a warning.
- Findings the allow list matches are not reported as findings but as notes, with their
  reason; entries that match nothing are noted too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kgen.compat import examples as examples_module
from kgen.compat import gotypes, resources
from kgen.compat.changes import Change
from kgen.compat.rules import ERROR, INFO, RULES, SEVERITIES, WARNING, lowered, stability
from kgen.compat.settings import Allowance
from kgen.compat.snapshot import Resource, Snapshot, display_path, field_at
from kgen.diagnostics import Position
from kgen.findings import Finding, RuleInfo, Severity
from kgen.runtime.scheme import version_priority

_NEEDS_EXAMPLE = {
    "pattern-changed", "cel-rule-added", "cel-rule-changed", "validation-changed", "bounds-tightened",
    "length-tightened", "items-tightened", "properties-tightened", "format-changed", "enum-narrowed",
}  # fmt: skip
"""Rules about the values a field accepts: a tighter keyword refuses nothing when the other
keywords refused those values already (a maxLength added to a field whose enum allows only
"System"), so without an example such a change is a warning saying so."""
_REQUIREDNESS = ("field-made-required", "required-field-added")
_SHOWN_BY_SCHEMA = {
    "field-removed": ("field-removed", "json-name-changed"),
    "type-changed": ("type-changed",),
    "go-type-changed": ("format-changed", "type-changed"),
}
"""A Go change (key) is left out when a schema change of the same Go field with one of these
rules shows it; a schema `field-removed` is left out when the Go field was renamed."""


@dataclass
class Group:
    """One finding: the same change seen at one or more places."""

    rule: str
    what: str
    changes: list[Change] = field(default_factory=list)
    severity: str = INFO
    subject: str = ""
    position: Position | None = None
    notes: list[str] = field(default_factory=list)


def _gv(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def _subject(change: Change, snapshot: Snapshot) -> str:
    if change.subject:
        return change.subject
    assert change.resource is not None
    group, kind = change.resource
    text = f"{kind} {_gv(group, change.version)}" if change.version else f"{kind} ({group or 'core'})"
    path = display_path(change.steps)
    return f"{text} {path}" if path else text


def _resource(snapshot: Snapshot, change: Change) -> Resource | None:
    return snapshot.resources.get(change.resource) if change.resource is not None else None


def _go_field(snapshot: Snapshot, change: Change):  # type: ignore[no-untyped-def]
    """(owner, field, rest) of a schema change in a snapshot's Go types, or Nones."""
    resource = _resource(snapshot, change)
    if snapshot.universe is None or resource is None or change.version not in resource.versions:
        return None, None, ()
    kind = resource.versions[change.version].kind
    if kind is None:
        return None, None, ()
    return field_at(snapshot.universe, kind, change.steps)


def _place(change: Change, old: Snapshot, new: Snapshot) -> None:
    """Position and anchor of a resource or schema change."""
    if change.resource is None:
        return
    if change.steps or change.version:
        after = _resource(new, change)
        if after is not None:
            # a removed field is placed at the struct (or the schema) that had it
            change.position = (
                after.where(change.version, change.steps) if change.version in after.versions else after.position
            )
    owner, found, rest = _go_field(old, change)
    if owner is None:
        owner, found, rest = _go_field(new, change)
    if owner is not None and found is not None:
        # a field is known by where it is declared: a type defined from another one
        # (`type ReferenceGrant v1.ReferenceGrant`) shares its fields, and its findings
        identity = found.position or f"{owner.package}.{owner.name}.{found.json_name}"
        change.anchor = (identity, found.json_name, tuple(rest))
        change.data["go_subject"] = f"{owner.package}.{owner.name}.{found.json_name}{display_path(tuple(rest))}"
        change.data.setdefault("gated", found.has_marker("featureGate"))
    after = _resource(new, change)
    if after is not None and not after.custom and change.rule in _REQUIREDNESS:
        _, now, _ = _go_field(new, change)
        change.data["declared_only"] = now is None or not now.has_marker("k8s:required")


def _severity(change: Change) -> tuple[str, str]:
    """The severity of one change at its place, and why it was lowered (or "")."""
    rule = RULES[change.rule]
    severity = change.severity or rule.severity
    under_status = bool(change.steps) and change.steps[0] == ("properties", "status")
    if change.rule in ("validation-relaxed", "description-changed"):
        if under_status:
            return "", ""
        if change.version and stability(change.version) == "stable":
            return WARNING, ""
        return INFO, ""
    why = ""
    if rule.validation and under_status and severity != INFO:
        return INFO, "status is written by the API's own controllers"
    if change.data.get("declared_only") and severity == ERROR:
        # `+required` documents what hand-written validation checks; only `+k8s:required` is validation
        severity, why = WARNING, "Kubernetes' own groups check requiredness in code: only the published schema changed"
    if change.rule in ("kind-removed", "version-removed", "stored-version-removed"):
        return severity, why  # the version's level is already in their severity
    version = change.version or change.data.get("version", "")
    if version and stability(version) == "alpha":
        severity, why = lowered(severity), f"{version} is an alpha version"
    elif change.data.get("gated"):
        severity, why = lowered(severity), "the field is behind a feature gate (+featureGate)"
    return severity, why


def _rank(severity: str) -> int:
    return SEVERITIES.index(severity)


def changes(old: Snapshot, new: Snapshot) -> list[Change]:
    """Every change from `old` to `new`, placed."""
    found = resources.compare(old, new) + gotypes.compare(old, new)
    for change in found:
        _place(change, old, new)
    return found


def group(found: Iterable[Change], old: Snapshot, new: Snapshot) -> list[Group]:
    """The changes grouped into findings (see the module docstring)."""
    groups: dict[tuple[object, ...], Group] = {}
    schema_anchors: dict[tuple[object, ...], set[str]] = {}
    listed = list(found)
    for change in listed:
        if change.anchor is not None and not change.subject:
            schema_anchors.setdefault(change.anchor[:2], set()).add(change.rule)
    renamed = {c.anchor[:2] for c in listed if c.rule == "json-name-changed" and c.anchor is not None}
    for change in listed:
        severity, why = _severity(change)
        if not severity:
            continue
        if change.anchor is not None:
            anchor = change.anchor[:2]
            if change.subject and schema_anchors.get(anchor, set()) & set(_SHOWN_BY_SCHEMA.get(change.rule, ())):
                continue  # a schema change of the same field shows it
            if not change.subject and change.rule == "field-removed" and anchor in renamed:
                continue  # the Go field was renamed: json-name-changed says so
            key: tuple[object, ...] = (change.rule, change.anchor, change.what)
        elif change.resource is not None:
            key = (change.rule, change.resource, change.steps, change.what, "" if change.steps else change.version)
        else:
            key = (change.rule, change.subject, change.what)
        entry = groups.setdefault(key, Group(change.rule, change.what))
        change.relaxed = why
        change.data["severity"] = severity
        entry.changes.append(change)
    out = list(groups.values())
    for entry in out:
        entry.changes.sort(key=lambda c: (_rank(c.data["severity"]), c.resource or ("", ""),
                                          version_priority(c.version), c.steps))  # fmt: skip
        first = entry.changes[0]
        entry.severity = first.data["severity"]
        entry.subject = _subject(first, new)
        entry.position = first.position
    return out


def add_examples(groups: Iterable[Group], old: Snapshot, new: Snapshot) -> None:
    """Look for an example in each finding's first places; settle the rules that need one."""
    search = examples_module.Examples()
    for entry in groups:
        found = False
        for change in entry.changes[:3]:
            before, after = _resource(old, change), _resource(new, change)
            if before is None or after is None or not change.version:
                continue
            if search.explain(change, before, after):
                entry.notes += change.notes
                if change is not entry.changes[0]:
                    entry.notes[-1] = f"(in {_subject(change, new)}) {entry.notes[-1]}"
                found = True
                break
        if entry.rule in _NEEDS_EXAMPLE and not found and entry.severity == ERROR:
            # the change may only restate what the schema held already (cluster-api 1.13's
            # "exactly one of layout, diskLayout" beside a layout that was required)
            entry.severity = WARNING
            entry.notes.append("no value was found that the old schema accepts and the new one refuses: check by hand")


def _message(entry: Group, new: Snapshot) -> str:
    text = f"{entry.subject}: {entry.what}"
    others = [c for c in entry.changes[1:]]
    if others:
        names = list(dict.fromkeys(_subject(c, new) for c in others))
        if len(names) <= 3:
            shown = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
        else:
            shown = f"{', '.join(names[:2])} and {len(names) - 2} more"
        text += f" (also {shown})"
    first = entry.changes[0]
    if first.relaxed:
        text += f" ({first.relaxed}: {entry.severity})"
    if entry.notes:
        text += "; " + "; ".join(entry.notes)
    return text


def _finding_subject(entry: Group) -> str:
    first = entry.changes[0]
    return str(first.data.get("go_subject") or entry.subject)


def _places(entry: Group) -> list[tuple[str, str, str, str]]:
    out = []
    for change in entry.changes:
        group, kind = change.resource or ("", "")
        out.append((group, kind, change.version, display_path(change.steps)))
    return out


def findings(
    groups: Iterable[Group], new: Snapshot, allow: Iterable[Allowance] = ()
) -> tuple[list[Finding], list[str]]:
    """The findings, and the notes about allowed findings and unused allow entries."""
    allowances = list(allow)
    used: set[int] = set()
    out: list[Finding] = []
    notes: list[str] = []
    for entry in groups:
        rule = RULES[entry.rule]
        position = entry.position or Position("")
        finding = Finding(
            rule=entry.rule,
            severity=Severity(entry.severity),
            message=_message(entry, new),
            explanation=rule.why,
            path=position.path.replace("\\", "/"),
            line=position.line,
            col=position.col,
            subject=_finding_subject(entry),
        )
        allowed = next((a for a in allowances if a.matches(entry.rule, _places(entry), entry.subject)), None)
        if allowed is not None:
            used.add(id(allowed))
            notes.append(f"allowed: {finding.location}: {finding.message} [{finding.rule}] ({allowed.reason})")
            continue
        out.append(finding)
    for allowance in allowances:
        if id(allowance) not in used:
            notes.append(f"{allowance.where}: allows {allowance.rule}, but nothing matches it now; remove it")
    return out, notes


def rule_table() -> dict[str, RuleInfo]:
    """Every compat rule, as the SARIF rule table and `--rules` show them."""
    return {r.id: RuleInfo(r.id, r.why, Severity(r.severity)) for r in RULES.values()}


def compare(
    old: Snapshot, new: Snapshot, *, allow: Iterable[Allowance] = (), examples: bool = True
) -> tuple[list[Finding], list[str]]:
    """Every finding from `old` to `new` (and the notes of the allow list)."""
    grouped = group(changes(old, new), old, new)
    if examples:
        add_examples(grouped, old, new)
    return findings(grouped, new, allow)
