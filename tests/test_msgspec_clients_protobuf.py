"""The protobuf converters and the typed clients on msgspec models (`models = "msgspec"`):
the generated package is black-formatted, imports and passes `mypy --strict`; structs go
through protobuf and back to equal objects, with the message bytes of the pydantic models;
the typed client over structs does every verb against the fake cluster, and a server-side
apply from a struct claims exactly its fields that are not at their zero value."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import json
import sys
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import black
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import write_tree
from kgen import pipeline
from kgen.emit import Mode, emit
from kgen.generators import GENERATORS
from kgen.generators.strategies import strategy_name
from kgen.options import resolve_options
from kgen.render import _BLACK_MODE
from kgen.runtime import protobuf
from kgen.runtime.client import AlreadyExists, Conflict, NotFound
from kgen.runtime.client.informer import Informer
from kgen.runtime.client.resource import apply_configuration
from kgen.runtime.client.watch import ADDED, DELETED, MODIFIED
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import RawExtension
from kgen.runtime.semantic import semantic_equal
from kgen.runtime.structs import Struct
from kgen.runtime.timeutil import Duration, MicroTime, Time

DOC = """
// +k8s:deepcopy-gen=package
// +k8s:protobuf-gen=package
// +groupName=depot.example.com

// Package v1 is the depot API.
package v1
"""

TYPES = """
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +kubebuilder:subresource:status

// Crate is a crate in the depot.
type Crate struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// +optional
	Spec CrateSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// +optional
	Status CrateStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// Common is what every crate has.
type Common struct {
	// Owner of the crate.
	// +optional
	Owner string `json:"owner,omitempty" protobuf:"bytes,1,opt,name=owner"`
}

// Item is one thing in a crate.
type Item struct {
	// +optional
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// +optional
	Count int32 `json:"count,omitempty" protobuf:"varint,2,opt,name=count"`
	// +optional
	Note *string `json:"note,omitempty" protobuf:"bytes,3,opt,name=note"`
}

// Labels are free-form labels.
// +protobuf.nullable=true
type Labels []string

// Slots are slot numbers.
type Slots []int32

// CrateSpec is what a crate holds.
type CrateSpec struct {
	Common `json:",inline" protobuf:"bytes,1,opt,name=common"`
	// +optional
	Size int64 `json:"size" protobuf:"varint,2,opt,name=size"`
	// +optional
	Fragile bool `json:"fragile,omitempty" protobuf:"varint,3,opt,name=fragile"`
	// +optional
	Priority *int32 `json:"priority,omitempty" protobuf:"varint,4,opt,name=priority"`
	// +optional
	Tags []string `json:"tags,omitempty" protobuf:"bytes,5,rep,name=tags"`
	// +optional
	Aliases []string `json:"aliases" protobuf:"bytes,6,rep,name=aliases"`
	// +optional
	Notes map[string]string `json:"notes,omitempty" protobuf:"bytes,7,rep,name=notes"`
	// +optional
	Extras map[string]string `json:"extras" protobuf:"bytes,8,rep,name=extras"`
	// +optional
	Items []Item `json:"items,omitempty" protobuf:"bytes,9,rep,name=items"`
	// +optional
	Spare *Item `json:"spare,omitempty" protobuf:"bytes,10,opt,name=spare"`
	// +optional
	Main Item `json:"main" protobuf:"bytes,11,opt,name=main"`
	// +optional
	Payload []byte `json:"payload,omitempty" protobuf:"bytes,12,opt,name=payload"`
	// +optional
	Blob []byte `json:"blob" protobuf:"bytes,13,opt,name=blob"`
	// +optional
	Port intstr.IntOrString `json:"port,omitempty" protobuf:"bytes,14,opt,name=port"`
	// +optional
	MaxPort *intstr.IntOrString `json:"maxPort,omitempty" protobuf:"bytes,15,opt,name=maxPort"`
	// +optional
	Ports []intstr.IntOrString `json:"ports,omitempty" protobuf:"bytes,16,rep,name=ports"`
	// +optional
	Weight resource.Quantity `json:"weight,omitempty" protobuf:"bytes,17,opt,name=weight"`
	// +optional
	Limit *resource.Quantity `json:"limit,omitempty" protobuf:"bytes,18,opt,name=limit"`
	// +optional
	Resources map[string]resource.Quantity `json:"resources,omitempty" protobuf:"bytes,19,rep,name=resources"`
	// +optional
	Sizes []resource.Quantity `json:"sizes,omitempty" protobuf:"bytes,20,rep,name=sizes"`
	// +optional
	Due metav1.Time `json:"due,omitempty" protobuf:"bytes,21,opt,name=due"`
	// +optional
	Seen *metav1.MicroTime `json:"seen,omitempty" protobuf:"bytes,22,opt,name=seen"`
	// +optional
	Every metav1.Duration `json:"every,omitempty" protobuf:"bytes,23,opt,name=every"`
	// +optional
	Timeouts []metav1.Duration `json:"timeouts,omitempty" protobuf:"bytes,24,rep,name=timeouts"`
	// +optional
	Raw runtime.RawExtension `json:"raw,omitempty" protobuf:"bytes,25,opt,name=raw"`
	// +optional
	Labels Labels `json:"labels,omitempty" protobuf:"bytes,26,opt,name=labels"`
	// +optional
	SlotsByZone map[string]Slots `json:"slotsByZone,omitempty" protobuf:"bytes,27,rep,name=slotsByZone"`
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,28,opt,name=selector"`
	// +optional
	Ratio float64 `json:"ratio,omitempty" protobuf:"fixed64,29,opt,name=ratio"`
	// +optional
	Spares []*Item `json:"spares,omitempty" protobuf:"bytes,30,rep,name=spares"`
}

