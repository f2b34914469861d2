"""Rules about field names: namingconventions (configured conventions), and the conventions
built on it: nophase, notimestamp, noreferences.

A convention has a name, a regular expression (Go's syntax, RE2) matching text of the Go
field name or its JSON name that breaks it, a message and an operation: `Inform` (report),
`Drop` (the fix removes the matched text), `DropField` (the fix removes the field) or
`Replacement` (the fix replaces the matched text with `replacement`, where `$1` names a group).
"""

from __future__ import annotations

import re
from typing import Any

from kgen.findings import Edit
from kgen.lint.engine import Context, fix, replace
from kgen.lint.model import LintField
from kgen.runtime.validation.regexp import compile_re2

OPERATIONS = ("Inform", "Drop", "DropField", "Replacement")


def validate_conventions(options: dict[str, Any], where: str) -> list[str]:
    """What is wrong with a list of conventions, in kube-api-linter's words."""
    conventions = options.get("conventions") or []
    if not isinstance(conventions, list) or not conventions:
        return [f"{where}.conventions: Required value: at least one naming convention must be specified when the "
                "namingconventions linter is enabled"]  # fmt: skip
    problems: list[str] = []
    seen: set[str] = set()
    for index, convention in enumerate(conventions):
        at = f"{where}.conventions[{index}]"
        if not isinstance(convention, dict):
            problems.append(f"{at}: must be a table of name, violationMatcher, operation, message (and replacement)")
            continue
        unknown = sorted(set(convention) - {"name", "violationMatcher", "operation", "replacement", "message"})
        if unknown:
            problems.append(f"{at}: unknown keys {', '.join(unknown)}")
        name = str(convention.get("name", ""))
        if name in seen:
            problems.append(f'{at}.name: Duplicate value: "{name}"')
            continue
        seen.add(name)
        if not name:
            problems.append(f"{at}.name: Required value: name is required")
        matcher_text = str(convention.get("violationMatcher", ""))
        matcher = None
        if not matcher_text:
            problems.append(f"{at}.violationMatcher: Required value: violationMatcher is required")
        else:
            try:
                matcher = compile_re2(matcher_text)
            except Exception as err:  # noqa: BLE001 - re2 raises its own error type
                problems.append(f"{at}.violationMatcher: Invalid value: {matcher_text!r}: violationMatcher regular "
                                f"expression failed to compile: {err}")  # fmt: skip
        if not convention.get("message"):
            problems.append(f"{at}.message: Required value: message is required")
        operation = convention.get("operation", "")
        if not operation:
            problems.append(f"{at}.operation: Required value: operation is required")
        elif operation not in OPERATIONS:
            problems.append(f'{at}.operation: Invalid value: "{operation}": operation must be one of "Inform", "Drop", '
                            '"DropField", or "Replacement"')  # fmt: skip
        replacement = str(convention.get("replacement", ""))
        if bool(replacement) != (operation == "Replacement"):
            problems.append(f'{at}.replacement: Invalid value: "{replacement}": replacement must be specified when '
                            "operation is 'Replacement' and is forbidden otherwise")  # fmt: skip
        elif replacement and matcher is not None and matcher.search(replacement):
            problems.append(f'{at}.replacement: Invalid value: "{replacement}": replacement must not be matched by '
                            "violationMatcher")  # fmt: skip
    return problems


def go_replace_all(pattern: Any, text: str, template: str) -> str:
    """Go's Regexp.ReplaceAllString: every match replaced by `template`, `$1`/`${name}` expanded."""
    out: list[str] = []
    at = 0
    for match in pattern.finditer(text):
        out.append(text[at : match.start()])
        out.append(_expand(match, template, pattern))
        at = match.end()
    out.append(text[at:])
    return "".join(out)


_TEMPLATE_NAME = re.compile(r"\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+)|(\$))")


