"""Syntax records: what a Go file declares, as written, before any resolution.

These are the output of `kgen.source.parser` and the input of `kgen.ir.build`. They keep
positions and raw comment lines; nothing here knows about markers or Kubernetes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgen.diagnostics import Position
from kgen.source.constexpr import UNKNOWN, ConstExpr


@dataclass(frozen=True, slots=True)
class CommentLine:
    """One `//` comment line; `text` is what follows the slashes, unstripped."""

    position: Position
    text: str


@dataclass(frozen=True, slots=True)
class CommentBlock:
    """Consecutive own-line `//` comments with no blank line between them."""

    lines: tuple[CommentLine, ...]

    @property
    def first_line(self) -> int:
        return self.lines[0].position.line

    @property
    def last_line(self) -> int:
        return self.lines[-1].position.line


EMPTY_BLOCK = CommentBlock(())


@dataclass(frozen=True, slots=True)
class TypeExpr:
    """A type expression as written.

    kind is one of: ident, qualified, pointer, slice, array, map, struct, interface,
    func, chan, generic, unknown.
    """

    kind: str
    position: Position
    text: str
    name: str = ""
    package: str = ""
    elem: TypeExpr | None = None
    key: TypeExpr | None = None
    fields: tuple[FieldDecl, ...] = ()
    empty_interface: bool = False


@dataclass(frozen=True, slots=True)
class FieldDecl:
    """One field declaration; `names` is empty for an embedded field."""

    names: tuple[str, ...]
    type: TypeExpr
    tag: str | None
    tag_position: Position | None
    doc: CommentBlock
    trailing: CommentLine | None
    position: Position

    @property
    def embedded(self) -> bool:
        return not self.names


@dataclass(frozen=True, slots=True)
class TypeDecl:
    """`type Name T` or `type Name = T`, with the two comment blocks above it."""

    name: str
    type: TypeExpr
    alias: bool
    doc: CommentBlock
    prior: CommentBlock
    position: Position


@dataclass(frozen=True, slots=True)
class ConstDecl:
    """One named constant: its type as written (or as its conversion `T(x)` gives it), its
    value as far as the file alone tells (None when it refers to names declared elsewhere),
    and its expression, which the IR evaluates with the whole package and its imports."""

    name: str
    type_name: TypeExpr | None
    value: str | int | float | bool | None
    doc: CommentBlock
    position: Position
    expr: ConstExpr = UNKNOWN


@dataclass(frozen=True, slots=True)
class ImportDecl:
    alias: str
    path: str
    position: Position


@dataclass(frozen=True, slots=True)
class GoFile:
    """Everything kgen reads from one Go file."""

    path: str
    package: str
    package_position: Position
    package_doc: tuple[CommentBlock, ...]
    imports: tuple[ImportDecl, ...]
    types: tuple[TypeDecl, ...]
    consts: tuple[ConstDecl, ...]
    functions: tuple[str, ...] = ()
    """Names of the top-level functions (not methods); their bodies are not read."""
    build_constraint: str | None = None
    generated: bool = False
    comment_blocks: tuple[CommentBlock, ...] = field(default=())
    trailing_comments: tuple[CommentLine, ...] = field(default=())
    """`//` comments after code on their line (`Name string // the name`), in file order."""
