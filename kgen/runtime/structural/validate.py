"""Validation of a custom resource against its CRD's schema, with the API server's messages.

The API server validates a custom resource in two passes, reproduced here in order:

1. the OpenAPI schema pass: every node is checked for its type, its composition keywords
   (`anyOf`, `oneOf`, `allOf`, `not`), string keywords, format, number keywords, array
   keywords, `enum` and object keywords, in that order, children before their parent's
   `minItems`/`required`. Its messages name the value's path as JSON does
   (`spec.ports[0].name in body should match '^[a-z]+$'`), and that path, map keys joined
   with dots, is also the error's field;
2. the list-type pass: items repeated in an `x-kubernetes-list-type: set` array, and items
   with the same keys in a `map` array, are `Duplicate value` errors at the repeated item
   (here map keys are written `[key]`, as field paths usually are).

Errors that are not about one value (an `anyOf` that nothing matched, a bound that does not
fit the format) are `Invalid value: ""` errors at the root of the validated object, as the
API server reports them: their field is `<nil>` when no path prefix is given.

`validate_update` adds ratcheting: errors within a part of the object that is unchanged
from the old object are dropped, so an object that became invalid when its CRD changed can
still be updated elsewhere. Old and new values are matched by property name, by map key,
and by key fields for `x-kubernetes-list-type: map` arrays; other arrays only match as a
whole. List-type errors are reported on update only when the old object had none.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from kgen.runtime import gojson
from kgen.runtime.timeutil import parse_go_duration
from kgen.runtime.validation import field, network
from kgen.runtime.validation import regexp as re2
from kgen.runtime.validation.field import FieldError, PathNode, go_quote
from kgen.runtime.validation.formats import is_email
from kgen.runtime.structural.schema import Structural

__all__ = ["validate", "validate_update", "list_type_errors", "FORMAT_CHECKS"]

# -- what the schema pass reports, before it becomes field errors ---------------------------

_TYPE = "type"
_REQUIRED = "required"
_TOO_LONG = "tooLong"
_TOO_SHORT = "tooShort"
_PATTERN = "pattern"
_ENUM = "enum"
_MULTIPLE_OF = "multipleOf"
_MAXIMUM = "maximum"
_MINIMUM = "minimum"
_UNIQUE = "unique"
_MAX_ITEMS = "maxItems"
_MIN_ITEMS = "minItems"
_TOO_FEW_PROPERTIES = "minProperties"
_TOO_MANY_PROPERTIES = "maxProperties"
_NOT_ALLOWED = "additionalProperties"
_FACTOR_NOT_POSITIVE = "multipleOfPositive"
_GENERAL = "general"
"""An error that is about no particular value (composition keywords, range of a bound)."""

_IN = "body"


class _Error:
    """One finding of the schema pass: its kind, the JSON path it names, its message, and
    the value, bound and allowed values the field error is made of."""

    __slots__ = ("kind", "name", "message", "value", "limit", "allowed")

    def __init__(
        self, kind: str, name: str, message: str, value: Any = None, limit: Any = None, allowed: Any = None
    ) -> None:
        self.kind = kind
        self.name = name
        self.message = message
        self.value = value
        self.limit = limit
        self.allowed = allowed


class _Result:
    """Findings and how many checks passed (which picks the closest `anyOf`/`oneOf` branch).

    A finding whose message is already there is not added twice."""

    __slots__ = ("errors", "matches")

    def __init__(self) -> None:
        self.errors: list[_Error] = []
        self.matches = 0

    def add(self, error: _Error) -> None:
        for known in self.errors:
            if known.message == error.message:
                return
        self.errors.append(error)

    def merge(self, other: _Result | None) -> None:
        if other is None:
            return
        for error in other.errors:
            self.add(error)
        self.matches += other.matches

    @property
    def valid(self) -> bool:
        return not self.errors


def _single(error: _Error | None) -> _Result | None:
    if error is None:
        return None
    result = _Result()
    result.errors.append(error)
    return result


# -- Go's view of JSON values -------------------------------------------------------------------

_MAX_JSON_INTEGER = float((1 << 53) - 1)


def _kind(value: Any) -> str:
    """The Go kind of a decoded JSON value: bool, int (int64), float (float64), str, list, dict."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "dict"
    return "other"


_JSON_TYPES = {
    "bool": ("boolean", ""),
    "int": ("integer", "int64"),
    "float": ("number", "float64"),
    "str": ("string", ""),
    "list": ("array", ""),
    "dict": ("object", ""),
}


def _is_json_integer(value: float) -> bool:
    """Whether a float counts as an integer: integral (within a relative 1e-9) and within ±(2^53-1)."""
    if math.isnan(value) or math.isinf(value) or not -_MAX_JSON_INTEGER <= value <= _MAX_JSON_INTEGER:
        return False
    rounded = math.floor(abs(value) + 0.5) * (1 if value >= 0 else -1)
    if value == rounded:
        return True
    if rounded == 0:
        return False
    return abs(value - rounded) < 1e-9 * abs(rounded)


