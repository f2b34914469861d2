"""JSON exactly as Go's encoding/json writes it.

Compact separators, UTF-8 output, `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's
HTML-safe encoder does, and floats formatted like `strconv.FormatFloat(f, 'f' or 'e', -1)`
with Go's exponent cleanup. Struct field order comes from `to_dict()`; map keys are
sorted there, as Go sorts them.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from decimal import Decimal
from typing import Any

import pydantic_core
from pydantic_core import PydanticSerializationError

_RAW_PREFIX = "\x00kgen-raw:"
_RAW_PATTERN = re.compile(rb'"\\u0000kgen-raw:([^"]*)"')
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_TO_JSON = pydantic_core.to_json


class _Raw(str):
    """Text that goes into the output as is (a number in Go's format)."""


def float_value(value: float) -> Any:
    """A float as Go prints it: integral values without '.0', exponents as 1e-7 / 1e+21."""
    if not math.isfinite(value):
        raise ValueError(f"json: unsupported value: {value!r} (Go cannot encode NaN or infinities)")
    magnitude = abs(value)
    if magnitude == 0 or (1e-6 <= magnitude < 1e21):
        if value.is_integer():
            return int(value)
        text = repr(value)
        if "e" not in text:
            return value
        return _Raw(_RAW_PREFIX + format(Decimal(text), "f"))
    mantissa, _, exponent = repr(value).partition("e")
    sign = exponent[0] if exponent[0] in "+-" else "+"
    digits = exponent.lstrip("+-").lstrip("0") or "0"
    if sign == "+" and len(digits) < 2:  # Go cleans up e-09 to e-9 but keeps e+21
        digits = "0" + digits
    return _Raw(_RAW_PREFIX + f"{mantissa}e{sign}{digits}")


def marshal(value: Any) -> bytes:
    """Encode Python JSON data (as produced by `to_dict()`) as Go does."""
    # pydantic-core's encoder writes the same bytes as the standard library's with these
    # settings (compact, UTF-8, the same string escapes, shortest float digits), three times
    # faster. Where they part, the standard library's answer stands: it refuses NaN and
    # infinities (pydantic-core writes bare words) and names what it cannot encode. (Python
    # values beyond JSON's, such as a datetime put into a RawExtension by hand, are written
    # the way pydantic writes them.)
    try:
        data = _TO_JSON(value)
    except PydanticSerializationError:
        return _marshal_text(value)
    if b"NaN" in data or b"Infinity" in data:
        return _marshal_text(value)
    return _go_escapes(data)


def _marshal_text(value: Any) -> bytes:
    """`marshal` through the standard library's encoder."""
    return _go_escapes(_ENCODE(value).encode("utf-8"))


def _go_escapes(data: bytes) -> bytes:
    """Go's HTML-safe escapes, and the raw numbers written in place of their markers."""
    if b"<" in data or b">" in data or b"&" in data:
        data = data.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
    if b"\xe2" in data and b"\xe2\x80" in data:  # U+2028 and U+2029 in UTF-8 start so
        data = data.replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")
    if b"\\" in data and b"\\u0000kgen-raw:" in data:
        data = _RAW_PATTERN.sub(rb"\1", data)
    return data


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
        return formatted[len(_RAW_PREFIX) :] if isinstance(formatted, _Raw) else str(formatted)
    return str(value)
