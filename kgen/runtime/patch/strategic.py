"""Strategic merge patch, as k8s.io/apimachinery's strategicpatch applies it on the server.

A JSON merge patch whose lists follow the schema's `x-kubernetes-patch-strategy`:
`merge` lists are merged (items of object lists by `x-kubernetes-patch-merge-key`,
scalars as a union), other lists are replaced; `retainKeys` clears the keys that
`$retainKeys` does not list. Directives:

- `$patch: replace` (object: replace it; list item: replace the list), `$patch: delete`
  (object: empty it; list item: delete the items with its merge key), `$patch: merge`;
- `$deleteFromPrimitiveList/<field>: [values]` removes scalars from a list;
- `$setElementOrder/<field>: [...]` orders the merged list;
- `$retainKeys: [...]` keeps only these keys of an object;
- null deletes a key.

The order of merged lists, the deduplication of scalar lists and the errors (400 for the
malformed directives the API server names, 422 for lists of lists, else 500) are
upstream's. Custom resources do not support strategic merge patch: pass
`custom_resource=True` and the API server's 415 is raised.

Where upstream looks a field up in the Go struct and fails when the struct has no such
field, kgen merges by the schema it has and merges an unknown field like a merge patch.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable
from typing import Any

from kgen.runtime.patch.errors import (
    CUSTOM_RESOURCE_PATCH_TYPES,
    bad_request,
    server_error,
    unprocessable,
    unsupported_media_type,
)
from kgen.runtime.patch.schema import TypeRef
from kgen.runtime.patch.typed import _go_value
from kgen.runtime.rawjson import copy_json
from kgen.runtime.work import checkpoint

__all__ = ["apply_strategic_merge_patch"]

_DIRECTIVE = "$patch"
_DELETE, _REPLACE, _MERGE = "delete", "replace", "merge"
_RETAIN_KEYS = "retainKeys"
_RETAIN_KEYS_DIRECTIVE = "$retainKeys"
_DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
_SET_ELEMENT_ORDER = "$setElementOrder"
_MISSING: Any = object()

_BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
_BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
_BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list"
_LIST_OF_LISTS = "lists of lists are not supported"


class _Error(Exception):
    def __init__(self, message: str, code: int = 500):
        super().__init__(message)
        self.code = code


def _go_type(v: Any) -> str:
    """reflect.TypeOf of unstructured JSON data."""
    return {
        dict: "map[string]interface {}",
        list: "[]interface {}",
        str: "string",
        bool: "bool",
        int: "int64",
        float: "float64",
    }.get(type(v), "%!s(<nil>)")


def _go_eq(a: Any, b: Any) -> bool:
    """Go's == on interface values holding JSON scalars."""
    return type(a) is type(b) and a == b


def _go_key(v: Any) -> Any:
    return (type(v).__name__, v) if type(v) not in (dict, list) else (type(v).__name__, id(v))


def _bad_arg_type(expected: str, actual: Any) -> _Error:
    return _Error(f"expected a {expected}, but received a {_go_type(actual)}")


def _no_merge_key(item: dict[str, Any], merge_key: str) -> _Error:
    return _Error(f"map: {_go_value(item)} does not contain declared merge key: {merge_key}")


# Schema lookups (LookupPatchMetadataForStruct / ForSlice).


def _lookup(tr: TypeRef | None, key: str, slice: bool) -> tuple[TypeRef | None, tuple[str, ...], str]:
    if tr is None or tr.atom.map is None:
        return None, (), ""
    spec = tr.atom.map
    declared = spec.fields.get(key)
    if declared is None:
        sub = spec.element
        strategies: tuple[str, ...] = ()
        merge_key = ""
    else:
        sub, strategies, merge_key = declared.type, declared.patch_strategies, declared.patch_merge_key
    if slice and sub is not None:
        sub = sub.items
    return sub, strategies, merge_key


