"""enums: string enums as the API conventions write them ("Constants", "Enumerated values" in
api-conventions.md): the values are UpperCamelCase words; a type whose constants are its
values says so (`+enum`, or for a CRD `+kubebuilder:validation:Enum`), so that schemas list
the values and clients know them; a written Enum list and the type's constants agree.

Clients keep enums open-ended (kgen's models accept a value they do not know, as a newer
server may send one), which is why the values must be listed where the API is published.
"""

from __future__ import annotations

import re

from kgen.ir.model import EnumValue, Package, TypeDef
from kgen.lint.engine import Context
from kgen.lint.rules.kinds import _api_packages, _lint_type
from kgen.findings import Severity

_CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_ENUM_MARKERS = ("enum", "k8s:enum")
_CRD_ENUM = "kubebuilder:validation:Enum"


def _string_typed(typedef: TypeDef) -> bool:
    return typedef.kind == "named" and typedef.underlying is not None and typedef.underlying.basic == "string"


def check_enums(ctx: Context) -> None:
    """Enum values are UpperCamelCase; a string type with constants is marked as an enum; written values match the constants."""
    for package in _api_packages(ctx):
        for typedef in package.types:
            if not _string_typed(typedef) or not typedef.enum_values:
                continue
            lint_type = _lint_type(ctx, package, typedef)
            if lint_type is None:
                continue
            _check_values(ctx, package, typedef)
            marked = any(typedef.has_marker(m) for m in _ENUM_MARKERS) or lint_type.markers.has(_CRD_ENUM)
            if not marked and len(typedef.enum_values) > 1:
                wanted = "+kubebuilder:validation:Enum" if package.custom_resources else "+enum"
                ctx.report_type(lint_type, f"type {typedef.name} has constants ({_listed(typedef.enum_values)}) but is not "
                                           f"marked {wanted}: published schemas do not list its values", severity=Severity.INFO)  # fmt: skip
            written = lint_type.markers.get(_CRD_ENUM)
            if written:
                values = {v.strip().strip('"') for v in written[0].payload.split(";") if v.strip()}
                constants = {str(v.value) for v in typedef.enum_values}
                if values != constants:
                    extra, missing = sorted(values - constants), sorted(constants - values)
                    parts = [f"lists {', '.join(repr(v) for v in extra)} that no constant has"] if extra else []
                    parts += [f"leaves out {', '.join(repr(v) for v in missing)}"] if missing else []
                    ctx.report_type(lint_type, f"+{_CRD_ENUM} of {typedef.name} {' and '.join(parts)}: the schema and the "
                                               "Go constants disagree")  # fmt: skip


def _listed(values: tuple[EnumValue, ...]) -> str:
    shown = ", ".join(repr(v.value) for v in values[:4])
    return shown + (", ..." if len(values) > 4 else "")


def _check_values(ctx: Context, package: Package, typedef: TypeDef) -> None:
    lint_package = ctx.world.packages.get(package.import_path)
    if lint_package is None:
        return
    files = {f.path: f for f in lint_package.files}
    for value in typedef.enum_values:
        text = str(value.value)
        if not text or _CAMEL.match(text):
            continue
        path, line, col = value.position.rsplit(":", 2) if value.position.count(":") >= 2 else ("", "0", "0")
        lint_file = files.get(path)
        if lint_file is None:
            continue
        ctx.report(lint_file, int(line), int(col), f"enum value {text!r} of {typedef.name} ({value.go_name}) is not "
                                                   "UpperCamelCase, as enum values are written", f"{typedef.name}.{value.go_name}",
                   severity=Severity.INFO)  # fmt: skip
