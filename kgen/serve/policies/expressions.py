"""The CEL of admission policies: what an expression may name, how it compiles, how it runs.

An expression of a ValidatingAdmissionPolicy sees `object` and `oldObject` (null on create and
delete respectively), `request` (the admission request's attributes), `namespaceObject`,
`params` (when the policy has a paramKind), `variables` (the policy's named expressions, each
evaluated once and only when read) and `authorizer` (not in message expressions), as
k8s.io/apiserver's admission/plugin/cel declares them (compile.go, activation.go,
composition.go).

Compiling checks what the API server's compiler checks that the `cel` engine does not: names
that are not declared (`undeclared reference to 'self' (in container '')`), variables read
before or without their declaration (`undefined field 'x'`), and a result of the wrong type
where it is evident (`must evaluate to bool but got string`); messages are cel-go's, with its
`ERROR: <input>:line:column:` and the caret under the place.

Running follows the cost rules of activation.go: each expression may cost `PER_CALL_LIMIT`
(more is an evaluation error: `operation cancelled: actual cost limit exceeded`), all the
expressions of one evaluation share a budget (spent, the evaluation stops with `validation
failed due to running out of cost budget, no further validation rules will be run`), and the
cost of the variables an expression read is charged to it. As for CRD rules, the cost is
kgen's estimate with the sizes of the values at hand (`celcost.ActivationCost`), since the
engine counts none.

The authorizer grants everything: `kgen serve` has one user, who may do anything, so every
check's decision is allowed, with no reason and no error.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgen.runtime.validation import celcost, cellib, celparse
from kgen.runtime.validation.celcost import PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET
from kgen.runtime.validation.celtypes import DYN, expression_types, size_class

OBJECT, OLD_OBJECT, PARAMS, REQUEST = "object", "oldObject", "params", "request"
NAMESPACE, AUTHORIZER, VARIABLES = "namespaceObject", "authorizer", "variables"
ROOTS = (OBJECT, OLD_OBJECT, PARAMS, REQUEST, NAMESPACE)
"""The variables whose values an expression's cost is estimated from."""

MATCH_CONDITIONS_BUDGET = 2_500_000
"""RuntimeCELCostBudgetMatchConditions: what a policy's match conditions may cost together."""
BUDGET = RUNTIME_CEL_COST_BUDGET
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"

_TYPE_NAMES = frozenset("bool bytes double int uint string list map null_type type dyn google".split())
"""Names CEL declares itself (types, as in `type(x) == int`)."""
_VARIABLE_FUNCTION = "__kgen_variable"
_HAS_FUNCTION = "__kgen_has"
_STRING_FUNCTION = "__kgen_string"
_RENAMED = {"matches": cellib.MATCHES, "string": _STRING_FUNCTION}
"""Calls the engine's own functions would answer otherwise than cel-go: `matches` (RE2) and
`string()` (cel-go writes doubles as Go's %g, durations in seconds, times in RFC 3339)."""
_AUTHZ = "authz"


class _CelLogFilter(logging.Filter):
    """The engine logs a warning for every Python function that raises; kgen's own functions
    raise to report an error the expression then has, which is no news to the server's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "'__kgen_" not in record.getMessage()


logging.getLogger("cel").addFilter(_CelLogFilter())


def _engine() -> Any:
    import cel

    return cel


@dataclass(frozen=True)
class Declarations:
    """Which optional variables an expression may name (OptionalVariableDeclarations)."""

    params: bool = False
    authorizer: bool = True
    composition: bool = True
    """Whether `variables` is declared (the policy has variables; never in match conditions)."""
    variables: tuple[str, ...] = ()
    """The names of the policy's variables this expression may read."""

    def names(self) -> frozenset[str]:
        """Every name the expression may start from."""
        names = {OBJECT, OLD_OBJECT, REQUEST, NAMESPACE}
        if self.composition:
            names.add(VARIABLES)
        if self.params:
            names.add(PARAMS)
        if self.authorizer:
            names.add(AUTHORIZER)
        return frozenset(names)


