"""resource.Quantity: parsing and canonical form as Kubernetes defines them.

    <quantity>        ::= <signedNumber><suffix>
    <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
    <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
    <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
    <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>

Values are exact decimals rounded up to nano precision (1e-9), as the API server does.
The canonical form (what the server writes back) keeps the suffix family of the input:
`1.5Gi` becomes `1536Mi`, `0.1` becomes `100m`, `1000` becomes `1k`. Two quantities are
equal when their values are, so `1Gi == 1024Mi`.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_UP, Context, Decimal
from typing import Any

from pydantic_core import core_schema

_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BINARY_SUFFIX = {v: k for k, v in _BINARY.items()}
_EXPONENT = re.compile(r"^[eE][+-]?[0-9]+$")
_CONTEXT = Context(prec=200)
_NANO = Decimal("1e-9")

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"


class QuantityError(ValueError):
    """A string that is not a quantity."""


class Quantity:
    """An immutable fixed-point number with a unit suffix family."""

    __slots__ = ("_value", "_format", "_canonical")
    ZERO_JSON = "0"

    def __init__(self, text: str | int | float | Quantity = 0):
        if isinstance(text, Quantity):
            value, fmt = text._value, text._format
        elif isinstance(text, bool):
            raise QuantityError("a quantity is a string or a number, not a bool")
        elif isinstance(text, int):
            value, fmt = Decimal(text), DECIMAL_SI
        elif isinstance(text, float):
            value, fmt = _parse(repr(text))
        elif isinstance(text, str):
            value, fmt = _parse(text)
        else:
            raise QuantityError(f"a quantity is a string or a number, not {type(text).__name__}")
        self._value = value
        self._format = fmt
        self._canonical: str | None = None

    @classmethod
    def from_decimal(cls, value: Decimal | int, fmt: str = DECIMAL_SI) -> Quantity:
        """A quantity with this exact value and suffix family."""
        quantity = cls.__new__(cls)
        quantity._value = _round_nano(Decimal(value))
        quantity._format = fmt
        quantity._canonical = None
        return quantity

    @property
    def value(self) -> Decimal:
        """The exact value."""
        return self._value

    @property
    def format(self) -> str:
        """BinarySI, DecimalSI or DecimalExponent: the suffix family used when writing."""
        return self._format

    def as_int(self) -> int:
        """The value rounded up to an integer (Go's Quantity.Value())."""
        return int(self._value.to_integral_value(rounding=ROUND_CEILING))

    def milli_value(self) -> int:
        """The value in thousandths, rounded up (Go's Quantity.MilliValue())."""
        return int((self._value * 1000).to_integral_value(rounding=ROUND_CEILING))

    def scaled_value(self, scale: int) -> int:
        """The value in units of 10**scale, rounded up (Go's ScaledValue: `Milli` is -3)."""
        return int(self._value.scaleb(-scale, context=_CONTEXT).to_integral_value(rounding=ROUND_CEILING))

    @classmethod
    def new_scaled(cls, value: int, scale: int, fmt: str = DECIMAL_SI) -> Quantity:
        """`value` x 10**scale (Go's NewScaledQuantity)."""
        return cls.from_decimal(Decimal(value).scaleb(scale, context=_CONTEXT), fmt)

    def round_up(self, scale: int) -> tuple[Quantity, bool]:
        """This value rounded away from zero to a multiple of 10**scale, and whether that
        was exact (Go's RoundUp, which rounds in place; a Quantity here is immutable)."""
        unit = Decimal(1).scaleb(scale)
        if self._value.as_tuple().exponent >= scale:  # type: ignore[operator]
            return self, True
        rounded = self._value.quantize(unit, rounding=ROUND_UP, context=_CONTEXT)
        if rounded == self._value:
            return self, True
        return Quantity.from_decimal(rounded, self._format), False

    def is_zero(self) -> bool:
        return self._value == 0

    def __str__(self) -> str:
        if self._canonical is None:
            self._canonical = _canonical(self._value, self._format)
        return self._canonical

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._value == other._value
        if isinstance(other, (str, int)) and not isinstance(other, bool):
            try:
                return self._value == Quantity(other)._value
            except QuantityError:
                return False
        return NotImplemented

    def __lt__(self, other: Quantity) -> bool:
        return self._value < Quantity(other)._value

    def __le__(self, other: Quantity) -> bool:
        return self._value <= Quantity(other)._value

    def __gt__(self, other: Quantity) -> bool:
        return self._value > Quantity(other)._value

    def __ge__(self, other: Quantity) -> bool:
        return self._value >= Quantity(other)._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __copy__(self) -> Quantity:
        return self

    def __deepcopy__(self, memo: dict) -> Quantity:
        return self

    def to_json(self) -> str:
        """The canonical string the API server writes."""
        return str(self)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _validate, serialization=core_schema.to_string_ser_schema()
        )


