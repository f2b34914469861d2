"""Hand-written conversion between example.kgen.dev/v1beta1 and the internal version.

The generated conversion module calls these for the fields that do not convert by
themselves: the singular `param` that v1beta1 still serves, the field v1 renamed from
`height` to `heightInInches`, fields newer than v1beta1, and the feature-gated `turbo`.
Each hook calls the generated `auto_convert_...` for everything else.
"""

from __future__ import annotations

from apis.example.features import drop_disabled_fields
from generated.example.v1beta1 import conversion as generated


def convert_v1beta1_FrobberSpec_to_internal_FrobberSpec(src, dst, scope):
    """The plural wins when a client set it; else the singular is the only parameter."""
    generated.auto_convert_v1beta1_FrobberSpec_to_internal_FrobberSpec(src, dst, scope)
    if not src.params and src.param:
        dst.params = [src.param]
    dst.height_in_inches = src.height


def convert_internal_FrobberSpec_to_v1beta1_FrobberSpec(src, dst, scope):
    """Serve the singular as the first of the plural; heightInInches is v1beta1's height."""
    generated.auto_convert_internal_FrobberSpec_to_v1beta1_FrobberSpec(src, dst, scope)
    dst.param = src.params[0] if src.params else ""
    dst.height = src.height_in_inches
    # width, source, interval, extraArgs, config and checksum are newer than v1beta1.


def convert_internal_FrobberPort_to_v1beta1_FrobberPort(src, dst, scope):
    """targetPort is newer than v1beta1."""
    generated.auto_convert_internal_FrobberPort_to_v1beta1_FrobberPort(src, dst, scope)


def convert_internal_FrobberStatus_to_v1beta1_FrobberStatus(src, dst, scope):
    """lastFrobbed and readyReplicas are newer than v1beta1."""
    generated.auto_convert_internal_FrobberStatus_to_v1beta1_FrobberStatus(src, dst, scope)


def convert_v1beta1_Frobber_to_internal_Frobber(src, dst, scope):
    """The guide's update rule for a field made plural, and the alpha gate of turbo.

    On update, an old client knows only `param`. When it changed (or cleared) the
    singular and left the plural as stored, the singular is what it meant: the plural
    becomes just that value (or nothing).
    """
    generated.auto_convert_v1beta1_Frobber_to_internal_Frobber(src, dst, scope)
    old_spec = scope.old.spec if scope.old is not None else None
    if old_spec is not None:
        stored = list(old_spec.params or [])
        stored_singular = stored[0] if stored else ""
        if list(src.spec.params or []) == stored and src.spec.param != stored_singular:
            dst.spec.params = [src.spec.param] if src.spec.param else None
    drop_disabled_fields(dst.spec, old_spec, scope)
