"""`kgen lint` against what upstream documents its linters find.

- kube-api-linter: each linter's test packages (`pkg/analysis/<linter>/testdata/src/<pkg>`)
  say, in `// want "regexp"` comments, what the linter reports on each line. kgen lints the
  same packages with the same settings the linter's tests use, and every expectation is
  looked for among kgen's findings on its line (recall), and every finding of kgen among the
  expectations of its line (precision). Where a test applies the fixes, the fixed file is
  compared with the test's `.golden` file (whitespace aside: upstream's goes through gofmt).
- k8s.io/api: the built-in profile, with openapi-gen's list_type_missing, against the API
  rule violations Kubernetes accepts (`api/api-rules/violation_exceptions.list` of
  kubernetes/kubernetes): names_match to names_match, list_type_missing to list_type_missing
  and to ssatags' "should have a listType marker".
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.conformance.compare import Score

# (linter, test package, settings, fixes checked): kube-api-linter's analyzer_test.go cases.
_FORBIDDEN = {"markers": [
    {"identifier": "custom:forbidden"},
    {"identifier": "custom:AttrNoValues", "ruleSets": [{"attributes": [{"name": "fruit"}]}]},
    {"identifier": "custom:AttrValues", "ruleSets": [{"attributes": [{"name": "fruit", "values": ["apple", "orange", "banana"]}]}]},
    {"identifier": "custom:AttrsNoValues", "ruleSets": [{"attributes": [{"name": "fruit"}, {"name": "color"}]}]},
    {"identifier": "custom:AttrsValues", "ruleSets": [{"attributes": [
        {"name": "fruit", "values": ["apple", "orange", "banana"]}, {"name": "color", "values": ["red", "blue", "green"]}]}]},
    {"identifier": "custom:MultiRuleSet", "ruleSets": [
        {"attributes": [{"name": "fruit", "values": ["banana"]}]},
        {"attributes": [{"name": "fruit", "values": ["apple"]}, {"name": "color", "values": ["blue", "green"]}]},
        {"attributes": [{"name": "fruit", "values": ["orange"]}, {"name": "color", "values": ["blue", "green", "red"]}]}]},
]}  # fmt: skip
_CONFLICTS_A = {"conflicts": [
    {"name": "test_conflict", "sets": [["marker1", "marker2"], ["marker3", "marker4"]],
     "description": "Test markers conflict with each other"},
    {"name": "three_way_conflict", "sets": [["marker5", "marker6"], ["marker7", "marker8"], ["marker9", "marker10"]],
     "description": "Three-way conflict between marker sets"},
]}  # fmt: skip
_CONFLICTS_B = {"conflicts": [
    {"name": f"listType_{kind}_consistency", "sets": [[f"listType={kind}"], [f"k8s:listType={o}" for o in others]],
     "description": "when +k8s:listType is present, its value must match +listType"}
    for kind, others in (("atomic", ("set", "map")), ("set", ("atomic", "map")), ("map", ("atomic", "set")))
]}  # fmt: skip
_DEPENDENT = {"rules": [
    {"identifier": "k8s:unionMember", "type": "All", "dependsOn": ["k8s:optional"]},
    {"identifier": "listType", "type": "All", "dependsOn": ["k8s:listType"]},
    {"identifier": "example:any", "type": "Any", "dependsOn": ["dep1", "dep2"]},
    {"identifier": "listType=map", "type": "All", "dependsOn": ["listMapKey"]},
]}  # fmt: skip
_NAMING = {"conventions": [
    {"name": "nofruit", "violationMatcher": "(?i)fruit", "operation": "Drop",
     "message": "no fields should contain any variations of the word 'fruit' in their name."},
    {"name": "preferbehaviour", "violationMatcher": "(?i)behavior", "operation": "Replacement", "replacement": "Behaviour",
     "message": "prefer the use of the word 'behaviour' instead of 'behavior'."},
    {"name": "nounsupported", "violationMatcher": "(?i)unsupported", "operation": "DropField",
     "message": "no fields allowing for unsupported behaviors allowed"},
    {"name": "notest", "violationMatcher": "(?i)test", "operation": "Inform", "message": "no temporary test fields"},
]}  # fmt: skip

CASES: list[tuple[str, str, dict[str, Any], bool]] = [
    ("arrayofstruct", "a", {}, False),
    ("commentstart", "a/...", {}, True),
    ("conditions", "a", {}, True),
    ("conditions", "b", {"isFirstField": "Ignore"}, True),
    ("conditions", "c", {"useProtobuf": "Ignore"}, True),
    ("conditions", "d", {"useProtobuf": "Forbid"}, True),
    ("conditions", "e", {"usePatchStrategy": "Ignore"}, True),
    ("conditions", "f", {"usePatchStrategy": "Forbid"}, True),
    ("conflictingmarkers", "a", _CONFLICTS_A, False),
    ("conflictingmarkers", "b", _CONFLICTS_B, False),
    ("defaultorrequired", "a", {}, False),
    ("defaults", "a", {}, True),
    ("defaults", "b", {"preferredDefaultMarker": "kubebuilder:default"}, True),
    ("defaults", "c", {"omitzero.policy": "Forbid"}, True),
    ("defaults", "d", {"omitempty.policy": "Warn"}, True),
    ("defaults", "e", {"omitempty.policy": "Ignore"}, True),
    ("defaults", "f", {"omitzero.policy": "Warn"}, True),
    ("dependenttags", "a", _DEPENDENT, False),
    ("duplicatemarkers", "a", {}, True),
    ("forbiddenmarkers", "a", _FORBIDDEN, True),
    ("integers", "a", {}, False),
    ("jsontags", "a", {}, False),
    ("jsontags", "c", {}, False),
    ("jsontags", "b", {"jsonTagRegex": "^[a-z][a-z]*(?:[A-Z][a-z0-9]+)*[a-z0-9]?$"}, False),
    ("jsontags", "d", {"fieldNameMatch": "SuggestFix"}, True),
    ("jsontags", "e", {"fieldNameMatch": "Warn"}, False),
    ("maxlength", "a", {}, False),
    ("minlength", "a", {}, False),
    ("namingconventions", "a", _NAMING, True),
    ("nobools", "a", {}, False),
    ("nodurations", "a", {}, False),
    ("nofloats", "a", {}, False),
    ("nomaps", "a", {}, False),
    ("nomaps", "b", {"policy": "Enforce"}, False),
    ("nomaps", "c", {"policy": "AllowStringToStringMaps"}, False),
    ("nomaps", "d", {"policy": "Ignore"}, False),
    ("nonpointerstructs", "a", {}, True),
    ("nonullable", "a/...", {}, True),
    ("nophase", "a", {}, True),
    ("noreferences", "a", {}, True),
    ("noreferences", "b", {"policy": "NoReferences"}, True),
    ("notimestamp", "a", {}, True),
    ("optionalfields", "a", {}, True),
    ("optionalfields", "b", {"pointers.preference": "WhenRequired", "omitzero.policy": "Forbid"}, True),
    ("optionalfields", "c", {"pointers.preference": "WhenRequired", "omitempty.policy": "Ignore", "omitzero.policy": "Forbid"}, True),
    ("optionalfields", "d", {"pointers.preference": "WhenRequired", "pointers.policy": "SuggestFix",
                             "omitempty.policy": "SuggestFix", "omitzero.policy": "SuggestFix"}, True),
    ("optionalfields", "externaltypes", {}, False),
    ("optionalorrequired", "a", {}, True),
    ("optionalorrequired", "b", {"preferredOptionalMarker": "kubebuilder:validation:Optional",
                                 "preferredRequiredMarker": "kubebuilder:validation:Required"}, True),
    ("preferredmarkers", "a", {"markers": [
        {"preferredIdentifier": "k8s:optional", "equivalentIdentifiers": [{"identifier": "kubebuilder:validation:Optional"}, {"identifier": "custom:optional"}]},
        {"preferredIdentifier": "k8s:required", "equivalentIdentifiers": [{"identifier": "kubebuilder:validation:Required"}]},
        {"preferredIdentifier": "custom:preferred", "equivalentIdentifiers": [{"identifier": "custom:old"}, {"identifier": "custom:deprecated"}]},
    ]}, True),
    ("requiredfields", "a", {}, True),
    ("ssatags", "a", {}, True),
    ("ssatags", "b", {"listTypeSetUsage": "Ignore"}, True),
    ("statusoptional", "a", {}, True),
    ("statussubresource", "a", {}, True),
    ("uniquemarkers", "a", {}, False),
]  # fmt: skip
"""Settings other tests of a linter use are not repeated here; a case whose test package is
missing from the checkout is skipped."""

_WANT = re.compile(r"//\s*want\s+(.*)$")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"|`([^`]*)`')


@dataclass
class Expectation:
    path: Path
    line: int
    pattern: str
    matched: bool = False


@dataclass
class CaseResult:
    linter: str
    package: str
    expected: int = 0
    found: int = 0
    matched_expectations: int = 0
    matched_findings: int = 0
    missed: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    golden: Score | None = None


def _unquote(text: str) -> str:
    return bytes(text, "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def expectations(files: list[Path]) -> list[Expectation]:
    """The `// want` comments of Go files: one expectation per quoted regular expression."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = _WANT.search(line)
            if not match:
                continue
            for quoted in _QUOTED.finditer(match.group(1)):
                pattern = _unquote(quoted.group(1)) if quoted.group(1) is not None else quoted.group(2)
                found.append(Expectation(path, number, pattern))
    return found


