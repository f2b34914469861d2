"""Candidate values for a node of a structural schema, simplest first, meant to touch its edges.

`values(schema)` yields values a client could send for a node: its default and enum, the
edges of its bounds and lengths, strings the node's pattern matches (drawn from the
pattern itself), values of its format, and for lists and objects combinations of their
items' and properties' candidates, one property varied at a time. Nothing here validates:
`kgen.compat.examples` keeps the candidates one schema accepts and the other refuses.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

from kgen.runtime.structural import Structural

# Python's own regular expression parser: RE2's syntax is close enough to draw samples from
# (an expression it cannot read gets none). Private modules, without type information.
import re._constants as _c  # type: ignore[import-not-found]
import re._parser as _parser  # type: ignore[import-not-found]

MAX_DEPTH = 8
"""How deep object candidates nest before settling for an empty object."""
_MAX_TEXT = 300

FORMAT_SAMPLES: dict[str, tuple[str, ...]] = {
    "datetime": ("2006-01-02T15:04:05Z",),
    "date": ("2006-01-02",),
    "duration": ("1h",),
    "uri": ("https://example.com/a",),
    "email": ("user@example.com",),
    "hostname": ("example.com",),
    "ipv4": ("192.0.2.1",),
    "ipv6": ("2001:db8::1",),
    "cidr": ("192.0.2.0/24",),
    "mac": ("00:00:5e:00:53:01",),
    "uuid": ("123e4567-e89b-42d3-a456-426614174000",),
    "uuid3": ("123e4567-e89b-32d3-a456-426614174000",),
    "uuid4": ("123e4567-e89b-42d3-a456-426614174000",),
    "uuid5": ("123e4567-e89b-52d3-a456-426614174000",),
    "byte": ("aGVsbG8=",),
    "password": ("secret",),
    "hexcolor": ("#ffffff",),
    "rgbcolor": ("rgb(0,0,0)",),
    "isbn": ("9780306406157",),
    "isbn10": ("0306406152",),
    "isbn13": ("9780306406157",),
    "creditcard": ("4111111111111111",),
    "ssn": ("123-45-6789",),
    "bsonobjectid": ("507f1f77bcf86cd799439011",),
    "k8s-short-name": ("example",),
    "k8s-long-name": ("example.com",),
}
"""A valid value of each format the API server checks (names without dashes but the k8s ones)."""

_STRINGS = ("a", "example", "", "A", "0", "a-b", "a.b", "a_b", "a/b", "Example", "a b", "-a", "1", "a:b", "%")
_INTS = (0, 1, -1, 2, 10, 100, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1)


def regex_samples(pattern: str, count: int = 24) -> list[str]:
    """Strings the regular expression matches (the shortest choices first, then random
    ones from a fixed seed); none when Python's parser cannot read it."""
    try:
        tree = _parser.parse(pattern)
    except Exception:  # noqa: BLE001 - RE2-only syntax (\p{L}, ...): no samples
        return []
    found: list[str] = []
    for seed in range(count * 3):
        rng = random.Random(seed)
        mode = "min" if seed == 0 else "max" if seed == 1 else "random"
        try:
            text = _generate(tree, rng, mode, {})
        except (_TooLong, RecursionError, ValueError, TypeError):
            continue
        if text not in found:
            found.append(text)
        if len(found) >= count:
            break
    return found


class _TooLong(Exception):
    pass


def _repeat(lo: int, hi: int, rng: random.Random, mode: str) -> int:
    top = lo + 3 if hi == _c.MAXREPEAT else min(hi, lo + 3)
    if mode == "min":
        return lo
    if mode == "max":
        return top
    return rng.randint(lo, top)