# -- compiling ------------------------------------------------------------------------------


def _location(text: str, position: int, message: str) -> str:
    """cel-go's display of an error: `ERROR: <input>:line:column: message`, the line, a caret."""
    line = text.count("\n", 0, position) + 1
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    snippet = text[start : end if end >= 0 else len(text)].replace("\t", " ")
    column = position - start
    return f"ERROR: <input>:{line}:{column + 1}: {message}\n | {snippet}\n | {'.' * column}^"


def _engine_error(error: Exception) -> str:
    """The engine's parse error in cel-go's layout (`ERROR: ...` and ` | ` snippet lines)."""
    text = str(error).strip()
    at = text.find("ERROR:")
    if at >= 0:
        text = text[at:]
    return text.replace("\n| ", "\n | ")


def _undeclared(tree: celparse.Expr, text: str, declarations: Declarations) -> list[tuple[int, str]]:
    """(position, error) for every name the expression reads that nothing declares, and every
    `variables.<name>` it may not read."""
    names = declarations.names()
    found: list[tuple[int, str]] = []

    def visit(node: celparse.Expr, bound: frozenset[str]) -> None:
        if isinstance(node, celparse.Ident):
            if (
                node.position >= 0
                and node.name not in bound
                and node.name not in names
                and node.name not in _TYPE_NAMES
            ):
                found.append((node.position, f"undeclared reference to '{node.name}' (in container '')"))
            return
        if isinstance(node, celparse.Select):
            operand = node.operand
            if (
                isinstance(operand, celparse.Ident)
                and operand.name == VARIABLES
                and VARIABLES in names
                and VARIABLES not in bound
                and node.field not in declarations.variables
            ):
                found.append((node.position, f"undefined field '{node.field}'"))
            visit(operand, bound)
            return
        if isinstance(node, celparse.Comprehension):
            visit(node.iter_range, bound)
            visit(node.accu_init, bound)
            inner = bound | {node.iter_var, node.accu_var} | ({node.iter_var2} if node.iter_var2 else set())
            visit(node.loop_condition, inner)
            visit(node.loop_step, inner)
            visit(node.result, bound | {node.accu_var})
            return
        children: list[celparse.Expr] = []
        if isinstance(node, celparse.Call):
            children = ([node.target] if node.target is not None else []) + list(node.args)
        elif isinstance(node, celparse.CreateList):
            children = list(node.elements)
        elif isinstance(node, celparse.CreateMap):
            children = [part for entry in node.entries for part in entry]
        elif isinstance(node, celparse.CreateStruct):
            children = [value for _, value in node.fields]
        for child in children:
            visit(child, bound)

    visit(tree, frozenset({celparse.ACCUMULATOR, "__result__"}))
    found.sort()
    return found


_CEL_TYPE_NAMES = {"bool": "bool", "int": "int", "uint": "uint", "double": "double", "string": "string",
                   "bytes": "bytes", "null": "null_type", "timestamp": "google.protobuf.Timestamp",
                   "duration": "google.protobuf.Duration"}  # fmt: skip


def _result_type(tree: celparse.Expr) -> str | None:
    """The CEL type name of an expression's result where it is evident (scalars), else None."""
    kind = expression_types(tree, dict.fromkeys(ROOTS + (VARIABLES, AUTHORIZER), DYN)).get(tree.id)
    if kind is None:
        return None
    return _CEL_TYPE_NAMES.get(kind.kind)


