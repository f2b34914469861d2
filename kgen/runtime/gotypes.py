"""Go types described as data, and Go's encoding/json reading and writing of them.

A kind the server knows without generated code (ConfigMap, Event, Lease, ...) is described
by `Struct`s of `Field`s over a few Go types: strings (named or not), integers, booleans,
`[]byte`, slices, maps with string keys, pointers, `metav1.Time` and `MicroTime`, and raw
JSON (`FieldsV1`). `decode` reads a JSON document into such a type as the API server's
decoder does (sigs.k8s.io/json: Go's encoding/json, case-sensitive field names):

- the first type error as Go words it, with Go's context: the innermost struct's name and
  the JSON names of the fields from the root (`json: cannot unmarshal string into Go
  struct field ObjectMeta.metadata.labels of type map[string]string`); a `[]byte` that is
  not base64 (`illegal base64 data at input byte 4`) and a timestamp Go cannot read
  (`parsing time ...`) as Go reports them;
- the problems of strict decoding in document order: `unknown field "spec.x"` and
  `duplicate field "data.a"`;
- Go's rules for `null` (it clears pointers, maps and slices and leaves other values
  alone) and for a field given twice (an object is decoded into what is there already).

`encode` writes a decoded value as Go's encoder does: fields in declaration order,
`omitempty` fields left out when empty (never a struct), a zero time as `null`, `[]byte`
as base64. `normalize` is both: the JSON a Go program would send back.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgen.runtime import gotime
from kgen.runtime.validation.field import go_quote

# -- the types ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GoType:
    """A Go type; `name` is what reflect's Type.String() calls it in Go's errors."""

    name: str


@dataclass(frozen=True, slots=True)
class Scalar(GoType):
    """A string, bool, int32 or int64 (`kind`), maybe named (`v1.SecretType`, `types.UID`)."""

    kind: str = "string"
    enum: tuple[str, ...] = ()
    """The values a named string type's constants give it, where its OpenAPI lists them;
    decoding takes any string (validation says which are supported)."""


@dataclass(frozen=True, slots=True)
class Bytes(GoType):
    """`[]byte`: base64 text in JSON."""

    name: str = "[]uint8"


@dataclass(frozen=True, slots=True)
class Slice(GoType):
    """`[]T`."""

    elem: GoType = field(default_factory=lambda: Scalar("string"))


@dataclass(frozen=True, slots=True)
class Map(GoType):
    """`map[string]T`."""

    elem: GoType = field(default_factory=lambda: Scalar("string"))


@dataclass(frozen=True, slots=True)
class Pointer(GoType):
    """`*T`: null in JSON is nil, and an absent value stays nil."""

    elem: GoType = field(default_factory=lambda: Scalar("string"))


@dataclass(frozen=True, slots=True)
class Timestamp(GoType):
    """`metav1.Time` (seconds) or `metav1.MicroTime` (`micro`): RFC 3339 text, null when zero."""

    micro: bool = False


@dataclass(frozen=True, slots=True)
class RawJSON(GoType):
    """A type holding any JSON as it came (`metav1.FieldsV1`)."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a struct: its JSON name and type, the tag's omitempty, its protobuf
    number, and what the OpenAPI document says of it."""

    json: str
    type: GoType
    omitempty: bool = True
    proto: int = 0
    description: str = ""
    required: bool = False
    extensions: Mapping[str, Any] = field(default_factory=dict)
    """OpenAPI extensions: x-kubernetes-list-type, x-kubernetes-patch-strategy, ..."""


@dataclass(frozen=True, slots=True)
class Struct(GoType):
    """A struct. `name` is `package.Type` (`v1.Event`); `definition` is its OpenAPI name."""

    fields: tuple[Field, ...] = ()
    definition: str = ""
    description: str = ""
    extensions: Mapping[str, Any] = field(default_factory=dict)
    by_json: Mapping[str, tuple[int, Field]] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_json", {f.json: (i, f) for i, f in enumerate(self.fields)})

    @property
    def type_name(self) -> str:
        """The name without its package (reflect's Type.Name(), which Go's errors print)."""
        return self.name.rsplit(".", 1)[-1]

    def field(self, name: str) -> Field:
        """The field with this JSON name."""
        return self.by_json[name][1]


STRING = Scalar("string")
BOOL = Scalar("bool", "bool")
INT32 = Scalar("int32", "int32")
INT64 = Scalar("int64", "int64")
TIME = Timestamp("v1.Time")
MICRO_TIME = Timestamp("v1.MicroTime", micro=True)

_INT_BITS = {"int32": 32, "int64": 64, "uint8": 8}


def zero(go_type: GoType) -> Any:
    """The zero value of a type, as `decode` represents values: a struct is a dict of all
    its fields; nil pointers, maps, slices, byte slices and zero times are None."""
    if isinstance(go_type, Scalar):
        return {"string": "", "bool": False}.get(go_type.kind, 0)
    if isinstance(go_type, Struct):
        return {f.json: zero(f.type) for f in go_type.fields}
    return None


# -- reading JSON ------------------------------------------------------------------------------


class _Object:
    """A JSON object as its members in document order, repeats included."""

    __slots__ = ("members",)

    def __init__(self, members: list[tuple[str, Any]]):
        self.members = members


class _Number:
    """A JSON number as its literal text (Go's errors quote it: `number 1.5`)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def parse_json(raw: bytes | str) -> Any:
    """JSON text as `decode` reads it (objects keep repeated members, numbers their text);
    ValueError when it is not JSON."""
    return json.loads(raw, object_pairs_hook=_Object, parse_int=_Number, parse_float=_Number, parse_constant=_not_json)


def plain(value: Any) -> Any:
    """A parsed value as ordinary JSON data (of repeated members the last wins)."""
    if isinstance(value, _Object):
        return {key: plain(item) for key, item in value.members}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, _Number):
        text = value.text
        return int(text) if re.fullmatch(r"-?\d+", text) else float(text)
    return value


