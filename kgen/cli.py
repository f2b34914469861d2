"""The `kgen` command line.

Exit codes: 0 ok, 1 generated files drifted (verify) or lint/compat findings at or above --fail-on,
2 bad input or settings, 3 internal error (a bug in kgen: please report it with the input
that caused it).
Conventions: `-h`, `-q`/`-v`, colour on a terminal only (`NO_COLOR`), progress on a
terminal for runs over a second, settings found in the nearest pyproject.toml with a
`[tool.kgen]` table, shell completion through click (`_KGEN_COMPLETE=bash_source kgen`).
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import json
import os
import sys
import traceback
from pathlib import Path

import click

from kgen import __version__, deepstack
from kgen.console import NORMAL, QUIET, VERBOSE, Console
from kgen.diagnostics import EmitError, InputError
from kgen.extras import MissingExtra
from kgen.findings import FAIL_ON_CHOICES, FORMATS
from kgen.generator_names import DEFAULTS, HOMES, NAMES, RUNTIME_GENERATORS
from kgen.options import MODEL_BACKENDS, Options, OptionsError, find_config, resolve_options

EXIT_DRIFT = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
RUNTIME_ROOT = Path(__file__).resolve().parent / "runtime" / "apimachinery"
STRUCTS_RUNTIME_ROOT = Path(__file__).resolve().parent / "runtime" / "apimachinery_structs"
"""kgen's well-known types as msgspec models (`models = "msgspec"`)."""
STRUCTS_RUNTIME_GENERATORS = ("models", "deepcopy", "defaulters", "validation", "strategies", "protobuf")


EXIT_CODES = """\b
Exit codes:
  0  done (verify: nothing drifted)
  1  generated files drifted (--check / --verify-only)
  2  bad input or settings (every problem is printed as path:line:col)
  3  a bug in kgen (set KGEN_DEBUG=1 for the traceback and report it)"""

EXIT_CODES_NO_DRIFT = """\b
Exit codes:
  0  done
  2  bad input or settings (every problem is printed as path:line:col)
  3  a bug in kgen (set KGEN_DEBUG=1 for the traceback and report it)"""

_VERBOSE_HELP = "Also show notes, and warnings about third-party packages (the module cache, vendor/, import maps)."

_console = Console()


