"""The baseline: findings an existing API accepts for now, so that it adopts the linter
without fixing everything at once. New findings still fail the run; an entry that no
longer matches a finding is reported, so the file shrinks as the API is fixed.

The file is JSON (`kgen lint --update-baseline` writes it), one entry per accepted
finding, matched by the finding's stable id (rule, file, subject and message; not the line).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kgen.diagnostics import display_path
from kgen.findings import Finding, Severity
from kgen.options import OptionsError

FORMAT = "kgen.dev/lint-baseline/v1"
STALE_RULE = "baseline"
STALE_EXPLANATION = "a baseline entry that no finding matches any more is removed from the baseline"


@dataclass
class Baselined:
    """What a baseline did to one run's findings."""

    kept: list[Finding]
    """Findings not in the baseline (reported)."""
    accepted: int
    stale: list[Finding]
    """A finding per entry that matched nothing (reported too)."""


def read(path: Path) -> list[dict[str, str]]:
    """The entries of a baseline file; OptionsError when it is not one."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OptionsError(
            f"baseline {display_path(path)} does not exist; write it with kgen lint --update-baseline"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise OptionsError(f"baseline {display_path(path)} is not a kgen lint baseline: {err}") from None
    if (
        not isinstance(document, dict)
        or document.get("format") != FORMAT
        or not isinstance(document.get("findings"), list)
    ):
        raise OptionsError(f"baseline {display_path(path)} is not a kgen lint baseline (format {FORMAT})")
    entries = []
    for entry in document["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise OptionsError(f"baseline {display_path(path)}: every entry needs an id")
        entries.append({k: str(v) for k, v in entry.items()})
    return entries


def apply(findings: list[Finding], path: Path) -> Baselined:
    """Leave out the findings the baseline accepts; report its entries that matched none."""
    entries = read(path)
    allowance = Counter(e["id"] for e in entries)
    kept = []
    for finding in sorted(findings, key=Finding.sort_key):
        if allowance[finding.id] > 0:
            allowance[finding.id] -= 1
        else:
            kept.append(finding)
    text = path.read_text(encoding="utf-8").splitlines()
    shown = display_path(path)
    stale = []
    for entry in entries:
        if allowance[entry["id"]] <= 0:
            continue
        allowance[entry["id"]] -= 1
        line = next((i for i, t in enumerate(text, 1) if f'"{entry["id"]}"' in t), 0)
        stale.append(Finding(
            STALE_RULE, Severity.WARNING,
            f"baseline entry {entry['id']} ({entry.get('rule', '?')} at {entry.get('path', '?')}: "
            f"{entry.get('message', '')}) matches no finding any more; remove it (kgen lint --update-baseline)",
            STALE_EXPLANATION, shown, line, 1 if line else 0, subject=entry["id"],
        ))  # fmt: skip
    return Baselined(kept, len(findings) - len(kept), stale)


def write(findings: list[Finding], path: Path) -> None:
    """Write a baseline accepting exactly these findings (in file order)."""
    entries = [
        {"id": f.id, "rule": f.rule, "path": f.path, "subject": f.subject, "message": f.message}
        for f in sorted(findings, key=Finding.sort_key)
        if f.rule != STALE_RULE
    ]
    text = json.dumps({"format": FORMAT, "findings": entries}, indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".kgen-baseline-", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, path)
