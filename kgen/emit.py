"""Emit: write, check or diff generated files against the output directory.

One `Mode` value is passed down (as black does with --check/--diff). Check mode writes
nothing and reports stale, missing and orphaned files. A file without kgen's header, one
kgen cannot read, a symbolic link or anything that is not a regular file is never
overwritten or deleted, and links inside the output root are never followed.

An orphan is a file with kgen's header, for a generator of this run, that this run does
not produce, in a directory this run writes into (or in a package directory below one,
all of whose files are such orphans: a package removed from the API). Files elsewhere
under the output root (another project's, for one) are never orphans.

Writing is all-or-nothing. Every check that can fail is made first; then every new file
is staged in a directory inside the output root, with a journal of what goes where. The
commit is one atomic rename of that directory; only then are files moved into place and
orphans removed. A run that is killed before the commit leaves the old tree (its staging
directory is removed by the next run); one killed after it leaves a committed journal that
the next run (or `recover`) completes, giving the new tree. Runs on one output root take
turns (an advisory lock on the root directory).
"""

from __future__ import annotations

import contextlib
import difflib
import enum
import fcntl
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from kgen.diagnostics import EmitError, display_path
from kgen.render import GeneratedFile, generator_of

STAGING_PREFIX = ".kgen-staging-"
COMMIT_PREFIX = ".kgen-commit-"
JOURNAL = "journal.json"


class Mode(enum.Enum):
    WRITE = "write"
    CHECK = "check"


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
    interrupted: bool = False
    """An earlier run was killed after its commit; its changes are not all in place yet."""

    @property
    def drifted(self) -> bool:
        return bool(self.stale or self.missing or self.orphaned or self.interrupted)

    def summary(self, mode: Mode) -> str:
        if mode is Mode.CHECK:
            if not self.drifted:
                return f"kgen: {len(self.unchanged)} generated files are up to date"
            parts = []
            for label, items in (("stale", self.stale), ("missing", self.missing), ("orphaned", self.orphaned)):
                if items:
                    parts.append(f"{len(items)} {label}")
            if self.interrupted:
                parts.append("an interrupted run's changes half-applied")
            return "kgen: generated files drifted: " + ", ".join(parts) + "; run `kgen generate` to update them"
        return f"kgen: {len(self.written)} written, {len(self.unchanged)} unchanged, {len(self.deleted)} orphaned files removed"


def check_paths(files: list[GeneratedFile]) -> None:
    """Every output path must stay inside the output root, once."""
    seen: set[str] = set()
    for generated in files:
        path = PurePosixPath(generated.path)
        if (
            path.is_absolute()
            or ".." in path.parts
            or not path.parts
            or str(path) != generated.path
            or path.parts[0].startswith((STAGING_PREFIX, COMMIT_PREFIX))
        ):
            raise EmitError(
                f"generator {generated.generator} produced a path outside the output root: {generated.path!r}"
            )
        if generated.path in seen:
            raise EmitError(f"two generated files have the same path: {generated.path}")
        seen.add(generated.path)
        long = next((part for part in path.parts if len(part.encode("utf-8")) > NAME_MAX), None)
        if long is not None:
            # checked before anything is written: a file system refuses the name half-way through
            raise EmitError(
                f"generator {generated.generator} would write a file name of {len(long.encode('utf-8'))} bytes "
                f"({long[:40]}...), more than the {NAME_MAX} file systems allow: shorten the name it comes from "
                "(a kind, group or package name)"
            )


#: The longest file name (in bytes) that Linux and macOS file systems take.
NAME_MAX = 255


def check_root(root: Path, input_dir: Path | None = None, force: bool = False) -> None:
    """Refuse output roots where writing or removing orphans could do harm: `/`, the home
    directory, the input directory or one that contains it, a regular file, and a
    non-empty directory that holds no kgen output (each but the file allowed by `force`)."""
    if root.exists() and not root.is_dir():
        raise EmitError(f"--output {display_path(root)} is not a directory")
    resolved = root.resolve()
    reasons = []
    if resolved == Path(resolved.anchor):
        reasons.append("it is the file system's root")
    with contextlib.suppress(RuntimeError, KeyError):
        if resolved == Path.home().resolve():
            reasons.append("it is the home directory")
    if input_dir is not None:
        source = input_dir.resolve()
        if resolved == source:
            reasons.append("it is the input directory")
        elif resolved in source.parents:
            reasons.append(f"it contains the input directory {display_path(input_dir)}")
    if not reasons and root.is_dir() and not _holds_kgen_output(root):
        reasons.append("it is not empty and holds no file kgen generated")
    if reasons and not force:
        raise EmitError(
            f"refusing to write into {display_path(root)}: {'; '.join(reasons)}; choose another --output, "
            "or pass --force if this directory really is meant for generated files"
        )


