"""What the parts of the IR builder share: the loaded source packages and their role, the
well-known packages' place, positions, comments, and walks over type references.

The builder (`kgen.ir.build`) is one object made of parts, each in its own module:
loading packages (`kgen.ir.loading`), evaluating constants (`kgen.ir.constvalues`),
building types (`kgen.ir.build`) and the passes over the whole universe
(`kgen.ir.passes`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from kgen.diagnostics import Position
from kgen.ir.model import TypeDef, TypeRef
from kgen.markers.grammar import doc_lines
from kgen.markers.registry import Marker
from kgen.source.loader import SourcePackage
from kgen.source.syntax import CommentBlock, ConstDecl, GoFile, TypeDecl

_VERSION = re.compile(r"^v\d+((alpha|beta)\d+)?$")

WELLKNOWN_ROOT = Path(__file__).resolve().parent.parent / "wellknown"


_BASIC = {
    "bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
    "uint32", "uint64", "uintptr", "float32", "float64", "byte", "rune",
}  # fmt: skip


@dataclass
class _SourceInfo:
    source: SourcePackage
    decls: dict[str, tuple[TypeDecl, GoFile]]
    consts: list[tuple[ConstDecl, GoFile]]
    markers: tuple[Marker, ...]
    builtin: bool
    dependency: bool
    const_index: dict[str, tuple[ConstDecl, GoFile]] = field(default_factory=dict)

    @property
    def role(self) -> str:
        """`api`: an API group/version of the input (every type is generated); `library`: an
        input package of shared types (`dependency`: one from outside the input; `builtin`:
        one of kgen's well-known packages): only the types API types reach are generated."""
        if self.builtin:
            return "builtin"
        if self.dependency:
            return "dependency"
        if any(m.name == "groupName" for m in self.markers):
            return "api"
        return "api" if _VERSION.match(self.source.directory.name) else "library"


def _pos(position: Position) -> str:
    return str(position)


def _comment_lines(block: CommentBlock) -> tuple[str, ...]:
    """A comment as Go's CommentGroup.Text reads it: `//` and one space removed, trailing
    space trimmed, runs of empty lines made one, no empty lines at either end."""
    lines: list[str] = []
    for line in block.lines:
        text = (line.text[1:] if line.text.startswith(" ") else line.text).rstrip()
        if text or (lines and lines[-1]):
            lines.append(text)
    while lines and not lines[-1]:
        lines.pop()
    return tuple(lines)


def _comment_doc(*blocks: CommentBlock) -> str:
    lines: list[str] = []
    for block in blocks:
        lines.extend(doc_lines(block))
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(line.rstrip() for line in lines)


def _with_value(decl: ConstDecl, value) -> ConstDecl:
    """The constant with its value as the package evaluates it."""
    return decl if decl.value == value else dataclasses.replace(decl, value=value)


def _refs_of(typedef: TypeDef) -> list[TypeRef]:
    """The type expressions a type definition names: its fields', members', underlying type
    and list items."""
    refs = [f.type for f in typedef.fields] + [m.type for m in typedef.members]
    return refs + [r for r in (typedef.underlying, typedef.list_item) if r is not None]


def _named_refs(ref: TypeRef):
    """The named types a type expression mentions."""
    stack = [ref]
    while stack:
        current = stack.pop()
        if current.kind == "named":
            yield current
        stack.extend(r for r in (current.elem, current.key) if r is not None)


def _replace_named(ref: TypeRef, keys: set[tuple[str, str]]) -> TypeRef:
    """The type expression with references to `keys` replaced by arbitrary JSON."""
    if ref.kind == "named":
        return TypeRef(kind="any") if (ref.package, ref.name) in keys else ref
    update = {}
    for name in ("elem", "key"):
        child = getattr(ref, name)
        if child is not None:
            update[name] = _replace_named(child, keys)
    return ref.model_copy(update=update) if update else ref


def _split_pos(position: str) -> tuple[str, int, int]:
    path, line, col = position.rsplit(":", 2)
    return path, int(line), int(col)


def _default_package_name(import_path: str) -> str:
    last = import_path.rsplit("/", 1)[-1]
    return re.sub(r"\.v\d+$", "", last).replace("-", "_")
