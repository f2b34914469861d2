"""Hand-written defaulting for example.kgen.dev/v1beta1 (called by generated defaulters).

v1beta1 predates plural params: old clients send only the singular `param`, new ones
`params`. As the API change guide requires for a field made plural, whichever one a
client sets fills in the other, so both kinds of client read a consistent object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generated.example.v1beta1.models import FrobberSpec


def set_defaults_FrobberSpec(obj: FrobberSpec) -> None:
    """Fill `params` from `param` (old clients) and `param` from `params` (new clients)."""
    if not obj.params and obj.param:
        obj.params = [obj.param]
    elif obj.params and not obj.param:
        obj.param = obj.params[0]
