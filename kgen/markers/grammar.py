"""The marker grammar: finding `// +marker` lines and splitting them into parts.

Extraction (which comment lines are markers) is separate from parsing (what a marker
line says). This module knows no marker names; `kgen.markers.registry` gives them types.

    +name                              a flag
    +name=value                        a value (quoted values may hold = , ; and \\")
    +prefix:name=value                 names are ':'-separated paths
    +name(arg)                         one positional argument
    +name(k: v, k2: "v")=value         named arguments (validation-gen style)
    +k8s:eachVal=+k8s:minimum=0        a value that is itself a marker (chained)
    +kubebuilder:resource:path=x,scope=Cluster    controller-gen style arguments
    +kubebuilder:validation:Minimum:=1 controller-gen's tolerated ':=' spelling
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgen.diagnostics import Position
from kgen.source.syntax import CommentBlock
from kgen.source.tags import unquote_go

_NAME = re.compile(r"[A-Za-z0-9_.\-/:]+")


@dataclass(frozen=True, slots=True)
class RawMarker:
    """A marker line as written, without the leading `+`."""

    text: str
    position: Position


@dataclass(frozen=True, slots=True)
class MarkerSyntax:
    """A marker split into its parts, before types are applied."""

    name: str
    paren: str | None  # text between ( and ), None when there were no parentheses
    value: str | None  # text after '=', None for a flag


class MarkerSyntaxError(ValueError):
    """A marker line that the grammar cannot split."""


class ProseAfterName(MarkerSyntaxError):
    """A `+name` followed by words (`+optional, default GET`, `+required - the name`): prose
    that starts like a marker, which controller-gen and gengo ignore."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def extract_markers(block: CommentBlock) -> list[RawMarker]:
    """The marker lines of a comment block: lines whose text starts with `+<letter>`."""
    out: list[RawMarker] = []
    for line in block.lines:
        stripped = line.text.lstrip()
        if len(stripped) < 2 or stripped[0] != "+" or not stripped[1].isalpha():
            continue
        col = line.position.col + 2 + (len(line.text) - len(stripped))  # the column of the '+'
        position = Position(line.position.path, line.position.line, col)
        out.append(RawMarker(stripped[1:].rstrip(), position))
    return out


def doc_lines(block: CommentBlock) -> list[str]:
    """The documentation lines of a comment block: every line that is not a marker."""
    lines: list[str] = []
    for line in block.lines:
        stripped = line.text.lstrip()
        if len(stripped) >= 2 and stripped[0] == "+" and stripped[1].isalpha():
            continue
        lines.append(line.text[1:] if line.text.startswith(" ") else line.text)
    return lines


def strip_trailing_comment(text: str) -> str:
    """A validation-gen tag without its trailing comment: gengo's codetags parser ends a tag
    at whitespace followed by `#` (`+k8s:maximum=1000000000 # HighestUserDefinablePriority`)
    outside quotes and parentheses; a `//` after whitespace is read the same way."""
    for index, ch, depth in _unquoted(text):
        if depth == 0 and ch in "#/" and index > 0 and text[index - 1] in " \t":
            if ch == "#" or text.startswith("//", index):
                return text[:index].rstrip()
    return text


def split_marker(text: str) -> MarkerSyntax:
    """Split `name(args)=value` into its parts."""
    match = _NAME.match(text)
    if not match:
        raise MarkerSyntaxError(f"marker +{text} does not start with a name")
    name = match.group(0)
    if name.startswith("k8s:"):
        text = strip_trailing_comment(text)
    rest = text[match.end() :]
    if name.endswith(":") and rest.startswith("="):
        name = name[:-1]  # controller-gen's `+name:=value`
    paren: str | None = None
    if rest.startswith("("):
        end = _matching_paren(rest)
        if end < 0:
            raise MarkerSyntaxError(f"marker +{text} has an unclosed '('")
        paren = rest[1:end]
        rest = rest[end + 1 :]
    if not rest:
        return MarkerSyntax(name, paren, None)
    if rest.startswith("="):
        return MarkerSyntax(name, paren, rest[1:])
    raise ProseAfterName(
        f"marker +{text}: unexpected {rest[:10]!r} after the name; expected '=' or the end of the line", name
    )


