"""The msgspec models (`models = "msgspec"`, `--models msgspec`): the pydantic models' public
API and their Go JSON bytes, strict decoding, `null` as the zero value, deep copies that
share nothing mutable, black-formatted code that passes `mypy --strict`, the Scheme, the
other generators' own tests run on structs (validation, defaulters, strategies, conversion),
and the generators that do not work on them yet refused by name."""

from __future__ import annotations

import base64
import dataclasses
import functools
import importlib
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

import black
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import write_tree
from kgen import pipeline
from kgen.emit import Mode, emit
from kgen.generators import GENERATORS, unavailable_for
from kgen.options import resolve_options
from kgen.render import _BLACK_MODE
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import FieldsV1, RawExtension
from kgen.runtime.scheme import APIError, Scheme
from kgen.runtime.structs import Struct

TYPES = """
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Phase is where an order is.
type Phase string

const (
	// PhasePending is waiting.
	PhasePending Phase = "Pending"
	// PhaseShipped is gone.
	PhaseShipped Phase = "Shipped"
)

// +genclient

// Order is something a customer bought.
type Order struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   OrderSpec   `json:"spec"`
	Status OrderStatus `json:"status,omitempty"`
}

// Line is one line of an order.
type Line struct {
	Item  string  `json:"item"`
	Count int32   `json:"count,omitempty"`
	Note  *string `json:"note,omitempty"`
}

// Extra is embedded.
type Extra struct {
	Gift bool   `json:"gift,omitempty"`
	Wrap string `json:"wrap"`
}

// OrderSpec is what was ordered.
type OrderSpec struct {
	Extra     `json:",inline"`
	Item      string                       `json:"item"`
	Quantity  int32                        `json:"quantity,omitempty"`
	Total     int64                        `json:"total"`
	Small     uint8                        `json:"small,omitempty"`
	Express   bool                         `json:"express"`
	// +default="Pending"
	Phase     Phase                        `json:"phase,omitempty"`
	Priority  *int32                       `json:"priority,omitempty"`
	Tags      []string                     `json:"tags,omitempty"`
	Aliases   []string                     `json:"aliases"`
	Labels    map[string]string            `json:"labels,omitempty"`
	Extras    map[string]string            `json:"extras"`
	Lines     []Line                       `json:"lines,omitempty"`
	MaybeLine *Line                        `json:"maybeLine,omitempty"`
	NilLine   *Line                        `json:"nilLine"`
	Main      Line                         `json:"main"`
	Payload   []byte                       `json:"payload,omitempty"`
	Blob      []byte                       `json:"blob"`
	Port      intstr.IntOrString           `json:"port,omitempty"`
	MaxPort   *intstr.IntOrString          `json:"maxPort,omitempty"`
	Memory    resource.Quantity            `json:"memory,omitempty"`
	Limit     *resource.Quantity           `json:"limit,omitempty"`
	Resources map[string]resource.Quantity `json:"resources,omitempty"`
	Due       metav1.Time                  `json:"due,omitempty"`
	Seen      *metav1.MicroTime            `json:"seen,omitempty"`
	Timeout   metav1.Duration              `json:"timeout,omitempty"`
	Raw       runtime.RawExtension         `json:"raw,omitempty"`
	Matrix    [][]int32                    `json:"matrix,omitempty"`
	Selector  *metav1.LabelSelector        `json:"selector,omitempty"`
}

// OrderStatus is how far the order got.
type OrderStatus struct {
	Shipped    bool               `json:"shipped,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Measure has floats, which Go writes in its own way.
type Measure struct {
	Ratio  float64 `json:"ratio,omitempty"`
	Weight float32 `json:"weight"`
	Line   Line    `json:"line"`
}

// +genclient

// Gauge holds what msgspec does not write as Go does: floats and omitzero structs.
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Measures []Measure `json:"measures,omitempty"`
	Window   Line      `json:"window,omitzero"`
	Order    Order     `json:"order"`
}

// OrderList is a list of orders.
type OrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Order `json:"items"`
}
"""