def _go_equal(a: Any, b: Any) -> bool:
    """Go's reflect.DeepEqual on decoded JSON: an int64 never equals a float64 or a bool."""
    kind = _kind(a)
    if kind != _kind(b):
        return a is None and b is None
    if kind == "dict":
        return len(a) == len(b) and all(k in b and _go_equal(v, b[k]) for k, v in a.items())
    if kind == "list":
        return len(a) == len(b) and all(_go_equal(x, y) for x, y in zip(a, b))
    if kind == "float" and math.isnan(a):
        return False
    return bool(a == b)


_INVALID = object()


def _go_convert(value: Any, kind: str) -> Any:
    """`reflect.Value.Convert` of a JSON value to the Go type of another, or `_INVALID`."""
    own = _kind(value)
    if own == kind:
        return value
    if own == "int" and kind == "float":
        return float(value)
    if own == "float" and kind == "int":
        if math.isfinite(value) and -(2**63) <= value < 2**63:
            return int(value)
        return -(2**63)
    if own == "int" and kind == "str":  # Go's string(rune(n))
        if 0 <= value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF:
            return chr(value)
        return "\ufffd"
    return _INVALID


def _go_value(value: Any) -> str:
    """A number as Go's %v prints it."""
    return field.format_value(value)


def _go_json(value: Any) -> str:
    """Go's json.Marshal of decoded JSON (map keys sorted)."""
    return gojson.marshal(_go_numbers(value)).decode("utf-8", "replace")


def _go_numbers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _go_numbers(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_go_numbers(v) for v in value]
    if isinstance(value, float):
        return gojson.float_value(value)
    return value


def _shown(value: Any) -> Any:
    """A bad value to show in a field error: arrays and objects with their floats as Go writes them."""
    return _go_numbers(value) if isinstance(value, (dict, list)) else value


def _go_fixed(value: float) -> str:
    """strconv.FormatFloat(value, 'f', -1, 64): shortest digits, never an exponent."""
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT32 = struct.Struct("<f")


def _fits(value: int | float, type_name: str, fmt: str) -> bool:
    """Whether a number converts to the type and format without loss of range (as text)."""
    text = str(value) if isinstance(value, int) else _go_fixed(value)
    if type_name == "integer":
        if not _INT_TEXT.fullmatch(text):
            return False
        bits = 32 if fmt == "int32" else 64
        return -(1 << (bits - 1)) <= int(text) < (1 << (bits - 1))
    if fmt == "float":
        try:
            _FLOAT32.pack(float(text))
        except OverflowError:
            return False
    return True


def _range_error(value: int | float, type_name: str, fmt: str, prefix: str, path: str) -> _Error | None:
    if _fits(value, type_name, fmt):
        return None
    shown = type_name or "number"
    if fmt:
        message = f"{prefix} value must be of type {shown} with format {fmt} in {path}"
    else:
        message = f"{prefix} value must be of type {shown} (default format) in {path}"
    return _Error(_GENERAL, "", message)


# -- formats --------------------------------------------------------------------------------------

