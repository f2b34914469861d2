"""Rules about which markers a type or field carries: forbiddenmarkers (and nonullable),
conflictingmarkers (and defaultorrequired), dependenttags, duplicatemarkers, uniquemarkers
and preferredmarkers.

A field's markers include those of its named type (written on `type X`), listed first, as
kube-api-linter collects them; a fix that removes a marker removes its line wherever it is.
"""

from __future__ import annotations

from typing import Any

from kgen.findings import Edit
from kgen.lint.engine import Context, fix, remove_line, replace_marker
from kgen.lint.markers import Marker, MarkerSet, identifier_of
from kgen.lint.model import LintFile
from kgen.lint.typeinfo import with_type_markers


def _file_of(ctx: Context, marker: Marker, default: LintFile) -> LintFile:
    """The file a marker was written in (a field's type may be declared in another file)."""
    if marker.path == default.path:
        return default
    for f in default.package.files:
        if f.path == marker.path:
            return f
    return default


def _remove(ctx: Context, marker: Marker, file: LintFile) -> Edit:
    return remove_line(_file_of(ctx, marker, file), marker.line)


# -- forbiddenmarkers / nonullable -------------------------------------------------------------


def _forbidden(markers: MarkerSet, forbidden: list[dict[str, Any]]) -> list[Marker]:
    found = []
    for rule in forbidden:
        for marker in markers.get(rule["identifier"]):
            rule_sets = rule.get("ruleSets") or []
            if not rule_sets:
                found.append(marker)
                continue
            for rule_set in rule_sets:
                if all(_attribute_matches(marker, a) for a in rule_set.get("attributes", [])):
                    found.append(marker)
    return found


def _attribute_matches(marker: Marker, attribute: dict[str, Any]) -> bool:
    args = marker.args
    if attribute["name"] not in args:
        return False
    values = attribute.get("values") or []
    return not values or args[attribute["name"]] in values


def forbidden_identifiers(options: dict[str, Any]) -> frozenset[str]:
    return frozenset(m["identifier"] for m in options.get("markers") or [] if isinstance(m, dict) and "identifier" in m)


def _check_forbidden(ctx: Context, forbidden: list[dict[str, Any]]) -> None:
    for f in ctx.fields():
        if f.embedded:
            continue
        for marker in _forbidden(with_type_markers(ctx.world, f), forbidden):
            ctx.report_field(f, f'field {f.qualified_name} has forbidden marker "{marker}"',
                             fix(f'remove forbidden marker "{marker}"', _remove(ctx, marker, f.file)))  # fmt: skip
    for t in ctx.types():
        for marker in _forbidden(t.markers, forbidden):
            ctx.report_type(t, f'type {t.name} has forbidden marker "{marker}"',
                            fix(f'remove forbidden marker "{marker}"', _remove(ctx, marker, t.file)))  # fmt: skip


def check_forbiddenmarkers(ctx: Context) -> None:
    """No marker the settings forbid (by identifier, and optionally argument values)."""
    _check_forbidden(ctx, ctx.options["markers"])


def check_nonullable(ctx: Context) -> None:
    """No `+nullable`: an API tells unset from empty by omitting the field, not by null."""
    _check_forbidden(ctx, [{"identifier": "nullable"}])


# -- conflictingmarkers / defaultorrequired ----------------------------------------------------


def conflict_identifiers(options: dict[str, Any]) -> frozenset[str]:
    return frozenset(
        identifier_of(marker)
        for conflict in options.get("conflicts") or []
        if isinstance(conflict, dict)
        for group in conflict.get("sets") or []
        for marker in group
    )


def _check_conflicts(ctx: Context, conflicts: list[dict[str, Any]]) -> None:
    for f in ctx.fields():
        if f.embedded:
            continue
        markers = with_type_markers(ctx.world, f)
        for conflict in conflicts:
            present = []
            for group in conflict["sets"]:
                found = sorted({m for m in group if (markers.has_value(m, ctx.known) if "=" in m else markers.has(m))})
                if found:
                    present.append(found)
            if len(present) >= 2:
                sets = ", ".join("[" + " ".join(found) + "]" for found in present)
                ctx.report_field(
                    f, f"field {f.qualified_name} has conflicting markers: {conflict['name']}: {{{sets}}}. {conflict['description']}"
                )  # fmt: skip


def validate_conflicts(options: dict[str, Any], where: str) -> list[str]:
    problems = []
    names: set[str] = set()
    for index, conflict in enumerate(options.get("conflicts") or []):
        at = f"{where}.conflicts[{index}]"
        if not isinstance(conflict, dict) or not conflict.get("name"):
            problems.append(f"{at}.name: Required value: name is required")
            continue
        if conflict["name"] in names:
            problems.append(f'{at}.name: Duplicate value: "{conflict["name"]}"')
        names.add(conflict["name"])
        sets = conflict.get("sets") or []
        if len(sets) < 2:
            problems.append(f"{at}.sets: Invalid value: at least 2 sets are required")
        if not conflict.get("description"):
            problems.append(f"{at}.description: Required value: description is required")
    return problems