def compile_problem(text: str, declarations: Declarations, returns: tuple[str, ...] | None) -> str | None:
    """Why an expression does not compile, worded as the API server words it (the detail of
    its field error), or None. `returns`: the CEL types its result may have (None: any)."""
    engine = _engine()
    try:
        engine.compile(text)
    except (ValueError, RuntimeError) as error:
        return "compilation failed: " + _engine_error(error)
    try:
        tree = celparse.parse(text)
    except celparse.CelSyntaxError:
        return None  # the engine reads it; kgen's parser (names, types) does not
    problems = _undeclared(tree, text, declarations)
    if problems:
        return "compilation failed: " + "\n".join(_location(text, position, message) for position, message in problems)
    if returns is not None:
        result = _result_type(tree)
        if result is not None and result not in returns:
            if len(returns) == 1:
                return f"must evaluate to {returns[0]} but got {result}"
            return f"must evaluate to one of [{' '.join(returns)}] but got {result}"
    return None


# -- what the engine runs ------------------------------------------------------------------


def runnable(text: str) -> str:
    """The expression as kgen hands it to the engine: `matches` on RE2 (as for CRD rules) and
    `string()` as cel-go converts, `variables.x` a call that evaluates the variable when (and
    only when) it is read, and `has(x.f)` a presence test that is false on null, as cel-go's."""
    try:
        tokens = celparse.scan(text)
    except celparse.CelSyntaxError:
        return text  # the engine reports what is wrong with it
    return _rewrite(text, tokens, 0, len(tokens), 0, len(text))


def _rewrite(text: str, tokens: list[tuple[str, str, int]], start: int, stop: int, begin: int, end: int) -> str:
    """`text[begin:end]` (tokens `start` to `stop`) with the rewrites of `runnable`."""
    out: list[str] = []
    last = begin
    i = start
    while i < stop:
        kind, word, position = tokens[i]
        after_dot = i > 0 and tokens[i - 1][:2] == ("op", ".")
        following = tokens[i + 1][:2] if i + 1 < stop else ("end", "")
        if kind == "ident" and not after_dot and word == "has" and following == ("op", "("):
            close = _closing(tokens, i + 1, stop)
            if (
                close is not None
                and close - 3 > i + 1
                and tokens[close - 2][:2] == ("op", ".")
                and tokens[close - 1][0] == "ident"
            ):
                dot = tokens[close - 2][2]
                operand = _rewrite(text, tokens, i + 2, close - 2, tokens[i + 2][2], dot)
                out.append(text[last:position])
                out.append(f'{_HAS_FUNCTION}({operand}, "{tokens[close - 1][1]}")')
                last = tokens[close][2] + 1
                i = close + 1
                continue
        if (
            kind == "ident"
            and not after_dot
            and word == VARIABLES
            and following == ("op", ".")
            and i + 2 < stop
            and tokens[i + 2][0] == "ident"
            and (i + 3 >= stop or tokens[i + 3][:2] != ("op", "("))
        ):
            _, name, name_position = tokens[i + 2]
            out.append(text[last:position])
            out.append(f'{_VARIABLE_FUNCTION}("{name}")')
            last = name_position + len(name)
            i += 3
            continue
        if kind == "ident" and word in _RENAMED and following == ("op", "("):
            out.append(text[last:position])
            out.append(_RENAMED[word])
            last = position + len(word)
        i += 1
    out.append(text[last:end])
    return "".join(out)


def _closing(tokens: list[tuple[str, str, int]], opening: int, stop: int) -> int | None:
    depth = 0
    for i in range(opening, stop):
        kind, word, _ = tokens[i]
        if kind == "op" and word in "([{":
            depth += 1
        elif kind == "op" and word in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return None


def error_text(error: BaseException) -> str:
    """An evaluation error as cel-go words the common ones."""
    if isinstance(error, _Raised):
        return error.message
    if isinstance(error, KeyError) and error.args:
        return f"no such key: {error.args[0]}"
    if isinstance(error, ZeroDivisionError):
        return "division by zero"
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if text.startswith(("No such overload", "Unsupported operation")):
        return "no such overload"
    if text.startswith("Undefined variable or function: "):
        return "no such attribute(s): " + text.split(": ", 1)[1].split(".")[0].strip("'")
    return text.split(". Check that")[0]