def _input_options(function=None, *, verbose_help: str = _VERBOSE_HELP):
    """The flags that say where the API types are, and how much to say."""
    if function is None:
        return functools.partial(_input_options, verbose_help=verbose_help)
    decorators = [
        click.option("--input", "input_dir", metavar="DIR", help="Directory of Go API types (default: apis)."),
        click.option("--module", metavar="PATH", help="Go import path of the input directory (default: from its go.mod)."),
        click.option(
            "--import-map", multiple=True, metavar="IMPORTPATH=DIR",
            help="Read the Go package IMPORTPATH (and below) from DIR. Repeatable.",
        ),  # fmt: skip
        click.option("--tags", metavar="TAG[,TAG]", help="Extra build tags for //go:build constraints."),
        click.option("-v", "--verbose", is_flag=True, help=verbose_help),
        click.option("-q", "--quiet", is_flag=True, help="Print errors and diffs only."),
        click.option(
            "--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
            help="The pyproject.toml with the [tool.kgen] table (default: the nearest one, here or above).",
        ),  # fmt: skip
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return _with_console(function)


def _with_console(function):
    """Set up this run's console from -q/-v before the command runs."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        global _console
        # -v and -q may come before the command too (`kgen -v generate`)
        root = click.get_current_context().find_root().params
        quiet = kwargs.pop("quiet", False) or bool(root.get("quiet"))
        if "verbose" in kwargs:
            kwargs["verbose"] = kwargs["verbose"] or bool(root.get("verbose"))
        verbosity = VERBOSE if kwargs.get("verbose") else QUIET if quiet else NORMAL
        _console = Console(verbosity)
        return function(*args, **kwargs)

    return wrapper


def _guarded(function):
    """Map failures to exit codes; never show a traceback for bad input."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return deepstack.run(function, *args, **kwargs)
        except RecursionError:
            _console.error(
                f"the API's types reach each other more than {deepstack.RECURSION_LIMIT // 10:,} levels "
                "deep, more than kgen follows; break the chain with a type of arbitrary JSON "
                "(runtime.RawExtension) somewhere along it"
            )
            sys.exit(EXIT_INPUT)
        except InputError as err:
            for diagnostic in err.diagnostics:
                if diagnostic.severity.value != "note":
                    _console.diagnostic(diagnostic)
            errors = sum(1 for d in err.diagnostics if d.severity.value == "error")
            _console.clear_progress()
            click.echo(f"kgen: {errors} error{'s' if errors != 1 else ''} in the input; nothing was written", err=True)
            sys.exit(EXIT_INPUT)
        except (OptionsError, EmitError, MissingExtra) as err:
            _console.error(str(err))
            sys.exit(EXIT_INPUT)
        except click.exceptions.Exit:
            raise
        except click.ClickException:
            raise
        except Exception as err:  # noqa: BLE001 - the last line of defence
            _console.clear_progress()
            if os.environ.get("KGEN_DEBUG"):
                traceback.print_exc()
            click.echo(
                f"kgen: internal error: {type(err).__name__}: {err}\n"
                "This is a bug in kgen. Set KGEN_DEBUG=1 for the traceback and report it with the input that caused it.",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)

    return wrapper


def _options(
    config_path, input_dir, module, import_map, tags, output=None, only=None, strict=None, models=None
) -> Options:
    if config_path is not None and not config_path.exists():  # /dev/null: no settings
        raise OptionsError(f"--config {config_path}: no such file")
    found = config_path if config_path is not None else find_config(Path.cwd())
    return resolve_options(
        config_path=found if found is not None else Path.cwd() / "pyproject.toml",
        input=input_dir,
        output=output,
        module=module,
        import_map=import_map,
        only=only,
        tags=tags,
        registered=NAMES,
        defaults=DEFAULTS,
        strict=strict,
        require_module=True,
        models=models,
    )


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EXIT_CODES + """

\b
Start a new API repository:        kgen init --group widgets.example.com --kind Widget
Generate generated/ from apis/:    kgen generate
Check that generated/ is current:  kgen generate --check
Shell completion (bash):           eval "$(_KGEN_COMPLETE=bash_source kgen)"
""",
)
@click.version_option(__version__, "-V", "--version", prog_name="kgen")
@click.option("-v", "--verbose", is_flag=True, help="Say more (as the command's own -v).")
@click.option("-q", "--quiet", is_flag=True, help="Print errors and diffs only (as the command's own -q).")
def main(verbose: bool, quiet: bool) -> None:
    """kgen: schema and code generation for Kubernetes-style APIs in Python.

    Reads Go-style API types (apis/<group>/<version>/types.go) and writes models,
    deepcopy, defaulters, conversion, validation, protobuf, OpenAPI, CRDs and typed
    clients into generated/. Settings come from [tool.kgen] in pyproject.toml."""
    # A run builds a large graph that lives until the end (the IR, schemas, the files), and
    # the default thresholds rescan it every few hundred allocations; with these (mypy's),
    # generating 2,000 types takes a fifth less time. Cycles are still collected.
    gc.set_threshold(200_000, 30, 30)


