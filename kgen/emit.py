"""Emit: write, check or diff generated files against the output directory.

One `Mode` value is passed down (as black does with --check/--diff). Check mode writes
nothing and reports stale, missing and orphaned files (an orphan carries kgen's header
for a generator of this run, but this run did not produce it). A file without kgen's
header is never overwritten or deleted. Writing is all-or-nothing: every file is staged
next to the output first, then moved into place.
"""

from __future__ import annotations

import difflib
import enum
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from kgen.diagnostics import display_path
from kgen.render import GeneratedFile, generator_of


class Mode(enum.Enum):
    WRITE = "write"
    CHECK = "check"


class EmitError(Exception):
    """The output cannot be written safely (exit code 2)."""


@dataclass
class Report:
    """What emit did or would do; owns the exit code."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> bool:
        return bool(self.stale or self.missing or self.orphaned)

    def summary(self, mode: Mode) -> str:
        if mode is Mode.CHECK:
            if not self.drifted:
                return f"kgen: {len(self.unchanged)} generated files are up to date"
            parts = []
            for label, items in (("stale", self.stale), ("missing", self.missing), ("orphaned", self.orphaned)):
                if items:
                    parts.append(f"{len(items)} {label}")
            return "kgen: generated files drifted: " + ", ".join(parts) + "; run `kgen generate` (or `make generate`) to update them"
        return (
            f"kgen: {len(self.written)} written, {len(self.unchanged)} unchanged, {len(self.deleted)} orphaned files removed"
        )


def check_paths(files: list[GeneratedFile]) -> None:
    """Every output path must stay inside the output root, once."""
    seen: set[str] = set()
    for generated in files:
        path = PurePosixPath(generated.path)
        if path.is_absolute() or ".." in path.parts or not path.parts or str(path) != generated.path:
            raise EmitError(f"generator {generated.generator} produced a path outside the output root: {generated.path!r}")
        if generated.path in seen:
            raise EmitError(f"two generated files have the same path: {generated.path}")
        seen.add(generated.path)


def _existing_files(root: Path) -> dict[str, str | None]:
    """Every file under the output root with the generator named in its header (or None)."""
    found: dict[str, str | None] = {}
    if not root.is_dir():
        return found
    for directory, subdirs, filenames in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__" and not d.startswith("."))
        for filename in filenames:
            full = Path(directory) / filename
            relative = full.relative_to(root).as_posix()
            try:
                with open(full, "rb") as handle:
                    head = handle.read(200)
            except OSError:
                continue
            found[relative] = generator_of(head)
    return found


def emit(files: list[GeneratedFile], root: Path, mode: Mode, scope: tuple[str, ...]) -> Report:
    """Write or check `files` under `root`. `scope` names the generators of this run:
    only their files can be reported or removed as orphans."""
    check_paths(files)
    existing = _existing_files(root)
    report = Report()
    conflicts = [f.path for f in files if f.path in existing and existing[f.path] is None]
    if conflicts:
        listing = ", ".join(display_path(root / p) for p in conflicts[:5])
        raise EmitError(
            f"refusing to overwrite files kgen did not generate: {listing}"
            f"{' and more' if len(conflicts) > 5 else ''}; move them away or choose another --output"
        )
    produced = {f.path for f in files}
    report.orphaned = sorted(p for p, g in existing.items() if g is not None and g in scope and p not in produced)
    changed: list[GeneratedFile] = []
    for generated in sorted(files, key=lambda f: f.path):
        target = root / generated.path
        if generated.path not in existing:
            report.missing.append(generated.path)
            changed.append(generated)
            continue
        current = target.read_bytes()
        if current == generated.content.encode("utf-8"):
            report.unchanged.append(generated.path)
        else:
            report.stale.append(generated.path)
            changed.append(generated)
            if mode is Mode.CHECK:
                report.diffs.append(_diff(root, generated.path, current.decode("utf-8", "replace"), generated.content))
    if mode is Mode.CHECK:
        for path in report.missing:
            report.diffs.append(f"missing: {display_path(root / path)}\n")
        for path in report.orphaned:
            report.diffs.append(f"orphaned: {display_path(root / path)} (kgen's header, but this run does not generate it)\n")
        return report
    _write_all(root, changed)
    report.written = [f.path for f in changed]
    for path in report.orphaned:
        (root / path).unlink()
        report.deleted.append(path)
    return report


def _write_all(root: Path, changed: list[GeneratedFile]) -> None:
    if not changed:
        return
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".kgen-staging-", dir=root))
    try:
        staged: list[tuple[Path, Path]] = []
        for generated in changed:
            temporary = staging / f"{len(staged)}.tmp"
            temporary.write_bytes(generated.content.encode("utf-8"))
            staged.append((temporary, root / generated.path))
        for temporary, target in staged:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temporary, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _diff(root: Path, path: str, current: str, expected: str) -> str:
    shown = display_path(root / path)
    lines = difflib.unified_diff(
        current.splitlines(keepends=True),
        expected.splitlines(keepends=True),
        fromfile=f"{shown} (on disk)",
        tofile=f"{shown} (generated)",
    )
    return "".join(lines)