def _strategy(strategies: tuple[str, ...]) -> str:
    """The strategy besides retainKeys (extractRetainKeysPatchStrategy)."""
    if len(strategies) == 0:
        return ""
    if len(strategies) == 1:
        return "" if strategies[0] == _RETAIN_KEYS else strategies[0]
    if len(strategies) == 2:
        if strategies[0] == _RETAIN_KEYS:
            return strategies[1]
        if strategies[1] == _RETAIN_KEYS:
            return strategies[0]
    raise _Error(f"unexpected patch strategy: [{' '.join(strategies)}]")


# Directives.


def _extract_key(text: str, prefix: str) -> str:
    parts = text.split("/", 1)
    if len(parts) <= 1 or parts[0] != prefix:
        raise _Error(_BAD_PRIMITIVE_LIST if prefix == _DELETE_FROM_PRIMITIVE_LIST else _BAD_SET_ELEMENT_ORDER, 400)
    return parts[1]


def _remove_directives(obj: Any) -> tuple[Any, bool]:
    """`obj` without directives, and whether it should be kept at all."""
    if type(obj) is dict:
        if _DIRECTIVE in obj:
            return None, False
        for k in list(obj):
            value, keep = _remove_directives(obj[k])
            if keep:
                obj[k] = value
            else:
                del obj[k]
        return obj, True
    if type(obj) is list:
        out: list[Any] = []
        for item in obj:
            value, keep = _remove_directives(item)
            if keep:
                out.append(value)
        return out, True
    return obj, True


def _discard_nulls(value: Any) -> None:
    if type(value) is dict:
        for k in list(value):
            if value[k] is None:
                del value[k]
            else:
                _discard_nulls(value[k])
    elif type(value) is list:
        for item in value:
            _discard_nulls(item)


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    if _RETAIN_KEYS_DIRECTIVE not in patch:
        return
    retain = patch.pop(_RETAIN_KEYS_DIRECTIVE)
    if type(retain) is not list:
        raise _Error(_BAD_RETAIN_KEYS, 400)
    allowed = {k for k in retain if type(k) is str}
    for k, v in patch.items():
        if v is None or k.startswith(_DELETE_FROM_PRIMITIVE_LIST) or k.startswith(_SET_ELEMENT_ORDER):
            continue
        if k not in allowed:
            raise _Error(_BAD_RETAIN_KEYS, 400)
    for k in list(original):
        if k not in allowed:
            del original[k]


# Ordering lists.


def _slice_element_type(*lists: Any) -> str:
    found = None
    for items in lists:
        for v in items or ():
            current = _go_type(v)
            if found is None:
                if type(v) is list:
                    raise _Error(_LIST_OF_LISTS, 422)
                if v is None:
                    raise _Error("runtime error: invalid memory address or nil pointer dereference")
                found = current
            elif found != current:
                raise _Error(
                    f"list element types are not identical: [{' '.join(_go_value(list(x or [])) for x in lists)}]"
                )
    if found is None:
        raise _Error("no elements in any of the given slices")
    return "map" if found == "map[string]interface {}" else found


def _index(items: list[Any], value: Any, merge_key: str, kind: str) -> int:
    if kind == "map":
        wanted = value.get(merge_key) if type(value) is dict else None
        for i, item in enumerate(items):
            if _go_eq(item.get(merge_key) if type(item) is dict else None, wanted):
                return i
        return -1
    for i, item in enumerate(items):
        if _go_eq(item, value):
            return i
    return -1


def _check_merge_keys(merge_key: str, *lists: list[Any]) -> None:
    for items in lists:
        for item in items:
            if type(item) is not dict:
                raise _bad_arg_type("map[string]interface {}", item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)


def _split_deletes(items: list[Any]) -> tuple[list[Any], list[Any]]:
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if type(item) is not dict:
            raise _bad_arg_type("map[string]interface {}", item)
        (delete if item.get(_DIRECTIVE) == _DELETE else keep).append(item)
    return keep, delete


