"""Validation of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding objects.

What kubernetes' pkg/apis/admissionregistration/validation/validation.go checks, with its
field paths and messages: required fields, supported values, rules of resources and
operations, label selectors, match conditions, variables, validations and audit annotations
whose CEL does not compile (`compilation failed: ERROR: <input>:1:1: ...`), the
binding's paramRef and validation actions (its matchResources errors are reported under
`spec.matchResouces`, as upstream spells it), and the status a status update writes.
Objects are JSON as the typed decoder left them, defaults applied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kgen.runtime.validation import field
from kgen.runtime.validation.content import is_dns1035_label, is_dns1123_subdomain, is_path_segment_name
from kgen.runtime.validation.field import FieldError, Path
from kgen.runtime.validation.formats import is_qualified_name, is_valid_label_value
from kgen.serve.policies.expressions import Declarations, compile_problem

MAX_AUDIT_ANNOTATIONS = 20
MAX_VALUE_EXPRESSION_LENGTH = 5 * 1024
MAX_MATCH_CONDITIONS = 64

_FAILURE_POLICIES = ("Fail", "Ignore")
_MATCH_POLICIES = ("Equivalent", "Exact")
_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_SCOPES = ("*", "Cluster", "Namespaced")
_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
_ACTIONS = ("Audit", "Deny", "Warn")
_CEL_IDENTIFIER = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
_CEL_RESERVED = frozenset(
    "true false null in as break const continue else for function if import let loop package namespace return var "
    "void while".split()
)
_NEWLINES = re.compile(r"[\n\r]+")


def _meta(obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[FieldError]:
    from kgen.runtime.apimachinery.meta.v1.models import ObjectMeta
    from kgen.runtime.validation.meta import validate_object_meta, validate_object_meta_update

    errors: list[FieldError] = []
    meta = ObjectMeta.from_dict(obj.get("metadata") or {})
    path = Path.root("metadata")
    validate_object_meta(meta, path, errors, namespaced=False, name_format="k8s-long-name")
    if old is not None:
        validate_object_meta_update(meta, ObjectMeta.from_dict(old.get("metadata") or {}), path, errors)
    return errors


# -- rules and selectors --------------------------------------------------------------------------


def _resources(resources: Sequence[str], path: Path) -> list[FieldError]:
    """validateResources: subresources allowed, and the wildcards' rules."""
    errors: list[FieldError] = []
    if not resources:
        errors.append(field.required(path, ""))
    with_wildcard_subresources: set[str] = set()
    with_wildcard_resource: set[str] = set()
    double_wildcard = single_wildcard = without_subresource = False
    for i, entry in enumerate(resources):
        if entry == "":
            errors.append(field.required(path.index(i), ""))
            continue
        if entry == "*/*":
            double_wildcard = True
        if entry == "*":
            single_wildcard = True
        if "/" not in entry:
            without_subresource = entry != "*"
            continue
        name, sub = entry.split("/", 1)
        if name in with_wildcard_subresources:
            errors.append(field.invalid(path.index(i), entry, f"if '{name}/*' is present, must not specify {entry}"))
        if sub in with_wildcard_resource:
            errors.append(field.invalid(path.index(i), entry, f"if '*/{sub}' is present, must not specify {entry}"))
        if sub == "*":
            with_wildcard_subresources.add(name)
        if name == "*":
            with_wildcard_resource.add(sub)
    if len(resources) > 1 and double_wildcard:
        errors.append(field.invalid(path, list(resources), "if '*/*' is present, must not specify other resources"))
    if single_wildcard and without_subresource:
        errors.append(
            field.invalid(
                path, list(resources), "if '*' is present, must not specify other resources without subresources"
            )
        )
    return errors


def _listed(values: list[Any], path: Path, others: str) -> list[FieldError]:
    """A rule's list that must name something, where `*` stands alone (`others`: what the
    other entries would be)."""
    errors: list[FieldError] = []
    if not values:
        errors.append(field.required(path, ""))
    if len(values) > 1 and "*" in values:
        errors.append(field.invalid(path, values, f"if '*' is present, must not specify other {others}"))
    return errors


