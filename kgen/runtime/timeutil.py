"""metav1.Time, metav1.MicroTime and metav1.Duration with their Go JSON forms.

Time is RFC 3339 in UTC with second precision (`2024-05-01T12:00:00Z`), MicroTime with
microseconds (`2024-05-01T12:00:00.000001Z`); the zero time is `null` and is `None` in
Python. As in Go, a Time read from JSON keeps the fraction it was given, to the
nanosecond (`Time.nanosecond`), though it writes seconds only: two times that differ by a
nanosecond are not equal. A MicroTime is read only with exactly six fractional digits,
as Go's `time.Parse(RFC3339Micro, ...)` reads it. Duration is Go's duration string (`1h2m3.5s`); Python resolution is a microsecond.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any, Self

from pydantic_core import core_schema

from kgen.runtime.decoded import json_value_schema

_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})", re.ASCII)


class TimeRangeError(ValueError):
    """An instant that Python's datetime cannot hold (before year 1 or after 9999 in UTC).

    Go reads such times; kgen's Time and MicroTime are datetimes and refuse them with this
    error (a ValueError, so model decoding reports it as a validation error)."""


def parse_rfc3339_nanos(text: str) -> tuple[datetime, int]:
    """Go's time.Parse(time.RFC3339, text): the instant in UTC (to the microsecond) and the
    fraction of its second in nanoseconds (Go reads nine fractional digits, ignoring more).

    Raises ValueError for text that is not such a timestamp, TimeRangeError (a ValueError)
    for one outside the years 1-9999 in UTC."""
    match = _RFC3339.fullmatch(text)
    if not match:
        raise ValueError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 timestamp')
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    nanos = int((fraction or "0")[:9].ljust(9, "0"))
    if year == "0000":
        raise TimeRangeError(f'parsing time "{text}": the year 0 is before year 1, where kgen\'s times begin')
    try:
        if offset == "Z":
            tz = timezone.utc
        else:
            sign = 1 if offset[0] == "+" else -1
            tz = timezone(sign * timedelta(hours=int(offset[1:3]), minutes=int(offset[4:6])))
        value = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), nanos // 1000, tz)
    except ValueError as err:
        raise ValueError(f'parsing time "{text}": {err}') from None
    return _as_utc(value), nanos


def parse_rfc3339(text: str) -> datetime:
    """Parse an RFC 3339 timestamp as Go's time.Parse(time.RFC3339, ...) does (to the microsecond)."""
    return parse_rfc3339_nanos(text)[0]