def _test_packages(src: Path, pattern: str) -> list[Path]:
    base = src / pattern.removesuffix("/...")
    if not pattern.endswith("/..."):
        return [base]
    return sorted(p for p in [base, *base.rglob("*")] if p.is_dir() and any(p.glob("*.go")))


def _source_packages(src: Path, directories: list[Path]) -> tuple[list[Any], list[Any]]:
    from kgen.diagnostics import Diagnostics
    from kgen.source.loader import load_package

    diagnostics = Diagnostics()
    linted = []
    for directory in directories:
        package = load_package(directory, directory.relative_to(src).as_posix(), diagnostics)
        if package is not None:
            linted.append(package)
    wanted = {d.resolve() for d in directories}
    extra = []
    for directory in sorted({p.parent for p in src.rglob("*.go")}):
        if directory.resolve() in wanted:
            continue
        package = load_package(directory, directory.relative_to(src).as_posix(), diagnostics)
        if package is not None:
            extra.append(package)
    return linted, extra


def score_case(root: Path, linter: str, pattern: str, options: dict[str, Any], check_fixes: bool) -> CaseResult | None:
    from kgen.lint.config import LintSettings
    from kgen.lint.engine import apply_edits, select_fixes
    from kgen.lint.run import lint_packages
    from kgen.runtime.validation.regexp import compile_re2

    src = root / "pkg" / "analysis" / linter / "testdata" / "src"
    directories = _test_packages(src, pattern)
    if not all(d.is_dir() for d in directories):
        return None
    work = Path(tempfile.mkdtemp(prefix="kgen-lint-conformance-"))
    copy = work / "src"
    shutil.copytree(src, copy)
    try:
        copied = [copy / d.relative_to(src) for d in directories]
        cwd = os.getcwd()
        os.chdir(copy)
        try:
            linted, extra = _source_packages(copy, copied)
            settings = LintSettings(select=(linter,), options={linter: dict(options)})
            findings = lint_packages(linted, settings, "builtin", extra)  # no profile settings
        finally:
            os.chdir(cwd)
        files = sorted(p for d in copied for p in d.glob("*.go"))
        wants = expectations(files)
        result = CaseResult(linter, pattern, expected=len(wants), found=len(findings))
        by_line: dict[tuple[str, int], list[Expectation]] = {}
        for want in wants:
            by_line.setdefault((want.path.relative_to(copy).as_posix(), want.line), []).append(want)
        for finding in findings:
            candidates = by_line.get((finding.path, finding.line), [])
            hit = next(
                (w for w in candidates if not w.matched and compile_re2(w.pattern).search(finding.message)), None
            )
            if hit is None:
                result.unexpected.append(f"{finding.path}:{finding.line}: {finding.message}")
                continue
            hit.matched = True
            result.matched_findings += 1
        result.matched_expectations = sum(1 for w in wants if w.matched)
        result.missed = [f"{w.path.relative_to(copy)}:{w.line}: {w.pattern}" for w in wants if not w.matched]
        if check_fixes:
            result.golden = _golden(copy, copied, findings, apply_edits, select_fixes)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _golden(copy: Path, directories: list[Path], findings, apply_edits, select_fixes) -> Score:
    """Apply every fix once (as analysistest does) and compare each file with its `.golden`."""
    score = Score("golden files")
    edits, _ = select_fixes(findings)
    for directory in directories:
        for golden in sorted(directory.glob("*.go.golden")):
            source = golden.with_suffix("")
            relative = source.relative_to(copy).as_posix()
            fixed = apply_edits(source.read_bytes(), edits.get(relative, [])).decode("utf-8", "replace")
            equal = _normal(fixed) == _normal(golden.read_text())
            score.add(equal, "differs from .golden", relative)
    return score


