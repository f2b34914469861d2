"""Models on real Kubernetes objects, side by side with what a user would otherwise pick.

    python -m bench.models --k8s-api DIR [--rounds N]

DIR is a checkout of k8s.io/api (kubernetes/api at a release tag). kgen generates models
for its apps/v1 and core/v1 packages into a temporary directory (the templates of this
tree, so the numbers are the code as it stands). The objects are fixtures of our own
making, written as an API server writes them (bench/fixtures): a Deployment (13 KB,
managedFields, probes, env, volumes, quantities, status) and a PodList of 500 pods made
from one pod, each with its own names, uids, addresses, times and restart counts.

Each is decoded from the JSON bytes an API server sends by

- kgen: `Deployment.from_json` (strict, Go's rules);
- kubernetes: the official client's `ApiClient().deserialize` into `V1Deployment` (what
  its generated API methods call on a response body);
- lightkube: `lightkube.core.decoders.decode_object` (msgspec structs, what its client calls);
- plain pydantic: pydantic v2 models of the same types, made here from kgen's classes
  (the same fields, JSON names and defaults; `int`, `str`, `datetime` and dicts where kgen
  has its own value types; no validators of kgen's), decoded with `model_validate_json`.

Then encoding to Python data and to JSON, deep copies, and the memory a decoded object
holds (tracemalloc). The encode-to-JSON target is `orjson.dumps` of the equivalent dict.
Times are per call, the best of several rounds of many calls, the rounds of the libraries
compared on a row taken in turn (so that a busy spell of a shared machine slows them all,
not whichever ran then); the garbage collector runs as it would in an operator. The
objects encoded and copied are each library's second decode, made in turn
(`decoded_alternately`), and the msgspec backend's part runs in an interpreter of its
own: where an object lands in a heap that other objects left holes in changes its encode
time by up to 20%, and it should not be the order of the rows.
"""

from __future__ import annotations

import argparse
import copy
import gc
import importlib
import inspect
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
import typing
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PACKAGES = ("apps/v1", "core/v1")
PODS = 500


# -- the objects -------------------------------------------------------------------------


def deployment_json() -> bytes:
    """The Deployment fixture as an API server sends it (compact JSON)."""
    return _compact(json.loads((FIXTURES / "deployment.json").read_text()))


def pod_list_json(count: int = PODS) -> bytes:
    """A PodList of `count` pods of one ReplicaSet, as an API server sends it."""
    pod = json.loads((FIXTURES / "pod.json").read_text())
    items = [_pod_variant(pod, index) for index in range(count)]
    return _compact(
        {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "48299120"}, "items": items}
    )


def _pod_variant(pod: dict[str, Any], index: int) -> dict[str, Any]:
    """The pod as the `index`th replica: its own name, uid, node, addresses, times, restarts."""
    text = json.dumps(pod)
    suffix = "".join("bcdfghjklmnpqrstvwxz2456789"[(index * 7919 + i * 104729) % 27] for i in range(5))
    node = index % 24
    minute, second = divmod(9 + index * 3 % 3000, 60)
    replacements = {
        "checkout-7d9f8c6b5d-x4k2p": f"checkout-7d9f8c6b5d-{suffix}",
        "0f6c2b7e-5d1a-4c3e-9b8f-7a6e5d4c3b2a": f"0f6c2b7e-5d1a-4c3e-9b8f-{index:012x}",
        "ip-10-0-3-21.eu-west-1.compute.internal": f"ip-10-0-{node // 8}-{node * 7 % 250 + 2}.eu-west-1.compute.internal",
        "10.0.3.21": f"10.0.{node // 8}.{node * 7 % 250 + 2}",
        "10.42.3.17": f"10.42.{node}.{index % 250 + 2}",
        "48211904": str(48211904 + index * 13),
        "2025-09-02T13:40:09Z": f"2025-09-02T{13 + minute // 60:02d}:{minute % 60:02d}:{second:02d}Z",
    }
    for old, new in replacements.items():
        text = text.replace(old, new)
    variant = json.loads(text)
    for status in variant["status"]["containerStatuses"]:
        status["restartCount"] = (index * 31 + len(status["name"])) % 4
        status["containerID"] = status["containerID"][:-6] + f"{index:06x}"
    return variant