FILES = {
    "apis/go.mod": "module example.com/shop/apis\n\ngo 1.22\n",
    "apis/shop/v1/doc.go": "// +groupName=shop.example.com\n\n// Package v1 is the shop API.\npackage v1\n",
    "apis/shop/v1/types.go": TYPES,
}
ROOT = Path(__file__).resolve().parents[1]
RUN = ("models", "deepcopy", "scheme", "defaulters", "validation", "strategies")
METHODS = ("from_json", "to_json", "from_dict", "to_dict", "from_yaml", "to_yaml", "deep_copy")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The API generated with both backends, importable: (msgspec module, pydantic module, files)."""
    import importlib

    root = write_tree(tmp_path_factory.mktemp("msgspec-models"), FILES)
    produced = {}
    for backend in ("msgspec", "pydantic"):
        options = resolve_options(
            config_path=root / "none.toml", input=str(root / "apis"), output=str(root / f"shop_{backend}"),
            module="example.com/shop/apis", registered=tuple(GENERATORS), only=",".join(RUN), models=backend,
        )  # fmt: skip
        result = pipeline.generate(options, use_cache=False)
        emit(result.files, options.output, Mode.WRITE, options.selected)
        produced[backend] = result.files
    sys.path.insert(0, str(root))
    try:
        yield (
            importlib.import_module("shop_msgspec.shop.v1"),
            importlib.import_module("shop_pydantic.shop.v1"),
            produced["msgspec"],
            root,
        )
    finally:
        sys.path.remove(str(root))


def classes(module) -> list[str]:
    return [name for name in module.__all__ if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), Struct)]


def both(generated, cls: str, data: bytes):
    """Decode with each backend: (msgspec object or its error, pydantic object or its error)."""
    out = []
    for module in generated[:2]:
        try:
            out.append(getattr(module, cls).from_json(data))
        except ValueError as err:
            out.append(err)
    return out


# -- the code -----------------------------------------------------------------------------


def test_generated_code_is_black_formatted_and_names_its_generator(generated):
    files = generated[2]
    assert {f.generator for f in files} == set(RUN)
    for file in files:
        assert black.format_str(file.content, mode=_BLACK_MODE) == file.content, file.path
    models = next(f.content for f in files if f.path == "shop/v1/models.py")
    assert models.startswith("# Code generated by kgen-models. DO NOT EDIT.")
    assert "class Order(_Struct):" in models and "pydantic" not in models
    assert "from kgen.runtime.apimachinery_structs.meta.v1 import models as _meta_v1_models" in models


@pytest.mark.slow
def test_generated_code_passes_mypy_strict(generated, tmp_path):
    from test_typing import mypy_strict

    root = generated[3]
    script = root / "use_msgspec.py"
    script.write_text(
        "from shop_msgspec.shop.v1 import Line, Order, OrderSpec\n"
        "from kgen.runtime.apimachinery_structs.meta.v1.models import ObjectMeta\n\n"
        "order = Order(metadata=ObjectMeta(name='a', labels={'k': 'v'}), spec=OrderSpec(item='x', lines=[Line(item='y')]))\n"
        "data: bytes = order.to_json()\n"
        "again: Order = Order.from_json(data).deep_copy()\n"
        "count: int = again.spec.lines[0].count + len(again.spec.tags)\n"
        "print(again.to_yaml(), again.to_dict()['spec'], count)\n"
        "from shop_msgspec.shop.v1 import defaulters, validation\n"
        "defaulters.set_object_defaults_Order(again)\n"
        "errors: list[str] = [str(e) for e in validation.validate_Order(again)]\n"
    )
    result = mypy_strict(["shop_msgspec", "use_msgspec.py"], root, tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr


# -- the same public API ---------------------------------------------------------------------


def test_same_classes_fields_json_names_and_methods(generated):
    structs, models = generated[:2]
    assert structs.__all__ == models.__all__
    assert structs.Phase.values() == models.Phase.values() == ("Pending", "Shipped")
    for name in classes(structs):
        struct, model = getattr(structs, name), getattr(models, name)
        assert list(struct.__struct_fields__) == list(model.model_fields), name
        json_names = [info.validation_alias or field for field, info in model.model_fields.items()]
        assert list(struct.__struct_encode_fields__) == json_names, name
        for method in METHODS:
            assert callable(getattr(struct, method)), (name, method)
    assert structs.Order.__kgen_group_version_kind__ == ("shop.example.com", "v1", "Order")
    order = structs.Order()
    assert (order.api_version, order.kind) == ("shop.example.com/v1", "Order")
    # msgspec writes an Order in C; a Gauge (floats, an omitzero struct) field by field in Python
    assert structs.Order.__kgen_native__ and structs.OrderList.__kgen_native__
    assert not structs.Gauge.__kgen_native__ and not structs.Measure.__kgen_native__


EXAMPLES = [
    {},
    {
        "metadata": {"name": "a", "labels": {"z": "1", "a": "2"}, "creationTimestamp": "2024-01-01T00:00:00Z",
                     "managedFields": [{"manager": "m", "time": "2024-01-01T00:00:00Z", "fieldsV1": {"f:z": {}, "f:a": {".": {}}}}]},
        "spec": {"item": "x", "tags": [], "labels": {}, "payload": "", "blob": "", "lines": [{"item": "a", "count": 2}],
                 "port": "http", "memory": "1.5Gi", "resources": {"cpu": "100m", "mem": None, "disk": 3},
                 "due": "2024-01-01T00:00:00.5Z", "seen": "2024-01-01T00:00:00.000001Z", "timeout": "90s",
                 "raw": {"b": 1, "a": [1.0, 1e21, -0.0, 1.5e-7, 123456789012345678901234567890, "<&>"]},
                 "matrix": [[1], None, []], "phase": "NotYetKnown", "maxPort": 8443, "limit": "2"},
    },  # fmt: skip
    {"apiVersion": "", "kind": "", "spec": {"item": "<tag> & \u2028 \u2029 é \x01"}},
    {"status": {"shipped": True, "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z"}]}},
    {"spec": {"raw": None, "due": None, "seen": None, "timeout": None, "limit": None, "nilLine": {"item": ""}}},
]


GAUGES = [
    {},
    {"measures": [{"ratio": 0.0, "weight": 1e21}, {"ratio": 1.5e-7, "weight": 100, "line": {"item": "q"}}], "window": {"item": "w"}},
    {"measures": [{"ratio": -0.0, "weight": 0.000015}], "window": {}, "order": EXAMPLES[1], "kind": ""},
]


@pytest.mark.parametrize(
    "cls, document",
    [("Order", document) for document in EXAMPLES] + [("Gauge", document) for document in GAUGES],
    ids=[f"order{i}" for i in range(len(EXAMPLES))] + [f"gauge{i}" for i in range(len(GAUGES))],
)
def test_both_backends_write_the_same_bytes(generated, cls, document):
    data = json.dumps(document).encode()
    ours, theirs = both(generated, cls, data)
    assert ours.to_json() == theirs.to_json()
    assert ours.to_dict() == theirs.to_dict()
    written = ours.to_json()
    assert type(ours).from_json(written).to_json() == type(theirs).from_json(written).to_json()


def test_lists_write_their_kinds_as_the_pydantic_models_do(generated):
    for document in ({"items": [{"kind": ""}, {"apiVersion": "", "spec": {"item": "x"}}, {}]}, {"items": None}, {}):
        ours, theirs = both(generated, "OrderList", json.dumps(document).encode())
        assert ours.to_json() == theirs.to_json()


# -- hypothesis: documents and objects ----------------------------------------------------------

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6) | st.sampled_from(["", "<a>&b", "\u2028", "null"])
int32s = st.integers(-(2**31), 2**31 - 1)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=8,
)
times = st.sampled_from(["2024-01-01T00:00:00Z", "2024-02-29T12:30:45.123Z", "2024-01-01T01:00:00+01:00", "1999-12-31T23:59:59Z"])


def sometimes_wrong(strategy):
    """Mostly the right type; sometimes null (Go's zero) or a value of another type."""
    wrong = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False) | texts
    return st.one_of(strategy, strategy, strategy, strategy, wrong)