def check_conflictingmarkers(ctx: Context) -> None:
    """No field carries markers of two sets the settings say exclude each other."""
    _check_conflicts(ctx, ctx.options["conflicts"])


DEFAULT_OR_REQUIRED = {
    "name": "default_or_required",
    "sets": [["default", "kubebuilder:default"], ["required", "kubebuilder:validation:Required", "k8s:required"]],
    "description": "A field with a default value cannot be required. A required field must be provided by the user, "
    "so a default value is not meaningful.",
}


def check_defaultorrequired(ctx: Context) -> None:
    """A required field has no default: the user always sets it."""
    _check_conflicts(ctx, [DEFAULT_OR_REQUIRED])


# -- dependenttags ---------------------------------------------------------------------------


def dependent_identifiers(options: dict[str, Any]) -> frozenset[str]:
    found: set[str] = set()
    for rule in options.get("rules") or []:
        if isinstance(rule, dict):
            found.add(rule.get("identifier", ""))
            found.update(rule.get("dependsOn") or [])
    return frozenset(found - {""})


def validate_dependencies(options: dict[str, Any], where: str) -> list[str]:
    problems = []
    for index, rule in enumerate(options.get("rules") or []):
        at = f"{where}.rules[{index}]"
        if not isinstance(rule, dict) or not rule.get("identifier"):
            problems.append(f"{at}.identifier: Required value: identifier is required")
            continue
        if not rule.get("dependsOn"):
            problems.append(f"{at}.dependsOn: Required value: dependsOn is required")
        if rule.get("type", "All") not in ("All", "Any"):
            problems.append(f'{at}.type: Unsupported value: "{rule.get("type")}": supported values: "All", "Any"')
    return problems


def check_dependenttags(ctx: Context) -> None:
    """A field with the identifier marker also has all (or any) of the markers it depends on."""
    for f in ctx.fields():
        if not f.decl.doc.lines:
            continue
        markers = with_type_markers(ctx.world, f)
        for rule in ctx.options["rules"]:
            if not markers.has(rule["identifier"]):
                continue
            depends = list(rule["dependsOn"])
            if rule.get("type", "All") == "Any":
                if not any(markers.has(d) for d in depends):
                    wanted = ", ".join(f"+{d}" for d in depends)
                    ctx.report_field(f, f"field {f.qualified_name} with marker +{rule['identifier']} requires at least one "
                                        f"of the following markers, but none were found: {wanted}")  # fmt: skip
            else:
                missing = [f"+{d}" for d in depends if not markers.has(d)]
                if missing:
                    ctx.report_field(f, f"field {f.qualified_name} with marker +{rule['identifier']} is missing required "
                                        f"marker(s): {', '.join(missing)}")  # fmt: skip


# -- duplicatemarkers ------------------------------------------------------------------------


def _duplicates(markers: MarkerSet) -> list[Marker]:
    seen: list[Marker] = []
    repeated = []
    for marker in markers:
        if any(s.identifier == marker.identifier and s.same_value(marker) for s in seen):
            repeated.append(marker)
        else:
            seen.append(marker)
    return repeated


def check_duplicatemarkers(ctx: Context) -> None:
    """No marker written twice with the same value on one type or field (or on both)."""
    for f in ctx.fields():
        if f.embedded:
            continue
        for marker in _duplicates(with_type_markers(ctx.world, f)):
            ctx.report_field(f, f"{f.qualified_name} has duplicated markers {marker}",
                             fix(f"Remove duplicated marker {marker}", _remove(ctx, marker, f.file)))  # fmt: skip
    for t in ctx.types():
        for marker in _duplicates(t.markers):
            ctx.report_type(t, f"{t.name} has duplicated markers {marker}",
                            fix(f"Remove duplicated marker {marker}", _remove(ctx, marker, t.file)))  # fmt: skip


# -- uniquemarkers ---------------------------------------------------------------------------

UNIQUE_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("default", ()),
    ("kubebuilder:default", ()),
    ("kubebuilder:example", ()),
    *(
        (f"kubebuilder:validation:{items}{name}", ())
        for items in ("", "items:")
        for name in ("Enum", "ExclusiveMaximum", "ExclusiveMinimum", "Format", "MaxItems", "MaxLength",
                     "MaxProperties", "Maximum", "MinItems", "MinLength", "MinProperties", "Minimum", "MultipleOf",
                     "Pattern", "Type", "UniqueItems")  # fmt: skip
    ),
    ("kubebuilder:validation:XValidation", ("rule",)),
    ("kubebuilder:validation:items:XValidation", ("rule",)),
    *((f"k8s:{name}", ()) for name in ("format", "minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum",
                                        "listType")),  # fmt: skip
)
"""Markers a type or field may carry once (XValidation once per rule)."""