def type_meta(document: Any) -> dict[str, Any]:
    """The apiVersion and kind of a parsed object (the last of each given), as plain data."""
    found: dict[str, Any] = {}
    for key, value in _members(document) or ():
        if key in ("apiVersion", "kind"):
            found[key] = plain(value)
    return found


def is_object(value: Any) -> bool:
    """Whether a parsed value is a JSON object."""
    return isinstance(value, (_Object, dict))


def _members(value: Any) -> Iterator[tuple[str, Any]] | None:
    if isinstance(value, _Object):
        return iter(value.members)
    if isinstance(value, dict):
        return iter(value.items())
    return None


def describe(value: Any) -> str:
    """How Go's errors name a JSON value."""
    if isinstance(value, (_Object, dict)):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if value is None:
        return "null"
    return "number"


def _number_text(value: Any) -> str | None:
    if isinstance(value, _Number):
        return value.text
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # Go writes an integral float64 without a fraction: a patched object's 1.0 reads as 1.
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    return None


# -- decoding ------------------------------------------------------------------------------------


class DecodeError(ValueError):
    """The error Go's decoder reports for a document; `str()` is Go's message."""


class _Abort(Exception):
    """An error that ends decoding at once (an Unmarshaler's error: the times')."""

    def __init__(self, message: str):
        self.message = message


@dataclass
class Decoded:
    """What `decode` read: the value, and the problems strict decoding reports."""

    value: Any
    strict: list[str]
    """`unknown field "x"` and `duplicate field "x"`, in document order, each once."""


