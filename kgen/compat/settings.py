"""`[tool.kgen.compat]`: what `kgen compat` compares against, when it fails, and the allow list.

```toml
[tool.kgen.compat]
against = "origin/main"          # default for --against (a revision, a directory, CRD files)
fail-on = "error"                # default for --fail-on: error, warning, info or never

[[tool.kgen.compat.allow]]       # entries narrowed to a kind, group, version, path or subject (globs)
rule = "field-removed"
kind = "Frobber"
version = "v1alpha1"
path = "spec.legacy*"
reason = "v1alpha1 is alpha; the field was announced as going in 0.4"
```

or, to allow whole rules, a table of rule = reason instead of the entries:

```toml
[tool.kgen.compat.allow]
enum-value-added = "clients of this API must accept values they do not know (documented)"
```

Every entry needs a reason; an entry that matches no finding is reported, so the list
shrinks with the exceptions it was written for.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgen.compat.rules import RULES
from kgen.findings import FAIL_ON_CHOICES
from kgen.options import OptionsError, load_config

_SELECTORS = ("kind", "group", "version", "path", "subject")


@dataclass(frozen=True)
class Allowance:
    """One entry of the allow list."""

    rule: str
    reason: str
    kind: str | None = None
    group: str | None = None
    version: str | None = None
    path: str | None = None
    """A glob over schema paths (`spec.template.*`)."""
    subject: str | None = None
    """A glob over the finding's subject (`example.kgen.dev/v1 FrobberSpec.*`)."""
    where: str = ""
    """The settings file (and entry) it came from, as notes name it."""

    def matches(self, rule: str, places: Iterable[tuple[str, str, str, str]], subject: str) -> bool:
        """Whether it allows a finding of `rule` about `subject`, seen at `places`
        ((group, kind, version, path) each)."""
        if rule != self.rule:
            return False
        if self.subject is not None and not fnmatch.fnmatchcase(subject, self.subject):
            return False
        wanted = (self.group, self.kind, self.version)
        if all(w is None for w in wanted) and self.path is None:
            return True
        for group, kind, version, path in places:
            if any(
                w is not None and not fnmatch.fnmatchcase(have, w) for w, have in zip(wanted, (group, kind, version))
            ):
                continue
            if self.path is not None and not fnmatch.fnmatchcase(path, self.path):
                continue
            return True
        return False


@dataclass(frozen=True)
class Settings:
    against: tuple[str, ...] = ()
    fail_on: str = "error"
    allow: tuple[Allowance, ...] = ()


def load(config_path: Path | None) -> Settings:
    """The `[tool.kgen.compat]` table of a pyproject.toml (defaults when there is none)."""
    if config_path is None or not config_path.is_file():
        return Settings()
    table, _ = load_config(config_path)
    compat = table.get("compat", {})
    where = f"{config_path}"
    if not isinstance(compat, dict):
        raise OptionsError(f"{where}: [tool.kgen.compat] must be a table")
    unknown = sorted(set(compat) - {"against", "fail-on", "allow"})
    if unknown:
        raise OptionsError(f"{where}: unknown [tool.kgen.compat] settings: {', '.join(unknown)} "
                           "(known: against, allow, fail-on)")  # fmt: skip
    against = compat.get("against", ())
    if isinstance(against, str):
        against = (against,)
    if not isinstance(against, (list, tuple)) or not all(isinstance(a, str) and a for a in against):
        raise OptionsError(f"{where}: [tool.kgen.compat] against must be a revision, a path, or a list of paths")
    fail_on = compat.get("fail-on", "error")
    if fail_on not in FAIL_ON_CHOICES:
        raise OptionsError(
            f"{where}: [tool.kgen.compat] fail-on must be one of {', '.join(FAIL_ON_CHOICES)}, got {fail_on!r}"
        )
    return Settings(tuple(against), fail_on, tuple(_allow(compat.get("allow", ()), where)))


def _allow(value: Any, where: str) -> list[Allowance]:
    out: list[Allowance] = []
    if isinstance(value, dict):
        for rule, reason in value.items():
            _check_rule(rule, where)
            if not isinstance(reason, str) or not reason.strip():
                raise OptionsError(f"{where}: [tool.kgen.compat.allow] {rule} needs a reason (a string saying why "
                                   "the change is allowed)")  # fmt: skip
            out.append(Allowance(rule, reason.strip(), where=f"{where} [tool.kgen.compat.allow] {rule}"))
        return out
    if not isinstance(value, (list, tuple)):
        raise OptionsError(
            f"{where}: [tool.kgen.compat] allow is a table of rule = reason, or [[tool.kgen.compat.allow]] entries"
        )
    for index, entry in enumerate(value, 1):
        label = f"{where} [[tool.kgen.compat.allow]] entry {index}"
        if not isinstance(entry, dict):
            raise OptionsError(f"{label}: an entry is a table with rule, reason and optional {', '.join(_SELECTORS)}")
        unknown = sorted(set(entry) - {"rule", "reason", *_SELECTORS})
        if unknown:
            raise OptionsError(
                f"{label}: unknown keys {', '.join(unknown)} (known: rule, reason, {', '.join(_SELECTORS)})"
            )
        rule = entry.get("rule")
        _check_rule(rule, label)
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise OptionsError(f'{label}: every allowed exception needs a reason (reason = "...")')
        selectors = {key: entry.get(key) for key in _SELECTORS}
        for key, selected in selectors.items():
            if selected is not None and not isinstance(selected, str):
                raise OptionsError(f"{label}: {key} must be a string (a glob)")
        out.append(Allowance(str(rule), reason.strip(), where=label, **selectors))
    return out


def _check_rule(rule: Any, where: str) -> None:
    if not isinstance(rule, str) or rule not in RULES:
        raise OptionsError(f"{where}: unknown compat rule {rule!r} (kgen compat --rules lists them)")