def optional(**fields):
    return st.fixed_dictionaries({}, optional=fields)


lines = optional(item=sometimes_wrong(texts), count=sometimes_wrong(int32s), note=texts | st.none())
metadata = optional(
    name=texts, labels=st.dictionaries(texts, texts, max_size=3), annotations=st.dictionaries(texts, texts, max_size=2),
    creationTimestamp=times | st.none(), finalizers=st.lists(texts, max_size=2) | st.none(),
    managedFields=st.lists(optional(manager=texts, time=times, fieldsV1=json_values), max_size=2),
)  # fmt: skip
specs = optional(
    gift=sometimes_wrong(st.booleans()), wrap=texts, item=sometimes_wrong(texts), quantity=sometimes_wrong(int32s),
    total=sometimes_wrong(st.integers(-(2**63), 2**63 - 1)), small=st.integers(-2, 300), express=st.booleans(),
    phase=st.sampled_from(["", "Pending", "Shipped", "Lost"]), priority=int32s | st.none(),
    tags=sometimes_wrong(st.lists(texts, max_size=3)), aliases=st.lists(texts, max_size=2) | st.none(),
    labels=sometimes_wrong(st.dictionaries(texts, texts, max_size=3)), extras=st.dictionaries(texts, texts, max_size=2) | st.none(),
    lines=sometimes_wrong(st.lists(lines, max_size=3)), maybeLine=lines | st.none(), nilLine=lines | st.none(),
    main=sometimes_wrong(lines), payload=st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode()) | texts | st.none(),
    blob=st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode()) | st.none(),
    port=sometimes_wrong(int32s | texts), maxPort=int32s | texts | st.none(),
    memory=sometimes_wrong(st.sampled_from(["100m", "1.5Gi", "0", "1e3", "128Mi", "-2", "1.5"]) | st.integers(-9, 9)),
    limit=st.sampled_from(["1", "2Ki"]) | st.none(), resources=st.dictionaries(texts, st.sampled_from(["1", "500m"]) | st.none(), max_size=2),
    due=times | st.none(), seen=st.sampled_from(["2024-01-01T00:00:00.000001Z", "2024-01-01T00:00:00.123456+02:00"]) | st.none(),
    timeout=st.sampled_from(["1s", "90s", "1h2m3.5s", "0s", "-5ms"]) | st.none(), raw=json_values,
    matrix=st.lists(st.lists(int32s, max_size=2) | st.none(), max_size=2),
)  # fmt: skip
statuses = optional(shipped=sometimes_wrong(st.booleans()), conditions=st.lists(optional(type=texts, lastTransitionTime=times), max_size=2))
orders = optional(
    apiVersion=st.sampled_from(["", "shop.example.com/v1", "other/v2"]), kind=st.sampled_from(["", "Order"]),
    metadata=metadata, spec=sometimes_wrong(specs), status=statuses, unknownField=json_values,
)  # fmt: skip
floats = st.floats(allow_nan=False, allow_infinity=False) | st.integers(-5, 5)
gauges = optional(
    kind=st.sampled_from(["", "Gauge"]), metadata=metadata, window=sometimes_wrong(lines), order=orders,
    measures=st.lists(optional(ratio=sometimes_wrong(floats), weight=floats, line=lines), max_size=2),
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["Order", "Gauge"]), st.data())
def test_json_documents_decode_and_encode_as_the_pydantic_models_do(generated, cls, data):
    document = data.draw(orders if cls == "Order" else gauges)
    ours, theirs = both(generated, cls, json.dumps(document).encode())
    if isinstance(theirs, Exception):
        assert isinstance(ours, msgspec.DecodeError), (ours, theirs)
        return
    assert not isinstance(ours, Exception), (ours, theirs)
    written = ours.to_json()
    assert written == theirs.to_json()
    assert type(ours).from_json(written).to_json() == type(theirs).from_json(written).to_json()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(orders, st.data())
