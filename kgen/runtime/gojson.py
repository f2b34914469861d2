"""JSON exactly as Go's encoding/json writes it.

Compact separators, UTF-8 output, `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's
HTML-safe encoder does, and floats formatted like `strconv.FormatFloat(f, 'f' or 'e', -1)`
with Go's exponent cleanup. Struct field order comes from `to_dict()`; map keys are
sorted there, as Go sorts them.

A float whose Go text neither encoder writes is a `RawNumber` in `to_dict()` output: an
object, never a string, so no string value, whatever it holds, is ever written as raw JSON.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import secrets
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import orjson
import pydantic_core
from pydantic_core import PydanticSerializationError

_TO_JSON = pydantic_core.to_json
_ORJSON = orjson.dumps
_OrjsonError = orjson.JSONEncodeError
_EXACT_INTEGERS = 2.0**53  # below this, an integral float's digits are Go's shortest digits


class RawNumber:
    """A JSON number written into the output as this text (Go's form of a float that
    Python's encoders would write differently, such as `1e-7` or `0.000015`)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def to_json_value(self) -> float:
        """The number as a float (what CEL rules and other readers of `to_dict()` see)."""
        return float(self.text)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RawNumber):
            return self.text == other.text
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"RawNumber({self.text!r})"


def float_value(value: float) -> Any:
    """A float as Go prints it: integral values without '.0', exponents as 1e-7 / 1e+21.

    An int or float when Python's encoders write Go's text for it, else a `RawNumber`."""
    if not math.isfinite(value):
        raise ValueError(f"json: unsupported value: {value!r} (Go cannot encode NaN or infinities)")
    magnitude = abs(value)
    if magnitude == 0 or (1e-6 <= magnitude < 1e21):
        if magnitude < _EXACT_INTEGERS and value.is_integer():
            if value == 0 and math.copysign(1.0, value) < 0:
                return RawNumber("-0")  # Go writes negative zero as -0
            return int(value)
        text = repr(value)
        if value.is_integer():  # Go's shortest digits, padded with zeros: 1.2345678901234568e+20
            return RawNumber(format(Decimal(text).to_integral_value(), "f"))  # -> 123456789012345680000
        if "e" not in text:
            return value
        return RawNumber(format(Decimal(text), "f"))  # 1.5e-05 -> 0.000015
    mantissa, _, exponent = repr(value).partition("e")
    sign = exponent[0] if exponent[0] in "+-" else "+"
    digits = exponent.lstrip("+-").lstrip("0") or "0"
    if sign == "+" and len(digits) < 2:  # Go cleans up e-09 to e-9 but keeps e+21
        digits = "0" + digits
    return RawNumber(f"{mantissa}e{sign}{digits}")


def marshal(value: Any) -> bytes:
    """Encode Python JSON data (as produced by `to_dict()`) as Go does.

    Raises ValueError for NaN, infinities and data nested too deeply to encode, TypeError
    for a value that is not JSON data, UnicodeEncodeError for a lone surrogate."""
    # pydantic-core's encoder writes the same bytes as the standard library's with these
    # settings (compact, UTF-8, the same string escapes, shortest float digits), three times
    # faster. Where they part, the standard library's answer stands: it refuses NaN and
    # infinities (pydantic-core writes bare words) and names what it cannot encode.
    try:
        data = _with_numbers(_to_json_with_fallback, value)
    except PydanticSerializationError:
        return _marshal_text(value)
    if b"NaN" in data or b"Infinity" in data:
        return _marshal_text(value)
    return go_escapes(data)


def marshal_struct(value: Any) -> bytes:
    """`marshal` for what a generated `to_dict()` returns: its floats are finite (each went
    through `float_value`) and its raw JSON holders checked theirs when asked for their
    value, so orjson, which would write NaN as null, writes it, in C and several times
    faster. Whatever orjson refuses (integers beyond 64 bits, a lone surrogate, deep
    nesting, a value that is not JSON data) takes `marshal`'s path, and its errors."""
    try:
        data = _with_numbers(_orjson_with_fallback, value)
    except _OrjsonError:
        return marshal(value)
    return go_escapes(data)


