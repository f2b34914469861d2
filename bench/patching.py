"""`python -m bench.patching [--sizes 1000,2000,...] [--rounds N]`: the cost of patching a
list of N entries (a list of maps merged by a `name` key, as a pod's containers or a
service's ports are), by each patch type the API server accepts, on kgen's patch runtime.

Each patch changes one entry and adds one. Strategic merge patch is timed bare and with
`$setElementOrder` (what `kubectl apply` sends); a JSON merge patch and server-side apply
must send the whole list, so they are the baseline a user would otherwise pay. Reported:
best of `rounds` wall times per call, and the strategic patch's time relative to the
merge patch's at each size (its growth with N shows whether it stays linear).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from kgen.runtime.patch import apply_merge_patch, apply_strategic_merge_patch
from kgen.runtime.patch.apply import FieldManager
from kgen.runtime.patch.schema import Schema

SIZES = (1000, 2000, 4000, 8000, 16000)

_SCHEMA = Schema(
    {
        "Thing": {
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": {
                    "type": "object",
                    "properties": {
                        "ports": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                                "required": ["name"],
                            },
                            "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["name"],
                            "x-kubernetes-patch-strategy": "merge",
                            "x-kubernetes-patch-merge-key": "name",
                        }
                    },
                },
            },
        }
    }
).type("Thing")


def _thing(ports: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "bench.kgen.dev/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": {"ports": ports}}


def _ports(n: int) -> list[dict[str, Any]]:
    return [{"name": f"port-{i}", "port": 1000 + i} for i in range(n)]


def _best(call: Callable[[], Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def measure(n: int, rounds: int) -> dict[str, float]:
    live = _thing(_ports(n))
    changed = [{"name": f"port-{n // 2}", "port": 1}, {"name": f"port-{n}", "port": 2}]
    smp = json.dumps({"spec": {"ports": changed}}).encode()
    order = [{"name": p["name"]} for p in _ports(n + 1)]
    smp_ordered = json.dumps({"spec": {"$setElementOrder/ports": order, "ports": changed}}).encode()
    whole = _ports(n + 1)
    whole[n // 2]["port"] = 1
    merge = json.dumps({"spec": {"ports": whole}}).encode()
    manager = FieldManager(_SCHEMA, "bench.kgen.dev/v1", "Thing")
    applied_live = manager.apply(None, live, "bench")
    return {
        "strategic": _best(lambda: apply_strategic_merge_patch(live, smp, _SCHEMA), rounds),
        "strategic+order": _best(lambda: apply_strategic_merge_patch(live, smp_ordered, _SCHEMA), rounds),
        "merge": _best(lambda: apply_merge_patch(live, merge), rounds),
        "apply": _best(lambda: manager.apply(applied_live, _thing(whole), "bench"), max(1, rounds // 2)),
    }


def run(sizes: tuple[int, ...] = SIZES, rounds: int = 3) -> list[str]:
    lines = [
        "patching a list of N keyed entries (best of %d, seconds per call; kgen's patch runtime)" % rounds,
        f"{'N':>7} {'strategic':>10} {'+order':>10} {'merge':>10} {'apply':>10} {'strategic/merge':>16}",
    ]
    for n in sizes:
        t = measure(n, rounds)
        lines.append(
            f"{n:>7} {t['strategic']:>10.4f} {t['strategic+order']:>10.4f} {t['merge']:>10.4f} {t['apply']:>10.4f}"
            f" {t['strategic'] / t['merge']:>15.2f}x"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.patching")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print("\n".join(run(tuple(int(s) for s in args.sizes.split(",")), args.rounds)), flush=True)


if __name__ == "__main__":
    main()
