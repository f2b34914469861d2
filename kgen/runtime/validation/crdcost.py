"""The API server's limits on the CEL rules of a CRD schema, checked before it is written.

When a CRD is created or updated, apiextensions-apiserver estimates the cost of every
`x-kubernetes-validations` rule (`celcost.estimate`, with the declaration of the schema
node the rule is on) and multiplies it by the number of times the rule can run in one
object: the product of the `maxItems` and `maxProperties` of the lists and maps above it,
or, when one of them is unbounded, as many values of the node as fit in the largest
request. A rule above `STATIC_ESTIMATED_COST_LIMIT`, or a version whose rules together
are above `STATIC_ESTIMATED_CRD_COST_LIMIT`, makes it reject the CRD; `problems` says
so with its words (pkg/apis/apiextensions/validation, validation.go and
cel_validation.go).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kgen.runtime.validation import celparse
from kgen.runtime.validation.celcost import (
    MAX,
    STATIC_ESTIMATED_COST_LIMIT,
    STATIC_ESTIMATED_CRD_COST_LIMIT,
    cost_error,
    estimate,
)
from kgen.runtime.validation.celtypes import MAX_REQUEST_SIZE_BYTES, SchemaDecl, SchemaMemo

Step = tuple[str, ...]
"""One step down a schema: ("properties", name), ("items",) or ("additionalProperties",)."""


@dataclass(frozen=True)
class RuleCost:
    """The estimated cost of one rule (or of its `messageExpression`) of a schema."""

    path: str
    """Where the API server reports it: `openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`."""
    steps: tuple[Step, ...]
    """The way down from the root to the node the rule is on."""
    index: int
    part: str
    """`rule` or `messageExpression`."""
    expression: str
    cost: int
    """The estimate; for a rule, times the number of times it can run."""


@dataclass(frozen=True)
class CostProblem:
    """Why the API server rejects a CRD schema's rules, at `path` (with `rule`, when one
    rule is the cause)."""

    path: str
    message: str
    rule: RuleCost | None = None


def _multiply(cost: int, cardinality: int) -> int:
    if cost == 0:
        return 0
    return MAX if MAX // cost < cardinality else cost * cardinality


def _child_factor(schema: Mapping[str, Any]) -> int | None:
    """How many of each child a node can hold (None: unbounded), as extractMaxElements."""
    kind = schema.get("type")
    if kind == "object" and "additionalProperties" in schema:
        return max(int(schema["maxProperties"]), 0) if "maxProperties" in schema else None
    if kind == "array":
        return max(int(schema["maxItems"]), 0) if "maxItems" in schema else None
    return 1


def _nodes(schema: Mapping[str, Any], path: str, steps: tuple[Step, ...], cardinality: int | None, root: bool
           ) -> Iterator[tuple[Mapping[str, Any], str, tuple[Step, ...], int | None, bool]]:  # fmt: skip
    yield schema, path, steps, cardinality, root
    factor = _child_factor(schema)
    below = None if cardinality is None or factor is None else _multiply(cardinality, factor)
    for name, child in (schema.get("properties") or {}).items():
        if isinstance(child, Mapping):
            yield from _nodes(child, f"{path}.properties[{name}]", steps + (("properties", name),), below, False)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _nodes(items, f"{path}.items", steps + (("items",),), below, False)
    values = schema.get("additionalProperties")
    if isinstance(values, Mapping):
        yield from _nodes(values, f"{path}.additionalProperties", steps + (("additionalProperties",),), below, False)


def rule_costs(schema: Mapping[str, Any], path: str = "openAPIV3Schema") -> list[RuleCost]:
    """The estimated cost of every rule and message expression of a CRD version's schema,
    as the API server computes them (rules it cannot read are left out: kgen reports
    those as not compiling)."""
    costs: list[RuleCost] = []
    memo: SchemaMemo = {}
    for node, where, steps, cardinality, root in _nodes(schema, path, (), 1, True):
        rules = node.get("x-kubernetes-validations")
        if not rules or not isinstance(rules, list):
            continue
        decl = SchemaDecl.of(node, root or node.get("x-kubernetes-embedded-resource") is True, memo)
        if decl is None:
            continue
        times = cardinality if cardinality is not None else MAX_REQUEST_SIZE_BYTES // (decl.min_size + 1)
        for index, rule in enumerate(rules):
            if not isinstance(rule, Mapping):
                continue
            text = rule.get("rule", "")
            optional = rule.get("optionalOldSelf") is True
            at = f"{where}.x-kubernetes-validations[{index}]"
            try:
                cost = estimate(text, decl, optional)[1]
            except celparse.CelSyntaxError:
                continue
            costs.append(RuleCost(f"{at}.rule", steps, index, "rule", text, _multiply(cost, times)))
            message = rule.get("messageExpression", "")
            if message:
                try:
                    message_cost = estimate(message, decl, optional)[1]
                except celparse.CelSyntaxError:
                    continue
                costs.append(
                    RuleCost(f"{at}.messageExpression", steps, index, "messageExpression", message, message_cost)
                )
    return costs


def problems(schema: Mapping[str, Any], path: str = "openAPIV3Schema") -> list[CostProblem]:
    """What the API server says of a CRD version's rule costs: each rule (or message
    expression) over the per-rule limit, and the total over the per-CRD limit with the
    (at most four) rules that contribute most."""
    found: list[CostProblem] = []
    total = 0
    expensive: list[RuleCost] = []
    for cost in rule_costs(schema, path):
        if cost.cost > STATIC_ESTIMATED_COST_LIMIT:
            name = "estimated rule cost" if cost.part == "rule" else "estimated messageExpression cost"
            found.append(
                CostProblem(cost.path, "Forbidden: " + cost_error(name, cost.cost, STATIC_ESTIMATED_COST_LIMIT), cost)
            )
        total = min(total + cost.cost, MAX)
        if cost.cost >= STATIC_ESTIMATED_CRD_COST_LIMIT // 100:
            expensive = sorted(expensive + [cost], key=lambda c: -c.cost)[:4]
    if total > STATIC_ESTIMATED_CRD_COST_LIMIT:
        for cost in expensive:
            found.append(CostProblem(
                cost.path, "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema", cost
            ))  # fmt: skip
        name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
        found.append(CostProblem(path, "Forbidden: " + cost_error(name, total, STATIC_ESTIMATED_CRD_COST_LIMIT)))
    return found
