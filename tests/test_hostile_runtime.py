"""The runtime on hostile data: every decoder raises only the error it declares, and takes
no longer than a bounded multiple of decoding a normal object of the same size.

Declared errors: `Scheme.decode` and `load_all` raise `APIError`; `from_json`,
`from_yaml` and `from_dict` raise pydantic's `ValidationError`; `protobuf.decode` raises
`ProtobufError`; the value types raise ValueError (QuantityError, TimeRangeError). Times are
compared as ratios to decoding normal objects measured in the same run, never as seconds.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import sys
import time
from collections.abc import Callable
from datetime import timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from conftest import REPO
from kgen.runtime import gojson, protobuf, yamlio
from kgen.runtime.apimachinery.meta.v1 import models as meta
from kgen.runtime.intstr import IntOrString
from kgen.runtime.protobuf import ProtobufError
from kgen.runtime.quantity import Quantity, QuantityError
from kgen.runtime.rawjson import MAX_DEPTH, FieldsV1, RawExtension
from kgen.runtime.scheme import MAX_REQUEST_BODY_BYTES, SCHEME, APIError, load_all
from kgen.runtime.timeutil import Duration, MicroTime, Time, TimeRangeError

sys.path.insert(0, str(REPO))
import generated.example.v1.protobuf  # noqa: E402,F401  (registers the converters)
from generated.example.v1 import generated_pb2 as example_pb2  # noqa: E402
from generated.example.v1 import models as example  # noqa: E402

#: No hostile input may take longer than this many times a normal object of its size.
RATIO = 30

CONDITION = {
    "type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T12:00:00Z", "reason": "AllGood", "message": "m",
}  # fmt: skip
NORMAL: dict[str, Any] = {
    "apiVersion": "example.kgen.dev/v1",
    "kind": "Frobber",
    "metadata": {
        "name": "frobber", "namespace": "production", "generation": 7, "creationTimestamp": "2024-05-01T12:00:00Z",
        "labels": {"app": "frobber"}, "annotations": {"note": "x"},
        "managedFields": [
            {"manager": "m", "operation": "Apply", "apiVersion": "example.kgen.dev/v1", "time": "2024-05-01T12:00:00Z",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        ],
    },
    "spec": {
        "description": "A frobber.", "priority": 10, "params": ["--a=b"], "replicas": 5, "mode": "Vigorous",
        "ports": [{"name": "p0", "port": 8000, "protocol": "TCP", "targetPort": "web"}],
        "resources": {"cpu": "1500m", "memory": "2Gi"},
        "maxUnavailable": "25%", "interval": "1m30s",
        "config": {"nested": {"list": [1, 2, 3], "map": {"a": 1, "b": [True, None]}}},
        "checksum": base64.b64encode(b"\x00\x01").decode(),
    },
    "status": {"observedGeneration": 7, "phase": "Running", "conditions": [CONDITION], "lastFrobbed": "2024-05-01T12:00:00Z"},
}  # fmt: skip
NORMAL_JSON = json.dumps(NORMAL, separators=(",", ":")).encode()


def normal_list(items: int) -> dict[str, Any]:
    """A FrobberList of `items` normal Frobbers, each with its own name."""
    frobbers = []
    for index in range(items):
        frobber = copy.deepcopy(NORMAL)
        frobber["metadata"]["name"] = f"frobber-{index}"
        frobbers.append(frobber)
    return {"apiVersion": "example.kgen.dev/v1", "kind": "FrobberList", "metadata": {}, "items": frobbers}


# -- timing: ratios to normal objects of the same size ----------------------------------------

# The CPU time of this thread, not the wall clock: the other processes of a busy machine
# take the processor away for milliseconds, but not this thread's CPU time.
_clock = time.thread_time


def _best_of(call: Callable[[], Any], runs: int = 5) -> float:
    best = math.inf
    for _ in range(runs):
        start = _clock()
        call()
        best = min(best, _clock() - start)
    return best


class Baseline:
    """What decoding normal objects costs here and now: the smallest object's time, and the
    time per byte of a large one; `time(size)` is what a normal object of that size costs."""

    def __init__(self, decode: Callable[[bytes], Any], small: bytes, large: bytes):
        self.decode_small = lambda: decode(small)
        self.floor = _best_of(self.decode_small)
        self.per_byte = min(self.floor / len(small), _best_of(lambda: decode(large), 3) / len(large))

    def time(self, size: int) -> float:
        return max(self.floor, self.per_byte * size)

    def measured_again(self) -> Baseline:
        """This baseline as the machine runs now (it may be busier than when it was measured)."""
        again = copy.copy(self)
        again.floor = _best_of(self.decode_small, 3)
        again.per_byte = self.per_byte * again.floor / self.floor
        return again


@pytest.fixture(scope="module")
def baselines() -> dict[str, Baseline]:
    large = normal_list(40)
    yaml_small = example.Frobber.from_json(NORMAL_JSON).to_yaml().encode()
    yaml_large = "\n---\n".join(example.Frobber.from_dict(item).to_yaml() for item in large["items"]).encode()
    proto_small = protobuf.encode(example.Frobber.from_json(NORMAL_JSON))
    proto_large = protobuf.encode(example.FrobberList.from_dict(large))
    return {
        "json": Baseline(lambda data: SCHEME.decode(data), NORMAL_JSON, json.dumps(large).encode()),
        "yaml": Baseline(lambda data: load_all(data), yaml_small, yaml_large),
        "protobuf": Baseline(protobuf.decode, proto_small, proto_large),
    }


def run_bounded(
    call: Callable[[], Any], declared: type | tuple[type, ...], baseline: Baseline, size: int
) -> tuple[Any, Exception | None]:
    """Run `call`: it returns or raises one of `declared` (anything else fails the test), in at
    most RATIO times the CPU time of decoding a normal object of `size` bytes. Over it, the
    call and the baseline are measured again, twice, so that a garbage collection or a busier
    machine is not a failure."""
    best, normal = math.inf, baseline.time(size)
    for _ in range(3):
        start = _clock()
        try:
            result, error = call(), None
        except declared as err:
            result, error = None, err
        best = min(best, _clock() - start)
        if best <= RATIO * normal:
            return result, error
        normal = max(normal, baseline.measured_again().time(size))
    pytest.fail(f"took {best:.4f}s, {best / normal:.0f} times a normal object of {size} bytes ({normal:.4f}s)")


# -- one test per reproducer ----------------------------------------------------------------------


def frobber_json(**spec: Any) -> bytes:
    document = copy.deepcopy(NORMAL)
    document["spec"].update(spec)
    return json.dumps(document).encode()


def with_value(path: str, raw: bytes) -> bytes:
    """The normal Frobber's JSON with the value at a dotted path replaced by raw JSON text."""
    document = copy.deepcopy(NORMAL)
    *parents, last = path.split(".")
    node: Any = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    node[last] = "@@HOLE@@"
    return json.dumps(document).encode().replace(b'"@@HOLE@@"', raw)