@main.command(
    epilog=EXIT_CODES + """

\b
Examples:
  kgen generate                          everything [tool.kgen] configures
  kgen generate --only models,deepcopy   just these generators' files
  kgen generate --check                  the pre-commit / CI drift check
  kgen generate --strict -q              warnings fail the run; print only problems
""",
)
@_input_options
@click.option("--output", metavar="DIR", help="Where generated files go (default: generated).")
@click.option("--only", metavar="GEN[,GEN]", help=f"Only these generators: {', '.join(NAMES)}.")
@click.option(
    "--verify-only", "--check", "verify_only", is_flag=True,
    help="Write nothing; exit 1 with a diff when generated files drifted.",
)  # fmt: skip
@click.option(
    "--strict", is_flag=True, default=None, help="Warnings are errors (exit 2); also `strict = true` in [tool.kgen]."
)
@click.option(
    "--models", "models", type=click.Choice(MODEL_BACKENDS), default=None,
    help="The model backend (default pydantic; also `models = ...` in [tool.kgen]): msgspec structs decode and encode in C.",
)  # fmt: skip
@click.option(
    "--force", is_flag=True,
    help="Write into an output directory kgen would refuse: one holding files but no kgen output, the home "
    "directory, or one containing the input.",
)  # fmt: skip
@click.option(
    "--crd-max-description-length", type=click.IntRange(min=0), metavar="N",
    help="Cut CRD descriptions to N characters at a sentence or word; 0 drops them (controller-gen's crd:maxDescLen).",
)  # fmt: skip
@click.option(
    "--crd-embedded-object-meta/--no-crd-embedded-object-meta", default=None,
    help="Give an ObjectMeta inside a kind (a pod template's) its schema (controller-gen's crd:generateEmbeddedObjectMeta).",
)  # fmt: skip
@_guarded
def generate(
    config_path, input_dir, module, import_map, tags, verbose, output, only, verify_only, strict, models, force,
    crd_max_description_length, crd_embedded_object_meta,
) -> None:  # fmt: skip
    """Generate code from the API types into the output directory.

    Generation is all-or-nothing: on any error nothing is written, and files kgen did not
    generate are never overwritten or deleted."""
    from kgen import pipeline

    options = _options(config_path, input_dir, module, import_map, tags, output, only, strict or None, models)
    options = dataclasses.replace(
        options,
        crd_max_description_length=(
            crd_max_description_length if crd_max_description_length is not None else options.crd_max_description_length
        ),
        crd_embedded_object_meta=(
            crd_embedded_object_meta if crd_embedded_object_meta is not None else options.crd_embedded_object_meta
        ),
    )  # fmt: skip
    result = pipeline.generate(options, progress=_console.progress)
    shown = _console.warnings(result.diagnostics)
    if options.strict and shown:
        _console.error(
            f"{shown} warning{'s' if shown != 1 else ''}, and warnings are errors (--strict); nothing was written"
        )
        sys.exit(EXIT_INPUT)
    # CRDs and webhook manifests in directories of their own (kubebuilder's config/crd/bases and
    # config/webhook), like controller-gen's output:<generator>:artifacts:config: written,
    # checked and cleaned as further output roots. The webhook module stays in the output.
    rest, scope, extra = result.files, options.selected, []
    for name, root in (("crd", options.crd_output), ("webhook", options.webhook_output)):
        if root is None or name not in options.selected:
            continue
        moved = [f for f in rest if f.generator == name and f.path.startswith(HOMES[name])]
        rest = [f for f in rest if f not in moved]
        if name == "crd":
            scope = tuple(g for g in scope if g != "crd")
        extra.append((root, [dataclasses.replace(f, path=f.path.removeprefix(HOMES[name])) for f in moved], (name,),
                      {name: ""}))  # fmt: skip
    _emit([(options.output, rest, scope, HOMES), *extra], verify_only, options.input, force)


def _emit(targets, verify_only: bool, input_dir: Path, force: bool = False) -> None:
    """Write or check each (root, files, generators) target; every target is checked before
    any is written, so a problem with the second leaves the first untouched too."""
    from kgen.emit import Mode, emit

    mode = Mode.CHECK if verify_only else Mode.WRITE
    _console.progress("checking" if verify_only else "writing")
    if mode is Mode.WRITE and len(targets) > 1:
        for root, files, scope, homes in targets:
            emit(files, root, Mode.CHECK, scope, input_dir=input_dir, force=force, homes=homes)
    reports = [
        emit(files, root, mode, scope, input_dir=input_dir, force=force, homes=homes)
        for root, files, scope, homes in targets
    ]
    _console.clear_progress()
    for report in reports:
        for diff in report.diffs:
            click.echo(diff, nl=False)
        _console.summary(report.summary(mode))
    if mode is Mode.CHECK and any(report.drifted for report in reports):
        sys.exit(EXIT_DRIFT)


@main.command()
@_input_options
@click.option(
    "-o",
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON here instead of stdout.",
)
@click.option("--schema", is_flag=True, help="Print the JSON Schema of the IR document instead.")
@_guarded
def ir(config_path, input_dir, module, import_map, tags, verbose, output_file, schema) -> None:
    """Print the resolved IR as versioned JSON (the format third-party generators read)."""
    from kgen import pipeline
    from kgen.ir.model import IR_FORMAT, Universe

    if schema:
        document = Universe.model_json_schema()
        document["$id"] = f"https://kgen.dev/schemas/{IR_FORMAT.rsplit('/', 1)[-1]}/universe.json"
    else:
        options = _options(config_path, input_dir, module, import_map, tags)
        universe, diagnostics = pipeline.build(options)
        _console.warnings(diagnostics)
        document = universe.model_dump(mode="json")
    text = json.dumps(document, indent=2, sort_keys=False) + "\n"
    if output_file:
        output_file.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


EXIT_CODES_COMPAT = """\b
Exit codes:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on (default: error)
  2  bad input or settings (every problem is printed as path:line:col)
  3  a bug in kgen (set KGEN_DEBUG=1 for the traceback and report it)"""


