"""The conversion generator (counterpart of conversion-gen), hub and spoke.

Every version of a group converts to and from its hub; versions never convert to each
other directly. The hub is, as conversion-gen and controller-runtime have it:
- the package `+k8s:conversion-gen=<import path>` names: an internal package, or a
  versioned one (cluster-api's v1beta1 converts to its v1beta2);
- else the group's internal package, when it has one;
- else, for custom resources (kubebuilder's hub and spokes), the storage version of the
  kinds (a group may store kinds in different versions: each kind converts through its own).
`+k8s:conversion-gen-external-types=<import path>` puts the types of the version in
another package: the conversions (and hooks) live in the package that has the markers.

For each struct that the version and its hub both have (same name),
`auto_convert_<a>_<T>_to_<b>_<T>(src, dst, scope)` fills `dst` from `src` field by field,
matching fields by Go name (their Go path, so promoted fields of embedded structs match
too). Identical shapes convert automatically: shared immutable values, deep copies of
types both versions share (metav1.ObjectMeta), nested conversions, element-wise slices
and maps. Anything else needs a hand-written `convert_<a>_<T>_to_<b>_<T>(src, dst,
scope)` in the package's `conversion.py`, which may call the `auto_` function for the
rest; a missing hook is an error that names the fields and prints the function to write.
Where the Go package has its hand-written counterpart (`Convert_v1beta1_X_To_v1beta2_X`),
or the hub was not asked for (kubebuilder's implicit hub), a missing hook is a warning and
the conversion raises `ConversionError` until the hook is written. TypeMeta is not
converted: each object carries its own version's apiVersion.

Markers: `+k8s:conversion-gen=<import path>` (package) picks the hub;
`+k8s:conversion-gen=false` (package, type or field) opts out; `+k8s:conversion-fn=drop`
on a field drops it without a hook.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from kgen.diagnostics import Diagnostics, Position
from kgen.generators.backends import module_context
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import (
    HOOKS_MODULE,
    ModuleContext,
    hooks_protocol,
    package_file,
    package_sources,
    py_string,
    underlying,
)
from kgen.hooks import check_arity
from kgen.ir.facts import storage
from kgen.ir.facts import per_universe
from kgen.ir.model import Field, Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, render_python

NAME = "conversion"
INTERNAL = "internal"


def label(package: Package) -> str:
    """How conversion function names call a package's version: `internal` or `v1beta1`."""
    return INTERNAL if package.internal else package.version


@dataclass
class Direction:
    """One direction of one type pair."""

    source: TypeDef
    target: TypeDef
    source_version: str
    target_version: str
    hub_label: str = INTERNAL
    source_go_package: str = ""
    target_go_package: str = ""
    assignments: list[tuple[str, str]] = field(default_factory=list)  # (target attribute, expression)
    missing: list[str] = field(default_factory=list)
    """Source fields with no counterpart in the target."""
    mismatched: list[str] = field(default_factory=list)
    """Fields whose types do not convert by themselves."""
    by_hand: bool = False
    """The type is marked `+k8s:conversion-gen=false`: its conversion is written by hand."""

    @property
    def problems(self) -> list[str]:
        out = ["its conversion is written by hand (+k8s:conversion-gen=false)"] if self.by_hand else []
        if self.missing:
            out.append(f"fields with no counterpart in {self.target_version}: {', '.join(self.missing)}")
        if self.mismatched:
            out.append(f"fields whose types differ: {', '.join(self.mismatched)}")
        return out

    @property
    def hook_name(self) -> str:
        return f"convert_{self.source_version}_{self.source.python_name}_to_{self.target_version}_{self.target.python_name}"

    @property
    def go_name(self) -> str:
        """conversion-gen's name for the same function (`Convert_v1beta1_X_To_v1beta2_X`)."""
        return f"Convert_{self.source_go_package}_{self.source.name}_To_{self.target_go_package}_{self.target.name}"

    @property
    def auto_name(self) -> str:
        return "auto_" + self.hook_name

    @property
    def new_name(self) -> str:
        """`to_<hub>_<T>` (`to_internal_Frobber`) or `from_<hub>_<T>`."""
        if self.source_version == self.hub_label:
            return f"from_{self.hub_label}_{self.target.python_name}"
        return f"to_{self.hub_label}_{self.source.python_name}"