def _normal(text: str) -> list[str]:
    """Lines without whitespace (gofmt aligns and indents), `// want` comments (the tests'
    expectations, which goldens do not always repeat) and empty lines."""
    lines = (re.sub(r"\s+", "", _WANT.sub("", line)) for line in text.splitlines())
    return [line for line in lines if line]


def score_kube_api_linter(root: Path) -> tuple[Score, Score, Score, list[CaseResult]]:
    """Recall and precision over every case, and the golden files of the fixing ones."""
    recall, precision, golden = Score("expectations found"), Score("findings expected"), Score("golden files")
    results = []
    for linter, pattern, options, check_fixes in CASES:
        result = score_case(root, linter, pattern, options, check_fixes)
        if result is None:
            continue
        results.append(result)
        recall.equal += result.matched_expectations
        recall.total += result.expected
        for missed in result.missed:
            recall.differences[linter] += 1
            recall.examples.setdefault(linter, []).append(missed)
        precision.equal += result.matched_findings
        precision.total += result.found
        for unexpected in result.unexpected:
            precision.differences[linter] += 1
            precision.examples.setdefault(linter, []).append(unexpected)
        if result.golden is not None:
            golden.merge(result.golden)
    return recall, precision, golden, results


# -- k8s.io/api against Kubernetes' API rule exceptions ---------------------------------------