def _compact(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


# -- the models --------------------------------------------------------------------------


def generate_models(k8s_api: Path, work: Path) -> Path:
    """Generate kgen models (and deep copies) of apps/v1 and core/v1 into `work`; return the
    directory to put on sys.path (the package is `k8sapi`)."""
    source = work / "input"
    for package in PACKAGES:
        shutil.copytree(k8s_api / package, source / package, ignore=shutil.ignore_patterns("*_test.go", "testdata"))
    shutil.copy(k8s_api / "go.mod", source / "go.mod")
    output = work / "out"
    command = [sys.executable, "-m", "kgen.cli", "generate", "--input", str(source), "--module", "k8s.io/api"]
    command += ["--output", str(output / "k8sapi"), "--config", "/dev/null", "--only", "models,deepcopy", "-q"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=work)
    if result.returncode != 0:
        raise SystemExit(f"kgen generate exited {result.returncode}:\n{result.stderr[-3000:]}")
    return output


def plain_pydantic_models(*roots: type) -> dict[type, type]:
    """Plain pydantic v2 models of the same types as kgen's classes reachable from `roots`:
    the same fields, JSON names (aliases) and defaults, with `int`, `str`, `datetime` and
    `Any` where kgen has its own value types, and none of kgen's validators. What a user
    writes (or datamodel-code-generator writes) for these types."""
    import pydantic

    from kgen.runtime.intstr import IntOrString
    from kgen.runtime.model import Model
    from kgen.runtime.quantity import Quantity
    from kgen.runtime.rawjson import _RawJSON
    from kgen.runtime.timeutil import Duration, Time

    class PlainBase(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(populate_by_name=True, extra="ignore")

    made: dict[type, type] = {}
    namespace: dict[str, Any] = {}

    def plain_type(annotation: Any) -> Any:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            return plain_type(typing.get_args(annotation)[0])
        if origin in (typing.Union, types.UnionType):
            return typing.Union[tuple(plain_type(a) for a in typing.get_args(annotation))]  # noqa: UP007
        if origin is list:
            return list[plain_type(typing.get_args(annotation)[0])]  # type: ignore[misc]
        if origin is dict:
            return dict[str, plain_type(typing.get_args(annotation)[1])]  # type: ignore[misc]
        if isinstance(annotation, type):
            if issubclass(annotation, Model):
                return plain_class(annotation)
            if issubclass(annotation, Quantity) or issubclass(annotation, Duration):
                return str
            if issubclass(annotation, IntOrString):
                return int | str
            if issubclass(annotation, Time):
                return datetime
            if issubclass(annotation, _RawJSON):
                return Any
            if annotation is bytes:
                return str
        return annotation

    def plain_class(cls: type) -> Any:
        if cls in made:
            return made[cls]
        name = f"Plain_{cls.__module__.replace('.', '_')}_{cls.__name__}"
        if name in namespace and namespace[name] is None:
            return name  # a cycle: a forward reference, resolved by the rebuild below
        namespace[name] = None
        cls.model_rebuild()  # type: ignore[attr-defined]  # resolves the annotations
        fields: dict[str, Any] = {}
        for field_name, info in cls.model_fields.items():  # type: ignore[attr-defined]
            alias = info.validation_alias if isinstance(info.validation_alias, str) else None
            if info.default_factory is not None:
                factory = plain_type(info.default_factory)
                spec = pydantic.Field(default_factory=factory, alias=alias)
            else:
                spec = pydantic.Field(default=info.default, alias=alias)
            fields[field_name] = (plain_type(info.annotation), spec)
        made[cls] = namespace[name] = pydantic.create_model(name, __base__=PlainBase, **fields)
        return made[cls]

    for root in roots:
        plain_class(root)
    for plain in made.values():
        plain.model_rebuild(_types_namespace=namespace)
    return made


# -- timing ------------------------------------------------------------------------------


def per_call_side_by_side(
    functions: list[Callable[[], Any]], rounds: int = 5, min_round: float = 0.1
) -> list[float]:
    """Seconds per call of each function: the best of `rounds` rounds of enough calls to last
    `min_round`, the rounds of the functions taken in turn. On a shared machine the speed changes from one second to the
    next; measured in turn, every contender sees the same slow and fast spells, so their
    ratios hold where times measured one after the other would not."""
    calls = [_calls_per_round(function, min_round) for function in functions]
    best = [float("inf")] * len(functions)
    for _ in range(rounds):
        for index, (function, count) in enumerate(zip(functions, calls, strict=True)):
            start = time.perf_counter()
            for _ in range(count):
                function()
            best[index] = min(best[index], (time.perf_counter() - start) / count)
    return best


def _calls_per_round(function: Callable[[], Any], min_round: float) -> int:
    """How many calls of `function` last `min_round` seconds."""
    function()
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            function()
        elapsed = time.perf_counter() - start
        if elapsed >= min_round:
            return calls
        # Enough calls to last min_round (with a margin), at least twice as many as before.
        calls = max(calls * 2, int(min_round / max(elapsed, 1e-9) * calls * 1.2))


def held_bytes(decode: Callable[[], Any], copies: int = 20) -> float:
    """Bytes each decoded object holds: what `copies` live decoded objects allocate, over copies."""
    decode()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [decode() for _ in range(copies)]
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del kept
    return (after - before) / copies


# -- the report --------------------------------------------------------------------------


def _official_deserializer() -> Callable[[bytes, str], Any]:
    """The official client's `ApiClient().deserialize` on a response body, whichever of its
    signatures this version has (a text and a content type, or a response object)."""
    import kubernetes.client

    api = kubernetes.client.ApiClient()
    parameters = inspect.signature(api.deserialize).parameters
    if "response_text" in parameters:
        return lambda body, kind: api.deserialize(body.decode(), kind, "application/json")

    class Response:
        def __init__(self, body: bytes):
            self.data = body.decode()

    return lambda body, kind: api.deserialize(Response(body), kind)


def _format(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} µs"


def run(k8s_api: Path, rounds: int = 5) -> list[str]:
    """Run the benchmarks; return report lines."""
    import kubernetes.client
    import lightkube.models.apps_v1 as light_apps
    import lightkube.models.core_v1 as light_core
    import orjson
    from lightkube.core import decoders as light_decoders

    work = Path(tempfile.mkdtemp(prefix="kgen-bench-models-"))
    try:
        sys.path.insert(0, str(generate_models(k8s_api, work)))
        apps = importlib.import_module("k8sapi.apps.v1")
        core = importlib.import_module("k8sapi.core.v1")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    official = _official_deserializer()
    api_client = kubernetes.client.ApiClient()
    plain = plain_pydantic_models(apps.Deployment, core.PodList)

    lines = [f"Models: k8s.io/api {k8s_api.name} apps/v1 + core/v1; per call, best of {rounds} rounds"]
    header = f"  {'':<34}{'kgen':>11}{'kubernetes':>13}{'lightkube':>12}{'pydantic':>11}{'orjson':>11}"
    objects = [
        ("Deployment", deployment_json(), apps.Deployment, "V1Deployment", light_apps.Deployment),
        (f"PodList of {PODS}", pod_list_json(), core.PodList, "V1PodList", light_core.PodList),
    ]
    ratios: list[str] = []
    for label, body, ours, official_kind, light in objects:
        lines.append(f"{label} ({len(body) / 1024:.1f} KiB of JSON)")
        lines.append(header)
        plain_cls = plain[ours]
        decoded, theirs, light_obj, plain_obj, as_dict = decoded_alternately(
            lambda: ours.from_json(body),
            lambda: official(body, official_kind),
            lambda: light_decoders.decode_object(body, light),
            lambda: plain_cls.model_validate_json(body),
            lambda: json.loads(body),
        )
        assert decoded.to_json() == body, f"kgen does not write the {label} back as it was read"

        def row(name: str, kgen: float | None, *others: float | None) -> None:
            lines.append(f"  {name:<34}" + "".join(f"{_format(t):>{w}}" for t, w in zip((kgen, *others), (11, 13, 12, 11, 11))))

        contenders = {
            "decode": (
                lambda: ours.from_json(body),
                lambda: official(body, official_kind),
                lambda: light_decoders.decode_object(body, light),
                lambda: plain_cls.model_validate_json(body),
                None,
            ),
            "encode to Python data": (
                decoded.to_dict,
                lambda: api_client.sanitize_for_serialization(theirs),
                light_obj.to_dict,
                lambda: plain_obj.model_dump(by_alias=True, exclude_unset=True),
                None,
            ),
            "encode to JSON": (
                decoded.to_json,
                lambda: json.dumps(api_client.sanitize_for_serialization(theirs)),
                lambda: light_decoders.msgspec.json.encode(light_obj),
                lambda: plain_obj.model_dump_json(by_alias=True, exclude_unset=True),
                lambda: orjson.dumps(as_dict),
            ),
            "deep copy": (
                decoded.deep_copy,
                lambda: copy.deepcopy(theirs),
                lambda: light.from_dict(light_obj.to_dict()),  # lightkube has no deep copy of its own
                lambda: plain_obj.model_copy(deep=True),
                None,
            ),
        }
        timed = {name: _side_by_side(functions, rounds) for name, functions in contenders.items()}
        for name, values in timed.items():
            row(name, *values)
        memory = (
            held_bytes(lambda: ours.from_json(body)),
            held_bytes(lambda: official(body, official_kind)),
            held_bytes(lambda: light_decoders.decode_object(body, light)),
            held_bytes(lambda: plain_cls.model_validate_json(body)),
            held_bytes(lambda: json.loads(body)),
        )
        lines.append(
            f"  {'memory per decoded object':<34}"
            + "".join(f"{m / 1024:>{w - 4}.0f} KiB" for m, w in zip(memory, (11, 13, 12, 11, 11)))
        )
        decode, encode = timed["decode"], timed["encode to JSON"]
        assert decode[0] and decode[1] and decode[3] and encode[0] and encode[4]
        ratios.append(
            f"  {label}: decode {decode[1] / decode[0]:.1f}x faster than kubernetes (target >= 4x), "
            f"{decode[3] / decode[0]:.2f}x plain pydantic (target >= 1); "
            f"encode to JSON {encode[0] / encode[4]:.2f}x orjson.dumps (target <= 2x)"
        )
    lines.append("  (memory: orjson column = json.loads of the body)")
    lines.append("Targets")
    lines.extend(ratios)
    lines.extend(_section_in_own_process("msgspec", k8s_api, rounds))
    return lines


def _side_by_side(functions: tuple[Callable[[], Any] | None, ...], rounds: int) -> tuple[float | None, ...]:
    """`per_call_side_by_side` of the functions given; None where a column has none."""
    given = [function for function in functions if function is not None]
    times = iter(per_call_side_by_side(given, rounds))
    return tuple(None if function is None else next(times) for function in functions)


def decoded_alternately(*decoders: Callable[[], Any]) -> list[Any]:
    """One object from each decoder, to encode and copy: each decodes twice, in turn, and the
    second objects are kept. The first decodes fill the holes earlier work left in the heap;
    an object decoded into them is scattered, and encodes up to 20% slower (measured on the
    PodList), so whichever library decoded first would be slowed."""
    first = [decode() for decode in decoders]
    kept = [decode() for decode in decoders]
    del first
    return kept


def _section_in_own_process(section: str, k8s_api: Path, rounds: int) -> list[str]:
    """Run one section of the report in a fresh interpreter: the section before it frees
    hundreds of megabytes of objects, and what is decoded into those holes is slowed."""
    command = [sys.executable, "-m", "bench.models", "--k8s-api", str(k8s_api), "--rounds", str(rounds)]
    result = subprocess.run([*command, "--section", section], capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    if result.returncode != 0:
        raise SystemExit(f"bench.models --section {section} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result.stdout.rstrip("\n").splitlines()


def msgspec_models(k8s_api: Path, rounds: int = 5) -> list[str]:
    """kgen's msgspec models (`--models msgspec`) of the same packages beside lightkube's
    msgspec structs, on the same objects: decode, encode, deep copy, memory."""
    import lightkube.models.apps_v1 as light_apps
    import lightkube.models.core_v1 as light_core
    import msgspec
    from lightkube.core import decoders as light_decoders

    work = Path(tempfile.mkdtemp(prefix="kgen-bench-structs-"))
    try:
        source = work / "input"
        for package in PACKAGES:
            shutil.copytree(k8s_api / package, source / package, ignore=shutil.ignore_patterns("*_test.go", "testdata"))
        shutil.copy(k8s_api / "go.mod", source / "go.mod")
        command = [sys.executable, "-m", "kgen.cli", "generate", "--input", str(source), "--module", "k8s.io/api"]
        command += ["--output", str(work / "out" / "k8sstructs"), "--config", "/dev/null", "--models", "msgspec"]
        command += ["--only", "models,deepcopy", "-q"]
        result = subprocess.run(command, capture_output=True, text=True, cwd=work)
        if result.returncode != 0:
            raise SystemExit(f"kgen generate --models msgspec exited {result.returncode}:\n{result.stderr[-3000:]}")
        sys.path.insert(0, str(work / "out"))
        apps = importlib.import_module("k8sstructs.apps.v1")
        core = importlib.import_module("k8sstructs.core.v1")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = ["Models, msgspec backend (kgen --models msgspec) beside lightkube (msgspec structs); ratio = kgen / lightkube"]
    lines.append(f"  {'':<34}{'kgen':>11}{'lightkube':>12}{'ratio':>8}")
    targets: list[str] = []
    objects = [
        ("Deployment", deployment_json(), apps.Deployment, light_apps.Deployment),
        (f"PodList of {PODS}", pod_list_json(), core.PodList, light_core.PodList),
    ]
    for label, body, ours, light in objects:
        decoded, light_obj = decoded_alternately(lambda: ours.from_json(body), lambda: light_decoders.decode_object(body, light))
        assert decoded.to_json() == body, f"kgen's msgspec models do not write the {label} back as it was read"
        timed = {
            "decode": (lambda: ours.from_json(body), lambda: light_decoders.decode_object(body, light)),
            "encode to Python data": (decoded.to_dict, light_obj.to_dict),
            "encode to JSON": (decoded.to_json, lambda: msgspec.json.encode(light_obj)),
            "deep copy": (decoded.deep_copy, lambda: light.from_dict(light_obj.to_dict())),
        }
        lines.append(f"{label} ({len(body) / 1024:.1f} KiB of JSON)")
        ratio: dict[str, float] = {}
        for name, (kgen, theirs) in timed.items():
            ours_time, their_time = per_call_side_by_side([kgen, theirs], rounds)
            ratio[name] = ours_time / their_time
            lines.append(f"  {name:<34}{_format(ours_time):>11}{_format(their_time):>12}{ratio[name]:>7.2f}x")
        memory = (held_bytes(lambda: ours.from_json(body)), held_bytes(lambda: light_decoders.decode_object(body, light)))
        ratio["memory"] = memory[0] / memory[1]
        lines.append(f"  {'memory per decoded object':<34}{memory[0] / 1024:>7.0f} KiB{memory[1] / 1024:>8.0f} KiB{ratio['memory']:>7.2f}x")
        targets.append(
            f"  {label}: decode {ratio['decode']:.2f}x, encode to JSON {ratio['encode to JSON']:.2f}x lightkube "
            f"(target <= 1.25x); deep copy {ratio['deep copy']:.2f}x (target < 1); memory {ratio['memory']:.2f}x (target <= 1)"
        )
    lines.append("Targets (msgspec backend)")
    lines.extend(targets)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.models")
    parser.add_argument("--k8s-api", type=Path, required=True, help="a checkout of k8s.io/api (kubernetes/api)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--section", choices=("all", "msgspec"), default="all", help="the whole report, or the msgspec backend's part"
    )
    args = parser.parse_args(argv)
    report = run(args.k8s_api, args.rounds) if args.section == "all" else msgspec_models(args.k8s_api, args.rounds)
    print("\n".join(report), flush=True)


if __name__ == "__main__":
    main()
