"""Read one Go file with tree-sitter-go into syntax records.

Only what API type files declare matters: the package clause, imports, type and const
declarations, and comments with their positions. Functions, methods and variables are
skipped. Syntax errors become diagnostics with `path:line:col`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import tree_sitter
import tree_sitter_go

from kgen.diagnostics import Diagnostics, Position
from kgen.source import buildtags, constexpr
from kgen.source.syntax import (
    EMPTY_BLOCK,
    CommentBlock,
    CommentLine,
    ConstDecl,
    FieldDecl,
    GoFile,
    ImportDecl,
    TypeDecl,
    TypeExpr,
)
from kgen.source.tags import GoStringError, unquote_go

_GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$", re.MULTILINE)


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language()))


@lru_cache(maxsize=1)
def _comment_query():
    language = tree_sitter.Language(tree_sitter_go.language())
    return tree_sitter.QueryCursor(tree_sitter.Query(language, "(comment) @comment"))


MAX_TYPE_NESTING = 20
"""Levels one type expression may nest (`[]map[string]*[]T` is four). Real API types use a
handful; a generated Python annotation nests as deep, and Python's parser, pydantic and
every generated walk over the value follow it level by level: the generated copies and
encoders nest a comprehension per level, and the compilers of Python 3.12 and 3.13 crash on
comprehensions nested more than 20 deep."""


class TypeNestingError(Exception):
    """A type expression nests deeper than `MAX_TYPE_NESTING`."""

    def __init__(self, position: Position):
        super().__init__(position)
        self.position = position


class _FileReader:
    """Walks one tree-sitter tree; holds the file's comment index while doing so."""

    def __init__(self, path: str, source: bytes, diagnostics: Diagnostics):
        self.path = path
        self.source = source
        self.lines = source.split(b"\n")
        self._nesting = 0
        self.diagnostics = diagnostics
        self.blocks_by_last_line: dict[int, CommentBlock] = {}
        self.trailing_by_line: dict[int, CommentLine] = {}

    def pos(self, node: tree_sitter.Node) -> Position:
        return Position(self.path, node.start_point.row + 1, node.start_point.column + 1)

    def text(self, node: tree_sitter.Node | None) -> str:
        return "" if node is None else node.text.decode("utf-8", "replace")

    # -- comments --------------------------------------------------------------

    def index_comments(self, root: tree_sitter.Node) -> tuple[CommentBlock, ...]:
        own_lines: list[CommentLine] = []
        for node in _comment_query().captures(root).get("comment", ()):
            raw = self.text(node)
            if not raw.startswith("//"):
                continue  # /* */ blocks: license headers, never markers
            row, col = node.start_point.row, node.start_point.column
            line = CommentLine(Position(self.path, row + 1, col + 1), raw[2:])
            if self.lines[row][:col].strip():
                self.trailing_by_line[row + 1] = line
            else:
                own_lines.append(line)
        own_lines.sort(key=lambda c: c.position.line)
        blocks: list[CommentBlock] = []
        current: list[CommentLine] = []
        for line in own_lines:
            if current and line.position.line != current[-1].position.line + 1:
                blocks.append(CommentBlock(tuple(current)))
                current = []
            current.append(line)
        if current:
            blocks.append(CommentBlock(tuple(current)))
        for block in blocks:
            self.blocks_by_last_line[block.last_line] = block
        return tuple(blocks)

    def doc_for(self, line: int) -> CommentBlock:
        """The comment block ending on the line directly above `line`."""
        return self.blocks_by_last_line.get(line - 1, EMPTY_BLOCK)

    def prior_for(self, line: int, doc: CommentBlock) -> CommentBlock:
        """The block before the doc block, separated from it by one blank line (as gengo).
        The line between must be blank: in a grouped `type ( ... )` the doc of the type
        before ends two lines up too, and its markers are not this type's."""
        anchor = doc.first_line if doc.lines else line
        between = anchor - 2  # the 0-based index of the line above the anchor
        if between < 0 or between >= len(self.lines) or self.lines[between].strip():
            return EMPTY_BLOCK
        return self.blocks_by_last_line.get(anchor - 2, EMPTY_BLOCK)

    # -- identifiers -----------------------------------------------------------

    def report_invalid_identifiers(self, root: tree_sitter.Node) -> bool:
        """Report identifiers the Go spec refuses though the grammar reads them: a Go
        identifier is letters (Unicode categories L*) and `_`, then those or decimal digits
        (Nd); a combining mark (`Café` written with U+0301) is none of them."""
        found = False
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type in _IDENTIFIER_NODES:
                name = self.text(node)
                if not name.isascii() and not _go_identifier(name):
                    bad = next(ch for i, ch in enumerate(name) if not _go_identifier_char(ch, i == 0))
                    self.diagnostics.error(
                        self.pos(node),
                        f"invalid character U+{ord(bad):04X} in identifier {name!r}: Go identifiers are letters, "
                        "digits and underscores (write the accented letter as one precomposed character)",
                    )
                    found = True
                continue
            stack.extend(node.children)
        return found

    # -- syntax errors ---------------------------------------------------------

    def report_syntax_errors(self, root: tree_sitter.Node) -> bool:
        """Report syntax errors; True when one is outside a function body or a variable.

        kgen reads only declarations of types and constants; a function body it cannot
        read (Go syntax newer than its grammar, such as `new(expr)`) changes nothing it
        generates, so such an error is only a note."""
        if not root.has_error:
            return False
        fatal = False
        stack: list[tuple[tree_sitter.Node, bool]] = [(root, False)]
        while stack:
            node, in_function = stack.pop()
            report = self.diagnostics.note if in_function else self.diagnostics.error
            if node.is_missing:
                fatal |= not in_function
                suffix = (
                    " (inside a function body, which kgen does not read)"
                    if in_function
                    else "; the file must be valid Go"
                )
                report(self.pos(node), f"syntax error: missing {node.type!r}{suffix}")
            elif node.is_error:
                fatal |= not in_function
                text = self.text(node).strip()
                snippet = text.splitlines()[0][:40] if text else ""
                suffix = (
                    " inside a function body, which kgen does not read" if in_function
                    else ": the file must be valid Go (look for an unclosed brace, parenthesis or string)"
                )  # fmt: skip
                report(self.pos(node), f"syntax error near {snippet!r}{suffix}")
            elif node.has_error:
                inside = in_function or node.type in _FUNCTION_NODES
                stack.extend((child, inside) for child in reversed(node.children))
        return fatal

    # -- types -----------------------------------------------------------------

    def type_expr(self, node: tree_sitter.Node) -> TypeExpr:
        self._nesting += 1
        try:
            if self._nesting > MAX_TYPE_NESTING + 1:  # the innermost type is not a level
                raise TypeNestingError(self.pos(node))
            return self._type_expr(node)
        finally:
            self._nesting -= 1

    def _type_expr(self, node: tree_sitter.Node) -> TypeExpr:
        kind = node.type
        position, text = self.pos(node), self.text(node)
        if kind == "type_identifier":
            return TypeExpr("ident", position, text, name=text)
        if kind == "qualified_type":
            return TypeExpr(
                "qualified",
                position,
                text,
                name=self.text(node.child_by_field_name("name")),
                package=self.text(node.child_by_field_name("package")),
            )
        if kind == "pointer_type":
            inner = [c for c in node.named_children if c.type != "comment"][0]
            return TypeExpr("pointer", position, text, elem=self.type_expr(inner))
        if kind == "slice_type":
            return TypeExpr("slice", position, text, elem=self.type_expr(node.child_by_field_name("element")))
        if kind == "array_type":
            return TypeExpr("array", position, text, elem=self.type_expr(node.child_by_field_name("element")))
        if kind == "map_type":
            return TypeExpr(
                "map",
                position,
                text,
                key=self.type_expr(node.child_by_field_name("key")),
                elem=self.type_expr(node.child_by_field_name("value")),
            )
        if kind == "struct_type":
            body = [c for c in node.named_children if c.type == "field_declaration_list"]
            fields = self.fields(body[0]) if body else ()
            return TypeExpr("struct", position, text, fields=fields)
        if kind == "interface_type":
            members = [c for c in node.named_children if c.type != "comment"]
            return TypeExpr("interface", position, text, empty_interface=not members)
        if kind == "parenthesized_type":
            return self.type_expr(node.named_children[0])
        if kind == "function_type":
            return TypeExpr("func", position, text)
        if kind == "channel_type":
            return TypeExpr("chan", position, text)
        if kind == "generic_type":
            return TypeExpr("generic", position, text)
        return TypeExpr("unknown", position, text)

    def fields(self, body: tree_sitter.Node) -> tuple[FieldDecl, ...]:
        out: list[FieldDecl] = []
        for node in body.named_children:
            if node.type != "field_declaration":
                continue
            names = tuple(self.text(c) for i, c in enumerate(node.children) if node.field_name_for_child(i) == "name")
            type_node = node.child_by_field_name("type")
            tag_node = node.child_by_field_name("tag")
            tag = None
            if tag_node is not None:
                raw = self.text(tag_node)
                try:
                    tag = raw[1:-1] if tag_node.type == "raw_string_literal" else unquote_go(raw[1:-1])
                except GoStringError as err:
                    self.diagnostics.error(self.pos(tag_node), f"{err}: the file must be valid Go")
                    tag = None
            line = node.start_point.row + 1
            end_line = node.end_point.row + 1
            field_type = self.type_expr(type_node)
            if not names and any(c.type == "*" for c in node.children):  # embedded *T
                field_type = TypeExpr("pointer", field_type.position, "*" + field_type.text, elem=field_type)
            out.append(
                FieldDecl(
                    names=names,
                    type=field_type,
                    tag=tag,
                    tag_position=self.pos(tag_node) if tag_node is not None else None,
                    doc=self.doc_for(line),
                    trailing=self.trailing_by_line.get(end_line),
                    position=self.pos(node),
                )
            )
        return tuple(out)

    def type_decls(self, decl: tree_sitter.Node) -> list[TypeDecl]:
        out: list[TypeDecl] = []
        specs = [c for c in decl.named_children if c.type in ("type_spec", "type_alias")]
        grouped = any(c.type == "(" for c in decl.children)
        for spec in specs:
            name_node = spec.child_by_field_name("name")
            if spec.child_by_field_name("type_parameters") is not None:
                self.diagnostics.note(
                    self.pos(name_node),
                    f"generic type {self.text(name_node)} is skipped: API types cannot have type parameters",
                )
                continue
            line = spec.start_point.row + 1
            doc = self.doc_for(line)
            if not doc.lines and not grouped:
                doc = self.doc_for(decl.start_point.row + 1)
            out.append(
                TypeDecl(
                    name=self.text(name_node),
                    type=self._type_expr(spec.child_by_field_name("type")),  # the declared type itself is not a level,
                    alias=spec.type == "type_alias",
                    doc=doc,
                    prior=self.prior_for(line, doc),
                    position=self.pos(name_node),
                )
            )
        return out

    # -- constants -------------------------------------------------------------

    def const_decls(self, decl: tree_sitter.Node, known: dict[str, object]) -> list[ConstDecl]:
        out: list[ConstDecl] = []
        last_type: TypeExpr | None = None
        last_values: list[tree_sitter.Node] = []
        specs = [c for c in decl.named_children if c.type == "const_spec"]
        for iota, spec in enumerate(specs):
            names = [c for i, c in enumerate(spec.children) if spec.field_name_for_child(i) == "name"]
            type_node = spec.child_by_field_name("type")
            value_node = spec.child_by_field_name("value")
            if value_node is not None:
                last_values = [c for c in value_node.named_children if c.type != "comment"]
                last_type = self.type_expr(type_node) if type_node is not None else None
            for index, name_node in enumerate(names):
                node = last_values[index] if index < len(last_values) else None
                expr = self.const_expr(node, iota) if node is not None else constexpr.UNKNOWN
                value = constexpr.evaluate(expr, lambda e: known.get(e.name) if e.kind == "ident" else None)
                name = self.text(name_node)
                known[name] = value
                if name == "_":
                    continue
                line = spec.start_point.row + 1
                out.append(
                    ConstDecl(
                        name=name,
                        type_name=last_type if last_type is not None else self.conversion_type(node),
                        value=value,
                        doc=self.doc_for(line),
                        position=self.pos(name_node),
                        expr=expr,
                    )
                )
        return out

    def conversion_type(self, node: tree_sitter.Node | None) -> TypeExpr | None:
        """The type of an untyped-looking constant written as a conversion, `T("v")`."""
        while node is not None and node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node is None or node.type != "call_expression":
            return None
        function = node.child_by_field_name("function")
        if function is None or (function.type == "identifier" and self.text(function) in _BUILTIN_FUNCTIONS):
            return None
        if function.type == "identifier":
            return TypeExpr("ident", self.pos(function), self.text(function), name=self.text(function))
        if function.type == "selector_expression":
            operand, field_node = function.child_by_field_name("operand"), function.child_by_field_name("field")
            if operand is not None and operand.type == "identifier" and field_node is not None:
                return TypeExpr(
                    "qualified", self.pos(function), self.text(function),
                    name=self.text(field_node), package=self.text(operand),
                )  # fmt: skip
        return None

    def const_expr(self, node: tree_sitter.Node, iota: int) -> constexpr.ConstExpr:
        """A constant expression as written, with iota replaced by its value."""
        ConstExpr = constexpr.ConstExpr
        kind = node.type
        text = self.text(node)
        if kind in ("interpreted_string_literal", "rune_literal"):
            try:
                decoded = unquote_go(text[1:-1])  # a rune's escapes are a string's
            except GoStringError as err:
                self.diagnostics.error(self.pos(node), f"{err}: the file must be valid Go")
                return constexpr.UNKNOWN
            if kind == "interpreted_string_literal":
                return ConstExpr("value", value=decoded)
            return ConstExpr("value", value=ord(decoded)) if len(decoded) == 1 else constexpr.UNKNOWN
        if kind == "raw_string_literal":
            return ConstExpr("value", value=text[1:-1].replace("\r", ""))  # Go drops carriage returns
        if kind == "int_literal":
            return ConstExpr("value", value=go_int(text))
        if kind == "float_literal":
            return ConstExpr("value", value=go_float(text))
        if kind == "iota":
            return ConstExpr("value", value=iota)
        if kind in ("true", "false"):
            return ConstExpr("value", value=kind == "true")
        if kind == "identifier":
            return ConstExpr("ident", name=text)
        if kind == "selector_expression":
            operand, field_node = node.child_by_field_name("operand"), node.child_by_field_name("field")
            if operand is not None and operand.type == "identifier" and field_node is not None:
                return ConstExpr("qualified", name=self.text(field_node), package=self.text(operand))
            return constexpr.UNKNOWN
        if kind == "parenthesized_expression":
            return self.const_expr(node.named_children[0], iota)
        if kind == "unary_expression":
            operand = node.child_by_field_name("operand")
            operator = node.child_by_field_name("operator")
            return ConstExpr("unary", op=self.text(operator), operands=(self.const_expr(operand, iota),))
        if kind == "binary_expression":
            return ConstExpr(
                "binary",
                op=self.text(node.child_by_field_name("operator")),
                operands=(
                    self.const_expr(node.child_by_field_name("left"), iota),
                    self.const_expr(node.child_by_field_name("right"), iota),
                ),
            )
        if kind == "call_expression":
            args = node.child_by_field_name("arguments")
            arguments = [c for c in args.named_children if c.type != "comment"] if args is not None else []
            function = node.child_by_field_name("function")
            if len(arguments) != 1 or function is None:
                return constexpr.UNKNOWN
            operand = self.const_expr(arguments[0], iota)
            if function.type == "identifier" and self.text(function) == "len":
                return ConstExpr("unary", op="len", operands=(operand,))
            if function.type in ("identifier", "type_identifier") and self.text(function) not in _BUILTIN_FUNCTIONS:
                return ConstExpr("convert", name=self.text(function), operands=(operand,))
            if function.type == "selector_expression":
                field_node = function.child_by_field_name("field")
                operand_node = function.child_by_field_name("operand")
                return ConstExpr(
                    "convert", name=self.text(field_node), package=self.text(operand_node), operands=(operand,)
                )
        return constexpr.UNKNOWN


