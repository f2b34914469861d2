"""What the API linters see: the Go sources of the input as written, with the markers and
`json:` tags of every type and struct field, their byte ranges (for fixes), and a resolver
of type names within a package and across packages.

Rules read this view rather than the IR: they judge the source as written (an alias, a
pointer, a marker kgen does not know), and their fixes edit it. The IR (`Universe`) is still
at hand for what only it knows (which kinds are custom resources, served versions, resolved
types of other modules) through `World.universe`.

Markers belong to a declaration as kube-api-linter reads them: the comment group directly
above it, and the group before that one when one or two blank lines separate them (a group
of markers only, for a field; any group with markers that documents nothing else, for a type).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kgen.ir.model import TypeDef, TypeRef, Universe
from kgen.lint.markers import KNOWN_IDENTIFIERS, MARKER_PREFIX, Marker, MarkerSet, marker_of_comment
from kgen.source.loader import SourcePackage
from kgen.source.syntax import CommentBlock, FieldDecl, GoFile, TypeDecl, TypeExpr
from kgen.source.tags import GoStringError, unquote_go

BASIC_TYPES = frozenset(
    {
        "bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
        "uintptr", "float32", "float64", "complex64", "complex128", "byte", "rune",
    }
)  # fmt: skip
MAX_MARKER_SEPARATION = 3
"""Lines from the end of a group of markers to the start of the doc comment below it, at most."""
_TAG_PAIR = re.compile(r'\s*([^\s:"\x00-\x1f\x7f]+):("(?:[^"\\]|\\.)*")')


@dataclass(frozen=True, slots=True)
class JSONTagInfo:
    """A field's `json:` tag as kube-api-linter reads it."""

    name: str = ""
    ignored: bool = False
    """`json:"-"`."""
    omitempty: bool = False
    omitzero: bool = False
    inline: bool = False
    """`json:",inline"` (or an embedded field's empty tag)."""
    missing: bool = False
    """No tag, or no `json` key in it."""
    raw: str = ""
    """The tag's value as written between the quotes."""
    start: int = -1
    end: int = -1
    """Byte offsets of `raw` in the file (-1 when the tag is not a raw string literal)."""


@dataclass
class LintFile:
    """One Go file of the input."""

    path: str
    """As findings show it (relative to where kgen runs)."""
    disk: Path
    source: bytes
    go: GoFile
    package: LintPackage
    known: frozenset[str]
    line_starts: list[int] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)
    groups: list[CommentBlock] = field(default_factory=list)
    """Every comment group of the file in order: own-line blocks and trailing comments."""
    decl_lines: set[int] = field(default_factory=set)
    """Lines on which a declaration or struct field starts (whose doc a comment above would be)."""

    def __post_init__(self) -> None:
        self.line_starts = [0] + [i + 1 for i, b in enumerate(self.source) if b == 10]
        for imp in self.go.imports:
            if imp.alias not in ("_", "."):
                self.imports[imp.alias or _package_name(imp.path)] = imp.path
        trailing = [CommentBlock((line,)) for line in self.go.trailing_comments]
        self.groups = sorted(
            [*self.go.comment_blocks, *trailing], key=lambda b: (b.first_line, b.lines[0].position.col)
        )
        self._group_index = {id(g): i for i, g in enumerate(self.groups)}

    def offset(self, line: int, col: int) -> int:
        """The byte offset of a 1-based line and byte column."""
        return self.line_starts[line - 1] + col - 1

    def line_span(self, line: int) -> tuple[int, int]:
        """The byte range of a whole line, its newline included."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.source)
        return start, end

    def line_text(self, line: int) -> str:
        start, end = self.line_span(line)
        return self.source[start:end].decode("utf-8", "replace").rstrip("\r\n")

    def indentation(self, line: int) -> str:
        text = self.line_text(line)
        return text[: len(text) - len(text.lstrip(" \t"))]

    def markers_of(self, block: CommentBlock) -> list[Marker]:
        """The marker lines of a comment group."""
        out = []
        for line in block.lines:
            text = "//" + line.text
            start = self.offset(line.position.line, line.position.col)
            marker = marker_of_comment(
                text.rstrip("\r"), self.path, line.position.line, line.position.col, start, self.known
            )
            if marker is not None:
                out.append(marker)
        return out

    def previous_group(self, block: CommentBlock) -> CommentBlock | None:
        index = self._group_index.get(id(block))
        return self.groups[index - 1] if index else None

    def documents_something(self, block: CommentBlock) -> bool:
        """Whether the group is the doc comment of something: code starts on the line below it
        (a declaration, a field, a variable), not a closing brace or a blank line."""
        following = block.last_line + 1
        if following in self.decl_lines:
            return True
        if following > len(self.line_starts):
            return False
        text = self.line_text(following).strip()
        return bool(text) and not text.startswith(("}", ")", "//"))


@dataclass
class LintType:
    """A type declaration and its markers."""

    decl: TypeDecl
    file: LintFile
    markers: MarkerSet

    @property
    def name(self) -> str:
        return self.decl.name

    @property
    def struct(self) -> LintStruct | None:
        return self.file.package.structs_by_decl.get(id(self.decl))


@dataclass
class LintField:
    """A struct field as written (embedded ones included), with its markers and json tag."""

    decl: FieldDecl
    struct: LintStruct
    index: int
    file: LintFile
    markers: MarkerSet
    tag: JSONTagInfo

    @property
    def name(self) -> str:
        """kube-api-linter's field name: the first name, or an embedded type's identifier ("" for `pkg.T`)."""
        if self.decl.names:
            return self.decl.names[0]
        expr = self.decl.type.elem if self.decl.type.kind == "pointer" else self.decl.type
        return expr.name if expr is not None and expr.kind == "ident" else ""

    @property
    def embedded(self) -> bool:
        return not self.decl.names

    @property
    def qualified_name(self) -> str:
        """`Struct.Field` for a field of a named struct; the field (or its type) alone in an anonymous one."""
        name = self.name or _expr_string(self.decl.type)
        return f"{self.struct.name}.{name}" if self.struct.name else name

    @property
    def dotted_name(self) -> str:
        """`Struct.Field` as kube-api-linter's type checks name it (`.Field` in an anonymous struct)."""
        return f"{self.struct.name}.{self.name}"

    @property
    def type(self) -> TypeExpr:
        return self.decl.type

    @property
    def line(self) -> int:
        return self.decl.position.line

    @property
    def col(self) -> int:
        return self.decl.position.col

    @property
    def start(self) -> int:
        return self.file.offset(self.line, self.col)


