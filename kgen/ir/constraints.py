"""Validation constraints and unions, read from markers into the IR.

validation-gen (`+k8s:*`), controller-gen (`+kubebuilder:validation:*`) and the shared
markers (`+required`, `+listType`, ...) say the same things in different words; this
module reads them all into one `Constraints` record per field and per type, and one
`Union` per group of union members, so that the validation and OpenAPI generators
never look at markers themselves.
"""

from __future__ import annotations

import math
import re

from collections.abc import Callable, Iterable
from typing import Any

from kgen.ir.model import CelRule, Constraints, Gated, Modal, Union, UnionMember
from kgen.markers.registry import Marker

_PRESENCE = {
    "optional": "optional",
    "k8s:optional": "optional",
    "kubebuilder:validation:Optional": "optional",
    "required": "required",
    "k8s:required": "required",
    "kubebuilder:validation:Required": "required",
    "k8s:forbidden": "forbidden",
}

_KUBEBUILDER = "kubebuilder:validation:"
_ITEMS = "kubebuilder:validation:items:"

_SIMPLE = {
    "k8s:minimum": "minimum",
    "k8s:maximum": "maximum",
    "k8s:minLength": "min_length",
    "k8s:maxLength": "max_length",
    "k8s:maxBytes": "max_bytes",
    "k8s:minItems": "min_items",
    "k8s:maxItems": "max_items",
    "k8s:minProperties": "min_properties",
    "k8s:maxProperties": "max_properties",
    "k8s:format": "format",
    "k8s:monotonic": "monotonic",
    "listType": "list_type",
    "k8s:listType": "list_type",
    "Minimum": "minimum",
    "Maximum": "maximum",
    "ExclusiveMinimum": "exclusive_minimum",
    "ExclusiveMaximum": "exclusive_maximum",
    "MultipleOf": "multiple_of",
    "MinLength": "min_length",
    "MaxLength": "max_length",
    "Pattern": "pattern",
    "Format": "format",
    "MinItems": "min_items",
    "MaxItems": "max_items",
    "MinProperties": "min_properties",
    "MaxProperties": "max_properties",
}

_CONTROLLER_GEN_K8S = frozenset({"k8s:optional", "k8s:required", "k8s:immutable"})
"""The validation-gen tags controller-gen (0.21) reads."""