@pytest.mark.parametrize(
    "data, problem",
    [
        (with_value("spec.x", b"[" * 1000 + b"]" * 1000), "nested more than"),
        (with_value("x", b"[" * 100_000 + b"]" * 100_000), "nested more than"),
        (with_value("spec.config", b"[" * 300 + b"]" * 300), "recursion limit"),
        (with_value("metadata.generation", b"1" * 5000), "more than 4300 digits"),
        (with_value("spec.x", b"1" * 5000), "more than 4300 digits"),
        (with_value("spec.config", b"NaN"), "NaN is not JSON"),
        (with_value("spec.config", b"[1e400]"), "finite"),
        (with_value("spec.replicas", b"Infinity"), "Infinity is not JSON"),
        (with_value("spec.description", b'"\\ud800"'), "Invalid JSON"),
        (with_value("spec.description", b'"\xff"'), "invalid JSON"),
    ],
)
def test_scheme_decode_refuses_what_is_not_a_valid_object_with_a_bad_request(data, problem):
    with pytest.raises(APIError) as caught:
        SCHEME.decode(data)
    assert (caught.value.code, caught.value.reason) == (400, "BadRequest")
    assert problem in caught.value.message


def test_scheme_decode_limits_the_body_as_the_api_server_does():
    body = frobber_json(description="x" * MAX_REQUEST_BODY_BYTES)
    with pytest.raises(APIError) as caught:
        SCHEME.decode(body)
    assert (caught.value.code, caught.value.reason) == (413, "RequestEntityTooLarge")
    assert caught.value.message == f"Request entity too large: limit is {MAX_REQUEST_BODY_BYTES}"
    with pytest.raises(APIError, match="limit is 100"):
        SCHEME.decode(NORMAL_JSON, max_bytes=100)
    assert len(SCHEME.decode(body, max_bytes=None).object.spec.description) == MAX_REQUEST_BODY_BYTES


DEEP_UNKNOWN_FIELD = with_value("spec.x", b"[" * 1000 + b"]" * 1000)


@pytest.mark.parametrize(
    "data",
    [
        DEEP_UNKNOWN_FIELD,
        with_value("metadata.generation", b"1" * 5000),
        with_value("spec.config", b"NaN"),
        with_value("spec.config", b"1e400"),
        with_value("spec.resources", b'{"cpu": "1e9999999999"}'),
        with_value("metadata.creationTimestamp", b'"9999-12-31T23:59:59-01:00"'),
        with_value("spec.interval", b'"99999999999999h"'),
        with_value("spec.maxUnavailable", b"2147483648"),
        b"\xff\xfe",
        "{\"metadata\": {\"name\": \"\ud800\"}}",
    ],
)
def test_model_decoders_raise_only_validation_errors(frobbers, data):
    try:
        frobbers.Frobber.from_json(data)
    except frobbers.error:
        return
    # msgspec skips an unknown field without a depth limit of its own: Python 3.12 and later
    # let its C parser go deeper than 3.11 does, and then it ignores the field as Go does
    # (Go reads 10,000 levels); the pydantic models' parser stops at 200 on every Python.
    assert frobbers.backend == "msgspec" and sys.version_info >= (3, 12) and data == DEEP_UNKNOWN_FIELD


class _Frobbers:
    """The example API's Frobber on one model backend, and the one error its decoders raise."""

    def __init__(self, models: Any, error: type[Exception], meta: Any):
        self.Frobber = models.Frobber
        self.error = error
        self.meta = meta  # metav1's models on the same backend
        self.backend = "pydantic" if error is ValidationError else "msgspec"


@pytest.fixture(params=["pydantic", "msgspec"])
def frobbers(request) -> _Frobbers:
    if request.param == "pydantic":
        return _Frobbers(example, ValidationError, meta)
    import importlib

    import msgspec

    from kgen.runtime.apimachinery_structs.meta.v1 import models as meta_structs

    package = request.getfixturevalue("msgspec_example").package
    return _Frobbers(importlib.import_module(f"{package}.example.v1.models"), msgspec.DecodeError, meta_structs)