def _validate(value: Any) -> Quantity:
    if isinstance(value, Quantity):
        return value
    try:
        return Quantity(value)
    except QuantityError as err:
        raise ValueError(str(err)) from None


def _round_nano(value: Decimal) -> Decimal:
    if value.as_tuple().exponent < -9:  # type: ignore[operator]
        rounding = ROUND_CEILING if value > 0 else ROUND_FLOOR  # away from zero, as inf.RoundUp
        value = value.quantize(_NANO, rounding=rounding, context=_CONTEXT)
    return value


FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NUMERIC = "unable to parse numeric part of quantity"
SUFFIX = "unable to parse quantity's suffix"
_MAX_INT64 = Decimal(2**63 - 1)
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")


def _scan(text: str) -> tuple[bool, str, str, str]:
    """Go's parseQuantityString: sign, numerator (leading zeros dropped), denominator, suffix.

    As Go: `-`, `+` and `.` alone are zero, `1.G` is allowed, no space anywhere."""
    end = len(text)
    pos = 0
    positive = True
    if text[:1] in ("-", "+"):
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    start = pos
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    num = text[start:pos] or "0"
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos].isdigit() and text[pos].isascii():
            pos += 1
        denom = text[start:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "-+":
        pos += 1
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_WRONG)
    return positive, num, denom, text[suffix_start:]


def _parse(text: str) -> tuple[Decimal, str]:
    """Go's ParseQuantity: the exact value, rounded away from zero to a nano-unit, and its format.

    BinarySI values are capped at the int64 limits, and a BinarySI value below 1 that Go
    computes exactly (a fraction, or `Ei`) is written as DecimalSI, as Go does."""
    if not text:
        raise QuantityError(FORMAT_WRONG)
    positive, num, denom, suffix = _scan(text)
    amount = Decimal(f"{num}.{denom}" if denom else num)
    if suffix in _BINARY:
        exponent = 10 * _BINARY[suffix]
        value, fmt = amount * (Decimal(2) ** exponent), BINARY_SI
        fast = not denom and 15 - len(num) - int(exponent * 3 / 10) - 1 >= 0 and value <= _MAX_INT64
        if not fast:
            value = min(_round_nano(value), _MAX_INT64)
            if value < 1:
                fmt = DECIMAL_SI
    elif suffix in _DECIMAL:
        value, fmt = amount.scaleb(_DECIMAL[suffix], context=_CONTEXT), DECIMAL_SI
    elif len(suffix) > 1 and suffix[0] in "eE" and _EXPONENT.match(suffix):
        value, fmt = amount.scaleb(int(suffix[1:]), context=_CONTEXT), DECIMAL_EXPONENT
    else:
        raise QuantityError(SUFFIX)
    if not positive:
        value = -value
    return _round_nano(value), fmt


def _canonical(value: Decimal, fmt: str) -> str:
    if value == 0:
        return "0"
    if fmt == BINARY_SI and abs(value) >= 1024 and value == value.to_integral_value():
        integer = int(value)
        power = 0
        while power < 6 and integer % (1024 ** (power + 1)) == 0:
            power += 1
        mantissa = integer // (1024**power)
        return f"{mantissa}{_BINARY_SUFFIX[power]}" if power else str(mantissa)
    sign, digits, exponent = value.normalize(context=_CONTEXT).as_tuple()
    mantissa = int("".join(map(str, digits)))
    shift = exponent % 3  # type: ignore[operator]
    mantissa, exponent = mantissa * 10**shift, exponent - shift  # type: ignore[operator]
    if fmt == DECIMAL_EXPONENT:
        suffix = f"e{exponent}" if exponent else ""
    else:
        if exponent > 18:
            mantissa, exponent = mantissa * 10 ** (exponent - 18), 18
        suffix = _DECIMAL_SUFFIX[exponent]
    return f"{'-' if sign else ''}{mantissa}{suffix}"
