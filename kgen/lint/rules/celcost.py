"""celcost: CEL rules of a CRD whose estimated cost is over the API server's budget, which
makes the API server refuse the CRD (apiextensions-apiserver's CRD validation: a rule over
the per-rule limit, or a schema whose rules together are over the per-CRD limit).

The estimate is kgen's of cel-go's (`kgen.runtime.validation.crdcost`), over the CRD
schema the CRD generator writes; unbounded lists and strings (no maxItems, maxLength,
maxProperties) are what usually drive it up.
"""

from __future__ import annotations

from kgen.diagnostics import Position
from kgen.findings import Severity
from kgen.generators import crd
from kgen.lint.engine import Context
from kgen.runtime.validation import crdcost


def check_celcost(ctx: Context) -> None:
    """Every CEL rule's estimated cost, and their total, stay within the API server's budget."""
    universe = ctx.world.universe
    if universe is None:
        return
    files = {f.path: f for p in ctx.world.linted_packages() for f in p.files}
    resources, _ = crd.resources(universe)
    warned = crd._cost_warned_rules(universe)
    for resource in resources:
        for version in resource.versions:
            if version.package.import_path not in ctx.world.linted:
                continue
            package_warns = crd._cost_mode(version.package.markers) == "warn"
            found = crdcost.problems(version.schema)
            # a rule over the limit on its own is not reported again as part of the total
            over = {p.rule for p in found if p.rule is not None and "exceeds budget" in p.message}
            for problem in found:
                if problem.rule in over and "exceeds budget" not in problem.message:
                    continue
                at = crd._rule_position(universe, version.kind, problem.rule) if problem.rule is not None else None
                where = at or _position(version.kind.position)
                lint_file = files.get(where.path) if where is not None else None
                if lint_file is None or where is None:
                    continue
                what = f" {problem.rule.part} {problem.rule.expression!r}" if problem.rule is not None else ""
                severity = Severity.WARNING if package_warns or str(at) in warned else None
                ctx.report(
                    lint_file, where.line, where.col,
                    f"CRD {resource.kind} {version.package.version}:{what} at {problem.path}: {problem.message}; the API "
                    "server rejects the CRD",
                    f"{resource.kind}.{version.package.version}.{problem.path}", severity=severity,
                )  # fmt: skip


def _position(text: str) -> Position | None:
    return Position.parse(text) if text else None