@main.command(
    epilog=EXIT_CODES_COMPAT + """

\b
Examples:
  kgen compat --against origin/main          the API of the working tree against the main branch
  kgen compat --against v1.2.0 --format sarif -o compat.sarif
  kgen compat --against release-crds/        against the CRDs of a published release
  kgen compat --against old.yaml new.yaml    two sets of CRD manifests, no Go types
  kgen compat --against origin/main config/crd/   the CRDs of the working tree against the main branch
  kgen compat --rules                        every rule, its severity and why
""",
)
@_input_options
@click.argument("new", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--against", multiple=True, metavar="REVISION|DIR|FILE",
    help="What to compare with: a git revision (origin/main, a tag), a directory of Go types, or CRD files "
    "(repeatable). Default: against in [tool.kgen.compat].",
)  # fmt: skip
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True,
              help="How to print the findings.")  # fmt: skip
@click.option(
    "--fail-on", type=click.Choice(FAIL_ON_CHOICES), default=None,
    help="Exit 1 on findings of this severity or above (default: error, or fail-on in [tool.kgen.compat]).",
)  # fmt: skip
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the findings here instead of stdout.")  # fmt: skip
@click.option("--no-examples", is_flag=True, help="Do not look for example objects that a change breaks (faster).")
@click.option("--rules", "list_rules", is_flag=True, help="List every rule with its severity and reason, and exit.")
@_guarded
def compat(
    config_path, input_dir, module, import_map, tags, verbose, new, against, output_format, fail_on, output_file,
    no_examples, list_rules,
) -> None:  # fmt: skip
    """Report the changes of the API that break existing clients or stored objects.

    Compares the API types (or the CRD files given as NEW) with another revision: kinds,
    versions, storage, scope, every field's schema (type, required, defaults, validation,
    list types, CEL rules), JSON names and protobuf numbers, following the Kubernetes API
    change guide. Alpha versions are held to less."""
    from kgen import compat as checks
    from kgen import findings, pipeline
    from kgen.compat import rules as compat_rules
    from kgen.compat import settings as compat_settings
    from kgen.console import wants_color

    if list_rules:
        for rule in compat_rules.RULES.values():
            click.echo(f"{rule.id:<34} {rule.severity:<8} {rule.summary}")
        return
    if config_path is not None and not config_path.exists():
        raise OptionsError(f"--config {config_path}: no such file")
    found_config = config_path if config_path is not None else find_config(Path.cwd())
    settings = compat_settings.load(found_config)
    specs = against or settings.against
    if not specs:
        raise OptionsError(
            "nothing to compare with: pass --against (a git revision such as origin/main, a directory, or CRD "
            "files), or set against in [tool.kgen.compat]"
        )
    options = None
    if new:
        _console.progress("reading " + ", ".join(str(p) for p in new))
        newer = checks.read_paths(list(new), None)
    else:
        options = _options(config_path, input_dir, module, import_map, tags)
        _console.progress("reading the API types")
        universe, diagnostics = pipeline.build(options)
        _console.warnings(diagnostics)
        newer = checks.from_universe(
            universe, "the working tree", embedded_object_meta=options.crd_embedded_object_meta
        )
    _console.progress("reading " + ", ".join(specs))
    older = checks.read_against(specs, options, new_paths=list(new))
    _console.progress("comparing")
    found, notes = checks.compare(older, newer, allow=settings.allow, examples=not no_examples)
    _console.clear_progress()
    report = findings.Report(found, tool="kgen-compat", version=__version__, rules=checks.rule_table(), notes=notes)
    color = output_format == "text" and output_file is None and wants_color(sys.stdout)
    text = findings.render(report, output_format, color=color)
    if output_file is not None:
        output_file.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    code = findings.exit_code(found, fail_on or settings.fail_on)
    if code:
        sys.exit(code)


LINT_EXIT_CODES = """\b
Exit codes:
  0  no finding at or above --fail-on (default: warning)
  1  findings at or above --fail-on
  2  bad input or settings (every problem is printed as path:line:col)
  3  a bug in kgen (set KGEN_DEBUG=1 for the traceback and report it)"""


def _rule_list(text: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (text or "").split(",") if part.strip())