@dataclass
class Pair:
    """A version and its hub, with the structs they share by name."""

    home: Package
    """Where the conversion module (and the hooks) live: the version's package, or the package
    that names it with +k8s:conversion-gen-external-types."""
    external: Package
    hub: Package
    types: list[tuple[TypeDef, TypeDef]]
    explicit: bool = True
    """The hub was asked for (a marker, or an internal package); False for kubebuilder's
    implicit hub (the storage version)."""
    by_hand: frozenset[str] = frozenset()
    """Names of the types marked `+k8s:conversion-gen=false` on either side."""


def _hub_by_marker(universe: Universe, package: Package) -> Package | None | bool:
    """The hub `+k8s:conversion-gen` names: a package, False when it opts out, None when unset."""
    marker = package.marker("k8s:conversion-gen")
    if marker is None:
        return None
    if str(marker.value).lower() == "false":
        return False
    try:
        return universe.package(str(marker.value))
    except KeyError:
        return False


def _internal_hub(universe: Universe, package: Package) -> Package | None:
    """The group's internal package, when it has exactly one (the hub with no marker)."""
    candidates = [p for p in universe.generated_packages if p.internal and p.group == package.group and p.role == "api"]
    return candidates[0] if len(candidates) == 1 else None


def _external_types(universe: Universe, package: Package) -> Package | None:
    marker = package.marker("k8s:conversion-gen-external-types")
    if marker is None:
        return None
    try:
        return universe.package(str(marker.value))
    except KeyError:
        return None


@per_universe
def pairs(universe: Universe) -> list[Pair]:
    """Every version with its hub and the types they share (computed once per universe)."""
    return _find_pairs(universe)


def _shared_types(external: Package, hub: Package, kinds: set[str] | None = None) -> list[tuple[TypeDef, TypeDef]]:
    """The structs of `external` that `hub` has by name (only those `kinds` reach, if given)."""
    types = []
    names = _reached(external, kinds) if kinds is not None else None
    for typedef in external.types:
        if names is not None and typedef.name not in names:
            continue
        peer = hub.type(typedef.name)
        if typedef.kind != "struct" or peer is None or peer.kind != "struct":
            continue
        types.append((typedef, peer))
    return types


def _by_hand(types: list[tuple[TypeDef, TypeDef]]) -> frozenset[str]:
    return frozenset(
        e.name for e, h in types
        if any(m.name == "k8s:conversion-gen" and str(m.value).lower() == "false" for m in e.markers + h.markers)
    )  # fmt: skip


def _reached(package: Package, kinds: set[str]) -> set[str]:
    """The names of the package's types that its kinds `kinds` (and their lists) reach."""
    seen: set[str] = set()
    stack = [t for t in package.types if t.name in kinds or (t.is_list and t.name.removesuffix("List") in kinds)]
    while stack:
        typedef = stack.pop()
        if typedef.name in seen:
            continue
        seen.add(typedef.name)
        refs = [f.type for f in typedef.fields] + [r for r in (typedef.underlying,) if r is not None]
        while refs:
            ref = refs.pop()
            if ref.kind == "named" and ref.package == package.import_path:
                target = package.type(ref.name)
                if target is not None:
                    stack.append(target)
            refs.extend(r for r in (ref.elem, ref.key) if r is not None)
    return seen


