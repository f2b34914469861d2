"""Generated deep copies, JSON and protobuf against what a pydantic user would otherwise call
(for protobuf, which no other Python client speaks: the JSON routes it replaces).

Objects: the largest object of the example API (a fully populated v1 Frobber) and a
FrobberList of 500 of them. Times are the best of several repeats, per operation.
"""

from __future__ import annotations

import copy
import gc
import json
import time
import timeit
from pathlib import Path

from kgen.runtime.intstr import IntOrString
from kgen.runtime.quantity import Quantity
from kgen.runtime.rawjson import RawExtension
from kgen.runtime.timeutil import Time


def largest_frobber(index: int = 0):
    """A v1 Frobber with every field set and realistic list and map sizes."""
    from generated.example.v1 import models as v1
    from kgen.runtime.apimachinery.meta.v1 import models as meta

    stamp = Time.from_datetime(Time(2024, 5, 1, 12, 0, 0))
    return v1.Frobber(
        metadata=meta.ObjectMeta(
            name=f"frobber-{index}",
            namespace="production",
            uid=f"6f1c0c1e-0000-4000-8000-{index:012d}",
            resource_version=str(100000 + index),
            generation=7,
            creation_timestamp=stamp,
            labels={f"app.example.com/label-{i}": f"value-{i}" for i in range(12)},
            annotations={f"note.example.com/{i}": "x" * 40 for i in range(8)},
            owner_references=[
                meta.OwnerReference(api_version="apps/v1", kind="Deployment", name=f"owner-{i}", uid=f"uid-{i}", controller=i == 0)
                for i in range(2)
            ],
            finalizers=["example.kgen.dev/cleanup", "example.kgen.dev/audit"],
            managed_fields=[
                meta.ManagedFieldsEntry(
                    manager=f"manager-{i}", operation="Apply", api_version="example.kgen.dev/v1", time=stamp,
                    fields_type="FieldsV1", fields_v1={"f:spec": {"f:replicas": {}, "f:ports": {"k:{\"name\":\"p0\"}": {}}}},
                )  # fmt: skip
                for i in range(3)
            ],
        ),
        spec=v1.FrobberSpec(
            description="A frobber with every field set.",
            priority=10,
            params=[f"--param-{i}=value" for i in range(16)],
            height_in_inches=70,
            width=30,
            replicas=5,
            mode=v1.FrobberMode.VIGOROUS,
            turbo=True,
            ports=[
                v1.FrobberPort(name=f"p{i}", port=8000 + i, protocol="TCP", target_port=IntOrString(f"web-{i}"))
                for i in range(24)
            ],
            resources={"cpu": Quantity("1500m"), "memory": Quantity("2Gi"), "example.com/widgets": Quantity("10")},
            selector=meta.LabelSelector(
                match_labels={"app": "frobber", "tier": "backend"},
                match_expressions=[
                    meta.LabelSelectorRequirement(key=f"k{i}", operator="In", values=["a", "b", "c"]) for i in range(4)
                ],
            ),
            source=v1.FrobberSource(type="Git", git=v1.GitSource(url="https://example.com/repo.git", revision="main")),
            max_unavailable=IntOrString("25%"),
            interval="1m30s",
            extra_args={f"kind-{i}": [f"--flag-{j}" for j in range(4)] for i in range(6)},
            config=RawExtension({"nested": {"list": list(range(10)), "map": {"a": 1, "b": [True, None]}}}),
            checksum=b"\x00\x01" * 16,
        ),
        status=v1.FrobberStatus(
            observed_generation=7,
            phase="Running",
            conditions=[
                meta.Condition(type=f"Condition{i}", status="True", last_transition_time=stamp, reason="AllGood", message="m" * 60)
                for i in range(6)
            ],
            last_frobbed=stamp,
            ready_replicas=5,
        ),
    )


def _best(statement, number: int) -> float:
    return min(timeit.repeat(statement, number=number, repeat=7)) / number


def _best_fresh(make, function, number: int) -> float:
    """Per object, `function` applied to objects built for the purpose and never copied
    before (a kgen copy shares the source's fields set from then on, so this is the price
    of a first copy). Timed as timeit times: best of 7, garbage collection off."""
    times = []
    for _ in range(7):
        objects = [make() for _ in range(number)]
        gc.disable()
        try:
            start = time.perf_counter()
            for obj in objects:
                function(obj)
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
        del objects
    return min(times) / number


