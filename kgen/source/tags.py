"""Struct tags: `json:"name,omitempty" protobuf:"bytes,1,opt,name=x"`, parsed as Go does.

The tag grammar follows reflect.StructTag: space-separated `key:"quoted value"` pairs.
Unknown keys are kept verbatim so later generators (or users) can read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAG_PAIR = re.compile(r'\s*([^\s:"\x00-\x1f]+):"((?:[^"\\]|\\.)*)"')
_ESCAPES = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    "\\": "\\", "'": "'", '"': '"',
}  # fmt: skip


class TagError(ValueError):
    """A struct tag that does not follow the `key:"value"` convention."""


def unquote_go(body: str) -> str:
    """Unescape the body of a Go interpreted string literal, as strconv.Unquote does.

    Raises GoStringError (a ValueError) for an escape Go rejects (`\\q`, `\\x4`, `\\400`,
    a surrogate), so that no caller turns bad input into a crash or a wrong value."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        width, base = {"x": (2, 16), "u": (4, 16), "U": (8, 16)}.get(
            nxt, (3, 8) if nxt and nxt in "01234567" else (0, 0)
        )
        if not width:
            raise GoStringError(f"invalid escape sequence {body[i : i + 2]!r} in a Go string")
        start = i + 2 if base == 16 else i + 1
        digits = body[start : start + width]
        allowed = "0123456789abcdefABCDEF" if base == 16 else "01234567"
        if len(digits) != width or any(d not in allowed for d in digits):
            raise GoStringError(f"invalid escape sequence {body[i : start + width]!r} in a Go string")
        value = int(digits, base)
        if (base == 8 and value > 255) or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF and nxt in "uU":
            raise GoStringError(f"escape sequence {body[i : start + width]!r} is not a valid character")
        out.append(chr(value))
        i = start + width
    return "".join(out)


class GoStringError(ValueError):
    """A Go string literal that strconv.Unquote rejects."""


def parse_struct_tag(tag: str) -> dict[str, str]:
    """Split a raw struct tag into its key/value pairs, in order; raise TagError if malformed."""
    pairs, problem = read_struct_tag(tag)
    if problem is not None:
        raise TagError(problem)
    return pairs


def read_struct_tag(tag: str) -> tuple[dict[str, str], str | None]:
    """The key/value pairs Go's reflect.StructTag reads from a tag, and what go vet would say
    of it (None when nothing). Go stops at the first malformed part and keeps what came
    before it, and takes the first of a repeated key: `json:"a",omitempty` is `json:"a"`."""
    pairs: dict[str, str] = {}
    rest = tag
    while rest.strip():
        match = _TAG_PAIR.match(rest)
        if not match:
            kept = " ".join(f'{k}:"{v}"' for k, v in pairs.items())
            return pairs, (
                f'malformed struct tag {tag!r}: expected key:"value" pairs separated by spaces'
                + (f"; Go reads only {kept} from it" if pairs else "; Go reads nothing from it")
            )
        try:
            key, value = match.group(1), unquote_go(match.group(2))
        except GoStringError as err:
            return pairs, f"malformed struct tag {tag!r}: {err}; Go reads nothing from it from there on"
        if key in pairs:
            return pairs, f"struct tag key {key!r} appears twice in {tag!r}; Go reads the first"
        pairs[key] = value
        rest = rest[match.end() :]
    return pairs, None


@dataclass(frozen=True, slots=True)
class JSONTag:
    """The `json:` tag: name (empty means "use the Go name", or "promote" when embedded)."""

    name: str
    omitempty: bool = False
    omitzero: bool = False
    string: bool = False
    inline: bool = False
    skip: bool = False

    @classmethod
    def parse(cls, value: str | None) -> JSONTag:
        if value is None:
            return cls(name="")
        if value == "-":
            return cls(name="", skip=True)
        name, *options = value.split(",")
        return cls(
            name=name,
            omitempty="omitempty" in options,
            omitzero="omitzero" in options,
            string="string" in options,
            inline="inline" in options,
        )


_WIRE_TYPES = {"bytes", "varint", "fixed32", "fixed64", "zigzag32", "zigzag64", "group"}


_PROTO_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class ProtobufTag:
    """The `protobuf:` tag as go-to-protobuf writes it: `bytes,1,opt,name=x,casttype=Y`."""

    wire_type: str
    number: int
    label: str  # "opt", "rep", "req" or "" when the tag has no label
    name: str
    options: tuple[tuple[str, str], ...]
    trimmed: bool = False
    """Whether a part had spaces around it (`name=spec `): go-to-protobuf writes such a name
    into the .proto, where the space is only a space; kgen reads it trimmed, with a warning."""

    def option(self, key: str) -> str | None:
        return dict(self.options).get(key)

    @classmethod
    def parse(cls, value: str) -> ProtobufTag:
        parts = [p.strip() for p in value.split(",")]
        trimmed = parts != value.split(",")
        if len(parts) < 2:
            raise TagError(
                f"protobuf tag {value!r} needs at least a wire type and a field number, "
                'as in protobuf:"bytes,1,opt,name=field"'
            )
        wire_type, number_text, *rest = parts
        if wire_type not in _WIRE_TYPES:
            raise TagError(
                f"protobuf tag {value!r}: unknown wire type {wire_type!r} "
                f"(expected one of {', '.join(sorted(_WIRE_TYPES))})"
            )
        if not number_text.isdigit() or int(number_text) == 0:
            raise TagError(f"protobuf tag {value!r}: field number {number_text!r} must be a positive integer")
        label = ""
        name = ""
        options: list[tuple[str, str]] = []
        for part in rest:
            if part in ("opt", "rep", "req"):
                label = part
            elif "=" in part:
                key, _, val = part.partition("=")
                if key == "name":
                    if not _PROTO_IDENTIFIER.fullmatch(val):
                        raise TagError(
                            f"protobuf tag {value!r}: name {val!r} is not a protobuf field name "
                            "(letters, digits and underscores, not starting with a digit)"
                        )
                    name = val
                else:
                    options.append((key, val))
            elif part:
                options.append((part, ""))
        return cls(wire_type, int(number_text), label, name, tuple(options), trimmed)
