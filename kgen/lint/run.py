"""`kgen lint` in process: read the input, run the enabled rules, apply a baseline, fix.

`lint(options, settings)` builds the IR and the lint view of the input's packages from one
reading of the sources, chooses the profile, runs each enabled rule and returns the
findings; `fix(options, settings)` applies the fixes (as many as do not overlap), reads the
sources again and repeats until nothing fixable is left. `lint_packages` lints packages
without the IR (kube-api-linter's rules only), for sources that are not an API input.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kgen.diagnostics import Diagnostics
from kgen.findings import Edit, Finding, Report, RuleInfo
from kgen.ir.build import BuildOptions, build_universe
from kgen.ir.model import Universe
from kgen.lint import baseline as baselines
from kgen.lint.config import EnabledRule, LintSettings, choose_profile, enabled_rules, known_identifiers
from kgen.lint.engine import Context, apply_edits, select_fixes
from kgen.lint.model import LintPackage, World, build_package
from kgen.options import Options
from kgen.source.loader import SourcePackage, load_packages


@dataclass
class LintResult:
    """One run's findings and what produced them."""

    findings: list[Finding]
    profile: str
    rules: list[EnabledRule]
    diagnostics: Diagnostics
    accepted: int = 0
    """Findings the baseline accepted (not in `findings`)."""
    fixed: int = 0
    """Findings whose fixes were applied (by `fix`)."""
    changed_files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    files: dict[str, Path] = field(default_factory=dict)
    """Where each linted file (by the path findings show) is on disk."""

    def report(self, version: str = "") -> Report:
        infos = {r.rule.id: RuleInfo(r.rule.id, r.rule.explanation, r.severity) for r in self.rules}
        infos.setdefault(baselines.STALE_RULE, RuleInfo(baselines.STALE_RULE, baselines.STALE_EXPLANATION,
                                                        baselines.Severity.WARNING))  # fmt: skip
        notes = []
        if self.accepted:
            notes.append(f"{self.accepted} finding{'s' if self.accepted != 1 else ''} accepted by the baseline")
        if self.fixed:
            notes.append(f"fixed {self.fixed} finding{'s' if self.fixed != 1 else ''} in {len(self.changed_files)} "
                         f"file{'s' if len(self.changed_files) != 1 else ''}")  # fmt: skip
        return Report(self.findings, version=version, rules=infos, notes=notes)


def read_input(options: Options, diagnostics: Diagnostics) -> tuple[list[SourcePackage], Universe]:
    """The input's packages, read once, and the IR built from them (InputError on bad input)."""
    sources = load_packages(options.input, options.module, diagnostics, options.tags)
    build = BuildOptions(
        input=options.input, module=options.module, import_map=options.import_map, tags=options.tags,
        hooks_package=options.hooks_package, sources=tuple(sources),
    )  # fmt: skip
    universe = build_universe(build, diagnostics)
    diagnostics.raise_if_errors()
    return sources, universe


def run_rules(world: World, rules: list[EnabledRule], known: frozenset[str]) -> list[Finding]:
    """Every enabled rule over the world, findings deduplicated (one per rule, place and message)."""
    found: dict[tuple[str, str, int, int, str], Finding] = {}
    for item in rules:
        if item.rule.needs_universe and world.universe is None:
            continue
        ctx = Context(world, item.rule, item.options, item.severity, known)
        item.rule.check(ctx)
        for finding in ctx.findings:
            found.setdefault((finding.rule, finding.path, finding.line, finding.col, finding.message), finding)
    return sorted(found.values(), key=Finding.sort_key)


def _has_custom_resources(universe: Universe) -> bool:
    return any(p.custom_resources and p.role == "api" for p in universe.generated_packages)


def lint(options: Options, settings: LintSettings, *, use_baseline: bool = True,
         progress: Callable[[str], None] | None = None) -> LintResult:  # fmt: skip
    """Lint the input the options name."""
    say = progress or (lambda status: None)
    started = time.perf_counter()
    diagnostics = Diagnostics()
    say("reading the input")
    sources, universe = read_input(options, diagnostics)
    profile = choose_profile(settings, _has_custom_resources(universe))
    rules = enabled_rules(settings, profile)
    known = known_identifiers(rules)
    say("linting")
    packages = [build_package(source, known) for source in sources]
    # Hub (internal) versions are not served: the conventions are about what clients see.
    internal = {p.import_path for p in universe.packages if p.internal}
    world = World(packages, universe, linted={p.import_path for p in packages if p.import_path not in internal})
    findings = run_rules(world, rules, known)
    result = LintResult(findings, profile, rules, diagnostics)
    result.files = {f.path: f.disk for p in packages for f in p.files}
    if use_baseline and settings.baseline is not None:
        applied = baselines.apply(findings, settings.baseline)
        result.findings = sorted(applied.kept + applied.stale, key=Finding.sort_key)
        result.accepted = applied.accepted
    result.seconds = time.perf_counter() - started
    return result


def lint_packages(packages: list[SourcePackage], settings: LintSettings, profile: str,
                  extra: list[SourcePackage] = ()) -> list[Finding]:  # type: ignore[assignment]  # fmt: skip
    """Lint packages read from source, without the IR: rules that need it do not run.
    `extra` packages answer type lookups (their findings are not reported)."""
    rules = enabled_rules(settings, profile)
    known = known_identifiers(rules)
    linted = [build_package(p, known) for p in packages]
    others = [build_package(p, known) for p in extra]
    world = World(linted + others, None, linted={p.import_path for p in linted})
    return run_rules(world, rules, known)


def fix(options: Options, settings: LintSettings, *, max_passes: int = 10,
        progress: Callable[[str], None] | None = None) -> LintResult:  # fmt: skip
    """Apply the findings' fixes to the Go sources until none is left to apply; the result
    is a lint of the fixed sources (baseline applied)."""
    fixed = 0
    changed: set[str] = set()
    for _ in range(max_passes):
        result = lint(options, settings, use_baseline=False, progress=progress)
        edits, applied = select_fixes(result.findings)
        if settings.baseline is not None:
            accepted = {e["id"] for e in baselines.read(settings.baseline)}
            edits, applied = select_fixes([f for f in result.findings if f.id not in accepted])
        if not edits:
            break
        _write(result.files, edits)
        fixed += len(applied)
        changed.update(edits)
    final = lint(options, settings, progress=progress)
    final.fixed = fixed
    final.changed_files = sorted(changed)
    return final


def _write(files: dict[str, Path], edits: dict[str, list[Edit]]) -> None:
    """Apply each file's edits, replacing the file whole (its mode kept)."""
    for shown, file_edits in edits.items():
        path = files[shown]
        source = path.read_bytes()
        updated = apply_edits(source, file_edits)
        handle, temporary = tempfile.mkstemp(prefix=".kgen-fix-", dir=path.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(updated)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)


__all__ = ["LintPackage", "LintResult", "fix", "lint", "lint_packages", "read_input", "run_rules"]