@main.command(
    name="lint",
    epilog=LINT_EXIT_CODES + """

\b
Examples:
  kgen lint                                the profile's rules (crd for custom resources, else builtin)
  kgen lint --fix                          apply the fixes to the Go sources, then report what is left
  kgen lint --format sarif -o lint.sarif   for code-scanning UIs (github annotations: --format github)
  kgen lint --update-baseline              accept today's findings in the baseline file
  kgen lint --select maxlength,ssatags     only these rules
  kgen lint --list-rules                   every rule, its settings and the profiles that run it
""",
)
@_input_options
@click.option(
    "--profile",
    type=click.Choice(["crd", "builtin"]),
    default=None,
    help="Rule set: crd (custom resources) or builtin (Kubernetes-style built-in APIs); default: from the input.",
)
@click.option("--select", metavar="RULE[,RULE]", help="Only these rules (`all` for every rule).")
@click.option("--enable", metavar="RULE[,RULE]", help="Also these rules (on top of the profile and [tool.kgen.lint]).")
@click.option("--disable", metavar="RULE[,RULE]", help="Not these rules.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "sarif", "github"]),
    default="text",
    show_default=True,
    help="How findings are written.",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the findings here instead of stdout.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info", "never"]),
    default=None,
    help="Exit 1 on findings at or above this severity (default: warning; also `fail-on` in [tool.kgen.lint]).",
)
@click.option("--fix", is_flag=True, help="Apply the automatic fixes to the Go sources, then report what is left.")
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Accept the findings this baseline file lists (also `baseline` in [tool.kgen.lint]).",
)
@click.option("--no-baseline", is_flag=True, help="Report every finding, whatever the baseline accepts.")
@click.option("--update-baseline", is_flag=True, help="Write the baseline file to accept every finding of this run.")
@click.option("--list-rules", is_flag=True, help="List every rule with its settings, and exit.")
@_guarded
def lint_command(
    config_path, input_dir, module, import_map, tags, verbose, profile, select, enable, disable, fmt, output_file,
    fail_on, fix, baseline_path, no_baseline, update_baseline, list_rules,
) -> None:  # fmt: skip
    """Check the API types against the API conventions (kube-api-linter's rules, openapi-gen's
    API rules, and kgen's: lists, metadata, spec and status, enums, conditions, CEL costs,
    markers across versions). Every finding says path:line:col, the rule and why."""
    from kgen import findings as reports
    from kgen.console import wants_color
    from kgen.lint import baseline as baselines
    from kgen.lint import config as lint_config
    from kgen.lint import run as linting

    if list_rules:
        from kgen.lint.registry import RULES

        for rule in RULES.values():
            on = ",".join(sorted(rule.profiles)) or "opt-in"
            click.echo(
                f"{rule.id:<22} {rule.severity.value:<8} {on:<12} {'fix' if rule.fixable else '   '} "
                f"{rule.origin:<16} {rule.explanation}"
            )
            for key, option in rule.options.items():
                choices = f" ({' | '.join(option.choices)})" if option.choices else ""
                click.echo(f"{'':<24}{key} = {option.default!r}{choices}: {option.help}")
        return
    options = _options(config_path, input_dir, module, import_map, tags)
    found = config_path if config_path is not None else find_config(Path.cwd())
    table, base = ({}, Path.cwd()) if found is None else _lint_table(found)
    settings = lint_config.read_settings(table, base)
    if profile:
        settings.profile = profile
    settings.select = _rule_list(select)
    settings.enable = settings.enable + _rule_list(enable)
    settings.disable = settings.disable + _rule_list(disable)
    for names, where in (
        (settings.select, "--select"),
        (_rule_list(enable), "--enable"),
        (_rule_list(disable), "--disable"),
    ):
        lint_config.check_rule_names(names, where)
    if fail_on:
        settings.fail_on = fail_on
    if baseline_path is not None:
        settings.baseline = baseline_path
    if no_baseline or update_baseline:
        baseline_file = settings.baseline
        settings.baseline = None
    if update_baseline:
        if baseline_file is None:
            raise OptionsError(
                "--update-baseline needs a baseline file: --baseline FILE or `baseline` in [tool.kgen.lint]"
            )
        result = linting.lint(options, settings, progress=_console.progress)
        _console.clear_progress()
        _console.warnings(result.diagnostics)
        baselines.write(result.findings, baseline_file)
        click.echo(
            f"kgen: wrote {len(result.findings)} accepted finding{'s' if len(result.findings) != 1 else ''} "
            f"to {baseline_file}",
            err=True,
        )
        return
    if fix:
        result = linting.fix(options, settings, progress=_console.progress)
    else:
        result = linting.lint(options, settings, progress=_console.progress)
    _console.clear_progress()
    _console.warnings(result.diagnostics)
    report = result.report(__version__)
    stream = sys.stdout
    text = reports.render(report, fmt, color=fmt == "text" and output_file is None and wants_color(stream))
    if output_file is not None:
        output_file.write_text(text, encoding="utf-8")
        click.echo(reports.summary(report.findings) + f" (written to {output_file})", err=True)
    else:
        click.echo(text, nl=False)
    if reports.exit_code(result.findings, settings.fail_on):
        sys.exit(reports.EXIT_FINDINGS)


