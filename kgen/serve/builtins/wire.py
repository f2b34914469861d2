"""The protobuf encoding of the built-in kinds, read and written from their Go types.

`kubectl create configmap|secret|serviceaccount` sends protobuf (client-go's typed
clients do), so the server reads it and answers in it when asked. The messages are
k8s.io/api's generated.proto: every field by the number in `types.py`, written as the
generated (gogo) marshallers write them: proto2, so a string, integer, bool or nested
struct that is not a pointer is always written, pointers and byte slices only when set,
map entries sorted by key, repeated fields one element at a time, Time as `{seconds}`
and MicroTime as `{seconds, nanos}` (the zero time an empty message), FieldsV1 as its
JSON bytes. Reading takes whatever order and skips fields it does not know.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from kgen.runtime import gotypes, protobuf
from kgen.runtime.gotypes import Bytes, Field, Map, Pointer, RawJSON, Scalar, Slice, Struct, Timestamp
from kgen.runtime.protobuf import ProtobufError

if TYPE_CHECKING:
    from kgen.serve.builtins.flow import BuiltinKind

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5

# -- writing ---------------------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative integers are written as 64-bit two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _delimited(number: int, payload: bytes) -> bytes:
    return _tag(number, _BYTES) + _varint(len(payload)) + payload


def _time_message(text: str | None, micro: bool) -> bytes:
    if not text:
        return b""  # the zero time
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
    seconds = delta.days * 86400 + delta.seconds
    return _tag(1, _VARINT) + _varint(seconds) + _tag(2, _VARINT) + _varint(delta.microseconds * 1000 if micro else 0)


def _value(number: int, go_type: Any, value: Any) -> bytes:
    """One field (or one element of a repeated field)."""
    if isinstance(go_type, Pointer):
        return b"" if value is None else _value(number, go_type.elem, value)
    if isinstance(go_type, Scalar):
        if go_type.kind == "string":
            return _delimited(number, str(value or "").encode())
        if go_type.kind == "bool":
            return _tag(number, _VARINT) + _varint(1 if value else 0)
        return _tag(number, _VARINT) + _varint(int(value or 0))
    if isinstance(go_type, Struct):
        return _delimited(number, marshal(go_type, value or {}))
    if isinstance(go_type, Timestamp):
        return _delimited(number, _time_message(value, go_type.micro))
    if isinstance(go_type, RawJSON):
        return (
            b""
            if value is None
            else _delimited(number, _delimited(1, json.dumps(value, separators=(",", ":")).encode()))
        )
    if isinstance(go_type, Bytes):
        return b"" if value is None else _delimited(number, gotypes.decode_base64(value))
    if isinstance(go_type, Slice):
        return b"".join(_value(number, go_type.elem, item) for item in value or ())
    assert isinstance(go_type, Map)
    out = b""
    for key in sorted(value or {}):
        entry = _delimited(1, key.encode()) + _value(2, go_type.elem, value[key])
        out += _delimited(number, entry)
    return out


def marshal(go_type: Struct, obj: dict[str, Any]) -> bytes:
    """The message of an object (its JSON as `gotypes.encode` writes it), fields by number."""
    out = b""
    for member in sorted((f for f in go_type.fields if f.proto), key=lambda f: f.proto):
        value = obj.get(member.json)
        if value is None and isinstance(member.type, Scalar):
            value = gotypes.zero(member.type)
        out += _value(member.proto, member.type, value)
    return out


def encode_object(obj: dict[str, Any], go_type: Struct, api_version: str, kind: str) -> bytes:
    """An object (or list) as an `application/vnd.kubernetes.protobuf` body."""
    return protobuf.encode_envelope(api_version, kind, marshal(go_type, obj))


# -- reading ---------------------------------------------------------------------------------------


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """The fields of a message: (number, wire type, value); ProtobufError when malformed."""
    out: list[tuple[int, int, Any]] = []
    position = 0

    def varint() -> int:
        nonlocal position
        shift = result = 0
        while True:
            if position >= len(data) or shift > 63:
                raise ProtobufError("truncated or overlong varint")
            byte = data[position]
            position += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result

    while position < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            out.append((number, wire, varint()))
        elif wire == _BYTES:
            length = varint()
            if position + length > len(data):
                raise ProtobufError("a length-delimited field runs past the end of its message")
            out.append((number, wire, data[position : position + length]))
            position += length
        elif wire in (_FIXED64, _FIXED32):
            position += 8 if wire == _FIXED64 else 4
            if position > len(data):
                raise ProtobufError("a fixed-size field runs past the end of its message")
        else:
            raise ProtobufError(f"unsupported wire type {wire}")
    return out


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _read_time(data: bytes, micro: bool) -> str | None:
    if not data:
        return None
    seconds = nanos = 0
    for number, wire, value in _fields(data):
        if wire == _VARINT and number == 1:
            seconds = _signed(value, 64)
        elif wire == _VARINT and number == 2:
            nanos = _signed(value, 32)
    if not micro:
        nanos = 0  # metav1.Time reads seconds only
    try:
        moment = datetime.fromtimestamp(seconds, timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise ProtobufError(f"a time of {seconds} seconds is outside the years 1-9999") from None
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{(nanos // 1000) % 1_000_000:06d}Z" if micro else f"{text}Z"


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtobufError("a string field is not UTF-8") from None


def _read(go_type: Any, wire: int, value: Any) -> Any:
    if isinstance(go_type, Pointer):
        return _read(go_type.elem, wire, value)
    if isinstance(go_type, Scalar):
        if go_type.kind == "string":
            return _text(value) if wire == _BYTES else ""
        if wire != _VARINT:
            raise ProtobufError(f"a {go_type.name} field is not a varint")
        if go_type.kind == "bool":
            return value != 0
        return _signed(value, 32 if go_type.kind == "int32" else 64)
    if wire != _BYTES:
        raise ProtobufError(f"a {go_type.name} field is not length-delimited")
    if isinstance(go_type, Struct):
        return unmarshal(go_type, value)
    if isinstance(go_type, Timestamp):
        return _read_time(value, go_type.micro)
    if isinstance(go_type, RawJSON):
        raw = b"".join(v for n, w, v in _fields(value) if n == 1 and w == _BYTES)
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise ProtobufError("FieldsV1 does not hold JSON") from None
    if isinstance(go_type, Bytes):
        return gotypes.encode_base64(value)
    raise ProtobufError(f"cannot read a {go_type.name}")  # slices and maps are read by their fields


def unmarshal(go_type: Struct, data: bytes) -> dict[str, Any]:
    """A message as the JSON data of the object it holds."""
    by_number: dict[int, Field] = {f.proto: f for f in go_type.fields if f.proto}
    out: dict[str, Any] = {}
    for number, wire, value in _fields(data):
        member = by_number.get(number)
        if member is None:
            continue
        kind = member.type
        if isinstance(kind, Slice):
            out.setdefault(member.json, []).append(_read(kind.elem, wire, value))
        elif isinstance(kind, Map):
            if wire != _BYTES:
                raise ProtobufError(f"a map entry of {member.json} is not length-delimited")
            key, item = "", None
            for entry_number, entry_wire, entry_value in _fields(value):
                if entry_number == 1 and entry_wire == _BYTES:
                    key = _text(entry_value)
                elif entry_number == 2:
                    item = _read(kind.elem, entry_wire, entry_value)
            if item is None and isinstance(kind.elem, Scalar):
                item = gotypes.zero(kind.elem)
            out.setdefault(member.json, {})[key] = item
        else:
            out[member.json] = _read(kind, wire, value)
    return out


def decode_message(body: bytes, go_type: Struct, api_version: str, kind: str) -> dict[str, Any]:
    """A protobuf request body holding a `go_type` as its JSON data, with the apiVersion and
    kind the envelope names (these when it names none); ProtobufError when it is not one."""
    envelope = protobuf.decode_envelope(body)
    if envelope.content_encoding:
        raise ProtobufError(f"content encoding {envelope.content_encoding!r} is not supported")
    obj = unmarshal(go_type, envelope.raw)
    # The envelope names the object's kind; the JSON flow then checks it as it checks JSON's.
    return {"apiVersion": envelope.api_version or api_version, "kind": envelope.kind or kind, **obj}


def decode_object(body: bytes, kind: BuiltinKind) -> dict[str, Any]:
    """A protobuf request body of this kind as its JSON data; ProtobufError when it is not one."""
    return decode_message(body, kind.type, kind.api_version, kind.kind)