def _row(name: str, ours: float, theirs: dict[str, float]) -> list[str]:
    return [
        f"{name:<42} kgen {ours * 1e6:>10.1f} us   "
        + "   ".join(f"{label} {value * 1e6:>10.1f} us ({value / ours:>5.1f}x)" for label, value in theirs.items())
    ]


def run() -> list[str]:
    """Run the runtime benchmarks; return report lines."""
    from generated.example.v1 import models as v1
    from generated.example.v1 import protobuf as _  # noqa: F401 - registers the converters
    from kgen.runtime import protobuf
    from kgen.runtime.semantic import semantic_equal

    def many():
        return v1.FrobberList(items=[largest_frobber(i) for i in range(500)])

    lines = ["Runtime: generated code vs the generic routes (ratio = their time / kgen time; higher is better)"]
    for label, make, number in (("largest Frobber", largest_frobber, 200), ("FrobberList of 500", many, 2)):
        # The generic routes copy objects kgen never copied (their fields sets are pydantic's own).
        obj, theirs = make(), make()
        data = obj.to_json()
        assert obj.deep_copy() == obj and copy.deepcopy(theirs) == obj
        assert type(obj).from_json(data).to_json() == data
        fewer = max(1, number // 10)  # the generic routes are slow
        lines += _row(
            f"deep copy, {label}",
            _best(obj.deep_copy, number),
            {"copy.deepcopy": _best(lambda: copy.deepcopy(theirs), fewer),
             "model_copy(deep=True)": _best(lambda: theirs.model_copy(deep=True), fewer)},
        )  # fmt: skip
        lines += _row(
            f"deep copy (first copy), {label}",
            _best_fresh(make, lambda o: o.deep_copy(), fewer),
            {"copy.deepcopy": _best_fresh(make, copy.deepcopy, fewer),
             "model_copy(deep=True)": _best_fresh(make, lambda o: o.model_copy(deep=True), fewer)},
        )  # fmt: skip
        cls = type(obj)
        lines += _row(
            f"JSON decode, {label}",
            _best(lambda: cls.from_json(data), number),
            {"model_validate(json.loads)": _best(lambda: cls.model_validate(json.loads(data)), number),
             "model_validate_json": _best(lambda: cls.model_validate_json(data), number)},
        )  # fmt: skip
        lines += _row(
            f"JSON encode, {label}",
            _best(obj.to_json, number),
            {"model_dump_json(by_alias)": _best(lambda: obj.model_dump_json(by_alias=True), number)},
        )
        lines.append(f"{'':<42} ({len(data):,} bytes of JSON)")
        body = protobuf.encode(obj)
        assert semantic_equal(protobuf.decode(body), obj)
        lines += _row(
            f"protobuf encode (envelope), {label}",
            _best(lambda: protobuf.encode(obj), number),
            {"kgen to_json": _best(obj.to_json, number),
             "model_dump_json(by_alias)": _best(lambda: obj.model_dump_json(by_alias=True), number)},
        )  # fmt: skip
        lines += _row(
            f"protobuf decode (envelope), {label}",
            _best(lambda: protobuf.decode(body), number),
            {"kgen from_json": _best(lambda: cls.from_json(data), number),
             "model_validate_json": _best(lambda: cls.model_validate_json(data), number)},
        )  # fmt: skip
        lines.append(f"{'':<42} ({len(body):,} bytes of protobuf)")
    lines += _import_rows()
    return lines


def _import_time(statement: str, runs: int = 5) -> float:
    """Best wall time in seconds of a fresh interpreter running `statement`, less the
    interpreter's own start (what a user's program pays to import)."""
    import subprocess
    import sys
    import time

    def once(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parent.parent)
        return time.perf_counter() - start

    bare = min(once("pass") for _ in range(runs))
    return min(once(statement) for _ in range(runs)) - bare


def _import_rows() -> list[str]:
    """Importing the example API's generated package (its models are built on first use),
    beside importing the official client's models."""
    ours = _import_time("import generated.example.v1")
    theirs = {}
    try:
        theirs["kubernetes.client (official client)"] = _import_time("import kubernetes.client")
    except Exception:  # noqa: BLE001 - the official client is a dev dependency
        pass
    lines = _row("import of the generated example package", ours, theirs)
    lines.append(f"{'':<42} (target < 300,000 us; the interpreter's own start excluded)")
    return lines
