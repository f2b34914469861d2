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
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, ROUND_UP, Context, Decimal
from typing import Any

from pydantic_core import core_schema

from kgen.runtime.decoded import json_value_schema

_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BINARY_SUFFIX = {v: k for k, v in _BINARY.items()}
_EXPONENT = re.compile(r"^[eE][+-]?[0-9]+$")
# Exact arithmetic: every operation here (scaleb, multiplication by 2**n, quantize to a
# nano-unit, normalize) yields at most the digits it is given, so no precision or exponent
# limit of the decimal module can round or overflow a value.
_CONTEXT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
_NANO = Decimal("1e-9")
_MIN_INT64, _MAX_INT64_INT = -(2**63), 2**63 - 1
#: The longest DecimalSI mantissa written with zeros (`1000E`); beyond, as `1e21`-style
#: DecimalExponent text, so a value's text never grows past what its digits need.
_MAX_PADDED_DIGITS = 4300

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"


class QuantityError(ValueError):
    """A string that is not a quantity."""


class Quantity:
    """An immutable fixed-point number with a unit suffix family.

    Building one raises only QuantityError (a ValueError): for text ParseQuantity refuses,
    for an exponent beyond apimachinery's 32-bit decimal scale, and for digits that are not
    ASCII. Every operation costs what the text's length does, whatever its exponent."""

    __slots__ = ("_value", "_format", "_canonical")
    ZERO_JSON = "0"
    _value: Decimal
    _format: str
    _canonical: str
    """The canonical text, made when first asked for (`__getattr__`)."""

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

    @classmethod
    def from_decimal(cls, value: Decimal | int, fmt: str = DECIMAL_SI) -> Quantity:
        """A quantity with this exact value and suffix family (QuantityError if not finite)."""
        value = Decimal(value)
        if not value.is_finite():
            raise QuantityError(f"a quantity is a finite number, not {value}")
        quantity = cls.__new__(cls)
        quantity._value = _round_nano(value)
        quantity._format = fmt
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
        """The value rounded away from zero to an integer (Go's Quantity.Value()), saturated
        at the int64 limits."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """The value in thousandths, rounded away from zero (Go's Quantity.MilliValue()),
        saturated at the int64 limits."""
        return self.scaled_value(-3)

    def scaled_value(self, scale: int) -> int:
        """The value in units of 10**scale, rounded away from zero (Go's ScaledValue: `Milli`
        is -3), saturated at the int64 limits.

        Go returns an int64 too; where the value does not fit, its result is not defined (0
        or overflowed bits, depending on how the quantity was parsed): here it is the nearest
        int64, and costs the same for any value."""
        integral = self._value.scaleb(-scale, context=_CONTEXT).to_integral_value(rounding=ROUND_UP)
        if integral.adjusted() >= 19:  # at least 10**19: beyond int64, not worth an int
            return _MAX_INT64_INT if integral > 0 else _MIN_INT64
        return max(_MIN_INT64, min(_MAX_INT64_INT, int(integral)))

    @classmethod
    def new_scaled(cls, value: int, scale: int, fmt: str = DECIMAL_SI) -> Quantity:
        """`value` x 10**scale (Go's NewScaledQuantity)."""
        return cls.from_decimal(Decimal(value).scaleb(scale, context=_CONTEXT), fmt)

    def round_up(self, scale: int) -> tuple[Quantity, bool]:
        """This value rounded away from zero to a multiple of 10**scale, and whether that
        was exact (Go's RoundUp, which rounds in place; a Quantity here is immutable)."""
        unit = Decimal(1).scaleb(scale)
        exponent = self._value.as_tuple().exponent  # an int: the value is finite
        if isinstance(exponent, int) and exponent >= scale:
            return self, True
        rounded = self._value.quantize(unit, rounding=ROUND_UP, context=_CONTEXT)
        if rounded == self._value:
            return self, True
        return Quantity.from_decimal(rounded, self._format), False

    def is_zero(self) -> bool:
        return self._value == 0

    def __str__(self) -> str:
        return self._canonical

    def __getattr__(self, name: str) -> str:
        # Only an attribute not set yet gets here: the canonical text, made once.
        if name == "_canonical" or name == "_kgen_json":
            text = self._canonical = _canonical(self._value, self._format)
            return text
        raise AttributeError(f"'Quantity' object has no attribute {name!r}")

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

    def __deepcopy__(self, memo: dict[int, Any]) -> Quantity:
        return self

    def to_json(self) -> str:
        """The canonical string the API server writes."""
        return self._canonical

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.json_or_python_schema(
            json_schema=json_value_schema(_from_json, ("str", "int", "float"), "a quantity is a string or a number"),
            python_schema=core_schema.no_info_plain_validator_function(_validate),
            serialization=core_schema.to_string_ser_schema(),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """As controller-gen writes a Quantity in a CRD."""
        return {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$",
            "x-kubernetes-int-or-string": True,
        }


# What the msgspec models' encoder writes for a quantity (`kgen.runtime.structs`): the slot
# of the canonical text under a second name, read in C (`__getattr__` makes the text once).
setattr(Quantity, "_kgen_json", vars(Quantity)["_canonical"])


def _validate(value: Any) -> Quantity:
    if isinstance(value, Quantity):
        return value
    try:
        return Quantity(value)
    except QuantityError as err:
        raise ValueError(str(err)) from None


def _from_json(value: Any) -> Quantity:
    """A quantity read from JSON: Go's UnmarshalJSON trims spaces around the text first
    (`" 1"` is 1), which ParseQuantity itself (and the constructor) does not."""
    return _validate(value.strip() if isinstance(value, str) else value)


def _round_nano(value: Decimal, exponent: int | None = None) -> Decimal:
    """The value rounded away from zero to a nano-unit (`exponent`, the value's decimal
    exponent, if the caller knows it: reading it from a long value costs a tuple of its digits)."""
    if exponent is None:
        exponent = value.as_tuple().exponent  # type: ignore[assignment]
    if exponent < -9:  # type: ignore[operator]
        rounding = ROUND_CEILING if value > 0 else ROUND_FLOOR  # away from zero, as inf.RoundUp
        value = value.quantize(_NANO, rounding=rounding, context=_CONTEXT)
    return value


FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NUMERIC = "unable to parse numeric part of quantity"
SUFFIX = "unable to parse quantity's suffix"
_MAX_INT64 = Decimal(2**63 - 1)
# Go's parseQuantityString: a sign, leading zeros (dropped), the numerator, a denominator
# after a dot, and a suffix of suffix letters, a sign and digits. ASCII digits only; `-`,
# `+` and `.` alone are zero and `1.G` is allowed, as in Go. Possessive, as Go's scanner
# is: a text that does not match fails in linear time, not by trying every split of its digits.
_QUANTITY = re.compile(r"([+-]?)0*+([0-9]*+)(?:\.([0-9]*+))?([eEinumkKMGTP]*+[-+]?[0-9]*+)")


def _scan(text: str) -> tuple[bool, str, str, str]:
    """Go's parseQuantityString: sign, numerator (leading zeros dropped), denominator, suffix."""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(FORMAT_WRONG)
    sign, num, denom, suffix = match.groups()
    return sign != "-", num or "0", denom or "", suffix


def _decimal_exponent(suffix: str) -> int:
    """The exponent of an `e<n>` suffix. Go reads it as an int64 (beyond, ErrSuffix) and keeps
    32 bits of it, the scale of its decimals: an exponent beyond 32 bits is refused here
    rather than wrapped around."""
    body = suffix[1:]
    sign = "-" if body[:1] == "-" else ""
    digits = body.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 10:
        raise QuantityError(SUFFIX)
    exponent = int(sign + digits)
    if not -(2**31) <= exponent < 2**31:
        raise QuantityError(f"{SUFFIX}: the exponent {exponent} does not fit in 32 bits")
    return exponent


def _parse(text: str) -> tuple[Decimal, str]:
    """Go's ParseQuantity: the exact value, rounded away from zero to a nano-unit, and its format.

    BinarySI values are capped at the int64 limits, and a BinarySI value below 1 that Go
    computes exactly (a fraction, or `Ei`) is written as DecimalSI, as Go does."""
    if not text:
        raise QuantityError(FORMAT_WRONG)
    positive, num, denom, suffix = _scan(text)
    amount = Decimal(f"{num}.{denom}" if denom else num)
    exponent = -len(denom)  # of `amount`, kept exactly by every step below
    if suffix in _BINARY:
        power = 10 * _BINARY[suffix]
        value, fmt = _CONTEXT.multiply(amount, Decimal(2**power)), BINARY_SI
        fast = not denom and 15 - len(num) - int(power * 3 / 10) - 1 >= 0 and value <= _MAX_INT64
        if not fast:
            value = min(_round_nano(value, exponent), _MAX_INT64)
            exponent = value.as_tuple().exponent  # type: ignore[assignment]  # at most 28 digits now
            if value < 1:
                fmt = DECIMAL_SI
    elif suffix in _DECIMAL:
        value, fmt = amount.scaleb(_DECIMAL[suffix], context=_CONTEXT), DECIMAL_SI
        exponent += _DECIMAL[suffix]
    elif len(suffix) > 1 and suffix[0] in "eE" and _EXPONENT.match(suffix):
        scale = _decimal_exponent(suffix)
        value, fmt = amount.scaleb(scale, context=_CONTEXT), DECIMAL_EXPONENT
        exponent += scale
    else:
        raise QuantityError(SUFFIX)
    if not positive:
        value = value.copy_negate()  # exact: the operators would round to the thread's context
    return _round_nano(value, exponent), fmt


def _canonical(value: Decimal, fmt: str) -> str:
    if value == 0:
        return "0"
    if (
        fmt == BINARY_SI
        and value.copy_abs() >= 1024
        and value.adjusted() < _MAX_PADDED_DIGITS
        and value == value.to_integral_value()
    ):
        integer = int(value)
        power = 0
        while power < 6 and integer % (1024 ** (power + 1)) == 0:
            power += 1
        mantissa = integer // (1024**power)
        return f"{mantissa}{_BINARY_SUFFIX[power]}" if power else str(mantissa)
    # The digits as text: a value may have more digits than Python converts to an int.
    scientific, _, adjusted = format(value.normalize(context=_CONTEXT), "E").partition("E")
    sign = "-" if scientific.startswith("-") else ""
    digits = scientific.lstrip("-").replace(".", "")
    exponent = int(adjusted) - (len(digits) - 1)
    shift = exponent % 3  # Go multiplies the mantissa by 10 until the exponent is a multiple of 3
    digits, exponent = digits + "0" * shift, exponent - shift
    if fmt == DECIMAL_EXPONENT:
        suffix = f"e{exponent}" if exponent else ""
    elif exponent > 18 and len(digits) + exponent - 18 > _MAX_PADDED_DIGITS:
        suffix = f"e{exponent}"
    else:
        if exponent > 18:
            digits, exponent = digits + "0" * (exponent - 18), 18
        suffix = _DECIMAL_SUFFIX[exponent]
    return f"{sign}{digits}{suffix}"
