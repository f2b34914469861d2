"""openapi-gen's API rules, which Kubernetes' own groups are held to: names_match (the JSON
name is the Go name, initial letter lower-cased), omitempty_match_case (`omitempty` written
in lower case), list_type_missing (every list has a +listType).

They are read from the IR, exactly as the OpenAPI generator reports them in
`openapi/api-rule-violations.list`; violations the input lists in
`api-rules/violation_exceptions.list` are accepted, as openapi-gen accepts them.
"""

from __future__ import annotations

from kgen.generators import openapi
from kgen.lint.engine import Context, fix, replace
from kgen.lint.model import LintField


def _fields_by_member(ctx: Context) -> dict[tuple[str, str, str], LintField]:
    found = {}
    for package in ctx.world.linted_packages():
        for struct in package.structs:
            if struct.name:
                for f in struct.fields:
                    if f.decl.names:
                        found[(package.import_path, struct.name, f.decl.names[0])] = f
    return found


def _check(ctx: Context, rule: str) -> None:
    universe = ctx.world.universe
    if universe is None:
        return
    accepted = {line.removeprefix(openapi.VIOLATION) for line in universe.api_rule_exceptions or ()}
    fields = _fields_by_member(ctx)
    files = {f.path: f for p in ctx.world.linted_packages() for f in p.files}
    for text, where in openapi.violations(universe):
        name, package, type_name, member = text.removeprefix(openapi.VIOLATION).split(",")
        if name != rule or text.removeprefix(openapi.VIOLATION) in accepted or package not in ctx.world.linted:
            continue
        message = f"{text}: {openapi._advice(rule)}"
        lint_field = fields.get((package, type_name, member))
        if lint_field is not None:
            ctx.report_field(lint_field, message, _fix(lint_field, rule))
            continue
        lint_file = files.get(where.path)
        if lint_file is not None:
            ctx.report(lint_file, where.line, where.col, message, f"{type_name}.{member}")


def _fix(f: LintField, rule: str):
    tag = f.tag
    if rule != "omitempty_match_case" or tag.start < 0:
        return None
    parts = tag.raw.split(",")
    fixed = ",".join([parts[0], *("omitempty" if p.lower() == "omitempty" else p for p in parts[1:])])
    return fix("write omitempty in lower case", replace(f.file, tag.start, tag.end, fixed))


def check_names_match(ctx: Context) -> None:
    """openapi-gen's names_match: the JSON name is the Go name with its first letter (or acronym) lower-cased."""
    _check(ctx, "names_match")


def check_omitempty_match_case(ctx: Context) -> None:
    """openapi-gen's omitempty_match_case: `omitempty` in lower case (encoding/json ignores other spellings)."""
    _check(ctx, "omitempty_match_case")


def check_list_type_missing(ctx: Context) -> None:
    """openapi-gen's list_type_missing: every list says how it merges (+listType)."""
    _check(ctx, "list_type_missing")
