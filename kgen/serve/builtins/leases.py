"""Leases (coordination.k8s.io/v1): what leader election and node heartbeats hold.

pkg/registry/coordination/lease/strategy.go: a PUT creates a lease that does not exist,
but an update of one that does must name its resourceVersion (AllowUnconditionalUpdate is
false: leader election relies on it); `strategy` and `preferredHolder` are dropped unless
the CoordinatedLeaderElection feature is on (or the stored lease already has them).
ValidateLease (pkg/apis/coordination/validation): the metadata, a leaseDurationSeconds
above 0, leaseTransitions of at least 0, a known strategy, and a preferredHolder only
with a strategy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgen.runtime.validation.field import FieldError, Path, forbidden, invalid, not_supported
from kgen.runtime.validation.formats import is_qualified_name
from kgen.serve.builtins import tables, types
from kgen.serve.builtins.flow import BuiltinKind
from kgen.serve.builtins.validation import object_meta, object_meta_update

GATE = "CoordinatedLeaderElection"
STRATEGIES = ("OldestEmulationVersion",)


def drop_disabled_fields(obj: dict[str, Any], old: dict[str, Any] | None, gates: Mapping[str, bool]) -> None:
    """PrepareForCreate/Update: fields of a disabled feature go, unless already in use."""
    if gates.get(GATE, False):
        return
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    old_spec = (old or {}).get("spec") or {}
    for name in ("strategy", "preferredHolder"):
        if old_spec.get(name) is None:
            spec.pop(name, None)


def _spec_errors(spec: dict[str, Any]) -> list[FieldError]:
    """ValidateLeaseSpec."""
    path = Path.root("spec")
    errors = []
    duration = spec.get("leaseDurationSeconds")
    if duration is not None and duration <= 0:
        errors.append(invalid(path.child("leaseDurationSeconds"), duration, "must be greater than 0"))
    transitions = spec.get("leaseTransitions")
    if transitions is not None and transitions < 0:
        errors.append(invalid(path.child("leaseTransitions"), transitions, "must be greater than or equal to 0"))
    strategy = spec.get("strategy")
    if strategy is not None:
        # ValidateCoordinatedLeaseStrategy names the field twice: spec.strategy.strategy.
        where = path.child("strategy", "strategy")
        if "/" not in strategy:
            if strategy not in STRATEGIES:
                errors.append(not_supported(where, strategy, STRATEGIES))
        else:
            errors += [invalid(where, strategy, message) for message in is_qualified_name(strategy)]
    if spec.get("preferredHolder") and not strategy:
        errors.append(forbidden(path.child("preferredHolder"), "may only be specified if `strategy` is defined"))
    return errors


def validate_lease(obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """ValidateLease on create, ValidateLeaseUpdate on update."""
    meta = object_meta(obj) if old is None else object_meta_update(obj, old)
    return meta + _spec_errors(obj.get("spec") or {})


LEASES = BuiltinKind(
    group="coordination.k8s.io", version="v1", kind="Lease", plural="leases", singular="lease",
    type=types.LEASE, list_type=types.list_of(types.LEASE, "v1.LeaseList", "io.k8s.api.coordination.v1.LeaseList",
                                              "A list of Leases."),
    validate=validate_lease, prepare=drop_disabled_fields, allow_create_on_update=True,
    allow_unconditional_update=False,
    columns=(
        tables.NAME,
        tables.column("Holder", lambda obj, now: (obj.get("spec") or {}).get("holderIdentity") or "",
                      "Who holds the lease."),
        tables.AGE,
    ),
)  # fmt: skip
