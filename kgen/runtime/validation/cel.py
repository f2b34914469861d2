"""CEL validation rules (`+kubebuilder:validation:XValidation`), evaluated in Python.

Rules run on the JSON form of the value, as the API server runs them on a custom
resource: `self` is the value, `oldSelf` the previous value on update. A rule that
mentions `oldSelf` is a transition rule and only runs on update when there is an old
value (unless `optionalOldSelf`). The Common Expression Language implementation is the
`cel` package (common-expression-language); kgen adds the Kubernetes string and list
functions it lacks (`lowerAscii`, `split`, `isSorted`, ...).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgen.runtime.validation import cellib, field
from kgen.runtime.validation.field import ErrorType, FieldError, PathNode

_REASONS = {
    "FieldValueInvalid": ErrorType.INVALID,
    "FieldValueForbidden": ErrorType.FORBIDDEN,
    "FieldValueRequired": ErrorType.REQUIRED,
    "FieldValueDuplicate": ErrorType.DUPLICATE,
}

_OLD_SELF = re.compile(r"\boldSelf\b")


def _cel():
    """The `cel` engine, imported on first use: importing it costs a tenth of a second (it
    imports its command line), which a program that validates nothing should not pay."""
    import cel

    return cel


def compile_error(expression: str) -> str | None:
    """Why a CEL expression does not compile, or None (used at generation time)."""
    try:
        _cel().compile(expression)
    except (ValueError, RuntimeError) as err:
        return str(err).strip()
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
        self._programs: tuple | None = None
        self.transition = bool(_OLD_SELF.search(self.rule))
        self.error_type = _REASONS.get(self.reason, ErrorType.INVALID)
        used = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", self.rule + " " + self.message_expression))
        self.needs_functions = bool(used & KUBERNETES_FUNCTIONS.keys()) or bool(
            re.search(r"\b(?:" + "|".join(cellib.NAMESPACES) + r")\s*\.", self.rule + " " + self.message_expression)
        )
        """Rules that call the Kubernetes functions need a Context (slower); the rest take a dict."""
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

    def _compiled(self) -> tuple:
        """The rule and message programs, compiled when the rule is first checked."""
        if self._programs is None:
            engine = _cel()
            message = engine.compile(self.message_expression) if self.message_expression else None
            self._programs = (engine.compile(self.rule), message)
        return self._programs

    def check(self, value: Any, old: Any, path: PathNode, errors: list[FieldError]) -> None:
        """Evaluate the rule on JSON values `value` (and `old`); append an error when it fails."""
        if self.transition and old is None and not self.optional_old_self:
            return
        if self.reads is not None and type(value) is dict:
            value = {name: value[name] for name in self.reads if name in value}
        variables = {"self": value}
        if self.transition:
            if self.old_reads is not None and type(old) is dict:
                old = {name: old[name] for name in self.old_reads if name in old}
            variables["oldSelf"] = old
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
            errors.append(field.invalid(target, self.json_type, f"rule did not evaluate to a bool: {self.rule}", "rule"))
            return
        errors.append(self._failure(target, context))

    def _failure(self, path: PathNode, context: Any) -> FieldError:
        message = self.message or f"failed rule: {self.rule}"
        if self.message_program is not None:
            try:
                text = self.message_program.execute(context)
                if isinstance(text, str) and text.strip() and "\n" not in text:
                    message = text
            except Exception:  # noqa: BLE001 - upstream falls back to the static message
                pass
        if self.error_type is ErrorType.INVALID:
            return field.invalid(path, self.json_type, message, "rule")
        if self.error_type is ErrorType.DUPLICATE:
            return field.duplicate(path, self.json_type, "rule")
        if self.error_type is ErrorType.REQUIRED:
            return field.required(path, message, "rule")
        return field.forbidden(path, message, "rule")


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


# -- the Kubernetes CEL libraries ----------------------------------------------------------------

KUBERNETES_FUNCTIONS: dict[str, Callable[..., Any]] = cellib.FUNCTIONS
"""The functions the API server's CEL environment adds, which rules may call."""

_LOCAL = threading.local()


def _context() -> Any:
    """One evaluation context per thread, with the Kubernetes functions and namespaces."""
    context = getattr(_LOCAL, "context", None)
    if context is None:
        context = _cel().Context()
        for name, function in KUBERNETES_FUNCTIONS.items():
            context.add_function(name, function)
        for name, value in cellib.NAMESPACES.items():
            context.add_variable(name, value)
        _LOCAL.context = context
    return context