def _deep_dict(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def _self_containing() -> dict:
    value: dict = {}
    value["a"] = value
    return value


def _laughs() -> list:
    value: list = ["lol"] * 10
    for _ in range(30):
        value = [value] * 10
    return value


@pytest.mark.parametrize(
    "spec",
    [
        {"config": _deep_dict(100_000)},
        {"config": _self_containing()},
        {"config": _laughs()},
        {"config": [float("nan")]},
        {"config": {"n": 10**5000}},
        {"config": {1: "a non-string key"}},
        {"config": ("a", "tuple")},
        {"config": {"a": object()}},
        {"config": "\ud800"},
        {"resources": {"cpu": "1e9999999999"}},
        {"resources": {"cpu": "١٢٣"}},
        {"interval": "99999999999999h"},
        {"interval": timedelta(days=999_999)},
        {"maxUnavailable": 10**5000},
        {"replicas": 10**5000},
    ],
)
def test_from_dict_raises_only_validation_errors(frobbers, spec):
    document = copy.deepcopy(NORMAL)
    document["spec"].update(spec)
    with pytest.raises(frobbers.error):
        frobbers.Frobber.from_dict(document)


def test_from_dict_of_deep_or_odd_data_raises_only_validation_errors(frobbers):
    for data in ({"metadata": {"labels": _deep_dict(100_000)}}, {"spec": {"ports": [{"name": _deep_dict(100_000)}]}}, [NORMAL], None, "text"):
        with pytest.raises(frobbers.error):
            frobbers.Frobber.from_dict(data)


@pytest.mark.parametrize(
    "text, value, written",
    [
        ("1e999999999", "1e999999999", "1e999999999"),  # apimachinery's decimal scale is an int32
        ("1e1000000", "1e1000000", "10e999999"),
        ("-1e2147483647", "-1e2147483647", "-10e2147483646"),
        ("1" + "0" * 5000, "1e5000", "100e4998"),  # no int of 5,000 digits is made to write it
        ("7" * 5000 + "Mi", str(2**63 - 1), "8Ei"),  # BinarySI is capped at int64, as in Go
    ],
)
def test_quantities_of_any_size_parse_and_write_cheaply(text, value, written):
    from decimal import Decimal

    quantity = Quantity(text)
    assert quantity.value == Decimal(value)
    assert quantity.to_json() == written or written == "8Ei" and quantity.to_json() == "9223372036854775807"
    assert Quantity(quantity.to_json()) == quantity


@pytest.mark.parametrize("text", ["1e2147483648", "1e-2147483649", "1e99999999999999999999", "١٢٣", "１", "1e٣", "1.5E+-3"])
def test_quantities_beyond_apimachinery_limits_or_with_non_ascii_digits_are_refused(text):
    with pytest.raises(QuantityError):
        Quantity(text)


def test_quantity_integers_saturate_at_int64_in_constant_time(baselines):
    for text, expected in [("1e999999", 2**63 - 1), ("-1e999999999", -(2**63)), ("100E", 2**63 - 1), ("9.5", 10), ("-1.5", -2)]:
        quantity = Quantity(text)
        value, _ = run_bounded(quantity.as_int, (), baselines["json"], len(text))
        assert value == expected
        run_bounded(quantity.milli_value, (), baselines["json"], len(text))
        run_bounded(lambda: quantity.scaled_value(-9), (), baselines["json"], len(text))


@pytest.mark.parametrize("text", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+00:01"])
def test_a_time_beyond_pythons_range_is_a_declared_error(text):
    with pytest.raises(TimeRangeError):
        Time._validate(text)
    with pytest.raises(TimeRangeError):
        MicroTime._validate(text.replace(":59-", ":59.000000-").replace(":00+", ":00.000000+"))
    with pytest.raises(ValidationError):
        TypeAdapter(Time).validate_json(json.dumps(text))
    with pytest.raises(ValidationError, match="years 1-9999"):
        example.Frobber.from_json(with_value("metadata.creationTimestamp", json.dumps(text).encode()))
    with pytest.raises(APIError, match="years 1-9999"):
        SCHEME.decode(with_value("status.lastFrobbed", json.dumps(text).encode()))


@pytest.mark.parametrize(
    "text, nanoseconds",
    [
        ("2562047h47m16.854775807s", 2**63 - 1),
        ("-2562047h47m16.854775808s", -(2**63)),
        ("9223372036854775807ns", 2**63 - 1),
        ("0" * 5000 + "1h", 3600 * 10**9),
        ("1." + "0" * 5000 + "1s", 10**9),
    ],
)
def test_durations_up_to_int64_nanoseconds_parse_as_go_parses_them(text, nanoseconds):
    assert Duration.parse(text).nanoseconds() == round(nanoseconds / 1000) * 1000 or Duration.parse(text) == Duration.from_nanoseconds(nanoseconds)


@pytest.mark.parametrize(
    "text", ["99999999999999h", "2562047h47m16.854775808s", "9223372036854775808ns", "1" + "0" * 5000 + "ns", "١h", "1h 2m"]
)
def test_durations_beyond_int64_or_malformed_are_go_errors(text):
    with pytest.raises(ValueError, match=r"^time: (invalid duration|unknown unit)"):
        Duration.parse(text)


@pytest.mark.parametrize("raw", [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"[1, -1e400]", b'{"a": {"b": [NaN]}}'])
def test_raw_json_that_json_cannot_write_is_refused_when_decoded(frobbers, raw):
    with pytest.raises(ValidationError):
        TypeAdapter(RawExtension).validate_json(raw)
    with pytest.raises(ValidationError):
        TypeAdapter(FieldsV1).validate_json(raw)
    with pytest.raises(frobbers.error):
        frobbers.Frobber.from_json(with_value("spec.config", raw))
    with pytest.raises(frobbers.error):
        frobbers.meta.ManagedFieldsEntry.from_json(b'{"fieldsV1":' + raw + b"}")
    with pytest.raises(ValueError):
        RawExtension(float("inf"))


def test_managed_fields_are_decoded_as_written_whatever_their_shape_and_refused_only_when_not_writable(frobbers):
    ManagedFieldsEntry = frobbers.meta.ManagedFieldsEntry
    deep: dict = {}
    for level in range(40):  # deeper than the trie pydantic-core reads without a check
        deep = {f"f:level{level}": deep, ".": {}}
    shapes = [
        {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"k:{\"port\":80}": {".": {}}}},
        deep,
        {"f:spec": {"v:1.5": {}, "f:weights": [1, 2.5, "x", None, True, 1e21, 2**70, "<&>"]}},  # not a trie
        [],
        "text",
    ]
    for raw in shapes:
        body = json.dumps({"fieldsV1": raw}, separators=(",", ":")).encode()
        entry = ManagedFieldsEntry.from_json(body)
        assert entry.fields_v1.raw == raw
        # Written back as read, in its own key order, with Go's floats and HTML escapes.
        expected = body.replace(b"<&>", b"\\u003c\\u0026\\u003e")
        assert entry.to_json() == expected
    with pytest.raises(frobbers.error) as caught:
        ManagedFieldsEntry.from_json(b'{"fieldsV1": {"f:spec": {"f:x": {}, "f:y": [1e400]}}}')
    if frobbers.backend == "pydantic":
        [error] = caught.value.errors()
        assert error["loc"] == ("fieldsV1",) and "finite" in error["msg"]
    else:
        assert "$.fieldsV1" in str(caught.value)


def test_raw_json_nests_as_deep_as_the_json_decoder_reads_and_no_deeper():
    def nested(depth: int) -> list:
        value: list = []
        for _ in range(depth - 1):
            value = [value]
        return value

    assert RawExtension(nested(MAX_DEPTH)).to_json() == nested(MAX_DEPTH)
    with pytest.raises(ValueError, match="nested more than"):
        RawExtension(nested(MAX_DEPTH + 1))
    shared = {"a": [1, 2]}
    assert RawExtension({"x": shared, "y": [shared] * 10}).to_json()["y"][9] == shared  # Python data may share
    with pytest.raises(ValueError, match="repeats"):
        RawExtension(_laughs())


def test_no_string_is_ever_written_as_raw_json(monkeypatch):
    tricky = {"a": "\x00kgen-raw:{}", "b": '"\\u0000kgen-raw:{}"', "c": "kgen-number-0123"}
    written = meta.ObjectMeta(annotations=tricky).to_json()
    assert written == b'{"annotations":{"a":"\\u0000kgen-raw:{}","b":"\\"\\\\u0000kgen-raw:{}\\"","c":"kgen-number-0123"}}'
    assert meta.ObjectMeta.from_json(written).annotations == tricky
    # Even a string that holds this very call's marker stays a string: the encoder notices
    # and encodes again with another marker.
    nonces = iter(["0123", "4567"])
    monkeypatch.setattr(gojson.secrets, "token_hex", lambda size: next(nonces))
    data = {"s": "kgen-number-0123", "n": gojson.float_value(1e-7), "m": [gojson.float_value(1e21)]}
    assert gojson.marshal(data) == b'{"s":"kgen-number-0123","n":1e-7,"m":[1e+21]}'


def _envelope_raw(raw: bytes) -> bytes:
    return protobuf.encode_envelope("example.kgen.dev/v1", "Frobber", raw)


def _envelope(message: Any) -> bytes:
    return _envelope_raw(message.SerializeToString())


def _normal_message() -> Any:
    body = protobuf.encode(example.Frobber.from_json(NORMAL_JSON))
    return example_pb2.Frobber.FromString(protobuf.decode_envelope(body).raw)


def _tag(number: int, wire_type: int) -> bytes:
    value, out = (number << 3) | wire_type, b""
    while True:
        byte, value = value & 0x7F, value >> 7
        if not value:
            return out + bytes([byte])
        out += bytes([byte | 0x80])


def _mutated(change: Callable[[Any], None]) -> bytes:
    message = _normal_message()
    change(message)
    return _envelope(message)


@pytest.mark.parametrize(
    "body, problem",
    [
        (_mutated(lambda m: setattr(m.metadata.creationTimestamp, "seconds", 2**62)), "outside the years"),
        (_mutated(lambda m: setattr(m.metadata.managedFields[0].time, "seconds", -(2**62))), "outside the years"),
        (_mutated(lambda m: m.spec.resources["cpu"].__setattr__("string", "1e9999999999")), "32 bits"),
        (_mutated(lambda m: m.spec.resources["cpu"].__setattr__("string", "١")), "regular expression"),
        (_mutated(lambda m: setattr(m.spec.config, "raw", b"[" * 1000 + b"]" * 1000)), "recursion limit"),
        (_mutated(lambda m: setattr(m.spec.config, "raw", b"[NaN]")), "does not hold JSON"),
        (_mutated(lambda m: setattr(m.spec.maxUnavailable, "type", 7)), "type is 0"),
        (_envelope(_normal_message()).replace(b"frobber", b"frob\xffer"), "bad UTF-8"),
        (_envelope_raw(_normal_message().SerializeToString()[:-3]), "not a Frobber message"),
        (_envelope_raw(_normal_message().SerializeToString() + _tag(1000, 3) * 200 + _tag(1000, 4) * 200), "not a Frobber"),
        (_envelope(_normal_message())[:-3], "envelope is not"),
        (b"k8s\x00" + bytes(range(256)), "envelope"),
        (protobuf.MAGIC, "no protobuf converters"),
    ],
)
def test_protobuf_decode_raises_only_protobuf_errors(body, problem):
    with pytest.raises(ProtobufError, match=problem):
        protobuf.decode(body)


def test_protobuf_micro_time_nanos_carry_over_as_in_go():
    from kgen.runtime.apimachinery.meta.v1 import generated_pb2 as meta_pb2

    message = meta_pb2.MicroTime(seconds=10, nanos=-1_500)
    assert protobuf.micro_time_from_proto(message) == MicroTime(1970, 1, 1, 0, 0, 9, 999998, tzinfo=timezone.utc)


# -- YAML ------------------------------------------------------------------------------------------


def test_yaml_round_trips_in_kubectls_order(frobbers):
    frobber = frobbers.Frobber.from_json(NORMAL_JSON)
    text = frobber.to_yaml()
    top_level = [line.partition(":")[0] for line in text.splitlines() if not line.startswith(" ")]
    assert top_level == ["apiVersion", "kind", "metadata", "spec", "status"]
    assert text.index("  description:") < text.index("  priority:")  # struct order below
    assert frobber.to_yaml(sort_keys=True).index("  ports:") < frobber.to_yaml(sort_keys=True).index("  priority:")
    assert frobbers.Frobber.from_yaml(text) == frobber
    assert text == example.Frobber.from_json(NORMAL_JSON).to_yaml()  # the same text on both backends
    assert [o.to_json() for o in load_all(text + "---\n" + text)] == [frobber.to_json()] * 2


def test_yaml_strings_that_yaml_1_1_would_read_as_other_types_are_quoted(frobbers):
    tricky = ["y", "n", "yes", "on", "Off", "~", "null", "0777", "0o17", "0x1F", "1_000", "1e3", ".5", "+12", "<<", "2024-01-01", ""]
    frobber = frobbers.Frobber.from_dict({"metadata": {"annotations": {value: value for value in tricky}}})
    assert frobbers.Frobber.from_yaml(frobber.to_yaml()).metadata.annotations == {value: value for value in tricky}


def test_yaml_is_read_as_yaml_1_1_the_way_the_api_server_reads_it():
    converted = json.loads(
        next(
            yamlio.to_json_documents(
                "a: yes\nb: on\ny: 1\nc: 0777\nd: 0x1F\ne: 1_000\nf: 2024-01-01\ng: 1e3\nh: !!str 5\ni: ~\n"
                "j: !!binary aGk=\nk: 12345678901234567890123\nl: 08\nm: 1e400\n1.5: float key\n"
            )
        )
    )
    assert converted == {
        "a": True, "b": True, "true": 1, "c": 511, "d": 31, "e": 1000, "f": "2024-01-01", "g": 1000, "h": "5", "i": None,
        "j": "hi", "k": 1.2345678901234568e22, "l": 8, "m": "1e400", "1.5": "float key",
    }  # fmt: skip


def test_yaml_duplicates_are_strict_errors_as_in_json():
    text = NORMAL_JSON.decode().replace('"replicas":5', '"replicas":5,"replicas":6')
    yaml_text = "apiVersion: example.kgen.dev/v1\nkind: Frobber\nmetadata: {name: a}\nspec:\n  replicas: 5\n  replicas: 6\n"
    with pytest.raises(APIError, match='duplicate field "spec.replicas"'):
        SCHEME.decode(text)
    with pytest.raises(APIError, match='duplicate field "spec.replicas"'):
        load_all(yaml_text)
    assert load_all(yaml_text, field_validation="Ignore")[0].spec.replicas == 6


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: &a [1]\n" + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(9)), "excessive aliasing"),
        ("a: &a [*a]\n", "contains itself"),
        ("a: &a {<<: *a}\n", "contains itself"),
        ("a: *nowhere\n", "unknown anchor"),
        ("[" * 5000 + "]" * 5000, "nesting depth"),
        ("- " * 20_000 + "x", "depth"),
        ("a: .inf\n", "unsupported value"),
        ("~: 1\n", "unsupported map key"),
        ("[1]: 1\n", "invalid map key"),
        ("a: !!int x\n", "cannot decode"),
        ("a: [\n", "yaml: line 2"),
        ("\x00", "control characters"),
        (b"a: \xff", "UTF-8"),
        ("a: 1\n---\nb: 2\n", "expected one document"),
    ],
)
def test_yaml_that_has_no_json_form_is_a_declared_error(frobbers, text, problem):
    with pytest.raises(frobbers.error, match=problem):
        frobbers.Frobber.from_yaml(text)
    with pytest.raises(APIError):
        load_all(text)