def test_objects_built_and_changed_in_python_encode_as_the_pydantic_models_do(generated, document, data):
    ours, theirs = both(generated, "Order", json.dumps(document).encode())
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        return
    changes = {
        ("spec", "tags"): st.sampled_from([[], ["b", "a"]]),
        ("spec", "labels"): st.sampled_from([{}, {"z": "1", "a": "<"}]),
        ("spec", "item"): st.sampled_from(["", "x"]),
        ("spec", "quantity"): st.sampled_from([0, 7]),
        ("spec", "payload"): st.sampled_from([b"", b"\x00\xff"]),
        ("spec", "raw"): st.sampled_from([None, {"b": [1.5, 1e300, -0.0], "a": {}}]),
        ("metadata", "finalizers"): st.sampled_from([[], ["f"]]),
        ("metadata", "labels"): st.sampled_from([{}, {"b": "1", "a": "2"}]),
        ((), "api_version"): st.sampled_from(["", "shop.example.com/v1"]),
        ((), "kind"): st.sampled_from(["", "Order"]),
    }
    for (path, attribute), values in changes.items():
        if data.draw(st.booleans()):
            value = data.draw(values)
            for obj in (ours, theirs):
                target = obj if path == () else getattr(obj, path)
                if attribute == "raw" and value is not None:
                    setattr(target, attribute, RawExtension(json.loads(json.dumps(value))))
                else:
                    setattr(target, attribute, json.loads(json.dumps(value)) if not isinstance(value, bytes) else value)
    assert ours.to_json() == theirs.to_json()


# -- decoding ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, where",
    [
        (b'{"spec": {"quantity": "8443"}}', "$.spec.quantity"),
        (b'{"spec": {"quantity": 2147483648}}', "$.spec.quantity"),
        (b'{"spec": {"quantity": 1.0}}', "$.spec.quantity"),
        (b'{"spec": {"small": 256}}', "$.spec.small"),
        (b'{"spec": {"express": 1}}', "$.spec.express"),
        (b'{"spec": {"item": 5}}', "$.spec.item"),
        (b'{"spec": {"payload": "YQ"}}', "$.spec.payload"),
        (b'{"spec": {"memory": "1.5Xi"}}', "$.spec.memory"),
        (b'{"spec": {"port": 2147483648}}', "$.spec.port"),
        (b'{"spec": {"due": "yesterday"}}', "$.spec.due"),
        (b'{"spec": {"lines": [{"count": "2"}]}}', "$.spec.lines[0].count"),
        (b'{"spec": {"lines": [null]}}', "$.spec.lines[0]"),
        (b'{"spec": {"item": null, "quantity": "x"}}', "$.spec.quantity"),
        (b"[]", ""),
    ],
)
def test_type_mismatches_are_validation_errors_with_the_path(generated, data, where):
    with pytest.raises(msgspec.ValidationError) as caught:
        generated[0].Order.from_json(data)
    assert str(caught.value).endswith(f"`{where}`" if where else "`array`")


def test_a_value_of_the_wrong_json_type_is_named_as_json_names_it(generated):
    with pytest.raises(msgspec.ValidationError, match=r"^an int-or-string holds an integer or a string, not float - at `\$\.spec\.port`$"):
        generated[0].Order.from_json(b'{"spec": {"port": 1.5}}')


@pytest.mark.parametrize("data", [b"{", b'{"spec": NaN}', "{\"spec\": {\"item\": \"\ud800\"}}", b"[" * 100_000 + b"]" * 100_000])
def test_anything_else_is_a_decode_error(generated, data):
    with pytest.raises(msgspec.DecodeError):
        generated[0].Order.from_json(data)


