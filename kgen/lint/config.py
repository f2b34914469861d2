"""`[tool.kgen.lint]`: which rules run, how severe their findings are, their settings, the
threshold that fails the run, and the baseline of accepted findings.

```toml
[tool.kgen.lint]
profile = "crd"                      # or "builtin"; default: from the repository (CRDs -> crd)
enable = ["nobools", "minlength"]     # on top of the profile's rules
disable = ["commentstart"]
fail-on = "warning"                  # error | warning | info | never
baseline = "kgen-lint-baseline.json"

[tool.kgen.lint.rules.optionalfields]  # a rule's settings, with kube-api-linter's names
pointers = { preference = "WhenRequired" }
severity = "error"
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgen.findings import FAIL_ON_CHOICES, Severity
from kgen.lint.engine import BUILTIN, CRD, PROFILES, Rule
from kgen.lint.markers import KNOWN_IDENTIFIERS
from kgen.lint.registry import RULES
from kgen.options import OptionsError

_KEYS = {"profile", "enable", "disable", "fail-on", "baseline", "rules"}


@dataclass
class LintSettings:
    """What `[tool.kgen.lint]` and the flags say, before a profile is chosen."""

    profile: str | None = None
    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    """Only these rules (`--select`), whatever the profile says."""
    fail_on: str = "warning"
    baseline: Path | None = None
    severities: dict[str, Severity] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per rule, its settings by dotted name (`pointers.preference`)."""


@dataclass(frozen=True)
class EnabledRule:
    rule: Rule
    severity: Severity
    options: dict[str, Any]


def read_settings(table: dict[str, Any], base: Path, where: str = "[tool.kgen.lint]") -> LintSettings:
    """The settings of a `[tool.kgen.lint]` table (paths relative to `base`); OptionsError names what is wrong."""
    if not isinstance(table, dict):
        raise OptionsError(f"{where} must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise OptionsError(f"{where}: unknown settings: {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})")
    settings = LintSettings()
    profile = table.get("profile")
    if profile is not None:
        if profile not in PROFILES:
            raise OptionsError(f"{where} profile = {profile!r}: one of {', '.join(PROFILES)}")
        settings.profile = profile
    for key in ("enable", "disable"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise OptionsError(f"{where} {key} must be a list of rule names")
        check_rule_names(value, f"{where} {key}")
        setattr(settings, key, tuple(value))
    fail_on = table.get("fail-on", "warning")
    if fail_on not in FAIL_ON_CHOICES:
        raise OptionsError(f"{where} fail-on = {fail_on!r}: one of {', '.join(FAIL_ON_CHOICES)}")
    settings.fail_on = fail_on
    if "baseline" in table:
        if not isinstance(table["baseline"], str) or not table["baseline"]:
            raise OptionsError(f"{where} baseline must be a file path")
        settings.baseline = base / table["baseline"]
    rules = table.get("rules", {})
    if not isinstance(rules, dict):
        raise OptionsError(f"{where}.rules must be a table of rule tables ([tool.kgen.lint.rules.<rule>])")
    for rule_id, rule_table in rules.items():
        check_rule_names([rule_id], f"{where}.rules")
        if not isinstance(rule_table, dict):
            raise OptionsError(f"{where}.rules.{rule_id} must be a table")
        flat = _flatten(rule_table)
        severity = flat.pop("severity", None)
        if severity is not None:
            try:
                settings.severities[rule_id] = Severity.parse(str(severity))
            except ValueError as err:
                raise OptionsError(f"{where}.rules.{rule_id} severity: {err}") from None
        check_options(RULES[rule_id], flat, f"{where}.rules.{rule_id}")
        settings.options[rule_id] = flat
    return settings


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested tables become dotted keys (`pointers = {policy = "Warn"}` -> `pointers.policy`); lists stay."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def check_rule_names(names: list[str] | tuple[str, ...], where: str) -> None:
    for name in names:
        if name not in RULES and name != "all":
            raise OptionsError(f"{where}: unknown rule {name!r} (`kgen lint --list-rules` lists them)")


def check_options(rule: Rule, values: dict[str, Any], where: str) -> None:
    """Settings of a rule: known names, values of the right type and among the choices."""
    for key, value in values.items():
        option = rule.options.get(key)
        if option is None:
            known = ", ".join(sorted(rule.options)) or "none"
            raise OptionsError(f"{where}: unknown setting {key!r} (settings of {rule.id}: {known}; and severity)")
        if option.choices and value not in option.choices:
            raise OptionsError(f"{where} {key} = {value!r}: one of {', '.join(option.choices)}")
        if not isinstance(value, type(option.default)) or isinstance(value, bool) != isinstance(option.default, bool):
            raise OptionsError(f"{where} {key} must be a {type(option.default).__name__}, got {value!r}")
    if rule.validate is not None:
        merged = {k: o.default for k, o in rule.options.items()} | values
        problems = rule.validate(merged, where)
        if problems:
            raise OptionsError("; ".join(problems))


def choose_profile(settings: LintSettings, custom_resources: bool) -> str:
    """The profile: the settings', else `crd` for an input with custom resources, else `builtin`."""
    if settings.profile is not None:
        return settings.profile
    return CRD if custom_resources else BUILTIN


def enabled_rules(settings: LintSettings, profile: str) -> list[EnabledRule]:
    """The rules that run, in table order, each with its severity and settings
    (defaults, then the profile's, then the user's)."""
    if settings.select:
        chosen = set(RULES) if "all" in settings.select else set(settings.select)
    else:
        chosen = {rule_id for rule_id, rule in RULES.items() if profile in rule.profiles}
        chosen |= set(RULES) if "all" in settings.enable else set(settings.enable)
        chosen -= set(RULES) if "all" in settings.disable else set(settings.disable)
    out = []
    for rule_id, rule in RULES.items():
        if rule_id not in chosen:
            continue
        values = {key: option.default for key, option in rule.options.items()}
        values.update(rule.profile_options.get(profile, {}))
        values.update(settings.options.get(rule_id, {}))
        out.append(EnabledRule(rule, settings.severities.get(rule_id, rule.severity), values))
    for item in out:
        if item.rule.validate is not None:
            problems = item.rule.validate(item.options, f"[tool.kgen.lint.rules.{item.rule.id}]")
            if problems:
                raise OptionsError(f"rule {item.rule.id} is enabled but not configured: " + "; ".join(problems))
    return out


def known_identifiers(rules: list[EnabledRule]) -> frozenset[str]:
    """Marker identifiers read with their arguments: the fixed set and those the rules' settings name."""
    found = set(KNOWN_IDENTIFIERS)
    for item in rules:
        if item.rule.markers is not None:
            found |= item.rule.markers(item.options)
    return frozenset(found)


__all__ = ["BUILTIN", "CRD", "EnabledRule", "LintSettings", "choose_profile", "enabled_rules", "read_settings"]