@pytest.mark.parametrize("data", [None, 123, ["a"], {"a": 1}, "a: \ud800\n", "{\"a\": \"\ud800\"}"])
def test_decoders_handed_anything_raise_only_their_errors(frobbers, data):
    with pytest.raises(APIError):
        SCHEME.decode(data)
    with pytest.raises(APIError):
        load_all(data)
    with pytest.raises(frobbers.error):
        frobbers.Frobber.from_json(data)
    with pytest.raises(frobbers.error):
        frobbers.Frobber.from_yaml(data)
    with pytest.raises(ProtobufError):
        protobuf.decode(data)


def test_yaml_documents_are_limited_as_request_bodies_are():
    text = "apiVersion: example.kgen.dev/v1\nkind: Frobber\nmetadata: {name: a}\nspec:\n  description: " + "x" * 200 + "\n"
    with pytest.raises(APIError) as caught:
        load_all(text, max_bytes=100)
    assert caught.value.code == 413
    assert len(load_all(text + "---\n" + text, max_bytes=1000)) == 2


# -- properties: hostile inputs of every kind ---------------------------------------------------

PROPERTY_SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)

#: Text a value type may be handed: huge numbers and exponents, non-ASCII digits, times
#: outside Python's range, durations beyond int64, and whatever else hypothesis draws.
HOSTILE_TEXT = st.one_of(
    st.sampled_from(
        [
            "1e999999999", "1e1000000", "-1e2147483647", "1e2147483648", "1e99999999999999999999", "9Ei", "100E", "1000E",
            "١٢٣", "１２", "1e٣", "٣h", "NaN", "Infinity", "inf", "-0", ".", "+", "0x1F", "1_000",
            "9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "10000-01-01T00:00:00Z", "2024-02-30T00:00:00Z",
            "2024-05-01T12:00:00.123456Z", "2024-05-01T12:00:00+24:00", "99999999999999h", "2562047h47m16.854775808s",
            "9223372036854775808ns", "-2562047h47m16.854775808s", "2147483648", "-2147483649", "25%", "1e100%",
        ]
    ),  # fmt: skip
    st.builds(
        lambda zeros, suffix: "1" + "0" * zeros + suffix,
        st.integers(0, 20_000),
        st.sampled_from(["", "Mi", "Ei", "m", "n", "E", "e3", "e-9999", "h", "ns", "s", "%", ".5", "0" * 50 + "1"]),
    ),
    st.builds(
        lambda sign, exponent, unit: f"{sign}1.5e{exponent}{unit}",
        st.sampled_from(["", "-", "+"]),
        st.integers(-(10**12), 10**12),
        st.sampled_from(["", "i", "Ki", "h"]),
    ),
    st.builds(lambda repeats, part: part * repeats, st.integers(1, 5_000), st.sampled_from(["1ns", "9h", ".5s", "0"])),
    st.builds(
        lambda year, offset, fraction: f"{year:04d}-12-31T23:59:59{fraction}{offset}",
        st.integers(0, 9999),
        st.sampled_from(["Z", "-01:00", "+01:00", "+23:59", "-99:99"]),
        st.sampled_from(["", ".5", ".000000", ".123456789123", "." + "9" * 5000]),
    ),
    st.text(st.characters(categories=["Nd", "No", "Zs", "Cc", "Lu", "Ll", "Po", "Sm"]), max_size=30),
)

