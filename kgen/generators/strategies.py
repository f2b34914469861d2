"""The strategies generator: hypothesis strategies for every struct, from the IR.

Per package, `strategies.py` has one function per struct, `<type>_strategy(depth=0)`,
building the model from a strategy per field: enums draw their known values (an open
string enum also draws other text), pointers may be None, kinds carry their own
apiVersion and kind, well-known values are drawn at the precision their JSON keeps, and
nesting stops at `kgen.runtime.fuzz.MAX_DEPTH` so recursive types stay finite. Fields
with a `+default` are left unset as often as set, so defaulting is exercised. The
module imports hypothesis, a development dependency; nothing else imports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgen.generators.backends import module_context
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import (
    INT_BITS,
    ModuleContext,
    package_file,
    package_sources,
    py_string,
    underlying,
)
from kgen.ir.model import Field, Package, TypeDef, TypeRef, Universe
from kgen.ir.names import snake_case
from kgen.render import GeneratedFile, render_python

NAME = "strategies"

#: The strategy function in kgen.runtime.fuzz of each runtime value class.
PYTHON_TYPES = {
    "kgen.runtime.quantity:Quantity": "quantity",
    "kgen.runtime.intstr:IntOrString": "int_or_string",
    "kgen.runtime.timeutil:Time": "time",
    "kgen.runtime.timeutil:MicroTime": "micro_time",
    "kgen.runtime.timeutil:Duration": "duration",
    "kgen.runtime.rawjson:RawExtension": "raw_extension",
    "kgen.runtime.rawjson:FieldsV1": "fields_v1",
}


def strategy_name(python_name: str) -> str:
    """`FrobberSpec` -> `frobber_spec_strategy`."""
    return f"{snake_case(python_name)}_strategy"


@dataclass(frozen=True)
class StrategyView:
    name: str
    cls: str
    type_name: str
    fields: list[tuple[str, str]]


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A strategies module for every package with structs."""
    files = []
    for package in universe.generated_packages:
        structs = [t for t in package.types if t.kind == "struct"]
        if structs:
            files.append(_file(universe, package, structs, options.models))
    return files


def _file(universe: Universe, package: Package, structs: list[TypeDef], models: str) -> GeneratedFile:
    context = module_context(universe, package, NAME, models)
    fuzz = "_fuzz"
    context.imports[("kgen.runtime", "fuzz")] = fuzz
    context.imports[("hypothesis", "strategies")] = "st"
    views = [
        StrategyView(
            name=strategy_name(t.python_name),
            cls=t.python_name,
            type_name=t.name,
            fields=[(f.python_name, _field(context, package, t, f)) for f in t.fields],
        )
        for t in structs
    ]
    sources = package_sources(package)
    path = package_file(package, "strategies.py")
    return render_python(
        "strategies/strategies.py.j2",
        path,
        NAME,
        sources,
        package=package,
        imports=context.import_lines(),
        classes=sorted(t.python_name for t in structs),
        strategies=views,
        docstring=docstring,
    )


def _field(context: ModuleContext, package: Package, typedef: TypeDef, field: Field) -> str:
    if (typedef.is_kind or typedef.is_list) and field.go_path[:1] == ("TypeMeta",):
        if package.internal or package.builtin:
            return 'st.just("")'
        value = (
            (f"{package.group}/{package.version}" if package.group else package.version)
            if field.json_name == "apiVersion"
            else typedef.name
        )
        return f"st.just({py_string(value)})"
    strategy = _strategy(context, field.type, "depth", _field_may_be_none(context, package, typedef, field))
    if field.default is not None and field.type.kind != "pointer":
        zero = _zero(context, field)
        if zero is not None:
            strategy = f"st.just({zero}) | {strategy}"  # unset, so that defaulting has work to do
    return strategy


def _field_may_be_none(context: ModuleContext, package: Package, typedef: TypeDef, field: Field) -> bool:
    """Whether the field's model may hold None (a struct holds an omitempty slice, map or
    []byte as empty, and a value type whose zero Go writes as its zero object)."""
    return context.field_may_be_none(package, typedef, field)


def _item_may_be_none(context: ModuleContext, ref: TypeRef) -> bool:
    return context.item_may_be_none(ref)


def _zero(context: ModuleContext, field: Field) -> str | None:
    base = underlying(context.universe, field.type)
    empty = context.empty_when_omitted(field)
    if base.kind == "basic":
        return {"string": '""', "bool": "False", "bytes": 'b""' if empty else "None"}.get(base.basic, "0")
    if base.kind in ("slice", "map"):
        return ("[]" if base.kind == "slice" else "{}") if empty else "None"
    return None


def _strategy(context: ModuleContext, ref: TypeRef, depth: str, none: bool = True) -> str:
    """The strategy of a value of `ref`; None among its values only where `none` allows."""
    maybe = "st.none() | " if none else ""
    if ref.kind == "named":
        typedef = context.universe.resolve(ref)
        if typedef.kind == "named" and typedef.enum_values:
            base = underlying(context.universe, typedef.underlying)
            values = f"st.sampled_from({context.class_ref(typedef)}.values())"
            if typedef.is_enum or base.kind != "basic" or base.basic != "string":
                return values
            return f"{values} | _fuzz.text()"  # an open-ended enum: clients meet unknown values
    base = underlying(context.universe, ref)
    if base.kind == "basic":
        return _basic(base.basic, none)
    if base.kind == "any":
        return "_fuzz.json_values()"
    if base.kind == "pointer":
        inner = _strategy(context, base.elem, depth)
        return inner if inner.startswith("st.none() | ") else f"st.none() | {inner}"
    if base.kind in ("slice", "map"):
        assert base.elem is not None
        items = _strategy(context, base.elem, depth, _item_may_be_none(context, base.elem))
        return f"{maybe}_fuzz.{'lists' if base.kind == 'slice' else 'maps'}({items}, {depth})"
    typedef = context.universe.resolve(base)
    if typedef.kind == "python":
        function = PYTHON_TYPES.get(typedef.python_class or "")
        if function is None:
            return "st.none()" if none else f"st.just({context.class_ref(typedef)}())"
        return f"{maybe}_fuzz.{function}()"
    function = strategy_name(typedef.python_name)
    if typedef.package != context.package.import_path:
        function = context.package_name(context.universe.package(typedef.package), "strategies", function)
    return f"st.deferred(lambda: {function}({depth} + 1))"


def _basic(basic: str, none: bool = True) -> str:
    if basic == "string":
        return "_fuzz.text()"
    if basic == "bool":
        return "st.booleans()"
    if basic in ("float32", "float64"):
        return "_fuzz.floats()"
    if basic == "bytes":
        return "st.none() | _fuzz.binary()" if none else "_fuzz.binary()"
    bits, signed = INT_BITS[basic]
    return f"_fuzz.integers({bits}, signed={signed})"
