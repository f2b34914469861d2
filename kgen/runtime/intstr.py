"""intstr.IntOrString: a JSON number or string, as Kubernetes uses for ports and percentages."""

from __future__ import annotations

import math
from typing import Any

from pydantic_core import core_schema

from kgen.runtime.decoded import json_value_schema

INT = 0
STRING = 1


class IntOrString:
    """An immutable int32 or string. `IntOrString(8080)`, `IntOrString("http")`, `IntOrString("25%")`."""

    __slots__ = ("_value",)
    ZERO_JSON = 0
    _value: int | str

    def __init__(self, value: int | str | IntOrString = 0):
        if isinstance(value, IntOrString):
            value = value._value
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(f"an int-or-string holds an integer or a string, not {type(value).__name__}")
        if isinstance(value, int) and not -(2**31) <= value < 2**31:
            raise ValueError(f"an int-or-string integer must fit in 32 bits, got {value}")
        self._value = value

    @property
    def type(self) -> int:
        """INT (0) or STRING (1), as intstr.Type."""
        return STRING if isinstance(self._value, str) else INT

    @property
    def int_val(self) -> int:
        return self._value if isinstance(self._value, int) else 0

    @property
    def str_val(self) -> str:
        return self._value if isinstance(self._value, str) else ""

    @property
    def value(self) -> int | str:
        return self._value

    def is_zero(self) -> bool:
        return self._value == 0

    @classmethod
    def parse(cls, text: str) -> IntOrString:
        """An int when `text` is a base-10 int32 (Go's strconv.ParseInt(text, 10, 32)), else
        the string itself: `parse("80")` is 80, `parse("2147483648")` and `parse("http")` strings."""
        number = _parse_int(text, 32)
        return cls(number) if number is not None else cls(text)

    def scaled_value(self, total: int, round_up: bool) -> int:
        """An int as is, or a percentage ("25%") of `total` (GetScaledValueFromIntOrPercent).

        Raises ValueError, worded as Go's error, for a string that is not a whole percentage."""
        if isinstance(self._value, int):
            return self._value
        if not self._value.endswith("%"):
            raise ValueError("invalid value for IntOrString: invalid type: string is not a percentage")
        digits = self._value[:-1]
        percent = _parse_int(digits, 64)
        if percent is None:
            raise ValueError(
                f'invalid value for IntOrString: invalid value "{self._value}": strconv.Atoi: parsing '
                f'"{digits}": {"value out of range" if _is_int_text(digits) else "invalid syntax"}'
            )
        scaled = float(percent) * float(total) / 100  # Go computes in float64
        return math.ceil(scaled) if round_up else math.floor(scaled)

    def to_json(self) -> int | str:
        return self._value

    def __str__(self) -> str:
        return str(self._value)

    def __repr__(self) -> str:
        return f"IntOrString({self._value!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IntOrString):
            return type(self._value) is type(other._value) and self._value == other._value
        if isinstance(other, (int, str)) and not isinstance(other, bool):
            return type(self._value) is type(other) and self._value == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.type, self._value))

    def __copy__(self) -> IntOrString:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> IntOrString:
        return self

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.json_or_python_schema(
            json_schema=json_value_schema(IntOrString, ("str", "int"), "an int-or-string is an integer or a string"),
            python_schema=core_schema.no_info_plain_validator_function(_validate),
            serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.to_json()),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """As the OpenAPI documents say it (`x-kubernetes-int-or-string`)."""
        return {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}


# What the msgspec models' encoder writes for an int-or-string (`kgen.runtime.structs`): the
# value's slot under a second name, read in C.
setattr(IntOrString, "_kgen_json", vars(IntOrString)["_value"])


def get_scaled_value_from_int_or_percent(value: IntOrString | None, total: int, round_up: bool) -> int:
    """Go's intstr.GetScaledValueFromIntOrPercent: a nil value is an error, as there."""
    if value is None:
        raise ValueError("nil value for IntOrString")
    return value.scaled_value(total, round_up)


def _is_int_text(text: str) -> bool:
    """An optional sign and ASCII digits, nothing else: what strconv.ParseInt reads, at any size."""
    body = text[1:] if text[:1] in ("+", "-") else text
    return bool(body) and body.isascii() and body.isdigit()


def _parse_int(text: str, bits: int) -> int | None:
    """Go's strconv.ParseInt(text, 10, bits): an optional sign and ASCII digits, nothing else
    (no spaces, no underscores); None when that is not the text or it does not fit."""
    if not _is_int_text(text):
        return None
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 20:  # far beyond 64 bits
        return None
    number = -int(digits) if text[0] == "-" else int(digits)
    if not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
        return None
    return number


def _validate(value: Any) -> IntOrString:
    if isinstance(value, IntOrString):
        return value
    return IntOrString(value)
