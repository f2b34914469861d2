"""What `--against` names, read into a `Snapshot`: a git revision, a directory, or CRD files.

- a path that exists: CRD manifests (a file, or a directory holding no Go files), or a
  directory of Go API types (built with the run's options, its module from its go.mod);
- anything else is a git revision of the repository the input is in (`origin/main`,
  `v1.4.0`, `HEAD~1`): its tree is extracted with `git archive` into a temporary directory
  and built as the working tree is, the input and import-map directories inside the
  repository taken from that revision. When the revision has no input directory, the
  revision's CRDs are read if the project writes them to a directory of its own
  (`[tool.kgen.crd] output`); else the API is new and there is nothing to compare. When
  the files compared are given (CRD manifests, `kgen compat --against origin/main
  config/crd/`), the revision's copies of the same paths are read.

Positions in an extracted revision are shown as the same files of the working tree.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kgen import pipeline
from kgen.compat import crdfiles
from kgen.compat.snapshot import Snapshot, from_universe
from kgen.diagnostics import Diagnostic, Diagnostics, InputError, Position, display_path
from kgen.options import Options, OptionsError
from kgen.source.modules import ModFileError, Workspace

_SKIPPED = {"vendor", "testdata", ".git", "node_modules"}


def has_go_files(directory: Path) -> bool:
    for root, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if d not in _SKIPPED and not d.startswith(".")]
        if any(n.endswith(".go") and not n.endswith("_test.go") for n in names):
            return True
    return False


def read_paths(paths: Sequence[Path], options: Options | None, label: str | None = None) -> Snapshot:
    """Snapshots of paths: CRD files, or one directory of Go types."""
    diagnostics = Diagnostics()
    go_dirs = [p for p in paths if p.is_dir() and has_go_files(p)]
    if go_dirs:
        if len(paths) > 1:
            raise OptionsError(f"{display_path(go_dirs[0])} holds Go types: compare one directory of Go types, "
                               "or CRD files")  # fmt: skip
        return build_go(go_dirs[0], options, label or display_path(go_dirs[0]))
    snapshot = crdfiles.read(paths, label or ", ".join(display_path(p) for p in paths), diagnostics)
    diagnostics.raise_if_errors()
    if not snapshot.resources:
        raise OptionsError(f"no CustomResourceDefinition in {', '.join(display_path(p) for p in paths)}")
    return snapshot


def build_go(
    directory: Path,
    options: Options | None,
    label: str,
    *,
    module: str | None = None,
    import_map: dict[str, Path] | None = None,
    relabel: Callable[[str], Position | None] | None = None,
) -> Snapshot:
    """The snapshot of a directory of Go types, built with the run's options."""
    if module is None:
        try:
            module = Workspace.find(directory).import_path_of(directory) or ""
        except ModFileError as err:
            raise OptionsError(str(err)) from None
        if not module and options is not None:
            module = options.module
    if not module:
        raise OptionsError(f"kgen cannot tell the Go import path of {display_path(directory)}: add a go.mod, or "
                           "pass --module")  # fmt: skip
    base = options or Options(input=directory, output=directory / "generated", module=module)
    run = dataclasses.replace(base, input=directory, module=module,
                              import_map=import_map if import_map is not None else base.import_map)  # fmt: skip
    try:
        universe, _ = pipeline.build(run)
    except InputError as err:
        if relabel is None:
            raise
        raise InputError([_moved(d, relabel, label) for d in err.diagnostics]) from None
    return from_universe(universe, label, embedded_object_meta=run.crd_embedded_object_meta, relabel=relabel)


def _moved(diagnostic: Diagnostic, relabel: Callable[[str], Position | None], label: str) -> Diagnostic:
    position = relabel(str(diagnostic.position)) or diagnostic.position
    return Diagnostic(position, diagnostic.severity, f"{diagnostic.message} (in {label})")


# -- git revisions ---------------------------------------------------------------------------


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True)


def repository_of(directory: Path) -> Path | None:
    try:
        found = _git(["rev-parse", "--show-toplevel"], directory)
    except FileNotFoundError:
        return None
    if found.returncode != 0:
        return None
    return Path(os.fsdecode(found.stdout.strip())).resolve()


def commit_of(repository: Path, revision: str) -> str | None:
    if revision.startswith("-"):
        return None
    found = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], repository)
    return found.stdout.decode().strip() if found.returncode == 0 else None


