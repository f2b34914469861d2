"""The conversion generator (counterpart of conversion-gen), hub and spoke.

Every versioned package converts to and from its group's internal version; versions
never convert to each other directly. For each struct that both have (same name),
`auto_convert_<a>_<T>_to_<b>_<T>(src, dst, scope)` fills `dst` from `src` field by field,
matching fields by Go name (their Go path, so promoted fields of embedded structs match
too). Identical shapes convert automatically: shared immutable values, deep copies of
types both versions share (metav1.ObjectMeta), nested conversions, element-wise slices
and maps. Anything else needs a hand-written `convert_<a>_<T>_to_<b>_<T>(src, dst,
scope)` in the versioned package's `conversion.py`, which may call the `auto_` function
for the rest; a missing hook is an error that names the fields and prints the function
to write. TypeMeta is not converted: each object carries its own version's apiVersion.

Markers: `+k8s:conversion-gen=<internal import path>` (package) picks the hub;
`+k8s:conversion-gen=false` (package, type or field) opts out; `+k8s:conversion-fn=drop`
on a field drops it without a hook.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgen.diagnostics import Diagnostics, Position
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import (
    ModuleContext,
    package_file,
    package_sources,
    per_universe,
    py_string,
    underlying,
)
from kgen.hooks import check_arity
from kgen.ir.model import Field, Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, render_python

NAME = "conversion"
INTERNAL = "internal"


@dataclass
class Direction:
    """One direction of one type pair."""

    source: TypeDef
    target: TypeDef
    source_version: str
    target_version: str
    assignments: list[tuple[str, str]] = field(default_factory=list)  # (target attribute, expression)
    missing: list[str] = field(default_factory=list)
    """Source fields with no counterpart in the target."""
    mismatched: list[str] = field(default_factory=list)
    """Fields whose types do not convert by themselves."""

    @property
    def problems(self) -> list[str]:
        out = []
        if self.missing:
            out.append(f"fields with no counterpart in {self.target_version}: {', '.join(self.missing)}")
        if self.mismatched:
            out.append(f"fields whose types differ: {', '.join(self.mismatched)}")
        return out

    @property
    def hook_name(self) -> str:
        return f"convert_{self.source_version}_{self.source.python_name}_to_{self.target_version}_{self.target.python_name}"

    @property
    def auto_name(self) -> str:
        return "auto_" + self.hook_name

    @property
    def new_name(self) -> str:
        verb = "to_internal" if self.target_version == INTERNAL else "from_internal"
        return f"{verb}_{self.source.python_name}"


@dataclass
class Pair:
    external: Package
    internal: Package
    types: list[tuple[TypeDef, TypeDef]]


def hub_of(universe: Universe, package: Package) -> Package | None:
    """The internal package a versioned package converts through, if any."""
    if package.internal or not package.generate or package.builtin:
        return None
    marker = package.marker("k8s:conversion-gen")
    if marker is not None and marker.value == "false":
        return None
    if marker is not None:
        try:
            hub = universe.package(marker.value)
        except KeyError:
            return None
        return hub if hub.internal else None
    candidates = [p for p in universe.generated_packages if p.internal and p.group == package.group]
    return candidates[0] if len(candidates) == 1 else None


@per_universe
def pairs(universe: Universe) -> list[Pair]:
    """Every versioned package with its hub and the types they share (computed once per universe)."""
    return _find_pairs(universe)


def _find_pairs(universe: Universe) -> list[Pair]:
    found = []
    for package in universe.generated_packages:
        hub = hub_of(universe, package)
        if hub is None:
            continue
        types = []
        for typedef in package.types:
            peer = hub.type(typedef.name)
            if typedef.kind != "struct" or peer is None or peer.kind != "struct":
                continue
            if any(m.name == "k8s:conversion-gen" and m.value == "false" for m in typedef.markers + peer.markers):
                continue
            types.append((typedef, peer))
        if types:
            found.append(Pair(package, hub, types))
    return found


class _Planner:
    """Works out how each field converts, within one versioned package's module."""

    def __init__(self, universe: Universe, pair: Pair, context: ModuleContext):
        self.universe = universe
        self.pair = pair
        self.context = context
        self.version = pair.external.version
        self.peers = {(e.package, e.name): i for e, i in pair.types} | {(i.package, i.name): e for e, i in pair.types}

    def directions(self) -> list[Direction]:
        out = []
        for external, internal in self.pair.types:
            out.append(self._direction(external, internal, self.version, INTERNAL))
            out.append(self._direction(internal, external, INTERNAL, self.version))
        return out

    def _direction(self, source: TypeDef, target: TypeDef, source_version: str, target_version: str) -> Direction:
        direction = Direction(source, target, source_version, target_version)
        by_path = {f.go_path: f for f in target.fields}
        for src_field in source.fields:
            if src_field.go_path[:1] == ("TypeMeta",):
                continue
            if _skipped(src_field):
                continue
            dst_field = by_path.get(src_field.go_path)
            if dst_field is None or _skipped(dst_field):
                direction.missing.append(f"{'.'.join(src_field.go_path)} ({src_field.json_name})")
                continue
            expression = self.expression(src_field.type, dst_field.type, f"src.{src_field.python_name}", 0)
            if expression is None:
                direction.mismatched.append(
                    f"{'.'.join(src_field.go_path)} ({src_field.type} -> {dst_field.type})"
                )
                continue
            direction.assignments.append((dst_field.python_name, expression))
        return direction

    def expression(self, source: TypeRef, target: TypeRef, var: str, depth: int) -> str | None:
        """Python that converts `var` of type `source` into a value of type `target`, or None."""
        src, dst = underlying(self.universe, source), underlying(self.universe, target)
        if src.kind != dst.kind:
            return None
        if src.kind == "basic":
            return var if src.basic == dst.basic else None
        if src.kind == "any":
            return f"{self.context.python_class('kgen.runtime.rawjson:copy_json')}({var})"
        if src.kind in ("pointer", "slice", "map"):
            if src.kind == "map" and not (self._stringish(src.key) and self._stringish(dst.key)):
                return None
            item = f"item{depth}"
            inner = self.expression(src.elem, dst.elem, item if src.kind != "pointer" else var, depth + 1)
            if inner is None:
                return None
            if src.kind == "pointer":
                return inner if inner == var else f"None if {var} is None else {inner}"
            if inner == item:
                return f"None if {var} is None else {var}.copy()"
            if src.kind == "slice":
                return f"None if {var} is None else [{inner} for {item} in {var}]"
            key = f"key{depth}"
            return f"None if {var} is None else {{{key}: {inner} for {key}, {item} in {var}.items()}}"
        source_def, target_def = self.universe.resolve(src), self.universe.resolve(dst)
        if source_def.kind == "python" or target_def.kind == "python":
            if source_def.python_class != target_def.python_class:
                return None
            if not source_def.mutable:
                return var
            return f"None if {var} is None else {var}.deep_copy()"
        if (source_def.package, source_def.name) == (target_def.package, target_def.name):
            target_package = self.universe.package(source_def.package)
            copy = self.context.package_name(target_package, "deepcopy", f"deep_copy_{source_def.python_name}")
            return f"{copy}({var})"
        if self.peers.get((source_def.package, source_def.name)) is target_def:
            verb = "to_internal" if target_def.package == self.pair.internal.import_path else "from_internal"
            return f"{verb}_{source_def.python_name}({var}, scope)"
        return None

    def _stringish(self, ref: TypeRef) -> bool:
        base = underlying(self.universe, ref)
        return base.kind == "basic" and base.basic == "string"


