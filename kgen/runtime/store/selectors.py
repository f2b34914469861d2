"""Label and field selectors, parsed and matched as apimachinery's `labels` and `fields` do.

Label selectors (`labels.Parse`): requirements joined by commas, each `key`, `!key`,
`key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key>1` or
`key<1`; keys and values are validated as label keys and values. `!=` and `notin` match
objects without the label, as upstream.

Field selectors (`fields.ParseSelector`): terms `field=value`, `field==value` and
`field!=value` joined by commas, with `\\,`, `\\=` and `\\\\` escapes in values.

Errors are `SelectorError` (a ValueError) with apimachinery's message; the engine answers
them with 400 BadRequest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kgen.runtime.validation.content import is_label_key, is_label_value
from kgen.runtime.validation.field import go_quote


class SelectorError(ValueError):
    """A selector that does not parse or validate."""


_BINARY_OPERATORS = ("in", "notin", "=", "==", "!=", "gt", "lt")
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_TOKENS = {")": "close", ",": "comma", "!": "not", "==": "==", "=": "=", ">": "gt", "in": "in", "<": "lt"}
_TOKENS.update({"!=": "!=", "notin": "notin", "(": "open"})


@dataclass(frozen=True, slots=True)
class Requirement:
    """One label requirement: `key`, an operator (`in`, `notin`, `=`, `==`, `!=`, `exists`,
    `!`, `gt`, `lt`) and its values (sorted, without duplicates)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether an object with `labels` satisfies the requirement."""
        op = self.operator
        if op in ("in", "=", "=="):
            return self.key in labels and labels[self.key] in self.values
        if op in ("notin", "!="):
            return self.key not in labels or labels[self.key] not in self.values
        if op == "exists":
            return self.key in labels
        if op == "!":
            return self.key not in labels
        if self.key not in labels:
            return False
        try:
            have, want = int(labels[self.key]), int(self.values[0])
        except ValueError:
            return False
        return have > want if op == "gt" else have < want


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """Requirements that must all hold; the empty selector matches everything."""

    requirements: tuple[Requirement, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the selector selects everything."""
        return not self.requirements

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether an object with `labels` (None: no labels) is selected."""
        labels = labels or {}
        return all(r.matches(labels) for r in self.requirements)


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """Terms `(field, operator, value)` with operator `=` or `!=`, all of which must hold."""

    terms: tuple[tuple[str, str, str], ...] = ()

    @property
    def empty(self) -> bool:
        """True when the selector selects everything."""
        return not self.terms

    @property
    def fields(self) -> tuple[str, ...]:
        """The field labels the selector reads."""
        return tuple(field for field, _, _ in self.terms)

    def matches(self, fields: Mapping[str, str]) -> bool:
        """Whether an object with these field values is selected (a missing field is "")."""
        for field, op, value in self.terms:
            if (fields.get(field, "") == value) != (op == "="):
                return False
        return True

    def requires_exact_match(self, field: str) -> str | None:
        """The value `field` must equal, when the selector pins it (`metadata.namespace=x`)."""
        for name, op, value in self.terms:
            if name == field and op == "=":
                return value
        return None


# -- label selectors -------------------------------------------------------------------------


def _lex(text: str) -> list[tuple[str, str]]:
    """The tokens of a label selector as (token, literal), ending with ("end", "")."""
    items: list[tuple[str, str]] = []
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= size:
            items.append(("end", ""))
            return items
        if text[pos] in _SPECIAL:
            # The longest run of special characters that is an operator (`!=`, `==`, ...).
            buffer, last = "", None
            while pos < size and text[pos] in _SPECIAL:
                buffer += text[pos]
                if buffer in _TOKENS:
                    last = (_TOKENS[buffer], buffer)
                elif last is not None:
                    break
                pos += 1
            if last is None:
                items.append(("error", f"error expected: keyword found '{buffer}'"))
            else:
                items.append(last)
            continue
        start = pos
        while pos < size and text[pos] not in _SPECIAL and text[pos] not in _WHITESPACE:
            pos += 1
        word = text[start:pos]
        items.append((_TOKENS[word], word) if word in ("in", "notin") else ("id", word))


class _LabelParser:
    def __init__(self, text: str):
        self.items = _lex(text)
        self.position = 0

    def lookahead(self, values: bool = True) -> tuple[str, str]:
        token, literal = self.items[self.position]
        if values and token in ("in", "notin"):
            token = "id"  # `in` and `notin` are plain values where a value is expected
        return token, literal

    def consume(self, values: bool = True) -> tuple[str, str]:
        item = self.lookahead(values)
        self.position += 1
        return item

    def parse(self) -> tuple[Requirement, ...]:
        requirements: list[Requirement] = []
        while True:
            token, literal = self.lookahead()
            if token in ("id", "not"):
                try:
                    requirements.append(self.requirement())
                except SelectorError as error:
                    raise SelectorError(f"unable to parse requirement: {error}") from None
                token, literal = self.consume()
                if token == "end":
                    break
                if token != "comma":
                    raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
                next_token, next_literal = self.lookahead()
                if next_token not in ("id", "not"):
                    raise SelectorError(f"found '{next_literal}', expected: identifier after ','")
            elif token == "end":
                break
            else:
                raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")
        return tuple(sorted(requirements, key=lambda r: r.key))

    def requirement(self) -> Requirement:
        operator = ""
        token, literal = self.consume()
        if token == "not":
            operator = "!"
            token, literal = self.consume()
        if token != "id":
            raise SelectorError(f"found '{literal}', expected: identifier")
        key = literal
        problems = is_label_key(key)
        if problems:
            raise SelectorError(f"<nil>: Invalid value: {go_quote(key)}: {'; '.join(problems)}")
        if operator == "!" or self.lookahead()[0] in ("end", "comma"):
            # `!key` is complete by itself: what follows must be `,` or the end (checked above).
            return _requirement(key, operator or "exists", [])
        token, literal = self.consume(values=False)
        if token not in _BINARY_OPERATORS:
            raise SelectorError(f"found '{literal}', expected: {', '.join(_BINARY_OPERATORS)}")
        values = self.value_set() if token in ("in", "notin") else self.exact_value()
        return _requirement(key, token, sorted(set(values)))

    def value_set(self) -> list[str]:
        token, literal = self.consume()
        if token != "open":
            raise SelectorError(f"found '{literal}' expected: '('")
        token, literal = self.lookahead()
        if token == "close":
            self.consume()
            return [""]
        if token not in ("id", "comma"):
            raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self.identifiers()
        if self.consume()[0] != "close":
            raise SelectorError(f"found '{literal}', expected: ')'")
        return values

    def identifiers(self) -> list[str]:
        values: list[str] = []
        while True:
            token, literal = self.consume()
            if token == "id":
                values.append(literal)
                next_token, next_literal = self.lookahead()
                if next_token == "comma":
                    continue
                if next_token == "close":
                    return values
                raise SelectorError(f"found '{next_literal}', expected: ',' or ')'")
            if token == "comma":
                if not values:
                    values.append("")  # `(,a)`
                next_token, _ = self.lookahead()
                if next_token in ("close", "comma"):
                    values.append("")  # `(a,)` and `(a,,b)`
                    if next_token == "close":
                        return values
                continue
            raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> list[str]:
        token, _ = self.lookahead()
        if token in ("end", "comma"):
            return [""]
        token, literal = self.consume()
        if token == "id":
            return [literal]
        raise SelectorError(f"found '{literal}', expected: identifier")


def _requirement(key: str, operator: str, values: list[str]) -> Requirement:
    """labels.NewRequirement's checks of the values."""
    errors: list[str] = []
    if operator in ("in", "notin") and not values:
        errors.append("values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty")
    if operator in ("gt", "lt"):
        for index, value in enumerate(values):
            try:
                int(value)
            except ValueError:
                errors.append(
                    f"values[{index}]: Invalid value: {go_quote(value)}: "
                    "for 'Gt', 'Lt' operators, the value must be an integer"
                )
    for index, value in enumerate(values):
        problems = is_label_value(value)
        if problems:
            errors.append(f"values[{index}][{key}]: Invalid value: {go_quote(value)}: {'; '.join(problems)}")
    if errors:
        raise SelectorError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
    return Requirement(key, operator, tuple(values))


