"""Field errors: what validation reports, worded as the API conventions and apimachinery do.

A `FieldError` has a type (`Required`, `Invalid`, `NotSupported`, ...), the path of the
field in the conventions' JavaScript syntax (`spec.ports[1].name`,
`metadata.labels[app.kubernetes.io/name]`), the bad value and a detail. `str(error)` is
apimachinery's `Error()`: `spec.replicas: Invalid value: -1: must be greater than or
equal to 0`. A list of errors becomes the API's 422 `Invalid` Status with `invalid()`.
"""

from __future__ import annotations

import datetime as _dt
import enum
import json
import math
from collections.abc import Iterable
from typing import Any

from kgen.runtime.errors import APIError, StatusCause


class Path:
    """A field path, built from the root down: `Path.root("spec").child("ports").index(1)`.

    Cheap to extend (one small object per step); rendered only when an error is reported.
    """

    __slots__ = ("parent", "name", "subscript")

    def __init__(self, parent: Path | None, name: str, subscript: str | None = None):
        self.parent = parent
        self.name = name
        self.subscript = subscript

    @classmethod
    def root(cls, name: str, *more: str) -> Path:
        path = cls(None, name)
        for part in more:
            path = cls(path, part)
        return path

    def child(self, name: str, *more: str) -> Path:
        path = Path(self, name)
        for part in more:
            path = Path(path, part)
        return path

    def index(self, index: int) -> Path:
        return Path(self, "", str(index))

    def key(self, key: Any) -> Path:
        return Path(self, "", str(key))

    def __str__(self) -> str:
        parts: list[Path] = []
        node: Path | None = self
        while node is not None:
            parts.append(node)
            node = node.parent
        out = []
        for position, part in enumerate(reversed(parts)):
            if part.subscript is not None:
                out.append(f"[{part.subscript}]")
            elif part.name:
                out.append(f".{part.name}" if position and out else part.name)
        return "".join(out)

    def __repr__(self) -> str:
        return f"Path({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


PathNode = Any
"""Where validation is: None (the root), a `Path`, or a chain of plain tuples.

Validators extend the path at every field and item they visit, and nearly always find
nothing wrong, so the steps are the cheapest objects Python builds: `(parent, name)` for
a field and `(parent, None, subscript)` for an index or a key. A chain becomes a `Path`
(`as_path`) only when an error is reported.
"""


def child(path: PathNode, name: str, *more: str) -> PathNode:
    """`path.child(name)`, where a None path is the root (as a nil *field.Path is in Go)."""
    node = (path, name)
    for part in more:
        node = (node, part)
    return node


def index(path: PathNode, i: int) -> PathNode:
    return (path, None, i)


def key(path: PathNode, k: Any) -> PathNode:
    return (path, None, k)


def as_path(node: PathNode) -> Path | None:
    """The `Path` of a path under construction (hand-written hooks get one)."""
    if node is None or isinstance(node, Path):
        return node
    if len(node) == 2:
        return Path(as_path(node[0]), node[1])
    return Path(as_path(node[0]), "", str(node[2]))


def path_string(path: PathNode) -> str:
    return "<nil>" if path is None else str(as_path(path))


class ErrorType(str, enum.Enum):
    """The machine-readable error types; the values are the Status cause types."""

    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    INTERNAL = "InternalError"
    TYPE_INVALID = "FieldValueTypeInvalid"

    @property
    def text(self) -> str:
        return _TYPE_TEXT[self]


_TYPE_TEXT = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.INTERNAL: "Internal error",
    ErrorType.TYPE_INVALID: "Invalid value",
}

OMIT_VALUE = object()
"""A bad value left out of the message (apimachinery's `field.OmitValueType{}`): Required,
Forbidden, Too long and Internal errors never show one, and `Invalid value: <detail>`."""

_VALUE_NOT_SHOWN = {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL}


class FieldError:
    """One validation error: type, field path, bad value, detail, and the rule that found it."""

    __slots__ = ("type", "_path", "bad_value", "detail", "origin")

    def __init__(self, type: ErrorType, path: PathNode, bad_value: Any, detail: str, origin: str = ""):
        self.type = type
        self._path = path
        self.bad_value = bad_value
        self.detail = detail
        self.origin = origin
        """The rule that reported the error (`minimum`, `format=k8s-short-name`, ...), for tests and tools."""

    @property
    def field(self) -> str:
        """The field path as text: `spec.ports[1].name`."""
        return path_string(self._path)

    def body(self) -> str:
        """The message without the field path (apimachinery's `ErrorBody()`)."""
        if self.type in _VALUE_NOT_SHOWN or self.bad_value is OMIT_VALUE:
            text = self.type.text
        else:
            text = f"{self.type.text}: {format_value(self.bad_value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"

    def __repr__(self) -> str:
        return f"FieldError({self.type.name}, {self.field!r}, {self.body()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldError) and (self.type, self.field, self.body()) == (
            other.type,
            other.field,
            other.body(),
        )

    def __hash__(self) -> int:
        return hash((self.type, self.field, self.body()))