def _skipped(field: Field) -> bool:
    return any(
        (m.name == "k8s:conversion-gen" and m.value == "false") or (m.name == "k8s:conversion-fn" and m.value == "drop")
        for m in field.markers
    )



def _plan(universe: Universe, pair: Pair) -> tuple[ModuleContext, list[Direction]]:
    context = ModuleContext(universe, pair.external, NAME)
    return context, _Planner(universe, pair, context).directions()


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Every direction that cannot be converted automatically needs its hook, with 3 parameters."""
    for pair in pairs(universe):
        _, directions = _plan(universe, pair)
        hooks_file = _hooks_file(pair.external)
        for direction in directions:
            hook = pair.external.hook("conversion", direction.hook_name)
            if hook is not None:
                check_arity(hook, 3, f"{direction.hook_name}(src, dst, scope)", diagnostics)
                continue
            if not direction.problems:
                continue
            anchor = direction.source if direction.source_version != INTERNAL else direction.target
            diagnostics.error(
                Position.parse(anchor.position),
                f"converting {direction.source_version} {direction.source.name} to {direction.target_version} "
                f"{direction.target.name} needs a hand-written hook: "
                + "; ".join(direction.problems)
                + f". Write in {hooks_file}:\n\n"
                + _signature_example(pair, direction),
            )


def _hooks_file(package: Package) -> str:
    directory = package.files[0].rsplit("/", 1)[0] if package.files and "/" in package.files[0] else "."
    return f"{directory}/conversion.py"


def _signature_example(pair: Pair, direction: Direction) -> str:
    lines = [
        f"def {direction.hook_name}(src, dst, scope):",
        f"    {direction.auto_name}(src, dst, scope)  # from the generated conversion module",
    ]
    lines += [f"    # {name}: no counterpart in {direction.target_version}" for name in direction.missing]
    lines += [f"    # {name}: convert by hand" for name in direction.mismatched]
    return "\n".join(lines) + "\n"


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A conversion module for every versioned package that has an internal version."""
    return [_file(universe, pair) for pair in pairs(universe)]