def unique_identifiers(options: dict[str, Any]) -> frozenset[str]:
    return frozenset(m["identifier"] for m in options.get("customMarkers") or [] if isinstance(m, dict))


def _unique_key(marker: Marker, attributes: tuple[str, ...]) -> str:
    if not attributes:
        return marker.identifier
    args = marker.args
    if marker.style == "k8s":
        parts = [args.get(a, "") if a == "" else f"{a}: {args.get(a, '')}" for a in attributes]
        return f"{marker.identifier}({','.join(parts)})"
    return f"{marker.identifier}:" + ",".join(f"{a}={args.get(a, '')}" for a in attributes)


def _not_unique(markers: MarkerSet, unique: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    repeated = []
    for identifier, attributes in unique:
        seen: set[str] = set()
        for marker in markers.get(identifier):
            key = _unique_key(marker, attributes)
            if key in seen:
                repeated.append(key)
            seen.add(key)
    return repeated


def check_uniquemarkers(ctx: Context) -> None:
    """Markers that hold one value (MaxLength, default, Enum...) are written once."""
    unique = list(UNIQUE_MARKERS) + [
        (m["identifier"], tuple(m.get("attributes") or ())) for m in ctx.options["customMarkers"]
    ]
    for f in ctx.fields():
        if f.embedded:
            continue
        for key in _not_unique(with_type_markers(ctx.world, f), unique):
            ctx.report_field(f, f"field {f.qualified_name} has multiple definitions of marker {key} when only a single "
                                "definition should exist")  # fmt: skip
    for t in ctx.types():
        for key in _not_unique(t.markers, unique):
            ctx.report_type(t, f"type {t.name} has multiple definitions of marker {key} when only a single definition "
                               "should exist")  # fmt: skip


# -- preferredmarkers ------------------------------------------------------------------------


def preferred_identifiers(options: dict[str, Any]) -> frozenset[str]:
    return frozenset(
        e["identifier"]
        for m in options.get("markers") or []
        if isinstance(m, dict)
        for e in m.get("equivalentIdentifiers") or []
        if isinstance(e, dict) and "identifier" in e
    )


def _replacement(marker: Marker, preferred: str) -> str:
    args = marker.args
    if preferred.startswith("k8s:"):
        text = "// +" + preferred
        if args:
            text += "(" + ", ".join(args[k] if k == "" else f"{k}: {args[k]}" for k in sorted(args)) + ")"
        if marker.payload:
            text += "=" + marker.payload
        elif marker.payload_marker is not None:
            text += "=" + _replacement(marker.payload_marker, marker.payload_marker.identifier).removeprefix("// +")
        return text
    text = "// +" + preferred
    if args:
        return text + ":" + ",".join(f"{k}={args[k]}" for k in sorted(args))
    return text + (f"={marker.payload}" if marker.payload else "")


def _check_preferred(ctx: Context, markers: MarkerSet, name: str, kind: str, file: LintFile, report) -> None:
    groups: dict[str, list[Marker]] = {}
    for entry in ctx.options["markers"]:
        for equivalent in entry.get("equivalentIdentifiers") or []:
            groups.setdefault(entry["preferredIdentifier"], []).extend(markers.get(equivalent["identifier"]))
    messages = {e["preferredIdentifier"]: e.get("message", "") for e in ctx.options["markers"]}
    for preferred in sorted(groups):
        found = sorted(groups[preferred], key=lambda m: (m.path, m.line))
        if not found:
            continue
        exists = markers.has(preferred)
        listed = ", ".join(sorted(f'"{m.identifier}"' for m in found))
        message = (f"{kind} {name} uses {'markers' if len(found) > 1 else 'marker'} {listed}, should use preferred "
                   f'marker "{preferred}" instead')  # fmt: skip
        if messages.get(preferred):
            message += f": {messages[preferred]}"
        edits = []
        rest = found
        if not exists:
            edits.append(replace_marker(found[0], _file_of(ctx, found[0], file), _replacement(found[0], preferred)))
            rest = found[1:]
        edits.extend(_remove(ctx, m, file) for m in rest)
        report(message, fix("remove equivalent markers" if exists else f'replace with "{preferred}"', *edits))


def check_preferredmarkers(ctx: Context) -> None:
    """Equivalent markers are written the one preferred way (`+k8s:optional`, not `+kubebuilder:validation:Optional`)."""
    for f in ctx.fields():
        if f.embedded:
            continue
        _check_preferred(ctx, f.markers, f.qualified_name, "field", f.file,
                         lambda message, edit_fix, f=f: ctx.report_field(f, message, edit_fix))  # fmt: skip
    for t in ctx.types():
        _check_preferred(ctx, t.markers, t.name, "type", t.file,
                         lambda message, edit_fix, t=t: ctx.report_type(t, message, edit_fix))  # fmt: skip