def _as_utc(value: datetime) -> datetime:
    """The same instant in UTC; a naive datetime is taken to be UTC (as `from_datetime` does).

    TimeRangeError if that instant is outside the years 1-9999 (such as 9999-12-31T23:00:00-01:00)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:
        raise TimeRangeError(
            f"{value.isoformat()} is {'after year 9999' if value.year > 1 else 'before year 1'} in UTC: "
            "kgen's times are Python datetimes, which hold the years 1-9999"
        ) from None


def _kgen_json_when_asked(self: Any, name: str) -> str:
    """`__getattr__` of the times and durations: only an attribute not set yet gets here, and
    `_kgen_json` (the text the msgspec models write) is made once."""
    if name == "_kgen_json":
        text: str = self.to_json()
        self._kgen_json = text
        return text
    raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class Time(datetime):
    """A timestamp with second precision on the wire; always timezone-aware (UTC).

    Decoding text that is not an RFC 3339 timestamp is a ValueError; an instant outside the
    years 1-9999 in UTC is a TimeRangeError (a ValueError too)."""

    __slots__ = ("_kgen_json", "__dict__", "__weakref__")
    _kgen_json: str
    """What the msgspec models' encoder writes (`kgen.runtime.structs`, which reads it in C):
    `to_json()`, made when first asked for (a time is immutable), or the text the time was
    decoded from. A slot: the encoder reaches the text in one step, not through a dict."""

    ZERO_JSON = None
    _extra_nanos = 0
    """Nanoseconds below the microsecond (0-999), as Go keeps them; set only when not 0."""

    @classmethod
    def from_datetime(cls, value: datetime, nanosecond: int | None = None) -> Self:
        """Convert any datetime; a naive one is taken to be UTC. `nanosecond` (0-999,999,999)
        replaces the fraction of the second, to the nanosecond."""
        value = _as_utc(value)
        micro = value.microsecond if nanosecond is None else nanosecond // 1000
        time = cls(value.year, value.month, value.day, value.hour, value.minute, value.second, micro, timezone.utc)
        if nanosecond is not None and nanosecond % 1000:
            time._extra_nanos = nanosecond % 1000
        return time

    @classmethod
    def now(cls, tz: Any = None) -> Time:  # noqa: ARG003 - always UTC
        return cls.from_datetime(datetime.now(timezone.utc))

    @property
    def nanosecond(self) -> int:
        """The fraction of the second in nanoseconds (Go's Time.Nanosecond())."""
        return self.microsecond * 1000 + self._extra_nanos

    def to_json(self) -> str:
        v = self if self.tzinfo is timezone.utc else _as_utc(self)
        # %-formatting: twice as fast as the f-string with format specs (this is per timestamp).
        return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (v.year, v.month, v.day, v.hour, v.minute, v.second)

    def is_zero(self) -> bool:
        return False

    __getattr__ = _kgen_json_when_asked

    def __eq__(self, other: object) -> bool:
        equal = datetime.__eq__(self, other)
        if equal is True and isinstance(other, Time):
            return self._extra_nanos == other._extra_nanos
        return equal

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = datetime.__hash__

    def __reduce_ex__(self, protocol: Any) -> Any:
        plain = datetime(
            self.year, self.month, self.day, self.hour, self.minute, self.second, self.microsecond, self.tzinfo
        )
        return (type(self).from_datetime, (plain, self.nanosecond))

    def __copy__(self) -> Time:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Time:
        return self

    @classmethod
    def _validate(cls, value: Any) -> Time:
        if isinstance(value, cls):
            return value
        if isinstance(value, Time):
            return cls.from_datetime(value, value.nanosecond)
        if isinstance(value, datetime):
            return cls.from_datetime(value)
        if isinstance(value, str):
            return cls.from_datetime(*parse_rfc3339_nanos(cls._check_text(value)))
        raise ValueError(f"a time is an RFC 3339 string, not {type(value).__name__}")

    @classmethod
    def _check_text(cls, text: str) -> str:
        return text

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """RFC 3339 text, as the OpenAPI documents say it."""
        return {"type": "string", "format": "date-time"}

    @classmethod
    def _decode_text(cls, text: str) -> Time:
        return cls.from_datetime(*parse_rfc3339_nanos(cls._check_text(text)))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        # Times are treated as immutable (a copy is the object itself): one decoded time
        # serves every occurrence of its text.
        return core_schema.json_or_python_schema(
            json_schema=json_value_schema(cls._decode_text, ("str",), "a time is an RFC 3339 string"),
            python_schema=core_schema.no_info_plain_validator_function(cls._validate),
            serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.to_json()),
        )


_RFC3339_MICRO = re.compile(r"[^.]*T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-].*)", re.ASCII)


class MicroTime(Time):
    """A timestamp with microsecond precision on the wire."""

    def to_json(self) -> str:
        v = self if self.tzinfo is timezone.utc else _as_utc(self)
        return "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (
            v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond,
        )  # fmt: skip

    @classmethod
    def _check_text(cls, text: str) -> str:
        if not _RFC3339_MICRO.fullmatch(text):
            raise ValueError(
                f'parsing time "{text}" as "2006-01-02T15:04:05.000000Z07:00": a MicroTime has exactly six fractional digits'
            )
        return text


_UNIT_NANOS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
# One part of a duration: digits, a fraction, a unit (anything up to the next digit or dot).
_DURATION_PART = re.compile(r"([0-9]*)(\.[0-9]*)?([^0-9.]*)")
_MAX_NANOS = 1 << 63  # Go adds in a uint64 and checks against this


def parse_go_duration(text: str) -> int:
    """Parse a Go duration string (`1h2m3.5s`, `-300ms`) into nanoseconds, as Go's
    time.ParseDuration does: ASCII digits, the units ns, us (µs), ms, s, m and h, and a
    total that fits in an int64; ValueError with Go's message otherwise."""
    original = text
    negative = False
    if text and text[0] in "+-":
        negative, text = text[0] == "-", text[1:]
    if text == "0":
        return 0
    if not text:
        raise ValueError(f'time: invalid duration "{original}"')
    total = 0
    for whole, fraction, unit in _DURATION_PART.findall(text):
        if not whole and len(fraction) < 2:  # no digits before the unit (or the end of the text)
            if not fraction and not unit:
                continue  # the empty match at the end of the text
            raise ValueError(f'time: invalid duration "{original}"')
        if len(whole) > 19 and len(whole := whole.lstrip("0")) > 19:  # Go's leadingInt overflows
            raise ValueError(f'time: invalid duration "{original}"')
        if not unit:
            raise ValueError(f'time: missing unit in duration "{original}"')
        unit_nanos = _UNIT_NANOS.get(unit)
        if unit_nanos is None:
            raise ValueError(f'time: unknown unit "{unit}" in duration "{original}"')
        total += int(whole or "0") * unit_nanos
        if len(fraction) > 1:
            total += _fraction_nanos(fraction[1:], unit_nanos)
        if total > _MAX_NANOS:  # Go checks each part and the sum; parts only add
            raise ValueError(f'time: invalid duration "{original}"')
    if negative:
        return -total
    if total > _MAX_NANOS - 1:
        raise ValueError(f'time: invalid duration "{original}"')
    return total


