"""Markers as the API linters read them: every `// +...` line, known to kgen or not, with
its identifier, arguments, payload and the byte range of its comment.

kgen's marker registry (`kgen.markers.registry`) types the markers generators read and drops
the others; a linter also needs the unknown ones (a forbidden or duplicated marker is often
one no generator reads) and where each line is, to remove or rewrite it. The identifier of
a line is read as kube-api-linter reads it:

- `+k8s:...` lines (validation-gen's tags) follow gengo's tag grammar: `name(args)=value`,
  where a value may itself be a tag (`+k8s:eachVal=+k8s:minimum=0`); a line that does not
  parse is no marker.
- Other lines: an identifier from the table of known identifiers (the longest that
  prefixes the line) is cut off and the rest read as `key=value` expressions (an unnamed
  one is the payload, `=value`); an unknown line with one `=` splits there, and else its
  `:`-separated parts without `=` form the identifier and the others the expressions.

Payload and argument values keep their quotes (`+default="x"` has the payload `"x"`), as
kube-api-linter compares them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

MARKER_PREFIX = "// +"
_VALID_START = re.compile(r"^[a-zA-Z]([a-zA-Z0-9:()\" ,])+=?")
_EXPRESSION = re.compile(r"\w*=(?:'[^']*'|\"(?:\\\"|[^\"])*\"|[\w;\-\"]+|`[^`]*`)")

KUBEBUILDER, DECLARATIVE = "kubebuilder", "k8s"
"""The two marker styles: controller-gen's (and gengo's plain markers), and validation-gen's `+k8s:` tags."""

KNOWN_IDENTIFIERS = frozenset(
    {
        "optional", "required", "nullable", "default", "listType", "listMapKey", "patchStrategy", "patchMergeKey",
        "k8s:optional", "k8s:required", "k8s:default",
        "kubebuilder:default", "kubebuilder:example", "kubebuilder:validation:Optional",
        "kubebuilder:validation:Required", "kubebuilder:validation:ExactlyOneOf", "kubebuilder:validation:AtLeastOneOf",
        *(
            f"kubebuilder:validation:{items}{name}"
            for items in ("", "items:")
            for name in (
                "Enum", "ExclusiveMaximum", "ExclusiveMinimum", "Format", "MaxItems", "MaxLength", "MaxProperties",
                "Maximum", "MinItems", "MinLength", "MinProperties", "Minimum", "MultipleOf", "Pattern", "Type",
                "UniqueItems", "XValidation",
            )
        ),
    }
)  # fmt: skip
"""The identifiers kube-api-linter's linters register whatever their settings: markers with
these identifiers have their `key=value` arguments read after them. Rules that take marker
names in their settings (forbidden, conflicting, preferred markers...) add theirs."""


@dataclass(frozen=True, slots=True)
class Marker:
    """One marker line."""

    identifier: str
    arguments: tuple[tuple[str, str], ...] = ()
    """Named arguments in order; a positional one of a `+k8s:` tag is named ""."""
    payload: str = ""
    """What follows `=` (quotes kept), or the value of a `+k8s:` tag."""
    payload_marker: Marker | None = None
    """The tag a `+k8s:` tag's value is (`+k8s:eachVal=+k8s:minimum=0`)."""
    style: str = KUBEBUILDER
    text: str = ""
    """The comment as written, from `//` to the end of the line."""
    path: str = ""
    line: int = 0
    col: int = 0
    """1-based column of the `//`, in bytes."""
    start: int = 0
    end: int = 0
    """Byte offsets of the comment in its file (`end` excludes the newline)."""

    @property
    def args(self) -> dict[str, str]:
        return dict(self.arguments)

    def __str__(self) -> str:
        """The marker without `// +`, as messages quote it."""
        return self.text.removeprefix(MARKER_PREFIX)

    def same_value(self, other: Marker) -> bool:
        """Same arguments (in any order) and payload."""
        if self.args != other.args or self.payload != other.payload:
            return False
        if (self.payload_marker is None) != (other.payload_marker is None):
            return False
        if self.payload_marker is None or other.payload_marker is None:
            return True
        return self.payload_marker.identifier == other.payload_marker.identifier and self.payload_marker.same_value(
            other.payload_marker
        )


