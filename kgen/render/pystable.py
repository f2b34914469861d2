"""Black's output without running black over whole files, where that can be vouched for.

Generators print Python in black's style already (double quotes, black's blank lines,
no magic trailing commas, docstrings laid out as black lays them out), so for most
lines black has nothing to do. What it would change is confined to statements longer
than the line length. `format_known_shape` returns black's output for a module by
formatting only those statements with black itself, one at a time at their own
indentation depth (memoised), and returns None whenever the module has anything this
shortcut cannot vouch for; the caller then runs black over the whole module. The test
suite checks over every corpus it has that the result equals `black.format_str`.
"""

from __future__ import annotations

import re
from functools import lru_cache

import black
from black.strings import char_width

LINE_LENGTH = 88
_MODE = black.Mode(target_versions={black.TargetVersion.PY311}, line_length=LINE_LENGTH)


def format_known_shape(source: str, stub: bool = False) -> str | None:
    """black's formatting of `source`, or None when only black itself can tell. A `stub`
    (`.pyi`) keeps a stub's layout: no empty lines required before a def or class."""
    if "\\\n" in source or '\\"' in source or "\r" in source:
        return None
    if not source.isascii() and not _all_one_column(source):
        return None  # black measures lines in columns: a wide or combining character is not one
    lines = source.split("\n")
    out: list[str] = []
    in_string = False
    depth = 0  # open brackets before this line: a line inside brackets is no statement of its own
    blank = 0  # empty lines just before this one
    for line in lines:
        if line != line.rstrip():
            return None
        if not line:
            blank += 1
            if blank > 2:
                return None
        elif blank == 2 and line[0] == " " and not in_string:
            return None  # black keeps at most one empty line inside a block
        else:
            blank = 0
        quotes = line.count('"""')
        if in_string:
            if "\t" in line and line[: len(line) - len(line.lstrip())].count("\t"):
                return None  # black expands tabs that indent a docstring's lines
            out.append(line)  # inside a triple-quoted string: content, never reformatted
            in_string = quotes % 2 == 0
            continue
        if "\t" in line:
            return None
        quoted = False  # the line's single quotes are all inside double-quoted strings
        if "'" in line and not line.lstrip().startswith('"""'):  # in a docstring it is text
            if quotes:
                return None
            normalized = _double_quoted(line)
            if normalized is None:
                return None
            line, quoted = normalized, True
        if not stub and line.lstrip().startswith(("def ", "async def ", "class ")) and out:
            before = out[-1].strip()
            if before and not before.startswith("@") and not before.endswith(":"):
                return None  # black puts empty lines before a def or class that follows a statement
        if (",)" in line or ",]" in line or ",}" in line) and _has_magic_trailing_comma(line):
            return None  # black explodes those brackets, one item a line
        line_depth = depth
        depth += _bracket_balance(line)
        if quotes % 2 == 1:
            in_string = True
            if len(line) > LINE_LENGTH and line.lstrip().startswith('"""'):
                out.append(line)  # the first line of a long string statement
                continue
        if len(line) <= LINE_LENGTH:
            out.append(line)
            continue
        if not quotes and line_depth and _is_unsplittable_item(line):
            out.append(line)  # one item of exploded brackets, with nothing black could split
            continue
        if not quotes and not line_depth and _is_def_header(line):
            formatted = _format_statement(line + "\n" + " " * (len(line) - len(line.lstrip(" ")) + 4) + "pass")
            if formatted is None:
                return None
            header = formatted[:-1]  # black lays out a header the same whatever the body
            if header and not header[0]:
                # the empty line black puts before a def inside the wrapper's `if _:`: kept
                # only after a statement (in a stub), as black keeps one there
                before = out[-1].strip() if out else ""
                if not before or before.startswith("@") or before.endswith(":"):
                    header = header[1:]
            out.extend(header)
            continue
        if quotes or line_depth or not _is_simple_statement(line, quoted):
            if quotes == 2 and line.lstrip().startswith('"""') and line.endswith('"""'):
                out.append(line)  # a one-line string statement: black cannot split it
                continue
            return None
        formatted = _format_statement(line)
        if formatted is None:
            return None
        out.extend(formatted)
    if in_string:
        return None
    return "\n".join(out)