def _fraction_nanos(fraction: str, unit_nanos: int) -> int:
    """Go's leadingFraction and its float64 arithmetic: digits that would overflow are read
    and ignored, and the fraction of the unit is truncated to whole nanoseconds."""
    digits = 0
    scale = 1.0
    # Past 308 digits the scale is infinite and the fraction adds 0, whatever follows.
    for char in fraction[:400]:
        following = digits * 10 + int(char)
        if digits > (_MAX_NANOS - 1) // 10 or following > _MAX_NANOS:
            break
        digits = following
        scale *= 10
    return int(float(digits) * (float(unit_nanos) / scale))


def format_go_duration(nanos: int) -> str:
    """Go's time.Duration.String()."""
    if nanos == 0:
        return "0s"
    negative = nanos < 0
    u = -nanos if negative else nanos
    if u < 10**9:
        if u < 1_000:
            text = f"{u}ns"
        elif u < 1_000_000:
            text = _frac(u, 3) + "µs"
        else:
            text = _frac(u, 6) + "ms"
    else:
        seconds_text = _frac(u % (60 * 10**9), 9)
        minutes_total = u // (60 * 10**9)
        hours, minutes = divmod(minutes_total, 60)
        if hours:
            text = f"{hours}h{minutes}m{seconds_text}s"
        elif minutes:
            text = f"{minutes}m{seconds_text}s"
        else:
            text = f"{seconds_text}s"
    return "-" + text if negative else text


def _frac(value: int, precision: int) -> str:
    whole, fraction = divmod(value, 10**precision)
    digits = str(fraction).rjust(precision, "0").rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)


class Duration(timedelta):
    """A duration written as Go's duration string.

    Decoding refuses, with ValueError worded as Go's, what time.ParseDuration refuses,
    including durations beyond an int64 of nanoseconds (about 292 years)."""

    __slots__ = ("_kgen_json", "__dict__", "__weakref__")
    _kgen_json: str
    """What the msgspec models' encoder writes: `to_json()`, made when first asked for."""

    ZERO_JSON = "0s"

    @classmethod
    def from_timedelta(cls, value: timedelta) -> Duration:
        return cls(days=value.days, seconds=value.seconds, microseconds=value.microseconds)

    @classmethod
    def parse(cls, text: str) -> Duration:
        """Parse a Go duration string (ValueError with Go's message if it is not one, or
        beyond an int64 of nanoseconds, as Go's time.ParseDuration)."""
        return cls.from_nanoseconds(parse_go_duration(text))

    @classmethod
    def from_nanoseconds(cls, nanos: int) -> Duration:
        """The duration of `nanos` nanoseconds, rounded half to even to the microsecond (toward
        zero at the ends of int64, so that what it writes stays a Go duration)."""
        micros, rest = divmod(nanos, 1000)
        if rest > 500 or (rest == 500 and micros % 2):
            micros += 1
        if not -_MAX_NANOS <= micros * 1000 < _MAX_NANOS:
            micros = -(-nanos // 1000) if nanos < 0 else nanos // 1000
        return cls(microseconds=micros)

    def nanoseconds(self) -> int:
        return (self.days * 86400 + self.seconds) * 10**9 + self.microseconds * 1000

    def to_json(self) -> str:
        return format_go_duration(self.nanoseconds())

    def is_zero(self) -> bool:
        return not self

    __getattr__ = _kgen_json_when_asked

    def __copy__(self) -> Duration:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Duration:
        return self

    @classmethod
    def _validate(cls, value: Any) -> Duration:
        if isinstance(value, cls):
            return value
        if isinstance(value, timedelta):
            duration = cls.from_timedelta(value)
            if not -_MAX_NANOS <= duration.nanoseconds() < _MAX_NANOS:
                raise ValueError(f"a duration is an int64 of nanoseconds (about 292 years), not {value}")
            return duration
        if isinstance(value, str):
            return cls.parse(value)
        raise ValueError(f"a duration is a Go duration string such as '1h30m', not {type(value).__name__}")

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        """Go's duration text (`1h30m`), as the OpenAPI documents say it."""
        return {"type": "string"}

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate, serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.to_json())
        )