@dataclass
class MarkerSet:
    """Markers by identifier; a marker written twice is there twice."""

    by_identifier: dict[str, list[Marker]] = field(default_factory=dict)

    @classmethod
    def of(cls, markers: Iterable[Marker]) -> MarkerSet:
        found = cls()
        found.add(markers)
        return found

    def add(self, markers: Iterable[Marker]) -> None:
        for marker in markers:
            self.by_identifier.setdefault(marker.identifier, []).append(marker)

    def has(self, identifier: str) -> bool:
        return identifier in self.by_identifier

    def get(self, identifier: str) -> list[Marker]:
        return self.by_identifier.get(identifier, [])

    def has_value(self, text: str, known: frozenset[str] = KNOWN_IDENTIFIERS) -> bool:
        """Whether a marker written as `text` (`listType=map`, `kubebuilder:object:root:=true`)
        is in the set: same identifier, arguments and payload."""
        wanted = parse_marker(text, known)
        if wanted is None:
            return False
        return any(m.same_value(wanted) for m in self.get(wanted.identifier))

    def __iter__(self) -> Iterator[Marker]:
        for markers in self.by_identifier.values():
            yield from markers

    def __len__(self) -> int:
        return sum(len(m) for m in self.by_identifier.values())

    def merged(self, other: MarkerSet) -> MarkerSet:
        """This set's markers, then the other's."""
        found = MarkerSet({k: list(v) for k, v in self.by_identifier.items()})
        found.add(other)
        return found


def is_marker_comment(text: str) -> bool:
    """Whether a whole comment (`// +name...`) is a marker line."""
    return text.startswith(MARKER_PREFIX) and bool(_VALID_START.match(text[len(MARKER_PREFIX) :]))


def parse_marker(content: str, known: frozenset[str] = KNOWN_IDENTIFIERS) -> Marker | None:
    """A marker from what follows `// +` (None when a `+k8s:` tag does not parse)."""
    if content.startswith("k8s:"):
        return _parse_tag(content.strip())
    identifier, arguments, payload = _identifier_and_expressions(content, known)
    return Marker(identifier, arguments, payload)


def marker_of_comment(
    text: str, path: str, line: int, col: int, start: int, known: frozenset[str] = KNOWN_IDENTIFIERS
) -> Marker | None:
    """The marker a comment line (`// +...`, from `//` to the end of the line) is, or None."""
    if not is_marker_comment(text):
        return None
    parsed = parse_marker(text[len(MARKER_PREFIX) :], known)
    if parsed is None:
        return None
    return Marker(
        parsed.identifier, parsed.arguments, parsed.payload, parsed.payload_marker, parsed.style, text, path, line, col,
        start, start + len(text.encode()),
    )  # fmt: skip


def identifier_of(text: str, known: frozenset[str] = KNOWN_IDENTIFIERS) -> str:
    """The identifier of a marker written with a value (`listType=atomic` -> `listType`)."""
    if "=" not in text:
        return text
    parsed = parse_marker(text, known)
    return parsed.identifier if parsed is not None else text


# -- controller-gen style -------------------------------------------------------------------


def _identifier_and_expressions(content: str, known: frozenset[str]) -> tuple[str, tuple[tuple[str, str], ...], str]:
    matched = _longest_known(content, known)
    if matched is not None:
        arguments, payload = _expressions(content[len(matched) :])
        return matched, arguments, payload
    if content.count("=") == 1:
        left, right = content.split("=")
        return left.removesuffix(":"), (), right
    identifier: list[str] = []
    expressions: list[str] = []
    for part in content.split(":"):
        (expressions if "=" in part else identifier).append(part)
    arguments, payload = _expressions(",".join(expressions))
    return ":".join(identifier), arguments, payload


def _longest_known(content: str, known: frozenset[str]) -> str | None:
    if content in known:
        return content
    best = None
    for identifier in known:
        if content.startswith(identifier) and (best is None or len(identifier) > len(best)):
            best = identifier
    return best


def _expressions(text: str) -> tuple[tuple[tuple[str, str], ...], str]:
    text = text.removeprefix(":").replace(":=", "=")
    arguments: dict[str, str] = {}
    payload = ""
    for match in _EXPRESSION.finditer(text):
        expression = match.group(0)
        key, _, value = expression.partition("=")
        if key == "":
            payload = value
        else:
            arguments[key] = value
    return tuple(arguments.items()), payload


# -- validation-gen tags (gengo's codetags grammar) -----------------------------------------


