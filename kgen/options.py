"""Run options: command-line flags over `[tool.kgen]` in pyproject.toml over defaults."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgen.source import buildtags
from kgen.source.modules import ModFileError, Workspace


class OptionsError(ValueError):
    """Settings that cannot work together (exit code 2)."""


@dataclass(frozen=True)
class Options:
    """Everything one kgen run needs to know."""

    input: Path
    output: Path
    module: str
    import_map: dict[str, Path] = field(default_factory=dict)
    generators: tuple[str, ...] = ()
    """Configured generators (all registered ones by default)."""
    only: tuple[str, ...] = ()
    """Generators whose files this run writes or checks (all configured ones when empty)."""
    tags: frozenset[str] = buildtags.DEFAULT_TAGS
    hooks_package: str | None = None
    """Python package name of the input directory, for importing hook modules (default: its name)."""
    crd_max_description_length: int | None = None
    """controller-gen's crd:maxDescLen (`[tool.kgen.crd] max-description-length`)."""
    crd_embedded_object_meta: bool = False
    """controller-gen's crd:generateEmbeddedObjectMeta (`[tool.kgen.crd] embedded-object-meta`)."""

    @property
    def selected(self) -> tuple[str, ...]:
        return self.only or self.generators


def load_config(path: Path) -> tuple[dict[str, Any], Path]:
    """The `[tool.kgen]` table of a pyproject.toml and the directory paths are relative to."""
    if not path.is_file():
        return {}, path.parent
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise OptionsError(f"{path}: invalid TOML: {err}") from None
    table = data.get("tool", {}).get("kgen", {})
    if not isinstance(table, dict):
        raise OptionsError(f"{path}: [tool.kgen] must be a table")
    known = {"input", "output", "module", "import-map", "import_map", "generators", "tags", "hooks-package", "crd"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise OptionsError(f"{path}: unknown [tool.kgen] settings: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    crd = table.get("crd", {})
    if not isinstance(crd, dict):
        raise OptionsError(f"{path}: [tool.kgen.crd] must be a table")
    unknown = sorted(set(crd) - _CRD_SETTINGS)
    if unknown:
        raise OptionsError(f"{path}: unknown [tool.kgen.crd] settings: {', '.join(unknown)} (known: {', '.join(sorted(_CRD_SETTINGS))})")
    length = crd.get("max-description-length")
    if length is not None and (not isinstance(length, int) or isinstance(length, bool) or length < 0):
        raise OptionsError(f"{path}: [tool.kgen.crd] max-description-length must be a whole number >= 0, got {length!r}")
    if not isinstance(crd.get("embedded-object-meta", False), bool):
        raise OptionsError(f"{path}: [tool.kgen.crd] embedded-object-meta must be true or false")
    return table, path.parent


_CRD_SETTINGS = {"max-description-length", "embedded-object-meta"}
"""controller-gen's crd options, as `[tool.kgen.crd]` names them."""


def parse_import_map(entries: list[str] | dict[str, str], base: Path) -> dict[str, Path]:
    """`IMPORTPATH=DIR` entries (or a table) to a mapping; DIR is relative to `base`."""
    pairs = entries.items() if isinstance(entries, dict) else [_split_entry(e) for e in entries]
    return {import_path.strip().rstrip("/"): (base / directory).resolve() for import_path, directory in pairs}


def _split_entry(entry: str) -> tuple[str, str]:
    import_path, sep, directory = entry.partition("=")
    if not sep or not import_path or not directory:
        raise OptionsError(f"--import-map {entry!r}: expected IMPORTPATH=DIR, e.g. k8s.io/api/core/v1=third_party/core/v1")
    return import_path, directory


def resolve_options(
    *,
    config_path: Path,
    input: str | None = None,
    output: str | None = None,
    module: str | None = None,
    import_map: tuple[str, ...] = (),
    only: str | None = None,
    tags: str | None = None,
    crd_max_description_length: int | None = None,
    crd_embedded_object_meta: bool | None = None,
    registered: tuple[str, ...],
    planned: tuple[str, ...] = (),
) -> Options:
    """Merge flags over the config file over defaults, and check the result."""
    config, base = load_config(config_path)
    cwd = Path.cwd()
    input_dir = (cwd / input) if input else (base / config.get("input", "apis"))
    output_dir = (cwd / output) if output else (base / config.get("output", "generated"))
    if not input_dir.is_dir():
        raise OptionsError(f"input directory {input_dir} does not exist; pass --input DIR or set input in [tool.kgen]")
    module_path = module or config.get("module")
    if not module_path:
        try:
            module_path = Workspace.find(input_dir).import_path_of(input_dir) or ""
        except ModFileError as err:
            raise OptionsError(str(err)) from None
    mapping = parse_import_map(config.get("import-map", config.get("import_map", {})), base)
    mapping.update(parse_import_map(list(import_map), cwd))
    generators = tuple(config.get("generators", registered))
    _check_generators(generators, registered, planned, "generators in [tool.kgen]")
    selected = tuple(g.strip() for g in only.split(",") if g.strip()) if only else ()
    _check_generators(selected, registered, planned, "--only")
    build_tags = buildtags.DEFAULT_TAGS
    tag_list = tags.split(",") if tags else config.get("tags", [])
    if tag_list:
        build_tags = build_tags | frozenset(t.strip() for t in tag_list if t.strip())
    return Options(
        input=input_dir,
        output=output_dir,
        module=module_path,
        import_map=mapping,
        generators=generators,
        only=selected,
        tags=build_tags,
        hooks_package=config.get("hooks-package"),
        crd_max_description_length=(
            crd_max_description_length if crd_max_description_length is not None
            else config.get("crd", {}).get("max-description-length")
        ),
        crd_embedded_object_meta=(
            crd_embedded_object_meta if crd_embedded_object_meta is not None
            else bool(config.get("crd", {}).get("embedded-object-meta", False))
        ),
    )  # fmt: skip


def _check_generators(names: tuple[str, ...], registered: tuple[str, ...], planned: tuple[str, ...], where: str) -> None:
    for name in names:
        if name in registered:
            continue
        if name in planned:
            raise OptionsError(f"{where}: generator {name!r} is not available in this version of kgen (available: {', '.join(registered)})")
        raise OptionsError(f"{where}: unknown generator {name!r} (available: {', '.join(registered)})")
