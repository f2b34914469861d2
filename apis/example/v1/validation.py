"""Hand-written validation of example.kgen.dev/v1: the rules markers cannot say.

The generated `validation.py` calls `validate_<Type>(obj, path)` after the declarative
checks of that type, and `validate_<Type>_update(new, old, path)` on update; both return
field errors (or nothing). The admission webhook (generated `webhook.py`) also reads
`warnings_<Kind>(obj)` and `warnings_<Kind>_update(new, old)`: warnings for allowed requests.
"""

from __future__ import annotations

from kgen.runtime import validation as v


def validate_FrobberSpec(obj, path):
    """Vigorous frobbing is limited to ten workers: more shake the widget apart."""
    if obj.mode == "Vigorous" and obj.replicas is not None and obj.replicas > 10:
        return [
            v.invalid(
                v.child(path, "replicas"),
                obj.replicas,
                "must be less than or equal to 10 when `mode` is 'Vigorous'",
                "validate_FrobberSpec",
            )
        ]
    return []


def validate_Frobber_update(new, old, path):
    """A Frobber with ready workers may not lower its priority: others would preempt them."""
    if old.status.ready_replicas > 0 and new.spec.priority < old.spec.priority:
        return [
            v.forbidden(
                v.child(path, "spec", "priority"),
                f"may not be lowered while workers are ready (was {old.spec.priority})",
                "validate_Frobber_update",
            )
        ]
    return []


def warnings_Frobber(obj):
    """Admission warnings (the API server's WarningsOnCreate): allowed, but unwise."""
    interval = obj.spec.interval
    if interval is not None and 0 < interval.total_seconds() < 60:
        return [f"spec.interval: frobbing every {interval.total_seconds():g}s wears the widgets out; 1m or more is kinder"]
    return []


def warnings_Frobber_update(new, old):
    """Admission warnings on update (WarningsOnUpdate): those of the new object."""
    return warnings_Frobber(new)