def _orjson_with_fallback(value: Any, fallback: Callable[[Any], Any]) -> bytes:
    return _ORJSON(value, default=fallback)


def _to_json_with_fallback(value: Any, fallback: Callable[[Any], Any]) -> bytes:
    return _TO_JSON(value, fallback=fallback)


def _encode_text(value: Any, fallback: Callable[[Any], Any]) -> bytes:
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=fallback)
    try:
        return encoder.encode(value).encode("utf-8")
    except RecursionError:
        raise ValueError("json: the value is nested too deeply to encode") from None


def _marshal_text(value: Any) -> bytes:
    """`marshal` through the standard library's encoder."""
    return go_escapes(_with_numbers(_encode_text, value))


def _with_numbers(encode: Callable[[Any, Callable[[Any], Any]], bytes], value: Any) -> bytes:
    """Encode `value`, writing each RawNumber's text in its place.

    The encoder writes each number as a quoted marker first. The marker holds a random
    nonce made for this call, and is replaced only if the output holds it exactly as often
    as numbers were written, so text that merely looks like a marker is never replaced: if
    a string held this call's nonce, encoding starts over with another."""
    while True:
        numbers: list[str] = []
        markers: list[str] = []  # made when the first number is met: most data has none

        def number_marker(obj: Any) -> str:
            if type(obj) is RawNumber:
                if not markers:
                    markers.append(f"kgen-number-{secrets.token_hex(12)}")
                numbers.append(obj.text)
                return markers[0]
            raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")

        data = encode(value, number_marker)
        if not numbers:
            return data
        parts = data.split(f'"{markers[0]}"'.encode())
        if len(parts) == len(numbers) + 1:
            out = [parts[0]]
            for text, part in zip(numbers, parts[1:]):
                out.append(text.encode("ascii"))
                out.append(part)
            return b"".join(out)


def go_escapes(data: bytes) -> bytes:
    """Go's HTML-safe escapes (`<`, `>`, `&`, U+2028, U+2029), on encoded JSON."""
    if b"<" in data or b">" in data or b"&" in data:
        data = data.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
    if b"\xe2" in data and b"\xe2\x80" in data:  # U+2028 and U+2029 in UTF-8 start so
        data = data.replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")
    return data


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def unwritable_string(data: Any) -> tuple[tuple[Any, ...], str] | None:
    """The path and text of the first string (or key) in dicts and lists that UTF-8 cannot
    write, or None. Each dict and list is looked at once, however deep or often it occurs."""
    seen: set[int] = set()
    stack: list[tuple[Any, Any]] = [(data, None)]  # (value, path as (parent path, key) links)
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and _LONE_SURROGATE.search(value):
                return _path_tuple(path), value
        elif isinstance(value, (dict, list, tuple)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            for key, item in value.items() if isinstance(value, dict) else enumerate(value):
                if isinstance(key, str) and not key.isascii() and _LONE_SURROGATE.search(key):
                    return _path_tuple(path), key
                stack.append((item, (path, key)))
    return None


def _path_tuple(path: Any) -> tuple[Any, ...]:
    keys = []
    while path is not None:
        path, key = path
        keys.append(key)
    return tuple(reversed(keys))


def encode_bytes(value: bytes) -> str:
    """`[]byte` in JSON: standard base64 with padding."""
    return base64.b64encode(value).decode("ascii")


def decode_bytes(value: str) -> bytes:
    """Decode a JSON string into `[]byte` as Go does (standard base64, padding required)."""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("illegal base64 data: []byte fields hold standard base64 with padding") from None


def string_option(value: Any) -> str:
    """The `json:",string"` option: numbers and bools are quoted, strings are double-encoded."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return marshal(value).decode("utf-8")
    if isinstance(value, float):
        formatted = float_value(value)
        return formatted.text if isinstance(formatted, RawNumber) else str(formatted)
    return str(value)
