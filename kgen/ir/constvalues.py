"""The IR builder's constants part: constant values and types evaluated as Go evaluates them,
and the enum values of a type."""

from __future__ import annotations

from kgen.ir import names
from kgen.ir.common import _BASIC, _SourceInfo, _comment_doc, _pos, _with_value
from kgen.ir.model import EnumValue
from kgen.markers.registry import Scope
from kgen.source import constexpr
from kgen.source.syntax import GoFile


class ConstantValues:
    """A part of the IR builder (`kgen.ir.build._Builder`); its state lives there."""

    def enum_values(self, info: _SourceInfo, type_name: str) -> tuple[EnumValue, ...]:
        consts = []
        package = info.source.import_path
        for c, _ in info.consts:
            if self.const_type(package, c.name) != (package, type_name):
                continue
            value = self.const_value(package, c.name)
            if value is None:
                continue
            markers = self.parse_markers((c.doc,), Scope.CONSTANT)
            if any(m.name == "k8s:enumExclude" and m.value is not False for m in markers):
                continue  # never an allowed value: not a member at all
            excluded_when = tuple(
                (m.args.get("", ""), m.name == "k8s:ifEnabled")
                for m in markers
                if m.name in ("k8s:ifEnabled", "k8s:ifDisabled") and m.value.name == "k8s:enumExclude"
            )
            consts.append((_with_value(c, value), markers, excluded_when))
        python_names = names.enum_constants([c.name for c, _, _ in consts], type_name)
        return tuple(
            EnumValue(
                go_name=c.name, python_name=p, value=c.value, doc=_comment_doc(c.doc), markers=markers,
                excluded_when=excluded_when, position=_pos(c.position),
            )  # fmt: skip
            for (c, markers, excluded_when), p in zip(consts, python_names)
        )

    def const_value(self, package: str, name: str, visiting: frozenset = frozenset()):
        """The value of a package-level constant, evaluated with the whole package and its
        imports in view (None when it is not a constant kgen can know)."""
        key = (package, name)
        if key in self._const_values:
            return self._const_values[key]
        info = self.packages.get(package)
        entry = info.const_index.get(name) if info is not None else None
        if entry is None or key in visiting:
            return None
        decl, go_file = entry
        value = decl.value
        if value is None:
            value = constexpr.evaluate(decl.expr, lambda e: self._const_ref(package, go_file, e, visiting | {key}))
        self._const_values[key] = value
        return value

    def _const_ref(self, package: str, go_file: GoFile, expr: constexpr.ConstExpr, visiting: frozenset):
        if expr.kind == "ident":
            return self.const_value(package, expr.name, visiting)
        import_path = self.import_table(go_file).get(expr.package)
        if import_path is None:
            return None
        if (import_path, expr.name) in constexpr.STANDARD_CONSTANTS:
            return constexpr.STANDARD_CONSTANTS[(import_path, expr.name)]
        if self.ensure_package(import_path) is None:
            return None
        return self.const_value(import_path, expr.name, visiting)

    def const_type(self, package: str, name: str, visiting: frozenset = frozenset()) -> tuple[str, str] | None:
        """The named type of a constant as (package, name): as declared, as its conversion
        gives it (`T("v")`), or as the typed constant it is defined from (`A = B`)."""
        info = self.packages.get(package)
        entry = info.const_index.get(name) if info is not None else None
        if entry is None or (package, name) in visiting:
            return None
        decl, go_file = entry
        if decl.type_name is not None:
            if decl.type_name.kind == "ident":
                return (package, decl.type_name.name) if decl.type_name.name not in _BASIC else None
            if decl.type_name.kind == "qualified":
                import_path = self.import_table(go_file).get(decl.type_name.package)
                return (import_path, decl.type_name.name) if import_path else None
            return None
        expr = decl.expr
        if expr.kind == "ident":
            return self.const_type(package, expr.name, visiting | {(package, name)})
        if expr.kind == "qualified":
            import_path = self.import_table(go_file).get(expr.package)
            if import_path and self.ensure_package(import_path) is not None:
                return self.const_type(import_path, expr.name, visiting | {(package, name)})
        return None