def test_yaml_and_dict_errors_are_decode_errors_too(generated):
    Order = generated[0].Order
    with pytest.raises(msgspec.DecodeError, match="Invalid YAML"):
        Order.from_yaml("a: [")
    with pytest.raises(msgspec.ValidationError):
        Order.from_dict({"spec": {"quantity": "1"}})
    with pytest.raises(msgspec.ValidationError, match="lone surrogate"):
        Order.from_dict({"spec": {"item": "\ud800"}})


def test_null_leaves_the_zero_value_as_go_does(generated):
    structs = generated[0]
    data = (
        b'{"spec": {"item": null, "quantity": null, "express": null, "main": null, "tags": null, "labels": null,'
        b' "aliases": null, "memory": null, "port": null, "timeout": null, "payload": null, "maybeLine": null,'
        b' "resources": {"cpu": null}, "lines": [{"item": null, "count": null}]}, "status": null, "metadata": null}'
    )
    order = structs.Order.from_json(data)
    spec = order.spec
    assert (spec.item, spec.quantity, spec.express, spec.main) == ("", 0, False, structs.Line())
    assert (spec.tags, spec.labels, spec.aliases, spec.payload, spec.maybe_line) == ([], {}, None, b"", None)
    assert spec.memory == Quantity("0") and spec.port == IntOrString(0) and spec.timeout.total_seconds() == 0
    assert spec.resources == {"cpu": Quantity("0")} and spec.lines == [structs.Line()]
    assert order.status == structs.OrderStatus() and order.metadata.name == ""
    assert structs.Order.from_dict(json.loads(data)) == order
    assert order.to_json() == generated[1].Order.from_json(data).to_json()


def test_unknown_fields_are_ignored_and_enums_are_open(generated):
    order = generated[0].Order.from_json(b'{"spec": {"item": "a", "bogus": [1], "phase": "Lost"}, "extra": {}}')
    assert order.spec.item == "a" and order.spec.phase == "Lost"
    assert b"bogus" not in order.to_json()


def test_absent_omitempty_lists_maps_and_bytes_are_empty_not_none(generated):
    spec = generated[0].OrderSpec()
    assert (spec.tags, spec.labels, spec.lines, spec.payload) == ([], {}, [], b"")
    assert (spec.aliases, spec.extras, spec.blob, spec.maybe_line, spec.nil_line) == (None, None, None, None, None)
    spec.tags.append("first")  # no None to replace first
    assert b'"tags":["first"]' in spec.to_json()


# -- round trips and copies ---------------------------------------------------------------------


def test_round_trips(generated):
    structs = generated[0]
    document = json.loads(json.dumps(EXAMPLES[1]))
    document["spec"]["due"] = "2024-01-01T00:00:01Z"  # a fraction of a second is not written back, as in Go
    document["spec"]["raw"] = {"b": 1, "a": [-1.5, "<&>"]}  # YAML's numbers are not JSON's (1.0 is 1)
    order = structs.Order.from_json(json.dumps(document).encode())
    assert structs.Order.from_json(order.to_json()) == order
    assert structs.Order.from_dict(order.to_dict()) == order
    assert structs.Order.from_yaml(order.to_yaml()) == order
    assert order.to_yaml().startswith("apiVersion: shop.example.com/v1\nkind: Order\nmetadata:\n")


class _Colour:
    """A value type of a user's own (`+kgen:python`): known to msgspec only by its `to_json`."""

    def __init__(self, name: str):
        self.name = name

    def to_json(self) -> str:
        return self.name.upper()


def test_values_are_written_from_their_own_json_and_a_users_value_type_from_its_to_json():
    from kgen.runtime.structs import field, zero_factory
    from kgen.runtime.timeutil import MicroTime, Time

    class Paint(Struct):
        colour: _Colour | None = None
        amount: Quantity = field(default_factory=zero_factory(Quantity))
        port: IntOrString = field(default_factory=zero_factory(IntOrString))
        mixed: Time | None = None
        dried: MicroTime | None = None

    at = Time.from_datetime(datetime(2024, 5, 6, 7, 8, 9, 500000, tzinfo=timezone.utc))
    paint = Paint(amount=Quantity("1.5"), port=IntOrString("http"), mixed=at, dried=MicroTime.from_datetime(at))
    expected = b'{"amount":"1500m","port":"http","mixed":"2024-05-06T07:08:09Z","dried":"2024-05-06T07:08:09.500000Z"}'
    assert paint.to_json() == expected
    paint.colour = _Colour("red")
    assert paint.to_json() == b'{"colour":"RED",' + expected[1:]
    paint.colour = object()  # type: ignore[assignment]
    with pytest.raises(TypeError, match="Encoding objects of type object is unsupported"):
        paint.to_json()


