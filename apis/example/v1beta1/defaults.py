"""Hand-written defaulting for example.kgen.dev/v1beta1 (called by generated defaulters).

v1beta1 predates plural params: old clients send only the singular `param`. As the API
change guide requires for a field made plural, a singular value alone fills in the
plural. The reverse (`param` from `params`) happens when v1beta1 is served from the
internal version, not here: defaulting runs on patched objects too, and re-filling the
singular from the plural would undo an old client clearing it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generated.example.v1beta1.models import FrobberSpec


def set_defaults_FrobberSpec(obj: FrobberSpec) -> None:
    """Old clients set only `param`: fill `params` from it."""
    if not obj.params and obj.param:
        obj.params = [obj.param]