def has_module(universe: Universe, package: Package) -> bool:
    return any(pair.external.import_path == package.import_path for pair in pairs(universe))


@dataclass(frozen=True)
class FunctionView:
    direction: Direction
    hooked: bool
    target_class: str
    source_class: str

    @property
    def assigned(self) -> str:
        """The attributes the auto function assigns, as a Python tuple."""
        names = [py_string(attribute) for attribute, _ in self.direction.assignments]
        return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _file(universe: Universe, pair: Pair) -> GeneratedFile:
    context, directions = _plan(universe, pair)
    internal_models = context.package_module(pair.internal, "models")
    hooked = {d.hook_name for d in directions if pair.external.hook("conversion", d.hook_name)}
    hooks_module = pair.external.hooks_module if hooked else None
    views = []
    for direction in directions:
        internal_side = direction.target if direction.target_version == INTERNAL else direction.source
        external_side = direction.source if direction.target_version == INTERNAL else direction.target
        internal_ref = f"{internal_models}.{internal_side.python_name}"
        views.append(
            FunctionView(
                direction,
                direction.hook_name in hooked,
                target_class=internal_ref if direction.target_version == INTERNAL else external_side.python_name,
                source_class=external_side.python_name if direction.target_version == INTERNAL else internal_ref,
            )
        )
    roots = [(e.python_name, f"{internal_models}.{i.python_name}") for e, i in pair.types if e.is_kind or e.is_list]
    values = mark_set = None
    if any(d.assignments for d in directions):
        values, mark_set = context.runtime("values"), context.runtime("mark_set")
    scope = context.python_class("kgen.runtime.conversion:Scope")
    default_scope = context.python_class("kgen.runtime.conversion:DEFAULT_SCOPE")
    sources = package_sources(pair.external, *(["conversion.py"] if hooks_module else []))
    path = package_file(pair.external, "conversion.py")
    return render_python(
        "conversion/conversion.py.j2",
        path,
        NAME,
        sources,
        package=pair.external,
        internal=pair.internal,
        imports=context.import_lines(),
        classes=sorted({e.python_name for e, _ in pair.types}),
        functions=views,
        roots=roots,
        hooks_module=hooks_module,
        scope=scope,
        default_scope=default_scope,
        values=values,
        mark_set=mark_set,
        py_string=py_string,
        docstring=docstring,
    )
