"""The protobuf generator (counterpart of go-to-protobuf): `generated.proto` per package,
compiled into `generated_pb2.py` + `.pyi`, and `protobuf.py` converters.

A package opts in with `+k8s:protobuf-gen=package` in its doc.go, as the Kubernetes API
packages do. Its `.proto` is what go-to-protobuf writes for the same types: proto2, the
package named after the Go import path, a message per struct (fields in Go order, named
and numbered by their `protobuf:` tags, comments copied as written), the apimachinery
well-known messages by full name, and go-to-protobuf's type mapping (`plan`).

Field numbers are forever. `check` makes a member without a `protobuf:` tag an error
(`kgen protobuf-tags --write` adds them), and enforces tombstones: a
`+k8s:deprecated=<json>,protobuf=<N>` on the struct (or above a member) reserves the
number and the name, and a member that reuses either is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgen.diagnostics import Diagnostics, Position
from kgen.generators.python import package_sources, underlying
from kgen.ir.facts import per_universe
from kgen.ir.model import Member, Package, TypeDef, TypeRef, Universe
from kgen.markers.registry import Marker
from kgen.render import header, render_template
from kgen.runtime.protobuf import WELL_KNOWN

NAME = "protobuf"
PROTO_FILE = "generated.proto"
META_V1 = "k8s.io/apimachinery/pkg/apis/meta/v1"

#: go-to-protobuf's scalar mapping (int -> int64, float64 -> double), and the narrow
#: integers (which go-to-protobuf rejects) widened to the 32-bit varints.
SCALARS = {
    "string": "string", "bool": "bool", "bytes": "bytes",
    "int32": "int32", "int64": "int64", "int": "int64", "int8": "int32", "int16": "int32",
    "uint32": "uint32", "uint64": "uint64", "uint": "uint64", "uintptr": "uint64", "uint8": "uint32", "uint16": "uint32",
    "float64": "double", "float32": "float",
}  # fmt: skip
#: Scalars protobuf allows as map keys.
MAP_KEYS = {"string", "bool", "int32", "int64", "uint32", "uint64"}
MAX_NUMBER = 536_870_911
RESERVED_RANGE = range(19000, 20000)
_TOMBSTONE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:,\s*protobuf\s*=\s*(\d+)\s*)?$")


# -- the shape of a Go type in protobuf ---------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """What a Go type is on the wire.

    kind `scalar` (`scalar` names the proto type), `message` (`typedef` is a struct, a
    well-known type or a wrapper of a named slice or map), `repeated` or `map` (over
    `elem`, and `key` for maps)."""

    kind: str
    scalar: str = ""
    typedef: TypeDef | None = None
    elem: Shape | None = None
    key: Shape | None = None
    ref: TypeRef | None = None
    """The Go type as written (through pointers and named types), for the converters."""


class ShapeError(Exception):
    pass


def shape(universe: Universe, ref: TypeRef, contained: bool = False) -> Shape:
    """The wire shape of `ref`. `contained`: it is a list item or map value, where a named
    slice or map needs its wrapper message (protobuf has no lists of lists)."""
    if ref.kind == "pointer":
        return shape(universe, ref.elem, contained)
    if ref.kind == "basic":
        return Shape("scalar", scalar=SCALARS[ref.basic], ref=ref)
    if ref.kind == "any":
        raise ShapeError("arbitrary JSON has no protobuf form")
    if ref.kind == "slice":
        elem = shape(universe, ref.elem, contained=True)
        if elem.kind in ("repeated", "map"):
            raise ShapeError(f"{ref} nests a list or map in a list; declare a named type for the items")
        return Shape("repeated", elem=elem, ref=ref)
    if ref.kind == "map":
        key = shape(universe, ref.key)
        if key.kind != "scalar" or key.scalar not in MAP_KEYS:
            raise ShapeError(f"map key {ref.key} is not a protobuf map key (string, bool or an integer)")
        elem = shape(universe, ref.elem, contained=True)
        if elem.kind in ("repeated", "map"):
            raise ShapeError(f"{ref} has lists or maps as values; declare a named type for the values")
        return Shape("map", key=key, elem=elem, ref=ref)
    typedef = universe.resolve(ref)
    if typedef.kind in ("struct", "python"):
        return Shape("message", typedef=typedef, ref=ref)
    assert typedef.underlying is not None
    if is_wrapper(universe, typedef) and (contained or typedef.has_marker("protobuf.nullable")):
        return Shape("message", typedef=typedef, ref=ref)
    inner = shape(universe, typedef.underlying, contained)
    return Shape(inner.kind, inner.scalar, inner.typedef, inner.elem, inner.key, ref)


def is_wrapper(universe: Universe, typedef: TypeDef) -> bool:
    """A named slice or map type: a message `{ repeated/map items = 1; }` where one is needed."""
    if typedef.kind != "named" or typedef.underlying is None:
        return False
    return underlying(universe, typedef.underlying).kind in ("slice", "map")


# -- the plan: every message of every package ---------------------------------------------


@dataclass(frozen=True)
class ProtoField:
    name: str
    number: int
    label: str
    """"optional", "repeated", or "" for a map."""
    type: str
    shape: Shape
    comment: tuple[str, ...] = ()
    member: Member | None = None
    """None for the `items` of a wrapper message."""


@dataclass(frozen=True)
class Message:
    typedef: TypeDef
    name: str
    comment: tuple[str, ...]
    fields: tuple[ProtoField, ...]
    reserved_numbers: tuple[int, ...] = ()
    reserved_names: tuple[str, ...] = ()
    wrapper: bool = False


@dataclass
class ProtoFile:
    package: Package
    messages: list[Message] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return proto_file_name(self.package.import_path)


@dataclass
class Plan:
    files: dict[str, ProtoFile]
    """By Go import path."""
    problems: list[tuple[Position, str]]

    def message(self, typedef: TypeDef) -> Message:
        return next(m for m in self.files[typedef.package].messages if m.name == typedef.name)


_PROTO_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def proto_package(import_path: str) -> str:
    """`k8s.io/api/core/v1` -> `k8s.io.api.core.v1` (go-to-protobuf's package name)."""
    return import_path.replace("/", ".").replace("-", "_")


def proto_file_name(import_path: str) -> str:
    """The name other `.proto` files import it by, as go-to-protobuf lays them out."""
    return f"{import_path}/{PROTO_FILE}"


def has_protobuf(package: Package) -> bool:
    marker = package.marker("k8s:protobuf-gen")
    return marker is not None and str(marker.value) == "package" and not package.internal


def messages_of(package: Package) -> list[TypeDef]:
    """The types of a package that are messages: structs and well-known types declared as
    structs (unless `+protobuf=false`)."""
    chosen = []
    for typedef in package.types:
        marker = typedef.marker("protobuf")
        if marker is not None and marker.value is False:
            continue
        if typedef.kind == "struct" or (typedef.kind == "python" and typedef.members):
            chosen.append(typedef)
    return chosen


@per_universe
def plan(universe: Universe) -> Plan:
    planner = _Planner(universe)
    planner.run()
    return Plan(planner.files, planner.problems)


class _Planner:
    def __init__(self, universe: Universe):
        self.universe = universe
        # The input's API packages that ask for protobuf (kgen's own well-known packages when
        # it builds its runtime); the packages they use are added as they are reached, so a
        # project that embeds core/v1 types without protobuf of its own gets none for core/v1.
        self.files = {
            p.import_path: ProtoFile(p)
            for p in universe.packages
            if has_protobuf(p) and (p.role == "api" or (p.builtin and p.generate))
        }
        self.candidates = {p.import_path: p for p in universe.packages if has_protobuf(p)}
        self.problems: list[tuple[Position, str]] = []
        self.wrappers: dict[tuple[str, str], TypeDef] = {}

    def run(self) -> None:
        planned: set[str] = set()
        while pending := [proto for path, proto in sorted(self.files.items()) if path not in planned]:
            for proto in pending:
                planned.add(proto.package.import_path)
                self.check_package_name(proto.package)
                for typedef in proto.package.types:
                    if is_wrapper(self.universe, typedef) and typedef.has_marker("protobuf.nullable"):
                        self.wrappers[(typedef.package, typedef.name)] = typedef
                for typedef in messages_of(proto.package):
                    proto.messages.append(self.message(proto, typedef))
        done: set[tuple[str, str]] = set()
        while pending := sorted(self.wrappers.keys() - done):  # a wrapper's items may need another
            for key in pending:
                done.add(key)
                typedef = self.wrappers[key]
                proto = self.files.get(typedef.package)
                if proto is not None:
                    proto.messages.append(self.wrapper(proto, typedef))
        for proto in self.files.values():
            proto.messages.sort(key=lambda m: m.name)

    def check_package_name(self, package: Package) -> None:
        """go-to-protobuf names the .proto package after the import path, whose parts must
        then be protobuf identifiers (a directory `1x` is a Go package directory, not one)."""
        name = proto_package(package.import_path)
        bad = next((part for part in name.split(".") if not _PROTO_IDENTIFIER.fullmatch(part)), None)
        if bad is not None and package.files:
            self.problem(
                f"{package.files[0]}:1:1",
                f"the protobuf package {name} (from the import path) has {bad!r}, which is not a protobuf name "
                "(letters, digits and underscores, not starting with a digit): rename the directory, "
                "or remove +k8s:protobuf-gen=package from it",
            )

    def problem(self, where: str, message: str) -> None:
        self.problems.append((Position.parse(where), message))

    def message(self, proto: ProtoFile, typedef: TypeDef) -> Message:
        if not _PROTO_IDENTIFIER.fullmatch(typedef.name):  # Go names may be any Unicode letters
            self.problem(
                typedef.position,
                f"type {typedef.name} is a protobuf message, whose name must be ASCII letters, digits and "
                "underscores: rename it, or leave it out of protobuf with +protobuf=false",
            )
        tombstones = self.tombstones(typedef)
        fields: list[ProtoField] = []
        by_number: dict[int, ProtoField] = {}
        by_name: dict[str, ProtoField] = {}
        for member in typedef.members:
            built = self.member_field(proto, typedef, member)
            if built is None:
                continue
            where = member.position or typedef.position
            if built.number in by_number:
                self.problem(where, f"{typedef.name}.{member.go_name} and {typedef.name}.{by_number[built.number].member.go_name} "
                             f"both have protobuf number {built.number}; give {member.go_name} an unused number")  # fmt: skip
            elif built.name in by_name:
                self.problem(where, f"{typedef.name}.{member.go_name} and {typedef.name}.{by_name[built.name].member.go_name} "
                             f"both have the protobuf name {built.name!r}; set name= in one of the protobuf tags")  # fmt: skip
            for json_name, (number, marker_at) in tombstones.items():
                if built.number == number:
                    self.problem(where, f"{typedef.name}.{member.go_name} reuses protobuf number {number} of the removed "
                                 f"field {json_name!r} (tombstone at {marker_at}); numbers are never reused: give it "
                                 f"a new number")  # fmt: skip
                if json_name in (built.name, member.json_name):
                    self.problem(where, f"{typedef.name}.{member.go_name} reuses the name {json_name!r} of a removed "
                                 f"field (tombstone at {marker_at}); clients still send it with its old meaning: "
                                 f"choose another name")  # fmt: skip
            by_number.setdefault(built.number, built)
            by_name.setdefault(built.name, built)
            fields.append(built)
        return Message(
            typedef=typedef,
            name=typedef.name,
            comment=typedef.comment,
            fields=tuple(fields),
            reserved_numbers=tuple(sorted({n for n, _ in tombstones.values() if n is not None})),
            reserved_names=tuple(sorted(tombstones)),
        )

    def tombstones(self, typedef: TypeDef) -> dict[str, tuple[int | None, str]]:
        found, malformed = tombstones(typedef)
        for marker in malformed:
            self.problem(marker.position or typedef.position,
                         f"+k8s:deprecated={marker.value} is not `<json name>,protobuf=<number>`")  # fmt: skip
        return found

    def member_field(self, proto: ProtoFile, typedef: TypeDef, member: Member) -> ProtoField | None:
        where = member.position or typedef.position
        if member.tags.get("protobuf") == "-":
            return None
        if is_type_meta(member):
            return None
        if member.protobuf is None:
            if member.json_name is None and not member.promoted:
                return None  # `json:"-"` without a protobuf tag: not serialized
            self.problem(where, f"{typedef.name}.{member.go_name} has no protobuf tag; field numbers must be "
                         f"stable forever, so kgen does not pick them: run `kgen protobuf-tags --write`")  # fmt: skip
            return None
        info = member.protobuf
        if not (1 <= info.number <= MAX_NUMBER) or info.number in RESERVED_RANGE:
            self.problem(where, f"{typedef.name}.{member.go_name}: protobuf number {info.number} is not allowed "
                         f"(1 to {MAX_NUMBER}, except 19000-19999)")  # fmt: skip
            return None
        try:
            wire = shape(self.universe, member.type)
        except ShapeError as err:
            self.problem(where, f'{typedef.name}.{member.go_name}: {err}, or leave it out with protobuf:"-"')
            return None
        if not self.reference(proto, wire, where, f"{typedef.name}.{member.go_name}"):
            return None
        name = info.name or field_name(member)
        label = "" if wire.kind == "map" else "repeated" if wire.kind == "repeated" else "optional"
        return ProtoField(
            name=name,
            number=info.number,
            label=label,
            type=self.type_name(proto, wire),
            shape=wire,
            comment=member.comment,
            member=member,
        )

    def wrapper(self, proto: ProtoFile, typedef: TypeDef) -> Message:
        inner = shape(self.universe, typedef.underlying, contained=False)
        self.reference(proto, inner, typedef.position, typedef.name)
        kind = "map" if inner.kind == "map" else "slice"
        return Message(
            typedef=typedef,
            name=typedef.name,
            comment=typedef.comment,
            fields=(ProtoField(
                name="items", number=1, label="" if inner.kind == "map" else "repeated",
                type=self.type_name(proto, inner), shape=inner,
                comment=(f"items, if empty, will result in an empty {kind}\n",),
            ),),  # fmt: skip
            wrapper=True,
        )

    def reference(self, proto: ProtoFile, wire: Shape, where: str, what: str) -> bool:
        """Record the messages `wire` uses (imports, wrappers); False when one has no home."""
        for part in (wire.key, wire.elem):
            if part is not None and not self.reference(proto, part, where, what):
                return False
        if wire.kind != "message":
            return True
        typedef = wire.typedef
        target = self.files.get(typedef.package)
        if target is None and typedef.package in self.candidates:
            target = self.files[typedef.package] = ProtoFile(self.candidates[typedef.package])
        if target is None:
            self.problem(where, f"{what} uses {typedef.name} of {typedef.package}, which has no protobuf messages; "
                         f"add +k8s:protobuf-gen=package to that package's doc.go")  # fmt: skip
            return False
        left_out = typedef.marker("protobuf")
        if left_out is not None and left_out.value is False:
            self.problem(where, f"{what} uses {typedef.name}, which +protobuf=false leaves out of protobuf: leave the "
                         "field out too (protobuf:\"-\"), or remove +protobuf=false")  # fmt: skip
            return False
        if typedef.kind == "python" and typedef.python_class not in WELL_KNOWN:
            self.problem(where, f"{what} uses {typedef.name}, implemented by the Python class {typedef.python_class}, "
                         "whose protobuf form kgen does not know: leave the field out of the message (protobuf:\"-\"), "
                         "or the package out of protobuf (no +k8s:protobuf-gen)")  # fmt: skip
            return False
        if typedef.kind == "named":
            self.wrappers.setdefault((typedef.package, typedef.name), typedef)
        if typedef.package != proto.package.import_path:
            proto.imports.add(target.name)
        return True

    def type_name(self, proto: ProtoFile, wire: Shape) -> str:
        if wire.kind == "scalar":
            return wire.scalar
        if wire.kind == "repeated":
            return self.type_name(proto, wire.elem)
        if wire.kind == "map":
            return f"map<{self.type_name(proto, wire.key)}, {self.type_name(proto, wire.elem)}>"
        return message_name(wire.typedef, proto.package.import_path)


def tombstones(typedef: TypeDef) -> tuple[dict[str, tuple[int | None, str]], list[Marker]]:
    """`+k8s:deprecated=<json>,protobuf=<N>` on the type or any member: json -> (N, where),
    and the markers that do not parse."""
    found: dict[str, tuple[int | None, str]] = {}
    malformed: list[Marker] = []
    for marker in list(typedef.markers) + [m for member in typedef.members for m in member.markers]:
        if marker.name != "k8s:deprecated":
            continue
        match = _TOMBSTONE.match(str(marker.value))
        if match is None:
            malformed.append(marker)
            continue
        number = int(match.group(2)) if match.group(2) else None
        found[match.group(1)] = (number, marker.position or typedef.position)
    return found, malformed


def is_type_meta(member: Member) -> bool:
    """An embedded metav1.TypeMeta: go-to-protobuf leaves it out (the envelope carries it)."""
    ref = member.type
    return member.embedded and ref.kind == "named" and (ref.package, ref.name) == (META_V1, "TypeMeta")


def field_name(member: Member) -> str:
    """go-to-protobuf's name for a member without `name=`: the JSON tag's name, else the Go
    name with its first letter lower-cased (`FrobberCommon` -> `frobberCommon`)."""
    json_name = member.tags.get("json", "").split(",")[0]
    if json_name and json_name != "-":
        return json_name
    return member.go_name[:1].lower() + member.go_name[1:]


def message_name(typedef: TypeDef, local: str) -> str:
    """How a `.proto` of package `local` names a message: short when local, else by its
    absolute name (go-to-protobuf writes `.k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta`)."""
    if typedef.package == local:
        return typedef.name
    full = f"{proto_package(typedef.package)}.{typedef.name}"
    return f".{full}" if "." in proto_package(typedef.package) else full


# -- check and generate --------------------------------------------------------------------


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    for where, message in plan(universe).problems:
        diagnostics.error(where, message)


def render_proto(proto: ProtoFile) -> str:
    package = proto.package
    body = render_template(
        "protobuf/generated.proto.j2",
        proto_package=proto_package(package.import_path),
        imports=sorted(proto.imports),
        go_package=package.import_path,
        messages=proto.messages,
        comment=_comment,
    )
    return header(NAME, package_sources(package), comment="//") + body


def _comment(lines: tuple[str, ...], indent: str) -> str:
    """A comment as go-to-protobuf copies it: `//` for an empty line, no trailing space."""
    return "".join(f"{indent}//\n" if not line else f"{indent}// {line}\n" for line in lines)
