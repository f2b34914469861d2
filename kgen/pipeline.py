"""The pipeline: options -> Universe -> generated files, with no disk writes.

`build(options)` stops with `InputError` (every diagnostic) when the input is bad;
`generate(options)` runs the configured generators and keeps the selected ones' files.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, TypeVar
from collections.abc import Callable
from dataclasses import dataclass

from kgen import cache
from kgen.diagnostics import Diagnostics, Severity, display_path
from kgen.generators import CHECKS, GeneratorOptions, crd, generators_for, unavailable_for
from kgen.generators.backends import backend
from kgen.ir.build import BuildOptions, build_universe
from kgen.ir.model import Universe
from kgen.options import Options, OptionsError
from kgen.render import GeneratedFile, format_files, templates_from


@dataclass
class Result:
    universe: Universe | None
    """None when the run came from the cache (the input was not parsed again)."""
    files: list[GeneratedFile]
    diagnostics: Diagnostics


def build(
    options: Options, *, bootstrap: bool = False, diagnostics: Diagnostics | None = None
) -> tuple[Universe, Diagnostics]:
    """Parse the input into the IR; raise InputError when any error was found."""
    diagnostics = diagnostics or Diagnostics()
    universe = build_universe(carried_options(options, BuildOptions, bootstrap=bootstrap), diagnostics)
    diagnostics.raise_if_errors()
    return universe, diagnostics


def generate(
    options: Options,
    *,
    bootstrap: bool = False,
    use_cache: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Build the IR and run the configured generators; return the selected generators' files.

    An identical earlier run (same input bytes, kgen, options) is answered from the cache.
    `progress(status)` hears what the run is doing (the console shows it on a terminal)."""
    say = progress or (lambda status: None)
    unavailable = unavailable_for(options.models, options.selected)
    if unavailable:
        available = [name for name in options.selected if name not in unavailable]
        raise OptionsError(
            f"not yet available for {options.models} models: {', '.join(unavailable)}; generate the others with "
            f"--only {','.join(available) or 'models'} (or list them in `generators` in [tool.kgen]), "
            'or use pydantic models (models = "pydantic")'
        )
    key = cache.run_key(options, bootstrap) if use_cache else None
    if key is not None and (hit := cache.load(key)) is not None:
        return Result(None, *hit)
    say(f"reading {display_path(options.input)}")
    universe, diagnostics = build(options, bootstrap=bootstrap)
    for name in options.selected:  # a generator that does not run cannot fail
        if name in CHECKS:
            CHECKS[name](universe, diagnostics)
    backend_check = backend(options.models).check
    if backend_check is not None and "models" in options.selected:
        backend_check(universe, diagnostics)
    diagnostics.raise_if_errors()
    # This run writes the selected generators' files; the files that wire modules together
    # import the configured generators' modules, so `--only` never unwires a module it did
    # not regenerate.
    generator_options = carried_options(
        options, GeneratorOptions, generators=options.selected, wiring=options.generators
    )
    # A user's templates replace kgen's for this run only; they may print any shape, so
    # their modules go through black whole.
    with templates_from(options.templates) as overriding:
        generators = generators_for(options.models)
        files: list[GeneratedFile] = []
        running = [name for name in options.generators if name in options.selected]
        for index, name in enumerate(running, 1):
            say(f"generating {name} ({index}/{len(running)})")
            files.extend(generators[name](universe, generator_options))
        if "crd" in running:
            crd.check_documents(universe, generator_options, diagnostics)
    say(f"formatting {len(files)} files")
    files = format_files(files, always_black=overriding)
    if key is not None:
        cache.store(key, files, diagnostics)
    return Result(universe, files, diagnostics)


_T = TypeVar("_T")


def carried_options(options: Options, target: type[_T], **own: Any) -> _T:
    """`target` (the options of one stage) with every field it shares by name with the
    run's options carried over, and `own` for the rest: an option a stage gains reaches
    it without being copied by hand."""
    shared = {f.name: getattr(options, f.name) for f in dataclasses.fields(target) if f.name not in own and hasattr(options, f.name)}  # type: ignore[arg-type]
    return target(**shared, **own)


def print_warnings(diagnostics: Diagnostics, verbose: bool = False) -> None:
    """Print the warnings (and with `verbose`, the notes and the warnings about packages the
    user did not write) to stderr, in file order (the CLI prints through kgen.console)."""
    hidden = 0
    for diagnostic in diagnostics.sorted():
        if diagnostic.severity is Severity.ERROR:
            continue
        if diagnostics.is_verbose(diagnostic) and not verbose:
            hidden += diagnostic.severity is Severity.WARNING
            continue
        print(diagnostic, file=sys.stderr)
    if hidden:
        print(
            f"kgen: {hidden} warning{'s' if hidden != 1 else ''} about third-party packages not shown (-v shows them)",
            file=sys.stderr,
        )