class _Decoder:
    """Go's decodeState, for values already parsed."""

    def __init__(self) -> None:
        self.saved: str | None = None
        self.strict: list[str] = []
        self._seen: set[str] = set()
        self.struct: Struct | None = None
        self.fields: list[str] = []
        self.path: list[str] = []

    # Go's error context: the innermost struct and the JSON field names from the root.
    def _context(self, message_value: str, type_name: str) -> str:
        if self.struct is not None or self.fields:
            where = f"{self.struct.type_name if self.struct else ''}.{'.'.join(self.fields)}"
            return f"json: cannot unmarshal {message_value} into Go struct field {where} of type {type_name}"
        return f"json: cannot unmarshal {message_value} into Go value of type {type_name}"

    def _type_error(self, value: str, go_type: GoType) -> None:
        if self.saved is None:
            self.saved = self._context(value, go_type.name)

    def _save(self, message: str) -> None:
        if self.saved is None:
            self.saved = message

    def _strict(self, kind: str, name: str) -> None:
        path = "".join(self.path) + "." + name if self.path else name
        problem = f"{kind} {go_quote(path)}"
        if problem not in self._seen and len(self.strict) < 100:
            self._seen.add(problem)
            self.strict.append(problem)

    def _push_key(self, key: str) -> None:
        self.path.extend((".", key) if self.path else (key,))

    def value(self, go_type: GoType, raw: Any, current: Any) -> Any:
        """`raw` decoded into a value of `go_type` that holds `current` (what a repeated
        member is decoded into)."""
        if isinstance(go_type, Pointer):
            if raw is None:
                return None
            return self.value(go_type.elem, raw, current if current is not None else zero(go_type.elem))
        if isinstance(go_type, Timestamp):
            return self._time(go_type, raw)
        if isinstance(go_type, RawJSON):
            return plain(raw)
        if raw is None:  # null clears maps and slices, and leaves everything else as it is
            return None if isinstance(go_type, (Map, Slice, Bytes)) else current
        if isinstance(go_type, Struct):
            return self._struct(go_type, raw, current)
        if isinstance(go_type, Map):
            return self._map(go_type, raw, current)
        if isinstance(go_type, (Slice, Bytes)):
            return self._slice(go_type, raw, current)
        assert isinstance(go_type, Scalar)
        return self._scalar(go_type, raw, current)

    def _scalar(self, go_type: Scalar, raw: Any, current: Any) -> Any:
        kind = go_type.kind
        if kind == "string":
            if isinstance(raw, str):
                return raw
        elif kind == "bool":
            if isinstance(raw, bool):
                return raw
        else:
            text = _number_text(raw)
            if text is not None:
                if re.fullmatch(r"-?\d+", text) and -(2 ** (_INT_BITS[kind] - 1)) <= int(text) < 2 ** (
                    _INT_BITS[kind] - 1
                ):
                    return int(text)
                self._type_error(f"number {text}", go_type)
                return current
        self._type_error(describe(raw), go_type)
        return current

    def _struct(self, go_type: Struct, raw: Any, current: Any) -> Any:
        members = _members(raw)
        if members is None:
            self._type_error(describe(raw), go_type)
            return current
        value = dict(current) if current is not None else zero(go_type)
        seen: set[int] = set()
        struct, fields, depth = self.struct, len(self.fields), len(self.path)
        for key, item in members:
            found = go_type.by_json.get(key)
            if found is None:
                self._strict("unknown field", key)
                continue
            index, member = found
            if index in seen:
                self._strict("duplicate field", member.json)
            seen.add(index)
            self.fields.append(member.json)
            self.struct = go_type
            self._push_key(member.json)
            value[member.json] = self.value(member.type, item, value.get(member.json))
            del self.fields[fields:], self.path[depth:]
            self.struct = struct
        return value

    def _map(self, go_type: Map, raw: Any, current: Any) -> Any:
        members = _members(raw)
        if members is None:
            self._type_error(describe(raw), go_type)
            return current
        value = dict(current) if current is not None else {}
        seen: set[str] = set()
        depth = len(self.path)
        for key, item in members:
            if key in seen:
                self._strict("duplicate field", key)
            seen.add(key)
            self._push_key(key)
            value[key] = self.value(go_type.elem, item, zero(go_type.elem))  # a map's element starts from zero
            del self.path[depth:]
        return value

    def _slice(self, go_type: Slice | Bytes, raw: Any, current: Any) -> Any:
        if isinstance(go_type, Bytes) and isinstance(raw, str):
            try:
                return decode_base64(raw)
            except DecodeError as error:
                self._save(str(error))
                return current
        if not isinstance(raw, list):
            self._type_error(describe(raw), go_type)
            return current
        elem = go_type.elem if isinstance(go_type, Slice) else Scalar("uint8", "uint8")
        depth = len(self.path)
        items: list[Any] = []
        for index, item in enumerate(raw):
            self.path.extend(("[", str(index), "]"))
            existing = current[index] if isinstance(current, list) and index < len(current) else zero(elem)
            items.append(self.value(elem, item, existing))
            del self.path[depth:]
        return bytes(i for i in items if isinstance(i, int)) if isinstance(go_type, Bytes) else items

    def _time(self, go_type: Timestamp, raw: Any) -> Any:
        if raw is None:
            return None
        if not isinstance(raw, str):  # the Unmarshaler reads a string first
            raise _Abort(self._context(describe(raw), "string"))
        layout = gotime.RFC3339_MICRO if go_type.micro else gotime.RFC3339
        try:
            moment, nanos = gotime.parse(layout, raw)
        except gotime.TimeParseError as error:
            raise _Abort(str(error)) from None
        except ValueError as error:
            raise _Abort(str(error)) from None
        return _time_text(moment, nanos, go_type.micro)