def _category(category: Any) -> list[str]:
    return {
        _c.CATEGORY_DIGIT: ["0", "7"], _c.CATEGORY_NOT_DIGIT: ["a", "-"], _c.CATEGORY_SPACE: [" "],
        _c.CATEGORY_NOT_SPACE: ["a", "0"], _c.CATEGORY_WORD: ["a", "Z", "_", "5"], _c.CATEGORY_NOT_WORD: ["-", "."],
    }.get(category, ["a"])  # fmt: skip


def _in_set(items: list[tuple[Any, Any]]) -> tuple[bool, list[str]]:
    negate = False
    chars: list[str] = []
    for op, value in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            chars.append(chr(value))
        elif op is _c.RANGE:
            low, high = value
            chars += [chr(low), chr(high), chr((low + high) // 2)]
        elif op is _c.CATEGORY:
            chars += _category(value)
    return negate, chars


def _generate(tree: Any, rng: random.Random, mode: str, groups: dict[int, str]) -> str:
    out: list[str] = []
    for op, value in tree:
        if op is _c.LITERAL:
            out.append(chr(value))
        elif op is _c.NOT_LITERAL:
            out.append(next(ch for ch in "a0-_." if ord(ch) != value))
        elif op is _c.ANY:
            out.append("a" if mode != "random" else rng.choice("a0-"))
        elif op is _c.IN:
            negate, chars = _in_set(value)
            if negate:
                pool = [ch for ch in "a0Z-_./ :" if ch not in chars]
                out.append(pool[0] if pool else "\u00e9")
            elif chars:
                out.append(chars[0] if mode == "min" else rng.choice(chars))
        elif op is _c.CATEGORY:
            options = _category(value)
            out.append(options[0] if mode == "min" else rng.choice(options))
        elif op is _c.BRANCH:
            branches = value[1]
            chosen = branches[0] if mode == "min" else branches[-1] if mode == "max" else rng.choice(branches)
            out.append(_generate(chosen, rng, mode, groups))
        elif op is _c.SUBPATTERN:
            group, _, _, inner = value
            text = _generate(inner, rng, mode, groups)
            if group is not None:
                groups[group] = text
            out.append(text)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or op.name == "POSSESSIVE_REPEAT":
            lo, hi, inner = value
            out += [_generate(inner, rng, mode, groups) for _ in range(_repeat(lo, hi, rng, mode))]
        elif op is _c.GROUPREF:
            out.append(groups.get(value, ""))
        elif op.name == "ATOMIC_GROUP":
            out.append(_generate(value, rng, mode, groups))
        # AT (anchors), ASSERT and ASSERT_NOT consume nothing
        if sum(len(part) for part in out) > _MAX_TEXT:
            raise _TooLong
    return "".join(out)


def _unique(values: Iterator[Any]) -> Iterator[Any]:
    seen: set[str] = set()
    for value in values:
        key = repr((type(value).__name__, value))
        if key in seen:
            continue
        seen.add(key)
        yield value


Pick = Callable[[Structural, int], Any]
"""Chooses the value of a required property or of list items in the candidates of their
parent (the first candidate, or the first one that validates)."""


def values(schema: Structural, depth: int = 0, pick: Pick | None = None) -> Iterator[Any]:
    """Candidate values for a node (see the module docstring); never the same one twice."""
    return _unique(_values(schema, depth, pick or first))


def _values(s: Structural, depth: int, pick: Pick) -> Iterator[Any]:
    if s.has_default:
        yield copy.deepcopy(s.default)
    if s.enum:
        yield from (copy.deepcopy(v) for v in s.enum)
    kinds = s.types or (("object",) if s.properties or s.additional_properties_schema else ())
    if not kinds:
        yield from ({}, "a", 0, [], {"a": "b"})
        return
    for kind in kinds:
        if kind == "string":
            yield from strings(s)
        elif kind == "integer":
            yield from integers(s)
        elif kind == "number":
            yield from integers(s)
            yield 0.5
        elif kind == "boolean":
            yield from (False, True)
        elif kind == "array":
            yield from arrays(s, depth, pick)
        elif kind == "object":
            yield from objects(s, depth, pick)


def strings(s: Structural) -> Iterator[str]:
    fmt = s.validated_format.replace("-", "") if not s.validated_format.startswith("k8s-") else s.validated_format
    base = list(FORMAT_SAMPLES.get(fmt, ())) + list(_STRINGS)
    if s.pattern:
        base += regex_samples(s.pattern)
    yield from base
    lengths = sorted({n for n in (s.min_length, s.max_length) if n is not None} | {n + 1 for n in (s.max_length,) if n is not None}
                     | {n - 1 for n in (s.min_length,) if n})  # fmt: skip
    seeds = [b for b in base if b][:3] or ["a"]
    for n in lengths:
        if n < 0 or n > 4096:
            continue
        for seed in seeds:
            yield (seed * (n // len(seed) + 1))[:n]


def integers(s: Structural) -> Iterator[int | float]:
    edges: list[int | float] = list(_INTS[:3])
    # the bounds of the node and of its anyOf/allOf/oneOf/not branches, then the int32 edges
    for node in (s, *s.all_of, *s.any_of, *s.one_of, *((s.not_,) if s.not_ is not None else ())):
        for bound in (node.minimum, node.maximum):
            if bound is not None:
                edges += [bound, bound - 1, bound + 1]
        if node.multiple_of:
            edges += [node.multiple_of, node.multiple_of * 2, node.multiple_of + 1]
    edges += _INTS[3:]
    for value in edges:
        if s.types == ("integer",) or "integer" in s.types:
            if isinstance(value, float):
                if not value.is_integer():
                    continue
                value = int(value)
        yield value


def arrays(s: Structural, depth: int, pick: Pick) -> Iterator[list[Any]]:
    yield []
    if s.items is None or depth > MAX_DEPTH:
        return
    chosen = pick(s.items, depth + 1)
    items = [chosen] + [v for v in _take(values(s.items, depth + 1, pick), 6) if v != chosen]
    first = items[0]
    yield [first]
    for other in items[1:]:
        yield [first, other]
    yield [first, copy.deepcopy(first)]
    for count in (s.min_items, s.max_items):
        if count is not None and 0 < count <= 64:
            yield _distinct(items, count)
    if s.max_items is not None and s.max_items < 64:
        yield _distinct(items, s.max_items + 1)


def _distinct(items: list[Any], count: int) -> list[Any]:
    out = [copy.deepcopy(items[i % len(items)]) for i in range(count)]
    for i, item in enumerate(out):
        if isinstance(item, str) and i >= len(items):
            out[i] = f"{item}{i}"
        elif isinstance(item, int) and not isinstance(item, bool) and i >= len(items):
            out[i] = item + i
    return out


def objects(s: Structural, depth: int, pick: Pick) -> Iterator[dict[str, Any]]:
    if depth > MAX_DEPTH:
        yield {}
        return
    base = {name: pick(s.properties[name], depth + 1) for name in s.required if name in s.properties}
    yield base
    # one property varied at a time, the properties in turn, so that early candidates differ
    # in each; lazily: a candidate costs the values it holds, not those of every property
    pending = [(name, values(s.properties[name], depth + 1, pick)) for name in sorted(s.properties)]
    for _ in range(6):
        for name, options in pending:
            value = next(options, _END)
            if value is not _END:
                yield {**base, name: value}
    extra = s.additional_properties_schema
    if extra is not None:
        value = pick(extra, depth + 1)
        yield {**base, "a": value}
        yield {**base, "a": value, "b": copy.deepcopy(value)}


_END = object()


def _take(iterator: Iterator[Any], count: int) -> list[Any]:
    return [v for _, v in zip(range(count), iterator)]


def first(s: Structural, depth: int = 0) -> Any:
    """The simplest candidate of a node (not necessarily valid)."""
    for value in _values(s, depth, first):
        return value
    return None
