"""Finding Go packages as the go command finds them: go.mod, go.work, vendor/, the module cache.

`Workspace.find(directory)` reads the go.mod above a directory (and a go.work above that,
unless GOWORK=off) once; `Workspace.locate(import_path)` answers where the package of an
import path is, in the go command's order: a module of the workspace (the main module and
the `use` directories), then the required module that owns the path (the longest module
path), through its `replace` (a local directory, or another module and version), from
`vendor/` in vendor mode, else from the module cache at the required version, with the
cache's `!`-escaping of capital letters. A package that is not found is a `PackageNotFound`
that names the import path, the version required, every place looked, and the fix.

go.mod files are parsed with the grammar of golang.org/x/mod/modfile (directives, blocks,
quoted and raw strings, `//` comments); no Python library on PyPI parses them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from kgen.diagnostics import Position, display_path

_VENDOR_SINCE = (1, 14)
"""The go directive from which vendor/modules.txt turns vendor mode on by default."""


class ModFileError(ValueError):
    """A go.mod or go.work that does not parse; carries where."""

    def __init__(self, position: Position, message: str):
        self.position = position
        super().__init__(f"{position}: {message}")


@dataclass(frozen=True, slots=True)
class Replacement:
    """The right-hand side of a `replace`: a local directory, or a module at a version."""

    directory: Path | None = None
    module: str = ""
    version: str = ""


@dataclass(frozen=True)
class ModFile:
    """What kgen needs of a go.mod (or go.work): where it is and its directives."""

    path: Path
    module: str = ""
    go: str = ""
    requires: dict[str, str] = field(default_factory=dict)
    replaces: dict[tuple[str, str], Replacement] = field(default_factory=dict)
    """(module, version or "" for every version) -> replacement."""
    uses: tuple[Path, ...] = ()
    """go.work: the directories of the workspace's modules."""

    @property
    def directory(self) -> Path:
        return self.path.parent

    def replacement(self, module: str, version: str) -> Replacement | None:
        return self.replaces.get((module, version)) or self.replaces.get((module, ""))


# -- the go.mod grammar ---------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:(//.*)|("(?:[^"\\\n]|\\.)*")|(`[^`]*`)|(=>)|([()])|([^\s()"`]+))')


def _tokens(line: str, path: Path, number: int) -> list[str]:
    """The tokens of one line of a go.mod, comments dropped, strings unquoted."""
    out: list[str] = []
    pos = 0
    while pos < len(line):
        match = _TOKEN.match(line, pos)
        if match is None or match.end() == pos:
            if line[pos:].strip():
                raise ModFileError(
                    Position(display_path(path), number, pos + 1), f"unexpected {line[pos:].strip()[:20]!r}"
                )
            break
        comment, quoted, raw, arrow, paren, word = match.groups()
        pos = match.end()
        if comment is not None:
            break
        if quoted is not None:
            try:
                out.append(_unquote(quoted))
            except ValueError as err:
                raise ModFileError(Position(display_path(path), number, match.start(2) + 1), str(err)) from None
        elif raw is not None:
            out.append(raw[1:-1])
        else:
            out.append(arrow or paren or word)
    return out


def _unquote(text: str) -> str:
    from kgen.source.tags import unquote_go

    return unquote_go(text[1:-1])