def _holds_kgen_output(root: Path) -> bool:
    """True when the directory is empty or holds at least one file with kgen's header."""
    empty, looked = True, 0
    for directory, subdirs, filenames in os.walk(root):
        subdirs[:] = [d for d in subdirs if d != "__pycache__" and not d.startswith(".")]
        for filename in filenames:
            empty = False
            looked += 1
            if _read_generator(Path(directory) / filename)[0] == "kgen":
                return True
            if looked >= _LOOK_LIMIT:
                return False  # a large tree of other files: not an output directory
        if subdirs and directory == str(root):
            empty = False
    return empty


_LOOK_LIMIT = 20_000


# -- what is on disk ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    kind: str
    """kgen (a regular file with kgen's header), user (a regular file without), unreadable,
    link (a symbolic link), special (a socket, device...) or directory."""
    generator: str | None = None


def _read_generator(path: Path) -> tuple[str, str | None]:
    """What a path is, without following a link: (kind, generator of its header)."""
    try:
        info = os.lstat(path)
    except OSError:
        return "unreadable", None
    if stat.S_ISLNK(info.st_mode):
        return "link", None
    if stat.S_ISDIR(info.st_mode):
        return "directory", None
    if not stat.S_ISREG(info.st_mode):
        return "special", None
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            head = os.read(descriptor, 200)
        finally:
            os.close(descriptor)
    except OSError:
        return "unreadable", None
    generator = generator_of(head)
    return ("kgen" if generator is not None else "user"), generator


def _scan(root: Path) -> dict[str, _Entry]:
    """Every entry under the output root, links included (and not followed)."""
    found: dict[str, _Entry] = {}
    if not root.is_dir():
        return found
    for directory, subdirs, filenames in os.walk(root):
        base = Path(directory)
        kept = []
        for name in sorted(subdirs):
            if name == "__pycache__" or name.startswith((STAGING_PREFIX, COMMIT_PREFIX)):
                continue
            full = base / name
            if os.path.islink(full):
                found[full.relative_to(root).as_posix()] = _Entry("link")
                continue
            found[full.relative_to(root).as_posix()] = _Entry("directory")
            kept.append(name)
        subdirs[:] = kept
        for filename in filenames:
            full = base / filename
            kind, generator = _read_generator(full)
            found[full.relative_to(root).as_posix()] = _Entry(kind, generator)
    return found


_REFUSALS = {
    "user": "a file kgen did not generate",
    "unreadable": "a file kgen cannot read (so cannot tell whether it generated it)",
    "link": "a symbolic link (kgen does not follow links inside the output root)",
    "special": "not a regular file",
    "directory": "a directory where kgen writes a file",
}


def _preflight(root: Path, files: list[GeneratedFile], existing: dict[str, _Entry]) -> None:
    """Everything that would stop a write part-way, found before anything is written."""
    problems: list[str] = []
    for generated in files:
        entry = existing.get(generated.path)
        if entry is not None and entry.kind != "kgen":
            problems.append(f"{display_path(root / generated.path)} is {_REFUSALS[entry.kind]}")
        parts = PurePosixPath(generated.path).parts
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            above = existing.get(parent)
            if above is not None and above.kind != "directory":
                what = "a symbolic link" if above.kind == "link" else "a file"
                problems.append(f"{display_path(root / parent)} is {what} where kgen needs a directory")
                break
    if problems:
        shown = "; ".join(sorted(set(problems))[:5])
        more = f" (and {len(set(problems)) - 5} more)" if len(set(problems)) > 5 else ""
        raise EmitError(f"refusing to write: {shown}{more}; move them away or choose another --output")


def _check_writable(root: Path, targets: list[str]) -> None:
    """The directories that would receive files must be writable (checked before any write)."""
    checked: set[Path] = set()
    for relative in targets:
        directory = (root / relative).parent
        while not directory.exists() and directory != root and root in directory.parents:
            directory = directory.parent
        if directory in checked:
            continue
        checked.add(directory)
        if not os.access(directory, os.W_OK | os.X_OK):
            raise EmitError(f"cannot write into {display_path(directory)}: permission denied")


