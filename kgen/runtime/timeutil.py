"""metav1.Time, metav1.MicroTime and metav1.Duration with their Go JSON forms.

Time is RFC 3339 in UTC with second precision (`2024-05-01T12:00:00Z`), MicroTime with
microseconds (`2024-05-01T12:00:00.000001Z`); the zero time is `null` and is `None` in
Python. Duration is Go's duration string (`1h2m3.5s`); Python resolution is a microsecond.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

from pydantic_core import core_schema

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$"
)


def parse_rfc3339(text: str) -> datetime:
    """Parse an RFC 3339 timestamp as Go's time.Parse(time.RFC3339, ...) does."""
    match = _RFC3339.match(text)
    if not match:
        raise ValueError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 timestamp')
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    micro = int((fraction or "0").ljust(6, "0")[:6])
    if offset == "Z":
        tz = timezone.utc
    else:
        sign = 1 if offset[0] == "+" else -1
        tz = timezone(sign * timedelta(hours=int(offset[1:3]), minutes=int(offset[4:6])))
    try:
        value = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tz)
    except ValueError as err:
        raise ValueError(f'parsing time "{text}": {err}') from None
    return value.astimezone(timezone.utc)


def _as_utc(value: datetime) -> datetime:
    """The same instant in UTC; a naive datetime is taken to be UTC (as `from_datetime` does)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


class Time(datetime):
    """A timestamp with second precision on the wire; always timezone-aware (UTC)."""

    ZERO_JSON = None

    @classmethod
    def from_datetime(cls, value: datetime) -> Time:
        """Convert any datetime; a naive one is taken to be UTC."""
        value = _as_utc(value)
        return cls(value.year, value.month, value.day, value.hour, value.minute, value.second,
                   value.microsecond, timezone.utc)  # fmt: skip

    @classmethod
    def now(cls, tz: Any = None) -> Time:  # noqa: ARG003 - always UTC
        return cls.from_datetime(datetime.now(timezone.utc))

    def to_json(self) -> str:
        v = self if self.tzinfo is timezone.utc else _as_utc(self)
        # %-formatting: twice as fast as the f-string with format specs (this is per timestamp).
        return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (v.year, v.month, v.day, v.hour, v.minute, v.second)

    def is_zero(self) -> bool:
        return False

    def __copy__(self) -> Time:
        return self

    def __deepcopy__(self, memo: dict) -> Time:
        return self

    @classmethod
    def _validate(cls, value: Any) -> Time:
        if isinstance(value, cls):
            return value
        if isinstance(value, datetime):
            return cls.from_datetime(value)
        if isinstance(value, str):
            return cls.from_datetime(parse_rfc3339(value))
        raise ValueError(f"a time is an RFC 3339 string, not {type(value).__name__}")

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate, serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.to_json())
        )


class MicroTime(Time):
    """A timestamp with microsecond precision on the wire."""

    def to_json(self) -> str:
        v = self if self.tzinfo is timezone.utc else _as_utc(self)
        return "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (
            v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond,
        )  # fmt: skip


_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_NANOS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}


def parse_go_duration(text: str) -> int:
    """Parse a Go duration string (`1h2m3.5s`, `-300ms`) into nanoseconds."""
    original = text
    sign = 1
    if text and text[0] in "+-":
        sign, text = (-1 if text[0] == "-" else 1), text[1:]
    if text == "0":
        return 0
    if not text:
        raise ValueError(f'time: invalid duration "{original}"')
    total = 0
    pos = 0
    while pos < len(text):
        match = _DURATION_PART.match(text, pos)
        if not match:
            raise ValueError(f'time: invalid duration "{original}": expected a number and a unit (ns, us, ms, s, m, h)')
        number, unit = match.groups()
        whole, _, fraction = number.partition(".")
        nanos = int(whole or "0") * _UNIT_NANOS[unit]
        if fraction:
            nanos += int(fraction) * _UNIT_NANOS[unit] // 10 ** len(fraction)
        total += nanos
        pos = match.end()
    return sign * total


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
    """A duration written as Go's duration string."""

    ZERO_JSON = "0s"

    @classmethod
    def from_timedelta(cls, value: timedelta) -> Duration:
        return cls(days=value.days, seconds=value.seconds, microseconds=value.microseconds)

    @classmethod
    def parse(cls, text: str) -> Duration:
        """Parse a Go duration string."""
        return cls(microseconds=parse_go_duration(text) / 1000)

    def nanoseconds(self) -> int:
        return (self.days * 86400 + self.seconds) * 10**9 + self.microseconds * 1000

    def to_json(self) -> str:
        return format_go_duration(self.nanoseconds())

    def is_zero(self) -> bool:
        return not self

    def __copy__(self) -> Duration:
        return self

    def __deepcopy__(self, memo: dict) -> Duration:
        return self

    @classmethod
    def _validate(cls, value: Any) -> Duration:
        if isinstance(value, cls):
            return value
        if isinstance(value, timedelta):
            return cls.from_timedelta(value)
        if isinstance(value, str):
            return cls.parse(value)
        raise ValueError(f"a duration is a Go duration string such as '1h30m', not {type(value).__name__}")

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate, serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.to_json())
        )
