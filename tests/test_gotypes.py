"""Go's encoding/json on described types, Go's base64, time.Parse and JSON scanner: the
messages and values a Go API server produces, case by case.

Sources: sigs.k8s.io/json internal/golang/encoding/json (decode.go: literalStore, object,
array, addErrorContext; kubernetes_patch.go: strict errors), Go's encoding/base64
(decodeQuantum), time/format.go (parse, ParseError) and encoding/json/scanner.go.
"""

from __future__ import annotations

import pytest

from kgen.runtime import goscan, gotime, gotypes
from kgen.runtime.gotypes import (
    BOOL,
    INT32,
    MICRO_TIME,
    STRING,
    TIME,
    Bytes,
    DecodeError,
    Field,
    Map,
    Pointer,
    Scalar,
    Slice,
    Struct,
)

INNER = Struct("v1.Inner", fields=(Field("name", STRING), Field("uid", Scalar("types.UID"))))
OUTER = Struct(
    "v1.Outer",
    fields=(
        Field("count", INT32),
        Field("flag", Pointer("*bool", BOOL)),
        Field("inner", INNER),
        Field("items", Slice("[]v1.Inner", INNER)),
        Field("labels", Map("map[string]string", STRING)),
        Field("data", Map("map[string][]uint8", Bytes())),
        Field("when", TIME),
        Field("at", Pointer("*v1.MicroTime", MICRO_TIME)),
        Field("always", STRING, omitempty=False),
    ),
)


def _decode(text: str) -> gotypes.Decoded:
    return gotypes.decode(OUTER, gotypes.parse_json(text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"count":"1"}', "json: cannot unmarshal string into Go struct field Outer.count of type int32"),
        ('{"count":1.5}', "json: cannot unmarshal number 1.5 into Go struct field Outer.count of type int32"),
        ('{"count":2147483648}', "json: cannot unmarshal number 2147483648 into Go struct field Outer.count of type int32"),
        ('{"count":true}', "json: cannot unmarshal bool into Go struct field Outer.count of type int32"),
        ('{"flag":"yes"}', "json: cannot unmarshal string into Go struct field Outer.flag of type bool"),
        ('{"inner":{"uid":5}}', "json: cannot unmarshal number into Go struct field Inner.inner.uid of type types.UID"),
        ('{"items":[{"name":1}]}', "json: cannot unmarshal number into Go struct field Inner.items.name of type string"),
        ('{"items":{}}', "json: cannot unmarshal object into Go struct field Outer.items of type []v1.Inner"),
        ('{"labels":{"a":[]}}', "json: cannot unmarshal array into Go struct field Outer.labels of type string"),
        ('{"data":{"a":"!!!!"}}', "illegal base64 data at input byte 0"),
        ('{"when":1}', "json: cannot unmarshal number into Go struct field Outer.when of type string"),
        ('{"when":"2024-01-01"}', 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'),
        # the first saved error wins, but an Unmarshaler's error ends decoding and wins over it
        ('{"count":"x","flag":"y"}', "json: cannot unmarshal string into Go struct field Outer.count of type int32"),
        ('{"count":"x","when":"soon"}', 'parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"'),
    ],
)  # fmt: skip
def test_decoding_errors(text, message):
    with pytest.raises(DecodeError) as error:
        _decode(text)
    assert str(error.value) == message


def test_strict_problems_in_document_order_once_each():
    decoded = _decode(
        '{"x":1,"inner":{"name":"a","y":2,"name":"b"},"labels":{"k":"1","k":"2"},"x":3,"items":[{"z":1}]}'
    )
    assert decoded.strict == [
        'unknown field "x"', 'unknown field "inner.y"', 'duplicate field "inner.name"', 'duplicate field "labels.k"',
        'unknown field "items[0].z"',
    ]  # fmt: skip
    assert decoded.value["inner"]["name"] == "b" and decoded.value["labels"] == {"k": "2"}


def test_null_clears_references_and_leaves_values():
    """literalStore: null zeroes pointers, maps and slices and is ignored by other kinds;
    a member given twice is decoded into what the first left (objects merge)."""
    decoded = _decode(
        '{"count":3,"count":null,"flag":true,"flag":null,"labels":{"a":"1"},"inner":{"name":"n"},"inner":{"uid":"u"}}'
    )
    value = decoded.value
    assert value["count"] == 3 and value["flag"] is None and value["inner"] == {"name": "n", "uid": "u"}
    assert gotypes.decode(OUTER, gotypes.parse_json('{"labels":null}')).value["labels"] is None