def _double_quoted(line: str) -> str | None:
    """The line with its single-quoted strings in double quotes, as black prefers them; None
    where that is not plain (a string holding a quote or a backslash, a prefixed string, a
    comment, or a string that does not end on the line)."""
    out: list[str] = []
    index, end = 0, len(line)
    while index < end:
        ch = line[index]
        if ch == '"':
            close = line.find('"', index + 1)  # no quote is escaped: the caller made sure
            if close < 0:
                return None
            out.append(line[index : close + 1])
            index = close + 1
        elif ch == "'":
            close = line.find("'", index + 1)
            if close < 0:
                return None
            text = line[index + 1 : close]
            if '"' in text or "\\" in text or (index and (line[index - 1].isalnum() or line[index - 1] == "_")):
                return None
            out.append(f'"{text}"')
            index = close + 1
        elif ch == "#":
            return None
        else:
            out.append(ch)
            index += 1
    return "".join(out)


#: Words a bracket may follow without being a call's or a subscript's.
_KEYWORDS = frozenset("and or not in is if else elif return yield await assert for while with lambda del raise".split())


def _has_magic_trailing_comma(line: str) -> bool:
    """Whether brackets opened and closed on the line end in a comma black keeps as a sign to
    put one item a line: any but the comma of a one-element tuple `(x,)`."""
    opened: list[tuple[str, bool, int]] = []  # bracket, opens a call or subscript, commas inside
    in_string = False
    previous = ""  # the last character outside strings that is not a space
    for index, ch in enumerate(line):
        if ch == '"' and (not index or line[index - 1] != "\\"):
            in_string = not in_string
            previous = ch
            continue
        if in_string:
            continue
        if ch in "([{":
            word = line[:index].rstrip().rsplit(" ", 1)[-1]
            called = (previous.isalnum() or previous in "_)]") and word not in _KEYWORDS
            opened.append((ch, called, 0))
        elif ch == "," and opened:
            bracket, called, commas = opened[-1]
            opened[-1] = (bracket, called, commas + 1)
        elif ch in ")]}":
            if not opened:
                return True  # closes what an earlier line opened: let black tell
            bracket, called, commas = opened.pop()
            if previous == "," and (bracket != "(" or called or commas > 1):
                return True
        if ch != " ":
            previous = ch
    return False


def _bracket_balance(line: str) -> int:
    """Opened minus closed brackets on a line, outside double-quoted strings."""
    balance = 0
    in_string = False
    previous = ""
    for ch in line:
        if ch == '"' and previous != "\\":
            in_string = not in_string
        elif not in_string:
            if ch in "([{":
                balance += 1
            elif ch in ")]}":
                balance -= 1
        previous = ch
    return balance


def _is_simple_statement(line: str, quoted: bool = False) -> bool:
    """One whole logical line: balanced brackets, no string tricks, not a block header.
    `quoted`: every single quote on the line is inside a double-quoted string."""
    stripped = line.strip()
    if stripped.endswith(":") or stripped.startswith(("#", "@")) or "#" in stripped:
        return False
    if "'" in stripped and not quoted:
        return False
    return _bracket_balance(stripped) == 0 and stripped.count('"') % 2 == 0


def _is_def_header(line: str) -> bool:
    """A whole block header black lays out the same whatever the body (`def`, `async def`,
    `if`, `for`, `while`, `with`): balanced brackets, no comments or single quotes."""
    stripped = line.strip()
    if not stripped.startswith(_HEADERS) or not stripped.endswith(":") or "#" in stripped or "'" in stripped:
        return False
    return _bracket_balance(stripped) == 0 and stripped.count('"') % 2 == 0


_HEADERS = ("def ", "async def ", "if ", "for ", "while ", "with ", "async for ", "async with ")

#: A line inside brackets black keeps as it is however long: one name, or `name=name`, or
#: a dotted name, and the trailing comma of an exploded call or literal.
_UNSPLITTABLE_ITEM = re.compile(r" +[A-Za-z_][\w.]*(=[A-Za-z_][\w.]*)?,")


def _is_unsplittable_item(line: str) -> bool:
    return _UNSPLITTABLE_ITEM.fullmatch(line) is not None


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _all_one_column(source: str) -> bool:
    """Whether every character beyond ASCII in `source` takes one column, as black counts."""
    return all(char_width(ch) == 1 for ch in set(_NON_ASCII.findall(source)))


@lru_cache(maxsize=65536)
def _format_statement(line: str) -> tuple[str, ...] | None:
    """Format one statement with black at its own depth, inside neutral `if` blocks."""
    indent = len(line) - len(line.lstrip(" "))
    if indent % 4:
        return None
    depth = indent // 4
    wrapper = "".join("    " * level + "if _:\n" for level in range(depth))
    try:
        formatted = black.format_str(wrapper + line + "\n", mode=_MODE)
    except black.InvalidInput:
        return None
    result = formatted.split("\n")[depth:]
    if result and result[-1] == "":
        result.pop()
    return tuple(result)
