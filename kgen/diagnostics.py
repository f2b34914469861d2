"""Diagnostics: what is wrong with the user's input, where, and what to do.

Every stage reports problems as `Diagnostic` records into a `Diagnostics` collector
instead of raising, so that a run prints all of them (`path:line:col: error: message`)
and not just the first. A stage that cannot continue calls `raise_if_errors()`.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    """Something kgen passed over that does not change its output; shown with -v."""


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A place in an input file; line and column are 1-based, column in bytes as Go reports it."""

    path: str
    line: int = 0
    col: int = 0

    @classmethod
    def parse(cls, text: str) -> Position:
        """The inverse of str(): `path:line:col` (as the IR records positions)."""
        path, line, col = text.rsplit(":", 2)
        return cls(path, int(line), int(col))

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        if self.col <= 0:
            return f"{self.path}:{self.line}"
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in the input."""

    position: Position
    severity: Severity
    message: str

    def __str__(self) -> str:
        return f"{self.position}: {self.severity.value}: {self.message}"


@dataclass
class Diagnostics:
    """Collects diagnostics from all stages of one run."""

    items: list[Diagnostic] = field(default_factory=list)
    third_party: set[str] = field(default_factory=set)
    """Display paths of directories holding packages the user did not write (the module
    cache, vendor/, import-map directories): their warnings are shown only with -v."""

    def error(self, position: Position, message: str) -> None:
        """Record an error: generation will not write anything."""
        self.items.append(Diagnostic(position, Severity.ERROR, message))

    def warning(self, position: Position, message: str) -> None:
        """Record a warning: printed, but generation goes on."""
        self.items.append(Diagnostic(position, Severity.WARNING, message))

    def note(self, position: Position, message: str) -> None:
        """Record a note: shown only with -v."""
        self.items.append(Diagnostic(position, Severity.NOTE, message))

    def is_verbose(self, diagnostic: Diagnostic) -> bool:
        """Whether the diagnostic is shown only with -v: a note, or a warning about a package
        the user did not write (they cannot act on it in their repository)."""
        if diagnostic.severity is Severity.NOTE:
            return True
        if diagnostic.severity is Severity.ERROR:
            return False
        path = diagnostic.position.path
        return any(path == prefix or path.startswith(prefix + "/") for prefix in self.third_party)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.WARNING]

    def sorted(self) -> list[Diagnostic]:
        """Diagnostics in file order, deduplicated, so output is stable."""
        unique = dict.fromkeys(self.items)
        return sorted(unique, key=lambda d: (d.position, d.severity.value, d.message))

    def raise_if_errors(self) -> None:
        """Stop the run when any error was recorded."""
        if self.errors:
            raise InputError(self.sorted())


class InputError(Exception):
    """The input is invalid; carries every diagnostic found (exit code 2)."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as the user should read it: relative to the working directory when inside it."""
    text = os.fspath(path)
    try:
        relative = os.path.relpath(text)
    except ValueError:
        return text
    return text if relative.startswith("..") else relative


class EmitError(Exception):
    """The output cannot be written safely (exit code 2); raised by `kgen.emit`."""
