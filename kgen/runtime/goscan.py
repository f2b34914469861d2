"""Go's encoding/json scanner: the syntax error Go reports for text that is not JSON.

Go checks a whole document before it decodes any of it, so a request body that is not
JSON is answered with the scanner's message: `invalid character 'x' looking for
beginning of value`, `invalid character '}' after object key`, `unexpected end of JSON
input`. `syntax_error` runs the same state machine over the bytes (Go's scanner reads
bytes, so any byte at or above 0x80 is allowed inside a string).
"""

from __future__ import annotations

from collections.abc import Callable

from kgen.runtime.validation.field import go_quote

_SPACE = frozenset(b" \t\r\n")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_DIGITS = frozenset(b"0123456789")
_MAX_DEPTH = 10_000
_OBJECT_KEY, _OBJECT_VALUE, _ARRAY_VALUE = range(3)


class _Syntax(Exception):
    def __init__(self, message: str):
        self.message = message


def _quote_char(byte: int) -> str:
    """Go's quoteChar: the byte as a rune, in single quotes."""
    if byte == 0x27:
        return "'\\''"
    if byte == 0x22:
        return "'\"'"
    return "'" + go_quote(chr(byte))[1:-1] + "'"


def _invalid(byte: int, context: str) -> _Syntax:
    return _Syntax(f"invalid character {_quote_char(byte)} {context}")


class _Scanner:
    """Go's scanner: `step` is the state that reads the next byte (each method is one of
    Go's states, named after it); `stack` holds the objects and arrays being read."""

    def __init__(self) -> None:
        self.step: Callable[[int], None] = self.begin_value
        self.stack: list[int] = []
        self.end_top = False

    def push(self, byte: int, state: int) -> None:
        self.stack.append(state)
        if len(self.stack) > _MAX_DEPTH:
            raise _invalid(byte, "exceeded max depth")

    def pop(self) -> None:
        self.stack.pop()
        if not self.stack:
            self.step, self.end_top = self.end_top_state, True
        else:
            self.step = self.end_value

    def begin_value_or_empty(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == 0x5D:  # ]
            self.end_value(c)
        else:
            self.begin_value(c)

    def begin_value(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == 0x7B:  # {
            self.step = self.begin_string_or_empty
            self.push(c, _OBJECT_KEY)
        elif c == 0x5B:  # [
            self.step = self.begin_value_or_empty
            self.push(c, _ARRAY_VALUE)
        elif c == 0x22:
            self.step = self.in_string
        elif c == 0x2D:  # -
            self.step = self.negative
        elif c == 0x30:
            self.step = self.zero
        elif 0x31 <= c <= 0x39:
            self.step = self.digits
        elif c in (0x74, 0x66, 0x6E):  # t f n
            self.step = self.literal(
                {0x74: b"rue", 0x66: b"alse", 0x6E: b"ull"}[c], {0x74: "true", 0x66: "false", 0x6E: "null"}[c]
            )
        else:
            raise _invalid(c, "looking for beginning of value")

    def begin_string_or_empty(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == 0x7D:  # }
            self.stack[-1] = _OBJECT_VALUE
            self.end_value(c)
        else:
            self.begin_string(c)

    def begin_string(self, c: int) -> None:
        if c in _SPACE:
            return
        if c != 0x22:
            raise _invalid(c, "looking for beginning of object key string")
        self.step = self.in_string

    def end_value(self, c: int) -> None:
        if not self.stack:
            self.step, self.end_top = self.end_top_state, True
            self.end_top_state(c)
            return
        if c in _SPACE:
            self.step = self.end_value
            return
        state = self.stack[-1]
        if state == _OBJECT_KEY:
            if c != 0x3A:  # :
                raise _invalid(c, "after object key")
            self.stack[-1], self.step = _OBJECT_VALUE, self.begin_value
        elif state == _OBJECT_VALUE:
            if c == 0x2C:  # ,
                self.stack[-1], self.step = _OBJECT_KEY, self.begin_string
            elif c == 0x7D:
                self.pop()
            else:
                raise _invalid(c, "after object key:value pair")
        elif c == 0x2C:
            self.step = self.begin_value
        elif c == 0x5D:
            self.pop()
        else:
            raise _invalid(c, "after array element")

    def end_top_state(self, c: int) -> None:
        if c not in _SPACE:
            raise _invalid(c, "after top-level value")

    def in_string(self, c: int) -> None:
        if c == 0x22:
            self.step = self.end_value
        elif c == 0x5C:  # backslash
            self.step = self.in_escape
        elif c < 0x20:
            raise _invalid(c, "in string literal")

    def in_escape(self, c: int) -> None:
        if c in b'bfnrt\\/"':
            self.step = self.in_string
        elif c == 0x75:  # u
            self.step = self.hex_digits(4)
        else:
            raise _invalid(c, "in string escape code")

    def hex_digits(self, left: int) -> Callable[[int], None]:
        def step(c: int) -> None:
            if c not in _HEX:
                raise _invalid(c, "in \\u hexadecimal character escape")
            self.step = self.hex_digits(left - 1) if left > 1 else self.in_string

        return step

    def negative(self, c: int) -> None:
        if c == 0x30:
            self.step = self.zero
        elif 0x31 <= c <= 0x39:
            self.step = self.digits
        else:
            raise _invalid(c, "in numeric literal")

    def digits(self, c: int) -> None:
        if c in _DIGITS:
            return
        self.zero(c)

    def zero(self, c: int) -> None:
        if c == 0x2E:  # .
            self.step = self.dot
        elif c in (0x65, 0x45):  # e E
            self.step = self.exponent
        else:
            self.end_value(c)

    def dot(self, c: int) -> None:
        if c not in _DIGITS:
            raise _invalid(c, "after decimal point in numeric literal")
        self.step = self.fraction

    def fraction(self, c: int) -> None:
        if c in _DIGITS:
            return
        if c in (0x65, 0x45):
            self.step = self.exponent
        else:
            self.end_value(c)

    def exponent(self, c: int) -> None:
        if c in (0x2B, 0x2D):  # + -
            self.step = self.exponent_sign
        else:
            self.exponent_sign(c)

    def exponent_sign(self, c: int) -> None:
        if c not in _DIGITS:
            raise _invalid(c, "in exponent of numeric literal")
        self.step = self.exponent_digits

    def exponent_digits(self, c: int) -> None:
        if c in _DIGITS:
            return
        self.end_value(c)

    def literal(self, rest: bytes, word: str) -> Callable[[int], None]:
        def step(c: int) -> None:
            if c != rest[0]:
                raise _invalid(c, f"in literal {word} (expecting {_quote_char(rest[0])})")
            self.step = self.literal(rest[1:], word) if len(rest) > 1 else self.end_value

        return step


def syntax_error(data: bytes) -> str | None:
    """Go's message for `data` when it is not one JSON value (None when it is)."""
    scanner = _Scanner()
    try:
        for byte in data:
            scanner.step(byte)
            if scanner.end_top and scanner.step == scanner.end_top_state:
                continue
        if not scanner.end_top:
            scanner.step(0x20)  # Go's eof(): a space ends a number at the end of the text
    except _Syntax as error:
        return error.message
    return None if scanner.end_top else "unexpected end of JSON input"
