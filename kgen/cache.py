"""Memoised generation runs: an unchanged tree is checked without parsing it again.

A run's output is a pure function of its key: every byte of every `.go` file it can read
(the input, the --import-map directories, go.mod and go.work with the local directories
they replace modules with; module cache versions never change), kgen's own source (code, templates,
well-known definitions), black's version, and the options. A hit returns exactly the
files and warnings the run produced; anything that changes any of those is a miss.
Runs with errors are never stored. `KGEN_NO_CACHE=1` turns this off.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

import black

from kgen.hooks import HOOK_MODULES
from kgen.diagnostics import Diagnostic, Diagnostics, Position, Severity, display_path
from kgen.options import Options
from kgen.render import TEMPLATES, GeneratedFile, cache_root, template_overrides
from kgen.source.modules import ModFileError, Workspace

_KGEN_ROOT = Path(__file__).resolve().parent
_FORMAT = "kgen-run-cache/3"
_HOOK_FILES = {f"{module}.py" for module in HOOK_MODULES}


@lru_cache(maxsize=1)
def _kgen_fingerprint() -> str:
    digest = hashlib.sha256()
    for root in (_KGEN_ROOT, TEMPLATES):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".j2", ".go"):
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()


OPTIONS_NOT_IN_KEY = {
    "input": "the files under it are hashed, and where it is shown from",
    "import_map": "the files under each directory are hashed, and how each is shown",
    "templates": "the override templates' bytes are hashed",
    "output": "where files are written does not change them",
    "crd_output": "where the CRDs are written does not change them",
    "webhook_output": "where the webhook manifests are written does not change them",
    "strict": "turns warnings into a failed run after the cache answered; the warnings are stored",
}
"""Options that change no output byte, or whose effect the key takes in another way."""


def _key_value(value: object) -> object:
    """An option's value as JSON, the same for equal options in any order."""
    if isinstance(value, Path):
        return display_path(value)
    if isinstance(value, (set, frozenset)):
        return sorted(_key_value(v) for v in value)  # type: ignore[type-var]
    if isinstance(value, (list, tuple)):
        return [_key_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _key_value(v) for k, v in sorted(value.items())}
    return value


def run_key(options: Options, bootstrap: bool) -> str:
    """The key of a run: everything its output depends on."""
    digest = hashlib.sha256()
    settings = {
        "format": _FORMAT,
        "kgen": _kgen_fingerprint(),
        "black": black.__version__,
        # Every option but those hashed another way below (a new option is in the key
        # unless it is named in OPTIONS_NOT_IN_KEY).
        "options": {
            f.name: _key_value(getattr(options, f.name))
            for f in dataclasses.fields(options)
            if f.name not in OPTIONS_NOT_IN_KEY
        },
        "bootstrap": bootstrap,
        "shown_as": display_path(options.input),  # diagnostics name paths relative to the working directory
        "import_map": {k: display_path(v) for k, v in sorted(options.import_map.items())},
        # Where the go command would find imported packages: the module cache holds each
        # version once and never changes it, so go.mod (the versions) and the cache's place
        # say what is read from there; local replacements are read like the input.
        "go": {name: os.environ.get(name, "") for name in ("GOMODCACHE", "GOPATH", "GOWORK", "GOFLAGS")},
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    roots = [options.input] + [options.import_map[k] for k in sorted(options.import_map)]
    if not bootstrap:
        try:
            workspace_files = Workspace.find(options.input).files()
        except ModFileError:
            workspace_files = []  # the run reports it, and is not stored
        for path in workspace_files:
            if path.is_file():
                try:
                    digest.update(b"\0go\0" + str(path).encode() + b"\0" + path.read_bytes())
                except OSError as err:
                    digest.update(f"\0unreadable\0{path}\0{err.strerror}".encode())
            else:
                roots.append(path)
    for template in template_overrides(options.templates):
        digest.update(b"\0template\0" + str(template).encode() + b"\0" + template.read_bytes())
    for root in roots:
        digest.update(b"\0root\0" + str(root).encode())
        if not root.is_dir():
            continue
        for directory, subdirs, filenames in os.walk(root):
            subdirs.sort()
            for filename in sorted(filenames):
                if (
                    filename.endswith(".go")
                    or filename in ("go.mod", "violation_exceptions.list")
                    or filename in _HOOK_FILES
                ):
                    path = Path(directory) / filename
                    digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                    try:
                        digest.update(path.read_bytes())
                    except OSError as err:  # a dangling link, no permission: the run reports it
                        digest.update(f"\0unreadable\0{err.strerror}".encode())
    return digest.hexdigest()


def load(key: str) -> tuple[list[GeneratedFile], Diagnostics] | None:
    """The files and warnings of a stored run, or None."""
    root = cache_root()
    if root is None:
        return None
    try:
        entry = json.loads((root / "runs" / f"{key}.json").read_text(encoding="utf-8"))
        files = [
            GeneratedFile(path, (root / "blobs" / sha[:2] / sha).read_text(encoding="utf-8"), generator)
            for path, generator, sha in entry["files"]
        ]
    except (OSError, ValueError, KeyError):
        return None
    diagnostics = Diagnostics()
    try:
        for path, line, col, message, severity, verbose in entry["warnings"]:
            diagnostics.items.append(Diagnostic(Position(path, line, col), Severity(severity), message))
            if verbose:
                diagnostics.third_party.add(path)
    except ValueError:
        return None  # an entry of an older kgen
    return files, diagnostics


def store(key: str, files: list[GeneratedFile], diagnostics: Diagnostics) -> None:
    """Remember a successful run (best effort: a cache that cannot be written is skipped)."""
    root = cache_root()
    if root is None or diagnostics.errors:
        return
    try:
        entries = []
        for generated in files:
            sha = hashlib.sha256(generated.content.encode("utf-8")).hexdigest()
            blob = root / "blobs" / sha[:2] / sha
            if not blob.exists():
                _atomic_write(blob, generated.content)
            entries.append([generated.path, generated.generator, sha])
        warnings = [
            [d.position.path, d.position.line, d.position.col, d.message, d.severity.value, diagnostics.is_verbose(d)]
            for d in diagnostics.sorted()
        ]
        _atomic_write(root / "runs" / f"{key}.json", json.dumps({"files": entries, "warnings": warnings}))
    except OSError:
        pass


def _atomic_write(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, target)