def _expand(match: Any, template: str, pattern: Any) -> str:
    def group(found: re.Match[str]) -> str:
        if found.group(3):
            return "$"
        name = found.group(1) or found.group(2)
        index: int | None = int(name) if name.isdigit() else pattern.groupindex.get(name)
        if index is None or index > pattern.groups:
            return ""
        return match.group(index) or ""

    return _TEMPLATE_NAME.sub(group, template)


def check_conventions(ctx: Context, conventions: list[dict[str, Any]]) -> None:
    compiled = [(c, compile_re2(c["violationMatcher"])) for c in conventions]
    for f in ctx.fields():
        if f.embedded:
            continue
        for convention, matcher in compiled:
            if not (matcher.search(f.name) or matcher.search(f.tag.name)):
                continue
            message = f'naming convention "{convention["name"]}": field {f.qualified_name}: {convention["message"]}'
            operation = convention["operation"]
            if operation == "Inform":
                ctx.report_field(f, message)
            elif operation == "DropField":
                ctx.report_field(f, message, fix("remove the field", *_remove_field(f)))
            else:
                replacement = convention.get("replacement", "") if operation == "Replacement" else ""
                edits = _rename(f, matcher, replacement)
                description = (f"replace offending text with {replacement!r}" if replacement
                               else "remove offending text from the field name")  # fmt: skip
                ctx.report_field(f, message, fix(description, *edits) if edits else None)


def _rename(f: LintField, matcher: Any, replacement: str) -> list[Edit]:
    edits = []
    name = go_replace_all(matcher, f.name, replacement)
    if name:
        edits.append(replace(f.file, f.start, f.start + len(f.name.encode()), name))
    new_tag = go_replace_all(matcher, f.tag.name, replacement)
    if new_tag and f.tag.start >= 0 and f.tag.name:
        lowered = new_tag.lower() if len(new_tag) == 1 else new_tag[0].lower() + new_tag[1:]
        edits.append(replace(f.file, f.tag.start, f.tag.end, f.tag.raw.replace(f.tag.name, lowered)))
    return edits


def _remove_field(f: LintField) -> list[Edit]:
    """The field's lines, its doc comment included."""
    first = f.decl.doc.first_line if f.decl.doc.lines else f.line
    last = max(f.line, f.decl.tag_position.line if f.decl.tag_position else f.line)
    start, _ = f.file.line_span(first)
    _, end = f.file.line_span(last)
    return [replace(f.file, start, end, "")]


def check_namingconventions(ctx: Context) -> None:
    """Field names follow the conventions configured in `conventions`."""
    check_conventions(ctx, ctx.options["conventions"])


def check_nophase(ctx: Context) -> None:
    """No `phase` fields: conditions say what a phase says, and can grow."""
    check_conventions(ctx, [{
        "name": "nophase", "violationMatcher": "(?i)phase", "operation": "Inform",
        "message": "phase fields are deprecated and conditions should be preferred, avoid phase like enum fields",
    }])  # fmt: skip


def check_notimestamp(ctx: Context) -> None:
    """A time is `somethingTime`, not `somethingTimestamp`."""
    check_conventions(ctx, [{
        "name": "notimestamp", "violationMatcher": "(?i)timestamp", "operation": "Replacement", "replacement": "Time",
        "message": "prefer use of the term 'time' over 'timestamp'",
    }])  # fmt: skip


NOREFERENCES_POLICIES = ("PreferAbbreviatedReference", "NoReferences")


def check_noreferences(ctx: Context) -> None:
    """Field names say Ref/Refs, not Reference/References (or, strictly, neither)."""
    if ctx.options["policy"] == "NoReferences":
        convention = {
            "name": "no-references", "violationMatcher": "^[Rr]ef(erence)?(s?)([A-Z])|Ref(erence)?(s?)$",
            "operation": "Inform", "message": "field names should not contain reference-related words",
        }  # fmt: skip
    else:
        convention = {
            "name": "reference-to-ref", "violationMatcher": "^[Rr]eference|Reference(s?)$", "operation": "Replacement",
            "replacement": "Ref$1", "message": "field names should use 'Ref' instead of 'Reference'",
        }  # fmt: skip
    check_conventions(ctx, [convention])
