"""One policy, compiled, and what evaluating it on a request decides.

A `CompiledPolicy` holds a ValidatingAdmissionPolicy's expressions compiled once (per
resourceVersion of the policy). `CompiledPolicy.validate` is the validator of
k8s.io/apiserver's policy/validating (validator.go) for one binding and one param: the match
conditions (all must be true; an error follows the failure policy), then every validation
(a false one is denied with its message, its messageExpression's, or `failed expression:
<expression>`, and its reason, Invalid by default), then the audit annotations, each group of
expressions within its cost budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgen.serve.policies.expressions import (
    BUDGET,
    MATCH_CONDITIONS_BUDGET,
    Activation,
    Declarations,
    Expression,
    UNBOUND,
    OutOfBudget,
    Result,
)

MAX_EVALUATED_MESSAGE_BYTES = 5 * 1024
"""MaxEvaluatedMessageExpressionSizeBytes: a longer message from messageExpression is not used."""
MAX_AUDIT_ANNOTATION_VALUE_BYTES = 10 * 1024


@dataclass
class Decision:
    """What one validation (or a failure to evaluate) decided (PolicyDecision)."""

    deny: bool
    message: str = ""
    reason: str = ""
    error: bool = False
    """The evaluation failed (rather than the object): EvalError."""


@dataclass
class AuditAnnotation:
    """An audit annotation's outcome: published with a value, excluded, or an error."""

    key: str
    value: str = ""
    action: str = "exclude"
    """`publish`, `exclude` or `error`."""
    error: str = ""


@dataclass
class Outcome:
    """Every decision and audit annotation of one evaluation (ValidateResult)."""

    decisions: list[Decision] = field(default_factory=list)
    annotations: list[AuditAnnotation] = field(default_factory=list)


@dataclass
class _Validation:
    expression: Expression
    message: str
    reason: str
    message_expression: Expression | None


