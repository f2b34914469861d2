"""What kgen prints on stderr: diagnostics, progress and the closing summary.

Colour only on a terminal, never with `NO_COLOR` set (https://no-color.org) or
`TERM=dumb`; `FORCE_COLOR` forces it. Progress appears only on a terminal, and only for a
run that has already taken a second, on one line that is cleared before anything else is
printed. `-q` leaves errors alone; `-v` adds notes and warnings about third-party packages.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

import click

from kgen.diagnostics import Diagnostic, Diagnostics, Severity

QUIET, NORMAL, VERBOSE = -1, 0, 1

_STYLES = {
    Severity.ERROR: {"fg": "red", "bold": True},
    Severity.WARNING: {"fg": "yellow", "bold": True},
    Severity.NOTE: {"fg": "cyan"},
}
PROGRESS_AFTER = 1.0
"""Seconds a run takes before it shows progress."""


def wants_color(stream: TextIO) -> bool:
    """Whether to colour what goes to `stream`, as the conventions of terminals say."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


class Console:
    """One run's stderr."""

    def __init__(self, verbosity: int = NORMAL, stream: TextIO | None = None):
        self.verbosity = verbosity
        self._stream = stream
        self.started = time.monotonic()
        self._status = ""

    @property
    def stream(self) -> TextIO:
        """The stream given, else stderr as it is now (a test runner may have replaced it)."""
        return self._stream if self._stream is not None else sys.stderr

    @property
    def color(self) -> bool:
        return wants_color(self.stream)

    @property
    def interactive(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"

    # -- lines -------------------------------------------------------------------------

    def _echo(self, text: str) -> None:
        self.clear_progress()
        click.echo(text, file=self.stream, color=self.color)

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """`path:line:col: error: message`, the severity coloured."""
        label = diagnostic.severity.value + ":"
        styled = click.style(label, **_STYLES[diagnostic.severity]) if self.color else label
        self._echo(f"{diagnostic.position}: {styled} {diagnostic.message}")

    def error(self, message: str) -> None:
        """A run-level error (settings, the output directory): `kgen: error: ...`."""
        label = click.style("error:", **_STYLES[Severity.ERROR]) if self.color else "error:"
        self._echo(f"kgen: {label} {message}")

    def summary(self, message: str) -> None:
        """The closing line of a run; `-q` leaves it out."""
        if self.verbosity > QUIET:
            self._echo(message)

    def warnings(self, diagnostics: Diagnostics) -> int:
        """Print the warnings (and with -v the notes and the third-party warnings), in file
        order; returns how many warnings were shown. `-q` shows none."""
        hidden = shown = 0
        for diagnostic in diagnostics.sorted():
            if diagnostic.severity is Severity.ERROR:
                continue
            if diagnostics.is_verbose(diagnostic) and self.verbosity < VERBOSE:
                hidden += diagnostic.severity is Severity.WARNING
                continue
            shown += diagnostic.severity is Severity.WARNING
            if self.verbosity > QUIET:
                self.diagnostic(diagnostic)
        if hidden and self.verbosity > QUIET:
            self._echo(
                f"kgen: {hidden} warning{'s' if hidden != 1 else ''} about third-party packages not shown (-v shows them)"
            )
        return shown

    # -- progress ------------------------------------------------------------------------

    def progress(self, status: str) -> None:
        """Say what the run is doing now: shown on a terminal once the run has taken a second."""
        if not self.interactive or self.verbosity <= QUIET:
            return
        if time.monotonic() - self.started < PROGRESS_AFTER:
            return
        line = f"kgen: {status}"[: _width() - 1]
        self.stream.write("\r" + line + " " * max(0, len(self._status) - len(line)))
        self.stream.flush()
        self._status = line

    def clear_progress(self) -> None:
        if self._status:
            self.stream.write("\r" + " " * len(self._status) + "\r")
            self.stream.flush()
            self._status = ""


def _width() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError):
        return 80
