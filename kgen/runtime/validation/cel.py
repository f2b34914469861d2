"""CEL validation rules (`+kubebuilder:validation:XValidation`), evaluated in Python.

Rules run on the JSON form of the value, as the API server runs them on a custom
resource: `self` is the value, `oldSelf` the previous value on update. A rule that
mentions `oldSelf` is a transition rule and only runs on update when there is an old
value (unless `optionalOldSelf`). The Common Expression Language implementation is the
`cel` package (common-expression-language); kgen adds the Kubernetes string and list
functions it lacks (`lowerAscii`, `split`, `isSorted`, ...), and runs `matches` on RE2 as
cel-go does.

Rules are bounded as the API server bounds them (`celcost`): a rule whose cost, for the
sizes of the value it is about to see, exceeds `PER_CALL_LIMIT`, or what is left of the
`RUNTIME_CEL_COST_BUDGET` of the validation it is part of (all rules checked into one
error list), is not run; the validation gets the API server's error and no further rule
of it runs. The `cel` engine counts no cost and cannot be interrupted, so the cost is
computed before the rule runs, from the sizes of its values.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kgen.runtime.validation import cellib, field, regexp
from kgen.runtime.validation.celcost import PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET
from kgen.runtime.validation.field import ErrorType, FieldError, PathNode

if TYPE_CHECKING:
    from kgen.runtime.validation.celcost import RuntimeCost


_REASONS = {
    "FieldValueInvalid": ErrorType.INVALID,
    "FieldValueForbidden": ErrorType.FORBIDDEN,
    "FieldValueRequired": ErrorType.REQUIRED,
    "FieldValueDuplicate": ErrorType.DUPLICATE,
}

_OLD_SELF = re.compile(r"\boldSelf\b")
_LOCAL = threading.local()


def _cel() -> Any:
    """The `cel` engine, imported on first use: importing it costs a tenth of a second (it
    imports its command line), which a program that validates nothing should not pay."""
    import cel

    return cel


_RENAMED = {"matches": cellib.MATCHES}


def _runnable(expression: str) -> str:
    """The expression as kgen hands it to the engine: `matches` calls renamed to kgen's,
    which runs RE2 (the engine's reads `\\d` and `\\b` as Unicode, Go's as ASCII)."""
    if "matches" not in expression:
        return expression
    from kgen.runtime.validation import celparse

    try:
        return celparse.rename_functions(expression, _RENAMED)
    except celparse.CelSyntaxError:
        return expression  # the engine reports it


def compile_error(expression: str) -> str | None:
    """Why a CEL expression does not compile, or None (used at generation time): the
    engine's syntax and checks, and, as the API server checks them since 1.29, the regular
    expressions given as literals to `matches`, `find` and `findAll`."""
    try:
        _cel().compile(_runnable(expression))
    except (ValueError, RuntimeError) as err:
        return str(err).strip()
    from kgen.runtime.validation import celparse

    try:
        tree = celparse.parse(expression)
    except celparse.CelSyntaxError:
        return None  # the engine read it; kgen's parser (for costs) does not, and charges it by its input
    for node in celparse.walk(tree):
        if isinstance(node, celparse.Call) and node.function in ("matches", "find", "findAll"):
            pattern = node.args[0] if node.target is not None else (node.args[1] if len(node.args) > 1 else None)
            if isinstance(pattern, celparse.Literal) and isinstance(pattern.value, str):
                problem = regexp.syntax_problem(pattern.value)
                if problem:
                    return (
                        f"ERROR: {node.function}() is given an invalid regular expression {pattern.value!r}: {problem}"
                    )
    return None


@dataclass
class Rule:
    """One compiled rule with its message and where its errors go."""

    rule: str
    message: str = ""
    message_expression: str = ""
    reason: str = ""
    field_path: str = ""
    optional_old_self: bool = False
    json_type: str = "object"
    """The JSON Schema type of the value (`object`, `string`, ...): the bad value of its errors."""

    def __post_init__(self) -> None:
        self._programs: tuple[Any, Any] | None = None
        self._estimates: tuple[RuntimeCost | None, RuntimeCost | None] | None = None
        self.transition = bool(_OLD_SELF.search(self.rule))
        self.error_type = _REASONS.get(self.reason, ErrorType.INVALID)
        used = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", self.rule + " " + self.message_expression))
        self.needs_functions = bool(used & (KUBERNETES_FUNCTIONS.keys() | _RENAMED.keys())) or bool(
            re.search(r"\b(?:" + "|".join(cellib.NAMESPACES) + r")\s*\.", self.rule + " " + self.message_expression)
        )
        """Rules that call the Kubernetes functions need a Context (slower); the rest take a dict."""
        self.escaped = _escaped_names(self.rule + " " + self.message_expression)
        """CEL identifiers of properties whose names CEL escapes (`__namespace__`,
        `dash__dash__name`), with the JSON names they stand for."""
        self.reads = _fields_read(self.rule + " " + self.message_expression, "self")
        self.old_reads = _fields_read(self.rule + " " + self.message_expression, "oldSelf")
        """The fields of `self` (`oldSelf`) a rule reads, when it reads nothing else of it.

        Handing CEL a value costs about a microsecond per JSON member, so an object is
        cut down to the fields the rule reads before it is evaluated.
        """

    @property
    def program(self) -> Any:
        return self._compiled()[0]

    @property
    def message_program(self) -> Any:
        return self._compiled()[1]

    def _compiled(self) -> tuple[Any, Any]:
        """The rule and message programs, compiled when the rule is first checked."""
        if self._programs is None:
            engine = _cel()
            message = engine.compile(_runnable(self.message_expression)) if self.message_expression else None
            self._programs = (engine.compile(_runnable(self.rule)), message)
        return self._programs

    def _costs(self) -> tuple[RuntimeCost | None, RuntimeCost | None]:
        """The run-time costs of the rule and of its message (None where kgen's parser fails)."""
        if self._estimates is None:
            self._estimates = (
                _runtime_cost(self.rule, self.optional_old_self),
                _runtime_cost(self.message_expression, self.optional_old_self) if self.message_expression else None,
            )
        return self._estimates

    def cost(self, value: Any, old: Any = None) -> int:
        """The most the API server could count evaluating the rule on these JSON values."""
        return _cost(self._costs()[0], value, old)

    def check(self, value: Any, old: Any, path: PathNode, errors: list[FieldError]) -> None:
        """Evaluate the rule on JSON values `value` (and `old`); append an error when it fails.

        Rules checked into the same `errors` share one cost budget, as the rules of one
        object do in the API server; once it is spent, no further rule runs."""
        if self.transition and old is None and not self.optional_old_self:
            return
        budget = _budget(errors)
        if budget.remaining < 0:
            return  # a rule before this one ran out of budget: no further rules are run
        if self.escaped:
            value, old = _with_escaped(value, self.escaped), _with_escaped(old, self.escaped)
        if self.reads is not None and type(value) is dict:
            value = {name: value[name] for name in self.reads if name in value}
        variables = {"self": value}
        if self.transition:
            if self.old_reads is not None and type(old) is dict:
                old = {name: old[name] for name in self.old_reads if name in old}
            variables["oldSelf"] = old
        cost = self.cost(value, old if self.transition else None)
        if not budget.spend(cost, path, self.json_type, f"rule: {self._error_string()}"):
            return
        if self.needs_functions:
            context = _context()
            context.update(variables)
        else:
            context = variables
        try:
            result = self.program.execute(context)
        except Exception as err:  # noqa: BLE001 - any evaluation problem is the object's error, never a crash
            errors.append(field.invalid(path, self.json_type, f"{_clean(err)} evaluating rule: {self.rule}", "rule"))
            return
        if result is True:
            return
        target = _at(path, self.field_path)
        if result is not False:
            errors.append(
                field.invalid(target, self.json_type, f"rule did not evaluate to a bool: {self.rule}", "rule")
            )
            return
        failure = self._failure(target, context, value, old, budget)
        if failure is not None:
            errors.append(failure)

    def _error_string(self) -> str:
        """How the API server names a rule in its errors: by its message, else its text."""
        return self.message.strip() if self.message else self.rule.strip()

    def _failure(self, path: PathNode, context: Any, value: Any, old: Any, budget: _Budget) -> FieldError | None:
        message = self.message or f"failed rule: {self.rule}"
        if self.message_program is not None:
            cost = _cost(self._costs()[1], value, old)
            what = f"messageExpression: {field.go_quote(self.message_expression)}"
            if not budget.spend(cost, path, self.json_type, what, message_expression=True):
                return None
            try:
                text = self.message_program.execute(context)
                if isinstance(text, str) and text.strip() and "\n" not in text:
                    message = text
            except Exception:  # noqa: BLE001 - upstream falls back to the static message
                pass
        # The bad value is the value the rule is on, left out for objects and lists
        # (apiextensions-apiserver 1.35 and later; before, it was the schema type's name).
        bad = field.OMIT_VALUE if self.json_type in ("object", "array") else value
        if self.error_type is ErrorType.INVALID:
            return field.invalid(path, bad, message, "rule")
        if self.error_type is ErrorType.DUPLICATE:
            return field.duplicate(path, bad, "rule")
        if self.error_type is ErrorType.REQUIRED:
            return field.required(path, message, "rule")
        return field.forbidden(path, message, "rule")


def _escaped_names(text: str) -> dict[str, str]:
    """The escaped identifiers a rule selects (`self.ref.__namespace__`), by what they name."""
    from kgen.runtime.validation.celtypes import unescape

    found = {}
    for name in re.findall(r"\.\s*([A-Za-z_]\w*)", text):
        plain = unescape(name)
        if plain != name:
            found[name] = plain
    return found


def _with_escaped(value: Any, escaped: dict[str, str]) -> Any:
    """JSON data where every object holding a property the rule selects escaped also holds
    it under the escaped name, as the API server's CEL type of the schema names it."""
    if not isinstance(value, (dict, list)):
        return value
    wanted = {plain: name for name, plain in escaped.items()}
    root: Any = None
    stack: list[tuple[Any, Any, Any]] = [(value, None, None)]  # (node, parent, key in parent)
    while stack:
        node, parent, key = stack.pop()
        copy: Any
        if isinstance(node, dict):
            copy = dict(node)
            for plain, name in wanted.items():
                if plain in copy and name not in copy:
                    copy[name] = copy[plain]
            children = list(copy.items())
        elif isinstance(node, list):
            copy = list(node)
            children = list(enumerate(copy))
        else:
            continue
        if parent is None:
            root = copy
        else:
            parent[key] = copy
        stack.extend((child, copy, k) for k, child in children if isinstance(child, (dict, list)))
    return root


def _fields_read(text: str, variable: str) -> tuple[str, ...] | None:
    """The fields read as `variable.name`, or None when the variable is used any other way."""
    names: list[str] = []
    for match in re.finditer(rf"\b{variable}\b(\s*\.\s*([A-Za-z_]\w*)(\s*\()?)?", text):
        name, call = match.group(2), match.group(3)
        if name is None or call is not None:
            return None  # the whole value (`self == oldSelf`, `size(self)`) or a method on it
        if name not in names:
            names.append(name)
    return tuple(names)


def _at(path: PathNode, field_path: str) -> PathNode:
    """The error's path: `fieldPath` (`.spec.ports[0]`, `['a.b']`) under the rule's path."""
    if not field_path:
        return path
    for name, bracketed in re.findall(r"\.([A-Za-z0-9_$-]+)|\[([^\]]*)\]", field_path):
        if name:
            path = field.child(path, name)
        else:
            inner = bracketed.strip("'\"")
            path = field.index(path, int(inner)) if inner.isdigit() else field.child(path, inner)
    return path


def _clean(err: BaseException) -> str:
    if isinstance(err, KeyError) and err.args:
        return f"no such key: {err.args[0]}"
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text.split(". Check that")[0]


# -- cost ------------------------------------------------------------------------------------------


def _runtime_cost(expression: str, optional_old_self: bool) -> RuntimeCost | None:
    """The run-time cost of an expression (`celcost.RuntimeCost`, imported when a rule is
    first checked), or None when kgen's parser does not read it."""
    from kgen.runtime.validation import celcost, celparse

    try:
        return celcost.RuntimeCost(celparse.parse(expression), optional_old_self)
    except celparse.CelSyntaxError:
        return None


def _cost(estimate: RuntimeCost | None, value: Any, old: Any) -> int:
    if estimate is None:  # what kgen's parser does not read is charged by the size of its input
        from kgen.runtime.validation.celcost import input_bound

        return input_bound(value, old)
    return estimate(value, old)


class _Budget:
    """The cost left to the rules of one validation (the API server's RuntimeCELCostBudget
    per object); negative once a rule was refused, after which no rule runs."""

    __slots__ = ("errors", "remaining")

    def __init__(self, errors: list[FieldError]):
        self.errors = errors
        self.remaining = RUNTIME_CEL_COST_BUDGET

    def spend(self, cost: int, path: PathNode, json_type: str, what: str, message_expression: bool = False) -> bool:
        """Whether an expression of this cost may run; if not, its error is appended, as
        the API server words it, and the budget is closed."""
        if cost > PER_CALL_LIMIT:
            detail = f"no further validation rules will be run due to call cost exceeds limit for {what}"
            if not message_expression:
                detail = f"'operation cancelled: actual cost limit exceeded': {detail}"
        elif cost > self.remaining or self.remaining <= 0:
            prefix = "messageExpression evaluation" if message_expression else "validation"
            detail = f"{prefix} failed due to running out of cost budget, no further validation rules will be run"
        else:
            self.remaining -= cost
            return True
        self.errors.append(field.invalid(path, json_type, detail, "rule"))
        self.remaining = -1
        return False


_BUDGETS_KEPT = 8


def _budget(errors: list[FieldError]) -> _Budget:
    """The budget of the validation that collects its errors into `errors`: every generated
    validator hands one list down to all its checks. The last few are kept per thread
    (validations nest only when a hook validates something else)."""
    budgets: list[_Budget] = _LOCAL.__dict__.setdefault("budgets", [])
    for budget in reversed(budgets):
        if budget.errors is errors:
            return budget
    budget = _Budget(errors)
    budgets.append(budget)
    if len(budgets) > _BUDGETS_KEPT:
        del budgets[0]
    return budget


# -- the Kubernetes CEL libraries ----------------------------------------------------------------

KUBERNETES_FUNCTIONS: dict[str, Callable[..., Any]] = cellib.FUNCTIONS
"""The functions the API server's CEL environment adds, which rules may call."""


def _context() -> Any:
    """One evaluation context per thread, with the Kubernetes functions and namespaces."""
    context = getattr(_LOCAL, "context", None)
    if context is None:
        context = _cel().Context()
        for name, function in KUBERNETES_FUNCTIONS.items():
            context.add_function(name, function)
        context.add_function(cellib.MATCHES, cellib.matches)
        for name, value in cellib.NAMESPACES.items():
            context.add_variable(name, value)
        _LOCAL.context = context
    return context
