"""Run options: command-line flags over `[tool.kgen]` in pyproject.toml over defaults."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgen.source import buildtags
from kgen.source.modules import ModFileError, Workspace
from kgen.webhook_settings import SettingsError, conversion_settings, webhook_settings


class OptionsError(ValueError):
    """Settings that cannot work together (exit code 2)."""


MODEL_BACKENDS = ("pydantic", "msgspec")
"""The model backends (`--models`, `[tool.kgen] models`), the default first."""


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
    crd_output: Path | None = None
    """Where CRD manifests go instead of `<output>/crds` (controller-gen's
    `output:crd:artifacts:config=config/crd/bases`; `[tool.kgen.crd] output`)."""
    crd_conversion: dict[str, Any] = field(default_factory=dict)
    """The conversion webhook of multi-version CRDs (`[tool.kgen.crd.conversion]`, checked by
    `kgen.webhook_settings`); without it (and without `webhook`), their conversion strategy
    is None."""
    webhook: dict[str, Any] = field(default_factory=dict)
    """The admission webhooks of the custom resources (`[tool.kgen.webhook]`, checked by
    `kgen.webhook_settings`); without it, only `+kubebuilder:webhook` markers make any."""
    webhook_output: Path | None = None
    """Where the webhook manifests go instead of `<output>/webhooks` (kubebuilder's
    `config/webhook`; `[tool.kgen.webhook] output`)."""
    strict: bool = False
    """Warnings are errors (`--strict`, `strict = true`)."""
    templates: Path | None = None
    """A directory whose templates replace kgen's of the same path (`[tool.kgen] templates`,
    default `templates/` beside the pyproject.toml when it exists)."""
    models: str = "pydantic"
    """The model backend (`--models`, `[tool.kgen] models`): "pydantic" or "msgspec"."""

    @property
    def selected(self) -> tuple[str, ...]:
        return self.only or self.generators


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a `[tool.kgen]` table (as ruff
    finds its settings), so kgen runs the same from any directory of the project."""
    directory = start.resolve()
    for candidate in (directory, *directory.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            tool = data.get("tool")
            if isinstance(tool, dict) and "kgen" in tool:
                return path
    return None


def load_config(path: Path) -> tuple[dict[str, Any], Path]:
    """The `[tool.kgen]` table of a pyproject.toml and the directory paths are relative to."""
    if not path.is_file():
        # no settings: paths are relative to where kgen runs (`--config /dev/null`), or to
        # where the file would be
        return {}, Path.cwd() if path.exists() else path.parent
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise OptionsError(f"{path}: invalid TOML: {err}") from None
    table = data.get("tool", {}).get("kgen", {})
    if not isinstance(table, dict):
        raise OptionsError(f"{path}: [tool.kgen] must be a table")
    known = {
        "input", "output", "module", "import-map", "import_map", "generators", "tags", "hooks-package", "crd",
        "strict", "templates", "models", "compat", "lint", "webhook",
    }  # fmt: skip
    unknown = sorted(set(table) - known)
    if unknown:
        where = _key_line(path, "tool.kgen", unknown[0])
        raise OptionsError(
            f"{where}: unknown [tool.kgen] settings: {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    _check_setting_types(path, table)
    crd = table.get("crd", {})
    if not isinstance(crd, dict):
        raise OptionsError(f"{path}: [tool.kgen.crd] must be a table")
    unknown = sorted(set(crd) - _CRD_SETTINGS)
    if unknown:
        raise OptionsError(
            f"{path}: unknown [tool.kgen.crd] settings: {', '.join(unknown)} (known: {', '.join(sorted(_CRD_SETTINGS))})"
        )
    length = crd.get("max-description-length")
    if length is not None and (not isinstance(length, int) or isinstance(length, bool) or length < 0):
        raise OptionsError(
            f"{path}: [tool.kgen.crd] max-description-length must be a whole number >= 0, got {length!r}"
        )
    if not isinstance(crd.get("embedded-object-meta", False), bool):
        raise OptionsError(f"{path}: [tool.kgen.crd] embedded-object-meta must be true or false")
    for key in ("output",):
        if key in crd and (not isinstance(crd[key], str) or not crd[key]):
            raise OptionsError(f"{path}: [tool.kgen.crd] {key} must be a directory path")
    _webhook_settings(table, path.parent, path)
    if not isinstance(table.get("lint", {}), dict):
        raise OptionsError(f"{path}: [tool.kgen.lint] must be a table")
    if not isinstance(table.get("strict", False), bool):
        raise OptionsError(f"{path}: [tool.kgen] strict must be true or false")
    if table.get("models", MODEL_BACKENDS[0]) not in MODEL_BACKENDS:
        raise OptionsError(
            f"{path}: [tool.kgen] models = {table['models']!r} is not a model backend (one of: {', '.join(MODEL_BACKENDS)})"
        )
    return table, path.parent


def _webhook_settings(table: dict[str, Any], base: Path, path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The CRDs' conversion webhook and the admission webhooks, checked and normalised
    (`kgen.webhook_settings`; a CA bundle file is read)."""
    try:
        conversion = conversion_settings(table.get("crd", {}).get("conversion", {}), base)
        webhook = webhook_settings(table.get("webhook", {}), base)
    except SettingsError as error:
        raise OptionsError(f"{path}: {error}") from None
    return conversion, webhook


_STRING_SETTINGS = ("input", "output", "module", "hooks-package", "templates", "models")
_LIST_SETTINGS = ("generators", "tags")


def _check_setting_types(path: Path, table: dict[str, Any]) -> None:
    """Each setting of the right type, at its line: a key that landed in the wrong table
    (`strict = true` below `[tool.kgen.import-map]`) says where it belongs."""
    for key in _STRING_SETTINGS:
        if key in table and not isinstance(table[key], str):
            raise OptionsError(
                f"{_key_line(path, 'tool.kgen', key)}: [tool.kgen] {key} must be a string, got {table[key]!r}"
            )
    for key in _LIST_SETTINGS:
        value = table.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise OptionsError(f"{_key_line(path, 'tool.kgen', key)}: [tool.kgen] {key} must be a list of strings, "
                               f"got {value!r}")  # fmt: skip
    for name in ("import-map", "import_map"):
        mapping = table.get(name)
        if mapping is None:
            continue
        if isinstance(mapping, list):
            if not all(isinstance(v, str) for v in mapping):
                raise OptionsError(f"{_key_line(path, 'tool.kgen', name)}: [tool.kgen] {name} entries are "
                                   "\"IMPORTPATH=DIR\" strings")  # fmt: skip
            continue
        if not isinstance(mapping, dict):
            raise OptionsError(f"{_key_line(path, 'tool.kgen', name)}: [tool.kgen] {name} must be a table of import "
                               "path = directory")  # fmt: skip
        for import_path, directory in mapping.items():
            if not isinstance(directory, str):
                hint = ""
                if import_path in table or import_path in _known_settings():
                    hint = (f"; {import_path!r} is a [tool.kgen] setting: move it above the first [tool.kgen.*] table "
                            "(a key belongs to the table whose header is above it)")  # fmt: skip
                raise OptionsError(
                    f"{_key_line(path, f'tool.kgen.{name}', import_path)}: [tool.kgen.{name}] maps an import path to "
                    f"a directory (a string), got {import_path} = {directory!r}{hint}"
                )


def _known_settings() -> set[str]:
    return {*_STRING_SETTINGS, *_LIST_SETTINGS, "strict", "import-map", "crd", "lint"}


def _key_line(path: Path, table: str, key: str) -> str:
    """`path:line` of `key` in the TOML table `table` (by its header line), or `path`."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return str(path)
    current = ""
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("["):
            current = stripped.strip("[]").split("#")[0].strip().strip("[]").replace('"', "")
            continue
        name = stripped.split("=", 1)[0].strip().strip('"')
        if current == table and "=" in stripped and name == key:
            return f"{path}:{number}"
    return str(path)


_CRD_SETTINGS = {"max-description-length", "embedded-object-meta", "output", "conversion"}
"""controller-gen's crd options, as `[tool.kgen.crd]` names them."""


def parse_import_map(entries: list[str] | dict[str, str], base: Path) -> dict[str, Path]:
    """`IMPORTPATH=DIR` entries (or a table) to a mapping; DIR is relative to `base`."""
    pairs = entries.items() if isinstance(entries, dict) else [_split_entry(e) for e in entries]
    return {import_path.strip().rstrip("/"): (base / directory).resolve() for import_path, directory in pairs}


def _split_entry(entry: str) -> tuple[str, str]:
    import_path, sep, directory = entry.partition("=")
    if not sep or not import_path or not directory:
        raise OptionsError(
            f"--import-map {entry!r}: expected IMPORTPATH=DIR, e.g. k8s.io/api/core/v1=third_party/core/v1"
        )
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
    defaults: tuple[str, ...] | None = None,
    strict: bool | None = None,
    require_module: bool = False,
    models: str | None = None,
) -> Options:
    """Merge flags over the config file over defaults, and check the result. `defaults`: the
    generators that run when the settings name none (every `registered` one if None)."""
    config, base = load_config(config_path)
    conversion, webhook = _webhook_settings(config, base, config_path)
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
    if not module_path and require_module:
        raise OptionsError(
            f"kgen cannot tell the Go import path of {input_dir}: there is no go.mod in it or above it, and no "
            'module is set; set it in pyproject.toml ([tool.kgen] module = "example.com/project/apis"), pass '
            "--module, or add a go.mod (OpenAPI definition names and protobuf packages come from it)"
        )
    mapping = parse_import_map(config.get("import-map", config.get("import_map", {})), base)
    mapping.update(parse_import_map(list(import_map), cwd))
    generators = tuple(config.get("generators", registered if defaults is None else defaults))
    _check_generators(generators, registered, "generators in [tool.kgen]")
    selected = tuple(g.strip() for g in only.split(",") if g.strip()) if only else ()
    _check_generators(selected, registered, "--only")
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
        crd_output=(base / config["crd"]["output"]) if config.get("crd", {}).get("output") else None,
        crd_conversion=conversion,
        webhook=webhook,
        webhook_output=(base / config["webhook"]["output"]) if config.get("webhook", {}).get("output") else None,
        strict=strict if strict is not None else bool(config.get("strict", False)),
        templates=_templates(config, base),
        models=models or config.get("models", MODEL_BACKENDS[0]),
    )  # fmt: skip


def _templates(config: dict[str, Any], base: Path) -> Path | None:
    if "templates" in config:
        if not isinstance(config["templates"], str) or not (base / config["templates"]).is_dir():
            raise OptionsError(f"[tool.kgen] templates = {config['templates']!r} is not a directory")
        return base / config["templates"]
    default = base / "templates"
    return default if default.is_dir() else None


def _check_generators(names: tuple[str, ...], registered: tuple[str, ...], where: str) -> None:
    for name in names:
        if name in registered:
            continue
        raise OptionsError(f"{where}: unknown generator {name!r} (available: {', '.join(registered)})")