def _unquoted(text: str):
    """Yield (index, char, depth) for characters outside quoted strings, after the
    depth of brackets ((, {, [) is updated for that character."""
    depth = 0
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in '"`':
            quote = ch
        else:
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            yield i, ch, depth
        i += 1


def _matching_paren(text: str) -> int:
    """The index of the ')' that closes the '(' at the start of `text`, or -1."""
    for index, ch, depth in _unquoted(text):
        if ch == ")" and depth == 0:
            return index
    return -1


def split_top_level(text: str, separator: str) -> list[str]:
    """Split on `separator` outside quotes, parentheses and braces."""
    parts: list[str] = []
    start = 0
    for index, ch, depth in _unquoted(text):
        if ch == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def unquote(text: str) -> str:
    """Strip one level of Go quoting (`"..."` or `` `...` ``); other text is returned trimmed."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return unquote_go(text[1:-1])
    if len(text) >= 2 and text[0] == text[-1] == "`":
        return text[1:-1]
    return text


def parse_named_args(text: str) -> dict[str, str]:
    """Arguments inside parentheses: `k: v, k2: "v"`, or one positional value under ""."""
    text = text.strip()
    if not text:
        return {}
    parts = split_top_level(text, ",")
    if len(parts) == 1 and not re.match(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*:", parts[0]):
        return {"": parts[0].strip()}
    args: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition(":")
        if not sep or not key.strip():
            raise MarkerSyntaxError(f"argument {part.strip()!r} is not of the form `name: value`")
        args[key.strip()] = value.strip()
    return args


def parse_keyword_args(text: str) -> dict[str, str]:
    """controller-gen style arguments: `k=v,k2="v,w",k3={a,b}`."""
    args: dict[str, str] = {}
    for part in split_top_level(text, ","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise MarkerSyntaxError(f"argument {part.strip()!r} is not of the form `name=value`")
        args[key.strip()] = value.strip()
    return args


# -- controller-gen's untyped values ------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<string>"(?:[^"\\\n]|\\.)*"|`[^`]*`|'(?:[^'\\\n]|\\.)+')
      | (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+)
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<other>\S)
    )""",
    re.VERBOSE,
)


class _Scanner:
    """Go's text/scanner tokens, enough of them for controller-gen's value syntax."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def peek(self) -> tuple[str, str, int, int]:
        """(kind, text, start, end) of the next token; kind "eof" at the end."""
        match = _TOKEN.match(self.text, self.pos)
        if match is None or match.lastgroup is None:
            return "eof", "", len(self.text), len(self.text)
        return match.lastgroup, match.group(match.lastgroup), match.start(match.lastgroup), match.end()

    def next(self) -> tuple[str, str, int, int]:
        token = self.peek()
        self.pos = token[3]
        return token

    def expect(self, char: str) -> None:
        kind, text, start, _ = self.next()
        if text != char or kind != "other":
            found = "the end" if kind == "eof" else repr(text)
            raise ValueError(f"expected {char!r} at offset {start}, found {found}")


def parse_untyped(text: str):
    """A value in controller-gen's marker syntax for untyped arguments (`+kubebuilder:default`).

    Quoted strings, `true`/`false`, numbers, `{k: v, ...}` maps, `{a, b}` lists (typed by
    their first item), legacy `a;b` lists, and anything else as a bare string up to the
    next `,`, `;` or `}`, as sigs.k8s.io/controller-tools guesses them.
    """
    scanner = _Scanner(text)
    value = _any(scanner, in_slice=False)
    kind, rest, start, _ = scanner.peek()
    if kind != "eof":
        raise ValueError(f"unexpected {rest!r} at offset {start} after the value")
    return value


def _any(scanner: _Scanner, in_slice: bool):
    guess = _guess(scanner)
    if not in_slice and _legacy_list(scanner):
        items = [_parse(scanner, guess)]
        while scanner.peek()[1] == ";":
            scanner.next()
            items.append(_parse(scanner, guess))
        return items
    return _parse(scanner, guess)


def _legacy_list(scanner: _Scanner) -> bool:
    """controller-gen's look-ahead: a ';' before any ',' makes a `a;b;c` list."""
    probe = _Scanner(scanner.text)
    probe.pos = scanner.pos
    while True:
        kind, token, _, _ = probe.next()
        if kind == "eof" or token == ",":
            return False
        if token == ";" and kind == "other":
            return True