def _find_pairs(universe: Universe) -> list[Pair]:
    found = []
    stored = storage(universe).versions
    for package in universe.generated_packages:
        if package.role != "api" or package.internal:
            continue
        external = _external_types(universe, package) or package
        hub = _hub_by_marker(universe, package)
        if hub is False:
            continue
        if hub is None:
            hub = _internal_hub(universe, package)
        if hub is not None:
            if hub.import_path != external.import_path and (types := _shared_types(external, hub)):
                found.append(Pair(package, external, hub, types, by_hand=_by_hand(types)))
            continue
        if not package.custom_resources:
            continue
        by_hub: dict[str, set[str]] = defaultdict(set)
        for typedef in package.types:
            version = stored.get((package.group, typedef.name)) if typedef.is_kind else None
            if version is not None and version != package.version:
                by_hub[version].add(typedef.name)
        for version, kinds in sorted(by_hub.items()):
            hub = next(
                (p for p in universe.generated_packages if p.role == "api" and p.group == package.group
                 and not p.internal and p.version == version),
                None,
            )  # fmt: skip
            if hub is not None and (types := _shared_types(package, hub, kinds)):
                found.append(Pair(package, package, hub, types, explicit=False, by_hand=_by_hand(types)))
    return found


def hubs(universe: Universe) -> dict[str, list[str]]:
    """The versioned packages that are hubs (by import path), with the kinds they are the hub of."""
    out: dict[str, set[str]] = defaultdict(set)
    for pair in pairs(universe):
        if not pair.hub.internal:
            out[pair.hub.import_path].update(i.name for _, i in pair.types if i.is_kind or i.is_list)
    return {k: sorted(v) for k, v in out.items()}


