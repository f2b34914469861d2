"""YAML in and out, as the API server and kubectl read and write it.

The API server reads a YAML body by converting it to JSON first (sigs.k8s.io/yaml over
go-yaml v2, so YAML 1.1: `yes`, `on` and `y` are true, `0777` is octal, `1e3` is a
number, an unquoted timestamp stays a string) and then decoding the JSON. kgen does the
same: `to_json_documents` turns each document of a stream into JSON text, which then
goes through the JSON decoders, so YAML is exactly as strict as JSON and fails the same
way. `kgen.runtime.scheme.load_all` decodes a stream through a Scheme; models have
`from_yaml` and `to_yaml`.

The conversion keeps what JSON decoding needs: duplicate keys stay duplicates (strict
decoding reports them, as the API server's YAMLToJSONStrict does), and merge keys (`<<`)
are expanded in go-yaml's order. Its cost is bounded: every walk keeps its own stack (no
Python recursion), nesting stops at go-yaml's 10,000 levels, aliases at go-yaml's
expansion ratio (billion laughs), and the JSON of a document at 16 times its YAML.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import yaml

from kgen.runtime import gojson

_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it

#: go-yaml's limit on nesting.
MAX_YAML_DEPTH = 10_000
#: The JSON of a document may be this many times as long as its YAML (aliases repeat text).
MAX_GROWTH = 16
_MIN_JSON_BUDGET = 1 << 20


class YAMLError(ValueError):
    """Text that is not YAML, or YAML that has no JSON form (a `.inf`, a null or list key,
    an alias to nowhere), or that breaks a limit. The message starts `yaml: line N:` where
    a line is known, as go-yaml's errors do."""


class DocumentTooLarge(YAMLError):
    """A document longer than the limit it was read with."""


# -- reading ----------------------------------------------------------------------------------

_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP, _BINARY, _MERGE = (
    "tag:yaml.org,2002:" + name for name in ("str", "int", "float", "bool", "null", "timestamp", "binary", "merge")
)
_RESOLVABLE = {"", _STR, _BOOL, _INT, _FLOAT, _NULL, _TIMESTAMP}
_SPECIAL = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), (_BOOL, True)),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), (_BOOL, False)),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), (_NULL, None)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), (_FLOAT, math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), (_FLOAT, math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), (_FLOAT, -math.inf)),
    "<<": (_MERGE, "<<"),
}
_HINTS = {**dict.fromkeys("+-", "S"), **dict.fromkeys("0123456789", "D"), **dict.fromkeys("yYnNtTfFoO~", "M"), ".": "."}
# go-yaml's yamlStyleFloat; possessive, so that a long text that is no float fails at once.
_YAML_FLOAT = re.compile(r"[-+]?+(?:\.[0-9]++|[0-9]++(?:\.[0-9]*+)?+)(?:[eE][-+]?+[0-9]++)?+")
_DOT_FLOAT = re.compile(r"\.[0-9]++(?:[eE][-+]?+[0-9]++)?+")
_TIMESTAMP_FORMS = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]{1,9})?(?:Z|[-+][0-9]{2}:[0-9]{2})"
    r"|[ ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]{1,9})?)?"
)
_DIGITS = {base: re.compile(f"[{digits}]*") for base, digits in ((2, "01"), (8, "0-7"), (10, "0-9"), (16, "0-9a-fA-F"))}
_MAX_DIGITS = {2: 64, 8: 22, 10: 20, 16: 16}  # more than these, without leading zeros, is beyond 64 bits


def _parse_uint(text: str) -> int | None:
    """Go's strconv.ParseUint(text, 0, 64): a 0x, 0o, 0b or 0 (octal) prefix, ASCII digits."""
    base = 10
    if text[:1] == "0" and len(text) > 1:
        prefix = text[1].lower()
        if len(text) >= 3 and prefix in "box":
            base, text = {"b": 2, "o": 8, "x": 16}[prefix], text[2:]
        else:
            base, text = 8, text[1:]
    significant = text.lstrip("0")  # zeros are digits in every base; the rest is short or too long
    if not text or len(significant) > _MAX_DIGITS[base] or not _DIGITS[base].fullmatch(significant):
        return None
    value = int(significant or "0", base)
    return value if value < 2**64 else None


def _parse_int(text: str) -> int | None:
    """Go's strconv.ParseInt(text, 0, 64)."""
    negative = text[:1] == "-"
    value = _parse_uint(text[1:] if text[:1] in "+-" else text) if text else None
    if value is None:
        return None
    value = -value if negative else value
    return value if -(2**63) <= value < 2**63 else None


