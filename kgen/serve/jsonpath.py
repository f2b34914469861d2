"""The JSONPath of printer columns (`.spec.mode`, `.status.conditions[?(@.type=="Ready")].status`),
evaluated as client-go's jsonpath evaluates a CRD's additionalPrinterColumns.

The subset the API server allows in printer columns: field names (`.a`, `['a.b']`), list
indexes (`[0]`, `[-1]`), slices (`[0:2]`), every item (`[*]`), and filters comparing a
field of each item with a literal (`[?(@.type=="Ready")]`, `==`, `!=`, `<`, `>`, `<=`, `>=`)
or testing that it exists (`[?(@.ready)]`). `find(path, obj)` returns every match, in order.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

_FILTER = re.compile(r"^\?\(\s*@((?:\.[^.\s=!<>]+)*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$")
_SLICE = re.compile(r"^(-?\d*):(-?\d*)$")


class JSONPathError(ValueError):
    """A path outside the supported subset."""


@lru_cache(maxsize=256)
def parse(path: str) -> tuple[tuple[str, Any], ...]:
    """The steps of a path: ("field", name), ("index", n), ("slice", (a, b)), ("all", None),
    ("filter", (fields, operator, literal))."""
    text = path.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if text.startswith("$"):
        text = text[1:]
    steps: list[tuple[str, Any]] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char == ".":
            end = position + 1
            while end < len(text) and text[end] not in ".[":
                end += 1
            name = text[position + 1 : end]
            if not name:
                raise JSONPathError(f"empty field name in {path!r}")
            steps.append(("all", None) if name == "*" else ("field", name))
            position = end
        elif char == "[":
            end = _closing(text, position, path)
            inner = text[position + 1 : end].strip()
            steps.append(_bracket(inner, path))
            position = end + 1
        else:
            raise JSONPathError(f"unexpected {char!r} in {path!r}")
    return tuple(steps)


def _closing(text: str, start: int, path: str) -> int:
    depth, quote = 0, ""
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
    raise JSONPathError(f"unclosed [ in {path!r}")


def _bracket(inner: str, path: str) -> tuple[str, Any]:
    if inner == "*":
        return ("all", None)
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        return ("field", inner[1:-1])
    if re.fullmatch(r"-?\d+", inner):
        return ("index", int(inner))
    sliced = _SLICE.match(inner)
    if sliced:
        start, stop = sliced.groups()
        return ("slice", (int(start) if start else None, int(stop) if stop else None))
    match = _FILTER.match(inner)
    if match:
        fields = tuple(f for f in match.group(1).split(".") if f)
        literal = _literal(match.group(3)) if match.group(3) is not None else None
        return ("filter", (fields, match.group(2), literal))
    raise JSONPathError(f"unsupported expression [{inner}] in {path!r}")


def _literal(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    try:
        return json.loads(text)
    except ValueError:
        return text


def _compare(value: Any, operator: str, literal: Any) -> bool:
    if operator == "==":
        return bool(value == literal)
    if operator == "!=":
        return bool(value != literal)
    try:
        if operator == "<":
            return bool(value < literal)
        if operator == ">":
            return bool(value > literal)
        if operator == "<=":
            return bool(value <= literal)
        return bool(value >= literal)
    except TypeError:
        return False


_MISSING = object()


def _get(value: Any, fields: tuple[str, ...]) -> Any:
    for name in fields:
        if not isinstance(value, dict) or name not in value:
            return _MISSING
        value = value[name]
    return value


def find(path: str, obj: Any) -> list[Any]:
    """Every value `path` selects in `obj` (JSON data), in order; [] when none."""
    current = [obj]
    for kind, argument in parse(path):
        following: list[Any] = []
        for value in current:
            if kind == "field":
                if isinstance(value, dict) and argument in value:
                    following.append(value[argument])
            elif kind == "index":
                if isinstance(value, list) and -len(value) <= argument < len(value):
                    following.append(value[argument])
            elif kind == "slice":
                if isinstance(value, list):
                    following.extend(value[argument[0] : argument[1]])
            elif kind == "all":
                if isinstance(value, list):
                    following.extend(value)
                elif isinstance(value, dict):
                    following.extend(value.values())
            else:
                fields, operator, literal = argument
                items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
                for item in items:
                    found = _get(item, fields)
                    if found is _MISSING:
                        continue
                    if operator is None or _compare(found, operator, literal):
                        following.append(item)
        current = following
    return current


def text(value: Any) -> str:
    """A value as jsonpath prints it: strings as they are, everything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