@dataclass
class LintStruct:
    """A struct type: a named one (`type X struct`) or an anonymous one inside another."""

    expr: TypeExpr
    name: str
    """The type's name; "" for an anonymous struct."""
    file: LintFile
    decl: TypeDecl | None = None
    markers: MarkerSet = field(default_factory=MarkerSet)
    fields: list[LintField] = field(default_factory=list)
    parent: LintField | None = None
    """The field whose type an anonymous struct is."""

    def is_list_type(self, name: str = "") -> bool:
        """kube-api-linter's Kubernetes list: exactly TypeMeta, ListMeta and an `Items` slice
        (and a name ending in List, when one is given)."""
        if name and not name.endswith("List"):
            return False
        if len(self.fields) != 3:
            return False
        found = set()
        for f in self.fields:
            type_name = f.type.name if f.type.kind in ("ident", "qualified") else ""
            if type_name in ("TypeMeta", "ListMeta"):
                found.add(type_name)
            elif f.decl.names and f.decl.names[0] == "Items" and f.type.kind in ("slice", "array"):
                found.add("Items")
        return found == {"TypeMeta", "ListMeta", "Items"}


@dataclass
class LintPackage:
    """One Go package of the input."""

    import_path: str
    directory: Path
    files: list[LintFile] = field(default_factory=list)
    types: dict[str, LintType] = field(default_factory=dict)
    structs: list[LintStruct] = field(default_factory=list)
    structs_by_decl: dict[int, LintStruct] = field(default_factory=dict)
    structs_by_expr: dict[int, LintStruct] = field(default_factory=dict)

    def fields(self) -> Iterator[LintField]:
        for struct in self.structs:
            yield from struct.fields


@dataclass(frozen=True, slots=True)
class Shape:
    """What a type is underneath, as Go's type checker would tell a linter of another
    package's type: a struct (with its exported fields' json tags), a slice, a map, a
    pointer or a basic type."""

    kind: str
    """struct, slice, map, pointer, basic, interface or unknown."""
    basic: str = ""
    fields: tuple[tuple[str, str | None, str], ...] = ()
    """A struct's exported, not embedded fields: (name, json tag value or None, zero value as JSON)."""
    elem_basic: str = ""
    """A slice's element, when it is a basic type (`[]byte`)."""