def _parse_float(text: str) -> float | None:
    """Go's strconv.ParseFloat(text, 64) for the decimal forms YAML reads; None beyond float64."""
    value = float(text)
    return None if math.isinf(value) else value


def _resolve(tag: str, text: str, line: int) -> tuple[str, Any]:
    """go-yaml v2's resolve: the tag and value a scalar stands for."""
    if tag not in _RESOLVABLE:
        return tag, text
    resolved = _resolve_plain(text) if tag not in (_STR, _BINARY) else (_STR, text)
    rtag, value = resolved
    if tag in ("", rtag, _STR):
        return resolved
    if tag == _FLOAT and rtag == _INT:
        return _FLOAT, float(value)
    raise YAMLError(
        f"yaml: line {line}: cannot decode !!{rtag.rpartition(':')[2]} `{text}` as a !!{tag.rpartition(':')[2]}"
    )


def _resolve_plain(text: str) -> tuple[str, Any]:
    hint = _HINTS.get(text[:1], "N" if not text else None)
    if hint is None:
        return _STR, text
    special = _SPECIAL.get(text)
    if special is not None:
        return special
    if hint == ".":
        if _DOT_FLOAT.fullmatch(text):
            value = _parse_float(text)
            if value is not None:
                return _FLOAT, value
    elif hint in "DS":
        if hint == "D" and _TIMESTAMP_FORMS.fullmatch(text):
            return _TIMESTAMP, text  # decoded into interface{}, go-yaml keeps the text
        plain = text.replace("_", "")
        number = _parse_int(plain)
        if number is None and plain[:1] != "-" and plain[:1] != "+":
            number = _parse_uint(plain)
        if number is not None:
            return _INT, number
        if _YAML_FLOAT.fullmatch(plain):
            value = _parse_float(plain)
            if value is not None:
                return _FLOAT, value
        if plain.startswith("0b") or plain.startswith("-0b"):
            negative = plain[0] == "-"
            digits = plain[3:] if negative else plain[2:]
            if digits and set(digits) <= {"0", "1"} and len(digits.lstrip("0")) <= 64:
                number = int(digits, 2) * (-1 if negative else 1)
                if -(2**63) <= number < 2**64:
                    return _INT, number
    return _STR, text


class _Scalar:
    __slots__ = ("value", "tag", "plain", "line", "json", "key")

    def __init__(self, value: str, tag: str, plain: bool, line: int):
        self.value, self.tag, self.plain, self.line = value, tag, plain, line
        self.json: str | None = None  # its JSON text, once resolved (aliases repeat it)
        self.key: str | None = None


class _Sequence:
    __slots__ = ("items", "line")

    def __init__(self, line: int):
        self.items: list[Any] = []
        self.line = line


class _Mapping:
    __slots__ = ("pairs", "line")

    def __init__(self, line: int):
        self.pairs: list[list[Any]] = []  # [key, value]; a value of None is still to come
        self.line = line


class _Alias:
    __slots__ = ("target", "name", "line")

    def __init__(self, target: Any, name: str, line: int):
        self.target, self.name, self.line = target, name, line


def _scalar_tag(event: Any) -> tuple[str, bool]:
    """The tag go-yaml resolves with ("" for none) and whether the scalar is plain and untagged."""
    plain = bool(event.implicit[0])
    if event.tag is None:
        return ("" if plain else _STR), plain
    return event.tag, False


