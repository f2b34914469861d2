"""The schema rules: two structural schemas of one version of a resource, node by node.

`compare(old, new)` walks both `openAPIV3Schema`s together and returns a `Change` for every
keyword whose change can break a client or a stored object: the shape of a value (its
JSON type, int-or-string, an embedded resource), nullable, defaults, pruning, enums,
formats, bounds, lengths, item and property counts, patterns, list and map types, the
composition keywords, CEL rules, required properties and removed properties. What a change
makes acceptable that was not (a lower minimum, a removed rule) is gathered per node into
one `validation-relaxed` change.

Nodes are matched by property name, list items and map values; a node only the new schema
has is a new field, and nothing in it is a finding (its required fields aside, which the
parent reports). A changed description is reported (it is where a change of meaning shows);
titles and examples are not compared.
"""

from __future__ import annotations

import json
from typing import Any

from kgen.compat.changes import Change
from kgen.compat.rules import WARNING
from kgen.compat.snapshot import Steps
from kgen.runtime.structural import Structural

_COMPOSITIONS = ("allOf", "anyOf", "oneOf", "not")
_STRING = frozenset({"format", "Length", "pattern"})
_KEYWORDS_OF: dict[str, frozenset[str]] = {
    "string": _STRING,
    "integer": frozenset({"format", "bounds"}),
    "number": frozenset({"format", "bounds"}),
    "int-or-string": _STRING | {"bounds"},
    "array": frozenset({"Items"}),
    "object": frozenset({"Properties"}),
    "embedded resource": frozenset({"Properties"}),
    "boolean": frozenset(),
    "any JSON": _STRING | {"bounds", "Items", "Properties"},
}
"""The value keywords each type has (the API server's validator checks the others on no value)."""
_DOCUMENTATION = frozenset({"description", "title", "example", "externalDocs"})