#: Raw JSON values: deep nesting, numbers beyond every limit, NaN and infinities (not JSON),
#: strings of hostile text, lone surrogates, invalid UTF-8, duplicates.
HOSTILE_JSON_VALUE = st.one_of(
    st.builds(
        lambda depth, opening, closing: opening * depth + closing * depth,
        st.integers(1, 20_000),
        st.sampled_from([b"["]),
        st.sampled_from([b"]"]),
    ),
    st.builds(lambda depth: b'{"a":' * depth + b"1" + b"}" * depth, st.integers(1, 5_000)),
    st.builds(lambda digits, sign: sign + b"9" * digits, st.integers(1, 12_000), st.sampled_from([b"", b"-"])),
    st.builds(lambda exponent: f"1e{exponent}".encode(), st.integers(-(10**9), 10**9)),
    st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400", b"1e-400", b"-0", b"0.1e1", b"true", b"null"]),
    st.sampled_from([b'"\\ud800"', b'"\\udfff\\ud800"', b'"\xff\xfe"', b'"\xed\xa0\x80"', b'{"a":1,"a":2}', b"[1,]", b'"']),
    HOSTILE_TEXT.map(lambda text: json.dumps(text).encode()),
    HOSTILE_TEXT.map(lambda text: json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.binary(max_size=64),
)

PATHS = [
    "apiVersion", "kind", "x", "metadata.name", "metadata.generation", "metadata.creationTimestamp", "metadata.labels.l",
    "metadata.annotations", "metadata.managedFields.0.fieldsV1", "metadata.managedFields.0.time", "spec.replicas",
    "spec.priority", "spec.resources.cpu", "spec.interval", "spec.maxUnavailable", "spec.ports.0.targetPort",
    "spec.ports.0.port", "spec.config", "spec.checksum", "spec.unknown", "spec.params", "status.lastFrobbed",
    "status.conditions.0.lastTransitionTime", "status.conditions.0.observedGeneration",
]  # fmt: skip


def _edit(data: bytes, edits: list[tuple[float, int, bytes]]) -> bytes:
    """Byte-level damage to a valid payload: each edit deletes, replaces or inserts at a place."""
    for where, action, new in edits:
        index = int(where * len(data))
        if action == 0:
            data = data[:index] + data[index + 1 :]
        elif action == 1:
            data = data[:index] + new + data[index + 1 :]
        else:
            data = data[:index] + new + data[index:]
    return data


EDITS = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 2), st.binary(min_size=1, max_size=4)), min_size=1, max_size=6)

