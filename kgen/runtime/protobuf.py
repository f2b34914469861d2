"""The Kubernetes protobuf encoding: well-known values as their messages, and the envelope.

The API server's `application/vnd.kubernetes.protobuf` body is the 4-byte magic `k8s\\0`
followed by a `runtime.Unknown` message: `typeMeta` (apiVersion, kind), `raw` (the
object's own message) and the content encoding and type. `encode(obj)`/`decode(data)`
read and write it for any model whose package has generated protobuf converters (pydantic
models or msgspec structs); `encode_envelope`/`decode_envelope` work on the raw parts.

The well-known values are written as apimachinery writes them: Time and MicroTime as
`{seconds, nanos}` (the zero time as an empty message), Duration as nanoseconds,
Quantity as its canonical string, IntOrString as `{type, intVal, strVal}`, RawExtension
and FieldsV1 as the JSON bytes they hold.

Decoding raises only `ProtobufError`, for any bytes: not a message, nested deeper than
the protobuf library reads (100 levels), a string field that is not UTF-8 (messages are
read through copies of their descriptors that check it, as Go's protobuf checks proto3
strings), or a value its model type refuses (a quantity, a time outside the years
1-9999, raw JSON that is not JSON).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, TypeVar

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from kgen.runtime.backend import backend_of
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import FieldsV1, RawExtension, _RawJSON, parse_json
from kgen.runtime.timeutil import Duration, MicroTime, Time, TimeRangeError

if TYPE_CHECKING:
    from kgen.runtime.apimachinery.runtime.generated_pb2 import Unknown

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_Raw = TypeVar("_Raw", bound=_RawJSON)
_Item = TypeVar("_Item")


class ProtobufError(ValueError):
    """Bytes that are not a Kubernetes protobuf object kgen can decode."""


# -- well-known values ---------------------------------------------------------------------


def time_to_proto(value: Time | None, msg: Any) -> None:
    """A Time as Go writes it: seconds only (Go leaves `nanos` out, as its JSON has none)."""
    msg.SetInParent()
    if value is None:
        return  # the zero time: an empty message
    delta = _since_epoch(value)
    msg.seconds = delta.days * 86400 + delta.seconds


def time_from_proto(msg: Any) -> Time | None:
    """A Time as Go reads it: the seconds; `nanos` is ignored, as Go ignores it.
    TimeRangeError (a ValueError) outside the years 1-9999."""
    if not msg.ListFields():
        return None
    return Time.from_datetime(_from_unix_micros(msg.seconds * 1_000_000))


def _since_epoch(moment: datetime) -> timedelta:
    return moment - _EPOCH


def _from_unix_micros(micros: int) -> datetime:
    try:
        return _EPOCH + timedelta(microseconds=micros)
    except OverflowError:
        raise TimeRangeError(
            f"{micros // 1_000_000} seconds from 1970 is outside the years 1-9999 kgen's times hold"
        ) from None


def micro_time_to_proto(value: MicroTime | None, msg: Any) -> None:
    """A MicroTime: seconds and nanos, truncated to the microsecond."""
    msg.SetInParent()
    if value is None:
        return
    delta = _since_epoch(value)
    msg.seconds = delta.days * 86400 + delta.seconds
    msg.nanos = delta.microseconds * 1000


def micro_time_from_proto(msg: Any) -> MicroTime | None:
    """A MicroTime as Go reads it: `time.Unix(seconds, nanos)` (nanos beyond a second carry
    over) truncated to the microsecond. TimeRangeError (a ValueError) outside the years 1-9999."""
    if not msg.ListFields():
        return None
    nanos = msg.seconds * 1_000_000_000 + msg.nanos
    return MicroTime.from_datetime(_from_unix_micros(nanos // 1000))


def duration_to_proto(value: Duration | None, msg: Any) -> None:
    msg.duration = 0 if value is None else value.nanoseconds()


def duration_from_proto(msg: Any) -> Duration:
    return Duration.from_nanoseconds(msg.duration)


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
    """ValueError for a type other than 0 (int) and 1 (string), which Go cannot write either."""
    if msg.type not in (0, 1):
        raise ValueError(f"an IntOrString's type is 0 (int) or 1 (string), not {msg.type}")
    return IntOrString(msg.strVal if msg.type == 1 else msg.intVal)


def _raw_to_proto(value: _RawJSON | None, msg: Any, field: str) -> None:
    msg.SetInParent()
    if value is not None and value.raw is not None:
        setattr(msg, field, json.dumps(value.raw, separators=(",", ":"), ensure_ascii=False).encode())


def _raw_from_proto(cls: type[_Raw], msg: Any, field: str) -> _Raw | None:
    if not msg.HasField(field):
        return None
    data = getattr(msg, field)
    try:
        return cls(parse_json(data)) if data else cls(None)
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


def present(item: _Item | None, field: str) -> _Item:
    """A list or map item of a field, which protobuf cannot carry as nil (Go's marshalers
    cannot write a nil item either): ValueError for None."""
    if item is None:
        raise ValueError(f"{field} holds a nil item, which protobuf cannot carry")
    return item


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
    data: bytes = to_message(obj).SerializeToString(deterministic=True)
    return data


def unmarshal(cls: type, data: bytes) -> Any:
    """The model of class `cls` that message bytes hold; ProtobufError if they hold none."""
    codec = _codec(cls)
    message = _parse(_verifying(codec.message), data, f"not a {cls.__name__} message")
    try:
        return codec.from_proto(message)
    except ProtobufError:
        raise
    except Exception as err:  # a value the model refuses; anything else is named in the cause
        raise ProtobufError(f"not a valid {cls.__name__}: {err}") from err


def _parse(message_class: Any, data: bytes, problem: str) -> Any:
    message = message_class()
    try:
        message.ParseFromString(data)
    except Exception as err:  # the C implementation raises its own DecodeError, and more
        raise ProtobufError(f"{problem}: {err}") from None
    return message


# -- strings that are UTF-8 ------------------------------------------------------------------

# go-to-protobuf writes proto2, whose string fields the protobuf library does not check:
# invalid UTF-8 comes back as bytes, which no model field holds. Messages are parsed as
# classes built from copies of their files in edition 2023 with proto2's semantics and
# one change, utf8_validation = VERIFY, so the C parser refuses such strings itself.
_VERIFYING_POOL = descriptor_pool.DescriptorPool()
_VERIFYING: dict[Any, Any] = {}
_PROTO2 = {
    "field_presence": descriptor_pb2.FeatureSet.EXPLICIT,
    "enum_type": descriptor_pb2.FeatureSet.CLOSED,
    "repeated_field_encoding": descriptor_pb2.FeatureSet.EXPANDED,
    "utf8_validation": descriptor_pb2.FeatureSet.VERIFY,
    "message_encoding": descriptor_pb2.FeatureSet.LENGTH_PREFIXED,
    "json_format": descriptor_pb2.FeatureSet.LEGACY_BEST_EFFORT,
}


def _verifying(message_class: Any) -> Any:
    """The class of the same message whose parser refuses strings that are not UTF-8."""
    verifying = _VERIFYING.get(message_class)
    if verifying is None:
        descriptor = message_class.DESCRIPTOR
        _add_verifying_file(descriptor.file)
        verifying = message_factory.GetMessageClass(_VERIFYING_POOL.FindMessageTypeByName(descriptor.full_name))
        _VERIFYING[message_class] = verifying
    return verifying


def _add_verifying_file(file: Any) -> None:
    try:
        _VERIFYING_POOL.FindFileByName(file.name)
        return
    except KeyError:
        pass
    for dependency in file.dependencies:
        _add_verifying_file(dependency)
    proto = descriptor_pb2.FileDescriptorProto.FromString(file.serialized_pb)
    if proto.syntax in ("", "proto2"):  # proto3 and editions files check UTF-8 already
        proto.syntax = "editions"
        proto.edition = descriptor_pb2.EDITION_2023
        for name, value in _PROTO2.items():
            setattr(proto.options.features, name, value)
        for message in proto.message_type:
            _as_edition(message)
    _VERIFYING_POOL.Add(proto)


def _as_edition(message: Any) -> None:
    """What proto2 says with labels and options, edition 2023 says with features."""
    for field in message.field:
        if field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REQUIRED:
            field.label = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
            field.options.features.field_presence = descriptor_pb2.FeatureSet.LEGACY_REQUIRED
        if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_GROUP:
            field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
            field.options.features.message_encoding = descriptor_pb2.FeatureSet.DELIMITED
        if field.options.HasField("packed"):
            if field.options.packed:
                field.options.features.repeated_field_encoding = descriptor_pb2.FeatureSet.PACKED
            field.options.ClearField("packed")
    for nested in message.nested_type:
        _as_edition(nested)


# -- the envelope --------------------------------------------------------------------------


@dataclass(frozen=True)
class Envelope:
    """A decoded `runtime.Unknown`."""

    api_version: str
    kind: str
    raw: bytes
    content_encoding: str = ""
    content_type: str = ""


def _unknown() -> Unknown:
    from kgen.runtime.apimachinery.runtime import generated_pb2

    return generated_pb2.Unknown()


def encode_envelope(
    api_version: str, kind: str, raw: bytes, content_encoding: str = "", content_type: str = ""
) -> bytes:
    """`k8s\\0` + the Unknown message, every field written as apimachinery writes it."""
    unknown = _unknown()
    unknown.typeMeta.apiVersion = api_version
    unknown.typeMeta.kind = kind
    unknown.raw = raw
    unknown.contentEncoding = content_encoding
    unknown.contentType = content_type
    return MAGIC + unknown.SerializeToString(deterministic=True)


def decode_envelope(data: bytes) -> Envelope:
    """The parts of an `application/vnd.kubernetes.protobuf` body; ProtobufError if it is not one."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ProtobufError(f"a Kubernetes protobuf object is bytes, not {type(data).__name__}")
    data = bytes(data)
    if not data.startswith(MAGIC):
        raise ProtobufError(f"not a Kubernetes protobuf object: it does not start with {MAGIC!r}")
    unknown = _parse(_verifying(type(_unknown())), data[len(MAGIC) :], "the envelope is not a runtime.Unknown message")
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
    names (or into `cls`). Raises only ProtobufError, whatever the bytes."""
    envelope = decode_envelope(data)
    if envelope.content_encoding:
        raise ProtobufError(f"content encoding {envelope.content_encoding!r} is not supported")
    if cls is None:
        cls = _KINDS.get((envelope.api_version, envelope.kind))
        if cls is None:
            raise ProtobufError(f"no protobuf converters for {envelope.kind} of {envelope.api_version}")
    obj = unmarshal(cls, envelope.raw)
    _set_type_meta(obj, envelope.api_version, envelope.kind)
    return obj


def _set_type_meta(obj: Any, api_version: str, kind: str) -> None:
    """Give a decoded object the envelope's apiVersion and kind: a struct's attributes, a
    pydantic model's values (left out of its fields set, as the message did not set them)."""
    backend = backend_of(obj)
    if backend is not None:
        backend.set_unrecorded(obj, "api_version", api_version)
        backend.set_unrecorded(obj, "kind", kind)
