"""The Kubernetes protobuf encoding: well-known values as their messages, and the envelope.

The API server's `application/vnd.kubernetes.protobuf` body is the 4-byte magic `k8s\\0`
followed by a `runtime.Unknown` message: `typeMeta` (apiVersion, kind), `raw` (the
object's own message) and the content encoding and type. `encode(obj)`/`decode(data)`
read and write it for any model whose package has generated protobuf converters;
`encode_envelope`/`decode_envelope` work on the raw parts.

The well-known values are written as apimachinery writes them: Time and MicroTime as
`{seconds, nanos}` (the zero time as an empty message), Duration as nanoseconds,
Quantity as its canonical string, IntOrString as `{type, intVal, strVal}`, RawExtension
and FieldsV1 as the JSON bytes they hold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import FieldsV1, RawExtension, _RawJSON
from kgen.runtime.timeutil import Duration, MicroTime, Time

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class ProtobufError(ValueError):
    """Bytes that are not a Kubernetes protobuf object kgen can decode."""


# -- well-known values ---------------------------------------------------------------------


def time_to_proto(value: Time | None, msg: Any) -> None:
    """A Time as Go writes it: seconds only (Go leaves `nanos` out, as its JSON has none)."""
    msg.SetInParent()
    if value is None:
        return  # the zero time: an empty message
    delta = value - _EPOCH
    msg.seconds = delta.days * 86400 + delta.seconds


def time_from_proto(msg: Any) -> Time | None:
    """A Time as Go reads it: the seconds; `nanos` is ignored, as Go ignores it."""
    if not msg.ListFields():
        return None
    return Time.fromtimestamp(msg.seconds, timezone.utc)


def micro_time_to_proto(value: MicroTime | None, msg: Any) -> None:
    """A MicroTime: seconds and nanos, truncated to the microsecond."""
    msg.SetInParent()
    if value is None:
        return
    delta = value - _EPOCH
    msg.seconds = delta.days * 86400 + delta.seconds
    msg.nanos = delta.microseconds * 1000


def micro_time_from_proto(msg: Any) -> MicroTime | None:
    """A MicroTime: `nanos` truncated to the microsecond, as Go reads it."""
    if not msg.ListFields():
        return None
    return MicroTime.fromtimestamp(msg.seconds, timezone.utc).replace(microsecond=msg.nanos // 1000)


def duration_to_proto(value: Duration | None, msg: Any) -> None:
    msg.duration = 0 if value is None else value.nanoseconds()


def duration_from_proto(msg: Any) -> Duration:
    return Duration(microseconds=msg.duration / 1000)


def quantity_to_proto(value: Quantity | None, msg: Any) -> None:
    msg.string = "0" if value is None else str(value)


def quantity_from_proto(msg: Any) -> Quantity:
    return Quantity(msg.string)


def int_or_string_to_proto(value: IntOrString | None, msg: Any) -> None:
    value = value if value is not None else IntOrString(0)
    msg.type = value.type
    msg.intVal = value.int_val
    msg.strVal = value.str_val


def int_or_string_from_proto(msg: Any) -> IntOrString:
    return IntOrString(msg.strVal if msg.type == 1 else msg.intVal)


def _raw_to_proto(value: _RawJSON | None, msg: Any, field: str) -> None:
    msg.SetInParent()
    if value is not None and value.raw is not None:
        setattr(msg, field, json.dumps(value.raw, separators=(",", ":"), ensure_ascii=False).encode())


def _raw_from_proto(cls: type[_RawJSON], msg: Any, field: str) -> Any:
    if not msg.HasField(field):
        return None
    data = getattr(msg, field)
    try:
        return cls(json.loads(data)) if data else cls(None)
    except ValueError as err:
        raise ProtobufError(f"{cls.__name__} does not hold JSON ({err}); kgen keeps raw extensions as JSON") from None


def raw_extension_to_proto(value: RawExtension | None, msg: Any) -> None:
    _raw_to_proto(value, msg, "raw")


def raw_extension_from_proto(msg: Any) -> RawExtension | None:
    return _raw_from_proto(RawExtension, msg, "raw")


def fields_v1_to_proto(value: FieldsV1 | None, msg: Any) -> None:
    _raw_to_proto(value, msg, "Raw")


def fields_v1_from_proto(msg: Any) -> FieldsV1 | None:
    return _raw_from_proto(FieldsV1, msg, "Raw")


#: The converters of the runtime classes, by the `+kgen:python` class they implement.
WELL_KNOWN = {
    "kgen.runtime.timeutil:Time": ("time_to_proto", "time_from_proto"),
    "kgen.runtime.timeutil:MicroTime": ("micro_time_to_proto", "micro_time_from_proto"),
    "kgen.runtime.timeutil:Duration": ("duration_to_proto", "duration_from_proto"),
    "kgen.runtime.quantity:Quantity": ("quantity_to_proto", "quantity_from_proto"),
    "kgen.runtime.intstr:IntOrString": ("int_or_string_to_proto", "int_or_string_from_proto"),
    "kgen.runtime.rawjson:RawExtension": ("raw_extension_to_proto", "raw_extension_from_proto"),
    "kgen.runtime.rawjson:FieldsV1": ("fields_v1_to_proto", "fields_v1_from_proto"),
}


# -- models <-> messages ------------------------------------------------------------------


@dataclass(frozen=True)
class _Codec:
    message: Any
    to_proto: Any
    from_proto: Any


_CODECS: dict[type, _Codec] = {}
_KINDS: dict[tuple[str, str], type] = {}


def register(cls: type, message: Any, to_proto: Any, from_proto: Any) -> None:
    """Called by generated `protobuf.py` modules for every struct they convert."""
    _CODECS[cls] = _Codec(message, to_proto, from_proto)
    gvk = getattr(cls, "__kgen_group_version_kind__", None)
    if gvk is not None:
        group, version, kind = gvk
        _KINDS[(f"{group}/{version}" if group else version, kind)] = cls


def _codec(cls: type) -> _Codec:
    codec = _CODECS.get(cls)
    if codec is None:
        raise ProtobufError(f"{cls.__name__} has no protobuf converters: is its package's protobuf module imported?")
    return codec


def to_message(obj: Any) -> Any:
    """The protobuf message of a model."""
    return _codec(type(obj)).to_proto(obj)


def from_message(cls: type, message: Any) -> Any:
    return _codec(cls).from_proto(message)


def marshal(obj: Any) -> bytes:
    """The object's message bytes, map entries sorted (as the API server writes them)."""
    return to_message(obj).SerializeToString(deterministic=True)