def _documents(text: str | bytes, max_document_bytes: int | None) -> Iterator[tuple[Any, int]]:
    """The root node and the length of each document, built from the parser's events with
    an explicit stack."""
    if isinstance(text, (bytearray, memoryview)):
        text = bytes(text)
    if not isinstance(text, (str, bytes)):
        raise YAMLError(f"yaml: YAML is text (str or bytes), not {type(text).__name__}")
    try:
        parser = _Parser(text)
    except UnicodeEncodeError:  # libyaml reads UTF-8: a str is encoded first
        raise YAMLError("yaml: the text holds a lone surrogate, which is not a character YAML can hold") from None
    try:
        anchors: dict[str, Any] = {}
        open_nodes: list[Any] = []
        root: Any = None
        document_start = 0
        while True:
            event = _next_event(parser)
            line = event.start_mark.line + 1 if event.start_mark is not None else 0
            if max_document_bytes is not None and event.start_mark is not None:
                if event.start_mark.index - document_start > max_document_bytes:
                    raise DocumentTooLarge(f"yaml: line {line}: a document is longer than {max_document_bytes} bytes")
            if isinstance(event, yaml.StreamEndEvent):
                return
            if isinstance(event, yaml.DocumentStartEvent):
                anchors, root = {}, None
                document_start = event.start_mark.index if event.start_mark is not None else 0
                continue
            if isinstance(event, yaml.DocumentEndEvent):
                end = event.end_mark.index if event.end_mark is not None else document_start
                yield root, max(end - document_start, 1)
                continue
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                open_nodes.pop()
                continue
            if isinstance(event, yaml.StreamStartEvent):
                continue
            if isinstance(event, yaml.AliasEvent):
                referenced = event.anchor or ""  # an alias always names one
                target = anchors.get(referenced)
                if target is None:
                    raise YAMLError(f"yaml: line {line}: unknown anchor '{referenced}' referenced")
                node: Any = _Alias(target, referenced, line)
            elif isinstance(event, yaml.ScalarEvent):
                tag, plain = _scalar_tag(event)
                node = _Scalar(event.value, tag, plain, line)
            elif isinstance(event, yaml.SequenceStartEvent):
                node = _Sequence(line)
            elif isinstance(event, yaml.MappingStartEvent):
                node = _Mapping(line)
            else:  # pragma: no cover - the parser emits no other events
                raise YAMLError(f"yaml: line {line}: unexpected {type(event).__name__}")
            anchor = getattr(event, "anchor", None)
            if anchor is not None and not isinstance(node, _Alias):
                anchors[anchor] = node
            if not open_nodes:
                root = node
            else:
                parent = open_nodes[-1]
                if isinstance(parent, _Sequence):
                    parent.items.append(node)
                elif parent.pairs and parent.pairs[-1][1] is None:
                    parent.pairs[-1][1] = node
                else:
                    parent.pairs.append([node, None])
            if isinstance(node, (_Sequence, _Mapping)):
                open_nodes.append(node)
                if len(open_nodes) > MAX_YAML_DEPTH:
                    raise YAMLError(f"yaml: line {line}: exceeded max depth of {MAX_YAML_DEPTH}")
    finally:
        parser.dispose()


def _next_event(parser: Any) -> Any:
    try:
        return parser.get_event()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise YAMLError(f"yaml: {where}{err.problem or err.context}") from None
    except yaml.reader.ReaderError as err:
        raise YAMLError(f"yaml: {err.reason} (at character {err.position})") from None
    except yaml.YAMLError as err:
        raise YAMLError(f"yaml: {err}") from None


def excessive_aliasing(alias_count: int, decode_count: int) -> bool:
    """go-yaml's limit on alias expansion (billion laughs): up to 400,000 values read, 99%
    may come from aliases; from 4,000,000 on, 10%, scaling between."""
    if alias_count <= 100 or decode_count <= 1000:
        return False
    if decode_count <= 400_000:
        allowed = 0.99
    elif decode_count >= 4_000_000:
        allowed = 0.10
    else:
        allowed = 0.99 - 0.89 * (decode_count - 400_000) / 3_600_000
    return alias_count / decode_count > allowed


class _Budget:
    """go-yaml's count of values read and of those read through aliases, and the JSON size."""

    __slots__ = ("decoded", "aliased", "size", "limit")

    def __init__(self, limit: int):
        self.decoded = self.aliased = self.size = 0
        self.limit = limit

    def count(self, through_alias: bool, line: int) -> None:
        self.decoded += 1
        if through_alias:
            self.aliased += 1
            if excessive_aliasing(self.aliased, self.decoded):
                raise YAMLError(f"yaml: line {line}: document contains excessive aliasing")

    def write(self, out: list[str], text: str) -> None:
        self.size += len(text)
        if self.size > self.limit:
            raise YAMLError(f"yaml: the document's JSON would be longer than {self.limit} characters")
        out.append(text)


def _value_json(node: _Scalar) -> str:
    if node.json is None:
        tag, value = _resolve(node.tag, node.value, node.line) if not node.plain else _resolve_plain(node.value)
        node.json = _json_scalar(tag, value, node)
    return node.json


