"""The `kgen` command line.

Exit codes: 0 ok, 1 generated files drifted (verify), 2 bad input or settings,
3 internal error (a bug in kgen: please report it with the input that caused it).
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

from kgen import __version__
from kgen.diagnostics import InputError
from kgen.emit import EmitError, Mode, emit
from kgen.generators import GENERATORS, PLANNED, RUNTIME_GENERATORS
from kgen.markers.registry import REGISTRY
from kgen.options import Options, OptionsError, resolve_options

EXIT_DRIFT = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
RUNTIME_ROOT = Path(__file__).resolve().parent / "runtime" / "apimachinery"


def _input_options(function):
    """The flags that say where the API types are."""
    decorators = [
        click.option("--input", "input_dir", metavar="DIR", help="Directory of Go API types (default: apis)."),
        click.option("--module", metavar="PATH", help="Go import path of the input directory (default: from its go.mod)."),
        click.option(
            "--import-map", multiple=True, metavar="IMPORTPATH=DIR",
            help="Read the Go package IMPORTPATH (and below) from DIR. Repeatable.",
        ),  # fmt: skip
        click.option("--tags", metavar="TAG[,TAG]", help="Extra build tags for //go:build constraints."),
        click.option(
            "-v", "--verbose", is_flag=True,
            help="Also show notes, and warnings about third-party packages (the module cache, vendor/, import maps).",
        ),  # fmt: skip
        click.option(
            "--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
            default=Path("pyproject.toml"), show_default=True, help="File with a [tool.kgen] table.",
        ),  # fmt: skip
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _guarded(function):
    """Map failures to exit codes; never show a traceback for bad input."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except InputError as err:
            for diagnostic in err.diagnostics:
                if diagnostic.severity.value != "note":
                    click.echo(str(diagnostic), err=True)
            errors = sum(1 for d in err.diagnostics if d.severity.value == "error")
            click.echo(f"kgen: {errors} error{'s' if errors != 1 else ''} in the input; nothing was written", err=True)
            sys.exit(EXIT_INPUT)
        except (OptionsError, EmitError) as err:
            click.echo(f"kgen: error: {err}", err=True)
            sys.exit(EXIT_INPUT)
        except click.exceptions.Exit:
            raise
        except click.ClickException:
            raise
        except Exception as err:  # noqa: BLE001 - the last line of defence
            if os.environ.get("KGEN_DEBUG"):
                traceback.print_exc()
            click.echo(
                f"kgen: internal error: {type(err).__name__}: {err}\n"
                "This is a bug in kgen. Set KGEN_DEBUG=1 for the traceback and report it with the input that caused it.",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)

    return wrapper


def _options(config_path, input_dir, module, import_map, tags, output=None, only=None) -> Options:
    return resolve_options(
        config_path=config_path,
        input=input_dir,
        output=output,
        module=module,
        import_map=import_map,
        only=only,
        tags=tags,
        registered=tuple(GENERATORS),
        planned=PLANNED,
    )


@click.group()
@click.version_option(__version__, prog_name="kgen")
def main() -> None:
    """kgen: code generation for Kubernetes-style APIs in Python."""
    # A run builds a large graph that lives until the end (the IR, schemas, the files), and
    # the default thresholds rescan it every few hundred allocations; with these (mypy's),
    # generating 2,000 types takes a fifth less time. Cycles are still collected.
    gc.set_threshold(200_000, 30, 30)


@main.command()
@_input_options
@click.option("--output", metavar="DIR", help="Where generated files go (default: generated).")
@click.option("--only", metavar="GEN[,GEN]", help=f"Only these generators: {', '.join(GENERATORS)}.")
@click.option("--verify-only", is_flag=True, help="Write nothing; exit 1 with a diff when generated files drifted.")
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
    config_path, input_dir, module, import_map, tags, verbose, output, only, verify_only, force,
    crd_max_description_length, crd_embedded_object_meta,
) -> None:  # fmt: skip
    """Generate code from the API types into the output directory."""
    from kgen import pipeline

    options = _options(config_path, input_dir, module, import_map, tags, output, only)
    options = dataclasses.replace(
        options,
        crd_max_description_length=(
            crd_max_description_length if crd_max_description_length is not None else options.crd_max_description_length
        ),
        crd_embedded_object_meta=(
            crd_embedded_object_meta if crd_embedded_object_meta is not None else options.crd_embedded_object_meta
        ),
    )  # fmt: skip
    result = pipeline.generate(options)
    pipeline.print_warnings(result.diagnostics, verbose)
    _emit(result.files, options.output, options.selected, verify_only, options.input, force)


def _emit(files, output: Path, scope: tuple[str, ...], verify_only: bool, input_dir: Path, force: bool = False) -> None:
    mode = Mode.CHECK if verify_only else Mode.WRITE
    report = emit(files, output, mode, scope, input_dir=input_dir, force=force)
    for diff in report.diffs:
        click.echo(diff, nl=False)
    click.echo(report.summary(mode), err=True)
    if mode is Mode.CHECK and report.drifted:
        sys.exit(EXIT_DRIFT)


@main.command()
@_input_options
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, path_type=Path), help="Write the JSON here instead of stdout.")
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
        pipeline.print_warnings(diagnostics, verbose)
        document = universe.model_dump(mode="json")
    text = json.dumps(document, indent=2, sort_keys=False) + "\n"
    if output_file:
        output_file.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


@main.command()
def markers() -> None:
    """List every marker kgen knows, with its scopes, value type and meaning."""
    for name in sorted(REGISTRY.definitions, key=str.lower):
        definition = REGISTRY.definitions[name]
        scopes = ",".join(s.value for s in sorted(definition.scopes, key=lambda s: s.value))
        value = definition.value_type if definition.keyword_args is None else "key=value,..."
        click.echo(f"+{name:<48} {scopes:<20} {value:<24} {definition.help}")


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
    pipeline.print_warnings(diagnostics, verbose)
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


@main.command(name="bootstrap-runtime")
@click.option("--verify-only", is_flag=True, help="Write nothing; exit 1 when kgen's runtime models drifted.")
@_guarded
def bootstrap_runtime(verify_only: bool) -> None:
    """Regenerate kgen's own runtime models of the apimachinery well-known types."""
    from kgen import pipeline
    from kgen.ir.build import WELLKNOWN_ROOT

    options = Options(input=WELLKNOWN_ROOT, output=RUNTIME_ROOT, module="", generators=RUNTIME_GENERATORS)
    result = pipeline.generate(options, bootstrap=True)
    pipeline.print_warnings(result.diagnostics)
    _emit(result.files, RUNTIME_ROOT, options.selected, verify_only, WELLKNOWN_ROOT)


if __name__ == "__main__":
    main()