def _time_text(moment: Any, nanos: int, micro: bool) -> str | None:
    """A time as Go's MarshalJSON writes it (UTC; seconds, or microseconds); None when zero."""
    if (
        moment.year == 1
        and moment.month == 1
        and moment.day == 1
        and not (moment.hour or moment.minute or moment.second or nanos)
    ):
        return None
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{nanos // 1000:06d}Z" if micro else f"{text}Z"


def decode(go_type: Struct, document: Any) -> Decoded:
    """A parsed JSON document (`parse_json`, or plain JSON data) read into `go_type`;
    DecodeError with Go's message for the first error Go would report."""
    decoder = _Decoder()
    try:
        value = decoder.value(go_type, document, zero(go_type))
    except _Abort as abort:
        raise DecodeError(abort.message) from None
    if decoder.saved is not None:
        raise DecodeError(decoder.saved)
    return Decoded(value, decoder.strict)


# -- base64, as Go's StdEncoding reads it --------------------------------------------------------

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_DECODE_MAP = {byte: index for index, byte in enumerate(_ALPHABET)}


def decode_base64(text: str) -> bytes:
    """Go's base64.StdEncoding.DecodeString: padding required, \\r and \\n skipped;
    DecodeError `illegal base64 data at input byte N` at the byte Go names."""
    source = text.encode("utf-8", "surrogatepass")
    try:
        if b"\n" not in source and b"\r" not in source and len(source) % 4 == 0:
            return base64.b64decode(source, validate=True)
    except binascii.Error:
        pass
    out = bytearray()
    position = 0
    while position < len(source):
        position, chunk = _decode_quantum(source, position)
        out += chunk
    return bytes(out)


def _corrupt(offset: int) -> DecodeError:
    return DecodeError(f"illegal base64 data at input byte {offset}")


def _decode_quantum(source: bytes, position: int) -> tuple[int, bytes]:
    """Go's decodeQuantum: up to four characters from `position`; the next position and bytes."""
    digits: list[int] = []
    length = 4
    j = 0
    while j < 4:
        if position == len(source):
            if j == 0:
                return position, b""
            raise _corrupt(position - j)  # padding is required
        char = source[position]
        position += 1
        if char in _DECODE_MAP:
            digits.append(_DECODE_MAP[char])
            j += 1
            continue
        if char in (0x0A, 0x0D):
            continue
        if char != 0x3D:  # '='
            raise _corrupt(position - 1)
        if j in (0, 1):
            raise _corrupt(position - 1)
        if j == 2:  # "==" expected: the first is read
            while position < len(source) and source[position] in (0x0A, 0x0D):
                position += 1
            if position == len(source):
                raise _corrupt(len(source))
            if source[position] != 0x3D:
                raise _corrupt(position - 1)
            position += 1
        while position < len(source) and source[position] in (0x0A, 0x0D):
            position += 1
        if position < len(source):
            raise _corrupt(position)  # text after the padding
        length = j
        break
    digits += [0] * (4 - len(digits))
    value = digits[0] << 18 | digits[1] << 12 | digits[2] << 6 | digits[3]
    return position, value.to_bytes(3, "big")[: length - 1]


def encode_base64(data: bytes) -> str:
    """Go's base64.StdEncoding.EncodeToString."""
    return base64.b64encode(data).decode("ascii")


# -- encoding ------------------------------------------------------------------------------------


def _empty(go_type: GoType, value: Any) -> bool:
    """Go's isEmptyValue for `omitempty` (structs and times are never empty)."""
    if isinstance(go_type, (Struct, Timestamp)):
        return False
    if isinstance(go_type, Scalar):
        return not value
    if isinstance(go_type, RawJSON):
        return value is None
    return value is None or (not isinstance(go_type, Pointer) and len(value) == 0)


def encode(go_type: GoType, value: Any) -> Any:
    """A decoded value as the JSON data Go's encoder writes for it."""
    if isinstance(go_type, Struct):
        current = value if isinstance(value, dict) else {}
        out: dict[str, Any] = {}
        for member in go_type.fields:
            item = current.get(member.json, zero(member.type))
            if member.omitempty and _empty(member.type, item):
                continue
            out[member.json] = encode(member.type, item)
        return out
    if value is None:
        return None
    if isinstance(go_type, Pointer):
        return encode(go_type.elem, value)
    if isinstance(go_type, Bytes):
        return encode_base64(value)
    if isinstance(go_type, Slice):
        return [encode(go_type.elem, item) for item in value]
    if isinstance(go_type, Map):
        return {key: encode(go_type.elem, value[key]) for key in sorted(value)}
    return value


def normalize(go_type: Struct, data: Mapping[str, Any]) -> dict[str, Any]:
    """JSON data that Go reads without error, as Go writes it back (fields it does not know
    dropped, zero values and omitempty applied)."""
    encoded: dict[str, Any] = encode(go_type, decode(go_type, data).value)
    return encoded