def _json_scalar(tag: str, value: Any, node: _Scalar) -> str:
    if tag == _BINARY:
        return json.dumps(_binary(node), ensure_ascii=False)
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if tag == _INT:
        return str(value)
    if tag == _FLOAT:
        if not math.isfinite(value):
            name = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
            raise YAMLError(f"yaml: line {node.line}: json: unsupported value: {name} (JSON has no {node.value})")
        return gojson.marshal(gojson.float_value(value)).decode("ascii")
    if tag == _MERGE:
        return json.dumps(node.value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def _binary(node: _Scalar) -> str:
    try:
        data = base64.b64decode(node.value.replace("\n", "").replace("\r", ""), validate=True)
    except (binascii.Error, ValueError):
        raise YAMLError(f"yaml: line {node.line}: !!binary value contains invalid base64 data") from None
    return data.decode("utf-8", "replace")  # Go's JSON writes invalid UTF-8 as U+FFFD


def _key_json(node: Any, budget: _Budget, through_alias: bool) -> str:
    """A mapping key as JSON text: sigs.k8s.io/yaml writes int, float and bool keys as strings."""
    if isinstance(node, _Alias):
        budget.count(through_alias, node.line)
        node, through_alias = node.target, True
    budget.count(through_alias, node.line)
    if not isinstance(node, _Scalar):
        raise YAMLError(
            f"yaml: line {node.line}: invalid map key: a key is a scalar, not a {'list' if isinstance(node, _Sequence) else 'map'}"
        )
    if node.key is None:
        tag, value = _resolve(node.tag, node.value, node.line) if not node.plain else _resolve_plain(node.value)
        if tag == _BINARY:
            text = _binary(node)
        elif tag == _NULL:
            raise YAMLError(f"yaml: line {node.line}: unsupported map key of type: <nil> (JSON keys are strings)")
        elif tag == _BOOL:
            text = "true" if value else "false"
        elif tag == _INT:
            if value >= 2**63:
                raise YAMLError(f"yaml: line {node.line}: unsupported map key of type: uint64, key: {value}")
            text = str(value)
        elif tag == _FLOAT:
            text = _float32_g(value)
        else:
            text = node.value if tag in (_TIMESTAMP, _MERGE) else value
        node.key = json.dumps(text, ensure_ascii=False)
    return node.key


def _float32_g(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32), with go-yaml's names for infinities and NaN."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    try:
        single = _float32(value)
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single):  # beyond float32: Go's float32(value) is an infinity
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, single) < 0 else ""
    shortest = next(  # the fewest significant digits that read back as the same float32
        text for text in (f"{abs(single):.{places}e}" for places in range(9)) if _float32(float(text)) == abs(single)
    )
    mantissa, _, exponent_text = shortest.partition("e")
    digits, exponent = mantissa.replace(".", "").rstrip("0") or "0", int(exponent_text)
    if exponent < -4 or exponent >= 6:  # Go's %e for the shortest form
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    fixed = format(Decimal(f"{digits[0]}.{digits[1:] or '0'}e{exponent}"), "f")
    return sign + (fixed.rstrip("0").rstrip(".") if "." in fixed else fixed)


def _float32(value: float) -> float:
    rounded: float = struct.unpack("f", struct.pack("f", value))[0]
    return rounded


def _merged(value: Any, budget: _Budget, through_alias: bool) -> list[tuple[_Mapping, bool]]:
    """The mappings a merge key's value brings, in the order go-yaml applies them."""
    targets: list[tuple[Any, bool]] = []
    if isinstance(value, _Sequence):
        targets = [(item, through_alias) for item in reversed(value.items)]  # earlier ones win: applied last
    else:
        targets = [(value, through_alias)]
    mappings = []
    for target, via_alias in targets:
        if isinstance(target, _Alias):
            budget.count(via_alias, target.line)
            target, via_alias = target.target, True
        if not isinstance(target, _Mapping):
            raise YAMLError(f"yaml: line {target.line}: map merge requires map or sequence of maps as the value")
        mappings.append((target, via_alias))
    return mappings


def _is_merge(node: Any) -> bool:
    return isinstance(node, _Scalar) and node.value == "<<" and (node.plain or node.tag == _MERGE)


