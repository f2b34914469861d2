"""Well-known value types behave as their apimachinery counterparts."""

from __future__ import annotations

import pickle
import re
from datetime import datetime, timedelta, timezone

import pytest
from pydantic import TypeAdapter, ValidationError

from kgen.runtime.intstr import IntOrString, get_scaled_value_from_int_or_percent
from kgen.runtime.quantity import Quantity, QuantityError
from kgen.runtime.timeutil import Duration, MicroTime, Time, format_go_duration, parse_go_duration


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("0.5Ki", "512"),
        ("2048", "2048"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("0.1", "100m"),
        ("1.5", "1500m"),
        ("100m", "100m"),
        ("1e3", "1e3"),
        ("1.5e3", "1500"),
        ("12e6", "12e6"),
        ("1n", "1n"),
        ("0.0000000001", "1n"),  # rounded up to nano precision
        ("-1.5Gi", "-1536Mi"),
        ("0", "0"),
        ("0Mi", "0"),
        ("+5", "5"),
        (".5", "500m"),
    ],
)
def test_quantity_canonical_form(text, canonical):
    assert str(Quantity(text)) == canonical


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "1Xi", "1 Gi", "--1", " 1", "1 ", "1i", "0.1am", "-3.01e-"])
def test_quantity_rejects_malformed(text):
    with pytest.raises(QuantityError):
        Quantity(text)


@pytest.mark.parametrize(
    "text, value, fmt",
    [
        # Go's parser reads a missing number as 0 and allows a trailing dot
        ("Gi", 0, "BinarySI"),
        ("-", 0, "DecimalSI"),
        (".", 0, "DecimalSI"),
        ("1.G", 10**9, "DecimalSI"),
        ("007", 7, "DecimalSI"),
        # BinarySI is capped at the int64 limits, and below 1 it is DecimalSI
        ("9Ei", 2**63 - 1, "BinarySI"),
        ("-100Ei", -(2**63 - 1), "BinarySI"),
        ("0.0Ki", 0, "DecimalSI"),
        ("0.5Ki", 512, "BinarySI"),
        # no cap for decimal suffixes
        ("100E", 10**20, "DecimalSI"),
    ],
)
def test_quantity_parses_as_go_does(text, value, fmt):
    quantity = Quantity(text)
    assert (quantity.value, quantity.format) == (value, fmt)


def test_quantity_round_up_and_scaled_values():
    assert Quantity("9.01").round_up(-1) == (Quantity("9.1"), False)
    assert Quantity("-9.01").round_up(0) == (Quantity("-10"), False)
    assert Quantity("9.01").round_up(-2) == (Quantity("9.01"), True)
    assert Quantity("1m").scaled_value(-9) == 1_000_000
    assert Quantity("1500m").scaled_value(0) == 2
    assert Quantity.new_scaled(5, -3) == Quantity("5m")


def test_quantity_compares_by_value():
    assert Quantity("1Gi") == Quantity("1024Mi") == "1073741824"
    assert Quantity("100m") < Quantity("1")
    assert hash(Quantity("1k")) == hash(Quantity("1000"))
    assert Quantity("1.5").as_int() == 2 and Quantity("100m").milli_value() == 100


@pytest.mark.parametrize(
    "text, expected_utc",
    [
        ("2024-05-01T12:00:00Z", datetime(2024, 5, 1, 12, tzinfo=timezone.utc)),
        ("2024-05-01T14:00:00+02:00", datetime(2024, 5, 1, 12, tzinfo=timezone.utc)),
        ("2024-05-01T12:00:00.123456789Z", datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=timezone.utc)),
    ],
)
def test_time_parses_rfc3339(text, expected_utc):
    assert Time._validate(text) == expected_utc


@pytest.mark.parametrize("text", ["2024-05-01", "2024-05-01 12:00:00Z", "2024-05-01T12:00:00", "2024-13-01T00:00:00Z"])
def test_time_rejects_what_go_rejects(text):
    with pytest.raises(ValueError):
        Time._validate(text)