_STRUCT_SHAPES: dict[tuple[str, str], Shape] = {
    # Go structs whose fields kgen's well-known packages do not declare as Go writes them
    # (their JSON form is custom): what Go's type checker sees of them.
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "Time"): Shape("struct"),
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "MicroTime"): Shape("struct"),
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "Duration"): Shape("struct"),
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "FieldsV1"): Shape("struct"),
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): Shape("struct"),
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): Shape(
        "struct", fields=(("Type", None, "0"), ("IntVal", None, "0"), ("StrVal", None, '""'))
    ),
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): Shape("struct"),
}


class World:
    """Every package the linters read, and the IR for the rest."""

    def __init__(self, packages: list[LintPackage], universe: Universe | None = None, linted: set[str] | None = None):
        self.packages = {p.import_path: p for p in packages}
        self.universe = universe
        self.linted = linted if linted is not None else set(self.packages)
        """Import paths of the packages whose findings are reported (others only answer lookups)."""

    def linted_packages(self) -> list[LintPackage]:
        return [p for path, p in sorted(self.packages.items()) if path in self.linted]

    # -- resolution -----------------------------------------------------------------------

    def local_type(self, file: LintFile, expr: TypeExpr | None) -> LintType | None:
        """The declaration an identifier names in the file's own package (None for a basic type)."""
        if expr is None or expr.kind != "ident":
            return None
        return file.package.types.get(expr.name)

    def is_basic(self, file: LintFile, expr: TypeExpr | None) -> bool:
        """A predeclared Go type (`string`, `int32`, `byte`...)."""
        return (
            expr is not None
            and expr.kind == "ident"
            and expr.name in BASIC_TYPES
            and expr.name not in file.package.types
        )

    def import_path(self, file: LintFile, expr: TypeExpr) -> str:
        return file.imports.get(expr.package, "")

    def external(self, file: LintFile, expr: TypeExpr) -> tuple[LintType | None, TypeDef | None]:
        """The declaration of a qualified type (`metav1.Time`): in a package read from source, or in the IR."""
        path = self.import_path(file, expr)
        package = self.packages.get(path)
        if package is not None:
            return package.types.get(expr.name), None
        if self.universe is not None:
            try:
                found = self.universe.package(path).type(expr.name)
            except KeyError:
                found = None
            return None, found
        return None, None

    def shape(self, file: LintFile, expr: TypeExpr | None, depth: int = 0) -> Shape:
        """What a type expression is underneath, following names in any package."""
        if expr is None or depth > 32:
            return Shape("unknown")
        kind = expr.kind
        if kind == "pointer":
            return Shape("pointer")
        if kind in ("slice", "array"):
            elem = expr.elem
            elem_basic = elem.name if elem is not None and self.is_basic(file, elem) else ""
            return Shape("slice", elem_basic=elem_basic)
        if kind == "map":
            return Shape("map")
        if kind == "struct":
            return Shape("struct", fields=self._struct_fields(file, expr))
        if kind == "interface":
            return Shape("interface")
        if kind == "ident":
            if self.is_basic(file, expr):
                return Shape("basic", basic=expr.name)
            local = self.local_type(file, expr)
            return self.shape(local.file, local.decl.type, depth + 1) if local is not None else Shape("unknown")
        if kind == "qualified":
            local, typedef = self.external(file, expr)
            if local is not None:
                return self.shape(local.file, local.decl.type, depth + 1)
            if typedef is not None:
                return self._typedef_shape(typedef, depth)
            known = _STRUCT_SHAPES.get((self.import_path(file, expr), expr.name))
            return known if known is not None else Shape("unknown")
        return Shape("unknown")

    def _struct_fields(self, file: LintFile, expr: TypeExpr) -> tuple[tuple[str, str | None, str], ...]:
        out = []
        for decl in expr.fields:
            if not decl.names or not decl.names[0][:1].isupper():
                continue
            tag = lookup_tag(decl.tag, "json")[0] if decl.tag is not None else None
            out.append((decl.names[0], tag, zero_of(self.shape(file, decl.type))))
        return tuple(out)

    def _typedef_shape(self, typedef: TypeDef, depth: int) -> Shape:
        known = _STRUCT_SHAPES.get((typedef.package, typedef.name))
        if known is not None:
            return known
        if typedef.kind == "struct" or (typedef.kind == "python" and typedef.members):
            fields = tuple(
                (m.go_name, m.tags.get("json"), zero_of(self._ref_shape(m.type, depth + 1)))
                for m in typedef.members
                if not m.embedded and m.go_name[:1].isupper()
            )
            return Shape("struct", fields=fields)
        if typedef.kind == "python":
            return Shape("struct")
        return self._ref_shape(typedef.underlying, depth + 1)

    def _ref_shape(self, ref: TypeRef | None, depth: int) -> Shape:
        if ref is None or depth > 32:
            return Shape("unknown")
        if ref.kind == "basic":
            return Shape("slice", elem_basic="byte") if ref.basic == "bytes" else Shape("basic", basic=ref.basic or "")
        if ref.kind == "pointer":
            return Shape("pointer")
        if ref.kind == "slice":
            elem = ref.elem
            return Shape("slice", elem_basic=(elem.basic or "") if elem is not None and elem.kind == "basic" else "")
        if ref.kind == "map":
            return Shape("map")
        if ref.kind == "named" and self.universe is not None:
            return self._typedef_shape(self.universe.resolve(ref), depth + 1)
        return Shape("unknown")