def compare(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change between two schemas of the same version of a resource."""
    out: list[Change] = []
    _compare(old, new, (), out)
    return out


def shown(value: Any) -> str:
    """A JSON value as messages quote it (compact JSON)."""
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False, sort_keys=True)


def _same(a: Any, b: Any) -> bool:
    """JSON equality (Python's says True == 1)."""
    return a == b and shown(a) == shown(b)


def shape(schema: dict[str, Any]) -> str:
    """The kind of value a schema takes, as messages name it."""
    if schema.get("x-kubernetes-int-or-string"):
        return "int-or-string"
    kind = schema.get("type")
    if kind == "object" and schema.get("x-kubernetes-embedded-resource"):
        return "embedded resource"
    if kind:
        return str(kind)
    return "any JSON"


def _compare(o: dict[str, Any], n: dict[str, Any], steps: Steps, out: list[Change]) -> None:
    if o == n:
        return
    before, after = shape(o), shape(n)
    if before != after:
        out.append(Change("type-changed", f"type changed from {before} to {after}", steps, old_node=o, new_node=n))
        return
    relaxed: list[str] = []

    def change(rule: str, what: str, **extra: Any) -> None:
        out.append(Change(rule, what, extra.pop("at", steps), old_node=o, new_node=n, **extra))

    if steps and o.get("description") and n.get("description") and n["description"] != o["description"]:
        change("description-changed", "its description changed: check that it still means what it meant")
    _nullable(o, n, change)
    _default(o, n, change)
    if o.get("x-kubernetes-preserve-unknown-fields") and not n.get("x-kubernetes-preserve-unknown-fields"):
        change("pruning-enabled", "x-kubernetes-preserve-unknown-fields removed: fields the schema does not name "
               "are now dropped")  # fmt: skip
    elif n.get("x-kubernetes-preserve-unknown-fields") and not o.get("x-kubernetes-preserve-unknown-fields"):
        relaxed.append("unknown fields are kept")
    _enum(o, n, change, relaxed)
    # a keyword the value's type does not have is one the API server never checks (a
    # maxLength written on a list, say): neither its addition nor its removal changes anything
    applies = _KEYWORDS_OF.get(before, frozenset(_KEYWORDS_OF["any JSON"]))
    if "format" in applies:
        _format(o, n, before, change, relaxed)
    if "bounds" in applies:
        _bounds(o, n, change, relaxed)
    for name, rule in (
        ("Length", "length-tightened"),
        ("Items", "items-tightened"),
        ("Properties", "properties-tightened"),
    ):
        if name in applies:
            _counts(f"min{name}", f"max{name}", rule, o, n, change, relaxed)
    if "pattern" in applies:
        _pattern(o, n, change, relaxed)
    _lists(o, n, before, change)
    for keyword in _COMPOSITIONS:
        if not _same(_undocumented(o.get(keyword)), _undocumented(n.get(keyword))):
            change("validation-changed", f"{keyword} changed", data={"keyword": keyword})
    _rules(o, n, change, relaxed)
    _required(o, n, steps, change, relaxed)
    if relaxed:
        change("validation-relaxed", "validation relaxed: " + "; ".join(relaxed))
    _children(o, n, steps, out)


def _undocumented(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _undocumented(v) for k, v in value.items() if k not in _DOCUMENTATION}
    if isinstance(value, list):
        return [_undocumented(v) for v in value]
    return value


def _nullable(o: dict[str, Any], n: dict[str, Any], change: Any) -> None:
    was, now = bool(o.get("nullable")), bool(n.get("nullable"))
    if was and not now:
        change("nullable-changed", "no longer nullable: a null sent for it is dropped (or defaulted) instead of kept")
    elif now and not was:
        change("nullable-changed", "made nullable: readers may now find null in it", severity=WARNING)


def _default(o: dict[str, Any], n: dict[str, Any], change: Any) -> None:
    # a `default: null` is no default (the API server ignores it)
    was, now = o.get("default"), n.get("default")
    if was is None and now is None:
        return
    if was is None:
        change("default-added", f"default {shown(now)} added", data={"default": now})
    elif now is None:
        change("default-removed", f"default {shown(was)} removed", data={"default": was})
    elif not _same(was, now):
        change("default-changed", f"default changed from {shown(was)} to {shown(now)}", data={"default": now})


def _enum(o: dict[str, Any], n: dict[str, Any], change: Any, relaxed: list[str]) -> None:
    was, now = o.get("enum"), n.get("enum")
    if now is None:
        if was is not None:
            relaxed.append("enum removed")
        return
    now_keys = {shown(v) for v in now}
    if was is None:
        change("enum-narrowed", f"enum added: only {', '.join(shown(v) for v in now)} accepted", data={"values": []})
        return
    was_keys = {shown(v) for v in was}
    removed = [v for v in was if shown(v) not in now_keys]
    added = [v for v in now if shown(v) not in was_keys]
    if removed:
        change(
            "enum-narrowed", f"enum values removed: {', '.join(shown(v) for v in removed)}", data={"values": removed}
        )
    if added:
        change("enum-value-added", f"enum values added: {', '.join(shown(v) for v in added)}")


def _enforced(schema: dict[str, Any]) -> str:
    """The format the API server checks (one it does not know for the type is ignored)."""
    probe: dict[str, Any] = {k: schema[k] for k in ("type", "format", "x-kubernetes-int-or-string") if k in schema}
    return Structural.from_openapi(probe).validated_format


_WIDTHS = {"int32": 32, "int64": 64, "float": 32, "double": 64}


def _format(o: dict[str, Any], n: dict[str, Any], kind: str, change: Any, relaxed: list[str]) -> None:
    was, now = _enforced(o), _enforced(n)
    if was == now:
        return
    if kind in ("integer", "number") and was and now:
        if _WIDTHS[now] < _WIDTHS[was]:
            change("format-changed", f"format narrowed from {was} to {now}", data={"format": now})
        else:
            change("format-changed", f"format widened from {was} to {now}: readers of {was} values may overflow",
                   severity=WARNING)  # fmt: skip
    elif now and not was:
        change("format-changed", f"format {now} added", data={"format": now})
    elif now:
        change("format-changed", f"format changed from {was} to {now}", data={"format": now})
    else:
        relaxed.append(f"format {was} removed")


def _lower(
    name: str, was: Any, was_exclusive: bool, now: Any, now_exclusive: bool, zero_is_none: bool = False
) -> tuple[bool, str] | None:
    """(tightened, description) of a change of a lower bound, or None."""
    if zero_is_none:
        was = None if was == 0 else was
        now = None if now == 0 else now
    if was == now and was_exclusive == now_exclusive:
        return None
    if now is None:
        return (False, f"{name} {was} removed") if was is not None else None
    if was is None:
        return True, f"{name} {now}{' (exclusive)' if now_exclusive else ''} added"
    if now > was:
        return True, f"{name} raised from {was} to {now}"
    if now < was:
        return False, f"{name} lowered from {was} to {now}"
    return (now_exclusive, f"{name} {now} made {'exclusive' if now_exclusive else 'inclusive'}")


def _upper(name: str, was: Any, was_exclusive: bool, now: Any, now_exclusive: bool) -> tuple[bool, str] | None:
    if was == now and was_exclusive == now_exclusive:
        return None
    if now is None:
        return (False, f"{name} {was} removed") if was is not None else None
    if was is None:
        return True, f"{name} {now}{' (exclusive)' if now_exclusive else ''} added"
    if now < was:
        return True, f"{name} lowered from {was} to {now}"
    if now > was:
        return False, f"{name} raised from {was} to {now}"
    return (now_exclusive, f"{name} {now} made {'exclusive' if now_exclusive else 'inclusive'}")


def _bounds(o: dict[str, Any], n: dict[str, Any], change: Any, relaxed: list[str]) -> None:
    found = [
        _lower("minimum", o.get("minimum"), bool(o.get("exclusiveMinimum")), n.get("minimum"),
               bool(n.get("exclusiveMinimum"))),
        _upper("maximum", o.get("maximum"), bool(o.get("exclusiveMaximum")), n.get("maximum"),
               bool(n.get("exclusiveMaximum"))),
    ]  # fmt: skip
    was, now = o.get("multipleOf"), n.get("multipleOf")
    if was != now:
        if now is not None and (was is None or not _divides(was, now)):
            found.append(
                (True, f"multipleOf {now} added" if was is None else f"multipleOf changed from {was} to {now}")
            )
        else:
            found.append(
                (False, f"multipleOf {was} removed" if now is None else f"multipleOf changed from {was} to {now}")
            )
    for tightened, what in filter(None, found):
        if tightened:
            change("bounds-tightened", what)
        else:
            relaxed.append(what)


def _divides(was: Any, now: Any) -> bool:
    """Every multiple of `was` is a multiple of `now`."""
    try:
        ratio = was / now
    except ZeroDivisionError:
        return False
    return abs(ratio - round(ratio)) < 1e-9


def _counts(
    low: str, high: str, rule: str, o: dict[str, Any], n: dict[str, Any], change: Any, relaxed: list[str]
) -> None:
    for found in (
        _lower(low, o.get(low), False, n.get(low), False, zero_is_none=True),
        _upper(high, o.get(high), False, n.get(high), False),
    ):
        if found is None:
            continue
        tightened, what = found
        if tightened:
            change(rule, what)
        else:
            relaxed.append(what)


def _pattern(o: dict[str, Any], n: dict[str, Any], change: Any, relaxed: list[str]) -> None:
    was, now = o.get("pattern"), n.get("pattern")
    if was == now:
        return
    if now and was:
        change("pattern-changed", f"pattern changed from {shown(was)} to {shown(now)}")
    elif now:
        change("pattern-changed", f"pattern {shown(now)} added")
    else:
        relaxed.append(f"pattern {shown(was)} removed")


def _lists(o: dict[str, Any], n: dict[str, Any], kind: str, change: Any) -> None:
    if kind == "array":
        was = o.get("x-kubernetes-list-type") or "atomic"
        now = n.get("x-kubernetes-list-type") or "atomic"
        if was != now:
            change("list-type-changed", f"list type changed from {was} to {now}")
        elif now == "map" and list(o.get("x-kubernetes-list-map-keys") or ()) != list(
            n.get("x-kubernetes-list-map-keys") or ()
        ):
            change("list-map-keys-changed", f"list map keys changed from {shown(o.get('x-kubernetes-list-map-keys') or [])} "
                   f"to {shown(n.get('x-kubernetes-list-map-keys') or [])}")  # fmt: skip
    elif kind == "object":
        was = o.get("x-kubernetes-map-type") or "granular"
        now = n.get("x-kubernetes-map-type") or "granular"
        if was != now:
            change("map-type-changed", f"map type changed from {was} to {now}")


def _is_immutability(rule: dict[str, Any]) -> bool:
    text = "".join(str(rule.get("rule", "")).split())
    return text in ("self==oldSelf", "oldSelf==self")


def _reads_old_self(rule: dict[str, Any]) -> bool:
    return "oldSelf" in str(rule.get("rule", ""))


def _rules(o: dict[str, Any], n: dict[str, Any], change: Any, relaxed: list[str]) -> None:
    old_rules = [r for r in o.get("x-kubernetes-validations") or () if isinstance(r, dict)]
    new_rules = [r for r in n.get("x-kubernetes-validations") or () if isinstance(r, dict)]
    old_texts = {r.get("rule") for r in old_rules}
    new_texts = {r.get("rule") for r in new_rules}
    added = [r for r in new_rules if r.get("rule") not in old_texts]
    removed = [r for r in old_rules if r.get("rule") not in new_texts]
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for rule in list(added):
        partner = next((r for r in removed if _same_purpose(r, rule)), None)
        if partner is None and len(added) == len(removed) == 1:
            partner = removed[0]
        if partner is not None:
            pairs.append((partner, rule))
            added.remove(rule)
            removed.remove(partner)
    for before, after in pairs:
        change("cel-rule-changed", f"rule {shown(before.get('rule'))} replaced by {shown(after.get('rule'))}",
               data={"old_rule": before, "rule": after})  # fmt: skip
    for rule in added:
        if _is_immutability(rule):
            change("immutable-added", f"made immutable (rule {shown(rule.get('rule'))})", data={"rule": rule})
        else:
            when = " (checked on updates)" if _reads_old_self(rule) else ""
            change("cel-rule-added", f"rule {shown(rule.get('rule'))} added{when}", data={"rule": rule})
    for rule in removed:
        relaxed.append(f"rule {shown(rule.get('rule'))} removed")


def _same_purpose(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two rules that say the same thing went wrong: the same message, or the same message
    expression (one rule rewritten, not another one added)."""
    for key in ("message", "messageExpression"):
        if a.get(key) and a.get(key) == b.get(key):
            return True
    return False


def _required(o: dict[str, Any], n: dict[str, Any], steps: Steps, change: Any, relaxed: list[str]) -> None:
    was = set(o.get("required") or ())
    now = list(n.get("required") or ())
    old_properties = o.get("properties") or {}
    new_properties = n.get("properties") or {}
    for name in now:
        if name in was:
            continue
        prop = new_properties.get(name)
        if isinstance(prop, dict) and prop.get("default") is not None:
            continue  # the API server defaults before it validates: a request without it still passes
        at = steps + (("properties", name),)
        if name in old_properties:
            change("field-made-required", "made required", at=at, data={"property": name})
        else:
            change("required-field-added", "new required field", at=at, data={"property": name})
    for name in sorted(was - set(now)):
        if name in new_properties:  # a removed field is reported as removed
            relaxed.append(f"{name} no longer required")


def _children(o: dict[str, Any], n: dict[str, Any], steps: Steps, out: list[Change]) -> None:
    old_properties = o.get("properties") or {}
    new_properties = n.get("properties") or {}
    for name, before in old_properties.items():
        at = steps + (("properties", name),)
        after = new_properties.get(name)
        if after is None:
            if n.get("x-kubernetes-preserve-unknown-fields"):
                out.append(Change("field-removed", "removed from the schema (unknown fields are kept here, so it is "
                                  "no longer checked)", at, severity=WARNING, old_node=before))  # fmt: skip
            else:
                out.append(Change("field-removed", "removed", at, old_node=before, new_node=None))
            continue
        if isinstance(before, dict) and isinstance(after, dict):
            _compare(before, after, at, out)
    if isinstance(o.get("items"), dict) and isinstance(n.get("items"), dict):
        _compare(o["items"], n["items"], steps + (("items",),), out)
    before, after = o.get("additionalProperties"), n.get("additionalProperties")
    if isinstance(before, dict) and isinstance(after, dict):
        _compare(before, after, steps + (("additionalProperties",),), out)
    elif isinstance(before, dict) and not n.get("x-kubernetes-preserve-unknown-fields"):
        out.append(Change("field-removed", "values under other keys (additionalProperties) removed", steps,
                          old_node=o, new_node=n))  # fmt: skip
