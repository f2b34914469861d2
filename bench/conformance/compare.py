"""Comparisons of kgen's outputs with upstream's: each returns a `Score` of equal/total and
the differences, grouped by what differs."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Score:
    """How many compared items are equal, and how the others differ."""

    name: str
    equal: int = 0
    total: int = 0
    differences: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, equal: bool, kind: str = "", example: str = "") -> None:
        self.total += 1
        if equal:
            self.equal += 1
            return
        self.differences[kind] += 1
        self.examples.setdefault(kind, [])
        if len(self.examples[kind]) < 3:
            self.examples[kind].append(example)

    def merge(self, other: Score) -> None:
        self.equal += other.equal
        self.total += other.total
        self.differences.update(other.differences)
        for kind, examples in other.examples.items():
            mine = self.examples.setdefault(kind, [])
            mine.extend(examples[: 3 - len(mine)])

    @property
    def percent(self) -> float:
        return 100.0 * self.equal / self.total if self.total else 0.0

    def line(self) -> str:
        return f"{self.equal}/{self.total} ({self.percent:.2f} %)"

    def as_json(self) -> dict[str, Any]:
        return {"equal": self.equal, "total": self.total, "percent": round(self.percent, 2),
                "differences": dict(self.differences.most_common())}  # fmt: skip


# -- OpenAPI v2 ---------------------------------------------------------------------------------

_SCHEMA_KEYS = ("type", "format", "$ref", "items", "additionalProperties")


def _schema_view(schema: Any) -> Any:
    """The parts of a property schema that are compared: types, formats, references, items,
    additional properties and every x-kubernetes-* extension (recursively)."""
    if not isinstance(schema, dict):
        return schema
    view: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("items", "additionalProperties") and isinstance(value, dict):
            view[key] = _schema_view(value)
        elif key in _SCHEMA_KEYS or key.startswith("x-kubernetes-"):
            view[key] = value
        elif key == "allOf":
            view[key] = [_schema_view(v) for v in value]
    return view


def compare_swagger(upstream: dict, ours: dict, prefixes: tuple[str, ...]) -> tuple[Score, list[str]]:
    """Every property (and definition-level x-kubernetes-* extension) of the upstream
    definitions whose names start with `prefixes`; returns the score and the definitions
    kgen does not have."""
    score = Score("openapi v2")
    missing: list[str] = []
    theirs = upstream.get("definitions", {})
    mine = ours.get("definitions", {})
    for name, definition in sorted(theirs.items()):
        if not name.startswith(prefixes):
            continue
        other = mine.get(name)
        if other is None:
            missing.append(name)
        other = other or {}
        for key in sorted(k for k in definition if k.startswith("x-kubernetes-")):
            score.add(other.get(key) == definition[key], f"definition {key}", name)
        required, other_required = set(definition.get("required", [])), set(other.get("required", []))
        for prop, schema in sorted((definition.get("properties") or {}).items()):
            ours_prop = (other.get("properties") or {}).get(prop)
            if ours_prop is None:
                score.add(False, "missing property", f"{name}.{prop}")
                continue
            a, b = _schema_view(schema), _schema_view(ours_prop)
            differing = sorted({k for k in set(a) | set(b) if a.get(k) != b.get(k)})
            if (prop in required) != (prop in other_required):
                differing.append("required")
            score.add(not differing, ",".join(differing), f"{name}.{prop}: {a} != {b}")
    return score, missing


# -- CRDs -----------------------------------------------------------------------------------------


def flatten_schema(schema: Any, path: str = "", out: dict[str, dict] | None = None) -> dict[str, dict]:
    """A schema as paths (`.spec.ports[].name`, `.labels{}`) to their keywords, descriptions
    left out, sub-schemas replaced by their paths."""
    out = {} if out is None else out
    if not isinstance(schema, dict):
        return out
    keywords: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("description", "properties"):
            continue
        if key == "items" and isinstance(value, dict):
            flatten_schema(value, path + "[]", out)
        elif key == "additionalProperties" and isinstance(value, dict):
            flatten_schema(value, path + "{}", out)
        else:
            keywords[key] = value
    for name, sub in (schema.get("properties") or {}).items():
        flatten_schema(sub, f"{path}.{name}", out)
    out[path or "."] = keywords
    return out


def crd_index(documents: list[dict]) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in documents if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"}


def _rules(schema: Any, path: str, out: list[tuple[str, str]]) -> None:
    if not isinstance(schema, dict):
        return
    for rule in schema.get("x-kubernetes-validations") or []:
        if isinstance(rule, dict):
            out.append((path or ".", repr(sorted(rule.items()))))
    for key, suffix in (("items", "[]"), ("additionalProperties", "{}")):
        if isinstance(schema.get(key), dict):
            _rules(schema[key], path + suffix, out)
    for name, sub in (schema.get("properties") or {}).items():
        _rules(sub, f"{path}.{name}", out)


def _squeeze(text: str) -> str:
    return re.sub(r"[\s\\]+", "", text)


def marker_rule_text(go_sources: list[str]) -> str:
    """The text of every XValidation marker line of the sources, squeezed (no spaces or
    backslashes), to tell which upstream rules a controller-gen marker wrote."""
    lines = [line for text in go_sources for line in text.splitlines() if "+kubebuilder:validation:XValidation" in line]
    return _squeeze("\n".join(lines))


def compare_crds(upstream: dict[str, dict], ours: dict[str, dict], marker_rules: str | None = None) -> dict[str, Score]:
    """Schema paths (every keyword but descriptions), CEL rules at their paths, and the
    CRDs' other parts (names, scope, versions and their flags, subresources, columns).

    With `marker_rules` (see marker_rule_text), an upstream rule that no XValidation marker
    of the source holds is counted apart ("rules from outside controller-gen markers"):
    a repository's own CRD tool wrote it (gateway-api's `<gateway:...>` tags)."""
    paths, rules, parts = Score("crd schema paths"), Score("cel rules"), Score("crd parts")
    elsewhere = Score("cel rules from outside controller-gen markers")
    for name, crd in sorted(upstream.items()):
        mine = ours.get(name)
        spec, my_spec = crd.get("spec", {}), (mine or {}).get("spec", {})
        for key in ("group", "names", "scope"):
            parts.add(spec.get(key) == my_spec.get(key), key, name)
        my_versions = {v["name"]: v for v in my_spec.get("versions", [])}
        for version in spec.get("versions", []):
            other = my_versions.get(version["name"], {})
            for key in ("served", "storage", "subresources", "additionalPrinterColumns", "selectableFields",
                        "deprecated", "deprecationWarning"):  # fmt: skip
                parts.add(version.get(key) == other.get(key), f"version {key}", f"{name} {version['name']}")
            theirs = flatten_schema(version.get("schema", {}).get("openAPIV3Schema", {}))
            mine_flat = flatten_schema(other.get("schema", {}).get("openAPIV3Schema", {}))
            for path, keywords in sorted(theirs.items()):
                ours_keywords = mine_flat.get(path)
                if ours_keywords is None:
                    paths.add(False, "missing path", f"{name} {version['name']} {path}")
                    continue
                differing = sorted({k for k in set(keywords) | set(ours_keywords) if keywords.get(k) != ours_keywords.get(k)})
                paths.add(not differing, ",".join(differing), f"{name} {version['name']} {path}: {keywords} != {ours_keywords}")
            their_rules: list[tuple[str, str]] = []
            my_rules: list[tuple[str, str]] = []
            _rules(version.get("schema", {}).get("openAPIV3Schema", {}), "", their_rules)
            _rules(other.get("schema", {}).get("openAPIV3Schema", {}), "", my_rules)
            remaining = Counter(my_rules)
            for rule in their_rules:
                found = remaining[rule] > 0
                if found:
                    remaining[rule] -= 1
                outside = marker_rules is not None and _squeeze(rule[1]) not in marker_rules
                (elsewhere if outside and not found else rules).add(
                    found, "rule not at its path", f"{name} {version['name']} {rule[0]}: {rule[1][:200]}"
                )
    scores = {"paths": paths, "rules": rules, "parts": parts}
    if elsewhere.total:
        scores["rules outside markers"] = elsewhere
    return scores


# -- protobuf --------------------------------------------------------------------------------------

_FIELD_KEYS = ("name", "number", "label", "type", "type_name")


def compare_messages(upstream: dict[str, Any], ours: dict[str, Any], prefix: str) -> Score:
    """Field by field (name, number, label, type, type name, options) of the upstream
    messages whose full names start with `prefix`."""
    score = Score("protobuf fields")
    for name, message in sorted(upstream.items()):
        if not name.startswith(prefix):
            continue
        other = ours.get(name)
        by_number = {f.number: f for f in other.field} if other is not None else {}
        for f in message.field:
            mine = by_number.get(f.number)
            if other is None:
                score.add(False, "missing message", name)
                continue
            if mine is None:
                score.add(False, "missing field", f"{name}.{f.name}")
                continue
            differing = [k for k in _FIELD_KEYS if getattr(f, k) != getattr(mine, k)]
            if f.options != mine.options:
                differing.append("options")
            score.add(not differing, ",".join(differing), f"{name}.{f.name}")
    return score


# -- conversions -----------------------------------------------------------------------------------

_GO_CONVERT = re.compile(r"^func (Convert_([A-Za-z0-9]+)_([A-Za-z0-9_]+?)_To_([A-Za-z0-9]+)_([A-Za-z0-9_]+))\(", re.MULTILINE)
_PY_CONVERT = re.compile(r"^def convert_([A-Za-z0-9]+)_([A-Za-z0-9_]+?)_to_([A-Za-z0-9]+)_([A-Za-z0-9_]+)\(", re.MULTILINE)
_VERSION = re.compile(r"^v\d+((alpha|beta)\d+)?$")


def _side(package: str) -> str:
    """conversion-gen names an internal package by its Go name; kgen calls it `internal`."""
    return package if _VERSION.match(package) else "internal"


def conversion_keys_go(text: str) -> list[tuple[str, str, str, str, str]]:
    """(name, from, type, to, type) of the `Convert_` functions of a Go file."""
    return [(m.group(1), _side(m.group(2)), m.group(3), _side(m.group(4)), m.group(5)) for m in _GO_CONVERT.finditer(text)]


def conversion_keys_python(text: str) -> set[tuple[str, str, str, str]]:
    return {(m.group(1), m.group(2), m.group(3), m.group(4)) for m in _PY_CONVERT.finditer(text)}


def compare_conversions(go_texts: list[str], python_texts: list[str]) -> Score:
    score = Score("conversions")
    ours: set[tuple[str, str, str, str]] = set()
    for text in python_texts:
        ours |= conversion_keys_python(text)
    for text in go_texts:
        for name, *key in conversion_keys_go(text):
            score.add(tuple(key) in ours, "no kgen equivalent", name)
    return score