class _Raised(Exception):
    """An error kgen's own functions report (a variable that failed), with cel-go's words."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# -- the authorizer ------------------------------------------------------------------------


def _authz(kind: str, **fields: Any) -> dict[str, Any]:
    return {cellib.TAG: _AUTHZ, "v": {"kind": kind, **fields}}


UNBOUND = {cellib.TAG: "unbound"}
"""The `authorizer` of expressions that have none bound (message expressions and audit
annotations): reading it is cel-go's `no such attribute(s): authorizer`."""


def _authz_value(value: Any, kinds: tuple[str, ...], function: str) -> dict[str, Any]:
    if value == UNBOUND:
        raise _Raised("no such attribute(s): authorizer")
    if type(value) is not dict or value.get(cellib.TAG) != _AUTHZ or value["v"]["kind"] not in kinds:
        raise TypeError(f"no such overload: {function}")
    inner: dict[str, Any] = value["v"]
    return inner


def authorizer(resource: Mapping[str, str]) -> dict[str, Any]:
    """The `authorizer` value, with `authorizer.requestResource` for the request's resource."""
    value = _authz("authorizer")
    value["requestResource"] = _authz("resource", **resource)
    return value


def _on(kinds: tuple[str, ...], key: str, result: str) -> Callable[[Any, Any], dict[str, Any]]:
    """A builder method: on a check of one of `kinds`, the check (of kind `result`) with `key` set."""

    def set_field(target: Any, argument: Any) -> dict[str, Any]:
        inner = _authz_value(target, kinds, key)
        fields = {k: v for k, v in inner.items() if k != "kind"}
        fields[key] = _text(argument, key)
        return _authz(result, **fields)

    return set_field


_ALLOWED = _authz("decision", allowed=True)


def _check(target: Any, verb: Any) -> dict[str, Any]:
    """A check's decision: allowed (kgen serve's one user may do everything)."""
    _authz_value(target, ("resource", "path"), "check")
    _text(verb, "check")
    return _ALLOWED


def _service_account(target: Any, namespace: Any, name: Any) -> dict[str, Any]:
    """The authorizer of a service account (which may do everything too)."""
    _authz_value(target, ("authorizer",), "serviceAccount")
    _text(namespace, "serviceAccount")
    _text(name, "serviceAccount")
    return authorizer({})


def _decision(field: str, value: Any) -> Callable[[Any], Any]:
    def read(decision: Any) -> Any:
        _authz_value(decision, ("decision",), field)
        return value

    return read


AUTHORIZER_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "group": _on(("authorizer",), "group", "group"),
    "path": _on(("authorizer",), "path", "path"),
    "serviceAccount": _service_account,
    "resource": _on(("group",), "resource", "resource"),
    "subresource": _on(("resource",), "subresource", "resource"),
    "namespace": _on(("resource",), "namespace", "resource"),
    "name": _on(("resource",), "name", "resource"),
    "fieldSelector": _on(("resource",), "fieldSelector", "resource"),
    "labelSelector": _on(("resource",), "labelSelector", "resource"),
    "check": _check,
    "allowed": _decision("allowed", True),
    "reason": _decision("reason", ""),
    "errored": _decision("errored", False),
    "error": _decision("error", ""),
}
"""library.Authz's functions (authorizer.group().resource()..., check(), the decision's
allowed(), reason(), errored(), error()) for an authorizer that allows everything."""


def _text(value: Any, function: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"no such overload: {function}")
    return value


# -- evaluation ----------------------------------------------------------------------------


_LOCAL = threading.local()


