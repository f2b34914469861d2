"""The base of every generated model and the small interface other generators use.

Generated models are pydantic v2 models. Everything outside the models generator
(deep copies, defaulters, conversions, validators) reaches model internals only
through the functions at the bottom of this module, `construct`, `values`, `fields_set`
and `mark_set`, so that a second model backend can replace pydantic without touching
those generators.
"""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Self, TypeVar, get_args, get_origin

import annotated_types
import pydantic_core
from pydantic import BaseModel, BeforeValidator, ConfigDict, TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError, PydanticOmit, core_schema

from kgen.runtime import gojson
from kgen.runtime.backend import json_path, strip_optional
from kgen.runtime.decoded import QUIET_BRANCH, VALUE_BRANCH
from kgen.runtime.gojson import encode_bytes, float_value, string_option

__all__ = [
    "Model",
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
    "construct",
    "SharedFieldsSet",
    "new_instance",
    "set_values",
    "set_fields_set",
    "set_extra",
    "set_private",
    "values",
    "fields_set",
    "mark_set",
    "own_fields_set",
    "register_deep_copy",
    "is_zero",
    "encode_bytes",
    "float_value",
    "string_option",
    "unquote_string_option",
    "finish_models",
    "decode_value",
    "DECODE",
]

#: From this many bytes of JSON on, `from_json` pauses the cycle collector while it decodes.
#: Decoded objects hold no cycles, but each is tracked by the collector, which otherwise
#: walks the growing tree again and again while a large list is built (a PodList of 500
#: decodes three times faster without); collections resume when the decode returns.
_PAUSE_GC_FROM = 64 * 1024

#: Validation context of every decoding path: unknown fields are ignored, as Go does.
DECODE = {"kgen": "decode"}