// Phase is where a crate is.
type Phase string

const (
	// PhaseOpen is open.
	PhaseOpen Phase = "Open"
	// PhaseSealed is sealed.
	PhaseSealed Phase = "Sealed"
)

// CrateStatus is where the crate is.
type CrateStatus struct {
	// +optional
	Phase Phase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=Phase"`
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,2,rep,name=conditions"`
	// +optional
	Sealed *metav1.Time `json:"sealed,omitempty" protobuf:"bytes,3,opt,name=sealed"`
}

// CrateList is a list of crates.
type CrateList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Items []Crate `json:"items" protobuf:"bytes,2,rep,name=items"`
}
"""

FILES = {
    # the server's own package: not `generated`, which the repository's example is in this process
    "pyproject.toml": '[tool.kgen]\ninput = "apis"\noutput = "depot_served"\n',
    "apis/go.mod": "module example.com/depot/apis\n\ngo 1.22\n",
    "apis/depot/v1/doc.go": DOC,
    "apis/depot/v1/types.go": TYPES,
}
#: What the pydantic models of the same API are generated with, to compare the message bytes.
PYDANTIC_RUN = ("models", "deepcopy", "protobuf")

FULL = {
    "apiVersion": "depot.example.com/v1",
    "kind": "Crate",
    "metadata": {
        "name": "full", "namespace": "default", "labels": {"b": "2", "a": "1"}, "finalizers": ["f"],
        "creationTimestamp": "2024-05-06T07:08:09Z",
        "managedFields": [{"manager": "m", "operation": "Apply", "time": "2024-05-06T07:08:09Z",
                           "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:size": {}}}}],
    },
    "spec": {
        "owner": "me", "size": -3, "fragile": True, "priority": 0, "tags": ["x", "y"], "aliases": [],
        "notes": {"k": "v"}, "extras": {}, "items": [{"name": "a", "count": 2}, {"name": "b", "note": ""}],
        "spare": {"name": ""}, "main": {"name": "m"}, "payload": "AAEC", "blob": "", "port": "http",
        "maxPort": 8443, "ports": [80, "https", 0], "weight": "1500m", "limit": "2Gi",
        "resources": {"cpu": "100m", "zero": "0"}, "sizes": ["1", "0", "1.5Ki"], "due": "2024-01-02T03:04:05Z",
        "seen": "2024-01-02T03:04:05.123456Z", "every": "1h2m3.5s", "timeouts": ["0s", "90s"],
        "raw": {"b": [1, 2.5, "<&>"], "a": {"nested": None}}, "labels": ["l"], "slotsByZone": {"a": [80, 443], "b": [1]},
        "selector": {"matchLabels": {"app": "web"}}, "ratio": 0.25, "spares": [{"name": "s"}],
    },
    "status": {"phase": "Open", "sealed": "2024-01-01T00:00:00Z",
               "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z",
                               "reason": "Fine", "message": "ok"}]},
}  # fmt: skip


@dataclass(frozen=True)
class API:
    """The API generated with both backends, and a server of it."""

    structs: ModuleType
    """`depot_structs.depot.v1` (msgspec models), with its `client`, `protobuf` and `strategies`."""
    models: ModuleType
    """`depot_models.depot.v1` (pydantic models), with its `protobuf`."""
    files: dict[str, list[Any]]
    """The generated files by backend."""
    root: Path
    cluster: Any
    """The fake cluster serving the API (on its own pydantic models)."""


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """The API generated once with msgspec models (every generator) and once with pydantic
    models (to compare), both importable, and the fake cluster serving it."""
    from kgen.serve.fake import FakeCluster

    root = write_tree(tmp_path_factory.mktemp("msgspec-clients"), FILES)
    produced = {}
    for backend, output, only in (("msgspec", "depot_structs", ""), ("pydantic", "depot_models", ",".join(PYDANTIC_RUN))):
        options = resolve_options(
            config_path=root / "none.toml", input=str(root / "apis"), output=str(root / output),
            module="example.com/depot/apis", registered=tuple(GENERATORS), models=backend,
        )  # fmt: skip
        if only:  # a project configured with these generators only
            options = dataclasses.replace(options, generators=tuple(only.split(",")))
        result = pipeline.generate(options, use_cache=False)
        emit(result.files, options.output, Mode.WRITE, options.selected)
        produced[backend] = result.files
    sys.path.insert(0, str(root))
    try:
        structs = _import("depot_structs.depot.v1", "client", "protobuf", "strategies")
        models = _import("depot_models.depot.v1", "protobuf")
        cluster = FakeCluster(config=root / "pyproject.toml")  # a Scheme of its own
        yield API(structs, models, produced, root, cluster)
        cluster.close()
    finally:
        sys.path.remove(str(root))


def _import(package: str, *modules: str):
    imported = importlib.import_module(package)
    for module in modules:
        setattr(imported, module, importlib.import_module(f"{package}.{module}"))
    return imported


# -- the code ---------------------------------------------------------------------------------


def test_every_generator_runs_on_structs_and_writes_black_formatted_code(api):
    files = api.files["msgspec"]
    # all but defaulters and conversion, which this API has no work for
    assert {f.generator for f in files} == set(GENERATORS) - {"defaulters", "conversion"}
    for file in files:
        if file.path.endswith(".py"):
            assert black.format_str(file.content, mode=_BLACK_MODE) == file.content, file.path
    converters = next(f.content for f in files if f.path == "depot/v1/protobuf.py")
    assert "from kgen.runtime.structs import construct as _construct" in converters
    assert "from kgen.runtime.apimachinery_structs.meta.v1.protobuf import" in converters
    assert "__dict__" not in converters and "pydantic" not in converters
    # The messages are the pydantic models': the well-known ones in the pydantic runtime (a
    # process registers each .proto file once), the API's own compiled alike.
    compiled = {f.path: f.content for f in api.files["pydantic"] if "_pb2" in f.path}
    assert compiled and all(next(f.content for f in files if f.path == path) == text for path, text in compiled.items())
    assert "from kgen.runtime.apimachinery.meta.v1 import (" in compiled["depot/v1/generated_pb2.py"]


@pytest.mark.slow
def test_the_package_and_a_program_using_it_pass_mypy_strict(api, tmp_path):
    from test_typing import mypy_strict

    root = api.root
    (root / "use_depot.py").write_text(
        "from kgen.runtime.apimachinery_structs.meta.v1.models import ObjectMeta\n"
        "from kgen.runtime.client import Transport\n"
        "from kgen.runtime.client.informer import Informer\n"
        "from kgen.runtime.protobuf import marshal, unmarshal\n"
        "from depot_structs.depot.v1 import Crate, CrateList, CrateSpec, Item\n"
        "from depot_structs.depot.v1.client import Client, CrateClient\n"
        "from depot_structs.depot.v1.protobuf import from_proto_Crate, to_proto_Crate\n\n\n"
        "def use(transport: Transport) -> None:\n"
        "    crates: CrateClient = Client(transport).crates('default')\n"
        "    made: Crate = crates.create(Crate(metadata=ObjectMeta(name='a'), spec=CrateSpec(items=[Item(name='x')])))\n"
        "    listed: CrateList = crates.list()\n"
        "    applied: Crate = crates.apply(made, field_manager='me')\n"
        "    names: list[str] = [c.metadata.name for c in listed.items or []] + [e.object.metadata.name for e in crates.watch()]\n"
        "    informer: Informer[Crate, CrateList] = Informer(crates)\n"
        "    cached: Crate | None = informer.lister.get('a', 'default')\n"
        "    back: Crate = from_proto_Crate(to_proto_Crate(applied))\n"
        "    print(unmarshal(Crate, marshal(back)), names, cached)\n"
    )
    result = mypy_strict(["depot_structs", "use_depot.py"], root, tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr


# -- protobuf -----------------------------------------------------------------------------------


def test_a_struct_round_trips_through_protobuf_with_the_pydantic_models_bytes(api):
    structs, models = api.structs, api.models
    data = json.dumps(FULL).encode()
    crate = structs.Crate.from_json(data)
    message = protobuf.marshal(crate)
    assert message == protobuf.marshal(models.Crate.from_json(data))
    back = protobuf.unmarshal(structs.Crate, message)
    assert type(back) is structs.Crate and semantic_equal(back, crate)
    spec = back.spec
    assert (spec.weight, spec.limit, spec.resources, spec.sizes) == (
        Quantity("1500m"), Quantity("2Gi"), {"cpu": Quantity("100m"), "zero": Quantity("0")},
        [Quantity("1"), Quantity("0"), Quantity("1536")],
    )  # fmt: skip
    assert (spec.port, spec.max_port, spec.ports) == (IntOrString("http"), IntOrString(8443), [IntOrString(80), IntOrString("https"), IntOrString(0)])
    moment = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert spec.due == Time.from_datetime(moment) and spec.seen == MicroTime.from_datetime(moment.replace(microsecond=123456))
    assert spec.every == Duration.parse("1h2m3.5s") and spec.timeouts == [Duration.parse("0s"), Duration.parse("90s")]
    assert spec.raw == RawExtension({"b": [1, 2.5, "<&>"], "a": {"nested": None}})
    assert (spec.payload, spec.blob, spec.labels, spec.slots_by_zone) == (b"\x00\x01\x02", b"", ["l"], {"a": [80, 443], "b": [1]})
    assert (spec.priority, spec.spare, spec.items[1].note, spec.ratio, spec.spares) == (0, structs.Item(), "", 0.25, [structs.Item(name="s")])
    assert back.metadata.managed_fields[0].fields_v1.raw == {"f:spec": {"f:size": {}}}
    assert back.to_json() == crate.to_json().replace(b'"aliases":[]', b'"aliases":null').replace(b',"extras":{}', b',"extras":null')
    assert protobuf.marshal(back) == message


def test_absent_lists_maps_and_bytes_read_back_as_structs_hold_them(api):
    """An absent omitempty list, map or []byte is empty in a struct, never None, and comes
    back so; one Go always writes comes back nil, as Go's unmarshaler gives it; list and map
    items of value types are never None."""
    structs = api.structs
    empty = structs.Crate()
    assert protobuf.marshal(empty) == protobuf.marshal(api.models.Crate.from_json(empty.to_json()))
    back = protobuf.unmarshal(structs.Crate, protobuf.marshal(empty))
    assert back == empty
    spec = back.spec
    assert (spec.tags, spec.notes, spec.items, spec.payload, spec.labels, spec.slots_by_zone, spec.sizes) == ([], {}, [], b"", [], {}, [])
    assert (spec.aliases, spec.extras, spec.blob, spec.spare, spec.max_port, spec.limit) == (None, None, None, None, None, None)
    assert (spec.weight, spec.port, spec.every, spec.due) == (Quantity("0"), IntOrString(0), Duration.parse("0s"), None)
    assert back.to_json() == empty.to_json()
    # set empty explicitly: the same struct (Go writes nil and empty alike), so the same bytes
    explicit = structs.Crate(spec=structs.CrateSpec(tags=[], payload=b"", labels=[], aliases=[], blob=b""))
    assert protobuf.unmarshal(structs.Crate, protobuf.marshal(explicit)).spec.blob == b""
    assert protobuf.marshal(explicit) == protobuf.marshal(api.models.Crate.from_json(explicit.to_json()))
    # a nil item has no protobuf form (Go's marshaler cannot write one either)
    with pytest.raises(ValueError, match="spares holds a nil item"):
        protobuf.marshal(structs.Crate(spec=structs.CrateSpec(spares=[structs.Item(), None])))


def test_the_envelope_carries_structs(api):
    structs = api.structs
    crate = structs.Crate.from_json(json.dumps(FULL).encode())
    body = protobuf.encode(crate)
    envelope = protobuf.decode_envelope(body)
    assert (envelope.api_version, envelope.kind) == ("depot.example.com/v1", "Crate")
    back = protobuf.decode(body, structs.Crate)
    assert type(back) is structs.Crate and semantic_equal(back, crate)
    named = protobuf.decode(protobuf.encode_envelope("depot.example.com/v2", "Crate", envelope.raw), structs.Crate)
    assert (named.api_version, named.kind) == ("depot.example.com/v2", "Crate")
    listed = structs.CrateList(items=[crate, structs.Crate()])
    again = protobuf.decode(protobuf.encode(listed), structs.CrateList)
    assert len(again.items) == 2 and semantic_equal(again.items[0], crate) and again.items[1] == structs.Crate()


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_drawn_struct_round_trips_through_protobuf(api, data):
    structs, models = api.structs, api.models
    kind = data.draw(st.sampled_from(["Crate", "CrateList"]))
    obj = data.draw(getattr(structs.strategies, strategy_name(kind))())
    try:
        message = protobuf.marshal(obj)
    except ValueError as err:  # a None drawn into `spares`, which Go cannot write either
        assert "spares holds a nil item" in str(err)
        return
    back = protobuf.unmarshal(type(obj), message)
    assert semantic_equal(back, obj), (back, obj)
    assert protobuf.marshal(back) == message
    enveloped = protobuf.decode(protobuf.encode(obj), type(obj))
    assert semantic_equal(enveloped, obj)
    # a pydantic model of the same JSON writes the same message
    written = obj.to_json()
    assert protobuf.marshal(getattr(models, kind).from_json(written)) == protobuf.marshal(type(obj).from_json(written))


# -- the typed client ------------------------------------------------------------------------


@pytest.fixture
def crates(api):
    structs, cluster = api.structs, api.cluster
    client = structs.client.Client(cluster.transport())
    yield client.crates("default")
    client.transport.close()


_names = iter(range(1_000_000))


def unique(prefix: str) -> str:
    return f"{prefix}-{next(_names)}"


def crate(structs, name: str, size: int = 1, **labels: str):
    from kgen.runtime.apimachinery_structs.meta.v1.models import ObjectMeta

    return structs.Crate(metadata=ObjectMeta(name=name, labels=labels), spec=structs.CrateSpec(owner="me", size=size))


def test_create_get_update_status_list_and_delete(api, crates):
    structs = api.structs
    name = unique("crud")
    created = crates.create(crate(structs, name, 2))
    assert type(created) is structs.Crate and created.metadata.uid and created.metadata.generation == 1
    got = crates.get(name)
    assert got == created and got.spec.tags == [] and got.spec.weight == Quantity("0")
    with pytest.raises(AlreadyExists):
        crates.create(crate(structs, name))
    got.spec.items.append(structs.Item(name="bolt", count=3))
    got.spec.weight = Quantity("2.5")
    updated = crates.update(got)
    assert updated.metadata.generation == 2 and updated.spec.items == [structs.Item(name="bolt", count=3)]
    with pytest.raises(Conflict):
        crates.update(got)  # its resourceVersion is stale
    updated.status.phase = "Sealed"
    assert crates.update_status(updated).status.phase == "Sealed"
    listed = crates.list()
    assert type(listed) is structs.CrateList and name in [c.metadata.name for c in listed.items or []]
    assert crates.patch(name, {"spec": {"size": 5}}).spec.size == 5
    assert crates.delete(name) is None  # a Crate is a custom resource: a Status Success answers its delete
    with pytest.raises(NotFound):
        crates.get(name)


def test_watch_yields_structs(api, crates):
    structs = api.structs
    tag = unique("watch")
    start = crates.list().metadata.resource_version
    seen = []
    done = threading.Event()

    def watch() -> None:
        for event in crates.watch(label_selector=f"batch={tag}", resource_version=start):
            seen.append((event.type, type(event.object), event.object.spec.size))
            if event.type == DELETED:
                done.set()
                return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    crates.create(crate(structs, f"{tag}-a", 1, batch=tag))
    crates.patch(f"{tag}-a", {"spec": {"size": 9}})
    crates.delete(f"{tag}-a")
    assert done.wait(20), seen
    assert seen == [(ADDED, structs.Crate, 1), (MODIFIED, structs.Crate, 9), (DELETED, structs.Crate, 9)]


def test_apply_from_a_struct_sends_only_its_fields_that_are_not_zero(api, crates):
    structs, cluster = api.structs, api.cluster
    name = unique("apply")
    desired = crate(structs, name, 2)
    desired.spec.items = [structs.Item(name="bolt")]
    desired.spec.every = Duration.parse("1m")
    body = apply_configuration(desired)
    assert body == {
        "apiVersion": "depot.example.com/v1", "kind": "Crate", "metadata": {"name": name},
        "spec": {"owner": "me", "size": 2, "items": [{"name": "bolt"}], "every": "1m0s"},
    }  # fmt: skip
    applied = crates.apply(desired, field_manager="first")
    sent = next(a for a in reversed(cluster.actions) if a.verb == "patch" and a.name == name)
    assert json.loads(sent.body) == body
    assert applied.spec.size == 2 and applied.spec.items == [structs.Item(name="bolt")]
    owned = next(m for m in applied.metadata.managed_fields if m.manager == "first")
    assert set(owned.fields_v1.raw["f:spec"]) == {"f:owner", "f:size", "f:items", "f:every"}
    # a zero value is no claim: another manager takes `size`, a conflict only where both claim it
    other = structs.Crate(metadata=desired.metadata, spec=structs.CrateSpec(size=3))
    with pytest.raises(Conflict):
        crates.apply(other, field_manager="second")
    forced = crates.apply(other, field_manager="second", force=True)
    assert (forced.spec.size, forced.spec.owner, forced.spec.every) == (3, "me", Duration.parse("1m"))


def test_async_client_and_informer_over_structs(api):
    structs, cluster = api.structs, api.cluster
    tag = unique("async")

    async def run() -> None:
        client = structs.client.AsyncClient(cluster.async_transport())
        crates = client.crates("default")
        created = await crates.create(crate(structs, f"{tag}-a", 4, batch=tag))
        assert type(created) is structs.Crate and (await crates.get(f"{tag}-a")).spec.size == 4
        assert [c.metadata.name async for c in crates.iter(label_selector=f"batch={tag}")] == [f"{tag}-a"]
        await client.transport.aclose()

    asyncio.run(run())
    crates = structs.client.Client(cluster.transport()).crates("default")
    informer = Informer(crates, label_selector=f"batch={tag}", retry_delay=0.05, watch_timeout=1)
    informer.start()
    try:
        assert informer.wait_for_sync(20)
        cached = informer.lister.get(f"{tag}-a", "default")
        assert type(cached) is structs.Crate and cached.spec.size == 4
    finally:
        informer.stop()
        crates.transport.close()