def test_encoding_as_go_writes_it():
    """omitempty leaves out zero scalars and empty maps and slices, never structs; a zero
    time is null; []byte is base64; map keys are sorted."""
    decoded = _decode('{"count":0,"labels":{},"data":{"b":"AAE=","a":"YQ=="},"at":"2024-01-01T00:00:00.000001+01:00"}')
    assert gotypes.encode(OUTER, decoded.value) == {
        "inner": {}, "data": {"a": "YQ==", "b": "AAE="}, "when": None, "at": "2023-12-31T23:00:00.000001Z", "always": "",
    }  # fmt: skip
    assert gotypes.normalize(OUTER, {"when": "0001-01-01T00:00:00Z", "flag": False})["flag"] is False


@pytest.mark.parametrize(
    ("text", "offset"),
    [("YQ", 0), ("YQ=", 3), ("Y===", 1), ("YQ==YQ==", 4), ("Y!==", 1), ("YWJj\nZA==", None), ("", None), ("é", 0)],
)
def test_base64_as_go_reads_it(text, offset):
    """base64.StdEncoding: padding required, \\r and \\n skipped, the offset Go reports."""
    if offset is None:
        assert gotypes.decode_base64(text) == (b"abcd" if text else b"")
        return
    with pytest.raises(DecodeError) as error:
        gotypes.decode_base64(text)
    assert str(error.value) == f"illegal base64 data at input byte {offset}"


@pytest.mark.parametrize(
    ("layout", "text", "message"),
    [
        (gotime.RFC3339, "2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
        (gotime.RFC3339, "2024-02-30T00:00:00Z", 'parsing time "2024-02-30T00:00:00Z": day out of range'),
        (gotime.RFC3339, "2024-01-01T00:00:60Z", 'parsing time "2024-01-01T00:00:60Z": second out of range'),
        (gotime.RFC3339, "2024-01-01 00:00:00Z",
         'parsing time "2024-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 00:00:00Z" as "T"'),
        (gotime.RFC3339, "2024-01-01T00:00:00", 
         'parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'),
        (gotime.RFC3339, "2024-01-01T00:00:00Z!", 'parsing time "2024-01-01T00:00:00Z!": extra text: "!"'),
        (gotime.RFC3339, "2024-01-01T00:00:00+25:00", 'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range'),
        (gotime.RFC3339_MICRO, "2024-01-01T00:00:00.12Z",
         'parsing time "2024-01-01T00:00:00.12Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".12Z" as ".000000"'),
        (gotime.RFC3339, "\u00e9", 'parsing time "\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xa9" as "2006"'),
    ],
)  # fmt: skip
def test_time_parse_errors(layout, text, message):
    with pytest.raises(gotime.TimeParseError) as error:
        gotime.parse(layout, text)
    assert str(error.value) == message


def test_times_go_reads():
    """A fraction RFC3339 does not name is read (and kept to the nanosecond); offsets move to UTC."""
    moment, nanos = gotime.parse(gotime.RFC3339, "2024-01-01T10:00:00.123456789+02:00")
    assert (moment.isoformat(), nanos) == ("2024-01-01T08:00:00.123456+00:00", 123456789)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"", "unexpected end of JSON input"),
        (b"{", "unexpected end of JSON input"),
        (b"{}x", "invalid character 'x' after top-level value"),
        (b'{"a" 1}', "invalid character '1' after object key"),
        (b'{"a":1,}', "invalid character '}' looking for beginning of object key string"),
        (b"[1 2]", "invalid character '2' after array element"),
        (b"01", "invalid character '1' after top-level value"),
        (b"-x", "invalid character 'x' in numeric literal"),
        (b"1.e1", "invalid character 'e' after decimal point in numeric literal"),
        (b"tru", "invalid character ' ' in literal true (expecting 'e')"),
        (b'"\\q"', "invalid character 'q' in string escape code"),
        (b'"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"),
        (b'"a\tb"', "invalid character '\\t' in string literal"),
        (b"{'a':1}", "invalid character '\\'' looking for beginning of object key string"),
        (b'{"a":"\xff"}', None),
        (b' [1, {"b": null}] ', None),
    ],
)
def test_go_json_syntax_errors(text, message):
    assert goscan.syntax_error(text) == message