_HOSTNAME = (
    r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}"
    r"[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$"
)
_UUID = re.compile(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
_UUID3 = re.compile(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}")
_UUID4 = re.compile(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}")
_UUID5 = re.compile(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")
_HEX_COLOR = re.compile(r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_BYTE = r"(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])"
_RGB_COLOR = re.compile(rf"rgb\(\s*{_BYTE}\s*,\s*{_BYTE}\s*,\s*{_BYTE}\s*\)")
_SSN = re.compile(r"[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}")
_CREDIT_CARD = re.compile(
    r"(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}"
    r"|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})"
)
_SHORT_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_LONG_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME_OF_DAY = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")
_DURATION_PART = re.compile(r"([0-9]+)\s*([A-Za-zµ]+)")
_DURATION_UNITS = (
    ("ns", "nano"),
    ("us", "µs", "micro"),
    ("ms", "milli"),
    ("s", "sec"),
    ("m", "min"),
    ("h", "hr", "hour"),
    ("d", "day"),
    ("w", "wk", "week"),
)
_MAC_COLON = re.compile(r"[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2})*")
_MAC_DOT = re.compile(r"[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4})*")


def _is_date(value: str) -> bool:
    """time.Parse("2006-01-02", value): four-digit year, a real month and day of that month."""
    match = _DATE.fullmatch(value)
    if not match:
        return False
    year, month, day = (int(g) for g in match.groups())
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    return 1 <= day <= days


def _is_date_time(value: str) -> bool:
    """A date, a `T` (any case), a time of day and a zone; only the first `t` splits."""
    if len(value) < 4:
        return False
    parts = value.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    match = _TIME_OF_DAY.fullmatch(parts[1])
    if not match:
        return False
    return match.group(1) <= "23" and match.group(2) <= "59" and match.group(3) <= "59"


def _is_duration(value: str) -> bool:
    """A Go duration (`1h30m`), or any number-and-unit pair such as `3 days` or `5 minutes`."""
    try:
        parse_go_duration(value)
        return True
    except (ValueError, TypeError):
        pass
    for _, unit in _DURATION_PART.findall(value):
        unit = unit.strip().lower()
        for variants in _DURATION_UNITS:
            for i, variant in enumerate(variants):
                if (i == len(variants) - 1 and unit.startswith(variant)) or variant.lower() == unit:
                    return True
    return False


def _is_hostname(value: str) -> bool:
    if not re2.matches(value, _HOSTNAME) or len(value.encode("utf-8")) > 255:
        return False
    return all(len(part.encode("utf-8")) <= 63 for part in value.split("."))


def _is_ipv4(value: str) -> bool:
    return network.parse_ip_sloppy(value) is not None and "." in value


def _is_ipv6(value: str) -> bool:
    return network.parse_ip_sloppy(value) is not None and ":" in value


def _is_cidr(value: str) -> bool:
    return network.parse_cidr_sloppy(value) is not None


def _is_mac(value: str) -> bool:
    """net.ParseMAC: 6, 8 or 20 octets, as `01:23:...`, `01-23-...` or `0123.4567...`."""
    if len(value) < 14:
        return False
    if value[2] in ":-":
        return _MAC_COLON.fullmatch(value) is not None and (len(value) + 1) // 3 in (6, 8, 20)
    if value[4] == ".":
        return _MAC_DOT.fullmatch(value) is not None and 2 * (len(value) + 1) // 5 in (6, 8, 20)
    return False


def _is_isbn10(value: str) -> bool:
    text = re.sub(r"[\s-]+", "", value)
    if not re.fullmatch(r"[0-9]{9}X|[0-9]{10}", text):
        return False
    total = sum((i + 1) * int(text[i]) for i in range(9))
    total += 100 if text[9] == "X" else 10 * int(text[9])
    return total % 11 == 0


def _is_isbn13(value: str) -> bool:
    text = re.sub(r"[\s-]+", "", value)
    if not re.fullmatch(r"[0-9]{13}", text):
        return False
    total = sum((1, 3)[i % 2] * int(text[i]) for i in range(12))
    return int(text[12]) - (10 - total % 10) % 10 == 0


def _is_credit_card(value: str) -> bool:
    digits = re.sub(r"[^0-9]+", "", value)
    if not _CREDIT_CARD.fullmatch(digits):
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        n = int(digit)
        if position % 2:
            n *= 2
            n = n % 10 + 1 if n >= 10 else n
        total += n
    return total % 10 == 0


def _is_bson_object_id(value: str) -> bool:
    if len(value) != 24:
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_PORT = re.compile(r":[0-9]*")
_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_CHARACTERS = re.compile(r"""[A-Za-z0-9\-._~$&'()*+,;=:\[\]<>"%\u0080-\U0010ffff]*""")


def _is_request_uri(value: str) -> bool:
    """url.ParseRequestURI: an absolute URI, or an absolute path (no fragment is split off)."""
    if not value or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return False
    if value == "*":
        return True
    if value[0] == ":":
        return False  # a scheme cannot be empty
    rest = value
    scheme = ""
    match = _SCHEME.match(value)
    if match:
        scheme, rest = match.group(1), value[match.end() :]
    rest = rest.split("?", 1)[0]
    if not rest.startswith("/"):
        return bool(scheme)  # opaque, as `mailto:someone`
    if scheme and rest.startswith("//"):
        authority, _, rest = rest[2:].partition("/")
        userinfo, at, host = authority.rpartition("@")
        if not at:
            host = authority
        if host.startswith("["):
            end = host.find("]")
            if end < 0 or not _PORT.fullmatch(host[end + 1 :] or ":"):
                return False
        elif ":" in host and not _PORT.fullmatch(host[host.rfind(":") :]):
            return False
        if _ESCAPE.search(host) or _HOST_CHARACTERS.fullmatch(host) is None:
            return False
    return not _ESCAPE.search(rest)


_DISPLAY_NAME_ADDRESS = re.compile(r"[^<>]*<([^<>]*)>\s*")


def _is_email(value: str) -> bool:
    """mail.ParseAddress, roughly: `user@example.com`, or `Some Name <user@example.com>`."""
    match = _DISPLAY_NAME_ADDRESS.fullmatch(value.strip())
    address = match.group(1) if match else value.strip()
    return not is_email(address)


FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": _is_bson_object_id,
    "uri": _is_request_uri,
    "email": _is_email,
    "hostname": _is_hostname,
    "ipv4": _is_ipv4,
    "ipv6": _is_ipv6,
    "cidr": _is_cidr,
    "mac": _is_mac,
    "uuid": lambda v: _UUID.fullmatch(v) is not None,
    "uuid3": lambda v: _UUID3.fullmatch(v) is not None,
    "uuid4": lambda v: _UUID4.fullmatch(v) is not None,
    "uuid5": lambda v: _UUID5.fullmatch(v) is not None,
    "isbn": lambda v: _is_isbn10(v) or _is_isbn13(v),
    "isbn10": _is_isbn10,
    "isbn13": _is_isbn13,
    "creditcard": _is_credit_card,
    "ssn": lambda v: len(v) == 11 and _SSN.fullmatch(v) is not None,
    "hexcolor": lambda v: _HEX_COLOR.fullmatch(v) is not None,
    "rgbcolor": lambda v: _RGB_COLOR.fullmatch(v) is not None,
    "byte": lambda v: _BASE64.fullmatch(v) is not None,
    "password": lambda v: True,
    "date": _is_date,
    "duration": _is_duration,
    "datetime": _is_date_time,
    "k8sshortname": lambda v: len(v) <= 63 and _SHORT_NAME.fullmatch(v) is not None,
    "k8slongname": lambda v: len(v) <= 253 and _LONG_NAME.fullmatch(v) is not None,
}
"""The check of each string format, by its name without dashes (`date-time` is `datetime`)."""


# -- ratcheting: the old value at the same place ---------------------------------------------


def _scalar_key(value: Any) -> Any:
    return (_kind(value), value)


class _MapListIndex:
    """The old items of an `x-kubernetes-list-type: map` array, by their key fields."""

    __slots__ = ("keys", "items")

    def __init__(self, schema: Structural, items: list[Any]) -> None:
        self.keys = schema.list_map_keys
        self.items: dict[Any, Any] = {}
        usable = schema.type == "array" and schema.list_type == "map" and self.keys and items
        for item in items if usable else ():
            if isinstance(item, dict):
                key = self.key_of(item)
                if key is not None and key not in self.items:
                    self.items[key] = item

    def key_of(self, item: dict[str, Any]) -> Any:
        if len(self.keys) == 1:
            value = item.get(self.keys[0], _INVALID)
            if _kind(value) in ("bool", "int", "float", "str"):
                return _scalar_key(value)
            return None
        parts = []
        for name in self.keys:
            value = item.get(name, _INVALID)
            kind = _kind(value)
            if kind == "bool":
                parts.append("true" if value else "false")
            elif kind == "float":
                parts.append(f"{value:f}")
            elif kind == "int":
                parts.append(str(value))
            elif kind == "str":
                parts.append(go_quote(value))
            else:
                return None
        return "\x00" + "\x00".join(parts)

    def get(self, item: Any) -> Any:
        if not isinstance(item, dict):
            return None
        key = self.key_of(item)
        return None if key is None else self.items.get(key)


class _Correlated:
    """A new value, the old value at the same place (when there is one), and their schema."""

    __slots__ = ("old", "new", "schema", "_equal", "_children", "_map_list")

    def __init__(self, new: Any, old: Any, schema: Structural | None) -> None:
        self.new = new
        self.old = old
        self.schema = schema
        self._equal: bool | None = None
        self._children: dict[Any, _Correlated | None] = {}
        self._map_list: _MapListIndex | None = None

    def key(self, name: str) -> _Correlated | None:
        if self.schema is None:
            return None
        if ("k", name) in self._children:
            return self._children[("k", name)]
        child = None
        if isinstance(self.old, dict) and isinstance(self.new, dict) and name in self.old and name in self.new:
            sub = self.schema.properties.get(name) or self.schema.additional_properties_schema
            if sub is not None:
                child = _Correlated(self.new[name], self.old[name], sub)
        self._children[("k", name)] = child
        return child

    def index(self, i: int) -> _Correlated | None:
        if self.schema is None:
            return None
        if ("i", i) in self._children:
            return self._children[("i", i)]
        child = None
        old = self._old_item(i)
        if old is not None and self.schema.items is not None:
            child = _Correlated(self.new[i], old, self.schema.items)
        self._children[("i", i)] = child
        return child

    def _old_item(self, i: int) -> Any:
        if not isinstance(self.old, list) or not isinstance(self.new, list) or len(self.new) <= i:
            return None
        assert self.schema is not None
        if self.schema.list_type != "map":
            return None  # sets and atomic lists: items are not matched one by one
        if self._map_list is None:
            self._map_list = _MapListIndex(self.schema, self.old)
        return self._map_list.get(self.new[i])

    def unchanged(self) -> bool:
        if self._equal is None:
            self._equal = self._compare()
        return self._equal

    def _compare(self) -> bool:
        new, old = self.new, self.old
        if new is None or old is None:
            return new is None and old is None
        if isinstance(new, list) != isinstance(old, list) or isinstance(new, dict) != isinstance(old, dict):
            return False
        if isinstance(new, list):
            if len(new) != len(old):
                return False
            for i in range(len(new)):
                child = self.index(i)
                if child is None:
                    return self._map_list is None and _go_equal(old, new)
                if not child.unchanged():
                    return False
            return True
        if isinstance(new, dict):
            if len(new) != len(old):
                return False
            for k in new:
                child = self.key(k)
                if child is None or not child.unchanged():
                    return False
            return True
        return _go_equal(old, new)


# -- the schema pass ------------------------------------------------------------------------------


def _type_error(data: Any, s: Structural, path: str) -> _Error | None:
    types_, fmt = s.types, s.validated_format
    if data is None:
        if types_ and "null" not in types_ and not s.nullable:
            return _invalid_type(path, ",".join(types_), "null")
        return None
    kind = _kind(data)
    json_type, json_format = _JSON_TYPES.get(kind, ("", ""))
    float_int = json_type == "number" and _is_json_integer(data) and "integer" in types_
    int_float = json_type == "integer" and "number" in types_
    if kind not in ("str", "list") and fmt:
        if not (json_type in types_ or json_format == fmt or float_int or int_float):
            return _invalid_type(path, fmt, json_format)
    if fmt and kind in ("str", "list") and not ("number" in types_ or "integer" in types_):
        return None
    if not (json_type in types_ or float_int or int_float):
        return _invalid_type(path, ",".join(types_), json_type)
    return None


def _invalid_type(path: str, type_name: str, value: str) -> _Error:
    return _Error(_TYPE, path, f"{path} in {_IN} must be of type {type_name}: {go_quote(value)}", value)


def _string_error(data: str, s: Structural, path: str) -> _Error | None:
    length = len(data)
    if s.max_length is not None and length > s.max_length:
        message = f"{path} in {_IN} should be at most {s.max_length} chars long"
        return _Error(_TOO_LONG, path, message, data, s.max_length)
    if s.min_length is not None and length < s.min_length:
        message = f"{path} in {_IN} should be at least {s.min_length} chars long"
        return _Error(_TOO_SHORT, path, message, data, s.min_length)
    if s.pattern:
        try:
            matched = re2.matches(data, s.pattern)
            shown = s.pattern
        except re2.RegexpError as err:
            matched, shown = False, f"{s.pattern}, but pattern is invalid: {err}"
        if not matched:
            return _Error(_PATTERN, path, f"{path} in {_IN} should match '{shown}'", data)
    return None


def _format_error(data: str, s: Structural, path: str) -> _Error | None:
    check = FORMAT_CHECKS.get(s.validated_format.replace("-", ""))
    if check is None or check(data):
        return None
    return _invalid_type(path, s.validated_format, data)


def _number_result(data: int | float, s: Structural, path: str) -> _Result:
    type_name, fmt = "", ""
    if len(s.types) == 1 and s.types[0] == "integer":
        type_name, fmt = "integer", s.validated_format if s.validated_format in ("int32", "int64") else ""
    elif len(s.types) == 1 and s.types[0] == "number":
        type_name, fmt = "number", s.validated_format if s.validated_format in ("float", "double") else ""
    as_float = float(data)
    native_int = isinstance(data, int)
    result = _Result()
    found: list[_Error | None] = [_range_error(data, type_name, fmt, "Checked", path)]

    multiple: list[_Error | None] = []
    if s.multiple_of is not None:
        factor = s.multiple_of
        multiple.append(_range_error(factor, type_name, fmt, "MultipleOf", path))
        if multiple[-1] is None and native_int:
            multiple.append(_multiple_of_int(path, int(data), _go_int(factor)))
        else:
            multiple.append(_multiple_of_float(path, as_float, float(factor)))

    minimum: list[_Error | None] = []
    if s.minimum is not None:
        bound = s.minimum
        minimum.append(_range_error(bound, type_name, fmt, "Minimum boundary", path))
        if minimum[-1] is None and native_int:
            minimum.append(_below(path, data, _go_int(bound), s.exclusive_minimum))
        else:
            minimum.append(_below(path, as_float, float(bound), s.exclusive_minimum))

    maximum: list[_Error | None] = []
    if s.maximum is not None:
        bound = s.maximum
        maximum.append(_range_error(bound, type_name, fmt, "Maximum boundary", path))
        if maximum[-1] is None and native_int:
            maximum.append(_above(path, data, _go_int(bound), s.exclusive_maximum))
        else:
            maximum.append(_above(path, as_float, float(bound), s.exclusive_maximum))

    for error in found + multiple + minimum + maximum:
        if error is not None:
            result.add(error)
    result.matches += 1
    return result


def _go_int(value: int | float) -> int:
    """Go's int64(float64(value)): truncation toward zero."""
    if isinstance(value, int):
        return value
    converted = _go_convert(float(value), "int")
    return int(converted)


def _multiple_of_int(path: str, data: int, factor: int) -> _Error | None:
    if factor <= 0:
        return _factor_not_positive(path, factor)
    if abs(data) % factor:
        return _Error(_MULTIPLE_OF, path, f"{path} in {_IN} should be a multiple of {factor}", data)
    return None


def _multiple_of_float(path: str, data: float, factor: float) -> _Error | None:
    if factor <= 0:
        return _factor_not_positive(path, factor)
    quotient = (1 / factor * data) if factor < 1 else data / factor
    if not _is_json_integer(quotient):
        return _Error(_MULTIPLE_OF, path, f"{path} in {_IN} should be a multiple of {_go_value(factor)}", data)
    return None


def _factor_not_positive(path: str, factor: int | float) -> _Error:
    message = f"factor MultipleOf declared for {path} must be positive: {_go_value(factor)}"
    return _Error(_FACTOR_NOT_POSITIVE, path, message, factor)


def _below(path: str, data: int | float, bound: int | float, exclusive: bool) -> _Error | None:
    if data < bound or (exclusive and data == bound):
        word = "greater than" if exclusive else "greater than or equal to"
        return _Error(_MINIMUM, path, f"{path} in {_IN} should be {word} {_go_value(bound)}", data)
    return None


def _above(path: str, data: int | float, bound: int | float, exclusive: bool) -> _Error | None:
    if data > bound or (exclusive and data == bound):
        word = "less than" if exclusive else "less than or equal to"
        return _Error(_MAXIMUM, path, f"{path} in {_IN} should be {word} {_go_value(bound)}", data)
    return None


def _enum_error(data: Any, s: Structural, path: str) -> _Error | None:
    if not s.enum:
        return None
    if data is not None:
        for allowed in s.enum:
            if allowed is None:
                continue
            converted = _go_convert(data, _kind(allowed))
            if converted is not _INVALID and _go_equal(converted, allowed):
                return None
    shown = "[" + " ".join(_go_print(v) for v in s.enum) + "]"
    return _Error(_ENUM, path, f"{path} in {_IN} should be one of {shown}", data, allowed=list(s.enum))


def _go_print(value: Any) -> str:
    """fmt's %v of a decoded JSON value (only used in messages that are never shown whole)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_print(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_print(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    return _go_value(value)


class _Walker:
    """One run of the schema pass (ratcheting when given the old object's correlation)."""

    def node(self, data: Any, s: Structural, path: str, corr: _Correlated | None) -> _Result:
        result = _Result()
        checks_type = bool(s.types or s.validated_format)
        if data is None:
            if checks_type:
                result.merge(self._counted_type(data, s, path))
            result.merge(_single(_enum_error(data, s, path)))
            return self._ratchet(result, corr)
        kind = _kind(data)
        if checks_type:
            result.merge(self._counted_type(data, s, path))
            result.matches += 1
        result.merge(self.composition(data, s, path))
        result.matches += 1
        if kind == "str":
            result.merge(_single(_string_error(data, s, path)))
            result.matches += 1
            if s.validated_format.replace("-", "") in FORMAT_CHECKS:
                result.merge(_single(_format_error(data, s, path)))
                result.matches += 1
        if kind in ("int", "float"):
            result.merge(_number_result(data, s, path))
            result.matches += 1
        if kind == "list":
            result.merge(self.array(data, s, path, corr))
            result.matches += 1
        result.merge(_single(_enum_error(data, s, path)))
        result.matches += 1
        if kind == "dict":
            result.merge(self.object(data, s, path, corr))
            result.matches += 1
        result.matches += 1
        return self._ratchet(result, corr)

    @staticmethod
    def _ratchet(result: _Result, corr: _Correlated | None) -> _Result:
        if corr is None or result.valid or not corr.unchanged():
            return result
        kept = _Result()
        kept.matches = result.matches
        return kept

    @staticmethod
    def _counted_type(data: Any, s: Structural, path: str) -> _Result:
        error = _type_error(data, s, path)
        if error is not None:
            return _single(error) or _Result()
        passed = _Result()
        passed.matches = 1
        return passed

    def composition(self, data: Any, s: Structural, path: str) -> _Result:
        main = _Result()
        quoted = go_quote(path)
        if s.any_of:
            best: _Result | None = None
            first_success: _Result | None = None
            for branch in s.any_of:
                result = self.node(data, branch, path, None)
                if result.valid:
                    best = None
                    first_success = result
                    break
                if best is None or result.matches > best.matches:
                    best = result
            if first_success is None:
                main.add(_Error(_GENERAL, "", f"{quoted} must validate at least one schema (anyOf)"))
            main.merge(best if best is not None else first_success)
        if s.one_of:
            best = None
            first_success = None
            passed = 0
            for branch in s.one_of:
                result = self.node(data, branch, path, None)
                if result.valid:
                    passed += 1
                    best = None
                    first_success = first_success or result
                    continue
                if passed == 0 and (best is None or result.matches > best.matches):
                    best = result
            if passed != 1:
                detail = "Found none valid" if passed == 0 else f"Found {passed} valid alternatives"
                main.add(_Error(_GENERAL, "", f"{quoted} must validate one and only one schema (oneOf). {detail}"))
                main.merge(best)
            else:
                main.merge(first_success)
        if s.all_of:
            passed = 0
            for branch in s.all_of:
                result = self.node(data, branch, path, None)
                if result.valid:
                    passed += 1
                main.merge(result)
            if passed != len(s.all_of):
                detail = ". None validated" if passed == 0 else ""
                main.add(_Error(_GENERAL, "", f"{quoted} must validate all the schemas (allOf){detail}"))
        if s.not_ is not None:
            if self.node(data, s.not_, path, None).valid:
                main.add(_Error(_GENERAL, "", f"{quoted} must not validate the schema (not)"))
        main.matches += 1
        return main

    def array(self, data: list[Any], s: Structural, path: str, corr: _Correlated | None) -> _Result:
        result = _Result()
        if s.items is not None:
            for i, item in enumerate(data):
                child = corr.index(i) if corr is not None else None
                result.merge(self.node(item, s.items, f"{path}[{i}]", child))
        size = len(data)
        if s.min_items is not None and size < s.min_items:
            message = f"{path} in {_IN} should have at least {s.min_items} items"
            result.add(_Error(_MIN_ITEMS, path, message, size, s.min_items))
        if s.max_items is not None and size > s.max_items:
            message = f"{path} in {_IN} should have at most {s.max_items} items"
            result.add(_Error(_MAX_ITEMS, path, message, size, s.max_items))
        if s.unique_items:
            for i in range(1, size):
                if any(_go_equal(data[i], data[j]) for j in range(i)):
                    result.add(_Error(_UNIQUE, path, f"{path} in {_IN} shouldn't contain duplicates"))
                    break
        result.matches += 1
        return result

    def object(self, data: dict[str, Any], s: Structural, path: str, corr: _Correlated | None) -> _Result:
        result = _Result()
        size = len(data)
        if s.min_properties is not None and size < s.min_properties:
            message = f"{path} in {_IN} should have at least {s.min_properties} properties"
            result.add(_Error(_TOO_FEW_PROPERTIES, path, message, size, s.min_properties))
        if s.max_properties is not None and size > s.max_properties:
            message = f"{path} in {_IN} should have at most {s.max_properties} properties"
            result.add(_Error(_TOO_MANY_PROPERTIES, path, message, size, s.max_properties))
        additional = s.additional_properties
        if additional is False:
            for key in sorted(data):
                if key not in s.properties:
                    message = f"{path}.{key} in {_IN} is a forbidden property"
                    result.add(_Error(_NOT_ALLOWED, path, message, key))
        elif isinstance(additional, Structural):
            for key in sorted(data):
                if key not in s.properties:
                    child = self._child(corr, key, path)
                    result.merge(self.node(data[key], additional, f"{path}.{key}", child))
        for name in sorted(s.properties):
            if name in data:
                child = self._child(corr, name, path)
                result.merge(self.node(data[name], s.properties[name], f"{path}.{name}" if path else name, child))
        for name in s.required:
            if name not in data:
                result.add(_Error(_REQUIRED, f"{path}.{name}", f"{path}.{name} in {_IN} is required"))
        return result

    @staticmethod
    def _child(corr: _Correlated | None, name: str, path: str) -> _Correlated | None:
        if corr is None or (path == "" and name in ("kind", "apiVersion")):
            return None  # apiVersion and kind are not compared: both objects are read at one version
        return corr.key(name)


# -- field errors -----------------------------------------------------------------------------------


def _prefix_node(path_prefix: str) -> PathNode:
    return field.Path.root(path_prefix) if path_prefix else None


def _field_errors(prefix: PathNode, result: _Result) -> list[FieldError]:
    errors: list[FieldError] = []
    for e in result.errors:
        if e.kind == _GENERAL:
            errors.append(field.invalid(prefix, "", e.message, origin="schema"))
            continue
        path = prefix
        if e.name and e.name != ".":
            path = field.child(prefix, e.name[1:] if e.name.startswith(".") else e.name)
        value = "" if e.value is None else _shown(e.value)
        if e.kind == _REQUIRED:
            errors.append(field.required(path, ""))
        elif e.kind == _ENUM:
            allowed = [v if isinstance(v, str) else _go_json(v) for v in e.allowed]
            errors.append(field.not_supported(path, _shown(e.value), allowed))
        elif e.kind == _TOO_LONG:
            errors.append(field.too_long(path, "", e.limit, unit="bytes"))
        elif e.kind in (_MAX_ITEMS, _TOO_MANY_PROPERTIES):
            errors.append(field.too_many(path, e.value, e.limit, origin=e.kind))
        elif e.kind == _TYPE:
            errors.append(field.type_invalid(path, value, e.message))
        else:
            errors.append(field.invalid(path, value, e.message, origin=e.kind))
    return errors


# -- the list-type pass -------------------------------------------------------------------------------


class _Unspecified:
    """The key of a map-list item that lacks its key field (all such items share it)."""


_UNSPECIFIED = _Unspecified()


def _set_key(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return ("json", _go_json(value))
    if value is _UNSPECIFIED:
        return ("unspecified", None)
    return _scalar_key(value)


def _repeated(values: list[Any]) -> list[int]:
    """The index of the second appearance of each value that appears more than once."""
    seen: dict[Any, int] = {}
    repeated = []
    for i, value in enumerate(values):
        key = _set_key(value)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            repeated.append(i)
    return repeated


def list_type_errors(obj: Any, schema: Structural | None, path_prefix: str = "") -> list[FieldError]:
    """Duplicates in `set` and `map` arrays (the second pass; `validate` includes it)."""
    if schema is None or not isinstance(obj, dict):
        return []
    return _object_lists(_prefix_node(path_prefix), schema, obj)


def _object_lists(path: PathNode, s: Structural, obj: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    additional = s.additional_properties_schema
    if additional is not None:
        for key in sorted(obj):
            errors += _value_lists(field.key(path, key), additional, obj[key])
    if s.properties:
        for key in sorted(obj):
            prop = s.properties.get(key)
            if prop is not None:
                errors += _value_lists(field.child(path, key), prop, obj[key])
    return errors


def _value_lists(path: PathNode, s: Structural, value: Any) -> list[FieldError]:
    if isinstance(value, list):
        return _array_lists(path, s, value)
    if isinstance(value, dict):
        return _object_lists(path, s, value)
    return []


def _array_lists(path: PathNode, s: Structural, items: list[Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    if s.list_type == "set":
        for i in _repeated(items) if len(items) > 1 else ():
            errors.append(field.duplicate(field.index(path, i), _shown(items[i]), origin="listType=set"))
    elif s.list_type == "map":
        errors += _map_list_errors(path, s, items)
    if s.items is not None:
        for i, item in enumerate(items):
            errors += _value_lists(field.index(path, i), s.items, item)
    return errors


def _map_list_errors(path: PathNode, s: Structural, items: list[Any]) -> list[FieldError]:
    for i, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            message = "must be an object for an array of list-type map"
            return [field.invalid(field.index(path, i), _shown(item), message, origin="listType=map")]
    if len(items) <= 1:
        return []
    errors = []
    if len(s.list_map_keys) == 1:
        name = s.list_map_keys[0]
        keys = [_UNSPECIFIED if item is None or name not in item else item[name] for item in items]
        for i in _repeated(keys):
            shown = {} if keys[i] is _UNSPECIFIED else _shown({name: keys[i]})
            errors.append(field.duplicate(field.index(path, i), shown, origin="listType=map"))
        return errors
    composite = []
    for item in items:
        key: dict[str, Any] = {}
        for name in s.list_map_keys:
            if item is not None and name in item:
                key[name] = item[name]
        composite.append(key)
    for i in _repeated(composite):
        errors.append(field.duplicate(field.index(path, i), _shown(composite[i]), origin="listType=map"))
    return errors


# -- entry points ---------------------------------------------------------------------------------------


def validate(obj: Any, schema: Structural, path_prefix: str = "", lists: bool = True) -> list[FieldError]:
    """Validate a custom resource (or, with `path_prefix`, the part of it at that path)
    against its schema: the schema pass, then (with `lists`) the list-type pass.

    Validate after `prune` and `prune_nulls`: a null left for a non-nullable field is a type error.
    """
    prefix = _prefix_node(path_prefix)
    errors = _field_errors(prefix, _Walker().node(obj, schema, "", None))
    if lists and isinstance(obj, dict):
        errors += _object_lists(prefix, schema, obj)
    return errors


def validate_update(
    new: Any, old: Any, schema: Structural, path_prefix: str = "", lists: bool = True
) -> list[FieldError]:
    """Validate an update: as `validate`, without the errors of parts unchanged from `old`
    (ratcheting), and (with `lists`) the list-type errors of `new` unless `old` already had
    some (`update_list_type_errors`)."""
    prefix = _prefix_node(path_prefix)
    correlation = _Correlated(new, old, schema)
    errors = _field_errors(prefix, _Walker().node(new, schema, "", correlation))
    if lists:
        errors += update_list_type_errors(new, old, schema, path_prefix)
    return errors


def update_list_type_errors(new: Any, old: Any, schema: Structural, path_prefix: str = "") -> list[FieldError]:
    """The list-type errors of an update: none while the old object had some (they ratchet
    as a whole), else those of `new`."""
    prefix = _prefix_node(path_prefix)
    if isinstance(new, dict) and not (isinstance(old, dict) and _object_lists(prefix, schema, old)):
        return _object_lists(prefix, schema, new)
    return []