def format_value(value: Any) -> str:
    """A bad value as apimachinery's ErrorBody prints it: numbers and booleans with %v,
    strings with %q, anything else as Go's json.Marshal writes it (map keys sorted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, _dt.datetime):
        return go_quote(format_time(value))
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        data = to_json()
        if isinstance(data, bytes):
            return data.decode("utf-8", "replace")
        return format_value(data) if not isinstance(data, str) else go_quote(data)
    if not isinstance(value, (list, dict, tuple)):
        return str(value)
    from kgen.runtime import gojson

    try:
        return gojson.marshal(_sorted_maps(value)).decode("utf-8", "replace")
    except (TypeError, ValueError):
        return repr(value)


def _sorted_maps(value: Any) -> Any:
    """Plain dicts are Go maps: json.Marshal writes their keys sorted."""
    if isinstance(value, dict):
        return {k: _sorted_maps(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [_sorted_maps(v) for v in value]
    return value


def format_time(value: _dt.datetime) -> str:
    """A time as Go's json.Marshal writes a metav1.Time: RFC 3339 in UTC, to the second."""
    if value.tzinfo is not None:
        value = value.astimezone(_dt.timezone.utc)
    # not strftime: its %Y writes the year 1 as "1" on glibc, Go writes "0001"
    v = value
    return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (v.year, v.month, v.day, v.hour, v.minute, v.second)


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(text: str) -> str:
    """Go's strconv.Quote (`%q`): printable characters kept, others escaped as Go escapes them."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch in _C_ESCAPES:
            out.append(_C_ESCAPES[ch])
        elif 0xD800 <= code <= 0xDFFF:  # not UTF-8: Go prints the replacement's escape
            out.append("\\ufffd")
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _go_float(value: float) -> str:
    """Go's %v for a float64."""
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    text = repr(value)
    if text.endswith(".0"):
        text = text[:-2]
    exponent = abs(value) >= 1e21 or (value != 0 and abs(value) < 1e-4)
    if exponent:
        text = f"{value:e}"
        mantissa, power = text.split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        sign = power[0]
        digits = power[1:].lstrip("0").rjust(2, "0")
        text = f"{mantissa}e{sign}{digits}"
    return text


# -- constructors, as apimachinery's field package names them ------------------------------


def required(path: PathNode, detail: str = "", origin: str = "required") -> FieldError:
    return FieldError(ErrorType.REQUIRED, path, OMIT_VALUE, detail, origin)


def invalid(path: PathNode, value: Any, detail: str, origin: str = "") -> FieldError:
    return FieldError(ErrorType.INVALID, path, value, detail, origin)


def not_supported(path: PathNode, value: Any, supported: Iterable[Any], origin: str = "enum") -> FieldError:
    quoted = [json.dumps(str(v), ensure_ascii=False) for v in supported]
    detail = "supported values: " + ", ".join(quoted) if quoted else ""
    return FieldError(ErrorType.NOT_SUPPORTED, path, value, detail, origin)


def duplicate(path: PathNode, value: Any, origin: str = "unique") -> FieldError:
    return FieldError(ErrorType.DUPLICATE, path, value, "", origin)


def forbidden(path: PathNode, detail: str = "", origin: str = "forbidden") -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, path, OMIT_VALUE, detail, origin)


def too_long(path: PathNode, value: Any, max_length: int, unit: str = "bytes", origin: str = "maxLength") -> FieldError:
    """`Too long: may not be more than 63 bytes` (or characters); the value is not shown."""
    if max_length >= 0:
        noun = unit[:-1] if max_length == 1 else unit
        detail = f"may not be more than {max_length} {noun}"
    else:
        detail = "value is too long"
    return FieldError(ErrorType.TOO_LONG, path, value, detail, origin)


def too_many(path: PathNode, actual: int, max_items: int, origin: str = "maxItems") -> FieldError:
    if max_items >= 0:
        detail = f"must have at most {max_items} {'item' if max_items == 1 else 'items'}"
    else:
        detail = "has too many items"
    return FieldError(ErrorType.TOO_MANY, path, actual if actual >= 0 else OMIT_VALUE, detail, origin)


def internal(path: PathNode, error: BaseException | str, origin: str = "internal") -> FieldError:
    return FieldError(ErrorType.INTERNAL, path, OMIT_VALUE, str(error), origin)


def type_invalid(path: PathNode, value: Any, detail: str, origin: str = "type") -> FieldError:
    return FieldError(ErrorType.TYPE_INVALID, path, value, detail, origin)


def not_found(path: PathNode, value: Any, origin: str = "") -> FieldError:
    return FieldError(ErrorType.NOT_FOUND, path, value, "", origin)


# -- messages the conventions prescribe -------------------------------------------------------


def min_error(minimum: int | float) -> str:
    return f"must be greater than or equal to {format_value(minimum)}"


def max_error(maximum: int | float) -> str:
    return f"must be less than or equal to {format_value(maximum)}"


def inclusive_range_error(low: int, high: int) -> str:
    return f"must be between {low} and {high}, inclusive"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def empty_error() -> str:
    return "must be non-empty"


def regex_error(message: str, pattern: str, *examples: str) -> str:
    """apimachinery's RegexError, double space included: `(e.g. 'my-name',  or '123-abc', ...)`."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    text = message + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{pattern}')"


FIELD_IMMUTABLE = "field is immutable"


# -- lists of errors ---------------------------------------------------------------------------


def aggregate_message(errors: list[FieldError]) -> str:
    """The errors as one message, as apimachinery's aggregate prints them (duplicates once)."""
    messages = list(dict.fromkeys(str(e) for e in errors))
    if len(messages) == 1:
        return messages[0]
    return "[" + ", ".join(messages) + "]"


def invalid_error(group: str, kind: str, name: str, errors: list[FieldError]) -> APIError:
    """The 422 `Invalid` API error for a kind's validation errors, one cause per error.

    The message reads `Frobber.example.kgen.dev "demo" is invalid: [spec.replicas: ...]`,
    as `apierrors.NewInvalid` writes it.
    """
    qualified = f"{kind}.{group}" if group else kind
    message = f'{qualified} "{name}" is invalid'
    if errors:
        message += f": {aggregate_message(errors)}"
    causes = [StatusCause(e.type.value, e.body(), e.field) for e in errors]
    return APIError(422, "Invalid", message, causes, {"group": group, "kind": kind, "name": name})