Int8 = Annotated[int, annotated_types.Interval(ge=-(2**7), le=2**7 - 1)]
Int16 = Annotated[int, annotated_types.Interval(ge=-(2**15), le=2**15 - 1)]
Int32 = Annotated[int, annotated_types.Interval(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, annotated_types.Interval(ge=-(2**63), le=2**63 - 1)]
Uint8 = Annotated[int, annotated_types.Interval(ge=0, le=2**8 - 1)]
Uint16 = Annotated[int, annotated_types.Interval(ge=0, le=2**16 - 1)]
Uint32 = Annotated[int, annotated_types.Interval(ge=0, le=2**32 - 1)]
Uint64 = Annotated[int, annotated_types.Interval(ge=0, le=2**64 - 1)]


def _decode_base64(value: Any) -> Any:
    return gojson.decode_bytes(value) if isinstance(value, str) else value


#: `[]byte`: base64 (standard encoding, padded) in JSON, `bytes` in Python.
GoBytes = Annotated[bytes, BeforeValidator(_decode_base64)]


def _schema_allows_unknown_fields(schema: dict[str, Any]) -> None:
    # JSON Schema describes what decoding takes: unknown fields are ignored, not refused.
    schema.pop("additionalProperties", None)


class Model(BaseModel):
    """Base class of generated API models.

    Python attributes are snake_case; JSON uses the Go JSON names. `to_json()` and
    `to_dict()` produce exactly what Go's encoding/json produces for the same struct
    tags; `from_json()` decodes the way the API server does (case-sensitive names,
    unknown fields ignored, `null` leaves a non-pointer field at its zero value).

    Fields declare their JSON name as `validation_alias` and `serialization_alias`, not
    `alias`: type checkers take a field's `alias` for its `__init__` parameter (PEP 681),
    and models are built by their Python names, so `mypy --strict` checks that without
    pydantic's plugin.

    The decoders (`from_json`, `from_yaml`, `from_dict`) raise only pydantic's
    `ValidationError` (a ValueError), whatever they are given, at a cost bounded by the
    size of the input: every value type refuses what it cannot hold or write back (NaN,
    quantities beyond apimachinery's limits, times outside the years 1-9999, durations
    beyond int64), and nesting stops at `kgen.runtime.rawjson.MAX_DEPTH` levels.
    """

    model_config = ConfigDict(
        validate_by_alias=True,
        validate_by_name=True,
        serialize_by_alias=True,
        # Built from Python, a name that is no field is a mistake; the decoders pass
        # extra="ignore" and so ignore unknown fields, as Go does.
        extra="forbid",
        json_schema_extra=_schema_allows_unknown_fields,
        revalidate_instances="never",
        protected_namespaces=(),
        # Go's JSON has no NaN or infinities (pydantic's parser reads `NaN`, and 1e400 as inf).
        allow_inf_nan=False,
        # Field docs stay docstrings under the attributes (for readers and IDEs); pydantic
        # reading them into descriptions re-parses each class's source and made importing a
        # CRD project's models a third slower.
        use_attribute_docstrings=False,
        # Validators and serializers are built when a class is first used, not when its module
        # is imported (`finish_models` records the order): an operator imports the models of
        # a whole API and uses a few of them.
        defer_build=True,
    )

    #: The generated deep copy function (`register_deep_copy`) and the class it builds;
    #: without one, or for a subclass, `deep_copy` is pydantic's `model_copy(deep=True)`.
    __kgen_deep_copy__: ClassVar[staticmethod[[Any], Any]]
    __kgen_deep_copied__: ClassVar[type | None] = None

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: Any = None,
    ) -> bool | None:
        """Build the class (pydantic calls this on first use of a deferred class): first the
        other classes of its module still waiting, in `finish_models` order (what a class
        holds before the class), so that pydantic reuses each built class instead of building
        it again inside the next, which would recurse once per level of a chain of structs."""
        if cls.__pydantic_complete__ and not force:
            return None
        namespace = _types_namespace if _types_namespace is not None else vars(sys.modules[cls.__module__])
        waiting = _WAITING.pop(cls.__module__, ())
        for other in waiting:
            if other is not cls and not other.__pydantic_complete__:
                _rebuild(other, raise_errors=raise_errors, _types_namespace=vars(sys.modules[other.__module__]))
        built: bool | None = _rebuild(cls, force=force, raise_errors=raise_errors, _types_namespace=namespace)
        return built

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        """pydantic's schema of the class, with Go's rule for `null` built in: a field whose
        zero value is not None stays at its zero value when the JSON holds `null`. Expressed
        in the schema (not as a validator of the whole object), so pydantic-core decodes JSON
        straight into the objects, and Python runs only where a `null` was."""
        schema: core_schema.CoreSchema = handler(source)
        if source is cls:
            _null_means_zero(schema)
        return schema

    if not TYPE_CHECKING:

        def __init__(self, /, **data: Any) -> None:
            try:
                self.__pydantic_validator__.validate_python(data, self_instance=self)
            except ValidationError as err:
                raise _clean_error(err, type(self)) from None

        # pydantic takes this __init__ for its own: nested objects are still built in
        # pydantic-core, without a call of __init__ each.
        __init__.__pydantic_base_init__ = True

        @classmethod
        def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
            try:
                return super().model_validate(obj, **kwargs)
            except ValidationError as err:
                raise _clean_error(err, cls) from None

        @classmethod
        def model_validate_json(cls, json_data: Any, **kwargs: Any) -> Self:
            try:
                return super().model_validate_json(json_data, **kwargs)
            except ValidationError as err:
                raise _clean_error(err, cls) from None

    def to_dict(self) -> dict[str, Any]:
        """The object as Go's encoding/json would write it, as Python data."""
        raise NotImplementedError(f"{type(self).__name__} was not generated by kgen")

    def to_json(self) -> bytes:
        """The object as Go's encoding/json would write it (compact, map keys sorted)."""
        return gojson.marshal_struct(self.to_dict())

    @classmethod
    def from_json(cls, data: str | bytes) -> Self:
        """Decode JSON as the API server does; type mismatches are errors, as in Go.

        Raises only `pydantic.ValidationError`: for text that is not JSON (or nests more
        than 200 levels, pydantic's parser's limit), and for values the fields refuse."""
        paused = isinstance(data, (bytes, str, bytearray)) and len(data) >= _PAUSE_GC_FROM and gc.isenabled()
        if paused:
            gc.disable()
        try:
            return cls.__pydantic_validator__.validate_json(  # type: ignore[no-any-return]
                data, strict=True, extra="ignore", by_alias=True, by_name=False, context=DECODE
            )
        except ValidationError as err:
            raise _clean_error(err, cls) from None
        finally:
            if paused:
                gc.enable()

    @classmethod
    def from_yaml(cls, text: str | bytes) -> Self:
        """Decode a YAML document as the API server does: converted to JSON as
        sigs.k8s.io/yaml converts it (YAML 1.1: `yes`/`on` are true, `0777` is octal),
        then `from_json`, so exactly as strict.

        Raises only `pydantic.ValidationError`, as `from_json`: text that is not YAML,
        holds more than one document, has no JSON form (`.inf`, a null key) or breaks the
        limits of `kgen.runtime.yamlio` is a `yaml_invalid` error."""
        from kgen.runtime import yamlio

        try:
            data = yamlio.to_json(text)
        except yamlio.YAMLError as err:
            error = PydanticCustomError("yaml_invalid", "Invalid YAML: {error}", {"error": str(err)})
            raise ValidationError.from_exception_data(
                cls.__name__, [{"type": error, "loc": (), "input": text}]
            ) from None
        return cls.from_json(data)

    def to_yaml(self, sort_keys: bool = False) -> str:
        """The object as block YAML, as kubectl shows it: apiVersion, kind and metadata first,
        then the other fields in the order `to_json` writes them (map keys sorted); with
        `sort_keys`, every key sorted, as `kubectl get -o yaml` writes it. Strings are quoted
        wherever a YAML 1.1 reader would take them for another type (`"yes"`, `"0777"`, `"1e3"`)."""
        from kgen.runtime import yamlio

        data = pydantic_core.from_json(self.to_json())
        if isinstance(data, dict):
            first = {key: data.pop(key) for key in ("apiVersion", "kind", "metadata") if key in data}
            data = {**first, **data}
        return yamlio.dump(data, sort_keys=sort_keys)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Decode already-parsed JSON data (for example from a YAML document).

        Raises only `pydantic.ValidationError`, for data of any shape or depth; a string
        UTF-8 cannot write (a lone surrogate, as `json.loads` makes of `"\\ud800"`) is one."""
        unwritable = gojson.unwritable_string(data)
        if unwritable is not None:
            path, text = unwritable
            raise ValidationError.from_exception_data(
                cls.__name__, [{"type": "string_unicode", "loc": path, "input": text}]
            )
        try:
            return cls.__pydantic_validator__.validate_python(  # type: ignore[no-any-return]
                data, strict=True, extra="ignore", by_alias=True, by_name=False, context=DECODE
            )
        except ValidationError as err:
            raise _clean_error(err, cls) from None

    if not TYPE_CHECKING:

        def __setattr__(self, name: str, value: Any) -> None:
            # pydantic adds the name to the fields set, which may be shared with copies.
            try:
                shared = self.__pydantic_fields_set__.__class__ is SharedFieldsSet
            except AttributeError:  # not initialized yet: a subclass's __init__ before super()'s
                shared = False
            if shared:
                own_fields_set(self)
            super().__setattr__(name, value)

    @property
    def model_fields_set(self) -> set[str]:
        """Names of the fields that were set explicitly (this object's own set, safe to change)."""
        return own_fields_set(self)

    def deep_copy(self) -> Self:
        """A deep copy that shares nothing mutable with this object and skips validation."""
        if self.__class__ is not self.__kgen_deep_copied__:
            # A subclass of a generated model (its own fields, private attributes): the
            # generated function would build the base class.
            return self.model_copy(deep=True)
        copy: Self = self.__kgen_deep_copy__(self)
        return copy

    def __repr_args__(self) -> Any:
        """The fields that were set (decoded, passed or assigned), as `repr` shows them: a
        Deployment's repr is its content, not two hundred zero values."""
        values = self.__dict__
        for name in self.__class__.model_fields:
            if name in self.__pydantic_fields_set__:
                yield name, values[name]

    # pydantic v1's methods, which pydantic 2 keeps (deprecated) with snake_case keys: here
    # they do what kgen's names do, so that code written for v1 writes Go's JSON.

    def json(self, **_: Any) -> str:
        """`to_json()` as text (pydantic v1's name)."""
        return self.to_json().decode()

    def dict(self, **_: Any) -> dict[str, Any]:
        """`to_dict()` (pydantic v1's name)."""
        return self.to_dict()

    @classmethod
    def parse_obj(cls, obj: Any) -> Self:
        """`from_dict()` (pydantic v1's name)."""
        return cls.from_dict(obj)

    @classmethod
    def parse_raw(cls, b: str | bytes, **_: Any) -> Self:
        """`from_json()` (pydantic v1's name)."""
        return cls.from_json(b)


# -- Go's null rule in the schema, and errors without its traces -------------------------

#: Labels of the two branches a field whose zero value is not None gets (see
#: `_null_means_zero`); `_clean_error` takes them out of error locations.
_VALUE_BRANCH = VALUE_BRANCH
_NULL_BRANCH = QUIET_BRANCH


def _null_means_zero(schema: Any) -> None:
    """Give every field of the model schema `schema` whose zero value is not None a second
    way in: JSON `null` (Python None), which leaves the field at its zero value, as Go's
    decoder does. The field's own schema is tried first: Python runs only for a null."""
    model = _model_schema(schema)
    if model is None:
        return
    for field in model["schema"]["fields"].values():
        with_default = field["schema"]
        if with_default["type"] != "default":
            continue
        factory = with_default.get("default_factory")
        default = with_default.get("default")
        if factory is None and default is None:
            continue
        value = with_default["schema"]
        if _has_null_branch(value):
            # pydantic hands out a class's schema again (to each class that holds it): the
            # branch is there once already.
            continue
        zero = core_schema.no_info_after_validator_function(
            _made_by(factory) if factory is not None else _always(default),
            core_schema.none_schema(),
            metadata=_NOT_IN_JSON_SCHEMA,
        )
        with_default["schema"] = core_schema.union_schema(
            [(value, _VALUE_BRANCH), (zero, _NULL_BRANCH)],
            mode="left_to_right",
            serialization=value.get("serialization"),
        )


def _has_null_branch(schema: Any) -> bool:
    if schema.get("type") != "union":
        return False
    choices = schema["choices"]
    return len(choices) == 2 and isinstance(choices[1], tuple) and choices[1][1] == _NULL_BRANCH


def _made_by(factory: Callable[[], Any]) -> Callable[[Any], Any]:
    return lambda _: factory()


def _always(value: Any) -> Callable[[Any], Any]:
    return lambda _: value


def _omit(schema: Any, handler: Any) -> Any:
    raise PydanticOmit


#: The null branch is not in a JSON Schema: the field's type alone is.
_NOT_IN_JSON_SCHEMA: Any = {"pydantic_js_functions": [_omit]}


def _model_schema(schema: Any) -> Any:
    if schema["type"] == "model":
        return schema if schema["schema"]["type"] == "model-fields" else None
    if schema["type"] == "definitions":
        return _model_schema(schema["schema"])
    return None


def _clean_error(err: ValidationError, cls: type[Model] | None) -> ValidationError:
    """`err` as the field types alone would have raised it: without the errors of the null
    branch `_null_means_zero` adds, or its labels in locations; and an unknown name given
    from Python says which fields there are."""
    errors = err.errors(include_url=False)
    if not any(e["type"] == "extra_forbidden" or _VALUE_BRANCH in e["loc"] or _NULL_BRANCH in e["loc"] for e in errors):
        return err
    line_errors: list[Any] = []
    for error in errors:
        if _NULL_BRANCH in error["loc"]:
            continue
        loc = tuple(part for part in error["loc"] if part != _VALUE_BRANCH)
        kind: Any = error["type"]
        ctx = error.get("ctx")
        if kind == "extra_forbidden":
            owner = _field_owner(cls, loc[:-1])
            if owner is not None:
                message = f"{owner.__name__} has no field {loc[-1]} (fields: {', '.join(owner.model_fields)})"
                kind, ctx = PydanticCustomError("extra_forbidden", message.replace("{", "{{").replace("}", "}}")), None
        line_error = {"type": kind, "loc": loc, "input": error["input"]}
        if ctx is not None:
            line_error["ctx"] = ctx
        line_errors.append(line_error)
    try:
        return ValidationError.from_exception_data(err.title, line_errors)
    except (KeyError, TypeError):
        # An error type of a validator of its own: its message as it was.
        for line_error, error in zip(line_errors, (e for e in errors if _NULL_BRANCH not in e["loc"]), strict=True):
            if isinstance(line_error["type"], str):
                message = error["msg"].replace("{", "{{").replace("}", "}}")
                line_error["type"] = PydanticCustomError(line_error["type"], message)
                line_error.pop("ctx", None)
        return ValidationError.from_exception_data(err.title, line_errors)


def _field_owner(cls: Any, loc: tuple[Any, ...]) -> type[Model] | None:
    """The model class holding the field at `loc` (Python or JSON names, list indexes, map
    keys) below `cls`, if the annotations lead to one."""
    current = cls
    for part in loc:
        current = strip_optional(current)
        if isinstance(current, type) and issubclass(current, Model):
            field = current.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                field = next((f for f in current.model_fields.values() if f.validation_alias == part), None)
            if field is None:
                return None
            current = field.annotation
        elif get_origin(current) is list and isinstance(part, int):
            current = get_args(current)[0]
        elif get_origin(current) is dict and isinstance(part, str):
            current = get_args(current)[1]
        else:
            return None
    current = strip_optional(current)
    return current if isinstance(current, type) and issubclass(current, Model) else None


class StringEnum(str):
    """Base of generated open-ended string enums: a namespace of known values.

    Fields typed with an enum accept any string, as the API conventions require of
    clients (a newer server may return values this client does not know).
    """

    __kgen_values__: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The values this client knows, in declaration order."""
        return cls.__kgen_values__

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.str_schema()


class IntEnum(int):
    """Base of generated open-ended integer enums (named integer types with constants)."""

    __kgen_values__: ClassVar[tuple[int, ...]] = ()

    @classmethod
    def values(cls) -> tuple[int, ...]:
        return cls.__kgen_values__

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.int_schema()


# -- the backend interface for generated code other than the models ----------------

#: Source snippets that generators inline in hot code (deep copies) instead of calling
#: `values`, `fields_set` and `construct`; a second backend supplies its own. `{obj}` is
#: the object, `{cls}` its class, `{values}` and `{fields_set}` what `construct` takes.
#: `share_fields_set` binds `{fields_set}` to `{obj}`'s fields set, made shareable with
#: copies (see `SharedFieldsSet`). Both are several statements; the names they use are
#: `INLINE_NAMES`, which the generated module imports from here under a leading underscore.
SNIPPETS = {
    "copy_values": "{obj}.__dict__.copy()",
    "share_fields_set": (
        "{fields_set} = {obj}.__pydantic_fields_set__\n"
        "if {fields_set}.__class__ is not _SharedFieldsSet:\n"
        "    {fields_set} = _SharedFieldsSet({fields_set})\n"
        "    _set_fields_set({obj}, {fields_set})"
    ),
    "construct": (
        "{obj} = _new_instance({cls})\n"
        "_set_values({obj}, {values})\n"
        "_set_fields_set({obj}, {fields_set})\n"
        "_set_extra({obj}, None)\n"
        "_set_private({obj}, None)"
    ),
}
INLINE_NAMES = (
    "new_instance",
    "set_values",
    "set_fields_set",
    "set_extra",
    "set_private",
    "SharedFieldsSet",
)

new_instance = object.__new__

# pydantic keeps the field values and these three in slots of BaseModel; setting them
# through the slot descriptors skips both pydantic's __setattr__ and the attribute lookup
# object.__setattr__ would do for each.
set_values = BaseModel.__dict__["__dict__"].__set__
set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class SharedFieldsSet(set[str]):
    """A fields set that a deep copy shares with its source, copy-on-write.

    Both holders treat it as immutable: `Model.__setattr__` and `Model.model_fields_set`
    replace it with a plain set of their own before anything can change it, and copying
    or pickling it gives a plain set. A deep copy then costs no set per object.
    """

    __slots__ = ()

    __copy__ = set.copy  # a plain set: set's methods return the base type

    def __deepcopy__(self, memo: Any) -> set[str]:
        return set(self)

    def __reduce__(self) -> Any:
        return set, (list(self),)


_M = TypeVar("_M", bound=Model)


def construct(
    cls: type[_M],
    field_values: dict[str, Any],
    present: set[str],
    _new: Callable[[type[_M]], _M] = new_instance,
    _set_values: Callable[[Model, dict[str, Any]], None] = set_values,
    _set_fields_set: Callable[[Model, set[str]], None] = set_fields_set,
    _set_extra: Callable[[Model, None], None] = set_extra,
    _set_private: Callable[[Model, None], None] = set_private,
) -> _M:
    """Build an instance from already-valid values without validation."""
    obj = _new(cls)  # the helpers are bound as defaults: this runs once per decoded object
    _set_values(obj, field_values)
    _set_fields_set(obj, present)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def values(obj: Model) -> dict[str, Any]:
    """The object's field values by Python attribute name (not a copy)."""
    return obj.__dict__


def fields_set(obj: Model) -> set[str]:
    """Python names of the fields that were present when the object was decoded or built.

    Not a copy, and possibly shared with deep copies: read it, change it only through
    `mark_set`.
    """
    return obj.__pydantic_fields_set__


def own_fields_set(obj: Model) -> set[str]:
    """The object's fields set, first made its own if it shares it with copies."""
    present = obj.__pydantic_fields_set__
    if present.__class__ is SharedFieldsSet:
        present = set(present)
        set_fields_set(obj, present)
    return present


def mark_set(obj: Model, names: tuple[str, ...]) -> None:
    """Record fields as set, as assigning each of them would (after writing `values(obj)`)."""
    own_fields_set(obj).update(names)


def register_deep_copy(cls: type[Model], function: Callable[[Any], Any]) -> None:
    """Install a generated deep copy function as `cls.deep_copy`'s implementation."""
    cls.__kgen_deep_copy__ = staticmethod(function)
    cls.__kgen_deep_copied__ = cls


def unquote_string_option(value: Any) -> Any:
    """Decode a `json:",string"` value: the JSON literal inside the string (ValueError if
    it holds none; NaN and Infinity are not JSON)."""
    if isinstance(value, str):
        try:
            return pydantic_core.from_json(value, allow_inf_nan=False)
        except ValueError:
            raise ValueError(f"invalid use of ,string struct tag, trying to unmarshal {value[:100]!r}") from None
    return value


_WAITING: dict[str, tuple[type[Model], ...]] = {}
"""The classes of each imported models module not built yet, in the order to build them."""
_rebuild = BaseModel.model_rebuild.__func__  # type: ignore[attr-defined]


def finish_models(*classes: type[Model]) -> None:
    """Called at the end of a generated models module: its classes, leaves first (what a
    class holds comes before it). They are built when one of them is first used."""
    if classes:
        _WAITING[classes[0].__module__] = classes


@functools.lru_cache(maxsize=None)
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def decode_value(annotation: Any, data: Any) -> Any:
    """Decode JSON data (a `+default` value) as a field of this annotation; a fresh value each call."""
    try:
        return _adapter(annotation).validate_python(data, extra="ignore", by_alias=True, by_name=False, context=DECODE)
    except ValidationError as err:
        raise _clean_error(err, None) from None


_zero_cache: dict[type, Any] = {}


def is_zero(obj: Model) -> bool:
    """Whether a struct value equals its zero value (Go's `omitzero` test for structs)."""
    zero = _zero_cache.get(type(obj))
    if zero is None:
        zero = _zero_cache[type(obj)] = type(obj)()
    return obj.__dict__ == zero.__dict__


# -- the backend -------------------------------------------------------------------------------


class _PydanticBackend:
    """The pydantic models' answers to `kgen.runtime.backend.ModelBackend`."""

    name = "pydantic"

    def __init__(self) -> None:
        self._fields: dict[type, dict[str, Any]] = {}

    def json_fields(self, cls: type[Any]) -> dict[str, Any]:
        fields = self._fields.get(cls)
        if fields is None:
            cls.model_rebuild()
            fields = {(info.serialization_alias or name): info.annotation for name, info in cls.model_fields.items()}
            self._fields[cls] = fields
        return fields

    def json_values(self, obj: Any) -> list[tuple[str, Any]]:
        values = obj.__dict__
        return [(info.serialization_alias or name, values[name]) for name, info in type(obj).model_fields.items()]

    def fields_set(self, obj: Any) -> dict[str, str]:
        fields = type(obj).model_fields
        wanted: dict[str, str] = {}
        for name in obj.model_fields_set:
            info = fields.get(name)
            if info is not None:
                alias = info.serialization_alias
                wanted[alias if isinstance(alias, str) else name] = name
        return wanted

    def is_zero(self, obj: Any) -> bool:
        return is_zero(obj)

    def set_unrecorded(self, obj: Any, attribute: str, value: Any) -> None:
        values = obj.__dict__
        if attribute in values:
            values[attribute] = value

    def decode_problems(self, cls: type[Any], document: Any, error: Exception) -> list[tuple[str, str]] | None:
        if isinstance(error, ValidationError):
            return [(e["msg"], json_path(e["loc"])) for e in error.errors(include_url=False)]
        return [(str(error), "")] if isinstance(error, ValueError) else None


PYDANTIC = _PydanticBackend()
Model.__kgen_backend__ = PYDANTIC  # type: ignore[attr-defined]
