"""Feature gates of the example API and the rule for the fields behind them.

Shared by the hand-written conversion hooks of every version.
"""

from __future__ import annotations

from typing import Any

from kgen.runtime.conversion import Scope

#: Alpha: `spec.turbo` is honoured only when this gate is on.
FROBBER_TURBO = "FrobberTurbo"


def drop_disabled_fields(spec: Any, old_spec: Any, scope: Scope) -> None:
    """Drop `turbo` when its gate is off, unless the stored object already uses it.

    The API change guide's rule for a feature-gated field: clearing it on create while
    the gate is off, but keeping it on update when it was already set, so that turning
    a gate off never breaks an existing object.
    """
    if scope.enabled(FROBBER_TURBO):
        return
    if old_spec is not None and old_spec.turbo is not None:
        return
    spec.turbo = None
