"""Python for the protobuf generator: `generated_pb2.py` + `.pyi` and `protobuf.py`.

The `.proto` files are compiled with the pinned grpcio-tools in a scratch directory laid
out by import path (as go-to-protobuf lays them out), and protoc's imports of other
packages (`from k8s.io.apimachinery... import generated_pb2`) are pointed at the Python
packages that hold them.

`protobuf.py` converts models to messages and back: `to_proto_<Type>(obj, msg=None)` and
`from_proto_<Type>(msg)`. Fields are written as Go's generated marshalers write them:
non-pointer scalars and structs always, pointers when set, embedded inline structs as
their own message; reading back gives Go's values (absent lists and maps are nil).

On msgspec models (`models = "msgspec"`) the converters read the structs' attributes and
build structs through `kgen.runtime.structs`: an absent `omitempty` list, map or `[]byte`
reads back empty, as such a field is never None there, and is written only when not empty.
The messages are the same for both backends: kgen's well-known packages have their
compiled modules once, in the pydantic runtime, which the struct runtime's converters use.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kgen.generators.backends import backend, module_context
from kgen.generators.models import docstring, field_default
from kgen.generators.models_msgspec import StructsContext, field_plan, item_nullable
from kgen.generators.options import GeneratorOptions
from kgen.generators.protobuf import PROTO_FILE, Message, Plan, ProtoFile, render_proto, shape
from kgen.generators.protobuf import plan as plan_of
from kgen.generators.python import ModuleContext, package_file, package_sources, py_string, underlying
from kgen.ir.build import RUNTIME_PACKAGE
from kgen.ir.names import PYTHON_KEYWORDS
from kgen.ir.model import Field, Member, Package, TypeDef, Universe
from kgen.render import GeneratedFile, header, render_python
from kgen.runtime.protobuf import WELL_KNOWN

NAME = "protobuf"
PB2 = "generated_pb2"


class CompileError(RuntimeError):
    pass


# -- protoc ----------------------------------------------------------------------------------


def compile_protos(sources: dict[str, str], targets: list[str]) -> dict[str, tuple[str, str]]:
    """Compile `targets` (file names, with `sources` holding every file by name) into
    `(generated_pb2.py, generated_pb2.pyi)` texts."""
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory(prefix="kgen-protoc-") as scratch:
        root = Path(scratch)
        (root / "in").mkdir()
        (root / "out").mkdir()
        for name, text in sources.items():
            path = root / "in" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        code = protoc.main(["grpc_tools.protoc", f"-I{root / 'in'}", f"--python_out={root / 'out'}",
                            f"--pyi_out={root / 'out'}", *targets])  # fmt: skip
        if code != 0:
            raise CompileError(
                f"protoc failed on the generated .proto files ({', '.join(targets)}); this is a kgen bug"
            )
        out = {}
        for name in targets:
            # protoc writes the module named after the file: dots and slashes both nest
            module = root / "out" / (name.removesuffix(".proto").replace("-", "_").replace(".", "/") + "_pb2")
            out[name] = (module.with_suffix(".py").read_text("utf-8"), module.with_suffix(".pyi").read_text("utf-8"))
        return out


def strict_stub(text: str) -> str:
    """protoc's `.pyi`, made to pass `mypy --strict`: a message's `__init__` takes a
    `Mapping[str, Any]` for a message field (protoc writes a bare `Mapping`), and the
    `**kwargs` it adds for fields named like Python keywords are `Any`."""
    text = re.sub(r"\b_Mapping(?=\])", "_Mapping[str, _Any]", text)
    text = re.sub(r"\*\*kwargs\b(?!:)", "**kwargs: _Any", text)
    # A message named like a Python keyword (a Go type `and`) is reachable only through
    # getattr: its class statement cannot be written, and references to it are `Any`.
    text = re.sub(
        r"^class (\w+)\(_message\.Message\):\n(?:(?:    .*)?\n)*?(?=\S|\Z)",
        lambda m: "" if m.group(1) in PYTHON_KEYWORDS else m.group(0),
        text,
        flags=re.M,
    )
    text = re.sub(r"globals\(\)\['(\w+)'\]", "_Any", text)
    if "_Any" in text:
        typing_import = re.compile(r"^from typing import ", re.M)
        if typing_import.search(text):
            text = typing_import.sub("from typing import Any as _Any, ", text, count=1)
        else:
            text = re.sub(r"^(from |import )", "from typing import Any as _Any\n\1", text, count=1, flags=re.M)
    return text


def _protoc_module(import_path: str) -> str:
    """The module path protoc gives a package's `generated.proto`."""
    return import_path.replace("-", "_").replace("/", ".")