class _Planner:
    """Works out how each field converts, within the conversion module of one package."""

    def __init__(self, universe: Universe, pair: Pair, context: ModuleContext, elsewhere: dict | None = None):
        self.universe = universe
        self.pair = pair
        self.context = context
        self.elsewhere = elsewhere or {}
        """(source package, name, target package, name) -> (home package, function) of every pair."""
        self.used: set[tuple[str, str]] = set()
        """(package, name) of the source types whose conversion another conversion calls."""
        self.version = label(pair.external)
        self.hub_label = label(pair.hub)
        self.peers = {(e.package, e.name): i for e, i in pair.types} | {(i.package, i.name): e for e, i in pair.types}

    def directions(self) -> list[Direction]:
        out = []
        for external, hub in self.pair.types:
            out.append(self._direction(external, hub, self.pair.external, self.pair.hub))
            out.append(self._direction(hub, external, self.pair.hub, self.pair.external))
        return out

    def _direction(
        self, source: TypeDef, target: TypeDef, source_package: Package, target_package: Package
    ) -> Direction:
        direction = Direction(
            source, target, label(source_package), label(target_package), hub_label=self.hub_label,
            source_go_package=source_package.go_name, target_go_package=target_package.go_name,
            by_hand=source.name in self.pair.by_hand,
        )  # fmt: skip
        if direction.by_hand:
            return direction
        by_path = {f.go_path: f for f in target.fields}
        handled = self._embedded_other_ways(source, target, direction)
        for src_field in source.fields:
            if src_field.go_path[:1] == ("TypeMeta",) or src_field.go_path in handled:
                continue
            if _skipped(src_field):
                continue
            dst_field = by_path.get(src_field.go_path)
            if dst_field is None or _skipped(dst_field):
                direction.missing.append(f"{'.'.join(src_field.go_path)} ({src_field.json_name})")
                continue
            expression = self.expression(src_field.type, dst_field.type, f"src.{src_field.python_name}", 0)
            if expression is None:
                direction.mismatched.append(f"{'.'.join(src_field.go_path)} ({src_field.type} -> {dst_field.type})")
                continue
            direction.assignments.append((dst_field.python_name, self.fit(expression, target, dst_field)))
        return direction

    def fit(self, expression: str, target: TypeDef, field: Field) -> str:
        """`expression` as the target field holds it: msgspec structs hold an omitempty slice,
        map or []byte that is nil as an empty one, never None (Go writes both alike)."""
        if not self.context.empty_when_omitted(field):
            return expression
        base = underlying(self.universe, field.type)
        empty = {"slice": "[]", "map": "{}"}.get(base.kind) or (
            'b""' if base.kind == "basic" and base.basic == "bytes" else None
        )
        if empty is None:
            return expression
        if expression.startswith("None if "):
            return empty + expression[len("None") :]
        simple = expression.replace(".", "").replace("_", "").isalnum()
        return f"{expression if simple else f'({expression})'} or {empty}"

    def _embedded_other_ways(self, source: TypeDef, target: TypeDef, direction: Direction) -> set[tuple[str, ...]]:
        """A struct one side embeds inline (its fields promoted: an internal type's untagged
        `metav1.ObjectMeta`) and the other holds as one field (`metadata`): the member is
        the same Go member, converted field by field. Returns the source paths handled."""
        handled: set[tuple[str, ...]] = set()
        source_paths = {f.go_path for f in source.fields}
        target_paths = {f.go_path for f in target.fields}
        # One field here, promoted fields there.
        for src_field in source.fields:
            head = src_field.go_path
            flat = [t for t in target.fields if len(t.go_path) > len(head) and t.go_path[: len(head)] == head]
            struct = self._struct_of(src_field.type)
            if not flat or head in target_paths or struct is None or _skipped(src_field):
                continue
            by_path = {f.go_path: f for f in struct.fields}
            for t in flat:
                inner = by_path.get(t.go_path[len(head) :])
                value = f"src.{src_field.python_name}.{inner.python_name}" if inner is not None else None
                expression = self.expression(inner.type, t.type, value, 0) if inner is not None else None
                if expression is None:
                    direction.mismatched.append(f"{'.'.join(t.go_path)} ({src_field.type} -> {t.type})")
                    continue
                direction.assignments.append((t.python_name, self.fit(expression, target, t)))
            handled.add(head)
        # Promoted fields here, one field there.
        for dst_field in target.fields:
            head = dst_field.go_path
            flat = [f for f in source.fields if len(f.go_path) > len(head) and f.go_path[: len(head)] == head]
            struct = self._struct_of(dst_field.type)
            if not flat or head in source_paths or struct is None or _skipped(dst_field):
                continue
            by_path = {f.go_path: f for f in struct.fields}
            arguments = []
            for f in flat:
                inner = by_path.get(f.go_path[len(head) :])
                expression = (
                    self.expression(f.type, inner.type, f"src.{f.python_name}", 0) if inner is not None else None
                )
                if expression is None:
                    direction.mismatched.append(f"{'.'.join(f.go_path)} ({f.type} -> {dst_field.type})")
                    continue
                arguments.append(f"{inner.python_name}={self.fit(expression, struct, inner)}")
                handled.add(f.go_path)
            direction.assignments.append(
                (dst_field.python_name, f"{self.context.class_ref(struct)}({', '.join(arguments)})")
            )
        return handled

    def _struct_of(self, ref: TypeRef) -> TypeDef | None:
        if ref.kind != "named":
            return None
        typedef = self.universe.resolve(ref)
        return typedef if typedef.kind == "struct" else None

    def expression(self, source: TypeRef, target: TypeRef, var: str, depth: int) -> str | None:
        """Python that converts `var` of type `source` into a value of type `target`, or None."""
        src, dst = underlying(self.universe, source), underlying(self.universe, target)
        if src.kind != dst.kind:
            return self.pointer_or_value(src, dst, var, depth)
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
            self.used.add((source_def.package, source_def.name))
            if target_def.package == self.pair.hub.import_path:
                return f"to_{self.hub_label}_{source_def.python_name}({var}, scope)"
            return f"from_{self.hub_label}_{target_def.python_name}({var}, scope)"
        # A type of another package that converts through its own module (cluster-api's
        # kubeadm types hold core's ObjectMeta, which core's conversions convert).
        found = self.elsewhere.get((source_def.package, source_def.name, target_def.package, target_def.name))
        if found is not None:
            self.used.add((source_def.package, source_def.name))
            home, function = found
            if home.import_path == self.context.package.import_path:
                return f"{function}({var}, scope)"
            return f"{self.context.package_name(home, 'conversion', function)}({var}, scope)"
        return None

    def pointer_or_value(self, src: TypeRef, dst: TypeRef, var: str, depth: int) -> str | None:
        """A pointer on one side and its value on the other, as apimachinery's
        Convert_Pointer_X_To_X (nil becomes the zero value) and Convert_X_To_Pointer_X (the
        value, never nil) convert them: for strings, numbers, bools, IntOrString and Duration."""
        if src.kind == "pointer" and dst.kind != "pointer":
            inner = self.expression(src.elem, dst, var, depth)
            zero = self.zero_of(dst)
            if inner is None or zero is None:
                return None
            return f"{zero} if {var} is None else {inner}"
        if dst.kind == "pointer" and src.kind != "pointer":
            if self.zero_of(src) is None:
                return None
            return self.expression(src, dst.elem, var, depth)
        return None

    def zero_of(self, ref: TypeRef) -> str | None:
        """The zero value of a type apimachinery converts to and from a pointer, as Python."""
        base = underlying(self.universe, ref)
        if base.kind == "basic":
            return (
                {"string": '""', "bool": "False", "float32": "0.0", "float64": "0.0"}.get(base.basic or "", "0")
                if base.basic != "bytes"
                else None
            )
        if base.kind == "named":
            typedef = self.universe.resolve(base)
            if typedef.kind == "python" and typedef.name in ("IntOrString", "Duration"):
                return f"{self.context.python_class(typedef.python_class)}()"
        return None

    def _stringish(self, ref: TypeRef) -> bool:
        base = underlying(self.universe, ref)
        return base.kind == "basic" and base.basic == "string"