def _lint_table(path: Path):
    """The `[tool.kgen.lint]` table of a pyproject.toml and the directory its paths are relative to."""
    from kgen.options import load_config

    table, base = load_config(path)
    return table.get("lint", {}), base


@main.command()
def markers() -> None:
    """List every marker kgen knows, with its scopes, value type and meaning."""
    from kgen.markers.registry import REGISTRY

    for name in sorted(REGISTRY.definitions, key=str.lower):
        definition = REGISTRY.definitions[name]
        scopes = ",".join(s.value for s in sorted(definition.scopes, key=lambda s: s.value))
        value = definition.value_type if definition.keyword_args is None else "key=value,..."
        note = (
            f" (changes nothing kgen writes: {definition.inert})" if definition.inert
            else f" (not applied, with a warning: {definition.unapplied})" if definition.unapplied
            else ""
        )  # fmt: skip
        click.echo(f"+{name:<48} {scopes:<20} {value:<24} {definition.help}{note}")


def _serve_token(token: str | None, token_file: Path | None) -> str | None:
    """The token `kgen serve` requires: --token-file's first line, else --token (or its
    environment variable); a token given on the command line is warned about."""
    if token_file is not None:
        lines = token_file.read_text(encoding="utf-8").splitlines()
        if not lines or not lines[0].strip():
            raise OptionsError(f"--token-file {token_file}: the file holds no token")
        return lines[0].strip()
    context = click.get_current_context()
    if token and context.get_parameter_source("token") is click.core.ParameterSource.COMMANDLINE:
        click.echo(
            "kgen: warning: --token on the command line is visible to every local user (ps); use KGEN_SERVE_TOKEN "
            "or --token-file",
            err=True,
        )
    return token


@main.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    short_help="Serve the generated conversion and admission webhooks over TLS.",
)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
def webhook(arguments: tuple[str, ...]) -> None:
    """Serve the generated webhook application (webhook.py) over TLS; `kgen webhook -h` for
    its options. It needs only the runtime and the webhook extra, not the code generator."""
    from kgen.webhook.cli import main as serve_webhooks

    serve_webhooks(list(arguments))


@main.command(name="protobuf-tags")
@_input_options
@click.option("--write", is_flag=True, help="Add the tags to the Go sources (otherwise list them and exit 1).")
@_guarded
def protobuf_tags(config_path, input_dir, module, import_map, tags, verbose, write) -> None:
    """Number the members that have no protobuf: tag (highest + 1, in field order)."""
    from kgen import pipeline
    from kgen.protobuf_tags import apply, missing

    options = _options(config_path, input_dir, module, import_map, tags)
    universe, diagnostics = pipeline.build(options)
    additions = missing(universe, diagnostics)
    diagnostics.raise_if_errors()
    _console.warnings(diagnostics)
    if not additions:
        click.echo("kgen: every member of a protobuf package has a protobuf tag", err=True)
        return
    for addition in additions:
        click.echo(str(addition))
    if not write:
        click.echo(f"kgen: {len(additions)} members need a protobuf tag; add them with --write", err=True)
        sys.exit(EXIT_DRIFT)
    files = apply(additions)
    click.echo(f"kgen: added {len(additions)} protobuf tags in {len(files)} files", err=True)


@main.command(
    epilog=EXIT_CODES_NO_DRIFT + """

\b
Example:
  kgen init --group widgets.example.com --kind Widget --module github.com/you/widgets/apis
  kgen generate && python -c "from generated.widgets.v1 import Widget; print(Widget())"
""",
)
@click.option("--group", default="widgets.example.com", show_default=True, help="The API group (a DNS subdomain).")
@click.option("--version", "api_version", default="v1", show_default=True, help="The API version.")
@click.option("--kind", default="Widget", show_default=True, help="The kind to start with.")
@click.option("--module", metavar="PATH", help="Go import path of apis/ (default: example.com/<project>/apis).")
@click.option(
    "--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
    show_default=True, help="The repository to set up.",
)  # fmt: skip
@_guarded
def init(group: str, api_version: str, kind: str, module: str | None, directory: Path) -> None:
    """Set up an API repository: apis/<group>/<version>/ with one kind, [tool.kgen] in
    pyproject.toml and a pre-commit hook. Existing files are left alone."""
    from kgen import scaffold

    try:
        plan = scaffold.plan(directory, group, api_version, kind, module)
        directory.mkdir(parents=True, exist_ok=True)
        written, kept = scaffold.write(plan)
    except scaffold.ScaffoldError as err:
        raise OptionsError(str(err)) from None
    for path in written:
        click.echo(f"created {path}")
    for path in kept:
        click.echo(f"kept    {path} (it exists)")
    click.echo(
        f"\nNext: edit {plan.package_dir}/types.go, then `kgen generate`; import your types with "
        f"`from generated.{plan.group.split('.')[0]}.{plan.version} import {plan.kind}`."
        + ("" if module else f"\nSet module in [tool.kgen] to your repository's Go import path (now {plan.module}).")
    )