def _mapping_members(mapping: _Mapping, budget: _Budget, through_alias: bool) -> list[tuple[str, Any, bool]]:
    """The (key JSON, value node, through an alias) members of a mapping, merges expanded in
    place, in the order go-yaml assigns them (so the last of a duplicate key wins, in JSON too)."""
    members: list[tuple[str, Any, bool]] = []
    stack: list[tuple[Iterator[list[Any]], _Mapping, bool]] = [(iter(mapping.pairs), mapping, through_alias)]
    merging = {id(mapping)}
    while stack:
        pairs, current, via_alias = stack[-1]
        pair = next(pairs, None)
        if pair is None:
            stack.pop()
            merging.discard(id(current))
            continue
        key, value = pair
        if _is_merge(key):
            budget.count(via_alias, key.line)
            for target, target_via_alias in reversed(_merged(value, budget, via_alias)):
                if id(target) in merging:
                    raise YAMLError(f"yaml: line {key.line}: a merged map contains itself")
                merging.add(id(target))
                stack.append((iter(target.pairs), target, target_via_alias))
            continue
        members.append((_key_json(key, budget, via_alias), value, via_alias))
    return members


def _to_json(root: Any, budget: _Budget) -> str:
    """The JSON text of a document's root node (go-yaml's decoding into interface{}, then
    encoding/json), written from an explicit stack."""
    out: list[str] = []
    expanding: set[int] = set()  # alias nodes being written out: one met again contains itself
    # Entries: text to write, (node, read through an alias) to write, or the id of an alias
    # whose expansion ends there.
    stack: list[Any] = [(root, False)]
    while stack:
        item = stack.pop()
        if type(item) is str:
            budget.write(out, item)
            continue
        if type(item) is int:
            expanding.discard(item)
            continue
        node, through_alias = item
        if node is None:
            budget.write(out, "null")
            continue
        budget.count(through_alias, node.line)
        if isinstance(node, _Scalar):
            budget.write(out, _value_json(node))
        elif isinstance(node, _Alias):
            if id(node) in expanding:
                raise YAMLError(f"yaml: line {node.line}: anchor '{node.name}' value contains itself")
            expanding.add(id(node))
            stack.append(id(node))
            stack.append((node.target, True))
        elif isinstance(node, _Sequence):
            budget.write(out, "[")
            stack.append("]")
            for index in range(len(node.items) - 1, -1, -1):
                stack.append((node.items[index], through_alias))
                if index:
                    stack.append(",")
        else:
            members = _mapping_members(node, budget, through_alias)
            budget.write(out, "{")
            stack.append("}")
            for index in range(len(members) - 1, -1, -1):
                key, value, via_alias = members[index]
                stack.append((value, via_alias))
                stack.append(("," if index else "") + key + ":")
    return "".join(out)


def to_json_documents(text: str | bytes, max_document_bytes: int | None = None) -> Iterator[bytes]:
    """The JSON text of each document of a YAML stream, as sigs.k8s.io/yaml's YAMLToJSON
    converts it (an empty document is `null`); YAMLError if the text is not such YAML,
    DocumentTooLarge (a YAMLError) if a document is longer than `max_document_bytes`."""
    for root, size in _documents(text, max_document_bytes):
        budget = _Budget(max(MAX_GROWTH * size, _MIN_JSON_BUDGET))
        try:
            yield _to_json(root, budget).encode("utf-8")
        except UnicodeEncodeError:
            raise YAMLError("yaml: the document holds a lone surrogate, which UTF-8 cannot write") from None


def to_json(text: str | bytes) -> bytes:
    """The JSON text of a YAML stream of one document (`null` for none); YAMLError if the
    text is not such YAML or holds more than one document."""
    documents = list(to_json_documents(text))
    if len(documents) > 1:
        raise YAMLError(
            f"yaml: expected one document, found {len(documents)}: use kgen.runtime.scheme.load_all for a stream"
        )
    return documents[0] if documents else b"null"


# -- writing ------------------------------------------------------------------------------------


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """PyYAML's safe dumper, quoting every string go-yaml v2 would read as something else."""


def _represent_str(dumper: Any, value: str) -> Any:
    style = None
    if _resolve_plain(value)[0] != _STR:  # `y`, `on`, `0o17`, `1e3`, `<<`: PyYAML reads them as strings
        style = '"'
    return dumper.represent_scalar(_STR, value, style=style)


_Dumper.add_representer(str, _represent_str)


def dump(data: Any, sort_keys: bool = False) -> str:
    """JSON data as block YAML, in the data's key order (or sorted), every line whole (go-yaml
    v2 does not wrap lines), strings quoted wherever go-yaml v2 would read them as another type."""
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=sort_keys, allow_unicode=True, default_flow_style=False, width=2**31 - 1
    )
