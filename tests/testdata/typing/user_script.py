"""Code a user writes against generated models: it must pass `mypy --strict` with no plugin
(tests/test_typing.py checks it) and run (the same test runs it).

Models are built by their Python names, fields read back with their declared types, and
the decoders and copies keep the class. `_mistakes` is never called: each of its lines is
an error mypy must report, which `warn_unused_ignores` (part of --strict) turns into a
failure should mypy ever accept it.
"""

from __future__ import annotations

from typing import assert_type

from generated.example.v1 import (
    Frobber,
    FrobberClass,
    FrobberList,
    FrobberMode,
    FrobberPort,
    FrobberSpec,
    Protocol,
)
from generated.example.v1.client import AsyncClient, Client
from generated.example.v1.validation import validate_Frobber
from kgen.runtime.apimachinery.meta.v1 import ObjectMeta
from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.scheme import SCHEME
from kgen.runtime.semantic import semantic_equal
from kgen.runtime.validation import FieldError


def build() -> Frobber:
    """A Frobber built by Python names, as the README shows."""
    return Frobber(
        metadata=ObjectMeta(name="a", namespace="default", labels={"app": "demo"}),
        spec=FrobberSpec(
            replicas=2,
            mode=FrobberMode.VIGOROUS,
            ports=[
                FrobberPort(name="x", port=80, target_port=IntOrString("http")),
                FrobberPort(name="y", port=81, protocol=Protocol.UDP),
            ],
            height_in_inches=12,
            resources={"cpu": Quantity("500m")},
        ),
    )


def read(frobber: Frobber) -> None:
    """Fields come back with their declared types."""
    assert_type(frobber.api_version, str)
    assert_type(frobber.metadata, ObjectMeta)
    assert_type(frobber.metadata.name, str)
    assert_type(frobber.metadata.labels, dict[str, str] | None)
    assert_type(frobber.spec, FrobberSpec)
    assert_type(frobber.spec.replicas, int | None)
    assert_type(frobber.spec.mode, str)  # an open-ended enum holds any string
    assert_type(frobber.spec.ports, list[FrobberPort] | None)
    assert_type(frobber.spec.height_in_inches, int | None)
    assert frobber.api_version == "example.kgen.dev/v1" and frobber.kind == "Frobber"
    assert frobber.spec.mode == FrobberMode.VIGOROUS == "Vigorous"
    assert "Gentle" in FrobberMode.values()
    ports = frobber.spec.ports or []
    assert [port.name for port in ports] == ["x", "y"]
    assert ports[1].protocol == Protocol.UDP
    target = ports[0].target_port
    assert target is not None and target.str_val == "http"


def round_trip(frobber: Frobber) -> None:
    """JSON and YAML in and out, copies and validation keep the class."""
    data = frobber.to_json()
    assert_type(data, bytes)
    assert b'"heightInInches":12' in data and b'"apiVersion":"example.kgen.dev/v1"' in data
    decoded = Frobber.from_json(data)
    assert_type(decoded, Frobber)
    assert decoded.to_json() == data and semantic_equal(decoded, frobber)
    assert_type(Frobber.from_json(b"{}"), Frobber)
    assert_type(Frobber.from_yaml(frobber.to_yaml()), Frobber)
    assert_type(Frobber.from_dict(frobber.to_dict()), Frobber)
    copy = frobber.deep_copy()
    assert_type(copy, Frobber)
    copy.spec.replicas = 3
    copy.spec.mode = "Frantic"  # any string: the enum is open-ended
    assert frobber.spec.replicas == 2 and copy.spec.replicas == 3
    errors = validate_Frobber(frobber)
    assert_type(errors, list[FieldError])
    assert errors == [], errors
    assert SCHEME.validate(frobber) == []
    empty = FrobberList.from_json(b'{"items": []}')
    assert_type(empty.items, list[Frobber] | None)


def _use_clients(client: Client, aclient: AsyncClient) -> None:
    """Never called (it needs a server): what the typed clients give a type checker."""
    frobbers = client.frobbers("default")
    assert_type(frobbers.get("a"), Frobber)
    assert_type(frobbers.list(label_selector="app=web"), FrobberList)
    for item in frobbers.iter(limit=100):
        assert_type(item, Frobber)
    for event in frobbers.watch(resource_version="1"):
        assert_type(event.object, Frobber)
    assert_type(frobbers.apply({"metadata": {"name": "a"}}, field_manager="me", force=True), Frobber)
    assert_type(frobbers.delete("a", propagation_policy="Foreground"), Frobber | None)
    assert_type(client.frobberclasses().get("gold"), FrobberClass)
    frobbers.patch("a", {"spec": {"replicas": 2}}, type="yaml")  # type: ignore[arg-type]
    client.frobberclasses("default")  # type: ignore[call-arg]

    async def run() -> None:
        assert_type(await aclient.frobbers().get("a"), Frobber)
        async for item in aclient.frobbers().iter():
            assert_type(item, Frobber)


def _mistakes(frobber: Frobber) -> None:
    """Never called: what mypy must refuse (an unused ignore fails the check)."""
    Frobber(apiVersion="v1")  # type: ignore[call-arg]
    FrobberSpec(replicas="2")  # type: ignore[arg-type]
    FrobberPort(nmae="x")  # type: ignore[call-arg]
    frobber.spec.replicas = "3"  # type: ignore[assignment]
    frobber.spec.mode = 1  # type: ignore[assignment]
    frobber.spec.colour  # type: ignore[attr-defined]
    assert_type(Frobber.from_json(b"{}"), FrobberSpec)  # type: ignore[assert-type]


def main() -> None:
    frobber = build()
    read(frobber)
    round_trip(frobber)
    print("ok")


if __name__ == "__main__":
    main()