def _violations(path: Path, prefix: str = "k8s.io/api/") -> set[tuple[str, str, str, str]]:
    found = set()
    for line in path.read_text().splitlines():
        text = line.removeprefix("API rule violation: ").strip()
        if not text:
            continue
        rule, package, type_name, member = text.split(",")
        if package.startswith(prefix):
            found.add((rule, package, type_name, member))
    return found


def _triple(subject: str) -> tuple[str, str, str] | None:
    """(package, type, field) of a finding about `import/path.Type.Field`."""
    head, _, member = subject.rpartition(".")
    package, _, type_name = head.rpartition(".")
    return (package, type_name, member) if package and type_name else None


def score_k8s_api(k8s_api: Path, api_rules: Path) -> dict[str, Any]:
    """kgen lint's builtin profile (and list_type_missing) on k8s.io/api against the exceptions list."""
    from kgen.generators import DEFAULTS, GENERATORS
    from kgen.lint.config import LintSettings
    from kgen.lint.run import lint
    from kgen.options import resolve_options

    options = resolve_options(
        config_path=Path(os.devnull), input=str(k8s_api), module="k8s.io/api", registered=tuple(GENERATORS),
        defaults=DEFAULTS, require_module=True,
    )  # fmt: skip
    started = time.perf_counter()
    result = lint(options, LintSettings(profile="builtin", enable=("list_type_missing",)))
    seconds = time.perf_counter() - started
    upstream = _violations(api_rules)
    ours: dict[str, set[tuple[str, str, str, str]]] = {
        "names_match": set(),
        "list_type_missing": set(),
        "ssatags": set(),
    }
    for finding in result.findings:
        triple = _triple(finding.subject)
        if triple is None:
            continue
        if finding.rule in ("names_match", "list_type_missing"):
            ours[finding.rule].add((finding.rule, *triple))
        elif finding.rule == "ssatags" and "should have a listType marker" in finding.message:
            ours["ssatags"].add(("list_type_missing", *triple))
    scores: dict[str, Any] = {"seconds": round(seconds, 2), "findings": len(result.findings)}
    for ours_rule, theirs_rule in (("names_match", "names_match"), ("list_type_missing", "list_type_missing"),
                                   ("ssatags", "list_type_missing")):  # fmt: skip
        theirs = {v for v in upstream if v[0] == theirs_rule}
        mine = ours[ours_rule]
        both = mine & theirs
        scores[f"{ours_rule} vs {theirs_rule}"] = {
            "upstream": len(theirs),
            "kgen": len(mine),
            "both": len(both),
            "missed": sorted(",".join(v) for v in theirs - mine)[:10],
            "extra": sorted(",".join(v) for v in mine - theirs)[:10],
        }
    counts: dict[str, int] = {}
    for finding in result.findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    scores["by_rule"] = dict(sorted(counts.items(), key=lambda kv: -kv[1]))
    return scores


def report_lines(kal: tuple[Score, Score, Score, list[CaseResult]] | None, k8s: dict[str, Any] | None) -> Iterator[str]:
    if kal is not None:
        recall, precision, golden, results = kal
        yield f"kube-api-linter's documented findings ({len(results)} test packages of {len({r.linter for r in results})} linters):"
        yield f"  expectations kgen finds (recall)                 {recall.line()}"
        yield f"  kgen findings that are expected (precision)      {precision.line()}"
        yield f"  fixed files equal to .golden (whitespace aside)  {golden.line()}"
        for result in results:
            if result.missed or result.unexpected:
                yield (f"    {result.linter}/{result.package}: {result.matched_expectations}/{result.expected} found, "
                       f"{len(result.unexpected)} unexpected")  # fmt: skip
    if k8s is not None:
        yield f"k8s.io/api with the builtin profile: {k8s['findings']} findings in {k8s['seconds']} s"
        for key, value in k8s.items():
            if isinstance(value, dict) and "upstream" in value:
                share = 100 * value["both"] / value["upstream"] if value["upstream"] else 0.0
                yield (f"  {key:<40} upstream {value['upstream']:>4}, kgen {value['kgen']:>4}, both {value['both']:>4} "
                       f"({share:.1f} % of upstream's)")  # fmt: skip
