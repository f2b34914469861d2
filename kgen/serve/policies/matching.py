"""Which requests a policy or binding applies to: its `MatchResources`.

As k8s.io/apiserver's admission/plugin/policy/matching (matching.go) and the webhook
predicates it uses (predicates/rules, predicates/namespace, predicates/object):

- the namespace selector, on the labels of the request's namespace (of the namespace itself
  when the request creates or updates one); a cluster-scoped object other than a namespace
  always matches it;
- the object selector, on the labels of the new or the old object;
- exclude rules, then resource rules (none: every request), each by scope, operation, API
  group, version and resource (`*`, `pods/status`, `*/*`, `*/scale`), and resource names;
- with `matchPolicy: Equivalent`, a request also matches a rule through another version of
  the same resource; it is then evaluated as that version's (the object converted to it).

A namespace selector of a request whose namespace does not exist is a configuration error
of the policy (`namespaces "x" not found`), as upstream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgen.runtime.errors import APIError
from kgen.runtime.scheme import GroupVersionKind, GroupVersionResource
from kgen.runtime.store.selectors import LabelSelector, Requirement

NAMESPACES = ("", "v1", "namespaces")


@dataclass
class Request:
    """What matching sees of a request (admission.Attributes)."""

    operation: str
    resource: GroupVersionResource
    subresource: str
    kind: GroupVersionKind
    name: str
    namespace: str
    object: dict[str, Any] | None
    old_object: dict[str, Any] | None
    equivalents: Callable[[], Sequence[tuple[GroupVersionResource, GroupVersionKind]]]
    """The other versions of the resource (and subresource) and the kind each serves."""
    namespace_labels: Callable[[str], Mapping[str, str] | None]
    """The labels of a namespace; raises the 404 when there is none."""


class ConfigurationError(Exception):
    """A policy or binding that cannot be matched (a selector that does not parse)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def selector(selector: Mapping[str, Any] | None) -> LabelSelector | None:
    """A metav1.LabelSelector as a selector (LabelSelectorAsSelector); None selects nothing."""
    if selector is None:
        return None
    requirements: list[Requirement] = []
    for key, value in sorted((selector.get("matchLabels") or {}).items()):
        requirements.append(Requirement(key, "=", (value,)))
    operators = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}
    for expression in selector.get("matchExpressions") or []:
        operator = operators.get(expression.get("operator", ""))
        if operator is None:
            raise ConfigurationError(f'"{expression.get("operator", "")}" is not a valid label selector operator')
        values = tuple(sorted(set(expression.get("values") or [])))
        requirements.append(Requirement(expression.get("key", ""), operator, values))
    return LabelSelector(tuple(requirements))


def _labels(obj: Mapping[str, Any] | None) -> Mapping[str, str] | None:
    if obj is None:
        return None
    return (obj.get("metadata") or {}).get("labels") or {}


def _selects_everything(given: Mapping[str, Any] | None) -> bool:
    return given is not None and not given.get("matchLabels") and not given.get("matchExpressions")


def _namespace_matches(constraints: Mapping[str, Any], request: Request) -> bool:
    if not request.namespace and request.resource.resource != "namespaces":
        return True  # a cluster-scoped object other than a namespace: never exempted
    if _selects_everything(constraints.get("namespaceSelector")):
        return True
    chosen = selector(constraints.get("namespaceSelector"))
    if chosen is None or chosen.empty:
        return True
    if (
        request.resource.resource == "namespaces"
        and not request.subresource
        and request.operation in ("CREATE", "UPDATE")
    ):
        labels = _labels(request.object) or {}
    else:
        labels = request.namespace_labels(request.namespace) or {}
    return chosen.matches(labels)


def _object_matches(constraints: Mapping[str, Any], request: Request) -> bool:
    if _selects_everything(constraints.get("objectSelector")):
        return True
    chosen = selector(constraints.get("objectSelector"))
    if chosen is None or chosen.empty:
        return True
    return any(
        labels is not None and chosen.matches(labels)
        for labels in (_labels(request.object), _labels(request.old_object))
    )


def _any(items: Sequence[str], wanted: str) -> bool:
    return any(item == "*" or item == wanted for item in items)


def rule_matches(rule: Mapping[str, Any], request: Request, resource: GroupVersionResource) -> bool:
    """Whether a rule (with operations) matches the request, seen as a request of `resource`."""
    if not _any(rule.get("apiGroups") or (), resource.group):
        return False  # the cheapest question that tells most rules apart first
    scope = rule.get("scope") or "*"
    if scope == "Namespaced" and (resource == GroupVersionResource(*NAMESPACES) or not request.namespace):
        return False
    if scope == "Cluster" and not (resource == GroupVersionResource(*NAMESPACES) or not request.namespace):
        return False
    if scope not in ("*", "Namespaced", "Cluster"):
        return False
    if not any(operation in ("*", request.operation) for operation in rule.get("operations") or []):
        return False
    if not _any(rule.get("apiGroups") or [], resource.group) or not _any(
        rule.get("apiVersions") or [], resource.version
    ):
        return False
    for entry in rule.get("resources") or []:
        name, _, sub = entry.partition("/")  # "pods": the resource only, "pods/*": its subresources
        if name in ("*", resource.resource) and sub in ("*", request.subresource):
            return True
    return False


def _named(rule: Mapping[str, Any], request: Request) -> bool:
    names = rule.get("resourceNames") or []
    return not names or request.name in names


def _rules_match(
    rules: Sequence[Mapping[str, Any]], match_policy: str | None, request: Request
) -> tuple[GroupVersionResource, GroupVersionKind] | None:
    """The resource and kind the request matches the rules as, or None (matchesResourceRules)."""
    for rule in rules:
        if rule_matches(rule, request, request.resource):
            if _named(rule, request):
                return request.resource, request.kind
    if match_policy in (None, "Exact"):
        return None
    equivalents = request.equivalents()
    for rule in rules:
        for resource, kind in equivalents:
            if resource == request.resource:
                continue
            if rule_matches(rule, request, resource) and _named(rule, request):
                return resource, kind
    return None


def matches(constraints: Mapping[str, Any], request: Request) -> tuple[GroupVersionResource, GroupVersionKind] | None:
    """The resource and kind a request matches `MatchResources` as, or None when it does not
    match. Raises `ConfigurationError` for a selector that cannot be read or a namespace that
    does not exist (only when the rules match: a policy that does not apply fails nothing)."""
    problem: str | None = None
    try:
        if not _namespace_matches(constraints, request):
            return None
    except (ConfigurationError, APIError) as error:
        problem = error.message
    try:
        if not _object_matches(constraints, request):
            return None
    except ConfigurationError as error:
        problem = problem or error.message
    policy = constraints.get("matchPolicy")
    if _rules_match(constraints.get("excludeResourceRules") or [], policy, request) is not None:
        return None
    rules = constraints.get("resourceRules") or []
    matched = _rules_match(rules, policy, request) if rules else (request.resource, request.kind)
    if matched is None:
        return None
    if problem is not None:
        raise ConfigurationError(problem)
    return matched


def namespace_not_found(name: str) -> APIError:
    """The 404 of a namespace a selector needs and that does not exist."""
    return APIError(404, "NotFound", f'namespaces "{name}" not found', details={"name": name, "kind": "namespaces"})