def zero_of(shape: Shape) -> str:
    """A type's zero value as JSON, from what it is underneath (Go's types, as kube-api-linter writes them)."""
    if shape.kind == "basic":
        name = shape.basic
        if name == "string":
            return '""'
        if name == "bool":
            return "false"
        if name.startswith(("int", "uint")) or name in ("byte", "rune"):
            return "0"
        return "0.0" if name.startswith("float") else ""
    return {"slice": "[]", "map": "{}", "struct": "{}", "pointer": "null"}.get(shape.kind, "")


# -- building the view -----------------------------------------------------------------------


def build_package(source: SourcePackage, known: frozenset[str] = KNOWN_IDENTIFIERS) -> LintPackage:
    """The lint view of one package read by `kgen.source.loader`."""
    package = LintPackage(source.import_path, source.directory)
    for go in source.files:
        disk = source.directory / Path(go.path).name
        try:
            data = disk.read_bytes()
        except OSError:
            continue
        lint_file = LintFile(go.path, disk, data, go, package, known)
        lint_file.decl_lines = _declaration_lines(go)
        package.files.append(lint_file)
        for decl in go.types:
            markers = MarkerSet.of(_type_markers(lint_file, decl))
            lint_type = LintType(decl, lint_file, markers)
            package.types.setdefault(decl.name, lint_type)
            if decl.type.kind == "struct":
                struct = LintStruct(decl.type, decl.name, lint_file, decl, markers)
                package.structs_by_decl[id(decl)] = struct
                _add_struct(package, struct)
    return package


def _add_struct(package: LintPackage, struct: LintStruct) -> None:
    package.structs.append(struct)
    package.structs_by_expr[id(struct.expr)] = struct
    for index, decl in enumerate(struct.expr.fields):
        lint_field = LintField(
            decl,
            struct,
            index,
            struct.file,
            MarkerSet.of(_field_markers(struct.file, decl)),
            json_tag(struct.file, decl),
        )
        struct.fields.append(lint_field)
    for lint_field in list(struct.fields):
        for nested in _nested_structs(lint_field.decl.type):
            _add_struct(package, LintStruct(nested, "", struct.file, parent=lint_field))


def _nested_structs(expr: TypeExpr | None) -> Iterator[TypeExpr]:
    if expr is None:
        return
    if expr.kind == "struct":
        yield expr
        return
    yield from _nested_structs(expr.key)
    yield from _nested_structs(expr.elem)


def _declaration_lines(go: GoFile) -> set[int]:
    lines: set[int] = {c.position.line for c in go.consts}
    stack: list[TypeExpr] = []
    for decl in go.types:
        lines.add(decl.position.line)
        stack.append(decl.type)
    while stack:
        expr = stack.pop()
        for f in expr.fields:
            lines.add(f.position.line)
            stack.append(f.type)
        stack.extend(e for e in (expr.elem, expr.key) if e is not None)
    return lines


def _type_markers(file: LintFile, decl: TypeDecl) -> list[Marker]:
    return _doc_markers(file, decl.doc, _has_markers_not_code)


def _field_markers(file: LintFile, decl: FieldDecl) -> list[Marker]:
    return _doc_markers(file, decl.doc, _only_markers)