class _Positions:
    """Where items first appear in a list, found by merge key (a list of maps) or by value
    (a list of scalars) as `_index` finds them, in constant time: by a dict of scalar keys,
    falling back to `_index`'s scan for a key that is a list or an object."""

    def __init__(self, items: list[Any], merge_key: str, kind: str):
        self.items = items
        self.merge_key = merge_key
        self.kind = kind
        self.first: dict[tuple[type, Any], int] = {}
        for i, item in enumerate(items):
            key = self._key(item)
            if key is not None:
                self.first.setdefault(key, i)

    def _key(self, value: Any) -> tuple[type, Any] | None:
        if self.kind == "map":
            value = value.get(self.merge_key) if type(value) is dict else None
        return None if type(value) in (dict, list) else (type(value), value)

    def index(self, value: Any) -> int:
        key = self._key(value)
        if key is None:
            return _index(self.items, value, self.merge_key, self.kind)
        return self.first.get(key, -1)


def _stable_sort(items: list[Any], less: Callable[[Any, Any], bool]) -> None:
    """Go's sort.SliceStable, step for step (insertion sort of blocks of 20, then SymMerge):
    upstream's comparator is no strict order, so only the same algorithm gives the same
    result. O(n log² n) comparisons."""

    def lt(i: int, j: int) -> bool:
        return less(items[i], items[j])

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    def insertion_sort(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and lt(j, j - 1):
                swap(j, j - 1)
                j -= 1

    def swap_range(a: int, b: int, n: int) -> None:
        for i in range(n):
            swap(a + i, b + i)

    def rotate(a: int, m: int, b: int) -> None:
        i, j = m - a, b - m
        while i != j:
            if i > j:
                swap_range(m - i, m, j)
                i -= j
            else:
                swap_range(m - i, m + j - i, i)
                j -= i
        swap_range(m - i, m, i)

    def sym_merge(a: int, m: int, b: int) -> None:
        if m - a == 1:
            i, j = m, b
            while i < j:
                h = (i + j) >> 1
                if lt(h, a):
                    i = h + 1
                else:
                    j = h
            for k in range(a, i - 1):
                swap(k, k + 1)
            return
        if b - m == 1:
            i, j = a, m
            while i < j:
                h = (i + j) >> 1
                if not lt(m, h):
                    i = h + 1
                else:
                    j = h
            for k in range(m, i, -1):
                swap(k, k - 1)
            return
        mid = (a + b) >> 1
        n = mid + m
        if m > mid:
            start, r = n - b, mid
        else:
            start, r = a, m
        p = n - 1
        while start < r:
            c = (start + r) >> 1
            if not lt(p - c, c):
                start = c + 1
            else:
                r = c
        end = n - start
        if start < m < end:
            rotate(start, m, end)
        if a < start < mid:
            sym_merge(a, start, mid)
        if mid < end < b:
            sym_merge(mid, end, b)

    n = len(items)
    block = 20
    a, b = 0, block
    while b <= n:
        insertion_sort(a, b)
        a, b = b, b + block
    insertion_sort(a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            sym_merge(a, a + block, b)
            a, b = b, b + 2 * block
        if (m := a + block) < n:
            sym_merge(a, m, n)
        block *= 2


def _sort_by(items: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """sort.SliceStable with upstream's comparator: items found in `order` by their order
    there, any pair with one not found as "less"."""
    to_delete: list[Any] = []
    if kind == "map":
        _check_merge_keys(merge_key, items, order)
        items, to_delete = _split_deletes(items)
    items = list(items)
    positions = _Positions(order, merge_key, kind)

    def less(a: Any, b: Any) -> bool:
        ia = positions.index(a)
        if ia >= 0:
            ib = positions.index(b)
            if ib >= 0:
                return ia < ib
        return True

    _stable_sort(items, less)
    return items + to_delete


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str, kind: str) -> list[Any]:
    out: list[Any] = []
    positions = _Positions(server_order, merge_key, kind)
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = positions.index(left[i])
            ri = positions.index(right[j])
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _normalize_order(
    patch_items: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    kind: str,
) -> list[Any]:
    patch_items = _sort_by(patch_items, patch_order, merge_key, kind)
    server_only = _sort_by(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, patch_items, server_order, merge_key, kind)


class _MapFinder:
    """`_find_map` over one list in constant time per lookup (by a dict of scalar merge
    keys), with its errors: an item that is no map stops a lookup that has not matched
    before it."""

    def __init__(self, items: list[Any], merge_key: str):
        self.items = items
        self.merge_key = merge_key
        self.first: dict[tuple[type, Any], int] = {}
        self.not_a_map = len(items)
        for i, item in enumerate(items):
            if type(item) is not dict:
                self.not_a_map = i
                break
            if merge_key in item and type(value := item[merge_key]) not in (dict, list):
                self.first.setdefault((type(value), value), i)

    def index(self, value: Any) -> int:
        if type(value) in (dict, list):
            return _find_map(self.items, self.merge_key, value)
        found = self.first.get((type(value), value), -1)
        if found < 0 and self.not_a_map < len(self.items):
            raise _Error(f"value for key {self.not_a_map} is not a map")
        return found

    def add(self, item: dict[str, Any]) -> None:
        """`item` was appended to the list."""
        self.items.append(item)
        if self.merge_key in item and type(value := item[self.merge_key]) not in (dict, list):
            self.first.setdefault((type(value), value), len(self.items) - 1)


def _find_map(items: list[Any], merge_key: str, value: Any) -> int:
    for i, item in enumerate(items):
        if type(item) is not dict:
            raise _Error(f"value for key {i} is not a map")
        if merge_key in item and _go_eq(item[merge_key], value):
            return i
    return -1


def _partition(merged: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """(items of `merged` present in `by`, the others)."""
    inside: list[Any] = []
    outside: list[Any] = []
    if not merge_key:
        present = {_go_key(v) for v in by}
        for v in merged:
            (inside if _go_key(v) in present else outside).append(v)
        return inside, outside
    found = _MapFinder(by, merge_key)
    for v in merged:
        if type(v) is not dict:
            raise _bad_arg_type("map[string]interface {}", v)
        if merge_key not in v:
            raise _no_merge_key(v, merge_key)
        (inside if found.index(v[merge_key]) >= 0 else outside).append(v)
    return inside, outside


def _dedupe_scalars(items: list[Any]) -> list[Any]:
    """Upstream's in-place deduplication: for each item, every later equal item is replaced
    by the last item and the list shortened (so the order it leaves is upstream's, fixed
    later). The same steps in O(n log n): the positions of each value in a heap."""
    s = list(items)
    if any(type(v) in (dict, list) for v in s):
        return _dedupe_by_scanning(s)
    keys = [(type(v), v) for v in s]
    if len(set(keys)) == len(keys):
        return s
    where: dict[tuple[type, Any], list[int]] = {}
    for position, key in enumerate(keys):
        where.setdefault(key, []).append(position)  # ascending: already a heap
    length = len(s) - 1
    i = 0
    while i < length:
        key = keys[i]
        heap = where[key]
        while True:
            while heap and (heap[0] <= i or heap[0] > length or keys[heap[0]] != key):
                heapq.heappop(heap)
            if not heap:
                break
            j = heap[0]
            s[j], keys[j] = s[length], keys[length]
            heapq.heappush(where[keys[j]], j)
            length -= 1
        i += 1
    return s[: length + 1]


def _dedupe_by_scanning(s: list[Any]) -> list[Any]:
    length = len(s) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if _go_eq(s[i], s[j]):
                s[j] = s[length]
                s = s[:length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return s


# Merging.


def _merge_map(original: dict[str, Any] | None, patch: dict[str, Any], tr: TypeRef | None) -> dict[str, Any]:
    if _DIRECTIVE in patch:
        directive = patch[_DIRECTIVE]
        if directive == _REPLACE:
            del patch[_DIRECTIVE]
            return patch
        if directive == _DELETE:
            return {}
        raise _Error(f"unknown patch type: {_go_value(directive)} in map: {_go_value(patch)}")
    if original is None:
        original = {}
    _apply_retain_keys(original, patch)
    _merge_element_orders(original, patch, tr)
    for k, patch_v in list(patch.items()):
        delete_list = False
        if k.startswith(_DELETE_FROM_PRIMITIVE_LIST):
            k = _extract_key(k, _DELETE_FROM_PRIMITIVE_LIST)
            delete_list = True
        if patch_v is None:
            original.pop(k, None)
            continue
        current = original.get(k, _MISSING)
        if current is _MISSING or _go_type(current) != _go_type(patch_v):
            if not delete_list:
                _discard_nulls(patch_v)
                value, keep = _remove_directives(patch_v)
                if keep:
                    original[k] = value
                else:
                    original.pop(k, None)
            continue
        if type(current) is dict:
            sub, strategies, _ = _lookup(tr, k, False)
            if _strategy(strategies) != _REPLACE:
                original[k] = _merge_map(current, patch_v, sub)
            else:
                original[k] = patch_v
        elif type(current) is list:
            sub, strategies, merge_key = _lookup(tr, k, True)
            original[k] = _merge_list_field(current, patch_v, sub, _strategy(strategies), merge_key, delete_list)
        else:
            value, keep = _remove_directives(patch_v)
            if keep:
                original[k] = value
            else:
                original.pop(k, None)
    return original


def _merge_list_field(
    original: list[Any], patch: list[Any], tr: TypeRef | None, strategy: str, merge_key: str, delete_list: bool
) -> list[Any]:
    if strategy == _MERGE or delete_list:
        return _merge_list(original, patch, tr, merge_key, delete_list)
    return patch


def _merge_list(
    original: list[Any], patch: list[Any], tr: TypeRef | None, merge_key: str, delete_list: bool
) -> list[Any]:
    if not original and not patch:
        return original
    checkpoint()  # a request whose client has gone stops here
    kind = _slice_element_type(original, patch)
    if kind != "map":
        if delete_list:
            doomed = {_go_key(v) for v in patch}
            return [v for v in original if _go_key(v) not in doomed]
        merged = _dedupe_scalars(original + patch)
    else:
        if not merge_key:
            raise _Error(f"cannot merge lists without merge key for {_schema_name(tr)}")
        original, patch = _special_items(original, patch, merge_key)
        merged = _merge_items(original, patch, merge_key, tr)
    patch_items, server_only = _partition(merged, patch, merge_key)
    return _normalize_order(patch_items, server_only, patch, original, merge_key, kind)


def _schema_name(tr: TypeRef | None) -> str:
    if tr is None:
        return ""
    return tr.named.rsplit(".", 1)[-1] if tr.named else "Struct"


def _special_items(original: list[Any], patch: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """Apply `$patch: delete` items, find `$patch: replace`; the patch without them."""
    plain: list[Any] = []
    replace = False
    for item in patch:
        if _DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[_DIRECTIVE]
        if directive == _DELETE:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            wanted = item[merge_key]
            if type(wanted) in (dict, list):
                while (i := _find_map(original, merge_key, wanted)) >= 0:
                    original = original[:i] + original[i + 1 :]
            else:
                _find_map(original, merge_key, wanted)  # its error, for an item that is no map
                original = [o for o in original if not (merge_key in o and _go_eq(o[merge_key], wanted))]
        elif directive == _REPLACE:
            replace = True
        elif directive == _MERGE:
            raise _Error("merging lists cannot yet be specified in the patch")
        else:
            raise _Error(f"unknown patch type: {_go_value(directive)} in map: {_go_value(item)}")
    if replace:
        return plain, []
    return original, plain


def _merge_items(original: list[Any], patch: list[Any], merge_key: str, tr: TypeRef | None) -> list[Any]:
    found = _MapFinder(list(original), merge_key)
    for position, item in enumerate(patch):
        if position % 1024 == 1023:
            checkpoint()
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        i = found.index(item[merge_key])
        if i >= 0:
            found.items[i] = _merge_map(found.items[i], item, tr)
        else:
            found.add(item)
    return found.items


def _validate_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    if not order or not patch_list:
        return
    items = _split_deletes(patch_list)[0] if merge_key else patch_list
    pi = si = 0
    while pi < len(items) and si < len(order):
        item = items[pi]
        if type(item) is dict and _DIRECTIVE in item:
            pi += 1
            continue
        if merge_key:
            for side in (item, order[si]):
                if type(side) is not dict:
                    raise _bad_arg_type("map[string]interface {}", side)
                if merge_key not in side:
                    raise _no_merge_key(side, merge_key)
            equal = _go_eq(item[merge_key], order[si][merge_key])
        else:
            equal = _go_eq(item, order[si])
        if equal:
            pi += 1
        si += 1
    if pi < len(items) and si >= len(order):
        raise _Error(
            f"The order in patch list:\n{_go_value(patch_list)}\n doesn't match {_SET_ELEMENT_ORDER} list:\n{_go_value(order)}\n"
        )


def _merge_element_orders(original: dict[str, Any], patch: dict[str, Any], tr: TypeRef | None) -> None:
    """`$setElementOrder/<field>`: merge the list it orders and put it in that order."""
    for directive in [k for k in patch if k.startswith(_SET_ELEMENT_ORDER)]:
        order = patch.pop(directive)
        if type(order) is not list:
            raise _bad_arg_type("[]interface {}", order)
        key = _extract_key(directive, _SET_ELEMENT_ORDER)
        current = original.get(key, _MISSING)
        patch_list = patch.get(key, _MISSING)
        if current is not _MISSING and type(current) is not list:
            raise _bad_arg_type("[]interface {}", current)
        if patch_list is not _MISSING and type(patch_list) is not list:
            raise _bad_arg_type("[]interface {}", patch_list)
        sub, strategies, merge_key = _lookup(tr, key, True)
        strategy = _strategy(strategies)
        _validate_order(patch_list if patch_list is not _MISSING else [], order, merge_key)
        if current is _MISSING and patch_list is _MISSING:
            continue
        if patch_list is _MISSING:
            merged = current
        elif current is _MISSING:
            merged = _remove_directives(patch_list)[0]
        else:
            merged = _merge_list_field(current, patch_list, sub, strategy, merge_key, False)
        inside, outside = _partition(merged, order, merge_key)
        kind = _slice_element_type(
            current if current is not _MISSING else [], patch_list if patch_list is not _MISSING else []
        )
        original[key] = _normalize_order(
            inside, outside, order, current if current is not _MISSING else [], merge_key, kind
        )
        patch.pop(key, None)


def apply_strategic_merge_patch(
    original: Any, patch: Any, type_ref: TypeRef | None, *, custom_resource: bool = False
) -> dict[str, Any]:
    """`original` (not changed) with the strategic merge patch applied, reading patch
    strategies and merge keys from `type_ref` (the kind's schema). `patch` is its JSON text
    or decoded object. Raises PatchError: 415 for a custom resource, 400 for a patch
    that is not an object or a malformed directive, 422 for lists of lists, else 500."""
    if custom_resource:
        raise unsupported_media_type(CUSTOM_RESOURCE_PATCH_TYPES)
    if isinstance(patch, (bytes, bytearray, str)):
        try:
            patch = json.loads(patch)
        except ValueError:
            raise bad_request("invalid JSON patch") from None
    if patch is None:
        patch = {}
    if type(patch) is not dict:
        kind = {list: "array", str: "string", bool: "bool", int: "number", float: "number"}.get(type(patch), "value")
        raise bad_request(f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}")
    try:
        return _merge_map(copy_json(dict(original or {})), copy_json(patch), type_ref)
    except _Error as err:
        if err.code == 400:
            raise bad_request(str(err)) from None
        if err.code == 422:
            raise unprocessable(str(err)) from None
        raise server_error(str(err)) from None
