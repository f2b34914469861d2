"""Well-known value types behave as their apimachinery counterparts."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kgen.runtime.intstr import IntOrString
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


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "1Xi", "Gi", "1 Gi", "--1"])
def test_quantity_rejects_malformed(text):
    with pytest.raises(QuantityError):
        Quantity(text)


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