def _doc_markers(file: LintFile, doc: CommentBlock, counts: Callable[[CommentBlock], bool]) -> list[Marker]:
    """The markers of a declaration's doc comment, after those of the comment group before it
    when that group is apart from it, documents nothing else and `counts` (a type's takes a
    group with markers and no code in it, a field's only a group of nothing but markers)."""
    if not doc.lines:
        return []
    markers = file.markers_of(doc)
    previous = file.previous_group(doc)
    if previous is not None and _separated(previous, doc) and counts(previous):
        if not file.documents_something(previous):
            markers = file.markers_of(previous) + markers
    return markers


def _separated(previous: CommentBlock, doc: CommentBlock) -> bool:
    return 1 < doc.first_line - previous.last_line <= MAX_MARKER_SEPARATION


_VALID_MARKER = re.compile(r"^[a-zA-Z]([a-zA-Z0-9:()\" ,])+=?")
_TYPE_PATTERN = re.compile(r"^\w+\s+\*?(string|int|int32|int64|uint|uint32|uint64|bool|float32|float64|byte|rune)\b")
_FUNC_PATTERN = re.compile(r"\w+(\.\w+)?\([^)]*\)")
_CODE_KEYWORDS = ("func ", "type ", "var ", "const ", "import ", "package ", "if ", "for ", "return ", "switch ",
                  "case ", "default:", "go ", "defer ", "struct {", "interface {", "}", "{")  # fmt: skip


def _only_markers(block: CommentBlock) -> bool:
    """Every non-empty line is a marker (a group of markers with no prose)."""
    found = False
    for line in block.lines:
        text = line.text.strip()
        if not text:
            continue
        if not text.startswith("+") or not _VALID_MARKER.match(text[1:]):
            return False
        found = True
    return found


def _has_markers_not_code(block: CommentBlock) -> bool:
    """At least one marker line, and no line that looks like commented-out Go code."""
    found = False
    for line in block.lines:
        if ("//" + line.text).startswith(MARKER_PREFIX):
            found = True
        elif _looks_like_code(line.text.strip()):
            return False
    return found


def _looks_like_code(content: str) -> bool:
    if not content or content.startswith("+"):
        return False
    if "`" in content or _TYPE_PATTERN.match(content) or (content.startswith("*") and content[1:2] not in ("", " ")):
        return True
    if any(op in content for op in (" := ", " = ", " += ", " -= ", " *= ", " /=")):
        return True
    if _FUNC_PATTERN.search(content):
        return True
    return content.startswith(_CODE_KEYWORDS)


def json_tag(file: LintFile, decl: FieldDecl) -> JSONTagInfo:
    """The field's json tag as kube-api-linter reads it, with its byte range when known."""
    if decl.tag is None or decl.tag_position is None:
        return JSONTagInfo(missing=True)
    value, offset = lookup_tag(decl.tag, "json")
    if value is None:
        return JSONTagInfo(missing=True)
    literal = file.offset(decl.tag_position.line, decl.tag_position.col)
    raw_literal = file.source[literal : literal + 1] == b"`"
    start = literal + 1 + len(decl.tag[:offset].encode()) if raw_literal and offset >= 0 else -1
    end = start + len(value.encode()) if start >= 0 else -1
    if value == "":
        if not decl.names:
            return JSONTagInfo(inline=True, start=start, end=end)
        return JSONTagInfo(start=start, end=end)
    parts = value.split(",")
    if parts == ["-"]:
        return JSONTagInfo(ignored=True, raw=value, start=start, end=end)
    if parts == ["", "inline"]:
        return JSONTagInfo(inline=True, raw=value, start=start, end=end)
    options = set(parts)
    return JSONTagInfo(
        name=parts[0], omitempty="omitempty" in options, omitzero="omitzero" in options, raw=value, start=start,
        end=end,
    )  # fmt: skip


def lookup_tag(tag: str, key: str) -> tuple[str | None, int]:
    """reflect.StructTag.Lookup: the value of `key`, and where its text starts in the tag
    (-1 when the quoted value has escapes, so the text is not the value)."""
    rest = 0
    while True:
        match = _TAG_PAIR.match(tag, rest)
        if match is None:
            return None, -1
        if match.group(1) == key:
            quoted = match.group(2)
            try:
                value = unquote_go(quoted[1:-1])
            except GoStringError:
                return None, -1
            return value, (match.start(2) + 1) if "\\" not in quoted else -1
        rest = match.end()


def _package_name(import_path: str) -> str:
    last = import_path.rsplit("/", 1)[-1]
    return re.sub(r"\.v\d+$", "", last).replace("-", "_")


def _expr_string(expr: TypeExpr) -> str:
    return expr.text