HOSTILE_JSON = st.one_of(
    st.builds(with_value, st.sampled_from(PATHS), HOSTILE_JSON_VALUE),
    st.builds(_edit, st.just(NORMAL_JSON), EDITS),
    st.binary(max_size=2_000),
)


def _round_trips(obj: Any, baseline: Baseline, size: int) -> None:
    """A decoded object writes JSON (no value holds what JSON cannot) that decodes again, to
    an object that writes the same (a field left empty may come back as its default)."""
    written, _ = run_bounded(obj.to_json, (), baseline, size)
    again = type(obj).from_json(written).to_json()
    assert type(obj).from_json(again).to_json() == again


@settings(PROPERTY_SETTINGS, max_examples=120)
@given(data=HOSTILE_JSON)
def test_json_decoders_raise_only_declared_errors_in_bounded_time(baselines, data):
    baseline, size = baselines["json"], len(data)
    decoded, _ = run_bounded(lambda: SCHEME.decode(data, field_validation="Warn"), APIError, baseline, size)
    if decoded is not None and isinstance(decoded.object, example.Frobber):
        _round_trips(decoded.object, baseline, size)
    model, _ = run_bounded(lambda: example.Frobber.from_json(data), ValidationError, baseline, size)
    if model is not None:
        _round_trips(model, baseline, size)
    run_bounded(lambda: meta.ObjectMeta.from_json(data), ValidationError, baseline, size)
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return  # not data the standard library reads either: nothing to hand from_dict
    model, _ = run_bounded(lambda: example.Frobber.from_dict(parsed), ValidationError, baseline, size)
    if model is not None:
        _round_trips(model, baseline, size)


def _laughs_yaml(levels: int, width: int) -> str:
    lines = ["a0: &a0 [lol]"]
    for level in range(1, levels + 1):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def _yaml_with(field: str, scalar: str) -> str:
    return f"apiVersion: example.kgen.dev/v1\nkind: Frobber\nmetadata:\n  name: f\n  namespace: d\nspec:\n  {field}: {scalar}\n"