def constraints(markers: Iterable[Marker], package_presence: str | None = None, view: str = "all") -> Constraints:
    """The constraints the validation markers among `markers` declare.

    `view` says whose reading: `all` (what kgen's validators enforce), `openapi` (what
    openapi-gen publishes: no controller-gen markers, no validation-gen rule tags) or `crd`
    (what controller-gen publishes: no validation-gen rule tags but the three it reads)."""
    if view == "openapi":
        markers = [
            m
            for m in markers
            if not m.name.startswith(("k8s:", "kubebuilder:")) or m.name in ("k8s:optional", "k8s:required")
        ]
    elif view == "crd":
        markers = [m for m in markers if not m.name.startswith("k8s:") or m.name in _CONTROLLER_GEN_K8S]
    values: dict[str, Any] = {}
    items: list[Marker] = []
    keys: list[Marker] = []
    subfields: dict[str, list[Marker]] = {}
    gated: list[Gated] = []
    modal: list[Modal] = []
    dependent_required: list[str] = []
    dependent_forbidden: list[str] = []
    rules: list[CelRule] = []
    neq: list[Any] = []
    map_keys: list[str] = []
    update: list[str] = []
    position = ""
    for marker in _enforced(markers):
        name = marker.name
        matched = True
        if name in _PRESENCE:
            values["presence"] = _PRESENCE[name]
        elif name.startswith(_ITEMS):
            items.append(marker.model_copy(update={"name": _KUBEBUILDER + name[len(_ITEMS) :]}))
        elif name == "k8s:monotonic":
            values["monotonic"] = marker.value or "increasing"
        elif name in _SIMPLE:
            values[_SIMPLE[name]] = marker.value
        elif name.startswith(_KUBEBUILDER) and name[len(_KUBEBUILDER) :] in _SIMPLE:
            key = _SIMPLE[name[len(_KUBEBUILDER) :]]
            values[key] = True if marker.value is None and key.startswith("exclusive") else marker.value
        elif name == _KUBEBUILDER + "Enum":
            values["enum"] = tuple(_enum_value(v) for v in marker.value)
        elif name == _KUBEBUILDER + "UniqueItems":
            if marker.value is not False:
                values["unique"] = "set"
        elif name == _KUBEBUILDER + "XValidation":
            rules.append(_rule(marker))
        elif name in ("listMapKey", "k8s:listMapKey"):
            if marker.value not in map_keys:
                map_keys.append(marker.value)
        elif name == "k8s:unique":
            values["unique"] = marker.value
        elif name == "k8s:eachVal":
            items.append(marker.value)
        elif name == "k8s:eachKey":
            keys.append(marker.value)
        elif name == "k8s:subfield":
            subfields.setdefault(marker.args.get("", ""), []).append(marker.value)
        elif name == "k8s:immutable":
            values["immutable"] = marker.value is not False
        elif name == "k8s:update":
            update.extend(v for v in marker.value if v not in update)
        elif name == "k8s:neq":
            neq.append(marker.value)
        elif name in ("k8s:discriminator", "k8s:modeDiscriminator"):
            values["discriminator"] = True
        elif name in ("k8s:member", "k8s:ifMode"):
            modal.append(Modal(value=str(marker.args.get("", "")), constraints=constraints([marker.value])))
        elif name == "k8s:dependentRequired":
            dependent_required.append(str(marker.args.get("", "")))
        elif name == "k8s:dependentForbidden":
            dependent_forbidden.append(str(marker.args.get("", "")))
        elif name == "k8s:customUnique":
            values["custom_unique"] = True
        elif name in ("k8s:ifEnabled", "k8s:ifDisabled"):
            gated.append(
                Gated(
                    gate=marker.args.get("", ""),
                    enabled=name == "k8s:ifEnabled",
                    constraints=constraints([marker.value]),
                )
            )
        else:
            matched = False  # not a validation marker
        if matched and not position:
            position = marker.position
    if "presence" not in values and package_presence:
        values["presence"] = package_presence
    if values.get("list_type") in ("set", "map") and "unique" not in values and not values.get("custom_unique"):
        values["unique"] = values["list_type"]
    if items:
        values["items"] = constraints(items)
    if keys:
        values["keys"] = constraints(keys)
    if subfields:
        values["subfields"] = {name: constraints(ms) for name, ms in sorted(subfields.items())}
    return Constraints(
        **values,
        gated=tuple(gated),
        modal=tuple(modal),
        dependent_required=tuple(dependent_required),
        dependent_forbidden=tuple(dependent_forbidden),
        rules=tuple(rules),
        neq=tuple(neq),
        list_map_keys=tuple(map_keys),
        update=tuple(update),
        position=position,
    )


def _enforced(markers: Iterable[Marker]):
    """The markers as enforced: `+k8s:beta=+X` is X (the DeclarativeValidationBeta gate is on
    by default, so beta rules are enforced); `+k8s:alpha` rules only shadow, and are left out."""
    for marker in markers:
        while marker.name == "k8s:beta" and isinstance(marker.value, Marker):
            marker = marker.value.model_copy(update={"position": marker.value.position or marker.position})
        yield marker


def _enum_value(value: Any) -> Any:
    """controller-gen's Enum values: numbers stay numbers, the rest are strings."""
    if isinstance(value, str):
        if re.fullmatch(r"-?(0|[1-9][0-9]*)", value):
            return int(value)
        if _JSON_NUMBER.fullmatch(value) and math.isfinite(float(value)):
            return float(value)  # only numbers JSON can hold: "NaN" and "1e999" stay strings
    return value


_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def _rule(marker: Marker) -> CelRule:
    args = marker.args
    return CelRule(
        rule=args.get("rule", ""),
        message=args.get("message", ""),
        message_expression=args.get("messageExpression", ""),
        reason=args.get("reason", ""),
        field_path=args.get("fieldPath", ""),
        optional_old_self=bool(args.get("optionalOldSelf", False)),
        position=marker.position,
    )


# -- unions ----------------------------------------------------------------------------------


