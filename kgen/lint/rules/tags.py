"""Rules about how a field is written: jsontags (every field has a camelCase json tag) and
commentstart (its doc comment starts with its JSON name)."""

from __future__ import annotations

from kgen.lint.engine import Context, fix, replace
from kgen.runtime.validation.field import go_quote
from kgen.runtime.validation.regexp import compile_re2

CAMEL_CASE = "^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$"
FIELD_NAME_MATCH = ("SuggestFix", "Warn", "Ignore")


def validate_jsontags(options: dict, where: str) -> list[str]:
    try:
        compile_re2(options.get("jsonTagRegex") or CAMEL_CASE)
    except Exception as err:  # noqa: BLE001 - re2 raises its own error type
        return [f"{where}.jsonTagRegex: Invalid value: {options.get('jsonTagRegex')!r}: invalid regex: {err}"]
    return []


def check_jsontags(ctx: Context) -> None:
    """Every field has a json tag, camelCase (the serialized name users write)."""
    pattern_text = ctx.options["jsonTagRegex"] or CAMEL_CASE
    pattern = compile_re2(pattern_text)
    policy = ctx.options["fieldNameMatch"]
    for f in ctx.fields(include_lists=True):
        prefix = f"embedded field {f.qualified_name}" if f.embedded else f"field {f.qualified_name}"
        tag = f.tag
        if tag.missing:
            ctx.report_field(f, f"{prefix} is missing json tag")
            continue
        if tag.inline:
            if not f.embedded:
                ctx.report_field(f, f"{prefix} has inline json tag, but is not embedded")
            continue
        if not tag.name:
            if not f.embedded:
                ctx.report_field(f, f"{prefix} has empty json tag")
            continue
        if not pattern.search(tag.name):
            ctx.report_field(f, f"{prefix} json tag does not match pattern {go_quote(pattern_text)}: {tag.name}")
        if f.embedded or policy == "Ignore" or split_words(f.name) == split_words(tag.name):
            continue
        expected = expected_json_name(f.name)
        message = (
            f"{prefix} json tag should match the camelCase field name {go_quote(expected)}: got {go_quote(tag.name)}"
        )
        edit_fix = None
        if policy == "SuggestFix" and tag.start >= 0:
            edit_fix = fix(f"replace json tag name with {go_quote(expected)}",
                           replace(f.file, tag.start, tag.end, tag.raw.replace(tag.name, expected, 1)))  # fmt: skip
        ctx.report_field(f, message, edit_fix)


def split_words(name: str) -> list[str]:
    """An identifier's words, lower-cased (`requestTTLSeconds` -> request, ttl, seconds;
    a plural acronym stays one word: `URLs` -> urls)."""
    if not name:
        return []
    words: list[str] = []
    start = 0
    for i in range(1, len(name)):
        if _boundary(name, i, start):
            words.append(name[start:i].lower())
            start = i
    words.append(name[start:].lower())
    return [w for w in words if w]


def _boundary(name: str, i: int, start: int) -> bool:
    prev, curr = name[i - 1], name[i]
    if prev.islower() and curr.isupper():
        return True
    if prev.isalpha() and curr.isdigit():
        return True
    if prev.isdigit() and curr.isupper():
        return True
    if prev.isupper() and curr.isupper():
        if i + 1 >= len(name):
            return False
        following = name[i + 1]
        if not following.islower() or i - start <= 1:
            return False
        plural = following == "s" and (i + 2 == len(name) or name[i + 2].isupper())
        return not plural
    return False


def expected_json_name(go_name: str) -> str:
    words = split_words(go_name)
    if not words:
        return ""
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def check_commentstart(ctx: Context) -> None:
    """A field's doc comment starts with its JSON name, the way users see it in YAML."""
    for f in ctx.fields():
        name = f.tag.name
        if not name:
            continue
        if not f.decl.doc.lines:
            ctx.report_field(f, f"field {f.qualified_name} is missing godoc comment")
            continue
        first = f.decl.doc.lines[0]
        text = "//" + first.text
        wanted = f"// {name} "
        if text.startswith(wanted):
            continue
        message = f"godoc for field {f.qualified_name} should start with '{name} ...'"
        line, col = first.position.line, first.position.col
        edit_fix = None
        if text.lower().startswith(wanted.lower()):
            start = f.file.offset(line, col)
            edit_fix = fix(
                f"should replace first word with `{name}`", replace(f.file, start, start + len(wanted.encode()), wanted)
            )
        ctx.report(f.file, line, col, message, f.qualified_name, edit_fix)