# -- orphans --------------------------------------------------------------------------------


def _orphans(
    existing: dict[str, _Entry], produced: set[str], scope: tuple[str, ...], homes: Mapping[str, str]
) -> list[str]:
    owned = {str(PurePosixPath(p).parent) for p in produced}
    ours = {p for p, e in existing.items() if e.kind == "kgen" and e.generator in scope}
    orphans = {p for p in ours if p not in produced and str(PurePosixPath(p).parent) in owned}
    # Anywhere in a directory that only one generator writes (`homes`): a file of that
    # generator this run does not produce (a renamed group's OpenAPI, a removed kind's CRD).
    orphans.update(
        p for p in ours
        if p not in produced and (home := homes.get(existing[p].generator or "")) is not None and p.startswith(home)
    )  # fmt: skip
    # A package directory below one this run writes into, all of whose files are kgen's
    # files of this run's generators (and none produced): a package removed from the API.
    files_below: dict[str, list[str]] = {}
    for path, entry in existing.items():
        if entry.kind == "directory":
            continue
        for parent in PurePosixPath(path).parents:
            if str(parent) == ".":
                break
            files_below.setdefault(str(parent), []).append(path)
    for directory, below in files_below.items():
        parent = str(PurePosixPath(directory).parent)
        if parent not in owned or directory in owned:
            continue
        if any(p in produced for p in below) or not all(p in ours for p in below):
            continue
        if f"{directory}/__init__.py" in ours:
            orphans.update(below)
    return sorted(orphans)


# -- the transaction -----------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    """An exclusive advisory lock on the output root for the length of a write."""
    descriptor = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def recover(root: Path) -> bool:
    """Finish what an interrupted run left: complete a committed journal (its files are
    moved into place, its orphans removed) and remove uncommitted staging directories.
    Returns True when a committed journal was completed. The caller holds the lock."""
    completed = False
    if not root.is_dir():
        return completed
    for entry in sorted(os.listdir(root)):
        path = root / entry
        if entry.startswith(COMMIT_PREFIX) and path.is_dir() and not path.is_symlink():
            _apply(root, path)
            completed = True
        elif entry.startswith(STAGING_PREFIX) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
    return completed


def interrupted(root: Path) -> bool:
    """True when a committed journal of an interrupted run is waiting to be completed."""
    return root.is_dir() and any(e.startswith(COMMIT_PREFIX) and (root / e).is_dir() for e in os.listdir(root))


