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

from functools import lru_cache

import black

LINE_LENGTH = 88
_MODE = black.Mode(target_versions={black.TargetVersion.PY311}, line_length=LINE_LENGTH)


def format_known_shape(source: str) -> str | None:
    """black's formatting of `source`, or None when only black itself can tell."""
    if not source.isascii() or "\t" in source or "\\\n" in source or '\\"' in source or "\r" in source:
        return None
    lines = source.split("\n")
    out: list[str] = []
    in_string = False
    depth = 0  # open brackets before this line: a line inside brackets is no statement of its own
    for line in lines:
        if line != line.rstrip():
            return None
        quotes = line.count('"""')
        if in_string:
            out.append(line)  # inside a triple-quoted string: content, never reformatted
            in_string = quotes % 2 == 0
            continue
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
        if not quotes and not line_depth and _is_def_header(line):
            formatted = _format_statement(line + "\n" + " " * (len(line) - len(line.lstrip(" ")) + 4) + "pass")
            if formatted is None:
                return None
            out.extend(formatted[:-1])  # black lays out a header the same whatever the body
            continue
        if quotes or line_depth or not _is_simple_statement(line):
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


def _is_simple_statement(line: str) -> bool:
    """One whole logical line: balanced brackets, no string tricks, not a block header."""
    stripped = line.strip()
    if stripped.endswith(":") or stripped.startswith(("#", "@")) or "#" in stripped or "'" in stripped:
        return False
    return _bracket_balance(stripped) == 0 and stripped.count('"') % 2 == 0


def _is_def_header(line: str) -> bool:
    """A whole `def ...:` line: balanced brackets, no comments or single quotes."""
    stripped = line.strip()
    if not stripped.startswith("def ") or not stripped.endswith(":") or "#" in stripped or "'" in stripped:
        return False
    return _bracket_balance(stripped) == 0 and stripped.count('"') % 2 == 0


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