HOSTILE_YAML = st.one_of(
    HOSTILE_JSON.map(lambda data: data.decode("utf-8", "replace")),
    st.builds(_laughs_yaml, st.integers(1, 12), st.integers(1, 12)),
    st.builds(lambda depth: "- " * depth + "x\n", st.integers(1, 3_000)),
    st.builds(lambda depth: "{a: " * depth + "1" + "}" * depth, st.integers(1, 3_000)),
    st.builds(
        _yaml_with,
        st.sampled_from(["replicas", "description", "config", "interval", "maxUnavailable", "resources", "params", "checksum"]),
        st.one_of(
            st.sampled_from(
                [
                    "yes", "on", "y", "0777", "0o17", "0x1F", "0b101", "1_000", "1e3", ".inf", "-.inf", ".nan", "~", "2024-01-01",
                    "2001-12-14t21:59:43.10-05:00", "!!binary aGk=", "!!binary '!'", "!!int x", "!!float 1", "!!timestamp x",
                    "!!str 5", "!custom {a: 1}", "&a [*a]", "{<<: [*x]}", "*nowhere", "{? [1]: 2}", "{~: 1}", "{.nan: 1}",
                    "{1.5: 1, 2: 2, true: 3, 18446744073709551615: 4}", "12345678901234567890123", "-0b11", "08",
                    "{cpu: 1e999999999}", "{cpu: 1e2147483648}", "|\n    text", ">-\n    folded", '"\\ud800"',
                ]
            ),  # fmt: skip
            HOSTILE_TEXT.map(json.dumps),
        ),
    ),
    st.builds(lambda docs: "\n---\n".join(docs), st.lists(st.sampled_from(["", "a: 1", "null", "~", "[1]", NORMAL_JSON.decode()]), max_size=4)),
    st.builds(lambda edits: _edit(example.Frobber.from_json(NORMAL_JSON).to_yaml().encode(), edits).decode("utf-8", "replace"), EDITS),
    st.builds(lambda before, after: _yaml_with("description", before + "\ud800" + after), st.text(max_size=8), st.text(max_size=8)),
)


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(text=HOSTILE_YAML)
def test_yaml_decoders_raise_only_declared_errors_in_bounded_time(baselines, text):
    baseline, size = baselines["yaml"], len(text.encode("utf-8", "surrogatepass"))
    run_bounded(lambda: load_all(text, field_validation="Warn"), APIError, baseline, size)
    model, _ = run_bounded(lambda: example.Frobber.from_yaml(text), ValidationError, baseline, size)
    if model is not None:
        written, _ = run_bounded(model.to_yaml, (), baseline, size)
        again = example.Frobber.from_yaml(written).to_yaml()
        assert example.Frobber.from_yaml(again).to_yaml() == again
    run_bounded(lambda: meta.ObjectMeta.from_yaml(text), ValidationError, baseline, size)


def _set_field(message: Any, field: str, value: Any) -> None:
    """Set a dotted field of a message (a map key or list index on the way) to `value`."""
    *parents, last = field.split(".")
    for part in parents:
        message = message[int(part)] if part.isdigit() else (message[part] if hasattr(message, "keys") else getattr(message, part))
    if hasattr(message, "keys"):
        message[last].string = value
    else:
        setattr(message, last, value)


def _field_change(field: str, values: st.SearchStrategy) -> st.SearchStrategy:
    return values.map(lambda value: (field, value))


PROTO_FIELD_CHANGES = st.one_of(
    _field_change("metadata.creationTimestamp.seconds", st.integers(-(2**63), 2**63 - 1)),
    _field_change("metadata.managedFields.0.time.seconds", st.integers(-(2**40), 2**40)),
    _field_change("metadata.creationTimestamp.nanos", st.integers(-(2**31), 2**31 - 1)),
    _field_change("spec.resources.cpu", HOSTILE_TEXT),
    _field_change("spec.interval.duration", st.integers(-(2**63), 2**63 - 1)),
    _field_change("spec.maxUnavailable.type", st.integers(-(2**63), 2**63 - 1)),
    _field_change("spec.maxUnavailable.strVal", HOSTILE_TEXT),
    _field_change("spec.config.raw", HOSTILE_JSON_VALUE),
    _field_change("metadata.managedFields.0.fieldsV1.Raw", HOSTILE_JSON_VALUE),
    _field_change("metadata.generation", st.integers(-(2**63), 2**63 - 1)),
)


def _changed_message(change: tuple[str, Any]) -> bytes:
    message = _normal_message()
    _set_field(message, *change)
    return message.SerializeToString()


def _invalid_utf8(text: bytes) -> bytes:
    raw = _normal_message().SerializeToString()
    return raw.replace(b"frobber", text, 1)


HOSTILE_PROTOBUF = st.one_of(
    st.builds(_changed_message, PROTO_FIELD_CHANGES).map(_envelope_raw),
    st.builds(_edit, st.just(_normal_message().SerializeToString()), EDITS).map(_envelope_raw),
    st.builds(_invalid_utf8, st.binary(min_size=7, max_size=7)).map(_envelope_raw),
    st.builds(lambda depth: _normal_message().SerializeToString() + _tag(99, 3) * depth + _tag(99, 4) * depth, st.integers(1, 2_000)).map(_envelope_raw),
    st.builds(_edit, st.just(_envelope(_normal_message())), EDITS),
    st.binary(max_size=2_000).map(lambda data: protobuf.MAGIC + data),
)


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(body=HOSTILE_PROTOBUF)
def test_protobuf_decode_raises_only_protobuf_errors_in_bounded_time(baselines, body):
    baseline, size = baselines["protobuf"], len(body)
    obj, _ = run_bounded(lambda: protobuf.decode(body), ProtobufError, baseline, size)
    if obj is not None:
        written, _ = run_bounded(obj.to_json, (), baseline, size)
        type(obj).from_json(written)


def _deep_list(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _cycle(kind: str) -> Any:
    value: Any = [] if kind == "list" else {}
    if kind == "list":
        value.append(value)
    else:
        value["a"] = value
    return value


#: Python data a RawExtension may be built from, with the length of the JSON it holds once
#: (each list or dict counted where it first occurs): deep nesting, cycles, repeats
#: (billion laughs as Python objects), numbers JSON has not, keys and types it has not.
HOSTILE_PYTHON = st.one_of(
    st.builds(lambda depth: (_deep_list(depth), 2 * depth), st.integers(1, 50_000)),
    st.builds(lambda depth: (_deep_dict(depth), 6 * depth), st.integers(1, 50_000)),
    st.builds(lambda kind: (_cycle(kind), 10), st.sampled_from(["list", "dict"])),
    st.builds(lambda levels, width: (_repeats(levels, width), 8 * levels * width), st.integers(1, 40), st.integers(1, 10)),
    st.sampled_from([math.nan, math.inf, -math.inf, 10**5000, -(10**4301), (1, 2), {1: 2}, {None: 1}, b"bytes", object(),
                     {"a": {1, 2}}, "\ud800", {"\udfff": 1}]).map(lambda value: (value, 5000)),  # fmt: skip
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
        max_leaves=30,
    ).map(lambda value: (value, len(json.dumps(value)))),
)