_FUNCTION_NODES = frozenset({"function_declaration", "method_declaration", "var_declaration", "func_literal"})
"""Where kgen reads nothing: function bodies, and variables (their values are code)."""
_BUILTIN_FUNCTIONS = frozenset({"len", "cap", "real", "imag", "complex", "min", "max", "new", "make", "append"})


def go_float(text: str) -> float:
    """A Go floating-point literal, decimal or hexadecimal (`0x1p-2`), with `_` separators."""
    digits = text.replace("_", "").lower()
    return float.fromhex(digits) if digits.startswith("0x") else float(digits)


def go_int(text: str) -> int:
    """A Go integer literal: decimal, `0x`, `0o`, `0b`, legacy octal `0644`, `_` separators."""
    digits = text.replace("_", "").lower()
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return int(digits[1:], 8)
    return int(digits, 0)


_IDENTIFIER_NODES = frozenset({"identifier", "type_identifier", "field_identifier", "package_identifier"})


def _go_identifier_char(ch: str, first: bool) -> bool:
    category = unicodedata.category(ch)
    return ch == "_" or category.startswith("L") or (not first and category == "Nd")


def _go_identifier(name: str) -> bool:
    return bool(name) and all(_go_identifier_char(ch, i == 0) for i, ch in enumerate(name))