def test_time_writes_utc_seconds_and_microtime_micros():
    moment = datetime(2024, 5, 1, 14, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    assert Time.from_datetime(moment).to_json() == "2024-05-01T12:00:00Z"
    assert MicroTime.from_datetime(moment).to_json() == "2024-05-01T12:00:00.123456Z"
    assert Time.from_datetime(datetime(2024, 1, 1)).tzinfo == timezone.utc  # naive means UTC


def test_a_time_built_directly_is_written_as_the_same_instant_in_utc():
    # Built with the datetime constructor, a Time keeps the zone it was given; naive means
    # UTC here too, whatever the machine's local zone.
    assert Time(2024, 5, 1, 12, 0, 0).to_json() == "2024-05-01T12:00:00Z"
    assert Time(1, 2, 3, 4, 5, 6).to_json() == "0001-02-03T04:05:06Z"
    plus_two = timezone(timedelta(hours=2))
    assert Time(2024, 5, 1, 14, 0, 0, tzinfo=plus_two).to_json() == "2024-05-01T12:00:00Z"
    assert MicroTime(2024, 5, 1, 14, 0, 0, 7, tzinfo=plus_two).to_json() == "2024-05-01T12:00:00.000007Z"
    assert MicroTime(2024, 5, 1, 12, 0, 0, 7).to_json() == "2024-05-01T12:00:00.000007Z"


@pytest.mark.parametrize(
    "text, nanos, written",
    [
        ("0", 0, "0s"),
        ("1h", 3600 * 10**9, "1h0m0s"),
        ("90m", 5400 * 10**9, "1h30m0s"),
        ("1h2m3.5s", 3723500000000, "1h2m3.5s"),
        ("300ms", 300_000_000, "300ms"),
        ("1.5us", 1500, "1.5µs"),
        ("10ns", 10, "10ns"),
        ("-2m", -120 * 10**9, "-2m0s"),
        ("1.000000001s", 1_000_000_001, "1.000000001s"),
    ],
)
def test_go_duration_strings(text, nanos, written):
    assert parse_go_duration(text) == nanos
    assert format_go_duration(nanos) == written


@pytest.mark.parametrize("text", ["", "-", "1", "1d", "h", ".s", "1h2"])
def test_go_duration_rejects_malformed(text):
    with pytest.raises(ValueError):
        parse_go_duration(text)


def test_duration_is_a_timedelta():
    assert Duration.parse("1m30s") == timedelta(seconds=90)
    assert Duration.parse("1m30s").to_json() == "1m30s"


def test_times_and_durations_are_plain_python_objects_besides_what_they_write():
    import copy
    import weakref

    for value in (Time.from_datetime(datetime(2024, 1, 2, 3, 4, 5, 6, timezone.utc), 6789), Duration.parse("1m30s")):
        assert value._kgen_json == value.to_json()  # what the msgspec models write, made once
        assert weakref.ref(value)() is value
        assert pickle.loads(pickle.dumps(value)) == value and copy.deepcopy(value) is value
        value.note = "mine"  # an attribute of the caller's own
        assert value.note == "mine"
        with pytest.raises(AttributeError, match="no attribute 'missing'"):
            value.missing  # noqa: B018


def test_int_or_string():
    assert IntOrString(8080).to_json() == 8080 and IntOrString("http").to_json() == "http"
    assert IntOrString("25%").scaled_value(10, round_up=True) == 3
    assert IntOrString("25%").scaled_value(10, round_up=False) == 2
    assert IntOrString(5) != IntOrString("5")
    with pytest.raises(ValueError, match="32 bits"):
        IntOrString(2**31)
    with pytest.raises(ValueError):
        IntOrString(True)


def test_copy_json_is_deep_and_handles_non_json_values():
    from kgen.runtime.rawjson import copy_json

    data = {"a": [1, {"b": None, "c": True}], "d": 1.5, "e": "x"}
    copied = copy_json(data)
    assert copied == data
    copied["a"][1]["b"] = "changed"
    assert data["a"][1]["b"] is None

    class Custom:
        pass

    unusual = {"obj": Custom(), "list": [1]}
    copied = copy_json(unusual)
    assert copied["obj"] is not unusual["obj"] and copied["list"] == [1] and copied["list"] is not unusual["list"]


def test_a_time_keeps_the_nanoseconds_it_was_read_with_and_writes_seconds():
    adapter = TypeAdapter(Time)
    precise = adapter.validate_python("2024-05-01T12:00:00.123456789Z")
    micro = adapter.validate_python("2024-05-01T12:00:00.123456Z")
    assert precise.nanosecond == 123_456_789
    assert precise != micro  # Go's equality.Semantic compares the full instant
    assert precise.to_json() == micro.to_json() == "2024-05-01T12:00:00Z"
    # Go reads nine fractional digits and ignores any more
    assert adapter.validate_python("2024-05-01T13:00:00.1234567891+01:00").nanosecond == 123_456_789
    assert pickle.loads(pickle.dumps(precise)) == precise
    assert Time.from_datetime(precise, precise.nanosecond) == precise


def test_a_micro_time_is_read_only_with_six_fractional_digits():
    adapter = TypeAdapter(MicroTime)
    assert adapter.validate_python("2024-05-01T12:00:00.000007Z").to_json() == "2024-05-01T12:00:00.000007Z"
    for text in ("2024-05-01T12:00:00Z", "2024-05-01T12:00:00.0000071Z", "2024-05-01T12:00:00.07Z"):
        with pytest.raises(ValidationError, match="exactly six fractional digits"):
            adapter.validate_python(text)


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("0", 0),
        ("+8080", 8080),
        ("-2147483648", -(2**31)),
        ("2147483648", "2147483648"),  # past int32: a string, as Go's ParseInt(s, 10, 32) fails
        (" 1", " 1"),
        ("1_000", "1_000"),
        ("http", "http"),
    ],
)
def test_int_or_string_parse(text, parsed):
    assert IntOrString.parse(text) == IntOrString(parsed)


@pytest.mark.parametrize(
    "value, total, round_up, expected",
    [
        (None, 10, True, "nil value for IntOrString"),
        ("90", 10, True, "invalid value for IntOrString: invalid type: string is not a percentage"),
        ("#%", 10, True, 'invalid value for IntOrString: invalid value "#%": strconv.Atoi: parsing "#": invalid syntax'),
        (" 5%", 10, True, "invalid syntax"),
        ("90%", 95, True, 86),
        ("90%", 95, False, 85),
        (7, 95, False, 7),
    ],
)
def test_scaled_value_from_int_or_percent(value, total, round_up, expected):
    given = None if value is None else IntOrString(value)
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=re.escape(expected)):
            get_scaled_value_from_int_or_percent(given, total, round_up)
    else:
        assert get_scaled_value_from_int_or_percent(given, total, round_up) == expected