def _context() -> Any:
    """One engine context per thread with the Kubernetes libraries and kgen's functions."""
    context = getattr(_LOCAL, "context", None)
    if context is None:
        context = _engine().Context()
        for name, function in cellib.FUNCTIONS.items():
            context.add_function(name, function)
        context.add_function(cellib.MATCHES, cellib.matches)
        for name, function in AUTHORIZER_FUNCTIONS.items():
            context.add_function(name, function)
        context.add_function(_VARIABLE_FUNCTION, _read_variable)
        context.add_function(_HAS_FUNCTION, _has)
        context.add_function(_STRING_FUNCTION, cellib.FUNCTIONS["string"])
        for name, value in cellib.NAMESPACES.items():
            context.add_variable(name, value)
        _LOCAL.context = context
    return context


def _has(value: Any, name: Any) -> bool:
    return type(value) is dict and name in value and cellib.TAG not in value


def _read_variable(name: Any) -> Any:
    activation: Activation | None = getattr(_LOCAL, "activation", None)
    if activation is None:
        raise _Raised(f"no such attribute(s): variables.{name}")
    return activation.variable(str(name))


class Expression:
    """One compiled expression of a policy."""

    def __init__(self, text: str, declarations: Declarations, returns: tuple[str, ...] | None):
        self.text = text
        self.problem = compile_problem(text, declarations, returns)
        """Why it does not compile (the compilation error's detail), or None."""
        self._program: Any = None
        self._cost: celcost.ActivationCost | None = None
        self._root_fields: list[tuple[str, str]] = []
        """(variable, field) of every `variable.field` read (to word a read of null)."""
        self.names: frozenset[str] = frozenset(ROOTS + (AUTHORIZER,))
        """The variables it reads (all of them when kgen's parser does not read it)."""
        self.variables: frozenset[str] = frozenset()
        """The policy variables it reads (`variables.<name>`)."""
        if self.problem is None:
            self._program = _engine().compile(runnable(text))
            try:
                tree = celparse.parse(text)
            except celparse.CelSyntaxError:
                return
            self._cost = celcost.ActivationCost(tree, ROOTS)
            names, variables = set(), set()
            for node in celparse.walk(tree):
                if isinstance(node, celparse.Ident) and node.position >= 0:
                    names.add(node.name)
                if isinstance(node, celparse.Select) and isinstance(node.operand, celparse.Ident):
                    if node.operand.name in ROOTS and not node.test_only:
                        self._root_fields.append((node.operand.name, node.field))
                    if node.operand.name == VARIABLES:
                        variables.add(node.field)
            self.names = frozenset(names)
            self.variables = frozenset(variables)

    def null_read(self, values: Mapping[str, Any]) -> str | None:
        """The field the expression reads of a variable that is null (`oldObject.spec` on a
        create), which cel-go reports as `no such key: spec`."""
        return next((name for root, name in self._root_fields if values.get(root) is None), None)

    def cost(self, values: Mapping[str, Any], bound: Callable[[], int]) -> int:
        """The most evaluating it on these values could cost (`bound`: their input bound)."""
        if self._cost is None:
            return bound()
        return self._cost(values, bound)

    def run(self, values: Mapping[str, Any]) -> Any:
        """Evaluate on the current thread's context (its values set); raises on errors."""
        return self._program.execute(_context())


@dataclass
class Result:
    """What evaluating one expression gave: a value, or an error (cel-go's message)."""

    value: Any = None
    error: str | None = None


class OutOfBudget(Exception):
    """The evaluation's cost budget is spent: no further expression runs."""

    def __init__(self, message: str = OUT_OF_BUDGET):
        super().__init__(message)
        self.message = message


