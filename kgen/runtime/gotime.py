"""Go's `time.Parse` for the two layouts metav1 times are read with, and its errors.

`metav1.Time` reads `time.RFC3339` (`2006-01-02T15:04:05Z07:00`) and `metav1.MicroTime`
`RFC3339Micro` (`2006-01-02T15:04:05.000000Z07:00`). The API server answers a timestamp
it cannot read with the text of Go's `*time.ParseError`, which names the part of the
value and the part of the layout that did not match
(`parsing time "5pm" as "2006-01-02T15:04:05Z07:00": cannot parse "5pm" as "2006"`),
or the value that is out of range (`parsing time "2024-13-01T00:00:00Z": month out of
range`). `parse` walks a layout element by element as Go's parser does, so the errors
are Go's; a timestamp it accepts is returned as an instant (with its nanoseconds).
"""

from __future__ import annotations

import calendar
from datetime import datetime, timedelta, timezone

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"

# (literal prefix, layout element) pairs, as Go's nextStdChunk splits each layout.
_ELEMENTS = {
    RFC3339: (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"), ("", "Z07:00")),
    RFC3339_MICRO: (
        ("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"), ("", ".000000"), ("", "Z07:00"),
    ),
}  # fmt: skip


class TimeParseError(ValueError):
    """A timestamp Go's time.Parse refuses; the message is Go's."""


def quote(text: str) -> str:
    """The time package's own quoting (not strconv's): bytes outside printable ASCII as \\x escapes."""
    out = ['"']
    for char in text:
        if ord(char) >= 0x80 or char < " ":
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))
        else:
            if char in '"\\':
                out.append("\\")
            out.append(char)
    out.append('"')
    return "".join(out)


def _cannot_parse(layout: str, text: str, layout_part: str, value_part: str) -> TimeParseError:
    return TimeParseError(
        f"parsing time {quote(text)} as {quote(layout)}: cannot parse {quote(value_part)} as {quote(layout_part)}"
    )


def _is_digit(value: str, index: int) -> bool:
    return index < len(value) and "0" <= value[index] <= "9"


def _getnum(value: str, fixed: bool) -> tuple[int, str] | None:
    """One or two digits (exactly two when `fixed`), as Go's getnum; None when there are none."""
    if not _is_digit(value, 0):
        return None
    if not _is_digit(value, 1):
        if fixed:
            return None
        return int(value[0]), value[1:]
    return int(value[:2]), value[2:]


def _atoi(text: str) -> int | None:
    negative = text[:1] == "-"
    digits = text[1:] if text[:1] in ("-", "+") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    return -int(digits) if negative else int(digits)


def _nanoseconds(value: str, width: int) -> tuple[int | None, str]:
    """Go's parseNanoseconds: the digits after the '.' or ',' of `value[:width]`, scaled to
    nanoseconds; (None, "") when unreadable, (None, "fractional second") when negative."""
    if value[:1] not in (".", ","):
        return None, ""
    width = min(width, 10)
    number = _atoi(value[1:width])
    if number is None:
        return None, ""
    if number < 0:
        return None, "fractional second"
    return number * 10 ** (10 - width), ""


def parse(layout: str, text: str) -> tuple[datetime, int]:
    """`time.Parse(layout, text)` for RFC3339 or RFC3339_MICRO: the instant in UTC (to the
    microsecond) and the nanoseconds of its second. TimeParseError with Go's message when
    Go refuses the text; ValueError when Python cannot hold the instant (before year 1)."""
    value = text
    year = month = day = hour = minute = second = nanos = 0
    offset: int | None = None
    elements = _ELEMENTS[layout]
    for position, (prefix, element) in enumerate(elements):
        for char in prefix:
            if not value or value[0] != char:
                raise _cannot_parse(layout, text, prefix, value)
            value = value[1:]
        hold, bad, out_of_range = value, False, ""
        if element == "2006":
            if len(value) < 4 or not _is_digit(value, 0):
                bad = True
            else:
                parsed_year = _atoi(value[:4])
                value = value[4:]
                bad = parsed_year is None
                year = parsed_year or 0
        elif element in ("01", "02", "15", "04", "05"):
            got = _getnum(value, fixed=element != "15")
            if got is None:
                bad = True
            else:
                number, value = got
                if element == "01":
                    month = number
                    out_of_range = "month" if not 1 <= number <= 12 else ""
                elif element == "02":
                    day = number  # checked against the month once the year is known
                elif element == "15":
                    hour = number
                    out_of_range = "hour" if number >= 24 else ""
                elif element == "04":
                    minute = number
                    out_of_range = "minute" if number >= 60 else ""
                else:
                    second = number
                    out_of_range = "second" if number >= 60 else ""
                    following = elements[position + 1][1] if position + 1 < len(elements) else ""
                    # A fraction the layout does not name is read anyway (Go's special case).
                    if not out_of_range and following != ".000000" and value[:1] in (".", ",") and _is_digit(value, 1):
                        width = 2
                        while _is_digit(value, width):
                            width += 1
                        fraction, out_of_range = _nanoseconds(value, width)
                        bad = fraction is None and not out_of_range
                        nanos = fraction or 0
                        value = value[width:]
        elif element == ".000000":
            if len(value) < 7:
                bad = True
            else:
                fraction, out_of_range = _nanoseconds(value, 7)
                bad = fraction is None and not out_of_range
                nanos = fraction or 0
                value = value[7:]
        else:  # Z07:00
            if value[:1] == "Z":
                value, offset = value[1:], 0
            elif len(value) < 6 or value[3] != ":":
                bad = True
            else:
                sign, hours, minutes, value = value[0], _getnum(value[1:3], True), _getnum(value[4:6], True), value[6:]
                hour_offset = hours[0] if hours is not None else 0
                minute_offset = minutes[0] if minutes is not None and hours is not None else 0
                # Go compares with > (offsets of 24 hours are written), the minute check last.
                if hour_offset > 24:
                    out_of_range = "time zone offset hour"
                if minute_offset > 60:
                    out_of_range = "time zone offset minute"
                bad = hours is None or minutes is None or sign not in ("+", "-")
                offset = (hour_offset * 60 + minute_offset) * 60 * (-1 if sign == "-" else 1)
        if out_of_range:
            raise TimeParseError(f"parsing time {quote(text)}: {out_of_range} out of range")
        if bad:
            raise _cannot_parse(layout, text, element, hold)
    if value:
        raise TimeParseError(f"parsing time {quote(text)}: extra text: {quote(value)}")
    if day < 1 or day > (calendar.monthrange(year, month)[1] if year > 0 else _days_in_year_zero(month)):
        raise TimeParseError(f"parsing time {quote(text)}: day out of range")
    if year < 1:
        raise ValueError(f"parsing time {quote(text)}: the year 0 is before year 1, where kgen's times begin")
    moment = datetime(year, month, day, hour, minute, second, nanos // 1000, timezone(timedelta(seconds=offset or 0)))
    try:
        return moment.astimezone(timezone.utc), nanos
    except OverflowError:
        raise ValueError(f"parsing time {quote(text)}: the instant is outside the years 1-9999 in UTC") from None


def _days_in_year_zero(month: int) -> int:
    """Days in a month of the year 0 (a leap year in Go's proleptic calendar)."""
    return 29 if month == 2 else calendar.monthrange(2000, month)[1]