class _TagError(ValueError):
    pass


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def peek(self, n: int = 0) -> str:
        i = self.pos + n
        return self.text[i] if i < len(self.text) else ""

    def next(self) -> str:
        ch = self.peek()
        self.pos += 1
        return ch

    def skip_space(self) -> str:
        while self.peek() and self.peek().isspace():
            self.pos += 1
        return self.peek()

    def ident(self, tag_name: bool) -> str:
        start = self.pos
        if not _ident_begin(self.peek()):
            raise _TagError("expected identifier")
        self.pos += 1
        while self.peek() and (_ident_interior(self.peek()) or (tag_name and self.peek() == ":")):
            self.pos += 1
        return self.text[start : self.pos]

    def number(self) -> str:
        start = self.pos
        if self.peek() in "+-":
            self.pos += 1
        if self.peek() == "0":
            self.pos += 1
            if self.peek() and self.peek() in "xob":
                self.pos += 1
        while self.peek() and (self.peek().isdigit() or self.peek() in "abcdefABCDEF"):
            self.pos += 1
        digits = self.text[start : self.pos]
        try:
            int(digits, 8) if re.fullmatch(r"[+-]?0\d+", digits) else int(digits, 0)
        except ValueError:
            raise _TagError(f"invalid number {digits!r}") from None
        return digits

    def string(self) -> str:
        quote = self.next()
        out: list[str] = []
        while True:
            ch = self.next()
            if ch == "":
                raise _TagError("unterminated string")
            if ch == quote:
                return "".join(out)
            if ch == "\\":
                escaped = self.next()
                if escaped not in (quote, "\\"):
                    raise _TagError(f"unhandled escaped character {escaped!r}")
                out.append(escaped)
            else:
                out.append(ch)

    def trailing_comment(self) -> bool:
        i = 0
        while self.peek(i) and self.peek(i).isspace():
            i += 1
        return self.peek(i) == "#"


def _ident_begin(ch: str) -> bool:
    return bool(ch) and (ch.isalpha() or ch == "_")


def _ident_interior(ch: str) -> bool:
    return bool(ch) and (ch.isalnum() or ch in "_.-")


def _parse_tag(text: str) -> Marker | None:
    try:
        chain = _tag_chain(_Scanner(text))
    except _TagError:
        return None
    marker: Marker | None = None
    for name, arguments, payload in reversed(chain):
        marker = Marker(name, arguments, payload if marker is None else "", marker, DECLARATIVE)
    return marker


def _tag_chain(s: _Scanner) -> list[tuple[str, tuple[tuple[str, str], ...], str]]:
    """The tags of a line, outermost first, the last with its scalar value."""
    chain: list[tuple[str, tuple[tuple[str, str], ...], str]] = []
    while True:
        name = s.ident(tag_name=True)
        arguments: list[tuple[str, str]] = []
        if s.peek() == "(":
            s.next()
            arguments = _tag_arguments(s)
        if s.peek() != "=":
            chain.append((name, tuple(arguments), ""))
            break
        s.next()
        if s.peek() == "+" and _ident_begin(s.peek(1)):
            s.next()
            chain.append((name, tuple(arguments), ""))
            continue
        chain.append((name, tuple(arguments), _tag_value(s)))
        break
    if s.peek() and not s.trailing_comment():
        raise _TagError(f"unexpected character {s.peek()!r}")
    return chain


def _tag_arguments(s: _Scanner) -> list[tuple[str, str]]:
    arguments: list[tuple[str, str]] = []
    name = ""
    while True:
        ch = s.peek()
        if ch == ")" and not name:
            s.next()
            break
        if ch in ("-", "+") or ch.isdigit():
            arguments.append((name, s.number()))
        elif ch in ('"', "`"):
            arguments.append((name, s.string()))
        elif _ident_begin(ch):
            identifier = s.ident(tag_name=False)
            if s.peek() == ":" and not name:
                s.next()
                s.skip_space()
                name = identifier
                continue
            if s.peek() not in (",", ")"):
                raise _TagError("unexpected character in arguments")
            arguments.append((name, identifier))
        else:
            raise _TagError("unexpected character in arguments")
        name = ""
        if s.peek() == ",":
            s.next()
            s.skip_space()
            continue
        if s.peek() == ")":
            s.next()
            break
        raise _TagError("unterminated arguments")
    named = [n for n, _ in arguments if n]
    if named and len(named) != len(arguments):
        raise _TagError("can't mix named and positional arguments")
    if not named and len(arguments) > 1:
        raise _TagError("multiple arguments must use 'name: value' syntax")
    return arguments


def _tag_value(s: _Scanner) -> str:
    ch = s.peek()
    if ch in ("-", "+") or ch.isdigit():
        return s.number()
    if ch in ('"', "`"):
        return s.string()
    if _ident_begin(ch):
        return s.ident(tag_name=False)
    raise _TagError("expected a value after '='")