def parse_mod_file(path: Path) -> ModFile:
    """Parse a go.mod or go.work file; raise ModFileError (with `path:line:col`) when malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ModFileError(Position(display_path(path)), f"cannot read: {err}") from None
    module = go = ""
    requires: dict[str, str] = {}
    replaces: dict[tuple[str, str], Replacement] = {}
    uses: list[Path] = []
    block: str | None = None
    shown = display_path(path)
    for number, line in enumerate(text.splitlines(), 1):
        tokens = _tokens(line, path, number)
        if not tokens:
            continue
        if block is not None:
            if tokens == [")"]:
                block = None
                continue
            verb, args = block, tokens
        elif len(tokens) == 2 and tokens[1] == "(":
            block = tokens[0]
            continue
        else:
            verb, args = tokens[0], tokens[1:]
        where = Position(shown, number, 1)
        if verb == "module":
            if len(args) != 1:
                raise ModFileError(where, "usage: module module/path")
            module = args[0]
        elif verb == "go":
            if len(args) != 1 or not re.fullmatch(r"\d+(\.\d+)*([a-z]+\d*)?", args[0]):
                raise ModFileError(where, f"invalid go version {' '.join(args)!r}: must match format 1.23.0")
            go = args[0]
        elif verb == "require":
            if len(args) != 2:
                raise ModFileError(where, "usage: require module/path v1.2.3")
            requires[args[0]] = args[1]
        elif verb == "replace":
            if "=>" not in args:
                raise ModFileError(
                    where,
                    "usage: replace module/path [v1.2.3] => other/module v1.4\n\t or replace module/path [v1.2.3] => ../local/directory",
                )
            cut = args.index("=>")
            left, right = args[:cut], args[cut + 1 :]
            if len(left) not in (1, 2) or len(right) not in (1, 2):
                raise ModFileError(
                    where,
                    "usage: replace module/path [v1.2.3] => other/module v1.4\n\t or replace module/path [v1.2.3] => ../local/directory",
                )
            key = (left[0], left[1] if len(left) == 2 else "")
            if len(right) == 1:
                local = right[0]
                if not (local.startswith(("./", "../", "/")) or local in (".", "..") or Path(local).is_absolute()):
                    raise ModFileError(
                        where, f"replacement module {local!r} needs a version (or a local path starting with ./ or ../)"
                    )
                replaces[key] = Replacement(directory=(path.parent / local).resolve())
            else:
                replaces[key] = Replacement(module=right[0], version=right[1])
        elif verb == "use":
            if len(args) != 1:
                raise ModFileError(where, "usage: use ./local/directory")
            uses.append((path.parent / args[0]).resolve())
        # exclude, retract, toolchain, godebug, tool, ignore: nothing that says where packages are
    if block is not None:
        raise ModFileError(Position(shown, len(text.splitlines()) + 1, 1), f"{block} block is not closed: add ')'")
    return ModFile(path, module, go, requires, replaces, tuple(uses))


# -- the module cache -------------------------------------------------------------------------


def escape(path: str) -> str:
    """The module cache's spelling of a module path or version: each capital letter becomes
    `!` and its lower case (`github.com/Azure/x` -> `github.com/!azure/x`)."""
    return re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), path)


def module_cache(environ: dict[str, str] | None = None) -> Path:
    """Where the go command keeps downloaded modules: GOMODCACHE, else the first GOPATH entry's
    pkg/mod, else ~/go/pkg/mod."""
    env = os.environ if environ is None else environ
    if env.get("GOMODCACHE"):
        return Path(env["GOMODCACHE"])
    gopath = env.get("GOPATH", "")
    first = next((p for p in gopath.split(os.pathsep) if p), "")
    if first:
        return Path(first) / "pkg" / "mod"
    return Path.home() / "go" / "pkg" / "mod"


def _version_tuple(go: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", go)[:2])


# -- finding packages ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Located:
    """Where a package was found."""

    directory: Path
    module: str
    version: str
    """The version that provided it ("" for a workspace module or a local replacement)."""
    via: str
    """How: `main module`, `workspace`, `replace`, `vendor` or `module cache`."""


class PackageNotFound(LookupError):
    """No place holds the package; the message says every place looked and what to do."""


@dataclass
class Workspace:
    """The go.mod (and go.work) a directory belongs to, and how to find the packages its code imports."""

    main: ModFile | None
    work: ModFile | None = None
    cache: Path = field(default_factory=module_cache)
    vendor: bool = False
    _modules: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def find(cls, directory: Path, environ: dict[str, str] | None = None) -> Workspace:
        """The workspace of `directory`: the nearest go.mod at or above it, the go.work above
        that (unless GOWORK=off; GOWORK may name the file), vendor mode as the go command decides it."""
        env = os.environ if environ is None else environ
        directory = directory.resolve()
        mod_path = _upward(directory, "go.mod")
        main = parse_mod_file(mod_path) if mod_path else None
        work = None
        gowork = env.get("GOWORK", "")
        if gowork != "off":
            work_path = Path(gowork) if gowork else _upward(directory, "go.work")
            if work_path is not None and work_path.is_file():
                work = parse_mod_file(work_path)
        flags = env.get("GOFLAGS", "")
        vendor = False
        if main is not None and work is None and (main.directory / "vendor" / "modules.txt").is_file():
            vendor = "-mod=mod" not in flags and "-mod=readonly" not in flags and (
                "-mod=vendor" in flags or _version_tuple(main.go) >= _VENDOR_SINCE
            )  # fmt: skip
        workspace = cls(main, work, module_cache(env), vendor)
        if main is not None and main.module:
            workspace._modules[main.module] = main.directory
        if work is not None:
            for use in work.uses:
                go_mod = use / "go.mod"
                if go_mod.is_file():
                    used = parse_mod_file(go_mod)
                    if used.module:
                        workspace._modules.setdefault(used.module, use)
        return workspace

    def import_path_of(self, directory: Path) -> str | None:
        """The import path of a directory of the main module (or of a workspace module)."""
        directory = directory.resolve()
        for module, root in sorted(self._modules.items(), key=lambda kv: -len(str(kv[1]))):
            try:
                relative = directory.relative_to(root)
            except ValueError:
                continue
            return "/".join([module, *relative.parts])
        return None

    def files(self) -> list[Path]:
        """The files whose contents decide where packages are found (for cache keys)."""
        found = [m.path for m in (self.main, self.work) if m is not None]
        if self.vendor and self.main is not None:
            found.append(self.main.directory / "vendor" / "modules.txt")
        found += [
            r.directory for m in (self.main, self.work) if m is not None for r in m.replaces.values()
            if r.directory is not None
        ]  # fmt: skip
        return found

    def locate(self, import_path: str) -> Located:
        """The directory of the package with this import path; raise PackageNotFound."""
        looked: list[str] = []
        # Modules of the workspace (the main module first): their directories, unless a
        # nested module (a directory with its own go.mod) owns the package.
        for module, root in sorted(self._modules.items(), key=lambda kv: -len(kv[0])):
            if import_path == module or import_path.startswith(module + "/"):
                directory = (
                    root.joinpath(*import_path[len(module) :].strip("/").split("/")) if import_path != module else root
                )
                nested = _nested_module(root, directory)
                if nested is None:
                    via = "main module" if self.main is not None and module == self.main.module else "workspace"
                    if directory.is_dir():
                        return Located(directory, module, "", via)
                    looked.append(f"{display_path(directory)} ({via} {module})")
                break
        required = self._required(import_path)
        if required is None:
            if self.main is None:
                raise PackageNotFound(
                    f"cannot find package {import_path!r}: there is no go.mod at or above the input to say "
                    f"where it comes from; add an import-map line {import_path}=DIR, or run kgen in the Go module"
                )
            raise PackageNotFound(
                f"cannot find package {import_path!r}: no module required by {display_path(self.main.path)} "
                "provides it"
                + (f" (looked in {', '.join(looked)})" if looked else "")
                + f"; add it with `go get {import_path}`, or add an import-map line {import_path}=DIR"
            )
        module, version = required
        rest = import_path[len(module) :].strip("/")
        replacement = self._replacement(module, version)
        if replacement is not None and replacement.directory is not None:
            directory = replacement.directory.joinpath(*rest.split("/")) if rest else replacement.directory
            if directory.is_dir():
                return Located(directory, module, "", "replace")
            looked.append(f"{display_path(directory)} (replace {module} => {display_path(replacement.directory)})")
        else:
            source_module, source_version = (
                (replacement.module, replacement.version) if replacement is not None else (module, version)
            )
            if self.vendor and self.main is not None:
                directory = self.main.directory / "vendor" / import_path
                if directory.is_dir():
                    return Located(directory, module, version, "vendor")
                looked.append(f"{display_path(directory)} (vendor)")
            root = self.cache / f"{escape(source_module)}@{escape(source_version)}"
            directory = root.joinpath(*rest.split("/")) if rest else root
            if directory.is_dir():
                return Located(directory, module, source_version, "module cache")
            looked.append(f"{display_path(directory)} (module cache)")
        fixes = [f"`go mod download {module}`"]
        if self.vendor:
            fixes.append("`go mod vendor`")
        fixes.append(f"an import-map line {import_path}=DIR")
        raise PackageNotFound(
            f"cannot find package {import_path!r} (module {module} {version}, required by "
            f"{display_path(self.main.path) if self.main else 'go.work'}); looked in {', '.join(looked)}; "
            f"run {' or '.join(fixes[:-1])}, or add {fixes[-1]}"
        )

    def _required(self, import_path: str) -> tuple[str, str] | None:
        """The module that provides an import path: the longest required module path that is
        a prefix of it (replacements of unrequired modules count, as in a workspace)."""
        candidates: dict[str, str] = {}
        for mod in (self.work, self.main):
            if mod is not None:
                candidates.update({m: v for m, v in mod.requires.items() if m not in candidates})
                candidates.update({m: "" for m, _ in mod.replaces if m not in candidates})
        best = None
        for module, version in candidates.items():
            if (import_path == module or import_path.startswith(module + "/")) and (
                best is None or len(module) > len(best[0])
            ):
                best = (module, version)
        return best

    def _replacement(self, module: str, version: str) -> Replacement | None:
        for mod in (self.work, self.main):  # go.work's replaces win over go.mod's
            if mod is not None and (found := mod.replacement(module, version)) is not None:
                return found
        return None


def _upward(directory: Path, name: str) -> Path | None:
    for candidate in (directory, *directory.parents):
        if (candidate / name).is_file():
            return candidate / name
    return None


def _nested_module(root: Path, directory: Path) -> Path | None:
    """A directory between `root` (exclusive) and `directory` (inclusive) with its own go.mod."""
    try:
        parts = directory.relative_to(root).parts
    except ValueError:
        return None
    current = root
    for part in parts:
        current = current / part
        if (current / "go.mod").is_file():
            return current
    return None
