"""Hand-written hooks beside the API types, found by name with libcst.

An API package may hold `defaults.py`, `conversion.py` and `validation.py` next to its Go
files. kgen reads their top-level functions (never imports them) and records name,
parameters and position; generators call the hooks they recognise by name, and a hook
with the wrong parameters is a diagnostic that shows the signature to write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kgen.diagnostics import Diagnostics, Position

if TYPE_CHECKING:  # the IR is not loaded to read HOOK_MODULES (a warm kgen serve's run key)
    from kgen.ir.model import Hook

HOOK_MODULES = ("defaults", "conversion", "validation")


@dataclass(frozen=True, slots=True)
class HookFunction:
    """A top-level function of a hook module."""

    module: str  # "defaults", "conversion", "validation"
    name: str
    parameters: tuple[str, ...]  # positional parameters without defaults
    flexible: bool  # has *args, **kwargs, keyword-only or defaulted parameters
    position: Position


def read_hook_modules(directory: Path, shown_directory: str, diagnostics: Diagnostics) -> list[HookFunction]:
    """The functions of every hook module in a package directory."""
    found: list[HookFunction] = []
    for module in HOOK_MODULES:
        path = directory / f"{module}.py"
        if not path.is_file():
            continue
        shown = f"{shown_directory}/{module}.py" if shown_directory else f"{module}.py"
        import libcst  # most API packages have no hooks: the import is paid only for those that do
        from libcst.metadata import MetadataWrapper, PositionProvider

        try:
            raw = path.read_bytes()
            tree = libcst.parse_module(raw.decode("utf-8"))
        except libcst.ParserSyntaxError as err:
            diagnostics.error(
                Position(shown, err.editor_line, err.editor_column),
                f"cannot parse hook module: {err.message}",
            )
            continue
        except UnicodeDecodeError as err:
            # where the first byte that is not UTF-8 sits, as an editor counts lines and columns
            line = raw.count(b"\n", 0, err.start) + 1
            column = len(raw[raw.rfind(b"\n", 0, err.start) + 1 : err.start].decode("utf-8", "replace")) + 1
            diagnostics.error(
                Position(shown, line, column),
                f"cannot read hook module: byte 0x{raw[err.start]:02x} is not UTF-8; save the file as UTF-8",
            )
            continue
        except OSError as err:
            diagnostics.error(Position(shown, 1, 1), f"cannot read hook module: {err.strerror}")
            continue
        wrapper = MetadataWrapper(tree)
        positions = wrapper.resolve(PositionProvider)
        for statement in wrapper.module.body:
            if not isinstance(statement, libcst.FunctionDef):
                continue
            params = statement.params
            required = tuple(p.name.value for p in (*params.posonly_params, *params.params) if p.default is None)
            flexible = bool(
                params.star_kwarg
                or isinstance(params.star_arg, libcst.Param)
                or params.kwonly_params
                or any(p.default is not None for p in (*params.posonly_params, *params.params))
            )
            start = positions[statement].start
            found.append(
                HookFunction(
                    module, statement.name.value, required, flexible, Position(shown, start.line, start.column + 1)
                )
            )
    return found


def check_arity(hook: Hook, count: int, example: str, diagnostics: Diagnostics) -> bool:
    """Report a hook whose positional parameters are not exactly `count`."""
    if len(hook.parameters) == count and not hook.flexible:
        return True
    diagnostics.error(
        Position.parse(hook.position),
        f"{hook.name} takes {len(hook.parameters)} required parameter{'s' if len(hook.parameters) != 1 else ''}"
        f"{' and optional ones' if hook.flexible else ''}; kgen calls it as `{example}`, so write `def {example}:`",
    )
    return False