def unions(
    type_markers: Iterable[Marker], fields: Iterable[Any], report: Callable[[str, str], None] | None = None
) -> tuple[Union, ...]:
    """The unions of a struct: `+union`, `+unionDeprecated`, `+k8s:unionMember`, `+k8s:zeroOrOneOfMember`,
    kubebuilder's one-of markers.

    `+union` makes the struct a union of its optional fields (named by a `+unionDiscriminator`
    field when there is one); without it, the struct's own fields marked `+unionDeprecated`
    form a union of which at most one is set, as openapi-gen reads them. `report(position,
    message)` receives markers used where they have no meaning.
    """
    fields = list(fields)
    type_markers = list(type_markers)
    report = report or (lambda position, message: None)
    found: list[Union] = []
    own = [f for f in fields if len(f.go_path) == 1]
    deprecated = [f for f in own if f.has_marker("unionDeprecated")]
    union_marker = next((m for m in type_markers if m.name == "union"), None)
    if union_marker is not None:
        discriminator = next((f for f in fields if f.has_marker("unionDiscriminator")), None)
        for f in deprecated:
            report(
                f.position,
                f"field {f.go_name}: +unionDeprecated has no meaning in a +union struct, whose optional fields "
                "are all members; remove the marker (or +union, to make the marked fields the union)",
            )
        members = tuple(
            UnionMember(json_name=f.json_name, member_name=f.go_name)
            for f in fields
            if f is not discriminator and f.optional
        )
        if not members:
            report(
                union_marker.position,
                "+union, but the struct has no optional field other than the discriminator: a union's members "
                "are its optional fields; mark them +optional, or remove +union",
            )
        else:
            found.append(
                Union(
                    members=members,
                    discriminator=discriminator.json_name if discriminator else None,
                    origin="union",
                    position=union_marker.position,
                )
            )
    elif deprecated:
        discriminator = next((f for f in own if f.has_marker("unionDiscriminator")), None)
        for f in deprecated:
            if not f.optional:
                report(
                    f.position, f"field {f.go_name}: a union member (+unionDeprecated) must be optional; add +optional"
                )
        found.append(
            Union(
                mode="zeroOrOne",
                members=tuple(UnionMember(json_name=f.json_name, member_name=f.go_name) for f in deprecated),
                discriminator=discriminator.json_name if discriminator else None,
                origin="unionDeprecated",
                position=deprecated[0].position,
            )
        )
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for f in fields:
        for marker in f.markers:
            if marker.name in ("k8s:unionMember", "k8s:zeroOrOneOfMember"):
                mode = "exactlyOne" if marker.name == "k8s:unionMember" else "zeroOrOne"
                group = groups.setdefault(
                    (mode, marker.args.get("union", "")),
                    {"members": [], "discriminator": None, "position": marker.position, "origin": marker.name},
                )
                group["members"].append(
                    UnionMember(json_name=f.json_name, member_name=marker.args.get("memberName", f.go_name))
                )
            elif marker.name == "k8s:unionDiscriminator":
                group = groups.setdefault(
                    ("exactlyOne", marker.args.get("union", "")),
                    {"members": [], "discriminator": None, "position": marker.position, "origin": "k8s:unionMember"},
                )
                group["discriminator"] = f.json_name
    for (mode, name), group in groups.items():
        found.append(
            Union(
                name=name,
                mode=mode,
                members=tuple(group["members"]),
                discriminator=group["discriminator"],
                origin=group["origin"],
                position=group["position"],
            )
        )
    modes = {"ExactlyOneOf": "exactlyOne", "AtMostOneOf": "zeroOrOne", "AtLeastOneOf": "atLeastOne"}
    by_json = {f.json_name: f for f in fields}
    for marker in type_markers:
        if marker.name.startswith(_KUBEBUILDER) and marker.name[len(_KUBEBUILDER) :] in modes:
            found.append(
                Union(
                    mode=modes[marker.name[len(_KUBEBUILDER) :]],
                    members=tuple(
                        UnionMember(json_name=n, member_name=by_json[n].go_name if n in by_json else n)
                        for n in marker.value
                    ),
                    origin=marker.name,
                    position=marker.position,
                )
            )
    return tuple(found)


def with_embedded(own: Constraints, embedded: Constraints) -> Constraints:
    """A struct's own type constraints joined with those of a struct it embeds inline.

    The embedded struct's fields are the outer struct's fields in JSON, so its rules hold of
    the outer object (controller-gen merges them into the outer schema the same way). Only
    what applies to a whole struct carries over: CEL rules, gated rules, property counts
    and subfield constraints (the outer struct's own win for the same subfield).
    """
    if embedded.is_empty():
        return own

    def tighter(a, b, pick):
        return b if a is None else a if b is None else pick(a, b)

    return own.model_copy(
        update={
            "rules": own.rules + embedded.rules,
            "gated": own.gated + embedded.gated,
            "min_properties": tighter(own.min_properties, embedded.min_properties, max),
            "max_properties": tighter(own.max_properties, embedded.max_properties, min),
            "subfields": {**embedded.subfields, **own.subfields},
            "position": own.position or embedded.position,
        }
    )
