"""Go build constraints (`//go:build` and legacy `// +build`), evaluated like `go build` would.

Two files may declare the same type under opposite constraints; only the one whose
constraint holds for the configured tag set is read.
"""

from __future__ import annotations

import re

#: What `go build` on linux/amd64 with cgo sees: GOOS, GOARCH, compiler, unix, cgo,
#: and every release tag. Custom tags (ignore, tools, e2e, ...) are false.
DEFAULT_TAGS = frozenset({"linux", "amd64", "gc", "unix", "cgo"} | {f"go1.{n}" for n in range(1, 40)})

_KNOWN_OS = {
    "aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
    "linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos",
}  # fmt: skip
_KNOWN_ARCH = {
    "386", "amd64", "arm", "arm64", "loong64", "mips", "mips64", "mips64le", "mipsle",
    "ppc64", "ppc64le", "riscv64", "s390x", "wasm",
}  # fmt: skip

_TOKEN = re.compile(r"\s*(\(|\)|!|&&|\|\||[A-Za-z0-9_.]+)")


class ConstraintError(ValueError):
    """A `//go:build` line that is not a valid expression."""


def evaluate(expression: str, tags: frozenset[str] = DEFAULT_TAGS) -> bool:
    """Evaluate a `//go:build` expression against a tag set."""
    tokens = _tokenize(expression)
    pos = 0

    def parse_binary(operator: str, operand) -> bool:
        nonlocal pos
        values = [operand()]
        while pos < len(tokens) and tokens[pos] == operator:
            pos += 1
            values.append(operand())  # every operand is parsed: no short circuit
        return any(values) if operator == "||" else all(values)

    def parse_or() -> bool:
        return parse_binary("||", parse_and)

    def parse_and() -> bool:
        return parse_binary("&&", parse_not)

    def parse_not() -> bool:
        nonlocal pos
        if pos >= len(tokens):
            raise ConstraintError(f"unexpected end of build constraint {expression!r}")
        token = tokens[pos]
        pos += 1
        if token == "!":
            return not parse_not()
        if token == "(":
            value = parse_or()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise ConstraintError(f"missing ')' in build constraint {expression!r}")
            pos += 1
            return value
        if token in (")", "&&", "||"):
            raise ConstraintError(f"unexpected {token!r} in build constraint {expression!r}")
        return token in tags

    result = parse_or()
    if pos != len(tokens):
        raise ConstraintError(f"unexpected {tokens[pos]!r} in build constraint {expression!r}")
    return result


def evaluate_plus_build(lines: list[str], tags: frozenset[str] = DEFAULT_TAGS) -> bool:
    """Legacy `// +build a,b c` lines: space is OR, comma is AND, lines are ANDed."""
    for line in lines:
        options = line.split()
        if not any(
            all((t[1:] not in tags) if t.startswith("!") else (t in tags) for t in o.split(",")) for o in options
        ):
            return False
    return True


def filename_matches(filename: str, tags: frozenset[str] = DEFAULT_TAGS) -> bool:
    """Apply Go's implicit constraints from file names: `_test.go`, `_<GOOS>[_<GOARCH>].go`."""
    stem = filename.removesuffix(".go")
    if stem.endswith("_test"):
        return False
    parts = stem.split("_")
    if len(parts) >= 3 and parts[-2] in _KNOWN_OS and parts[-1] in _KNOWN_ARCH:
        return parts[-2] in tags and parts[-1] in tags
    if len(parts) >= 2 and (parts[-1] in _KNOWN_OS or parts[-1] in _KNOWN_ARCH):
        return parts[-1] in tags
    return True


def _tokenize(expression: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = expression.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise ConstraintError(f"unexpected character {text[pos:].strip()[:1]!r} in build constraint {expression!r}")
        tokens.append(match.group(1))
        pos = match.end()
    return tokens
