"""How an optional or required field serializes: whether it must be a pointer and carry
`omitempty` or `omitzero`, decided from whether its zero value passes its validation (the
check `optionalfields` and `requiredfields` share, as kube-api-linter's serialization check).

Policies: pointers `SuggestFix` | `Warn`, preference `Always` | `WhenRequired`; omitempty
`SuggestFix` | `Warn` | `Ignore`; omitzero `SuggestFix` | `Warn` | `Forbid`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgen.findings import Fix
from kgen.lint.engine import Context, fix, replace
from kgen.lint.model import LintField
from kgen.lint.typeinfo import (
    ZeroValues,
    has_explicit_zero_minimum,
    is_pointer_type,
    is_struct_type,
    strip_pointer,
    type_marker_value,
    validation_hint,
    zero_value_text,
)


@dataclass(frozen=True)
class Policies:
    pointer_policy: str = "SuggestFix"
    pointer_preference: str = "Always"
    omitempty: str = "SuggestFix"
    omitzero: str = "SuggestFix"


class SerializationCheck:
    """One field's check, reporting through the rule's context."""

    def __init__(self, ctx: Context, policies: Policies):
        self.ctx = ctx
        self.p = policies

    def check(self, f: LintField) -> None:
        world = self.ctx.world
        zero = ZeroValues(world, self.p.omitzero != "Forbid")
        valid, complete = zero.of_field(f)
        for where, problem in zero.problems:
            self.ctx.report_field(where, problem)
        is_pointer, under = strip_pointer(f.type)
        is_struct = is_struct_type(world, f.file, f.type)
        if is_struct:
            declared = type_marker_value(world, f)
            if declared not in ("", "object"):
                is_struct = False
        if self.p.pointer_preference == "Always":
            self._should_be_pointer(f, is_pointer, under, "should be a pointer.")
            self._should_have_omitempty(f)
            return
        self._omitzero(f, valid, is_pointer, is_struct, under)
        if self.p.omitempty != "Ignore" or f.tag.omitempty:
            self._with_omitempty(f, f.tag.omitempty, valid, complete, is_pointer, is_struct, under)
        else:
            self._without_omitempty(f, valid, complete, is_pointer, is_struct, under)

    # -- the cases ----------------------------------------------------------------------

    def _omitzero(self, f: LintField, valid: bool, is_pointer: bool, is_struct: bool, under) -> None:
        if self.p.omitzero == "Forbid":
            if is_struct and f.tag.omitzero:
                self._report_remove_omitzero(f)
            return
        if not is_struct or valid:
            return
        if not f.tag.omitzero:
            self._report_add_option(
                f, self.p.omitzero, "omitzero", f"field {f.qualified_name} does not allow the zero value. It must have the omitzero tag."
            )  # fmt: skip
        self._should_not_be_pointer(
            f, is_pointer, under, f"field {f.qualified_name} does not allow the zero value. The field does not need to be a pointer."
        )  # fmt: skip

    def _with_omitempty(self, f: LintField, has_omitempty: bool, valid: bool, complete: bool, is_pointer: bool,
                        is_struct: bool, under) -> None:  # fmt: skip
        world = self.ctx.world
        if is_struct and not valid and self.p.omitzero != "Forbid":
            return  # omitzero omits it; no pointer needed
        if valid and not complete:
            zero = zero_value_text(world, f.file, under)
            hint = validation_hint(world, f.file, under)
            self._should_be_pointer(
                f, is_pointer, under,
                f"has a valid zero value ({zero}), but the validation is not complete (e.g. {hint}). The field should "
                "be a pointer to allow the zero value to be set. If the zero value is not a valid use case, complete "
                "the validation and remove the pointer.",
            )  # fmt: skip
        elif valid or is_struct:
            zero = zero_value_text(world, f.file, under)
            self._should_be_pointer(f, is_pointer, under, f"has a valid zero value ({zero}) and should be a pointer.")
        elif not valid and complete and not is_struct:
            self._should_not_be_pointer(
                f, is_pointer, under,
                f"field {f.qualified_name} does not allow the zero value. The field does not need to be a pointer.",
            )  # fmt: skip
        if not has_omitempty:
            self._report_add_option(
                f, self.p.omitempty, "omitempty", f"field {f.qualified_name} should have the omitempty tag."
            )

    def _without_omitempty(self, f: LintField, valid: bool, complete: bool, is_pointer: bool, is_struct: bool,
                           under) -> None:  # fmt: skip
        if valid:
            self._should_not_be_pointer(
                f, is_pointer, under,
                f"field {f.qualified_name} does not have omitempty and allows the zero value. The field does not need "
                "to be a pointer.",
            )  # fmt: skip
            return
        if self.p.omitzero == "Forbid" or not is_struct:
            self._report_add_option(
                f, "SuggestFix", "omitempty", f"field {f.qualified_name} does not allow the zero value. It must have the omitempty tag."
            )  # fmt: skip
        self._with_omitempty(f, True, valid, complete, is_pointer, is_struct, under)

    def _should_have_omitempty(self, f: LintField) -> None:
        if not f.tag.omitempty:
            self._report_add_option(
                f, self.p.omitempty, "omitempty", f"field {f.qualified_name} should have the omitempty tag."
            )

    def _should_be_pointer(self, f: LintField, is_pointer: bool, under, reason: str) -> None:
        world = self.ctx.world
        if is_pointer_type(world, f.file, under):
            if is_pointer:
                if has_explicit_zero_minimum(world, f, under):
                    return
                self._report_remove_pointer(
                    f, f"field {f.qualified_name} underlying type does not need to be a pointer. The pointer should be removed."
                )  # fmt: skip
            elif self.p.pointer_preference == "Always" and has_explicit_zero_minimum(world, f, under):
                self._report_add_pointer(
                    f, "with MinItems=0/MinProperties=0, underlying type should be a pointer to distinguish nil (unset) from empty."
                )  # fmt: skip
            return
        if not is_pointer:
            self._report_add_pointer(f, reason)

    def _should_not_be_pointer(self, f: LintField, is_pointer: bool, under, message: str) -> None:
        if not is_pointer or has_explicit_zero_minimum(self.ctx.world, f, under):
            return
        self._report_remove_pointer(f, message)

    # -- reports and fixes --------------------------------------------------------------

    def _pointer_fix(self, f: LintField, add: bool) -> Fix | None:
        if self.p.pointer_policy != "SuggestFix":
            return None
        start = f.file.offset(f.type.position.line, f.type.position.col)
        if add:
            return fix("should make the field a pointer", replace(f.file, start, start, "*"))
        return fix("should remove the pointer", replace(f.file, start, start + 1, ""))

    def _report_add_pointer(self, f: LintField, reason: str) -> None:
        self.ctx.report_field(f, f"field {f.qualified_name} {reason}", self._pointer_fix(f, add=True))

    def _report_remove_pointer(self, f: LintField, message: str) -> None:
        self.ctx.report_field(f, message, self._pointer_fix(f, add=False))

    def _report_add_option(self, f: LintField, policy: str, option: str, message: str) -> None:
        if policy in ("Ignore", "Forbid"):
            return
        edit_fix = None
        if policy == "SuggestFix" and f.tag.start >= 0:
            at = f.tag.start + len(f.tag.name.encode())
            edit_fix = fix(
                f"should add '{option}' to the field tag for field {f.qualified_name}", replace(f.file, at, at, f",{option}")
            )  # fmt: skip
        self.ctx.report_field(f, message, edit_fix)

    def _report_remove_omitzero(self, f: LintField) -> None:
        edit_fix = None
        index = f.tag.raw.find(",omitzero")
        if f.tag.start >= 0 and index >= 0:
            at = f.tag.start + len(f.tag.raw[:index].encode())
            edit_fix = fix("should remove the omitzero tag", replace(f.file, at, at + len(",omitzero"), ""))
        self.ctx.report_field(
            f, f"field {f.qualified_name} has the omitzero tag, but by policy is not allowed. The omitzero tag should be removed.",
            edit_fix,
        )  # fmt: skip