@dataclass
class Activation:
    """The values of one evaluation of a policy's expressions (one binding, one param), and
    the variables, each evaluated at most once, when an expression reads it."""

    values: dict[str, Any]
    variables: Mapping[str, Expression] = field(default_factory=dict)
    _evaluated: dict[str, Result] = field(default_factory=dict)
    _variables_cost: int = 0
    _failure: str | None = None
    """The error of the variable an expression read last, which its own error then is."""
    _bound: int | None = None

    def bound(self) -> int:
        """How large what the expressions compute from these values can be (computed once)."""
        if self._bound is None:
            self._bound = size_class(celcost.input_bound([self.values.get(name) for name in ROOTS]))
        return self._bound

    def evaluate(self, expression: Expression, remaining: int) -> tuple[Result, int]:
        """Run one expression within `remaining` of the budget: its result and what is left.
        Raises `OutOfBudget` when it costs more than is left."""
        if expression.problem is not None:
            return Result(error=f"compilation error: {expression.problem}"), remaining
        cost = expression.cost(self.values, self.bound)
        if cost > PER_CALL_LIMIT:
            if PER_CALL_LIMIT > remaining:
                raise OutOfBudget()
            return Result(error=self._failed(expression, COST_LIMIT_EXCEEDED)), remaining - PER_CALL_LIMIT
        if cost > remaining:
            raise OutOfBudget()
        self._variables_cost = 0
        self._failure = None
        _LOCAL.activation = self
        self._bind(expression)
        try:
            result = Result(value=expression.run(self.values))
        except Exception as error:  # noqa: BLE001 - any evaluation problem is the expression's error
            result = Result(error=self._failed(expression, self._failure or self._error(expression, error)))
        finally:
            _LOCAL.activation = None
        if self._variables_cost > remaining:
            raise OutOfBudget()
        remaining -= self._variables_cost
        if cost > remaining:
            raise OutOfBudget()
        return result, remaining - cost

    def _names(self, expression: Expression) -> set[str]:
        """The variables an expression and the policy variables it may read need."""
        needed = set(expression.names)
        pending, seen = list(expression.variables), set()
        while pending:
            name = pending.pop()
            if name in seen or name not in self.variables:
                continue
            seen.add(name)
            variable = self.variables[name]
            needed |= variable.names
            pending.extend(variable.variables)
        return needed

    def _bind(self, expression: Expression) -> None:
        """Give the engine's context the values the expression needs (handing a value to the
        engine costs microseconds per JSON member: only those it reads, once)."""
        bound: dict[str, Any] = _LOCAL.__dict__.setdefault("bound", {})
        changed = {}
        for name in self._names(expression):
            if name in self.values and (name not in bound or bound[name] is not self.values[name]):
                changed[name] = self.values[name]
        if changed:
            _context().update(changed)
            bound.update(changed)

    def _error(self, expression: Expression, error: BaseException) -> str:
        text = error_text(error)
        if text == "no such overload":
            missing = expression.null_read(self.values)
            if missing is not None:
                return f"no such key: {missing}"
        return text

    @staticmethod
    def _failed(expression: Expression, message: str) -> str:
        return f"expression '{expression.text}' resulted in error: {message}"

    def variable(self, name: str) -> Any:
        """The value of `variables.<name>` (evaluated on first read); raises its error."""
        known = self._evaluated.get(name)
        if known is None:
            known = self._evaluated[name] = self._evaluate_variable(name)
        if known.error is not None:
            self._failure = known.error
            raise _Raised(known.error)
        return known.value

    def _evaluate_variable(self, name: str) -> Result:
        expression = self.variables.get(name)
        if expression is None:
            return Result(error=f"no such key: {name}")
        if expression.problem is not None:
            return Result(error=f'composited variable "{name}" fails to compile: {expression.problem}')
        cost = expression.cost(self.values, self.bound)
        if cost > PER_CALL_LIMIT:
            self._variables_cost += PER_CALL_LIMIT
            return Result(error=f'composited variable "{name}" fails to evaluate: {COST_LIMIT_EXCEEDED}')
        outer_failure, self._failure = self._failure, None
        try:
            value = expression.run(self.values)
            result = Result(value=value)
        except Exception as error:  # noqa: BLE001 - the variable's error, reported where it is read
            inner = self._failure or self._error(expression, error)
            result = Result(error=f'composited variable "{name}" fails to evaluate: {inner}')
        self._failure = outer_failure
        self._variables_cost += cost
        return result
