"""Holders of arbitrary JSON: runtime.RawExtension, metav1.FieldsV1, and JSON copying.

What a holder takes is checked when it is built (`check_json`): JSON data only, finite
numbers, strings that UTF-8 can write, nested no deeper than the JSON decoder reads
(`MAX_DEPTH`), and no list or object repeated so often that writing it out would cost
far more than checking it did. So a value that decodes can always be written back.
"""

from __future__ import annotations

import copy
import marshal
import math
import re
from typing import Any, ClassVar, Self

import pydantic_core
from pydantic_core import core_schema

from kgen.runtime.decoded import QUIET_BRANCH, VALUE_BRANCH

#: How deeply JSON may nest: the limit of the JSON parser that decodes models
#: (pydantic-core's), applied to every other way in too (YAML, protobuf, Python data).
MAX_DEPTH = 200

#: Python writes integers of up to 4300 digits (sys.int_info.default_max_str_digits).
_INT_LIMIT = 10**4300
_SURROGATE = re.compile("[\ud800-\udfff]")


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars), much faster than copy.deepcopy.

    marshal round-trips exactly the JSON types, in C; anything else a caller put in the
    data (marshal refuses it) is copied field by field instead."""
    if type(value) is dict or type(value) is list:
        try:
            return _loads(_dumps(value))
        except ValueError:
            return _copy_recursive(value)
    return value


_dumps, _loads = marshal.dumps, marshal.loads
#: Bytes that every NaN and infinity marshal writes contain (it writes a float as its
#: little-endian IEEE double, whose 11 exponent bits are all ones for those): the two top
#: bytes are [0xf0-0xff][0x7f or 0xff]. UTF-8 text never holds them; other numbers may,
#: and then the full check tells.
_NON_FINITE_SEARCH = re.compile(rb"[\xf0-\xff][\x7f\xff]").search


def _check_finite(value: Any) -> None:
    """`check_json` of `value` if marshal's bytes for it may hold a NaN or an infinity.
    marshal raises ValueError for what it cannot write. The top byte is looked for first
    (one memchr each): marshal writes neither 0x7f nor 0xff otherwise but inside numbers
    and non-ASCII text, so JSON without floats never gets further."""
    written = _dumps(value)
    if (b"\x7f" in written or b"\xff" in written) and _NON_FINITE_SEARCH(written) is not None:
        check_json(value)


def _copy_recursive(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {k: _copy_recursive(v) for k, v in value.items()}
    if kind is list:
        return [_copy_recursive(v) for v in value]
    return copy.deepcopy(value)


def parse_json(data: bytes | str) -> Any:
    """Parse JSON text into checked JSON data; ValueError, saying what is wrong, if it is not
    JSON (NaN and Infinity are not) or breaks a limit of `check_json`."""
    try:
        value = pydantic_core.from_json(data, allow_inf_nan=False)
    except ValueError as err:
        raise ValueError(f"invalid JSON: {err}") from None
    check_json(value)
    return value


#: Python data may hold a list or dict in several places; written out, those repeats may
#: add at most this much (or as much as the data holds once, if that is more).
_MAX_REPEATED = 10_000


def check_json(value: Any) -> None:
    """Raise ValueError unless `value` is JSON data that encodes as it decoded.

    JSON data is dicts with str keys, lists, str, int (up to 4300 digits), finite float,
    bool and None, nested at most `MAX_DEPTH` deep. Python data may hold the same list or
    dict in several places, but not inside itself, and not so often that writing it out
    would cost far more than checking it. Both walks keep their own stack (no recursion)."""
    if not isinstance(value, (dict, list)):
        _check_scalar(value)
        return
    # The walk of a tree (all that JSON decodes to); a list or dict met twice hands the
    # value to the walk that counts repeats.
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        container, depth = stack.pop()
        if id(container) in seen:
            _check_repeats(value)
            return
        seen.add(id(container))
        if depth > MAX_DEPTH:
            raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep")
        if isinstance(container, dict):
            for name in container:
                if type(name) is not str or not name.isascii():
                    _check_key(name)
            items = container.values()
        else:
            items = container
        for item in items:  # the common types inline: this runs for every value decoded
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, depth + 1))
            elif kind is str:
                if not item.isascii():
                    _check_scalar(item)
            elif kind is int:
                if not -_INT_LIMIT < item < _INT_LIMIT:
                    _check_scalar(item)
            elif kind is not bool and item is not None:
                if isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
                else:
                    _check_scalar(item)


def _check_key(name: Any) -> None:
    if not isinstance(name, str):
        raise ValueError(f"JSON object keys are strings, not {type(name).__name__} ({name!r})")
    if not name.isascii() and _SURROGATE.search(name):
        raise ValueError(f"JSON text is UTF-8, which cannot hold the lone surrogate in {name!r}")


def _check_repeats(value: Any) -> None:
    """`check_json` for data that holds a list or dict more than once: each is walked once,
    counting how much writing the whole out would repeat."""
    written: dict[int, int] = {}  # id -> values it writes out, once its walk is done
    open_ids: set[int] = set()  # the lists and dicts from the top down to the current one
    stack: list[tuple[Any, bool]] = [(value, False)]
    held = 0
    while stack:
        container, leaving = stack.pop()
        key = id(container)
        items = container.values() if isinstance(container, dict) else container
        if leaving:
            open_ids.discard(key)
            written[key] = 1 + sum(written[id(item)] if isinstance(item, (dict, list)) else 1 for item in items)
            continue
        if key in written:
            continue  # met before: checked then
        if key in open_ids:
            raise ValueError("a JSON value cannot contain itself (a list or object holds itself)")
        if len(open_ids) >= MAX_DEPTH:
            raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep")
        open_ids.add(key)
        held += 1 + len(container)
        stack.append((container, True))
        if isinstance(container, dict):
            for name in container:
                _check_key(name)
        for item in items:
            if isinstance(item, (dict, list)):
                stack.append((item, False))
            else:
                _check_scalar(item)
    if written[id(value)] - held > max(_MAX_REPEATED, held):
        raise ValueError(
            "JSON data repeats lists or objects so often that writing it out would cost far more than "
            f"the {held} values it holds"
        )


def _check_scalar(value: Any) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        if not value.isascii() and _SURROGATE.search(value):
            raise ValueError(f"JSON text is UTF-8, which cannot hold the lone surrogate in {value!r}")
    elif isinstance(value, int):
        if not -_INT_LIMIT < value < _INT_LIMIT:
            raise ValueError("JSON integers here are limited to 4300 digits")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"JSON numbers are finite, not {value!r} (Go cannot encode it either)")
    else:
        raise ValueError(f"{type(value).__name__} is not JSON data")


class _RawJSON:
    """Base: holds one parsed JSON value; mutable, so copies copy it.

    Building one checks the value (`check_json`): ValueError if it is not JSON data."""

    __slots__ = ("raw",)
    ZERO_JSON: ClassVar[None] = None
    raw: Any

    def __init__(self, raw: Any = None):
        if isinstance(raw, _RawJSON):
            raw = copy_json(raw.raw)
        else:
            check_json(raw)
        self.raw = raw

    def to_json(self) -> Any:
        """The value, checked again (it may have been changed since it was built): JSON
        data with finite numbers. marshal writes it out in C; only a value marshal cannot
        write, or the bytes of a NaN or an infinity in what it wrote, take `check_json`'s
        walk, which raises ValueError."""
        raw = self.raw
        if type(raw) is dict or type(raw) is list or type(raw) is float:
            try:
                _check_finite(raw)
            except ValueError:  # marshal cannot write it: not JSON data
                check_json(raw)
        return raw

    def is_zero(self) -> bool:
        return self.raw is None

    def deep_copy(self) -> Self:
        return self.holding(copy_json(self.raw))

    @classmethod
    def holding(cls, value: Any) -> Self:
        """A holder of `value`, which is JSON data already, held by nothing else: not checked
        again (what decoders that read it as JSON, and copies, build)."""
        holder = object.__new__(cls)
        holder.raw = value
        return holder

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _RawJSON):
            return type(self) is type(other) and self.raw == other.raw
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable: not hashable

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.raw!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self.deep_copy()

    @classmethod
    def _from_parsed_json(cls, value: Any) -> Self:
        """A holder of a value the JSON parser made: JSON data already (string keys, no lone
        surrogates, integers of at most 4300 digits, nested no deeper than the parser reads),
        and held by nothing else. Only a number too large for a float (`1e400`, which the
        parser reads as infinity) or `NaN` can still be wrong: marshal writes the value out in
        C, and the full check runs only if the bytes of a NaN or an infinity may be there."""
        if type(value) is float or type(value) is dict or type(value) is list:
            _check_finite(value)
        return cls.holding(value)

    @classmethod
    def _parsed_json_schema(cls) -> core_schema.CoreSchema:
        """The schema of the holder in JSON mode: any value the parser makes, checked."""
        return core_schema.no_info_after_validator_function(cls._from_parsed_json, core_schema.any_schema())

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.json_or_python_schema(
            json_schema=cls._parsed_json_schema(),
            python_schema=core_schema.no_info_plain_validator_function(
                lambda value: value if isinstance(value, cls) else cls(value)
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.to_json()),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """Any JSON value (`x-kubernetes-preserve-unknown-fields`), as the OpenAPI documents say it."""
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


class RawExtension(_RawJSON):
    """An embedded object kept as JSON (runtime.RawExtension); its JSON form is the object."""

    __slots__ = ()


_TRIE_DEPTH = 32
"""Levels of a managed-fields trie decoded without a check (a field path is rarely 20 deep)."""


class FieldsV1(_RawJSON):
    """A managed-fields set in its JSON trie form (metav1.FieldsV1)."""

    __slots__ = ()

    @classmethod
    def _parsed_json_schema(cls) -> core_schema.CoreSchema:
        """A trie as the API server writes it (objects all the way down, so no number to
        check) is decoded as one in pydantic-core, at the cost of `any`; anything else (or a
        trie deeper than `_TRIE_DEPTH`) as any raw JSON, checked."""
        trie = core_schema.dict_schema(max_length=0, strict=True)
        for _ in range(_TRIE_DEPTH):  # unrolled: pydantic resolves no reference of ours
            trie = core_schema.dict_schema(keys_schema=core_schema.str_schema(), values_schema=trie, strict=True)
        return core_schema.union_schema(
            [
                (core_schema.no_info_after_validator_function(cls.holding, trie), QUIET_BRANCH),
                (super()._parsed_json_schema(), VALUE_BRANCH),
            ],
            mode="left_to_right",
        )


class JSON(_RawJSON):
    """Any JSON value, kept as parsed (apiextensions' JSON: defaults and examples in schemas,
    and the free-form values custom resources hold, such as cluster-api's variable values)."""

    __slots__ = ()