@contextmanager
def extracted(repository: Path, commit: str) -> Iterator[Path]:
    """The tree of a commit in a temporary directory (removed afterwards)."""
    work = Path(tempfile.mkdtemp(prefix="kgen-compat-"))
    try:
        tree = work / "tree"
        tree.mkdir()
        archive = work / "tree.tar"
        with archive.open("wb") as out:
            done = subprocess.run(["git", "archive", "--format=tar", commit], cwd=repository, stdout=out,
                                  stderr=subprocess.PIPE)  # fmt: skip
        if done.returncode != 0:
            raise OptionsError(f"git archive {commit} failed: {done.stderr.decode(errors='replace').strip()}")
        try:
            with tarfile.open(archive) as files:
                files.extractall(tree, filter="data")
        except tarfile.ReadError:
            if _git(["ls-tree", commit], repository).stdout.strip():
                raise OptionsError(f"git archive {commit} wrote no archive kgen can read") from None
            # an empty tree: nothing to extract
        archive.unlink()
        yield tree
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _repository_commit(revision: str, start: Path, shown: Path) -> tuple[Path, str]:
    """The git repository `start` is in and the commit `revision` names there; OptionsError
    (about `shown`, what the user named) when there is no repository or no such revision."""
    repository = repository_of(start)
    if repository is None:
        raise OptionsError(f"--against {revision}: no such file or directory, and {display_path(shown)} "
                           "is not in a git repository")  # fmt: skip
    commit = commit_of(repository, revision)
    if commit is None:
        raise OptionsError(f"--against {revision}: not a file, a directory, or a revision of the git repository at "
                           f"{repository} (a branch of a remote must be fetched first: git fetch origin)")  # fmt: skip
    return repository, commit


def read_revision(revision: str, options: Options) -> Snapshot:
    """The snapshot of a git revision of the repository the input is in."""
    repository, commit = _repository_commit(revision, options.input, options.input)
    relative = options.input.resolve().relative_to(repository)
    with extracted(repository, commit) as tree:

        def relabel(text: str) -> Position | None:
            if not text:
                return None
            position = Position.parse(text) if text.count(":") >= 2 else Position(text)
            path = Path(position.path)
            if path.is_absolute() and path.is_relative_to(tree):
                path = repository / path.relative_to(tree)
                return Position(display_path(path), position.line, position.col)
            return position

        old_input = tree / relative
        if old_input.is_dir() and has_go_files(old_input):
            mapping = {}
            for import_path, directory in options.import_map.items():
                inside = directory.resolve()
                moved = tree / inside.relative_to(repository) if inside.is_relative_to(repository) else inside
                mapping[import_path] = moved if moved.exists() else directory
            return build_go(old_input, options, revision, module=options.module, import_map=mapping, relabel=relabel)
        if options.crd_output is not None:
            crds = tree / options.crd_output.resolve().relative_to(repository)
            if crds.is_dir():
                diagnostics = Diagnostics()
                snapshot = crdfiles.read([crds], revision, diagnostics, shown_as=tree)
                diagnostics.raise_if_errors()
                return snapshot
        return Snapshot(revision)


def read_revision_paths(revision: str, paths: Sequence[Path]) -> Snapshot:
    """The same files or directories (CRD manifests, or one directory of Go types) as they
    are in a git revision: `kgen compat --against origin/main config/crd/bases`."""
    start = paths[0].resolve().parent if paths[0].is_file() else paths[0].resolve()
    repository, commit = _repository_commit(revision, start, paths[0])
    with extracted(repository, commit) as tree:
        there = [tree / p.resolve().relative_to(repository) for p in paths]
        present = [p for p in there if p.exists()]
        if not present:
            return Snapshot(revision)
        go_dirs = [p for p in present if p.is_dir() and has_go_files(p)]
        if go_dirs:
            return build_go(go_dirs[0], None, revision)
        diagnostics = Diagnostics()
        snapshot = crdfiles.read(present, revision, diagnostics, shown_as=tree)
        diagnostics.raise_if_errors()
        return snapshot


def read_against(specs: Sequence[str], options: Options | None, new_paths: Sequence[Path] = ()) -> Snapshot:
    """What `--against` names (see the module docstring); with `new_paths` (the files
    compared instead of the project's Go types), a git revision means those paths in it."""
    paths = [Path(s) for s in specs]
    existing = [p for p in paths if p.exists()]
    if existing and len(existing) == len(paths):
        return read_paths(existing, options, label=", ".join(specs))
    if existing:
        missing = next(s for s, p in zip(specs, paths) if not p.exists())
        raise OptionsError(f"--against {missing}: no such file or directory")
    if len(specs) > 1:
        raise OptionsError("--against takes one git revision (or several CRD files)")
    if new_paths:
        return read_revision_paths(specs[0], new_paths)
    if options is None:
        raise OptionsError(f"--against {specs[0]}: no such file or directory")
    return read_revision(specs[0], options)
