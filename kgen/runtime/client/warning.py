"""`Warning` response headers: parsing them and handing them to the caller.

The API server sends deprecation notices and admission warnings as RFC 7234 `Warning`
headers (`299 - "text"`). `parse_warning_headers` reads them as apimachinery's
`net.ParseWarningHeaders` does (several per header, comma-separated, an optional date,
RFC 2047 encoded text tolerated). Each transport gives every warning of every response to
its handler: a callback of the caller's, or by default `PythonWarnings`, which issues each
distinct 299 text once through Python's `warnings` module (category `APIWarning`), as
client-go's deduplicating `WarningWriter` prints each once.
"""

from __future__ import annotations

import email.header
import re
import threading
import unicodedata
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["APIWarning", "WarningHeader", "WarningHandler", "PythonWarnings", "parse_warning_headers"]


class APIWarning(UserWarning):
    """A warning the API server sent (a deprecated API version, an admission warning)."""


@dataclass(frozen=True)
class WarningHeader:
    """One warning of a `Warning` header."""

    code: int
    """The warn-code; the API server sends 299 (miscellaneous persistent warning)."""
    agent: str
    """The warn-agent; `-` when the server does not name itself."""
    text: str
    """The warning's text."""


#: What a transport calls with each warning of each response.
WarningHandler = Callable[[WarningHeader], None]


class PythonWarnings:
    """The default handler: each distinct non-empty 299 warning once, through `warnings.warn`."""

    def __init__(self, deduplicate: bool = True) -> None:
        self._deduplicate = deduplicate
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, warning: WarningHeader) -> None:
        """Issue the warning as an `APIWarning` unless this handler issued the same text before."""
        if warning.code != 299 or not warning.text:
            return
        if self._deduplicate:
            with self._lock:
                if warning.text in self._seen:
                    return
                self._seen.add(warning.text)
        warnings.warn(warning.text, APIWarning, stacklevel=2)


_CODE = re.compile(r"[0-9]{3}")


class _WarningSyntaxError(ValueError):
    pass


def parse_warning_headers(values: Iterable[str]) -> list[WarningHeader]:
    """The warnings of `Warning` header values; a malformed header's remainder is skipped
    and later headers are still read (net.ParseWarningHeaders)."""
    results: list[WarningHeader] = []
    for header in values:
        while header:
            try:
                warning, header = _parse_one(header)
            except _WarningSyntaxError:
                break
            results.append(warning)
    return results


def _parse_one(header: str) -> tuple[WarningHeader, str]:
    """One warning and the rest of the header (net.ParseWarningHeader)."""
    parts = header.strip().split(" ", 2)
    if len(parts) != 3:
        raise _WarningSyntaxError("fewer than 3 segments")
    code, agent, text_and_rest = parts
    if not _CODE.fullmatch(code):
        raise _WarningSyntaxError("code segment is not 3 digits")
    if not agent or _has_control(agent):
        raise _WarningSyntaxError("invalid agent")
    if not text_and_rest:
        raise _WarningSyntaxError("empty text segment")
    text, rest = _parse_quoted(text_and_rest)
    text = _decode_rfc2047(text)
    if _has_control(text):
        raise _WarningSyntaxError("invalid text")
    remainder = ""
    if rest:
        if rest[0] == '"':
            end = rest.find('"', 1)
            if end < 0:
                raise _WarningSyntaxError("unterminated date segment")
            remainder = rest[end + 1 :].strip()
        else:
            remainder = rest
    if remainder:
        if remainder[0] != ",":
            raise _WarningSyntaxError("unexpected token after warn-date")
        remainder = remainder[1:].strip()
    return WarningHeader(int(code), agent, text), remainder


def _parse_quoted(quoted: str) -> tuple[str, str]:
    if not quoted.startswith('"'):
        raise _WarningSyntaxError("missing initial quote")
    out: list[str] = []
    escaping = False
    for index in range(1, len(quoted)):
        ch = quoted[index]
        if ch == '"' and not escaping:
            return "".join(out), quoted[index + 1 :].strip()
        if ch == "\\" and not escaping:
            escaping = True
            continue
        out.append(ch)
        escaping = False
    raise _WarningSyntaxError("missing closing quote")


def _decode_rfc2047(text: str) -> str:
    """Text an RFC 2616 server encoded (`=?UTF-8?Q?...?=`), decoded; other text as it is."""
    if "=?" not in text:
        return text
    try:
        parts = email.header.decode_header(text)
        return "".join(p.decode(charset or "ascii") if isinstance(p, bytes) else p for p, charset in parts)
    except (ValueError, LookupError, UnicodeDecodeError):
        return text


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in text)
