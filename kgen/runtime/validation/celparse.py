"""A parser of the Common Expression Language, for the cost estimate of rules.

The `cel` engine evaluates rules but shows no syntax tree, and the API server's limits
(`celcost`) are a function of that tree as cel-go builds it. This module parses a rule
into the same shape: operators as calls named as cel-go names them (`_&&_`, `_[_]`,
`@in`, `_?._`), `has()` as a presence test, and the macros (`all`, `exists`,
`exists_one`, `map`, `filter` and the two-variable ones) expanded into comprehensions
exactly as cel-go's parser expands them, so that a cost computed over it is cel-go's.
Namespaced functions (`format.dns1123Label()`, `sets.contains(...)`) become global calls,
as cel-go's type check resolves them.

It parses; it does not check types or evaluate (the `cel` engine does).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

ACCUMULATOR = "@result"
"""The name cel-go gives the accumulator of an expanded macro."""

NAMESPACED = frozenset(
    "format.named format.dns1123Label format.dns1123Subdomain format.dns1035Label format.qualifiedName "
    "format.dns1123LabelPrefix format.dns1123SubdomainPrefix format.dns1035LabelPrefix format.labelValue "
    "format.uri format.uuid format.byte format.date format.datetime sets.contains sets.equivalent "
    "sets.intersects strings.quote lists.range optional.of optional.none optional.ofNonZeroValue "
    "ip.isCanonical math.greatest math.least".split()
)
"""Functions whose name has a namespace: `format.dns1123Label()` is one call, not a select."""


class CelSyntaxError(ValueError):
    """A rule that does not parse."""


# -- the syntax tree ------------------------------------------------------------------------------


@dataclass(eq=False)
class Expr:
    """A node; `id` is unique in its tree (what cel-go's checker keys types and sizes by)."""

    id: int = field(default=0, init=False)


@dataclass(eq=False)
class Literal(Expr):
    value: Any
    kind: str
    """`int`, `uint`, `double`, `string`, `bytes`, `bool` or `null`."""


@dataclass(eq=False)
class Ident(Expr):
    name: str
    position: int = -1
    """Where the name starts in the text (-1 for names the macros make up)."""


@dataclass(eq=False)
class Select(Expr):
    operand: Expr
    field: str
    test_only: bool = False
    """A presence test: `has(operand.field)`."""
    position: int = -1
    """Where its `.` is in the text (cel-go's location of a select)."""


@dataclass(eq=False)
class Call(Expr):
    function: str
    args: list[Expr]
    target: Expr | None = None
    """The receiver of a member call (`target.function(args)`)."""


@dataclass(eq=False)
class CreateList(Expr):
    elements: list[Expr]


@dataclass(eq=False)
class CreateMap(Expr):
    entries: list[tuple[Expr, Expr]]


@dataclass(eq=False)
class CreateStruct(Expr):
    name: str
    fields: list[tuple[str, Expr]]


@dataclass(eq=False)
class Comprehension(Expr):
    iter_range: Expr
    iter_var: str
    iter_var2: str
    """The second variable of a two-variable comprehension (`all(k, v, ...)`), else empty."""
    accu_var: str
    accu_init: Expr
    loop_condition: Expr
    loop_step: Expr
    result: Expr


# -- tokens ------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\n\r\f]+|//[^\n]*)
  | (?P<number>0[xX][0-9a-fA-F]+[uU]?|(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?)|[0-9]+[uU]?)
  | (?P<string>(?:[rR][bB]?|[bB][rR]?)?(?:\"\"\"|'''|"|'))
  | (?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
  | (?P<op>==|!=|<=|>=|&&|\|\||[-+*/%!<>?:.,()\[\]{}])
    """,
    re.VERBOSE | re.ASCII,
)

_RESERVED = frozenset(
    "as break const continue else for function if import let loop package namespace return var void while".split()
)
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?"}  # fmt: skip


@dataclass
class _Token:
    kind: str
    text: str
    value: Any = None
    position: int = 0


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(text):
        match = _TOKEN.match(text, i)
        if match is None:
            raise CelSyntaxError(f"unexpected character {text[i]!r} at {i}")
        kind = match.lastgroup
        assert kind is not None
        if kind == "space":
            i = match.end()
            continue
        if kind == "string":
            token, i = _string(text, match)
            out.append(token)
            continue
        word = match.group()
        if kind == "number":
            out.append(_number(word, i))
        elif kind == "ident" and word in ("true", "false"):
            out.append(_Token("literal", word, (word == "true", "bool"), i))
        elif kind == "ident" and word == "null":
            out.append(_Token("literal", word, (None, "null"), i))
        elif kind == "ident" and word == "in":
            out.append(_Token("op", word, None, i))
        else:
            out.append(_Token(kind, word, None, i))
        i = match.end()
    out.append(_Token("end", "", None, len(text)))
    return out


def _number(word: str, position: int) -> _Token:
    unsigned = word[-1] in "uU"
    digits = word[:-1] if unsigned else word
    if digits.lower().startswith("0x"):
        value: Any = int(digits, 16)
    elif any(c in digits for c in ".eE"):
        return _Token("literal", word, (float(digits), "double"), position)
    else:
        value = int(digits)
    return _Token("literal", word, (value, "uint" if unsigned else "int"), position)


def _string(text: str, match: re.Match[str]) -> tuple[_Token, int]:
    opening = match.group()
    prefix = opening.rstrip("'\"").lower()
    quote = opening[len(prefix) :]
    raw, is_bytes = "r" in prefix, "b" in prefix
    i = match.end()
    chars: list[str] = []
    while True:
        if i >= len(text):
            raise CelSyntaxError(f"unterminated string at {match.start()}")
        if text.startswith(quote, i):
            i += len(quote)
            break
        ch = text[i]
        if ch == "\n" and len(quote) == 1:
            raise CelSyntaxError(f"newline in string at {i}")
        if ch == "\\" and not raw:
            decoded, i = _escape(text, i + 1, is_bytes)
            chars.append(decoded)
            continue
        chars.append(ch)
        i += 1
    value = "".join(chars)
    if is_bytes:
        encoded = value.encode("utf-8", "surrogateescape")
        return _Token("literal", text[match.start() : i], (encoded, "bytes"), match.start()), i
    return _Token("literal", text[match.start() : i], (value, "string"), match.start()), i


def _escape(text: str, i: int, is_bytes: bool) -> tuple[str, int]:
    ch = text[i : i + 1]
    if ch in _ESCAPES:
        return _ESCAPES[ch], i + 1
    for letter, width in (("x", 2), ("X", 2), ("u", 4), ("U", 8)):
        if ch == letter:
            digits = text[i + 1 : i + 1 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise CelSyntaxError(f"bad escape \\{letter} at {i}")
            code = int(digits, 16)
            # A \x escape in bytes is one byte; kept as a surrogate escape so it survives encoding.
            return (chr(0xDC00 + code) if is_bytes and width == 2 and code > 0x7F else chr(code)), i + 1 + width
    digits = text[i : i + 3]
    if len(digits) == 3 and digits[0] in "0123" and all(c in "01234567" for c in digits):
        code = int(digits, 8)
        return (chr(0xDC00 + code) if is_bytes and code > 0x7F else chr(code)), i + 3
    raise CelSyntaxError(f"bad escape sequence at {i}")


# -- the parser ------------------------------------------------------------------------------------

_RELATIONS = {"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_", "in": "@in"}
_ADDITIONS = {"+": "_+_", "-": "_-_"}
_MULTIPLICATIONS = {"*": "_*_", "/": "_/_", "%": "_%_"}
MAX_DEPTH = 250
"""Nesting beyond this is an error, as cel-go's parser limits recursion."""


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokens(text)
        self.at = 0
        self.next_id = 0
        self.depth = 0

    # tokens

    def peek(self, offset: int = 0) -> _Token:
        return self.tokens[min(self.at + offset, len(self.tokens) - 1)]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def accept(self, text: str) -> bool:
        token = self.peek()
        if token.kind == "op" and token.text == text:
            self.at += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            token = self.peek()
            raise CelSyntaxError(f"expected {text!r} at {token.position}, found {token.text or 'the end'!r}")

    def node(self, expr: Expr) -> Expr:
        self.next_id += 1
        expr.id = self.next_id
        return expr

    # grammar (cel-go's CEL.g4)

    def parse(self) -> Expr:
        expr = self.expr()
        if self.peek().kind != "end":
            token = self.peek()
            raise CelSyntaxError(f"unexpected {token.text!r} at {token.position}")
        return expr

    def expr(self) -> Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CelSyntaxError("expression nests too deeply")
        condition = self.binary(0)
        if self.accept("?"):
            truthy = self.binary(0)
            self.expect(":")
            falsy = self.expr()
            condition = self.node(Call("_?_:_", [condition, truthy, falsy]))
        self.depth -= 1
        return condition

    _LEVELS: tuple[dict[str, str], ...] = ({"||": "_||_"}, {"&&": "_&&_"}, _RELATIONS, _ADDITIONS, _MULTIPLICATIONS)

    def binary(self, level: int) -> Expr:
        if level == len(self._LEVELS):
            return self.unary()
        operators = self._LEVELS[level]
        left = self.binary(level + 1)
        while self.peek().kind == "op" and self.peek().text in operators:
            function = operators[self.take().text]
            right = self.binary(level + 1)
            left = self.node(Call(function, [left, right]))
        return left

    def unary(self) -> Expr:
        token = self.peek()
        if token.kind == "op" and token.text in ("!", "-"):
            count = 0
            while self.peek().kind == "op" and self.peek().text == token.text:
                self.take()
                count += 1
            if token.text == "-" and self.peek().kind == "literal" and self.peek().value[1] in ("int", "double"):
                # `-1` is a literal in CEL's grammar, not a negation.
                value, kind = self.take().value
                count -= 1
                operand: Expr = self.member(self.node(Literal(-value, kind)))
            else:
                operand = self.member(self.primary())
            if count % 2:  # as cel-go: an even number of the same operator cancels out
                operand = self.node(Call("!_" if token.text == "!" else "-_", [operand]))
            return operand
        return self.member(self.primary())

    def member(self, operand: Expr) -> Expr:
        while True:
            dot = self.peek().position
            if self.accept("."):
                optional = self.accept("?")
                name = self.take()
                if name.kind != "ident":
                    raise CelSyntaxError(f"expected a field name at {name.position}")
                if not optional and self.accept("("):
                    operand = self.call(name.text, self.arguments(")"), operand)
                elif optional:
                    operand = self.node(Call("_?._", [operand, self.node(Literal(name.text, "string"))]))
                else:
                    operand = self.node(Select(operand, name.text, position=dot))
            elif self.accept("["):
                optional = self.accept("?")
                index = self.expr()
                self.expect("]")
                operand = self.node(Call("_[?_]" if optional else "_[_]", [operand, index]))
            else:
                return operand

    def primary(self) -> Expr:
        token = self.take()
        if token.kind == "literal":
            value, kind = token.value
            return self.node(Literal(value, kind))
        if token.kind == "op" and token.text == "(":
            inner = self.expr()
            self.expect(")")
            return inner
        if token.kind == "op" and token.text == "[":
            return self.node(CreateList(self.arguments("]", optional=True)))
        if token.kind == "op" and token.text == "{":
            return self.create_map()
        leading_dot = token.kind == "op" and token.text == "."
        if leading_dot:
            token = self.take()
        if token.kind != "ident":
            raise CelSyntaxError(f"unexpected {token.text or 'end of expression'!r} at {token.position}")
        if token.text in _RESERVED:  # only as a name of its own: `request.namespace` is a field
            raise CelSyntaxError(f"reserved identifier {token.text!r} at {token.position}")
        if self.accept("("):
            return self.call(token.text, self.arguments(")"), None)
        if self.peek().kind == "op" and self.peek().text == "{" and _looks_like_struct(self.tokens, self.at):
            return self.create_struct(token.text)
        return self.node(Ident(token.text, token.position))

    def arguments(self, closing: str, optional: bool = False) -> list[Expr]:
        args: list[Expr] = []
        if self.accept(closing):
            return args
        while True:
            if optional:
                self.accept("?")
            args.append(self.expr())
            if self.accept(closing):
                return args
            self.expect(",")
            if self.accept(closing):  # a trailing comma
                return args

    def create_map(self) -> Expr:
        entries: list[tuple[Expr, Expr]] = []
        while not self.accept("}"):
            self.accept("?")
            key = self.expr()
            self.expect(":")
            entries.append((key, self.expr()))
            if not self.accept(","):
                self.expect("}")
                break
        return self.node(CreateMap(entries))

    def create_struct(self, name: str) -> Expr:
        self.expect("{")
        fields: list[tuple[str, Expr]] = []
        while not self.accept("}"):
            self.accept("?")
            field_name = self.take()
            self.expect(":")
            fields.append((field_name.text, self.expr()))
            if not self.accept(","):
                self.expect("}")
                break
        return self.node(CreateStruct(name, fields))

    # calls and macros

    def call(self, function: str, args: list[Expr], target: Expr | None) -> Expr:
        if target is None and function == "has" and len(args) == 1:
            argument = args[0]
            if not isinstance(argument, Select):
                raise CelSyntaxError("invalid argument to has() macro")
            return self.node(Select(argument.operand, argument.field, test_only=True, position=argument.position))
        if target is not None:
            qualified = _qualified(target)
            if qualified is not None and f"{qualified}.{function}" in NAMESPACED:
                return self.node(Call(f"{qualified}.{function}", args))
            macro = _MACROS.get((function, len(args)))
            if macro is not None:
                return macro(self, target, args)
        return self.node(Call(function, args, target))

    def comprehension(
        self, target: Expr, var: str, var2: str, init: Expr, condition: Expr, step: Expr, result: Expr
    ) -> Expr:
        return self.node(Comprehension(target, var, var2, ACCUMULATOR, init, condition, step, result))

    def accu(self) -> Expr:
        return self.node(Ident(ACCUMULATOR))

    def literal(self, value: Any, kind: str) -> Expr:
        return self.node(Literal(value, kind))

    def call_of(self, function: str, *args: Expr) -> Expr:
        return self.node(Call(function, list(args)))


def _looks_like_struct(tokens: list[_Token], at: int) -> bool:
    """`Name{field: value}` (a message literal) rather than an identifier followed by a map."""
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    return after is not None and (after.kind == "ident" or (after.kind == "op" and after.text in ("}", "?")))


def _qualified(expr: Expr) -> str | None:
    if isinstance(expr, Ident):
        return expr.name
    if isinstance(expr, Select) and not expr.test_only:
        inner = _qualified(expr.operand)
        return None if inner is None else f"{inner}.{expr.field}"
    return None


def _variable(expr: Expr) -> str:
    if not isinstance(expr, Ident) or expr.name in (ACCUMULATOR, "__result__"):
        raise CelSyntaxError("argument must be a simple name")
    return expr.name


# Each macro as cel-go's parser (and ext.TwoVarComprehensions) expands it.


def _all(p: _Parser, target: Expr, args: list[Expr]) -> Expr:
    var, var2, predicate = _vars(args)
    return p.comprehension(target, var, var2, p.literal(True, "bool"), p.call_of("@not_strictly_false", p.accu()),
                           p.call_of("_&&_", p.accu(), predicate), p.accu())  # fmt: skip


def _exists(p: _Parser, target: Expr, args: list[Expr]) -> Expr:
    var, var2, predicate = _vars(args)
    return p.comprehension(target, var, var2, p.literal(False, "bool"),
                           p.call_of("@not_strictly_false", p.call_of("!_", p.accu())),
                           p.call_of("_||_", p.accu(), predicate), p.accu())  # fmt: skip


def _exists_one(p: _Parser, target: Expr, args: list[Expr]) -> Expr:
    var, var2, predicate = _vars(args)
    step = p.call_of("_?_:_", predicate, p.call_of("_+_", p.accu(), p.literal(1, "int")), p.accu())
    return p.comprehension(target, var, var2, p.literal(0, "int"), p.literal(True, "bool"), step,
                           p.call_of("_==_", p.accu(), p.literal(1, "int")))  # fmt: skip


def _map(p: _Parser, target: Expr, args: list[Expr]) -> Expr:
    var = _variable(args[0])
    transform = args[-1]
    step = p.call_of("_+_", p.accu(), p.node(CreateList([transform])))
    if len(args) == 3:
        step = p.call_of("_?_:_", args[1], step, p.accu())
    return p.comprehension(target, var, "", p.node(CreateList([])), p.literal(True, "bool"), step, p.accu())


def _filter(p: _Parser, target: Expr, args: list[Expr]) -> Expr:
    var = _variable(args[0])
    step = p.call_of("_+_", p.accu(), p.node(CreateList([p.node(Ident(var))])))
    step = p.call_of("_?_:_", args[1], step, p.accu())
    return p.comprehension(target, var, "", p.node(CreateList([])), p.literal(True, "bool"), step, p.accu())


def _transform_list(p: _Parser, target: Expr, args: list[Expr]) -> Expr:
    var, var2 = _variable(args[0]), _variable(args[1])
    step = p.call_of("_+_", p.accu(), p.node(CreateList([args[-1]])))
    if len(args) == 4:
        step = p.call_of("_?_:_", args[2], step, p.accu())
    return p.comprehension(target, var, var2, p.node(CreateList([])), p.literal(True, "bool"), step, p.accu())


def _transform_map(p: _Parser, target: Expr, args: list[Expr], entry: bool = False) -> Expr:
    var, var2 = _variable(args[0]), _variable(args[1])
    inserted = [args[-1]] if entry else [p.node(Ident(var)), args[-1]]
    step = p.call_of("cel.@mapInsert", p.accu(), *inserted)
    if len(args) == 4:
        step = p.call_of("_?_:_", args[2], step, p.accu())
    return p.comprehension(target, var, var2, p.node(CreateMap([])), p.literal(True, "bool"), step, p.accu())


def _vars(args: list[Expr]) -> tuple[str, str, Expr]:
    if len(args) == 3:
        return _variable(args[0]), _variable(args[1]), args[2]
    return _variable(args[0]), "", args[1]


_MACROS: dict[tuple[str, int], Callable[[_Parser, Expr, list[Expr]], Expr]] = {
    ("all", 2): _all, ("all", 3): _all,
    ("exists", 2): _exists, ("exists", 3): _exists,
    ("exists_one", 2): _exists_one, ("exists_one", 3): _exists_one, ("existsOne", 3): _exists_one,
    ("map", 2): _map, ("map", 3): _map,
    ("filter", 2): _filter,
    ("transformList", 3): _transform_list, ("transformList", 4): _transform_list,
    ("transformMap", 3): _transform_map, ("transformMap", 4): _transform_map,
    ("transformMapEntry", 3): functools.partial(_transform_map, entry=True),
    ("transformMapEntry", 4): functools.partial(_transform_map, entry=True),
}  # fmt: skip


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Expr:
    """The syntax tree of a CEL expression, as cel-go's parser builds it (macros expanded).

    Raises `CelSyntaxError` when it does not parse. Trees are cached: do not change them."""
    return _Parser(text).parse()


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of a tree, parents first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Select):
            stack.append(node.operand)
        elif isinstance(node, Call):
            stack.extend(reversed(node.args))
            if node.target is not None:
                stack.append(node.target)
        elif isinstance(node, CreateList):
            stack.extend(reversed(node.elements))
        elif isinstance(node, CreateMap):
            for key, value in reversed(node.entries):
                stack.extend((value, key))
        elif isinstance(node, CreateStruct):
            stack.extend(value for _, value in reversed(node.fields))
        elif isinstance(node, Comprehension):
            stack.extend((node.result, node.loop_step, node.loop_condition, node.accu_init, node.iter_range))


def scan(text: str) -> list[tuple[str, str, int]]:
    """The tokens of an expression as (kind, text, position): kind is `ident`, `literal` or
    `op`. Raises `CelSyntaxError`."""
    return [(token.kind, token.text, token.position) for token in _tokens(text) if token.kind != "end"]


def rename_functions(text: str, names: dict[str, str]) -> str:
    """The expression with calls of some functions renamed (`x.matches(r)` -> `x.other(r)`),
    everything else, strings and comments included, as written. Raises `CelSyntaxError`."""
    tokens = _tokens(text)
    out: list[str] = []
    last = 0
    for token, following in zip(tokens, tokens[1:]):
        if token.kind == "ident" and token.text in names and following.kind == "op" and following.text == "(":
            out.append(text[last : token.position])
            out.append(names[token.text])
            last = token.position + len(token.text)
    out.append(text[last:])
    return "".join(out)