def _skipped(field: Field) -> bool:
    return any(
        (m.name == "k8s:conversion-gen" and m.value == "false") or (m.name == "k8s:conversion-fn" and m.value == "drop")
        for m in field.markers
    )


@dataclass
class _Module:
    """The conversion module of one package: every pair it holds, planned."""

    home: Package
    context: ModuleContext
    plans: list[tuple[Pair, list[Direction]]]
    used: set[tuple[str, str]] = field(default_factory=set)
    """(package, name) of the source types whose conversions other conversions call."""

    @property
    def directions(self) -> list[Direction]:
        return [d for _, directions in self.plans for d in directions]

    def needed(self, direction: Direction) -> bool:
        """Whether a conversion is used: a kind's or a list's (the Scheme converts them),
        or one another conversion calls. A type converted by hand that nothing uses needs
        no hook (conversion-gen's `+k8s:conversion-gen=false` alone asks for nothing)."""
        source = direction.source
        return source.is_kind or source.is_list or (source.package, source.name) in self.used


def modules(universe: Universe, models: str = "pydantic") -> list[_Module]:
    """One conversion module per package that converts (planned once per universe and model
    backend: the backend decides the names the expressions import)."""
    planned = _planned(universe)
    if models not in planned:
        planned[models] = _plan_modules(universe, models)
    return planned[models]


def _plan_modules(universe: Universe, models: str) -> list[_Module]:
    by_home: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs(universe):
        by_home[pair.home.import_path].append(pair)
    elsewhere: dict[tuple[str, str, str, str], tuple[Package, str]] = {}
    for pair in pairs(universe):
        hub_label = label(pair.hub)
        for external, hub in pair.types:
            key = (external.package, external.name, hub.package, hub.name)
            elsewhere.setdefault(key, (pair.home, f"to_{hub_label}_{external.python_name}"))
            key = (hub.package, hub.name, external.package, external.name)
            elsewhere.setdefault(key, (pair.home, f"from_{hub_label}_{external.python_name}"))
    out = []
    for import_path, home_pairs in sorted(by_home.items()):
        home = home_pairs[0].home
        context = module_context(universe, home, NAME, models)
        planners = [(pair, _Planner(universe, pair, context, elsewhere)) for pair in home_pairs]
        plans = [(pair, planner.directions()) for pair, planner in planners]
        out.append(_Module(home, context, plans, set().union(*(planner.used for _, planner in planners))))
    # Conversions other modules call (a kubeadm type holding core's ObjectMeta) are used too.
    used_anywhere = set().union(*(m.used for m in out)) if out else set()
    for module in out:
        module.used |= used_anywhere
    return out


_planned: Callable[[Universe], dict[str, list[_Module]]] = per_universe(lambda universe: {})
"""The modules planned for each backend, per universe."""


def unhooked(module: _Module, pair: Pair, direction: Direction) -> bool:
    """A direction that needs a hand-written hook and has none."""
    return bool(direction.problems) and module.home.hook("conversion", direction.hook_name) is None


