"""What the validation generator checks: which struct types get a check function, and
the hand-written hooks of each type."""

from __future__ import annotations


from kgen.generators.python import INT_BITS, StructPlan, structs_needing
from kgen.ir.facts import per_universe
from kgen.ir.model import Constraints, Field, Package, TypeDef, TypeRef, Universe

NAME = "validation"
HOOK_PREFIX = "validate_"
_NUMBERS = set(INT_BITS) | {"float32", "float64"}


# -- what needs checking ----------------------------------------------------------------------


def _tuple(items: list[str]) -> str:
    """A tuple display as black writes it: a trailing comma only for one item."""
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def significant(c: Constraints | None) -> bool:
    """Whether constraints check anything (`+optional` or an atomic list alone do not)."""
    if c is None:
        return False
    data = c.model_dump(exclude_defaults=True, exclude={"position"})
    if data.get("presence") == "optional":
        del data["presence"]
    if data.get("list_type") == "atomic":
        del data["list_type"]
    return bool(data)


def hooks_by_type(package: Package) -> dict[str, dict[str, object]]:
    """`validate_<Type>` and `validate_<Type>_update` hooks of a package's validation.py."""
    found: dict[str, dict[str, object]] = {}
    names = {t.python_name for t in package.types if t.kind == "struct"}
    for hook in package.hooks:
        if hook.module != "validation" or not hook.name.startswith(HOOK_PREFIX):
            continue
        rest = hook.name[len(HOOK_PREFIX) :]
        if rest in names:
            found.setdefault(rest, {})["create"] = hook
        elif rest.endswith("_update") and rest[: -len("_update")] in names:
            found.setdefault(rest[: -len("_update")], {})["update"] = hook
    return found


class _Plan(StructPlan):
    """Which struct types get a check function, across every package (built-in ones too)."""

    def __init__(self, universe: Universe):
        super().__init__(universe)
        self.hooks = {p.import_path: hooks_by_type(p) for p in universe.packages if p.generate}

    def own_needs(self, typedef: TypeDef) -> bool:
        return (
            bool(self.hooks.get(typedef.package, {}).get(typedef.python_name))
            or bool(typedef.unions)
            or significant(typedef.validation)
        )

    def field_needs(self, f: Field, visiting: frozenset = frozenset()) -> bool:
        return significant(f.validation) or self.ref_needs(f.type, visiting)

    def ref_needs(self, ref: TypeRef, visiting: frozenset = frozenset()) -> bool:
        if ref.kind in ("pointer", "slice", "map"):
            return self.ref_needs(ref.elem, visiting) or (ref.key is not None and self.ref_needs(ref.key, visiting))
        if ref.kind != "named":
            return False
        typedef = self.universe.resolve(ref)
        if typedef.kind == "struct":
            return self.struct_needs(typedef, visiting)
        if typedef.kind == "named":
            return typedef.is_enum or significant(typedef.validation) or self.ref_needs(typedef.underlying, visiting)
        return significant(typedef.validation)


_plan_for = per_universe(_Plan)


def needs(universe: Universe, typedef: TypeDef) -> bool:
    """Whether a struct type gets a check function (and, for kinds, `validate_<Kind>`)."""
    return typedef.kind == "struct" and _plan_for(universe).struct_needs(typedef)


def has_module(universe: Universe, package: Package) -> bool:
    return bool(structs_needing(package, _plan_for(universe)))
