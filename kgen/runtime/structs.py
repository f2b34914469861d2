"""The msgspec model backend: the base of generated `msgspec.Struct` models, their value
hooks, and the runtime interface other generators use (as `kgen.runtime.model` has it for
pydantic models).

Generated structs decode and encode in msgspec's C code. They are declared so that msgspec's
own rules give Go's encoding/json bytes:

- every struct omits defaults (`omit_defaults`), and msgspec tests a default by identity
  (or, for a `list`/`dict` default factory, emptiness). An `omitempty` string, integer or
  bool defaults to its zero value, which CPython keeps as one object, so an empty value is
  omitted; a field Go always writes gets a default *factory* (`str`, `int`, `NONE`), which
  msgspec never takes for the default, so it is always written. `omitempty` slices, maps
  and `[]byte` default to an empty `list`, `dict` or `b""` and are never None: Go omits
  nil and empty alike, and so does msgspec for an empty factory default.
- maps are written with sorted keys (the encoder's `order="deterministic"`); the JSON that
  `RawExtension`, `FieldsV1` and `JSON` hold is written in its own order, as Go writes raw
  bytes back.
- kgen's value types (Quantity, IntOrString, Time, MicroTime, Duration and the raw JSON
  holders) are decoded and encoded by hooks; immutable values are cached by their text, so
  a list of pods shares its quantities and repeated times.
- a struct with a field msgspec cannot write as Go does (floats, whose text Go formats its
  own way, `omitzero` structs, `interface{}` values) says so (`__kgen_native__ = False`) and
  is written through its generated `_kgen_to_dict`, as the pydantic models are.
- a kind's `apiVersion` and `kind` default to its group, version and kind, so they are
  always written; set empty, Go omits them: the generated `__kgen_exact__` of a kind (and of
  what holds kinds) finds that, and the object is written through `_kgen_to_dict` too.

Where the bytes can still differ from the pydantic models': a `FieldsV1` (a managed-fields
trie, written by orjson in C) that a program filled by hand with NaN (`null`; the pydantic
models refuse it).

Decoding is msgspec's strict typed decoding. JSON `null` for a field Go cannot set to nil
fails that decoding; only then is the document read again with such nulls dropped, so
Go's "null leaves the zero value" costs nothing when no such null is there.

Structs are not tracked by the garbage collector (`gc=False`): they hold no reference
cycles unless a program puts an object inside itself.
"""

from __future__ import annotations

import copy
import itertools
import math
import operator
import re
import typing
from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Self, TypeVar

try:
    import msgspec
except ModuleNotFoundError as err:  # pragma: no cover - the runtime without the extra
    raise ModuleNotFoundError(
        "kgen's msgspec models need msgspec: pip install 'kgen-k8s[msgspec]'", name=err.name
    ) from None
import orjson

from kgen.runtime import gojson
from kgen.runtime.backend import json_path, strip_optional
from kgen.runtime.gojson import encode_bytes, float_value, go_escapes as _go_escapes, string_option
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import JSON, FieldsV1, RawExtension
from kgen.runtime.timeutil import Duration, MicroTime, Time

__all__ = [
    "Struct",
    "DecodedFloat",
    "StringEnum",
    "IntEnum",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "Uint8",
    "Uint16",
    "Uint32",
    "Uint64",
    "GoBytes",
    "NONE",
    "field",
    "constant",
    "zero_factory",
    "construct",
    "values",
    "fields_set",
    "mark_set",
    "register_deep_copy",
    "shallow_copy",
    "copy_json",
    "copy_raw",
    "is_zero",
    "encode_bytes",
    "float_value",
    "string_option",
    "decode_value",
]

Int8 = Annotated[int, msgspec.Meta(ge=-(2**7), le=2**7 - 1)]
Int16 = Annotated[int, msgspec.Meta(ge=-(2**15), le=2**15 - 1)]
Int32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
Uint8 = Annotated[int, msgspec.Meta(ge=0, le=2**8 - 1)]
Uint16 = Annotated[int, msgspec.Meta(ge=0, le=2**16 - 1)]
Uint32 = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]
Uint64 = Annotated[int, msgspec.Meta(ge=0, le=2**64 - 1)]

#: `[]byte`: standard base64 with padding in JSON (msgspec's own form), `bytes` in Python.
GoBytes = bytes

field = msgspec.field

