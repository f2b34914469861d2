"""Strategic merge patch costs time linear in the size of the lists it merges (the API
server's does too), and gives the same answers as the step-by-step algorithms it replaces.

Each fast piece is compared with the plain scan it stands for on random inputs (including
the errors those scans raise); a patch of a 5,000-entry list is checked to make no scan
per entry; the sort is Go's sort.SliceStable step for step (upstream's comparator is not a
strict order, so only the same algorithm gives the same result).
"""

from __future__ import annotations

import json
import random

import pytest

from kgen.runtime.patch import apply_strategic_merge_patch
from kgen.runtime.patch import strategic
from kgen.runtime.patch.schema import Schema

_SCHEMA = Schema(
    {
        "T": {
            "type": "object",
            "properties": {
                "ports": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}},
                    "x-kubernetes-patch-strategy": "merge",
                    "x-kubernetes-patch-merge-key": "name",
                },
                "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"},
            },
        }
    }
).type("T")

_VALUES = ["a", "b", "c", 1, 1.0, True, None, 2, "1"]


def _insertion_sort(items, less):
    items = list(items)
    for i in range(1, len(items)):
        j = i
        while j > 0 and less(items[j], items[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            j -= 1
    return items


def test_deduplication_leaves_the_order_upstreams_loop_leaves():
    rng = random.Random(7)
    for _ in range(2000):
        items = [rng.choice(_VALUES) for _ in range(rng.randint(0, 30))]
        assert strategic._dedupe_scalars(items) == strategic._dedupe_by_scanning(list(items)), items


def test_positions_find_what_the_scan_finds():
    rng = random.Random(8)
    for _ in range(500):
        maps = [{"name": rng.choice(_VALUES)} if rng.random() < 0.9 else {} for _ in range(rng.randint(0, 15))]
        positions = strategic._Positions(maps, "name", "map")
        for probe in [*maps, {"name": "zzz"}, {}, "not a map"]:
            assert positions.index(probe) == strategic._index(maps, probe, "name", "map")
        scalars = [rng.choice(_VALUES) for _ in range(rng.randint(0, 15))]
        positions = strategic._Positions(scalars, "", "string")
        for probe in [*scalars, "zzz", [1]]:
            assert positions.index(probe) == strategic._index(scalars, probe, "", "string")


def test_the_map_finder_finds_and_fails_as_the_scan_does():
    rng = random.Random(9)
    for _ in range(500):
        items = [
            {"name": rng.choice(_VALUES)} if rng.random() < 0.85 else rng.choice([{}, "x", 3])
            for _ in range(rng.randint(0, 12))
        ]
        finder = strategic._MapFinder(list(items), "name")
        for probe in [*_VALUES, "zzz"]:
            try:
                expected = strategic._find_map(items, "name", probe)
            except strategic._Error as err:
                with pytest.raises(strategic._Error, match=str(err)):
                    finder.index(probe)
            else:
                assert finder.index(probe) == expected


def test_the_sort_is_stable_and_equals_insertion_sort_where_go_uses_it():
    rng = random.Random(10)
    for _ in range(300):
        n = rng.randint(0, 120)
        items = [(rng.randint(0, 9), i) for i in range(n)]
        sorted_here = list(items)
        strategic._stable_sort(sorted_here, lambda a, b: a[0] < b[0])
        assert sorted_here == sorted(items, key=lambda item: item[0])
    for _ in range(300):  # upstream's comparator (an item missing from the order is "less")
        order = {rng.randint(0, 30): k for k in range(12)}
        items = [rng.randint(0, 30) for _ in range(rng.randint(0, 20))]

        def less(a, b):
            return a in order and b in order and order[a] < order[b] or not (a in order and b in order)

        here = list(items)
        strategic._stable_sort(here, less)
        assert here == _insertion_sort(items, less)  # Go sorts up to 20 items by insertion


def test_a_patch_of_a_long_list_scans_no_list_per_entry(monkeypatch):
    scans = {"index": 0, "find": 0}
    index, find = strategic._index, strategic._find_map

    def counting_index(*args):
        scans["index"] += 1
        return index(*args)

    def counting_find(*args):
        scans["find"] += 1
        return find(*args)

    monkeypatch.setattr(strategic, "_index", counting_index)
    monkeypatch.setattr(strategic, "_find_map", counting_find)
    n = 5000
    live = {"ports": [{"name": f"p{i}", "port": i} for i in range(n)], "tags": [f"t{i}" for i in range(n)]}
    changed = [{"name": f"p{n // 2}", "port": -1}, {"name": f"p{n}", "port": n}, {"name": "p7", "$patch": "delete"}]
    patch = {
        "$setElementOrder/ports": [{"name": f"p{i}"} for i in range(n + 1) if i != 7],
        "ports": changed,
        "tags": ["t1", "new", "t1"],
    }
    patched = apply_strategic_merge_patch(live, json.dumps(patch), _SCHEMA)
    assert len(patched["ports"]) == n and patched["ports"][n // 2 - 1] == {"name": f"p{n // 2}", "port": -1}
    assert patched["ports"][-1] == {"name": f"p{n}", "port": n}
    assert len(patched["tags"]) == n + 1 and "new" in patched["tags"]
    assert scans["index"] == 0 and scans["find"] <= len(changed)
