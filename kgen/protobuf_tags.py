"""`kgen protobuf-tags`: give members without a `protobuf:` tag one, in the Go sources.

Numbers are stable forever, so kgen never picks them at generation time: this command
does, once, the way go-to-protobuf numbers new fields (the struct's highest number plus
one, in field order), and never a number a tombstone (`+k8s:deprecated=...,protobuf=N`)
holds. The tag says what go-to-protobuf would write (`bytes,4,opt,name=width`, with
`casttype=`/`castkey=` for named types). The edit inserts the tag and nothing else: every
other byte of the file stays as it was.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import tree_sitter
import tree_sitter_go

from kgen.diagnostics import Diagnostics, Position
from kgen.generators.protobuf import ShapeError, field_name, has_protobuf, is_type_meta, messages_of, shape, tombstones
from kgen.ir.model import Member, TypeDef, TypeRef, Universe


@dataclass(frozen=True)
class Addition:
    """One tag to add: where the member is declared, and the tag's value."""

    position: Position
    typedef: str
    member: str
    tag: str

    def __str__(self) -> str:
        return f'{self.position}: {self.typedef}.{self.member}: protobuf:"{self.tag}"'


def missing(universe: Universe, diagnostics: Diagnostics) -> list[Addition]:
    """The tags to add, in source order; problems (a tag kgen cannot choose) as errors."""
    additions = []
    for package in universe.packages:
        if not package.generate or not has_protobuf(package):
            continue
        for typedef in messages_of(package):
            if typedef.kind == "struct" and typedef.defined_from is None:
                additions += _struct(universe, typedef, diagnostics)
    return sorted(additions, key=lambda a: (a.position.path, a.position.line, a.position.col))


def _needs_tag(member: Member) -> bool:
    if member.protobuf is not None or member.tags.get("protobuf") == "-":
        return False
    if is_type_meta(member):
        return False
    return member.json_name is not None or member.promoted


def _struct(universe: Universe, typedef: TypeDef, diagnostics: Diagnostics) -> list[Addition]:
    taken = {m.protobuf.number for m in typedef.members if m.protobuf is not None}
    taken |= {number for number, _ in tombstones(typedef)[0].values() if number is not None}
    highest = max(taken, default=0)
    additions = []
    declared: dict[str, list[str]] = {}
    for member in typedef.members:
        declared.setdefault(member.position, []).append(member.go_name)
    for member in typedef.members:
        if not _needs_tag(member):
            continue
        where = Position.parse(member.position)
        if len(declared[member.position]) > 1:
            diagnostics.error(where, f"{typedef.name}: {', '.join(declared[member.position])} share one declaration "
                              f"and so one tag; declare them one per line to number them")  # fmt: skip
            continue
        try:
            wire = shape(universe, member.type)
        except ShapeError as err:
            diagnostics.error(where, f'{typedef.name}.{member.go_name}: {err}, or leave it out with protobuf:"-"')
            continue
        highest += 1
        name = field_name(member)
        label = "rep" if wire.kind in ("repeated", "map") else "opt"
        parts = [_wire_type(wire), str(highest), label, f"name={name}"]
        parts += _casts(universe, typedef, member.type)
        additions.append(Addition(where, typedef.name, member.go_name, ",".join(parts)))
    return additions


def _wire_type(wire) -> str:
    scalar = wire.elem.scalar if wire.kind == "repeated" and wire.elem.kind == "scalar" else wire.scalar
    if wire.kind in ("scalar", "repeated") and scalar:
        if scalar in ("int32", "int64", "uint32", "uint64", "bool"):
            return "varint"
        if scalar == "double":
            return "fixed64"
        if scalar == "float":
            return "fixed32"
    return "bytes"


def _casts(universe: Universe, typedef: TypeDef, ref: TypeRef) -> list[str]:
    """go-to-protobuf's casttype/castkey/castvalue options for named non-struct types."""

    def named(target: TypeRef | None) -> TypeDef | None:
        if target is None or target.kind != "named":
            return None
        resolved = universe.resolve(target)
        return resolved if resolved.kind == "named" else None

    def cast_name(resolved: TypeDef) -> str:
        return resolved.name if resolved.package == typedef.package else f"{resolved.package}.{resolved.name}"

    ref = ref.elem if ref.kind == "pointer" else ref
    casts = []
    own = named(ref)
    base = own.underlying if own is not None else ref
    if own is not None and base.kind != "slice":
        casts.append(f"casttype={cast_name(own)}")
    if base.kind == "map":
        if key := named(base.key):
            casts.append(f"castkey={cast_name(key)}")
        value = named(base.elem)
        if value is not None and value.underlying.kind not in ("slice", "map"):
            casts.append(f"castvalue={cast_name(value)}")
    return casts


# -- editing the sources ---------------------------------------------------------------------


def apply(additions: list[Addition]) -> list[Path]:
    """Insert the tags; every file is rewritten whole or not at all (all files are edited
    in memory first, then replaced one by one)."""
    by_file: dict[str, list[Addition]] = {}
    for addition in additions:
        by_file.setdefault(addition.position.path, []).append(addition)
    edited: dict[Path, bytes] = {}
    for path, group in by_file.items():
        source = Path(path).read_bytes()
        edited[Path(path)] = insert_tags(source, [(a.position.line, a.position.col, a.tag) for a in group])
    for path, content in edited.items():
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.chmod(temporary, path.stat().st_mode & 0o777)
        os.replace(temporary, path)
    return sorted(edited)


def insert_tags(source: bytes, tags: list[tuple[int, int, str]]) -> bytes:
    """Add `protobuf:"<tag>"` to the field declarations starting at (line, col), 1-based."""
    tree = tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language())).parse(source)
    wanted = {(line - 1, col - 1): tag for line, col, tag in tags}
    inserts: list[tuple[int, bytes]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "field_declaration" and (node.start_point.row, node.start_point.column) in wanted:
            tag = wanted.pop((node.start_point.row, node.start_point.column))
            inserts.append(_insertion(node, tag))
            continue
        stack.extend(node.children)
    if wanted:
        line, col = next(iter(wanted))
        raise ValueError(f"no field declaration at {line + 1}:{col + 1}; the file changed since it was read")
    for offset, text in sorted(inserts, reverse=True):
        source = source[:offset] + text + source[offset:]
    return source


def _insertion(node: tree_sitter.Node, tag: str) -> tuple[int, bytes]:
    literal = node.child_by_field_name("tag")
    if literal is None:
        return node.child_by_field_name("type").end_byte, f' `protobuf:"{tag}"`'.encode()
    raw = literal.type == "raw_string_literal"
    body = literal.text[1:-1]
    separator = b" " if body and not body.endswith(b" ") else b""
    text = f'protobuf:"{tag}"' if raw else f'protobuf:\\"{tag}\\"'
    return literal.end_byte - 1, separator + text.encode()