#: The default factory of a field Go always writes whose zero value is nil: a factory is
#: never taken for the default, so the field is written (`null`); `type(None)()` is None.
NONE: Callable[[], None] = type(None)

_T = TypeVar("_T")


def constant(value: _T) -> Callable[[], _T]:
    """A default factory that returns `value` (immutable) each time: a field whose default is
    not its zero value (the `apiVersion` and `kind` of a kind) is then always written."""
    return itertools.repeat(value).__next__


_ZERO_FACTORIES: dict[type, Callable[[], Any]] = {}


def zero_factory(cls: type[_T]) -> Callable[[], _T]:
    """The default factory of a value type whose zero value Go writes (`Quantity` as "0",
    `IntOrString` as 0, `Duration` as "0s"): one shared zero object (they are immutable)."""
    factory = _ZERO_FACTORIES.get(cls)
    if factory is None:
        factory = _ZERO_FACTORIES[cls] = constant(cls())
    return factory


class StringEnum(str):
    """Base of generated open-ended string enums: a namespace of known values. Fields typed
    with an enum hold any string, as the API conventions require of clients. (As
    `kgen.runtime.model.StringEnum`, without importing pydantic.)"""

    __kgen_values__: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The values this client knows, in declaration order."""
        return cls.__kgen_values__


class IntEnum(int):
    """Base of generated open-ended integer enums (named integer types with constants)."""

    __kgen_values__: ClassVar[tuple[int, ...]] = ()

    @classmethod
    def values(cls) -> tuple[int, ...]:
        """The values this client knows, in declaration order."""
        return cls.__kgen_values__


class DecodedFloat(float):
    """A float read from JSON inside a raw JSON value (`RawExtension`, `FieldsV1`, `JSON`):
    a float in all but its type, written back as the pydantic models write it (Python's
    shortest digits, `1e+21`), where msgspec would write `1e21`."""

    __slots__ = ()

    @property
    def _kgen_json(self) -> msgspec.Raw:
        text = _encode_known(float(self))
        if b"e" in text and b"e-" not in text:
            text = text.replace(b"e", b"e+")  # 1e21 -> 1e+21, as the pydantic models write it
        return msgspec.Raw(text)


def _decoded_float(text: str) -> DecodedFloat:
    """A number of raw JSON as the structs read it (msgspec's `float_hook`): one too large
    for a float is refused, as msgspec refuses it everywhere else, and Go cannot write it."""
    value = DecodedFloat(text)
    if math.isinf(value):
        raise ValueError("Number out of range")
    return value


# -- value hooks -------------------------------------------------------------------------

_CACHE_LIMIT = 8192
"""Entries each cache of immutable decoded values holds before it starts over."""
_CACHED_TEXT = 64
"""The longest text whose value is cached."""

_QUANTITIES: dict[str, Quantity] = {}
_INT_OR_STRINGS: dict[int | str, IntOrString] = {}
_DURATIONS: dict[str, Duration] = {}
_TIMES: dict[tuple[type, str], Time] = {}
_CANONICAL = {
    Time: re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", re.ASCII).fullmatch,
    MicroTime: re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z", re.ASCII).fullmatch,
}
"""The text each time type writes: read from exactly that text, a time is written back as it."""


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
    """Cache a decoded immutable value by its text."""
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def _decode_quantity(value: Any) -> Quantity:
    if type(value) is str:
        quantity = _QUANTITIES.get(value)
        if quantity is None:
            quantity = Quantity(value.strip())  # Go's UnmarshalJSON trims spaces
            if len(value) <= _CACHED_TEXT:
                _remember(_QUANTITIES, value, quantity)
        return quantity
    if value is None:  # Go's Quantity reads null as zero
        return zero_factory(Quantity)()
    if isinstance(value, Quantity):
        return value
    return Quantity(value)


def _decode_int_or_string(value: Any) -> IntOrString:
    kind = type(value)
    if kind is str or kind is int:
        cached = _INT_OR_STRINGS.get(value)
        if cached is None:
            cached = IntOrString(value)
            if kind is int or len(value) <= _CACHED_TEXT:
                _remember(_INT_OR_STRINGS, value, cached)
        return cached
    if value is None:
        return zero_factory(IntOrString)()
    if isinstance(value, float):  # a DecodedFloat from JSON: named as JSON names it
        raise ValueError("an int-or-string holds an integer or a string, not float")
    return IntOrString(value)


def _decode_duration(value: Any) -> Duration:
    if type(value) is str:
        duration = _DURATIONS.get(value)
        if duration is None:
            duration = Duration.parse(value)
            if len(value) <= _CACHED_TEXT:
                _remember(_DURATIONS, value, duration)
        return duration
    if value is None:
        return zero_factory(Duration)()
    return Duration._validate(value)


def _time_decoder(cls: type[Time]) -> Callable[[Any], Time]:
    canonical = _CANONICAL.get(cls)

    def decode(value: Any) -> Time:
        if type(value) is not str:
            return cls._validate(value)
        key = (cls, value)
        time = _TIMES.get(key)
        if time is not None:
            return time
        time = cls._validate(value)
        if canonical is not None and canonical(value) is not None:
            time._kgen_json = value  # what it writes: the text it was read from
            _remember(_TIMES, key, time)
        return time

    return decode


def _raw_decoder(cls: type[RawExtension | FieldsV1 | JSON], trusted: bool) -> Callable[[Any], Any]:
    """Raw JSON holders. From JSON text (`trusted`), the value is JSON data already (msgspec
    refuses what `check_json` would, but for nesting, which its recursion limit bounds); from
    Python data, the holder checks it."""

    def decode(value: Any) -> Any:
        if isinstance(value, cls):
            return value.deep_copy()
        return cls.holding(value) if trusted else cls(value)

    return decode


def _hooks(trusted: bool) -> dict[type, Callable[[Any], Any]]:
    hooks: dict[type, Callable[[Any], Any]] = {
        Quantity: _decode_quantity,
        IntOrString: _decode_int_or_string,
        Duration: _decode_duration,
        Time: _time_decoder(Time),
        MicroTime: _time_decoder(MicroTime),
    }
    for cls in (RawExtension, FieldsV1, JSON):
        hooks[cls] = _raw_decoder(cls, trusted)
    return hooks


_JSON_HOOKS = _hooks(trusted=True)
_PYTHON_HOOKS = _hooks(trusted=False)


def _unknown_hook(cls: type, value: Any) -> Any:
    """A value type kgen's runtime does not know: its pydantic-style `_validate`, else its
    constructor."""
    if isinstance(value, cls):
        return value
    validate = getattr(cls, "_validate", None)
    return validate(value) if validate is not None else cls(value)


def _json_hook(cls: type, value: Any) -> Any:
    hook = _JSON_HOOKS.get(cls)
    return hook(value) if hook is not None else _unknown_hook(cls, value)


def _python_hook(cls: type, value: Any) -> Any:
    hook = _PYTHON_HOOKS.get(cls)
    return hook(value) if hook is not None else _unknown_hook(cls, value)


def _encode_hook(obj: Any) -> Any:
    """What msgspec writes for a value it does not know: kgen's value types say it in their
    `_kgen_json` (read in C by the encoder's own hook, `_json_of`); any other value type
    with a `to_json`, its JSON."""
    try:
        return obj._kgen_json
    except AttributeError:
        pass
    to_json = getattr(obj, "to_json", None)
    if to_json is None:
        raise TypeError(f"Encoding objects of type {obj.__class__.__name__} is unsupported")
    return to_json()


_json_of = operator.attrgetter("_kgen_json")
_orjson_dumps = orjson.dumps
_encode_known = msgspec.json.Encoder(enc_hook=_json_of, order="deterministic").encode
_encode_any = msgspec.json.Encoder(enc_hook=_encode_hook, order="deterministic").encode


def _fields_json(holder: FieldsV1) -> msgspec.Raw:
    # A managed-fields trie (objects with `{}` leaves) as the API server writes it, in its own
    # order: by orjson, which writes nested objects a third faster than msgspec, and floats as
    # Go and the pydantic models do (`1e+21`). What orjson refuses (integers beyond 64 bits,
    # a value that is not JSON data) is written as the pydantic models write it.
    try:
        return msgspec.Raw(_orjson_dumps(holder.raw))
    except orjson.JSONEncodeError:
        return msgspec.Raw(gojson.marshal(holder.raw))


def _raw_json(holder: RawExtension | JSON) -> msgspec.Raw:
    # Any JSON a program put there: checked and written as the pydantic models write it
    # (msgspec writes a float such as 1e21 without Python's `+`, and NaN as null).
    return msgspec.Raw(gojson.marshal(holder.to_json()))


# What the structs write for raw JSON (the `_kgen_json` of the holders, which the pydantic
# models share and never read).
setattr(FieldsV1, "_kgen_json", property(_fields_json))
setattr(RawExtension, "_kgen_json", property(_raw_json))
setattr(JSON, "_kgen_json", property(_raw_json))


_decode_plain = msgspec.json.Decoder().decode
_to_builtins = msgspec.to_builtins
_decode_any = msgspec.json.Decoder(dec_hook=_json_hook, float_hook=_decoded_float).decode


# -- the base class ------------------------------------------------------------------------

_DECODERS: dict[type, Callable[[Any], Any]] = {}


def _decoder(cls: type) -> Callable[[Any], Any]:
    decode = _DECODERS.get(cls)
    if decode is None:
        decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(
            cls, strict=True, dec_hook=_json_hook, float_hook=_decoded_float
        )
        decode = _DECODERS[cls] = decoder.decode
    return decode


_DEEP_COPIES: dict[type, Callable[[Any], Any]] = {}


class Struct(msgspec.Struct, omit_defaults=True, kw_only=True, gc=False, repr_omit_defaults=True):
    """Base class of generated msgspec models.

    Python attributes are snake_case; JSON uses the Go JSON names. `to_json()` writes
    exactly what Go's encoding/json writes for the same struct tags, the same bytes as the
    pydantic models; `from_json()` decodes the way the API server does (case-sensitive
    names, unknown fields ignored, `null` leaves a non-pointer field at its zero value).

    The decoders (`from_json`, `from_yaml`, `from_dict`) raise only `msgspec.DecodeError`
    (a ValueError), whatever they are given: `msgspec.ValidationError`, its subclass, for
    values the fields refuse (with the path, `$.spec.replicas`), `msgspec.DecodeError` for
    text that is not JSON or nests deeper than the interpreter's recursion limit.
    """

    __kgen_native__: ClassVar[bool] = True
    """Whether msgspec writes this class as Go does (else `_kgen_to_dict` does)."""

    @classmethod
    def from_json(cls, data: str | bytes) -> Self:
        """Decode JSON as the API server does; type mismatches are errors, as in Go."""
        try:
            decoded: Self = _decoder(cls)(data)
            return decoded
        except msgspec.ValidationError as err:
            return _decode_with_nulls(cls, data, err)
        except msgspec.DecodeError:
            raise
        except RecursionError:
            raise msgspec.DecodeError("JSON is nested too deeply") from None
        except UnicodeError:
            raise msgspec.DecodeError("JSON text is UTF-8, which cannot hold a lone surrogate") from None
        except TypeError as err:
            raise msgspec.DecodeError(str(err)) from None

    @classmethod
    def from_yaml(cls, text: str | bytes) -> Self:
        """Decode a YAML document as the API server does: converted to JSON as
        sigs.k8s.io/yaml converts it, then `from_json`, so exactly as strict.

        Raises only `msgspec.DecodeError`, as `from_json`."""
        from kgen.runtime import yamlio

        try:
            data = yamlio.to_json(text)
        except yamlio.YAMLError as err:
            raise msgspec.DecodeError(f"Invalid YAML: {err}") from None
        return cls.from_json(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Decode already-parsed JSON data (for example from a YAML document).

        Raises only `msgspec.DecodeError` (`msgspec.ValidationError` for values the fields
        refuse, and for a string UTF-8 cannot write)."""
        unwritable = gojson.unwritable_string(data)
        if unwritable is not None:
            raise msgspec.ValidationError(f"{unwritable[1]!r} holds a lone surrogate, which UTF-8 cannot write")
        try:
            try:
                converted: Self = msgspec.convert(data, cls, strict=True, dec_hook=_python_hook)
                return converted
            except msgspec.ValidationError:
                if not isinstance(data, dict):
                    raise
                stripped = _strip_nulls(cls, data)
                if stripped is data:
                    raise
                converted = msgspec.convert(stripped, cls, strict=True, dec_hook=_python_hook)
                return converted
        except RecursionError:
            raise msgspec.DecodeError("the data is nested too deeply") from None

    def to_json(self) -> bytes:
        """The object as Go's encoding/json would write it (compact, map keys sorted)."""
        if self.__kgen_native__ and self.__kgen_exact__():
            try:  # a value that is not kgen's (no `_kgen_json`) costs one more encoding
                data = _encode_known(self)
            except AttributeError:
                data = _encode_any(self)
            return _go_escapes(data)
        return gojson.marshal(self._kgen_to_dict())

    def to_dict(self) -> dict[str, Any]:
        """The object as Go's encoding/json would write it, as Python data, in the order
        `to_json` writes it (what msgspec writes is read back: sorting every map while
        keeping the order of raw JSON costs more in `msgspec.to_builtins`)."""
        if self.__kgen_native__ and self.__kgen_exact__():
            data: dict[str, Any] = _decode_plain(self.to_json())
            return data
        return self._kgen_to_dict()

    def to_yaml(self, sort_keys: bool = False) -> str:
        """The object as block YAML, as kubectl shows it: apiVersion, kind and metadata first,
        then the other fields in the order `to_json` writes them (map keys sorted); with
        `sort_keys`, every key sorted, as `kubectl get -o yaml` writes it."""
        from kgen.runtime import yamlio

        data = _decode_plain(self.to_json())
        if isinstance(data, dict):
            first = {key: data.pop(key) for key in ("apiVersion", "kind", "metadata") if key in data}
            data = {**first, **data}
        return yamlio.dump(data, sort_keys=sort_keys)

    def deep_copy(self) -> Self:
        """A deep copy that shares nothing mutable with this object."""
        function = _DEEP_COPIES.get(self.__class__)
        if function is None:
            return copy.deepcopy(self)  # a subclass of a generated struct
        copied: Self = function(self)
        return copied

    def __kgen_exact__(self) -> bool:
        """Whether msgspec writes this object exactly as Go does: generated for kinds,
        whose `apiVersion` and `kind` default to their group, version and kind (always
        written) but are omitted when set empty, and for what holds kinds."""
        return True

    def _kgen_to_dict(self) -> dict[str, Any]:
        """Go's JSON, field by field, in Python (generated where msgspec cannot write it)."""
        raise NotImplementedError(f"{type(self).__name__} was not generated by kgen")


_S = TypeVar("_S", bound=Struct)


# -- null means zero -------------------------------------------------------------------------

_NULL_PLANS: dict[type, dict[str, tuple[bool, Any]]] = {}
"""Per struct class, by JSON name: whether a null there is dropped (the field cannot hold
None), and what its value holds further down (None, or a shape for `_strip_value`)."""


def _null_plan(cls: type) -> dict[str, tuple[bool, Any]]:
    plan = _NULL_PLANS.get(cls)
    if plan is None:
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        plan = {f.encode_name: (not _admits_null(f.type), _shape(f.type)) for f in info.fields}
        _NULL_PLANS[cls] = plan
    return plan


def _admits_null(info: msgspec.inspect.Type) -> bool:
    if isinstance(info, (msgspec.inspect.NoneType, msgspec.inspect.AnyType, msgspec.inspect.CustomType)):
        return True  # value types read null themselves (a zero Quantity)
    if isinstance(info, msgspec.inspect.UnionType):
        return any(_admits_null(option) for option in info.types)
    return False


def _shape(info: msgspec.inspect.Type) -> Any:
    if isinstance(info, msgspec.inspect.StructType):
        return ("struct", info.cls)
    if isinstance(info, msgspec.inspect.FloatType):
        return ("float", None)  # read as a DecodedFloat, which the typed field refuses
    if isinstance(info, msgspec.inspect.ListType):
        item = _shape(info.item_type)
        return None if item is None else ("list", item)
    if isinstance(info, msgspec.inspect.DictType):
        item = _shape(info.value_type)
        return None if item is None else ("map", item)
    if isinstance(info, msgspec.inspect.UnionType):
        shapes = [shape for shape in map(_shape, info.types) if shape is not None]
        return shapes[0] if len(shapes) == 1 else None
    return None


def _strip_nulls(cls: type, document: dict[str, Any]) -> dict[str, Any]:
    """The document without the nulls of fields that cannot hold None (Go leaves those at
    their zero value), and with plain floats in float fields; the same object when it has
    neither."""
    plan = _null_plan(cls)
    out: dict[str, Any] | None = None
    for key, value in document.items():
        entry = plan.get(key)
        if entry is None:
            continue
        drop, shape = entry
        if value is None:
            if drop:
                if out is None:
                    out = dict(document)
                del out[key]
            continue
        if shape is not None:
            stripped = _strip_value(shape, value)
            if stripped is not value:
                if out is None:
                    out = dict(document)
                out[key] = stripped
    return document if out is None else out


def _strip_value(shape: Any, value: Any) -> Any:
    kind, argument = shape
    if kind == "struct":
        return _strip_nulls(argument, value) if type(value) is dict else value
    if kind == "list" and type(value) is list:
        items = [_strip_value(argument, item) for item in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    if kind == "map" and type(value) is dict:
        entries = {key: _strip_value(argument, item) for key, item in value.items()}
        return value if all(entries[key] is item for key, item in value.items()) else entries
    if kind == "float" and type(value) is DecodedFloat:
        return float(value)
    return value


def _decode_with_nulls(cls: type[_S], data: Any, error: msgspec.ValidationError) -> _S:
    """Decode again with the nulls Go ignores dropped, or raise the first decoding's error."""
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if (b"null" if isinstance(data, bytes) else "null") not in data:
        raise error
    try:
        document = _decode_any(data)
        if not isinstance(document, dict):
            raise error
        stripped = _strip_nulls(cls, document)
        if stripped is document:
            raise error
        decoded: _S = msgspec.convert(stripped, cls, strict=True, dec_hook=_json_hook)
        return decoded
    except RecursionError:
        raise msgspec.DecodeError("JSON is nested too deeply") from None


# -- the backend interface for generated code other than the models ----------------

_ZEROS: dict[type, Any] = {}


def construct(cls: type[_S], field_values: dict[str, Any], present: set[str] | None = None) -> _S:
    """Build an instance from already-valid values (by Python name), without validation.
    Structs record no presence, as Go's structs do not: `present` is ignored."""
    return cls(**field_values)


class _FieldValues(MutableMapping[str, Any]):
    """A struct's fields by Python name, read and written through to the struct."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Struct):
        self._obj = obj

    def __getitem__(self, name: str) -> Any:
        if name not in self._obj.__struct_fields__:
            raise KeyError(name)
        return getattr(self._obj, name)

    def __setitem__(self, name: str, value: Any) -> None:
        if name not in self._obj.__struct_fields__:
            raise KeyError(name)
        setattr(self._obj, name, value)

    def __delitem__(self, name: str) -> None:
        raise TypeError("a struct's fields cannot be removed")

    def __iter__(self) -> Iterator[str]:
        return iter(self._obj.__struct_fields__)

    def __len__(self) -> int:
        return len(self._obj.__struct_fields__)


def values(obj: Struct) -> MutableMapping[str, Any]:
    """The object's field values by Python attribute name (writes go to the object)."""
    return _FieldValues(obj)


def fields_set(obj: Struct) -> set[str]:
    """Python names of the fields that do not hold their zero value (structs record no
    presence; for Go, unset and zero are the same)."""
    zero = _zero_of(type(obj))
    return {name for name in obj.__struct_fields__ if getattr(obj, name) != getattr(zero, name)}


def mark_set(obj: Struct, names: tuple[str, ...]) -> None:
    """Nothing to record: structs have no fields set (see `fields_set`)."""


if TYPE_CHECKING:

    def shallow_copy(obj: _S) -> _S:
        """A copy of a struct that shares its field values (msgspec's `__copy__`, in C)."""

else:
    shallow_copy = msgspec.Struct.__copy__


def register_deep_copy(cls: type[Struct], function: Callable[[Any], Any]) -> None:
    """Install a generated deep copy function as `cls.deep_copy`'s implementation."""
    _DEEP_COPIES[cls] = function


def _zero_of(cls: type) -> Any:
    zero = _ZEROS.get(cls)
    if zero is None:
        zero = _ZEROS[cls] = cls()
    return zero


def is_zero(obj: Struct) -> bool:
    """Whether a struct value equals its zero value (Go's `omitzero` test for structs)."""
    return bool(obj == _zero_of(type(obj)))


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data, its containers rebuilt in C (`DecodedFloat`s, and anything
    else msgspec does not know, are copied by a walk in Python instead)."""
    if type(value) is dict or type(value) is list:
        try:
            return _to_builtins(value)
        except TypeError:
            return _copy_walk(value)
    return value


def _copy_walk(value: Any) -> Any:
    if type(value) is dict:
        return {key: _copy_walk(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy_walk(item) for item in value]
    return copy.deepcopy(value)


_R = TypeVar("_R", RawExtension, FieldsV1, JSON)


def copy_raw(holder: _R) -> _R:
    """A deep copy of a raw JSON holder (what the generated deep copies call)."""
    return holder.holding(copy_json(holder.raw))


def decode_value(annotation: Any, data: Any) -> Any:
    """Decode JSON data (a `+default` value) as a value of this annotation; a fresh value each call."""
    return msgspec.convert(data, annotation, strict=True, dec_hook=_python_hook)


# -- the backend -------------------------------------------------------------------------------


class _StructsBackend:
    """The msgspec structs' answers to `kgen.runtime.backend.ModelBackend`."""

    name = "msgspec"

    def __init__(self) -> None:
        self._fields: dict[type, dict[str, Any]] = {}

    def json_fields(self, cls: type[Any]) -> dict[str, Any]:
        fields = self._fields.get(cls)
        if fields is None:
            fields = self._fields[cls] = {info.encode_name: info.type for info in msgspec.structs.fields(cls)}
        return fields

    def json_values(self, obj: Any) -> list[tuple[str, Any]]:
        cls = type(obj)
        return [
            (key, getattr(obj, name))
            for name, key in zip(cls.__struct_fields__, cls.__struct_encode_fields__, strict=True)
        ]

    def fields_set(self, obj: Any) -> dict[str, str]:
        present = fields_set(obj)
        cls = type(obj)
        return {key: name for name, key in zip(cls.__struct_fields__, cls.__struct_encode_fields__) if name in present}

    def is_zero(self, obj: Any) -> bool:
        return is_zero(obj)

    def set_unrecorded(self, obj: Any, attribute: str, value: Any) -> None:
        if attribute in type(obj).__struct_fields__:
            setattr(obj, attribute, value)

    def decode_problems(self, cls: type[Any], document: Any, error: Exception) -> list[tuple[str, str]] | None:
        """msgspec stops at the first error, as Go's decoder reports only its first."""
        if not isinstance(error, ValueError):
            return None
        message, _, where = str(error).partition(" - at `$")
        return [(message, _struct_error_field(cls, document, where.removesuffix("`")) if where else "")]


_STRUCT_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]|(\[\.\.\.\])")


def _struct_error_field(cls: type, document: Any, where: str) -> str:
    """The field path of a struct decoder's error as the pydantic models write it
    (`spec.ports[0].port`; a map entry `spec.resources.memory`), from msgspec's
    (`.spec.ports[0].port` after its `$`). msgspec writes every map key as `[...]`: the key
    is found again as the first entry, in document order as msgspec decodes, whose value
    does not decode."""
    parts: list[int | str] = []
    annotation: Any = cls
    value: Any = document
    for match in _STRUCT_PATH_PART.finditer(where):
        name, index, any_key = match.groups()
        annotation = strip_optional(annotation)
        origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
        if name is not None:
            parts.append(name)
            fields = (
                STRUCTS.json_fields(annotation)
                if isinstance(annotation, type) and issubclass(annotation, Struct)
                else {}
            )
            annotation = fields.get(name)
            value = value.get(name) if isinstance(value, dict) else None
        elif index is not None:
            parts.append(int(index))
            annotation = arguments[0] if origin is list and arguments else None
            value = value[int(index)] if isinstance(value, list) and int(index) < len(value) else None
        else:
            key = _failing_key(arguments[1], value) if origin is dict and len(arguments) == 2 else None
            if key is None:  # not found again: say where the map is
                return json_path(tuple(parts)) + where[match.start() :]
            parts.append(key)
            annotation, value = arguments[1], value[key]
    return json_path(tuple(parts))


def _failing_key(item: Any, value: Any) -> str | None:
    """The first key of a JSON object whose value does not decode as `item` (structs only)."""
    if not isinstance(value, dict):
        return None
    for key, entry in value.items():
        try:
            decode_value(item, entry)
        except (ValueError, TypeError):
            return str(key)
    return None


STRUCTS = _StructsBackend()
Struct.__kgen_backend__ = STRUCTS  # type: ignore[attr-defined]