def parse_go_file(
    path: str,
    source: bytes,
    diagnostics: Diagnostics,
    tags: frozenset[str] = buildtags.DEFAULT_TAGS,
) -> GoFile | None:
    """Parse one Go file. Returns None when the file is excluded or unreadable
    (build constraints false, or syntax errors, which are reported)."""
    tree = _parser().parse(source)
    root = tree.root_node
    reader = _FileReader(path, source, diagnostics)
    package_node = next((c for c in root.named_children if c.type == "package_clause"), None)
    header = source[: package_node.start_byte] if package_node is not None else source
    header_text = header.decode("utf-8", "replace")

    constraint = _build_constraint(header_text)
    if constraint is not None:
        try:
            if not buildtags.evaluate(constraint, tags):
                return None
        except buildtags.ConstraintError as err:
            line = header_text[: header_text.index("//go:build")].count("\n") + 1
            diagnostics.error(Position(path, line, 1), str(err))
            return None
    else:
        plus_build = re.findall(r"^// \+build (.*)$", header_text, re.MULTILINE)
        if plus_build and not buildtags.evaluate_plus_build(plus_build, tags):
            return None

    if reader.report_syntax_errors(root) or package_node is None:
        if package_node is None and not root.has_error:
            diagnostics.error(Position(path, 1, 1), "missing package clause: a Go file starts with `package <name>`")
        return None
    if not source.isascii() and reader.report_invalid_identifiers(root):
        return None

    blocks = reader.index_comments(root)
    package_line = package_node.start_point.row + 1
    package_doc = tuple(b for b in blocks if b.last_line < package_line)
    imports: list[ImportDecl] = []
    types: list[TypeDecl] = []
    consts: list[ConstDecl] = []
    functions: list[str] = []
    known_consts: dict[str, object] = {}
    try:
        for node in root.named_children:
            if node.type == "import_declaration":
                for spec in _descendants(node, "import_spec"):
                    path_node = spec.child_by_field_name("path")
                    name_node = spec.child_by_field_name("name")
                    imports.append(
                        ImportDecl(
                            alias=reader.text(name_node) if name_node is not None else "",
                            path=reader.text(path_node)[1:-1],
                            position=reader.pos(spec),
                        )
                    )
            elif node.type == "type_declaration":
                types.extend(reader.type_decls(node))
            elif node.type == "const_declaration":
                consts.extend(reader.const_decls(node, known_consts))
            elif node.type == "function_declaration" and (name := node.child_by_field_name("name")) is not None:
                functions.append(reader.text(name))
    except TypeNestingError as err:
        diagnostics.error(
            err.position,
            f"this type nests more than {MAX_TYPE_NESTING} levels deep (slices, maps, pointers and struct literals "
            "inside each other), more than kgen supports: its Python annotation would nest as deep; "
            "use a type of arbitrary JSON (runtime.RawExtension) for the inner levels",
        )
        return None

    package_name = reader.text(next(c for c in package_node.named_children if c.type == "package_identifier"))
    return GoFile(
        path=path,
        package=package_name,
        package_position=reader.pos(package_node),
        package_doc=package_doc,
        imports=tuple(imports),
        types=tuple(types),
        consts=tuple(consts),
        functions=tuple(functions),
        build_constraint=constraint,
        generated=bool(_GENERATED.search(header_text)),
        comment_blocks=blocks,
        trailing_comments=tuple(reader.trailing_by_line[line] for line in sorted(reader.trailing_by_line)),
    )


def _build_constraint(header: str) -> str | None:
    for line in header.splitlines():
        if line.startswith("//go:build "):
            return line[len("//go:build ") :].strip()
    return None


def _descendants(node: tree_sitter.Node, kind: str):
    stack = [node]
    while stack:
        current = stack.pop(0)
        if current.type == kind:
            yield current
        else:
            stack.extend(current.children)