def _mutable_parts(value, path="", out=None):
    """Every list, dict, struct and raw JSON holder reachable from `value`, by id."""
    out = {} if out is None else out
    if isinstance(value, (list, dict, Struct, RawExtension, FieldsV1)):
        out[id(value)] = path
    if isinstance(value, Struct):
        for name in value.__struct_fields__:
            _mutable_parts(getattr(value, name), f"{path}.{name}", out)
    elif isinstance(value, (RawExtension, FieldsV1)):
        _mutable_parts(value.raw, f"{path}.raw", out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _mutable_parts(item, f"{path}[{index}]", out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _mutable_parts(item, f"{path}[{key!r}]", out)
    return out


def test_deep_copy_is_equal_and_shares_nothing_mutable(generated):
    structs = generated[0]
    gauge = structs.Gauge.from_json(json.dumps({"order": EXAMPLES[1], "measures": [{"ratio": 0.5}]}).encode())
    gauge.order.metadata.managed_fields[0].fields_v1.raw["f:z"] = {"nested": [1.5e300, {}]}
    copied = gauge.deep_copy()
    assert copied == gauge and copied.to_json() == gauge.to_json()
    shared = _mutable_parts(gauge).keys() & _mutable_parts(copied).keys()
    assert not shared, [_mutable_parts(gauge)[i] for i in shared]
    copied.order.spec.lines[0].count = 9
    copied.order.metadata.managed_fields[0].fields_v1.raw["f:z"]["new"] = {}
    assert gauge.order.spec.lines[0].count == 2 and "new" not in gauge.order.metadata.managed_fields[0].fields_v1.raw["f:z"]


# -- the Scheme and the command line ------------------------------------------------------------


def test_scheme_decodes_registered_structs(generated):
    scheme = Scheme()
    generated[0].register.add_to_scheme(scheme)
    result = scheme.decode(b'{"apiVersion": "shop.example.com/v1", "kind": "Order", "spec": {"item": "a"}}')
    assert isinstance(result.object, generated[0].Order) and result.object.spec.item == "a"
    with pytest.raises(APIError) as caught:
        scheme.decode(b'{"apiVersion": "shop.example.com/v1", "kind": "Order", "spec": {"quantity": "8443"}}')
    assert caught.value.code == 400 and caught.value.causes[0].field == "spec.quantity"
    with pytest.raises(APIError, match='unknown field "spec.bogus"'):
        scheme.decode(b'{"apiVersion": "shop.example.com/v1", "kind": "Order", "spec": {"bogus": 1}}')


def test_models_msgspec_selects_the_backend_every_generator_runs_on(cli, tmp_path, monkeypatch):
    from kgen.generators import backends

    project = write_tree(tmp_path / "p", {**FILES, "pyproject.toml": '[tool.kgen]\ninput = "apis"\noutput = "generated"\n'})
    made = cli(["generate", "--models", "msgspec"], project)
    assert made.exit_code == 0, made.output
    package = project / "generated/shop/v1"
    assert "(_Struct):" in (package / "models.py").read_text()
    for module in ("client.py", "deepcopy.py", "validation.py", "defaulters.py", "register.py"):
        assert (package / module).exists(), module
    assert not (package / "strategies.py").exists()  # opt-in (they need hypothesis)
    assert cli(["generate", "--check", "--models", "msgspec"], project).exit_code == 0
    drifted = cli(["generate", "--check", "--models", "pydantic"], project)
    assert drifted.exit_code == 1
    # A generator that does not run on structs is named, and nothing is written.
    structs = backends.BACKENDS["msgspec"]
    fewer = tuple(n for n in structs.available or () if n != "client")
    monkeypatch.setitem(backends.BACKENDS, "msgspec", dataclasses.replace(structs, available=fewer))
    (project / "pyproject.toml").write_text('[tool.kgen]\ninput = "apis"\noutput = "fresh"\nmodels = "msgspec"\n')
    refused = cli(["generate"], project)
    assert refused.exit_code == 2
    assert "not yet available for msgspec models: client" in refused.output
    assert not (project / "fresh").exists()
    (project / "pyproject.toml").write_text('[tool.kgen]\nmodels = "fast"\n')
    bad = cli(["generate"], project)
    assert bad.exit_code == 2 and "is not a model backend (one of: pydantic, msgspec)" in bad.output


def test_string_option_fields_are_refused_with_their_position(cli, tmp_path):
    files = {**FILES, "apis/shop/v1/types.go": "package v1\n\n// Count is counted.\ntype Count struct {\n\tN int64 `json:\"n,string\"`\n}\n"}
    project = write_tree(tmp_path / "p", files)
    result = cli(["generate", "--input", "apis", "--config", "/dev/null", "--models", "msgspec", "--only", "models"], project)
    assert result.exit_code == 2
    assert "types.go:5:" in result.output and "`,string` JSON option" in result.output



# -- the other generators, on structs: their own tests, run with msgspec models ---------------


@pytest.fixture
def generate_struct_project(generate_project):
    """`generate_project` with msgspec models (and the generators that run on them)."""

    def run(files, generators=None):
        load, result = generate_project(files, generators, models="msgspec")
        assert all("pydantic" not in f.content for f in result.files if f.path.endswith(".py"))
        assert any("(_Struct):" in f.content for f in result.files)
        return load, result

    return run


def _suite(module, *names: str):
    imported = importlib.import_module(module)
    return [pytest.param(getattr(imported, name), id=f"{module}.{name}") for name in names]


@pytest.mark.parametrize(
    "test",
    _suite(
        "test_validation",
        "test_kubebuilder_one_of_rules_package_default_and_required_lists",
        "test_update_transitions_and_the_remaining_limits",
        "test_object_property_counts_and_lengths_of_bytes_as_openapi_reads_them",
        "test_discriminated_rules_dependent_fields_and_custom_uniqueness",
    )
    + _suite(
        "test_defaulters",
        "test_generated_code_follows_upstream_order",
        "test_packages_without_defaults_get_no_defaulters_module",
        "test_default_keys_match_fields_ignoring_case_as_encoding_json_does",
    )
    + _suite(
        "test_conversion",
        "test_missing_hook_is_an_error_with_the_function_to_write",
        "test_hooks_are_found_and_called",
        "test_hook_with_wrong_parameters_is_an_error",
        "test_markers_drop_fields_and_opt_types_out",
    )
    + _suite(
        "test_conversion_hubs",
        "test_a_versioned_hub_named_by_conversion_gen",
        "test_custom_resources_without_an_internal_package_convert_through_the_storage_version",
        "test_an_implicit_hub_with_differing_fields_warns_and_raises_until_the_hook_is_written",
        "test_a_go_manual_conversion_makes_a_missing_python_hook_a_warning",
        "test_a_type_converted_by_hand_needs_a_hook_only_where_it_is_used",
    ),
)
def test_generators_behave_the_same_on_structs(test, generate_struct_project):
    test(generate_struct_project)


@pytest.fixture(scope="module")
def example_structs(tmp_path_factory):
    """The example API (apis/) generated with msgspec models, by every generator that runs on
    them but the Scheme, importable as `example_structs.example`."""
    out = tmp_path_factory.mktemp("example-structs")
    options = resolve_options(
        config_path=ROOT / "pyproject.toml", input=str(ROOT / "apis"), output=str(out / "example_structs"), registered=tuple(GENERATORS),
        models="msgspec",
    )  # fmt: skip
    # Not the Scheme: its register module adds the kinds to the process's SCHEME when imported,
    # where the pydantic example's kinds are.
    available = tuple(n for n in options.selected if n != "scheme" and not unavailable_for("msgspec", (n,)))
    options = dataclasses.replace(options, generators=available)
    result = pipeline.generate(options, use_cache=False)
    emit(result.files, options.output, Mode.WRITE, options.selected)
    sys.path.insert(0, str(out))
    try:
        for name in ("validation", "defaulters", "strategies", "conversion"):
            importlib.import_module(f"example_structs.example.v1.{name}")
        yield importlib.import_module("example_structs.example.v1")
    finally:
        sys.path.remove(str(out))


def _on_structs(monkeypatch, test_module, structs, **names: str):
    """Point a pydantic test module's model and generated-module names at the structs'."""
    assert isinstance(structs.Frobber, type) and issubclass(structs.Frobber, Struct)
    for name, target in names.items():
        monkeypatch.setattr(test_module, name, functools.reduce(getattr, target.split("."), structs))


VALIDATION_TESTS = (
    "test_the_valid_frobber_has_no_errors",
    "test_a_feature_gated_enum_value_needs_its_gate_or_an_old_object_that_used_it",
    "test_update_rules_immutable_no_modify_monotonic_and_a_transition_rule",
    "test_ratcheting_an_unchanged_invalid_value_is_not_validated_again",
    "test_metadata_of_an_update_may_not_change_name_and_cluster_scoped_kinds_have_no_namespace",
    "test_the_update_hook_runs_only_on_update",
)


@pytest.mark.parametrize("name", VALIDATION_TESTS)
def test_validation_of_the_example_api_is_the_same_on_structs(name, example_structs, monkeypatch):
    import test_validation

    _on_structs(monkeypatch, test_validation, example_structs, Frobber="Frobber", FrobberClass="FrobberClass", v1_validation="validation")
    getattr(test_validation, name)()


@pytest.mark.parametrize("case", sorted(__import__("test_validation").CASES))
def test_each_validation_marker_family_is_the_same_on_structs(case, example_structs, monkeypatch):
    import test_validation

    _on_structs(monkeypatch, test_validation, example_structs, Frobber="Frobber", v1_validation="validation")
    test_validation.test_each_marker_family_reports_exactly_these_errors(case)


@pytest.mark.parametrize(
    "name",
    [
        "test_every_default_form_is_applied_to_unset_fields",
        "test_hooks_run_base_first_then_additional_by_suffix",
        "test_defaults_are_fresh_values_and_defaulting_is_idempotent",
        "test_self_referencing_types_are_walked_without_looping",
    ],
)
def test_defaulters_work_on_structs(name, generate_struct_project):
    import test_defaulters

    files = {"widgets/v1/doc.go": test_defaulters.DOC, "widgets/v1/types.go": test_defaulters.TYPES}
    load, _ = generate_struct_project({**files, "widgets/v1/defaults.py": test_defaulters.HOOKS})
    getattr(test_defaulters, name)((load("widgets.v1"), load("widgets.v1.defaulters")))


def test_defaulters_keep_set_values_of_structs_but_an_empty_omitempty_list_is_unset(generate_struct_project):
    """As `test_set_values_are_kept`, but for one difference: a struct holds an omitempty
    slice or map that is nil as an empty one (Go writes both alike), so an explicitly empty
    one is defaulted, where Go's defaulters keep a non-nil empty slice."""
    import test_defaulters

    files = {"widgets/v1/doc.go": test_defaulters.DOC, "widgets/v1/types.go": test_defaulters.TYPES}
    load, _ = generate_struct_project(files)
    models, defaulters = load("widgets.v1"), load("widgets.v1.defaulters")
    spec = {"color": "red", "replicas": 0, "enabled": False, "tags": [], "mode": "Slow", "admin": {"name": "x", "port": 1}}
    widget = models.Widget.from_dict({"spec": spec})
    defaulters.set_object_defaults_Widget(widget)
    assert (widget.spec.color, widget.spec.replicas, widget.spec.enabled, widget.spec.mode) == ("red", 0, False, "Slow")
    assert (widget.spec.admin.name, widget.spec.admin.port) == ("x", 1)
    assert widget.spec.tags == ["a", "b"]


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_strategies_draw_structs_that_round_trip_default_and_validate(example_structs, data):
    """The generated strategies build structs only of what their fields hold: each drawn
    object writes JSON that decodes back to the same bytes, defaulting it is idempotent,
    and its validators return errors without raising."""
    from kgen.generators.strategies import strategy_name

    strategies, defaulters, validation = (
        importlib.import_module(f"{example_structs.__name__}.{name}") for name in ("strategies", "defaulters", "validation")
    )
    kind = data.draw(st.sampled_from(["Frobber", "FrobberList", "FrobberClass", "FrobberClassList"]))
    cls = getattr(example_structs, kind)
    obj = data.draw(getattr(strategies, strategy_name(cls.__name__))())
    assert type(obj) is cls
    written = obj.to_json()
    assert cls.from_json(written).to_json() == written
    default = defaulters.DEFAULTERS.get(cls, lambda _: None)
    default(obj)
    again = obj.deep_copy()
    default(again)
    assert again == obj and again.to_json() == obj.to_json()
    validate = getattr(validation, f"validate_{cls.__name__}", None)
    if validate is not None:
        assert all(str(error) for error in validate(obj))


@pytest.mark.slow
def test_conversion_between_structs_keeps_omitempty_lists_and_maps_never_none(generate_struct_project):
    """A hub field Go always writes may be None; converted into a version's omitempty field,
    which a struct holds as empty, it is empty: the object writes as Go writes it."""
    import test_conversion_hubs

    files = test_conversion_hubs._version("v1beta1", doc="// +k8s:conversion-gen=example.com/apis/widgets/v1beta2\n")
    files["widgets/v1beta1/types.go"] = files["widgets/v1beta1/types.go"].replace(
        "Size  int32  `json:\"size\"`", "Size  int32  `json:\"size\"`\n\tTags []string `json:\"tags,omitempty\"`\n\tLabels map[string]string `json:\"labels,omitempty\"`"
    )
    files |= test_conversion_hubs._version("v1beta2", markers="// +kubebuilder:storageversion\n", extra="\tTags []string `json:\"tags\"`\n\tLabels map[string]string `json:\"labels\"`\n")
    load, _ = generate_struct_project(files)
    hub, conversion = load("widgets.v1beta2"), load("widgets.v1beta1.conversion")
    assert hub.WidgetSpec().tags is None
    served = conversion.from_v1beta2_Widget(hub.Widget(spec=hub.WidgetSpec(size=3)))
    assert (served.spec.tags, served.spec.labels) == ([], {})
    assert json.loads(served.to_json())["spec"] == {"size": 3}
    stored = conversion.to_v1beta2_Widget(served)
    assert (stored.spec.tags, stored.spec.labels) == ([], {})
    back = conversion.from_v1beta2_Widget(hub.Widget(spec=hub.WidgetSpec(tags=["a"], labels={"k": "v"})))
    assert (back.spec.tags, back.spec.labels) == (["a"], {"k": "v"})
    from test_typing import mypy_strict

    package = Path(conversion.__file__).parents[2]
    result = mypy_strict([package.name], package.parent, package.parent / ".mypy_cache")
    assert result.returncode == 0, result.stdout + result.stderr
