"""Find and read Go packages under an input directory.

A package is a directory of `.go` files. Go's rules for what belongs to a build apply:
`_test.go` files, files for other platforms, files whose build constraints are false,
files that carry a `Code generated ... DO NOT EDIT.` header, and directories named
`testdata`, `vendor` or starting with `.` or `_` are not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kgen.diagnostics import Diagnostics, Position, display_path
from kgen.source import buildtags
from kgen.source.parser import parse_go_file
from kgen.source.syntax import GoFile


@dataclass(frozen=True, slots=True)
class SourcePackage:
    """The files of one Go package as read from disk."""

    import_path: str
    directory: Path
    relative_dir: str  # relative to the input root, "/"-separated, "" for the root itself
    files: tuple[GoFile, ...]


def load_package(
    directory: Path,
    import_path: str,
    diagnostics: Diagnostics,
    tags: frozenset[str] = buildtags.DEFAULT_TAGS,
) -> SourcePackage | None:
    """Read the one Go package in `directory` (not those below it), or None when it has no
    Go files for this build."""
    found = _read_directory(directory, display_path(directory), "", import_path, diagnostics, tags)
    return found


def load_packages(
    root: Path,
    module: str,
    diagnostics: Diagnostics,
    tags: frozenset[str] = buildtags.DEFAULT_TAGS,
    label: str | None = None,
) -> list[SourcePackage]:
    """Read every Go package below `root`; `module` is the import path of `root`.

    `label` is how paths are shown in diagnostics and headers (defaults to the path as
    the user would read it)."""
    packages: list[SourcePackage] = []
    base_label = label if label is not None else display_path(root)
    for directory, subdirs, _ in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith((".", "_")) and d not in ("testdata", "vendor"))
        relative = Path(directory).relative_to(root).as_posix()
        relative = "" if relative == "." else relative
        import_path = "/".join(p for p in (module, relative) if p)
        found = _read_directory(Path(directory), base_label, relative, import_path, diagnostics, tags)
        if found is not None:
            packages.append(found)
    return packages


def _read_directory(
    directory: Path, base_label: str, relative: str, import_path: str, diagnostics: Diagnostics, tags: frozenset[str]
) -> SourcePackage | None:
    files: list[GoFile] = []
    try:
        filenames = sorted(os.listdir(directory))
    except OSError as err:
        diagnostics.error(Position(display_path(directory)), f"cannot read directory: {err.strerror}")
        return None
    for filename in filenames:
        if not filename.endswith(".go") or not buildtags.filename_matches(filename, tags):
            continue
        shown = "/".join(p for p in (base_label, relative, filename) if p)
        if not (directory / filename).is_file():
            if (directory / filename).is_symlink():  # a dangling link: the go command cannot open it either
                diagnostics.error(
                    Position(shown, 1, 1),
                    "cannot read file: it is a symbolic link to nothing; remove it or fix its target",
                )
            continue
        try:
            source = (directory / filename).read_bytes()
        except OSError as err:
            diagnostics.error(Position(shown, 1, 1), f"cannot read file: {err.strerror}")
            continue
        parsed = parse_go_file(shown, source, diagnostics, tags)
        if parsed is not None and not parsed.generated:
            files.append(parsed)
    if not files:
        return None
    names = sorted({f.package for f in files})
    if len(names) > 1:
        for f in files:
            if f.package != names[0]:
                diagnostics.error(
                    f.package_position,
                    f"package {f.package} conflicts with package {names[0]} in the same directory; "
                    "one directory holds one Go package",
                )
        return None
    return SourcePackage(import_path, directory, relative, tuple(files))