def _repeats(levels: int, width: int) -> list:
    value: list = ["lol"] * width
    for _ in range(levels):
        value = [value] * width
    return value


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(text=HOSTILE_TEXT, number=st.one_of(st.integers(), st.integers(-(2**70), 2**70), st.floats(), st.booleans()), python=HOSTILE_PYTHON)
def test_value_types_raise_only_value_errors_in_bounded_time(baselines, text, number, python):
    baseline, size = baselines["json"], len(text) + 2  # a string in JSON
    quantity, _ = run_bounded(lambda: Quantity(text), QuantityError, baseline, size)
    if quantity is not None:
        assert Quantity(quantity.to_json()) == quantity
        for integer in (quantity.as_int, quantity.milli_value, lambda: quantity.scaled_value(-9)):
            result, _ = run_bounded(integer, (), baseline, size)
            assert -(2**63) <= result < 2**63
    for time_type in (Time, MicroTime):
        moment, _ = run_bounded(lambda: time_type._validate(text), ValueError, baseline, size)
        if moment is not None:
            assert time_type._validate(moment.to_json()).to_json() == moment.to_json()
    duration, _ = run_bounded(lambda: Duration.parse(text), ValueError, baseline, size)
    if duration is not None:
        assert Duration.parse(duration.to_json()) == duration
    parsed, _ = run_bounded(lambda: IntOrString.parse(text), (), baseline, size)
    run_bounded(lambda: parsed.scaled_value(100, True), ValueError, baseline, size)
    run_bounded(lambda: IntOrString(number), ValueError, baseline, 20)
    run_bounded(lambda: Quantity(number), QuantityError, baseline, 20)
    value, size = python
    raw, _ = run_bounded(lambda: RawExtension(value), ValueError, baseline, size)
    if raw is not None:
        run_bounded(lambda: gojson.marshal(raw.to_json()), (), baseline, size)


# -- a valid metav1.Condition validates (the report: the date-time check was given a Time) --

CRD_TYPES = """
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Widget is a widget.
type Widget struct {
    metav1.TypeMeta   `json:",inline"`
    metav1.ObjectMeta `json:"metadata,omitempty"`

    Spec   WidgetSpec   `json:"spec,omitempty"`
    Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what the widget should be.
type WidgetSpec struct {
    // +optional
    Size int32 `json:"size,omitempty"`
}

// WidgetStatus is what the widget is.
type WidgetStatus struct {
    // conditions are the standard conditions.
    // +optional
    // +listType=map
    // +listMapKey=type
    Conditions []metav1.Condition `json:"conditions,omitempty"`

    // probes are conditions of the project's own type, marked as metav1.Condition is.
    // +optional
    // +listType=map
    // +listMapKey=type
    Probes []ProbeCondition `json:"probes,omitempty"`
}

// ProbeCondition copies metav1.Condition's fields and markers, as controller-gen projects do.
type ProbeCondition struct {
    // +required
    // +kubebuilder:validation:Required
    // +kubebuilder:validation:MaxLength=316
    // +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`
    Type string `json:"type"`

    // +required
    // +kubebuilder:validation:Required
    // +kubebuilder:validation:Enum=True;False;Unknown
    Status metav1.ConditionStatus `json:"status"`

    // +optional
    // +kubebuilder:validation:Minimum=0
    ObservedGeneration int64 `json:"observedGeneration,omitempty"`

    // +required
    // +kubebuilder:validation:Required
    // +kubebuilder:validation:Type=string
    // +kubebuilder:validation:Format=date-time
    LastTransitionTime metav1.Time `json:"lastTransitionTime"`

    // +required
    // +kubebuilder:validation:Required
    // +kubebuilder:validation:MaxLength=1024
    // +kubebuilder:validation:MinLength=1
    // +kubebuilder:validation:Pattern=`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`
    Reason string `json:"reason"`

    // +required
    // +kubebuilder:validation:Required
    // +kubebuilder:validation:MaxLength=32768
    Message string `json:"message"`
}

// +kubebuilder:object:root=true

// WidgetList is a list of widgets.
type WidgetList struct {
    metav1.TypeMeta `json:",inline"`
    metav1.ListMeta `json:"metadata,omitempty"`
    Items           []Widget `json:"items"`
}
"""


def test_a_valid_condition_in_a_custom_resource_status_validates(generate_project):
    load, result = generate_project(
        {
            "go.mod": "module example.com/apis\n",
            "widgets/v1/doc.go": "// +kubebuilder:object:generate=true\n// +groupName=widgets.example.com\npackage v1\n",
            "widgets/v1/types.go": CRD_TYPES,
        }
    )
    assert [str(d) for d in result.diagnostics.sorted() if d.severity.value == "error"] == []
    models = load("widgets.v1.models")
    validation = load("widgets.v1.validation")
    condition = {
        "type": "Ready", "status": "True", "observedGeneration": 3,
        "lastTransitionTime": "2024-05-06T07:08:09Z", "reason": "Reconciled", "message": "all good",
    }  # fmt: skip
    widget = models.Widget.from_json(
        json.dumps(
            {
                "apiVersion": "widgets.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
                "status": {"conditions": [condition], "probes": [condition]},
            }  # fmt: skip
        )
    )
    assert [str(e) for e in validation.validate_Widget(widget)] == []


def test_quantities_in_json_are_trimmed_as_go_reads_them(frobbers):
    """Quantity.UnmarshalJSON trims spaces before parsing; ParseQuantity (the constructor) does not."""
    obj = frobbers.Frobber.from_json(with_value("spec.resources", b'{"cpu": " 1 ", "memory": "\\t2Gi"}'))
    assert obj.spec.resources == {"cpu": Quantity("1"), "memory": Quantity("2Gi")}
    with pytest.raises(QuantityError):
        Quantity(" 1")