def _guess(scanner: _Scanner) -> tuple:
    """The type controller-gen guesses for the next value: ("string"|"bool"|"int"|"float"|
    "map"|("list", item type))."""
    probe = _Scanner(scanner.text)
    probe.pos = scanner.pos
    kind, token, _, _ = probe.peek()
    if kind == "string":
        return ("string",)
    if token == "{" and kind == "other":
        probe.next()
        if probe.peek()[1] == "}":
            return ("map",)
        first = _guess(probe)
        if first == ("string",):
            _string(probe, in_map=True)
            if probe.peek()[1] == ":":
                return ("map",)
        return ("list", first)
    if kind == "ident" and token in ("true", "false"):
        return ("bool",)
    if token == "-" and kind == "other":
        probe.next()
        kind, token, _, _ = probe.peek()
    if kind == "number" and not re.fullmatch(r"0\d*[89]\d*|0[xX].*", token):  # Go's scanner rejects 08
        probe.next()
        if probe.peek()[1] in (",", ";", "}", ""):
            return ("int",) if token.isdigit() else ("float",)
    return ("string",)


def _parse(scanner: _Scanner, guess: tuple):
    if guess[0] == "string":
        return _string(scanner, in_map=False)
    # A list's items all have the type of its first item, as in controller-gen.
    if guess[0] == "bool":
        kind, token, start, _ = scanner.next()
        if token not in ("true", "false"):
            raise ValueError(f"expected true or false at offset {start}, like the list's first item, found {token!r}")
        return token == "true"
    if guess[0] in ("int", "float"):
        sign = "-" if scanner.peek()[1] == "-" and scanner.next() else ""
        kind, token, start, _ = scanner.next()
        if kind != "number" or (guess[0] == "int" and not token.isdigit()):
            wanted = "an integer" if guess[0] == "int" else "a number"
            raise ValueError(f"expected {wanted} at offset {start}, like the list's first item, found {token!r}")
        return int(sign + token, 10) if guess[0] == "int" else float(sign + token)
    scanner.expect("{")
    if guess[0] == "map":
        out: dict = {}
        while scanner.peek()[1] not in ("}", ""):
            key = _string(scanner, in_map=True)
            scanner.expect(":")
            out[key] = _any(scanner, in_slice=False)
            if scanner.peek()[1] in ("}", ""):
                break
            scanner.expect(",")
        scanner.expect("}")
        return out
    items: list = []
    while scanner.peek()[1] not in ("}", ""):
        items.append(_parse(scanner, guess[1]))
        if scanner.peek()[1] in ("}", ""):
            break
        scanner.expect(",")
    scanner.expect("}")
    return items


def _string(scanner: _Scanner, in_map: bool) -> str:
    """A quoted string, or bare tokens up to a delimiter (`:` too inside a map)."""
    kind, token, start, end = scanner.peek()
    if kind == "string":
        scanner.next()
        if token[0] == "`":
            return token[1:-1]
        return unquote_go(token[1:-1])
    delimiters = {",", ";", "}", ""} | ({":"} if in_map else set())
    first = end = start
    while (token := scanner.peek())[1] not in delimiters or token[0] == "string":
        end = scanner.next()[3]
    return scanner.text[first:end]