def unmarshal(cls: type, data: bytes) -> Any:
    codec = _codec(cls)
    message = codec.message()
    try:
        message.ParseFromString(data)
    except Exception as err:  # the C implementation raises its own DecodeError
        raise ProtobufError(f"not a {cls.__name__} message: {err}") from None
    return codec.from_proto(message)


# -- the envelope --------------------------------------------------------------------------


@dataclass(frozen=True)
class Envelope:
    """A decoded `runtime.Unknown`."""

    api_version: str
    kind: str
    raw: bytes
    content_encoding: str = ""
    content_type: str = ""


def _unknown():
    from kgen.runtime.apimachinery.runtime import generated_pb2

    return generated_pb2.Unknown()


def encode_envelope(api_version: str, kind: str, raw: bytes, content_encoding: str = "", content_type: str = "") -> bytes:
    """`k8s\\0` + the Unknown message, every field written as apimachinery writes it."""
    unknown = _unknown()
    unknown.typeMeta.apiVersion = api_version
    unknown.typeMeta.kind = kind
    unknown.raw = raw
    unknown.contentEncoding = content_encoding
    unknown.contentType = content_type
    return MAGIC + unknown.SerializeToString(deterministic=True)


def decode_envelope(data: bytes) -> Envelope:
    if not data.startswith(MAGIC):
        raise ProtobufError(f"not a Kubernetes protobuf object: it does not start with {MAGIC!r}")
    unknown = _unknown()
    try:
        unknown.ParseFromString(data[len(MAGIC) :])
    except Exception as err:
        raise ProtobufError(f"the envelope is not a runtime.Unknown message: {err}") from None
    return Envelope(
        api_version=unknown.typeMeta.apiVersion,
        kind=unknown.typeMeta.kind,
        raw=unknown.raw,
        content_encoding=unknown.contentEncoding,
        content_type=unknown.contentType,
    )


def encode(obj: Any) -> bytes:
    """An API object as an `application/vnd.kubernetes.protobuf` body."""
    gvk = getattr(type(obj), "__kgen_group_version_kind__", None)
    if gvk is None:
        raise ProtobufError(f"{type(obj).__name__} is not a kind: only kinds travel in the envelope")
    api_version = getattr(obj, "api_version", None) or (f"{gvk[0]}/{gvk[1]}" if gvk[0] else gvk[1])
    return encode_envelope(api_version, getattr(obj, "kind", None) or gvk[2], marshal(obj))


def decode(data: bytes, cls: type | None = None) -> Any:
    """Decode an `application/vnd.kubernetes.protobuf` body into the registered kind it
    names (or into `cls`)."""
    envelope = decode_envelope(data)
    if envelope.content_encoding:
        raise ProtobufError(f"content encoding {envelope.content_encoding!r} is not supported")
    if cls is None:
        cls = _KINDS.get((envelope.api_version, envelope.kind))
        if cls is None:
            raise ProtobufError(f"no protobuf converters for {envelope.kind} of {envelope.api_version}")
    obj = unmarshal(cls, envelope.raw)
    values = obj.__dict__
    if "api_version" in values:
        values["api_version"] = envelope.api_version
    if "kind" in values:
        values["kind"] = envelope.kind
    return obj