def _apply(root: Path, commit: Path) -> None:
    """Move a committed journal's files into place and remove its orphans; idempotent, so a
    run killed while applying is completed by the next."""
    try:
        journal = json.loads((commit / JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        journal = {"writes": [], "deletes": []}  # only a directory written before its journal
    for staged, relative in journal["writes"]:
        source = commit / staged
        if not source.exists():
            continue  # moved before the interruption
        target = root / relative
        _make_parents(root, target.parent)
        os.replace(source, target)
    for relative in journal["deletes"]:
        target = root / relative
        if _read_generator(target)[0] == "kgen":
            target.unlink()
            _remove_empty_parents(root, target.parent)
    # Retire the journal in one rename before removing it, so that a run killed while the
    # directory is being removed never leaves a committed journal with files missing.
    retired = root / (STAGING_PREFIX + "done-" + commit.name.removeprefix(COMMIT_PREFIX))
    os.rename(commit, retired)
    _fsync_directory(root)
    shutil.rmtree(retired, ignore_errors=True)


def _make_parents(root: Path, directory: Path) -> None:
    """Create a directory below the root, refusing to pass through a link."""
    relative = directory.relative_to(root)
    current = root
    for part in relative.parts:
        current = current / part
        if current.is_symlink():
            raise EmitError(
                f"{display_path(current)} is a symbolic link; kgen does not follow links inside the output root"
            )
        if not current.exists():
            current.mkdir()


def _remove_empty_parents(root: Path, directory: Path) -> None:
    while directory != root and root in directory.parents:
        pycache = directory / "__pycache__"
        if pycache.is_dir() and not pycache.is_symlink():
            shutil.rmtree(pycache, ignore_errors=True)
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def _write_all(root: Path, changed: list[GeneratedFile], deletes: list[str]) -> None:
    if not changed and not deletes:
        return
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    try:
        writes = []
        for index, generated in enumerate(changed):
            name = f"{index}.tmp"
            (staging / name).write_bytes(generated.content.encode("utf-8"))
            writes.append([name, generated.path])
        journal = staging / JOURNAL
        journal.write_text(json.dumps({"writes": writes, "deletes": deletes}), encoding="utf-8")
        with open(journal, "rb") as handle:
            os.fsync(handle.fileno())
        commit = root / (COMMIT_PREFIX + staging.name.removeprefix(STAGING_PREFIX))
        os.rename(staging, commit)  # the commit point
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _fsync_directory(root)
    try:
        _apply(root, commit)
    except OSError as err:
        where = f" ({display_path(Path(err.filename))})" if err.filename else ""
        raise EmitError(
            f"writing the generated files stopped part-way{where}: {err.strerror}; the run is recorded in "
            f"{display_path(commit)} and the next `kgen generate` completes it once this is fixed"
        ) from None


# -- emit ---------------------------------------------------------------------------------------


def emit(
    files: list[GeneratedFile],
    root: Path,
    mode: Mode,
    scope: tuple[str, ...],
    input_dir: Path | None = None,
    force: bool = False,
    homes: Mapping[str, str] | None = None,
) -> Report:
    """Write or check `files` under `root`. `scope` names the generators of this run:
    only their files can be reported or removed as orphans; `homes` names the directories
    (relative to `root`, "" for all of it) that hold one generator's files only."""
    homes = homes or {}
    check_paths(files)
    check_root(root, input_dir, force)
    if mode is Mode.CHECK:
        return _compare(files, root, mode, scope, _scan(root), interrupted(root), homes)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise EmitError(f"cannot create the output directory {display_path(root)}: {err.strerror}") from None
    if not os.access(root, os.W_OK | os.X_OK):
        raise EmitError(f"cannot write into {display_path(root)}: permission denied")
    with _locked(root):
        recover(root)
        report = _compare(files, root, mode, scope, _scan(root), False, homes)
        changed = [f for f in sorted(files, key=lambda f: f.path) if f.path in set(report.missing) | set(report.stale)]
        try:
            _write_all(root, changed, report.orphaned)
        except OSError as err:
            where = f" ({display_path(Path(err.filename))})" if err.filename else ""
            raise EmitError(f"cannot write the generated files{where}: {err.strerror}; nothing was changed") from None
        report.written = [f.path for f in changed]
        report.deleted = list(report.orphaned)
    return report


def _compare(
    files: list[GeneratedFile],
    root: Path,
    mode: Mode,
    scope: tuple[str, ...],
    existing: dict[str, _Entry],
    pending: bool,
    homes: Mapping[str, str],
) -> Report:
    _preflight(root, files, existing)
    if mode is Mode.WRITE:
        _check_writable(root, [f.path for f in files])
    report = Report(interrupted=pending)
    produced = {f.path for f in files}
    report.orphaned = _orphans(existing, produced, scope, homes)
    for generated in sorted(files, key=lambda f: f.path):
        if generated.path not in existing:
            report.missing.append(generated.path)
            continue
        current = (root / generated.path).read_bytes()
        if current == generated.content.encode("utf-8"):
            report.unchanged.append(generated.path)
        else:
            report.stale.append(generated.path)
            if mode is Mode.CHECK:
                report.diffs.append(_diff(root, generated.path, current.decode("utf-8", "replace"), generated.content))
    if mode is Mode.CHECK:
        for path in report.missing:
            report.diffs.append(f"missing: {display_path(root / path)}\n")
        for path in report.orphaned:
            report.diffs.append(
                f"orphaned: {display_path(root / path)} (kgen's header, but this run does not generate it)\n"
            )
        if pending:
            report.diffs.append(
                f"interrupted: {display_path(root)} has a committed but unfinished run; `kgen generate` completes it\n"
            )
    return report


def _diff(root: Path, path: str, current: str, expected: str) -> str:
    shown = display_path(root / path)
    lines = difflib.unified_diff(
        current.splitlines(keepends=True),
        expected.splitlines(keepends=True),
        fromfile=f"{shown} (on disk)",
        tofile=f"{shown} (generated)",
    )
    return "".join(lines)