def _point_imports(text: str, context: ModuleContext, packages: list[Package]) -> str:
    for target in packages:
        if target.import_path == context.package.import_path:
            continue
        source = context.import_source(target)
        pattern = re.compile(rf"^from {re.escape(_protoc_module(target.import_path))} import {PB2}\b", re.M)
        text = pattern.sub(lambda _: f"from {source} import {PB2}", text)
    return text


# -- converters ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConverterView:
    name: str
    message: str
    """The message class, as an expression."""
    message_type: str
    """The message class, as an annotation."""
    to_lines: list[str]
    from_lines: list[str]
    present: list[str] | None
    """The fields a decoded model records as set (None: the models record no presence)."""
    values: str
    """What `to_proto` reads the fields from as `values` ("" when it reads attributes)."""


def shares_messages(package: Package, models: str) -> bool:
    """Whether a package's messages are compiled elsewhere: kgen's well-known packages
    generated for the msgspec runtime use the pydantic runtime's modules (a `.proto` file is
    registered once per process)."""
    return package.builtin and backend(models).shares_builtin_messages


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    """The protobuf generator: each package's `generated.proto` (unless its messages are
    shared with kgen's runtime) and the Python modules that speak it."""
    chosen = [proto for proto in plan_of(universe).files.values() if proto.package.generate and proto.messages]
    if not chosen:
        return []
    files = [
        GeneratedFile(path=package_file(p.package, PROTO_FILE), content=render_proto(p), generator=NAME)
        for p in chosen
        if not shares_messages(p.package, options.models)
    ]
    files += python_modules(universe, plan_of(universe), chosen, options.models)
    return files


def python_modules(
    universe: Universe, plan: Plan, chosen: list[ProtoFile], models: str = "pydantic"
) -> list[GeneratedFile]:
    """The compiled messages and the converters of the `chosen` files, for the model backend
    `models`."""
    every = [proto for proto in plan.files.values() if proto.messages]
    sources = {proto.name: render_proto(proto) for proto in every}
    compiled_names = [proto.name for proto in chosen if not shares_messages(proto.package, models)]
    compiled = compile_protos(sources, compiled_names) if compiled_names else {}
    packages = [proto.package for proto in every]
    files = []
    for proto in chosen:
        package = proto.package
        if proto.name in compiled:
            # Messages are the same for every backend: they import the pydantic runtime's.
            context = ModuleContext(universe, package, NAME)
            python, stub = compiled[proto.name]
            head = header(NAME, (proto.name,))
            for suffix, text in ((".py", python), (".pyi", strict_stub(stub))):
                text = _point_imports(text, context, packages)
                files.append(GeneratedFile(package_file(package, PB2 + suffix), head + text, NAME, language="python"))
        if any(not m.wrapper and m.typedef.kind == "struct" for m in proto.messages):
            files.append(_converters(universe, plan, proto, models))
    return files


def _converters(universe: Universe, plan: Plan, proto: ProtoFile, models: str) -> GeneratedFile:
    package = proto.package
    context = module_context(universe, package, "protobuf", models)
    writer = _Writer(universe, context, plan, shares_messages(package, models))
    views = []
    for message in proto.messages:
        if message.wrapper or message.typedef.kind != "struct":
            continue
        views.append(writer.converter(message))
    context.runtime("construct")
    context.python_class("kgen.runtime.protobuf:register")
    any_ = context.stdlib("typing", "Any")
    return render_python(
        "protobuf/protobuf.py.j2",
        package_file(package, "protobuf.py"),
        NAME,
        package_sources(package),
        package=package,
        imports=context.import_lines(),
        converters=views,
        any=any_,
        docstring=docstring,
    )


