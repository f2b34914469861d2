"""Hand-written conversion between example.kgen.dev/v1 and the internal version.

v1 has every field the internal version has; only the feature gate needs a hand.
"""

from __future__ import annotations

from apis.example.features import drop_disabled_fields
from generated.example.v1 import conversion as generated


def convert_v1_Frobber_to_internal_Frobber(src, dst, scope):
    """Drop the alpha `turbo` when its gate is off, unless the stored object uses it."""
    generated.auto_convert_v1_Frobber_to_internal_Frobber(src, dst, scope)
    drop_disabled_fields(dst.spec, scope.old.spec if scope.old is not None else None, scope)