def _rule(rule: Mapping[str, Any], path: Path) -> list[FieldError]:
    """validateRule (subresources allowed)."""
    errors = _listed(rule.get("apiGroups") or [], path.child("apiGroups"), "API groups")
    versions = rule.get("apiVersions") or []
    errors += _listed(versions, path.child("apiVersions"), "API versions")
    for i, version in enumerate(versions):
        if version == "":
            errors.append(field.required(path.child("apiVersions").index(i), ""))
    errors += _resources(rule.get("resources") or [], path.child("resources"))
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        errors.append(field.not_supported(path.child("scope"), scope, _SCOPES))
    return errors


def _named_rule(rule: Mapping[str, Any], path: Path) -> list[FieldError]:
    """validateNamedRuleWithOperations."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, name in enumerate(rule.get("resourceNames") or []):
        for message in is_path_segment_name(name):
            errors.append(field.invalid(path.child("resourceNames").index(i), name, message))
        if name in seen:
            errors.append(field.duplicate(path.child("resourceNames").index(i), name))
        seen.add(name)
    operations = rule.get("operations") or []
    errors += _listed(operations, path.child("operations"), "operations")
    for i, operation in enumerate(operations):
        if operation not in _OPERATIONS:
            errors.append(field.not_supported(path.child("operations").index(i), operation, _OPERATIONS))
    return errors + _rule(rule, path)


def label_selector(selector: Mapping[str, Any], path: Path) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector (label values in requirements validated)."""
    from kgen.runtime.validation.meta import validate_labels

    errors: list[FieldError] = []
    validate_labels(selector.get("matchLabels"), path.child("matchLabels"), errors)
    for i, requirement in enumerate(selector.get("matchExpressions") or []):
        here = path.child("matchExpressions").index(i)
        operator = requirement.get("operator", "")
        values = requirement.get("values") or []
        if operator in ("In", "NotIn"):
            if not values:
                errors.append(
                    field.required(here.child("values"), "must be specified when `operator` is 'In' or 'NotIn'")
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errors.append(
                    field.forbidden(
                        here.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                    )
                )
        else:
            errors.append(field.invalid(here.child("operator"), operator, "not a valid selector operator"))
        key = requirement.get("key", "")
        for message in is_qualified_name(key):
            errors.append(field.invalid(here.child("key"), key, message, "format=k8s-label-key"))
        for j, value in enumerate(values):
            for message in is_valid_label_value(value):
                errors.append(field.invalid(here.child("values").index(j), value, message))
    return errors


def match_resources(resources: Mapping[str, Any] | None, path: Path) -> list[FieldError]:
    """validateMatchResources."""
    errors: list[FieldError] = []
    if resources is None:
        return errors
    policy = resources.get("matchPolicy")
    if policy is None:
        errors.append(field.required(path.child("matchPolicy"), ""))
    elif policy not in _MATCH_POLICIES:
        errors.append(field.not_supported(path.child("matchPolicy"), policy, _MATCH_POLICIES))
    for name in ("namespaceSelector", "objectSelector"):
        selector = resources.get(name)
        if selector is None:
            errors.append(field.required(path.child(name), ""))
        else:
            errors += label_selector(selector, path.child(name))
    for name in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(resources.get(name) or []):
            errors += _named_rule(rule, path.child(name).index(i))
    return errors


# -- expressions ---------------------------------------------------------------------------


def _compiled(
    path: Path, expression: str, declarations: Declarations, returns: tuple[str, ...] | None
) -> list[FieldError]:
    problem = compile_problem(expression, declarations, returns)
    return [field.invalid(path, expression, problem)] if problem else []


def _match_conditions(conditions: Sequence[Mapping[str, Any]], params: bool, path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errors.append(field.too_many(path, len(conditions), MAX_MATCH_CONDITIONS))
    names: set[str] = set()
    for i, condition in enumerate(conditions):
        here = path.index(i)
        expression = (condition.get("expression") or "").strip()
        if not expression:
            errors.append(field.required(here.child("expression"), ""))
        else:
            # match conditions compile without composition: no `variables`
            errors += _compiled(here.child("expression"), expression, Declarations(params, True, False), ("bool",))
        name = condition.get("name") or ""
        if not name:
            errors.append(field.required(here.child("name"), ""))
        else:
            for message in is_qualified_name(name):
                errors.append(field.invalid(here.child("name"), name, message))
        if name:
            if name in names:
                errors.append(field.duplicate(here.child("name"), name))
            names.add(name)
    return errors


def _is_cel_identifier(name: str) -> bool:
    return bool(_CEL_IDENTIFIER.match(name)) and name not in _CEL_RESERVED


def policy_spec(
    spec: Mapping[str, Any], path: Path, name: str, old_spec: Mapping[str, Any] | None = None
) -> list[FieldError]:
    """validateValidatingAdmissionPolicySpec; `name` is the policy's (audit annotation keys
    are qualified by it)."""
    errors: list[FieldError] = []
    params = spec.get("paramKind") is not None
    variables = spec.get("variables") or []
    composition = bool(variables)
    failure = spec.get("failurePolicy")
    if failure is None:
        errors.append(field.required(path.child("failurePolicy"), ""))
    elif failure not in _FAILURE_POLICIES:
        errors.append(field.not_supported(path.child("failurePolicy"), failure, _FAILURE_POLICIES))
    if params:
        errors += _param_kind(spec["paramKind"], path.child("paramKind"))
    constraints = spec.get("matchConstraints")
    if constraints is None:
        errors.append(field.required(path.child("matchConstraints"), ""))
    else:
        errors += match_resources(constraints, path.child("matchConstraints"))
        if not constraints.get("resourceRules"):
            errors.append(field.required(path.child("matchConstraints", "resourceRules"), ""))
    unchanged_conditions = old_spec is not None and (
        old_spec.get("paramKind") == spec.get("paramKind")
        and (old_spec.get("matchConditions") or []) == (spec.get("matchConditions") or [])
    )
    if not unchanged_conditions:
        errors += _match_conditions(spec.get("matchConditions") or [], params, path.child("matchConditions"))
    declared: list[str] = []
    for i, variable in enumerate(variables):
        here = path.child("variables").index(i)
        variable_name = variable.get("name") or ""
        if not variable_name.strip():
            errors.append(field.required(here.child("name"), "name is not specified"))
        elif not _is_cel_identifier(variable_name):
            errors.append(field.invalid(here.child("name"), variable_name, "name is not a valid CEL identifier"))
        expression = variable.get("expression") or ""
        if not expression.strip():
            errors.append(field.required(here.child("expression"), "expression is not specified"))
        else:
            errors += _compiled(
                here.child("expression"), expression, Declarations(params, True, True, tuple(declared)), None
            )
        declared.append(variable_name)
    everything = Declarations(params, True, composition, tuple(declared))
    validations = spec.get("validations") or []
    annotations = spec.get("auditAnnotations") or []
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        errors.append(field.required(path.child("validations"), detail))
        errors.append(field.required(path.child("auditAnnotations"), detail))
        return errors
    for i, validation in enumerate(validations):
        errors += _validation(validation, everything, path.child("validations").index(i))
    if spec.get("auditAnnotations") is not None:
        if len(annotations) > MAX_AUDIT_ANNOTATIONS:
            shown = [{"Key": a.get("key", ""), "ValueExpression": a.get("valueExpression", "")} for a in annotations]
            errors.append(
                field.invalid(
                    path.child("auditAnnotations"),
                    shown,
                    f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations",
                )
            )
        keys: set[str] = set()
        for i, annotation in enumerate(annotations):
            errors += _audit_annotation(annotation, everything, path.child("auditAnnotations").index(i), name)
            key = annotation.get("key", "")
            if key in keys:
                errors.append(field.duplicate(path.child("auditAnnotations").index(i).child("key"), key))
            keys.add(key)
    return errors


def _param_kind(kind: Mapping[str, Any], path: Path) -> list[FieldError]:
    """validateParamKind."""
    errors: list[FieldError] = []
    api_version = kind.get("apiVersion") or ""
    if not api_version:
        errors.append(field.required(path.child("apiVersion"), ""))
    elif api_version.count("/") > 1:
        errors.append(
            field.invalid(path.child("apiVersion"), api_version, f"unexpected GroupVersion string: {api_version}")
        )
    elif api_version != "/":
        group, _, version = api_version.rpartition("/")
        if group:
            problems = is_dns1123_subdomain(group)
            if problems:
                errors.append(field.invalid(path.child("apiVersion"), group, ",".join(problems)))
        if not version:
            errors.append(field.invalid(path.child("apiVersion"), api_version, "version must be specified"))
        else:
            problems = is_dns1035_label(version)
            if problems:
                errors.append(field.invalid(path.child("apiVersion"), version, ",".join(problems)))
    else:
        errors.append(field.invalid(path.child("apiVersion"), api_version, "version must be specified"))
    name = kind.get("kind") or ""
    if not name:
        errors.append(field.required(path.child("kind"), ""))
    else:
        problems = is_dns1035_label(name.lower())
        if problems:
            errors.append(
                field.invalid(
                    path.child("kind"), name, "may have mixed case, but should otherwise match: " + ",".join(problems)
                )
            )
    return errors


def _validation(validation: Mapping[str, Any], declarations: Declarations, path: Path) -> list[FieldError]:
    """validateValidation."""
    errors: list[FieldError] = []
    expression = validation.get("expression") or ""
    message = validation.get("message") or ""
    message_expression = validation.get("messageExpression") or ""
    if not expression.strip():
        errors.append(field.required(path.child("expression"), "expression is not specified"))
    else:
        errors += _compiled(path.child("expression"), expression, declarations, ("bool",))
    if message_expression and not message_expression.strip():
        errors.append(
            field.invalid(path.child("messageExpression"), message_expression, "must be non-empty if specified")
        )
    elif message_expression.strip():
        no_authorizer = Declarations(declarations.params, False, declarations.composition, declarations.variables)
        errors += _compiled(path.child("messageExpression"), message_expression, no_authorizer, ("string",))
    if message and not message.strip():
        errors.append(field.invalid(path.child("message"), message, "message must be non-empty if specified"))
    elif _NEWLINES.search(message.strip()):
        errors.append(field.invalid(path.child("message"), message, "message must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in _REASONS:
        errors.append(field.not_supported(path.child("reason"), reason, _REASONS))
    return errors


def _audit_annotation(
    annotation: Mapping[str, Any], declarations: Declarations, path: Path, policy: str
) -> list[FieldError]:
    """validateAuditAnnotation."""
    errors: list[FieldError] = []
    key = annotation.get("key", "")
    if policy:
        for message in is_qualified_name(f"{policy}/{key}"):
            errors.append(field.invalid(path.child("key"), f"{policy}/{key}", message))
    else:
        errors.append(field.invalid(path.child("key"), key, "requires metadata.name be non-empty"))
    value = annotation.get("valueExpression") or ""
    trimmed = value.strip()
    if not trimmed:
        errors.append(field.required(path.child("valueExpression"), "valueExpression is not specified"))
    elif len(trimmed.encode()) > MAX_VALUE_EXPRESSION_LENGTH:
        errors.append(
            field.required(
                path.child("valueExpression"), f"must not exceed {MAX_VALUE_EXPRESSION_LENGTH} bytes in length"
            )
        )
    else:
        problem = compile_problem(trimmed, declarations, ("string", "null_type"))
        if problem:
            errors.append(field.invalid(path.child("valueExpression"), value, problem))
    return errors


def policy(obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[FieldError]:
    """ValidateValidatingAdmissionPolicy (and ...Update with `old`)."""
    name = (obj.get("metadata") or {}).get("name") or ""
    old_spec = (old.get("spec") or {}) if old is not None else None
    return _meta(obj, old) + policy_spec(obj.get("spec") or {}, Path.root("spec"), name, old_spec)


def policy_status(obj: Mapping[str, Any]) -> list[FieldError]:
    """ValidateValidatingAdmissionPolicyStatusUpdate: expression warnings and conditions."""
    from kgen.serve import jsonpath

    errors: list[FieldError] = []
    status = obj.get("status") or {}
    path = Path.root("status")
    warnings = (status.get("typeChecking") or {}).get("expressionWarnings") or []
    for i, warning in enumerate(warnings):
        here = path.child("typeChecking", "expressionWarnings").index(i)
        if not warning.get("warning"):
            errors.append(field.required(here.child("warning"), ""))
        reference = (warning.get("fieldRef") or "").strip()
        if not reference:
            errors.append(field.required(here.child("fieldRef"), ""))
        else:
            try:  # client-go's parser reads a leading name as a field (`spec.x` is `.spec.x`)
                jsonpath.parse("{" + ("" if reference.startswith((".", "[", "$")) else ".") + reference + "}")
            except jsonpath.JSONPathError as error:
                errors.append(field.invalid(here.child("fieldRef"), reference, f"invalid JSONPath: {error}"))
    errors += _conditions(status.get("conditions") or [], path.child("conditions"))
    return errors


_CONDITION_REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
_CONDITION_STATUSES = ("False", "True", "Unknown")


def _conditions(conditions: Sequence[Mapping[str, Any]], path: Path) -> list[FieldError]:
    """metav1validation.ValidateConditions."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        here = path.index(i)
        kind = condition.get("type") or ""
        if not kind:
            errors.append(field.required(here.child("type"), "must be set"))
        for message in is_qualified_name(kind) if kind else []:
            errors.append(field.invalid(here.child("type"), kind, message))
        if kind in seen:
            errors.append(field.duplicate(here.child("type"), kind))
        seen.add(kind)
        if condition.get("status") not in _CONDITION_STATUSES:
            errors.append(field.not_supported(here.child("status"), condition.get("status") or "", _CONDITION_STATUSES))
        if (condition.get("observedGeneration") or 0) < 0:
            errors.append(field.invalid(here.child("observedGeneration"), condition.get("observedGeneration"),
                                        "must be greater than or equal to zero"))  # fmt: skip
        if not condition.get("lastTransitionTime"):
            errors.append(field.required(here.child("lastTransitionTime"), "must be set"))
        reason = condition.get("reason") or ""
        if not reason:
            errors.append(field.required(here.child("reason"), "must be set"))
        else:
            if not _CONDITION_REASON.match(reason):
                errors.append(field.invalid(here.child("reason"), reason, field.regex_error(
                    "a condition reason must start with alphabetic character, optionally followed by a string of "
                    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
                    _CONDITION_REASON.pattern, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")))  # fmt: skip
            if len(reason) > 1024:
                errors.append(field.too_long(here.child("reason"), "", 1024))
        message = condition.get("message") or ""
        if len(message) > 32768:
            errors.append(field.too_long(here.child("message"), "", 32768))
    return errors


# -- bindings ------------------------------------------------------------------------------


def _param_ref(reference: Mapping[str, Any] | None, path: Path) -> list[FieldError]:
    """validateParamRef."""
    errors: list[FieldError] = []
    if reference is None:
        return errors
    name = reference.get("name") or ""
    selector = reference.get("selector")
    if name:
        for message in is_path_segment_name(name):
            errors.append(field.invalid(path.child("name"), name, message))
        if selector is not None:
            errors.append(field.forbidden(path.child("name"), "name and selector are mutually exclusive"))
    if selector is not None:
        errors += label_selector(selector, path.child("selector"))
        if name:
            errors.append(field.forbidden(path.child("selector"), "name and selector are mutually exclusive"))
    if not name and selector is None:
        errors.append(field.required(path, "one of name or selector must be specified"))
    action = reference.get("parameterNotFoundAction")
    if not action:
        errors.append(field.required(path.child("parameterNotFoundAction"), ""))
    elif action not in ("Deny", "Allow"):
        errors.append(field.not_supported(path.child("parameterNotFoundAction"), action, ("Deny", "Allow")))
    return errors


def _validation_actions(actions: Sequence[str], path: Path) -> list[FieldError]:
    """validateValidationActions."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in _ACTIONS:
            errors.append(field.not_supported(path.index(i), action, _ACTIONS))
        if action in seen:
            errors.append(field.duplicate(path.index(i), action))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        errors.append(field.invalid(path, list(actions), "must not contain both Deny and Warn (repeating the same "
                                    "validation failure information in the API response and headers serves no purpose)"))  # fmt: skip
    if not seen:
        errors.append(field.required(path, "at least one validation action is required"))
    return errors


def binding(obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[FieldError]:
    """ValidateValidatingAdmissionPolicyBinding (an update is validated as a create)."""
    errors = _meta(obj, old)
    spec = obj.get("spec") or {}
    path = Path.root("spec")
    name = spec.get("policyName") or ""
    if not name:
        errors.append(field.required(path.child("policyName"), ""))
    else:
        for message in is_dns1123_subdomain(name):
            errors.append(field.invalid(path.child("policyName"), name, message))
    errors += _param_ref(spec.get("paramRef"), path.child("paramRef"))
    errors += match_resources(spec.get("matchResources"), path.child("matchResouces"))
    errors += _validation_actions(spec.get("validationActions") or [], path.child("validationActions"))
    return errors