def omitted(module: _Module, direction: Direction) -> bool:
    """A conversion written by hand that nothing uses and nobody wrote: nothing is generated."""
    return (
        direction.by_hand
        and not module.needed(direction)
        and module.home.hook("conversion", direction.hook_name) is None
    )


def in_go(module: _Module, pair: Pair) -> bool:
    """Whether the package's hand-written conversions are Go code (a project generating with
    conversion-gen: its `Convert_` functions in conversion.go), or the hub was not asked for:
    then the Python hooks are to be ported, and missing ones are one warning, not errors."""
    return not pair.explicit or bool(module.home.manual_conversions)


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Every direction that cannot be converted automatically needs its hook, with 3 parameters.

    A missing hook is an error, unless the package's hand-written conversions are Go code
    or the hub was implicit (then one warning per package lists what to write)."""
    for module in modules(universe):
        hooks_file = _hooks_file(module.home)
        pending: list[str] = []
        for pair, directions in module.plans:
            for direction in directions:
                hook = module.home.hook("conversion", direction.hook_name)
                if hook is not None:
                    check_arity(hook, 3, f"{direction.hook_name}(src, dst, scope)", diagnostics)
                    continue
                if not direction.problems or omitted(module, direction):
                    continue
                if in_go(module, pair):
                    pending.append(direction.hook_name + (
                        f" (Go: {direction.go_name})" if direction.go_name in module.home.manual_conversions else ""
                    ))  # fmt: skip
                    continue
                anchor = direction.source if direction.source.package == pair.external.import_path else direction.target
                diagnostics.error(
                    Position.parse(anchor.position),
                    f"converting {direction.source_version} {direction.source.name} to {direction.target_version} "
                    f"{direction.target.name} needs a hand-written hook: "
                    + "; ".join(direction.problems)
                    + f". Write in {hooks_file}:\n\n"
                    + _signature_example(direction),
                )
        _check_pending(module, pending, hooks_file, diagnostics)
    _check_marked_without_conversion(universe, diagnostics)


def _check_marked_without_conversion(universe: Universe, diagnostics: Diagnostics) -> None:
    """A package whose conversion-gen markers produce no conversion says why, at the marker."""
    homes = {pair.home.import_path for pair in pairs(universe)}
    for package in universe.generated_packages:
        if package.role != "api" or package.internal or package.import_path in homes:
            continue
        marker = package.marker("k8s:conversion-gen-external-types") or package.marker("k8s:conversion-gen")
        if marker is None or "/" not in str(marker.value):
            continue
        external = _external_types(universe, package) or package
        hub = _hub_by_marker(universe, package)
        if not isinstance(hub, Package):
            hub = _internal_hub(universe, package)
        if hub is None:
            why = "no hub: name one with +k8s:conversion-gen=<import path of the internal package>"
        elif hub.import_path == external.import_path:
            why = f"its types and its hub are the same package ({hub.import_path})"
        else:
            why = f"{external.import_path} and its hub {hub.import_path} have no struct type of the same name"
        diagnostics.warning(
            Position.parse(marker.position), f"{package.import_path} gets no conversion functions: {why}"
        )


def _check_pending(module, pending: list[str], hooks_file: str, diagnostics: Diagnostics) -> None:
    """One warning per package for the hooks its Go code (or an implicit hub) leaves to write."""
    if not pending:
        return
    marker = module.home.marker("k8s:conversion-gen")
    if marker is not None:
        where = Position.parse(marker.position)
    else:
        doc = next((f for f in module.home.files if f.rsplit("/", 1)[-1] == "doc.go"), None)
        where = Position(doc or (module.home.files[0] if module.home.files else module.home.import_path), 1, 1)
    diagnostics.warning(
        where,
        f"{len(pending)} conversion{'s' if len(pending) != 1 else ''} of {module.home.import_path} need "
        f"hand-written hooks in {hooks_file}; until they are written they raise ConversionError: " + ", ".join(pending),
    )


def _hooks_file(package: Package) -> str:
    directory = package.files[0].rsplit("/", 1)[0] if package.files and "/" in package.files[0] else "."
    return f"{directory}/conversion.py"


def _signature_example(direction: Direction) -> str:
    lines = [
        f"def {direction.hook_name}(src, dst, scope):",
        f"    {direction.auto_name}(src, dst, scope)  # from the generated conversion module",
    ]
    lines += [f"    # {name}: no counterpart in {direction.target_version}" for name in direction.missing]
    lines += [f"    # {name}: convert by hand" for name in direction.mismatched]
    return "\n".join(lines) + "\n"


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """A conversion module for every package that converts to a hub."""
    return [_file(universe, module) for module in modules(universe, options.models)]


def has_module(universe: Universe, package: Package) -> bool:
    return any(module.home.import_path == package.import_path for module in modules(universe))


def is_hub(universe: Universe, package: Package) -> list[str]:
    """The kinds a versioned package is the hub of (registered as converting to themselves)."""
    return hubs(universe).get(package.import_path, [])


@dataclass(frozen=True)
class FunctionView:
    direction: Direction
    hooked: bool
    pending: bool
    """No hook, though one is needed: the conversion raises ConversionError."""
    target_class: str
    source_class: str

    @property
    def assigned(self) -> str:
        """The attributes the auto function assigns, as a Python tuple."""
        names = [py_string(attribute) for attribute, _ in self.direction.assignments]
        return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _file(universe: Universe, module: _Module) -> GeneratedFile:
    context, home = module.context, module.home
    hooked = {d.hook_name for d in module.directions if home.hook("conversion", d.hook_name)}
    hooks_module = home.hooks_module if hooked else None
    views = []
    roots = []
    for pair, directions in module.plans:
        for direction in directions:
            if omitted(module, direction):
                continue
            views.append(
                FunctionView(
                    direction,
                    direction.hook_name in hooked,
                    pending=unhooked(module, pair, direction),
                    target_class=context.class_ref(direction.target),
                    source_class=context.class_ref(direction.source),
                )
            )
        hub_label = label(pair.hub)
        for external, hub in pair.types:
            if external.is_kind or external.is_list:
                roots.append((context.class_ref(external), f"to_{hub_label}_{external.python_name}",
                              context.class_ref(hub), f"from_{hub_label}_{external.python_name}"))  # fmt: skip
    values = mark_set = None
    if any(d.assignments for d in module.directions):
        values, mark_set = context.runtime("values"), context.runtime("mark_set")
    scope = context.python_class("kgen.runtime.conversion:Scope")
    default_scope = context.python_class("kgen.runtime.conversion:DEFAULT_SCOPE")
    conversion_error = (
        context.python_class("kgen.runtime.conversion:ConversionError") if any(v.pending for v in views) else None
    )
    callable_, any_ = context.stdlib("collections.abc", "Callable"), context.stdlib("typing", "Any")
    mapping = context.stdlib("collections.abc", "Mapping")
    lazy_mapping = context.python_class("kgen.runtime.conversion:LazyMapping")
    called = [
        (v.direction.hook_name, f"src: {v.source_class}, dst: {v.target_class}, scope: {scope}", "object")
        for v in views
        if v.hooked
    ]
    protocol = hooks_protocol(context, called)
    sources = package_sources(home, *(["conversion.py"] if hooks_module else []))
    path = package_file(home, "conversion.py")
    hub_names = sorted({p.hub.import_path for p, _ in module.plans})
    return render_python(
        "conversion/conversion.py.j2",
        path,
        NAME,
        sources,
        package=home,
        hubs=hub_names,
        imports=context.import_lines(),
        functions=views,
        roots=roots,
        hooks_module=hooks_module,
        scope=scope,
        default_scope=default_scope,
        conversion_error=conversion_error,
        values=values,
        mark_set=mark_set,
        callable=callable_,
        any=any_,
        mapping=mapping,
        lazy_mapping=lazy_mapping,
        hooks_alias=HOOKS_MODULE,
        hooks_protocol=protocol,
        py_string=py_string,
        docstring=docstring,
    )