class CompiledPolicy:
    """A policy's expressions, compiled (compilePolicy)."""

    def __init__(self, policy: Mapping[str, Any]):
        spec = policy.get("spec") or {}
        self.name: str = (policy.get("metadata") or {}).get("name", "")
        self.spec = spec
        self.failure_policy: str = spec.get("failurePolicy") or "Fail"
        params = spec.get("paramKind") is not None
        names: list[str] = []
        self.variables: dict[str, Expression] = {}
        for variable in spec.get("variables") or []:
            name = variable.get("name", "")
            self.variables[name] = Expression(
                variable.get("expression", ""), Declarations(params, True, True, tuple(names)), None
            )
            names.append(name)
        everything = Declarations(params, True, True, tuple(names))
        no_authorizer = Declarations(params, False, True, tuple(names))
        self.conditions = [
            (condition.get("name", ""), Expression(condition.get("expression", ""), everything, ("bool",)))
            for condition in spec.get("matchConditions") or []
        ]
        self.validations = [
            _Validation(
                Expression(v.get("expression", ""), everything, ("bool",)),
                v.get("message", ""),
                v.get("reason", ""),
                Expression(v["messageExpression"], no_authorizer, ("string",)) if v.get("messageExpression") else None,
            )
            for v in spec.get("validations") or []
        ]
        self.annotations = [
            (a.get("key", ""), Expression(a.get("valueExpression", ""), everything, ("string", "null_type")))
            for a in spec.get("auditAnnotations") or []
        ]

    def _error_decision(self, message: str) -> Decision:
        """An evaluation that failed: denied under Fail, admitted under Ignore."""
        return Decision(deny=self.failure_policy != "Ignore", message=message, error=True)

    def conditions_hold(self, values: dict[str, Any]) -> tuple[bool, str | None]:
        """Whether every match condition holds, and the error that fails the request (under
        failurePolicy Fail), as a webhook's match conditions are evaluated too."""
        return self._matches(values)

    def _matches(self, values: dict[str, Any]) -> tuple[bool, str | None]:
        """Whether every match condition holds; the error under failurePolicy Fail."""
        if not self.conditions:
            return True, None
        # match conditions see no namespaceObject (the webhook matcher passes none)
        activation = Activation({**values, "namespaceObject": None}, self.variables)
        errors: list[str] = []
        remaining = MATCH_CONDITIONS_BUDGET
        try:
            for _, expression in self.conditions:
                result, remaining = activation.evaluate(expression, remaining)
                if result.error is not None:
                    errors.append(result.error)
                elif result.value is False:
                    return False, None
        except OutOfBudget as spent:
            return (False, None) if self.failure_policy == "Ignore" else (False, spent.message)
        if errors:
            if self.failure_policy == "Ignore":
                return False, None
            return False, errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        return True, None

    def validate(self, values: dict[str, Any]) -> Outcome:
        """The decisions for one request, binding and param (`values`: the variables of the
        expressions: object, oldObject, params, request, namespaceObject, authorizer)."""
        matched, problem = self._matches(values)
        if problem is not None:
            return Outcome([self._error_decision(problem)])
        if not matched:
            return Outcome()
        activation = Activation(values, self.variables)
        results: list[Result] = []
        remaining = BUDGET
        try:
            for validation in self.validations:
                result, remaining = activation.evaluate(validation.expression, remaining)
                results.append(result)
        except OutOfBudget as spent:
            return Outcome([self._error_decision(spent.message)])
        # message expressions: every one of them, without the authorizer, on what is left
        messages: list[Result | None] = []
        message_problem: str | None = None
        message_activation = Activation({**values, "authorizer": UNBOUND}, self.variables)
        try:
            for validation in self.validations:
                if validation.message_expression is None:
                    messages.append(None)
                    continue
                message, remaining = message_activation.evaluate(validation.message_expression, remaining)
                messages.append(message)
        except OutOfBudget as spent:
            message_problem = spent.message
        outcome = Outcome()
        for i, (validation, result) in enumerate(zip(self.validations, results)):
            if result.error is not None:
                outcome.decisions.append(self._error_decision(result.error))
            elif message_problem is not None:
                outcome.decisions.append(self._error_decision(f"failed messageExpression: {message_problem}"))
            elif result.value is not True:
                text = ""
                written = messages[i] if i < len(messages) else None
                if written is not None and written.error is None and isinstance(written.value, str):
                    text = written.value.strip()
                    if len(text.encode()) > MAX_EVALUATED_MESSAGE_BYTES or "\n" in text:
                        text = ""
                if not text and validation.message:
                    text = validation.message.strip()
                if not text:
                    text = f"failed expression: {validation.expression.text.strip()}"
                outcome.decisions.append(Decision(deny=True, message=text, reason=validation.reason or "Invalid"))
            else:
                outcome.decisions.append(Decision(deny=False))
        annotation_activation = Activation({**values, "authorizer": UNBOUND}, self.variables)
        remaining = BUDGET
        try:
            for key, expression in self.annotations:
                result, remaining = annotation_activation.evaluate(expression, remaining)
                outcome.annotations.append(self._annotation(key, expression, result))
        except OutOfBudget as spent:
            return Outcome([self._error_decision(spent.message)])
        return outcome

    def _annotation(self, key: str, expression: Expression, result: Result) -> AuditAnnotation:
        if result.error is not None:
            action = "exclude" if self.failure_policy == "Ignore" else "error"
            return AuditAnnotation(key, action=action, error=result.error)
        if result.value is None:
            return AuditAnnotation(key)
        if isinstance(result.value, str):
            value = result.value.strip()
            if not value:
                return AuditAnnotation(key)
            return AuditAnnotation(key, value=value[:MAX_AUDIT_ANNOTATION_VALUE_BYTES], action="publish")
        kind = {bool: "bool", int: "int", float: "double", list: "list", dict: "map"}.get(type(result.value), "dyn")
        return AuditAnnotation(
            key,
            action="error",
            error=f"valueExpression '{expression.text}' resulted in unsupported return type: {kind}. "
            "Return type must be either string or null.",
        )