class _Writer:
    def __init__(self, universe: Universe, context: ModuleContext, plan: Plan, shared_messages: bool = False):
        self.universe = universe
        self.context = context
        self.plan = plan
        self.shared_messages = shared_messages
        self.structs = not context.RECORDS_PRESENCE
        """Structs: fields are attributes, set by `__init__`, and presence is not recorded."""
        self.counter = 0

    def var(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def converter(self, message: Message) -> ConverterView:
        typedef = message.typedef
        self.counter = 0
        to_lines: list[str] = ["msg.SetInParent()"] if message.fields else []
        from_lines: list[str] = []
        covered: set[str] = set()
        self.struct_fields(typedef, (), message.fields, "msg", to_lines, from_lines, covered)
        for f in typedef.fields:
            if f.python_name not in covered and not self.structs:  # a struct takes its own default
                from_lines.append(f"values[{py_string(f.python_name)}] = {self.default(typedef, f)}")
        return ConverterView(
            name=typedef.python_name,
            message=_attribute(self.pb2(), message.name),
            # protoc's stub cannot declare a class named like a Python keyword (a Go type `and`)
            message_type=(
                self.context.python_class("typing:Any")
                if message.name in PYTHON_KEYWORDS
                else f"{self.pb2()}.{message.name}"
            ),
            to_lines=to_lines,
            from_lines=from_lines,
            present=None if self.structs else sorted(covered),
            values="" if self.structs else "obj.__dict__",
        )

    def default(self, typedef: TypeDef, f: Field) -> str:
        """The model's default for a field protobuf does not carry (TypeMeta's)."""
        source, factory = field_default(self.context, self.context.package, typedef, f)
        return f"{source}()" if factory else source

    def pb2(self) -> str:
        if self.shared_messages:
            return self.context.python_class(f"{RUNTIME_PACKAGE}.{self.context.package.python_package}:{PB2}")
        return self.context.sibling(PB2)

    def read(self, f: Field) -> str:
        """How `to_proto` reads a field of `obj`."""
        return f"obj.{f.python_name}" if self.structs else f"values[{py_string(f.python_name)}]"

    def empty(self, typedef: TypeDef, f: Field) -> str:
        """Python source of what a field holds when its list, map or `[]byte` is absent: None,
        or for a struct's `omitempty` one, which is never None, the empty value."""
        if not self.structs:
            return "None"
        package = self.universe.package(typedef.package)
        scratch = StructsContext(self.universe, package, "models")  # field_plan records imports
        if field_plan(scratch, package, typedef, f).optional:
            return "None"
        base = underlying(self.universe, f.type)
        if base.kind == "slice":
            return "[]"
        if base.kind == "map":
            return "{}"
        return 'b""' if base.kind == "basic" and base.basic == "bytes" else "None"

    def struct_fields(self, typedef, prefix, proto_fields, msg, to_lines, from_lines, covered) -> None:
        """Statements for the members of `typedef` (or of a struct inlined at `prefix`)."""
        by_path = {f.go_path: f for f in typedef.fields}
        for pf in proto_fields:
            member: Member = pf.member
            path = prefix + (member.go_name,)
            if member.promoted:  # an inline struct is its own message in protobuf
                inner = self.plan.message(self._embedded(member))
                sub = self.var("sub")
                to_lines += [f"{sub} = {_attribute(msg, pf.name)}", f"{sub}.SetInParent()"]
                from_lines.append(f"{sub} = {_attribute(msg, pf.name)}")
                self.struct_fields(typedef, path, inner.fields, sub, to_lines, from_lines, covered)
                continue
            f = by_path.get(path)
            if f is None:
                continue  # shadowed in JSON by a shallower field: nothing in the model to carry
            covered.add(f.python_name)
            pointer = member.type.kind == "pointer"
            empty = self.empty(typedef, f)
            to_lines += self.to_field(pf.shape, pf.name, pointer, self.read(f), msg, empty != "None")
            read = self.from_field(pf.shape, pf.name, pointer, msg, empty)
            from_lines.append(f"values[{py_string(f.python_name)}] = {read}")

    def _embedded(self, member: Member) -> TypeDef:
        ref = member.type.elem if member.type.kind == "pointer" else member.type
        return self.universe.resolve(ref)

    # -- model -> message ------------------------------------------------------------------

    def to_field(self, wire, name: str, pointer: bool, value: str, msg: str, never_none: bool = False) -> list[str]:
        """Statements that write `value` (a model value) into field `name` of `msg`. A field
        that is `never_none` (a struct's omitempty `[]byte` or wrapped list) is empty where
        another would be None, and is written only when not empty."""
        target = _attribute(msg, name)
        if wire.kind == "scalar":
            if pointer or wire.scalar == "bytes":
                v = self.var("v")
                test = f"{v} := {value}" if never_none else f"({v} := {value}) is not None"
                return [f"if {test}:", f"    {_assign(msg, name, v)}"]
            return [_assign(msg, name, value)]
        if wire.kind == "message":
            if pointer or wire.typedef.kind == "named":
                v = self.var("v")
                test = f"{v} := {value}" if never_none else f"({v} := {value}) is not None"
                return [f"if {test}:", *_indent(self.to_message(wire, v, target))]
            return self.to_message(wire, value, target)
        v = self.var("v")
        if wire.kind == "repeated":
            if wire.elem.kind == "scalar":
                checked = self.item_value(wire, name, "i")
                items = v if checked == "i" else f"({checked} for i in {v})"
                return [f"if {v} := {value}:", f"    {target}.extend({items})"]
            item = self.var("item")
            write = self.to_message(wire.elem, self.item_value(wire, name, item), f"{target}.add()")
            return [f"if {v} := {value}:", f"    for {item} in {v}:", *_indent(write, 2)]
        key = "k" if wire.key.scalar == "string" else "int(k)"
        if wire.elem.kind == "scalar":
            checked = self.item_value(wire, name, "i")
            update = v if key == "k" and checked == "i" else f"{{{key}: {checked} for k, i in {v}.items()}}"
            return [f"if {v} := {value}:", f"    {target}.update({update})"]
        item = self.var("item")
        write = self.to_message(wire.elem, self.item_value(wire, name, item), f"{target}[{key}]")
        return [f"if {v} := {value}:", f"    for k, {item} in {v}.items():", *_indent(write, 2)]

    def item_value(self, wire, name: str, item: str) -> str:
        """A list or map item as its converter takes it. A struct's item that may be None (a
        pointer, a `[]byte`) goes through `present`, which refuses None where the converter
        takes none: protobuf has no nil items (Go's marshalers cannot write one either)."""
        if not self.structs or (wire.elem.kind == "message" and wire.elem.typedef.kind != "struct"):
            return item  # value types and wrappers take None
        elem = underlying(self.universe, wire.ref).elem
        if elem is None or not item_nullable(self.universe, elem):
            return item
        return f"{self.context.python_class('kgen.runtime.protobuf:present')}({item}, {py_string(name)})"

    def to_message(self, wire, value: str, target: str) -> list[str]:
        """Statements that write `value` into the message `target` (an expression)."""
        typedef = wire.typedef
        if typedef.kind == "struct":
            return [f"{self.function(typedef, 'to_proto')}({value}, {target})"]
        if typedef.kind == "python":
            return [f"{self.runtime(typedef, 0)}({value}, {target})"]
        wrapper = self.var("w")  # a named slice or map: { items = 1 }, present even when empty
        items = wire_items(self.universe, typedef)
        return [
            f"{wrapper} = {target}",
            f"{wrapper}.SetInParent()",
            *self.to_field(items, "items", False, value, wrapper),
        ]

    # -- message -> model ------------------------------------------------------------------

    def from_field(self, wire, name: str, pointer: bool, msg: str, empty: str = "None") -> str:
        """An expression that reads field `name` of `msg` as the model value; an absent list,
        map or `[]byte` reads as `empty` (None, or the empty value of a field never None)."""
        source = _attribute(msg, name)
        has = f"{msg}.HasField({py_string(name)})"
        or_none = " or None" if empty == "None" else ""  # an absent repeated field reads empty
        if wire.kind == "scalar":
            if empty != "None":
                return source  # an absent []byte reads as b""
            return f"{source} if {has} else None" if pointer or wire.scalar == "bytes" else source
        if wire.kind == "message":
            read = self.from_message(wire, source, empty)
            if empty != "None":
                return read  # a wrapper's absent items read empty
            return f"{read} if {has} else None" if pointer or wire.typedef.kind == "named" else read
        if wire.kind == "repeated":
            if wire.elem.kind == "scalar":
                return f"list({source}){or_none}"
            return f"[{self.from_message(wire.elem, 'i')} for i in {source}]{or_none}"
        key = "k" if wire.key.scalar == "string" else "str(k)"
        if wire.elem.kind == "scalar":
            return f"dict({source}){or_none}" if key == "k" else f"{{{key}: i for k, i in {source}.items()}}{or_none}"
        return f"{{{key}: {self.from_message(wire.elem, 'i')} for k, i in {source}.items()}}{or_none}"

    def from_message(self, wire, source: str, empty: str = "None") -> str:
        typedef = wire.typedef
        if typedef.kind == "struct":
            return f"{self.function(typedef, 'from_proto')}({source})"
        if typedef.kind == "python":
            return f"{self.runtime(typedef, 1)}({source})"
        return self.from_field(wire_items(self.universe, typedef), "items", False, source, empty)

    # -- names -----------------------------------------------------------------------------

    def function(self, typedef: TypeDef, direction: str) -> str:
        name = f"{direction}_{typedef.python_name}"
        if typedef.package == self.context.package.import_path:
            return name
        target = self.universe.package(typedef.package)
        return self.context.package_name(target, "protobuf", name)

    def runtime(self, typedef: TypeDef, index: int) -> str:
        return self.context.python_class(f"kgen.runtime.protobuf:{WELL_KNOWN[typedef.python_class][index]}")


def wire_items(universe: Universe, typedef: TypeDef):
    """The shape of a wrapper message's `items`."""
    return shape(universe, typedef.underlying)


def _attribute(msg: str, name: str) -> str:
    """`msg.name`, or getattr for proto names that are Python keywords (`continue`)."""
    return f"getattr({msg}, {py_string(name)})" if name in PYTHON_KEYWORDS else f"{msg}.{name}"


def _assign(msg: str, name: str, value: str) -> str:
    return f"setattr({msg}, {py_string(name)}, {value})" if name in PYTHON_KEYWORDS else f"{msg}.{name} = {value}"


def _indent(lines: list[str], depth: int = 1) -> list[str]:
    return ["    " * depth + line for line in lines]
