"""Regular expressions as the API server runs them: Go's `regexp`, which is RE2.

A `Pattern` marker and CEL's `matches`, `find` and `findAll` are RE2 expressions, matched
in time linear in the input, with Go's syntax and meaning: `\\d` and `\\b` are ASCII,
`$` is the end of the text, no backreferences or lookaround. Python's `re` reads many of
them differently and can backtrack for minutes (`^([a-z0-9]+-?)*[a-z0-9]$` on 28 letters
and a `!`), so every one of them runs on RE2 (google-re2) here.
"""

from __future__ import annotations

import functools
from typing import Any

import re2  # type: ignore[import-untyped, unused-ignore]  # google-re2 ships no type information

__all__ = ["Pattern", "RegexpError", "compile_re2", "find", "find_all", "matches", "syntax_problem"]


class RegexpError(ValueError):
    """An expression Go's regexp package does not compile."""


def _options(capture: bool) -> Any:
    options = re2.Options()
    options.log_errors = False
    options.never_capture = not capture  # only whole matches are asked for: faster
    return options


def _go_only_problem(expression: str) -> str | None:
    r"""What RE2 reads but Go does not: `\C` (any byte)."""
    i = 0
    while i < len(expression) - 1:
        if expression[i] != "\\":
            i += 1
            continue
        ahead = expression[i + 1]
        if ahead == "Q":  # \Q...\E quotes literally
            end = expression.find("\\E", i + 2)
            if end < 0:
                return None
            i = end + 2
            continue
        if ahead == "C":
            return "invalid escape sequence: \\C"
        i += 2
    return None


@functools.lru_cache(maxsize=2048)
def _compiled(expression: str, capture: bool = False) -> Any:
    problem = _go_only_problem(expression)
    if problem is not None:
        raise RegexpError(problem)
    regexp = re2._re2.RE2(_utf8(expression), _options(capture))
    if not regexp.ok():
        message = regexp.error()
        raise RegexpError(message.decode() if isinstance(message, bytes) else str(message))
    return regexp


def syntax_problem(expression: str) -> str | None:
    """Why Go's regexp package rejects an expression (RE2's words), or None."""
    try:
        _compiled(expression)
    except RegexpError as err:
        return str(err)
    return None


def compile_re2(expression: str) -> Any:
    """The expression compiled by RE2, quietly; raises `re2.error` when RE2 rejects it.

    (The re2 module's own compiled form, for callers that want its API.)"""
    problem = _go_only_problem(expression)
    if problem is not None:
        raise re2.error(problem)
    return re2.compile(expression, _options(True))


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: Go's JSON decoder reads them as U+FFFD
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


_UNANCHORED = re2._Anchor.UNANCHORED
_NO_MATCH = (-1, -1)


def _search(regexp: Any, data: bytes, start: int = 0) -> tuple[int, int]:
    span: tuple[int, int] = regexp.Match(_UNANCHORED, data, start, len(data))[0]
    return span


def matches(text: str, expression: str) -> bool:
    """CEL's `matches` (Go's MatchString): whether the expression matches anywhere in the text."""
    return _search(_compiled(expression), _utf8(text)) != _NO_MATCH


def find(text: str, expression: str) -> str:
    """The Kubernetes `find`: the first match, or the empty string."""
    data = _utf8(text)
    start, end = _search(_compiled(expression), data)
    return "" if start < 0 else data[start:end].decode("utf-8", "replace")


def find_all(text: str, expression: str, limit: int = -1) -> list[str]:
    """The Kubernetes `findAll` (Go's FindAllString): successive non-overlapping matches,
    at most `limit` when it is not negative; an empty match right after a match is skipped."""
    regexp = _compiled(expression)
    data = _utf8(text)
    found: list[str] = []
    wanted = len(data) + 1 if limit < 0 else limit
    position, previous_end = 0, -1
    while len(found) < wanted and position <= len(data):
        start, end = _search(regexp, data, position)
        if start < 0:
            break
        accept = True
        if end == position:  # an empty match: step over one character
            accept = start != previous_end
            position += _char_width(data, position)
        else:
            position = end
        previous_end = end
        if accept:
            found.append(data[start:end].decode("utf-8", "replace"))
    return found


def _char_width(data: bytes, position: int) -> int:
    if position >= len(data):
        return 1
    lead = data[position]
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


class Pattern:
    """A compiled `Pattern`: `search(text)` is true when it matches anywhere, as Go's
    `MatchString` (what the API server and validation-gen run)."""

    __slots__ = ("expression", "_regexp")

    def __init__(self, expression: str):
        self.expression = expression
        try:
            self._regexp = _compiled(expression)
        except RegexpError:
            self._regexp = None  # reported at generation time; an unusable pattern matches nothing

    def search(self, text: str) -> bool:
        if self._regexp is None:
            return False
        return _search(self._regexp, _utf8(text)) != _NO_MATCH

    def __repr__(self) -> str:
        return f"Pattern({self.expression!r})"