@main.command(
    epilog=EXIT_CODES_NO_DRIFT + """

\b
Examples:
  kgen serve                                  the API of apis/ on https://127.0.0.1:6443, in memory
  KUBECONFIG=~/.cache/kgen/serve/kubeconfig kubectl get frobbers
  kgen serve --storage sqlite:.kgen/api.db --kubeconfig kubeconfig --port 0
  kgen serve --address 0.0.0.0                every interface (TLS and a token, as always)
  kgen serve --no-tls --no-auth               plain HTTP on loopback, no token (a local sandbox)
  kgen serve --storage etcd:http://127.0.0.1:2379
""",
)
@_input_options(
    verbose_help="Also log every request (the access log), and show notes and warnings about third-party packages."
)
@click.option(
    "--address",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; any but loopback means TLS. Every address requires the bearer token the "
    "kubeconfig carries (a loopback one also refuses Host headers that are not its own).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    help="Port to listen on (default 6443, or 8080 without TLS; 0: any free port).",
)
@click.option(
    "--storage", default="sqlite::memory:", show_default=True, metavar="URL",
    help="sqlite:PATH, sqlite::memory: or etcd:http://HOST:PORT.",
)  # fmt: skip
@click.option(
    "--kubeconfig", "kubeconfig_path", type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the kubeconfig for this server (default: kgen's cache directory, serve/kubeconfig).",
)  # fmt: skip
@click.option(
    "--tls/--no-tls",
    default=None,
    help="Serve HTTPS with a self-signed certificate the kubeconfig trusts (default: on; kubectl sends no "
    "token over plain HTTP, so --no-tls on loopback goes with --no-auth for kubectl).",
)
@click.option(
    "--token",
    envvar="KGEN_SERVE_TOKEN",
    help="The bearer token clients must send (default: a random one, written to the kubeconfig). Prefer the "
    "KGEN_SERVE_TOKEN environment variable or --token-file: a command line is readable by every local user.",
)
@click.option(
    "--token-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the bearer token from this file (its first line).",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="Accept requests without the token (loopback only): any local process, and any web page that reaches "
    "127.0.0.1, can then read and write the API.",
)
@click.option(
    "--allow-plain-http-on-network",
    is_flag=True,
    help="With --no-tls on an address other than loopback: serve plain HTTP anyway (the token crosses the network "
    "unencrypted).",
)
@click.option(
    "--feature-gates",
    metavar="GATE=BOOL[,...]",
    default="",
    help="Feature gates the API's conversions and validation see.",
)
@click.option(
    "--storage-prefix", default="/registry/", show_default=True, help="Key prefix of the objects in the storage."
)
@click.option(
    "--max-requests-inflight",
    type=click.IntRange(min=0),
    default=400,
    show_default=True,
    help="Read-only requests at once before 429 (0: no limit).",
)
@click.option(
    "--max-mutating-requests-inflight",
    type=click.IntRange(min=0),
    default=200,
    show_default=True,
    help="Writes at once before 429 (0: no limit).",
)
@click.option(
    "--compaction-interval", type=click.FloatRange(min=0), default=300.0, show_default=True, metavar="SECONDS",
    help="How often history older than --history-seconds is compacted (0: never).",
)  # fmt: skip
@click.option(
    "--history-seconds", type=click.FloatRange(min=0), default=300.0, show_default=True, metavar="SECONDS",
    help="History kept for watches and paging; older resourceVersions are 410 Gone once compacted.",
)  # fmt: skip
@click.option(
    "--request-timeout", type=click.FloatRange(min=0), default=60.0, show_default=True, metavar="SECONDS",
    help="How long a request other than a watch may take, its body included, before 504 Timeout (0: no limit).",
)  # fmt: skip
@click.option(
    "--bookmark-interval", type=click.FloatRange(min=0.01), default=60.0, show_default=True, metavar="SECONDS",
    help="How often watches that allow bookmarks get a BOOKMARK event.",
)  # fmt: skip
@click.option(
    "--models", "models", type=click.Choice(MODEL_BACKENDS), default=None,
    help="The model backend the server runs on (default: the configuration's, `models = ...` in [tool.kgen]).",
)  # fmt: skip
@click.option(
    "--webhook", "webhooks", multiple=True, metavar="NAMESPACE/NAME=HOST:PORT",
    help="Where the webhook of a Service listens on this machine (the Service a CRD's conversion or a webhook "
    "configuration names); its certificate must still be valid for NAME.NAMESPACE.svc. Repeatable.",
)  # fmt: skip
def serve(
    config_path, input_dir, module, import_map, tags, verbose, address, port, storage, kubeconfig_path, tls, token,
    token_file, no_auth, allow_plain_http_on_network, feature_gates, storage_prefix, max_requests_inflight, max_mutating_requests_inflight, compaction_interval,
    history_seconds, request_timeout, bookmark_interval, models, webhooks,
) -> None:  # fmt: skip
    """Serve the API (every group/version, and namespaces) so kubectl and clients can use it.

    Generates the API's code into a private directory, imports it and serves it with the
    API server's semantics: discovery, OpenAPI, validation, conversion between versions,
    patch and server-side apply, watch, Table output. Writes a kubeconfig for itself."""

    chosen_token = _serve_token(token, token_file)  # here, where click's context is

    @_guarded
    def prepare():
        # Generating runs on kgen's deep-stack thread; serving then runs on the main thread,
        # where uvicorn hears SIGINT and SIGTERM and shuts down gracefully.
        from kgen.serve import ServeError, ServeOptions
        from kgen.serve import prepare as prepare_server

        gates: dict[str, bool] = {}
        for item in filter(None, (part.strip() for part in feature_gates.split(","))):
            gate, _, value = item.partition("=")
            if value.lower() not in ("true", "false"):
                raise OptionsError(f"--feature-gates {item}: expected GATE=true or GATE=false")
            gates[gate.strip()] = value.lower() == "true"
        services: dict[str, str] = {}
        for item in webhooks:
            service, _, where = item.partition("=")
            if service.count("/") != 1 or not all(service.split("/")) or ":" not in where:
                raise OptionsError(f"--webhook {item}: expected NAMESPACE/NAME=HOST:PORT")
            services[service] = where
        options = _options(config_path, input_dir, module, import_map, tags, models=models)
        settings = ServeOptions(
            address=address, port=port, storage=storage, kubeconfig=kubeconfig_path, tls=tls,
            token=chosen_token, auth=not no_auth,
            allow_plain_http_on_network=allow_plain_http_on_network,
            feature_gates=gates, storage_prefix=storage_prefix, max_requests_inflight=max_requests_inflight,
            max_mutating_requests_inflight=max_mutating_requests_inflight, compaction_interval=compaction_interval,
            history_seconds=history_seconds, bookmark_interval=bookmark_interval, access_log=verbose,
            request_timeout=request_timeout, webhook_services=services,
        )  # fmt: skip
        try:
            return prepare_server(options, settings, say=lambda line: click.echo(line, err=True))
        except ServeError as err:
            raise OptionsError(str(err)) from None

    server = prepare()
    from kgen.serve import ServeError

    try:
        server.run()
    except ServeError as err:
        _console.error(str(err))
        sys.exit(EXIT_INPUT)


@main.command(name="bootstrap-runtime", hidden=True)
@click.option("--verify-only", is_flag=True, help="Write nothing; exit 1 when kgen's runtime models drifted.")
@_guarded
def bootstrap_runtime(verify_only: bool) -> None:
    """Regenerate kgen's own runtime models of the apimachinery well-known types (pydantic
    models, and msgspec structs beside them)."""
    from kgen import pipeline
    from kgen.ir.build import WELLKNOWN_ROOT

    targets = []
    for options in runtime_options():
        result = pipeline.generate(options, bootstrap=True)
        _console.warnings(result.diagnostics)
        targets.append((options.output, result.files, options.selected, {}))
    _emit(targets, verify_only, WELLKNOWN_ROOT)


def runtime_options() -> list[Options]:
    """The runs that write kgen's runtime models: pydantic models, then msgspec structs."""
    from kgen.ir.build import WELLKNOWN_ROOT

    return [
        Options(input=WELLKNOWN_ROOT, output=RUNTIME_ROOT, module="", generators=RUNTIME_GENERATORS),
        Options(
            input=WELLKNOWN_ROOT, output=STRUCTS_RUNTIME_ROOT, module="", generators=STRUCTS_RUNTIME_GENERATORS,
            models="msgspec",
        ),  # fmt: skip
    ]


if __name__ == "__main__":
    main()