def parse_label_selector(text: str) -> LabelSelector:
    """Parse a label selector (`app=web,tier in (a,b),!legacy`); "" selects everything."""
    if not text:
        return LabelSelector()
    return LabelSelector(_LabelParser(text).parse())


# -- field selectors -------------------------------------------------------------------------


def _split_terms(text: str) -> list[str]:
    terms, start, escaped = [], 0, False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            terms.append(text[start:index])
            start = index + 1
    terms.append(text[start:])
    return terms


def _unescape(value: str) -> str:
    if not any(c in value for c in "\\,="):
        return value
    out, escaped = [], False
    for char in value:
        if escaped:
            if char not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{char}")
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(char)}")
        else:
            out.append(char)
    if escaped:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def parse_field_selector(text: str) -> FieldSelector:
    """Parse a field selector (`metadata.name=x,status.phase!=Done`); "" selects everything."""
    if not text:
        return FieldSelector()
    terms: list[tuple[str, str, str]] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        for index in range(len(part)):
            rest = part[index:]
            operator = next((op for op in ("!=", "==", "=") if rest.startswith(op)), None)
            if operator is not None:
                field, value = part[:index], part[index + len(operator) :]
                terms.append((field, "!=" if operator == "!=" else "=", _unescape(value)))
                break
        else:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
    return FieldSelector(tuple(terms))
