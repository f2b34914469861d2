"""Lower syntax + markers into the frozen IR (`build_universe`).

Resolution follows Go: identifiers resolve in their package, qualified names through the
file's imports; aliases (`type X = Y`) disappear into their targets; a type defined from
a struct (`type X other.Y`) gets that struct's members; embedded structs whose JSON name
is empty are promoted exactly as encoding/json promotes them. Every problem is a
diagnostic at the place it was written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from kgen.diagnostics import Diagnostics, Position
from kgen.ir import names
from kgen.ir.common import WELLKNOWN_ROOT
from kgen.ir.common import _BASIC, _VERSION, _comment_doc, _comment_lines, _named_refs, _pos, _SourceInfo, _split_pos
from kgen.ir.constraints import constraints, unions, with_embedded
from kgen.ir.constvalues import ConstantValues
from kgen.ir.loading import PackageLoading
from kgen.ir.passes import UniversePasses
from kgen.hooks import read_hook_modules
from kgen.ir.model import Field, Hook, Member, Package, ProtobufInfo, TypeDef, TypeRef, Universe
from kgen.markers.grammar import RawMarker, extract_markers
from kgen.markers.registry import REGISTRY, ConstRef, Marker, Scope
from kgen.source import buildtags
from kgen.source.loader import SourcePackage
from kgen.source.modules import Workspace
from kgen.source.syntax import CommentBlock, FieldDecl, GoFile, TypeDecl, TypeExpr
from kgen.source.tags import JSONTag, ProtobufTag, TagError, read_struct_tag

__all__ = [
    "APIMACHINERY", "META_V1", "OVERLAYS", "RUNTIME_PACKAGE", "SERVER_TYPES", "WELLKNOWN_ROOT", "BuildOptions",
    "build_universe", "is_kubernetes_group",
]  # fmt: skip

APIMACHINERY = "k8s.io/apimachinery/pkg/"
META_V1 = APIMACHINERY + "apis/meta/v1"
RUNTIME_PACKAGE = "kgen.runtime.apimachinery"

_GROUP = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_VERSION_NAME = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_IMPORT_PATH = re.compile(r"[A-Za-z0-9\-._~+/]+")
_BASIC_ALIASES = {"byte": "uint8", "rune": "int32"}
_UNSERIALIZABLE = {
    "error": "error is an interface with methods and cannot be serialized; API types hold data only "
    "(a message is a string field)",
    "complex64": "complex numbers have no JSON form (encoding/json rejects them); use two float fields",
    "complex128": "complex numbers have no JSON form (encoding/json rejects them); use two float fields",
}
"""Go's predeclared types that encoding/json cannot write."""
SERVER_TYPES = (
    *((META_V1, name) for name in (
        "APIGroup", "APIGroupList", "APIResourceList", "APIVersions", "DeleteOptions", "Status", "WatchEvent",
        "Patch",
    )),
    (APIMACHINERY + "version", "Info"),
)  # fmt: skip
"""The apimachinery types every API server serves (discovery, Status, watch events, delete
options): always in the universe, so that an API's OpenAPI documents define them."""
_APIEXTENSIONS = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/"
OVERLAYS: dict[tuple[str, str], tuple[str, ...]] = {
    **{
        (_APIEXTENSIONS + version, "JSON"): (
            "kgen:python=kgen.runtime.rawjson:JSON", "kgen:jsonType=any", "kgen:mutable",
        )
        for version in ("v1", "v1beta1")
    },
}  # fmt: skip
"""Types of packages kgen reads from their real sources (the module cache) whose JSON form
their Go code writes by hand (a MarshalJSON method kgen does not read): the markers that
tell kgen that form, as its own well-known packages carry them."""
_JSON_TYPES = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean", "array": "any"}
"""+kubebuilder:validation:Type values that make a struct a scalar on the wire, and their kgen:jsonType."""
_IDENTITY_MARKERS = (
    "genclient", "kubebuilder:object:", "kubebuilder:resource", "kubebuilder:subresource:", "kubebuilder:printcolumn",
    "kubebuilder:storageversion", "kubebuilder:skipversion", "kubebuilder:unservedversion",
    "kubebuilder:deprecatedversion", "kubebuilder:selectablefield", "kubebuilder:metadata", "k8s:deepcopy-gen",
    "kgen:storageVersion", "protobuf", "k8s:prerelease-lifecycle-gen", "resourceName", "k8s:isSubresource",
    "k8s:supportsSubresource",
)  # fmt: skip
"""Type markers that say what a kind is, not what its values are: `type A B` does not take them."""
_OPAQUE_MARKERS = (
    "kgen:opaque",
    "kubebuilder:pruning:PreserveUnknownFields",
    "kubebuilder:validation:Schemaless",
)


@dataclass
class BuildOptions:
    """What `build_universe` reads."""

    input: Path
    module: str
    import_map: dict[str, Path] = field(default_factory=dict)
    tags: frozenset[str] = buildtags.DEFAULT_TAGS
    hooks_package: str | None = None
    """Python package the input directory is imported as (for hook modules); default: its name."""
    bootstrap: bool = False
    """Build kgen's own well-known packages as the input (for kgen's runtime)."""
    environ: dict[str, str] | None = None
    """The environment Go's settings are read from (GOMODCACHE, GOPATH, GOWORK, GOFLAGS); the process's by default."""
    sources: tuple[SourcePackage, ...] | None = None
    """The input's packages when the caller has read them already (`kgen lint` reads the
    sources itself); None reads them from `input`."""


class _Builder(PackageLoading, ConstantValues, UniversePasses):
    """Builds the universe; its loading, constants and whole-universe passes are parts in
    modules of their own (see `kgen.ir.common`)."""

    def __init__(self, options: BuildOptions, diagnostics: Diagnostics):
        self.options = options
        self.diagnostics = diagnostics
        self.packages: dict[str, _SourceInfo] = {}
        self.typedefs: dict[tuple[str, str], TypeDef | None] = {}
        self.in_progress: set[tuple[str, str]] = set()
        self._type_markers: dict[tuple[str, str], list[Marker]] = {}
        self.alias_stack: set[tuple[str, str]] = set()
        self.building: list[tuple[str, str]] = []
        """The types being built, innermost last (whose member a type expression belongs to)."""
        self.unsupported: list[tuple[tuple[str, str] | None, Position, str]] = []
        """Member types kgen cannot generate (an anonymous struct, an interface with methods, a
        func, `error`...) as (owner, where, why): errors where a kind reaches the owner,
        decided once all is built (`_decide_unsupported_members`)."""
        self.untagged: list[tuple[tuple[str, str], Position, str]] = []
        """Fields without a json tag (owner, where, warning): said where a kind reaches them."""
        self.loaded_dirs: set[Path] = set()
        self.workspace: Workspace | None = None
        self.not_found: dict[str, str] = {}
        """Why an import path could not be found (reported where a type from it is used)."""
        self._const_values: dict[tuple[str, str], object] = {}

    # -- loading ----------------------------------------------------------------

    # -- resolution -------------------------------------------------------------

    def resolve_expr(self, expr: TypeExpr, package: str, go_file: GoFile, allow_any: bool = False) -> TypeRef | None:
        kind = expr.kind
        if kind == "ident":
            if expr.name in _BASIC and expr.name not in self.packages[package].decls:
                return TypeRef(kind="basic", basic=_BASIC_ALIASES.get(expr.name, expr.name))
            if expr.name == "any":
                return self._any(expr, allow_any)
            if expr.name in _UNSERIALIZABLE and expr.name not in self.packages[package].decls:
                self._unsupported(expr.position, _UNSERIALIZABLE[expr.name])
                return None
            return self.resolve_named(package, expr.name, expr.position)
        if kind == "qualified":
            imports = self.import_table(go_file)
            import_path = imports.get(expr.package)
            if import_path is None:
                self.diagnostics.error(
                    expr.position,
                    f"undefined package {expr.package!r} in {expr.text}: import it in this file",
                )
                return None
            if import_path == "time" and expr.name == "Duration":
                return TypeRef(kind="basic", basic="int64")
            if self.ensure_package(import_path) is None:
                reason = self.not_found.get(import_path) or (
                    f"cannot find package {import_path!r}: it is not a package of the input module "
                    f"{self.options.module or '(none; set --module)'}"
                )
                self.diagnostics.error(expr.position, f"{expr.text}: {reason}")
                return None
            return self.resolve_named(import_path, expr.name, expr.position)
        if kind == "pointer":
            elem = self.resolve_expr(expr.elem, package, go_file, allow_any)
            return TypeRef(kind="pointer", elem=elem) if elem else None
        if kind == "slice":
            elem = self.resolve_expr(expr.elem, package, go_file, allow_any)
            if elem is None:
                return None
            if elem.kind == "basic" and elem.basic == "uint8":
                return TypeRef(kind="basic", basic="bytes")
            return TypeRef(kind="slice", elem=elem)
        if kind == "map":
            key = self.resolve_expr(expr.key, package, go_file)
            elem = self.resolve_expr(expr.elem, package, go_file, allow_any)
            if key is None or elem is None:
                return None
            if not self._valid_map_key(key):
                self.diagnostics.error(
                    expr.key.position,
                    f"map key type {expr.key.text} cannot be a JSON object key: use string, an integer "
                    "type, or a named string type",
                )
                return None
            return TypeRef(kind="map", key=key, elem=elem)
        if kind == "interface":
            if not expr.empty_interface:
                self._unsupported(
                    expr.position, "interface types with methods cannot be serialized; API types hold data only"
                )
                return None
            return self._any(expr, allow_any)
        messages = {
            "struct": "anonymous struct types are not supported in API types; declare a named struct type",
            "func": "func fields cannot be serialized; API types hold data only",
            "chan": "channel fields cannot be serialized; API types hold data only",
        }
        if kind in messages:
            self._unsupported(expr.position, messages[kind])
            return None
        messages = {
            "array": "fixed-size arrays are not supported in API types; use a slice",
            "generic": "generic types are not supported in API types",
        }
        self.diagnostics.error(expr.position, messages.get(kind, f"unsupported type expression {expr.text}"))
        return None

    def _unsupported(self, position: Position, message: str) -> None:
        """A member type kgen cannot generate: an error where a kind reaches its type (Go
        code's own types in an API package may hold anything)."""
        if self.building:
            self.unsupported.append((self.building[-1], position, message))
        else:
            self.diagnostics.error(position, message)

    def _any(self, expr: TypeExpr, allow_any: bool) -> TypeRef | None:
        if allow_any:
            return TypeRef(kind="any")
        self.diagnostics.error(
            expr.position,
            f"{expr.text} holds arbitrary JSON: mark the field or type with +kgen:opaque "
            "(or +kubebuilder:pruning:PreserveUnknownFields) to keep it as parsed JSON",
        )
        return None

    def _valid_map_key(self, key: TypeRef) -> bool:
        if key.kind == "basic":
            return key.basic not in ("bool", "float32", "float64", "bytes")
        if key.kind == "named":
            target = self.typedef(key.package, key.name)
            return (
                target is not None
                and target.kind == "named"
                and target.underlying is not None
                and (
                    target.underlying.kind == "basic"
                    and target.underlying.basic not in ("bool", "float32", "float64", "bytes")
                )
            )
        return False

    def resolve_named(self, package: str, name: str, position: Position) -> TypeRef | None:
        info = self.packages.get(package)
        entry = info.decls.get(name) if info else None
        if entry is None:
            where = f"package {package}" if package else "this package"
            self.diagnostics.error(position, f"undefined type {name} in {where}")
            return None
        decl, go_file = entry
        if decl.alias:
            key = (package, name)
            if key in self.alias_stack:
                self.diagnostics.error(decl.position, f"type alias {name} refers to itself")
                return None
            self.alias_stack.add(key)
            try:
                return self.resolve_expr(decl.type, package, go_file, allow_any=self._is_opaque_decl(decl))
            finally:
                self.alias_stack.discard(key)
        return TypeRef(kind="named", package=package, name=name)

    # -- markers ----------------------------------------------------------------

    def parse_markers(self, blocks: tuple[CommentBlock, ...], scope: Scope) -> tuple[Marker, ...]:
        out: list[Marker] = []
        for block in blocks:
            for raw in extract_markers(block):
                marker = REGISTRY.parse(raw, scope, self.diagnostics)
                if marker is not None:
                    out.append(marker)
        # A type implemented by a Python class takes its wire forms from that class, whatever
        # go-to-protobuf's markers say (apimachinery's Time and Quantity carry them).
        if not any(m.name == "kgen:python" for m in out):
            for marker in out:
                definition = REGISTRY.lookup(marker.name)
                if definition is not None and definition.unapplied:
                    self.diagnostics.warning(
                        Position.parse(marker.position), f"+{marker.name} is not applied: {definition.unapplied}"
                    )
        return tuple(self._first_of_repeats(out))

    def _first_of_repeats(self, markers: list[Marker]) -> list[Marker]:
        """A marker that takes one value, given again, counts once: the first, as
        controller-gen (MarkerValues.Get) and gengo's callers read it; a different value is
        a warning."""
        seen: dict[str, Marker] = {}
        kept: list[Marker] = []
        for marker in markers:
            definition = REGISTRY.lookup(marker.name)
            if definition is None or definition.repeatable:
                kept.append(marker)
                continue
            first = seen.get(marker.name)
            if first is None:
                seen[marker.name] = marker
                kept.append(marker)
            elif first.value != marker.value or first.args != marker.args:
                self.diagnostics.warning(
                    Position.parse(marker.position),
                    f"+{marker.name} is given twice with different values (first at {first.position}); the first "
                    "counts, as controller-gen and gengo read it: keep one",
                )
        return kept

    def _is_opaque_decl(self, decl: TypeDecl) -> bool:
        blocks = (decl.prior, decl.doc)
        return any(raw.text.split("=")[0] in _OPAQUE_MARKERS for block in blocks for raw in extract_markers(block))

    # -- type definitions ---------------------------------------------------------

    def typedef(self, package: str, name: str) -> TypeDef | None:
        key = (package, name)
        if key in self.typedefs:
            return self.typedefs[key]
        if key in self.in_progress:
            decl = self.packages[package].decls[name][0]
            self.diagnostics.error(
                decl.position,
                f"type {name} contains itself by value (through embedding or a struct field); use a pointer",
            )
            return None
        self.in_progress.add(key)
        self.building.append(key)
        try:
            result = self._build_typedef(package, name)
        finally:
            self.in_progress.discard(key)
            self.building.pop()
        self.typedefs[key] = result
        return result

    def _declaration(self, package: str, name: str) -> TypeDecl | None:
        """The declaration of a type of a loaded package, or None."""
        info = self.packages.get(package)
        entry = info.decls.get(name) if info is not None else None
        return entry[0] if entry is not None else None

    def type_markers(self, package: str, name: str) -> list[Marker]:
        """The markers of a type declaration, read once (problems are reported once), with
        kgen's own for the types whose JSON form Go code writes by hand (`OVERLAYS`)."""
        key = (package, name)
        if key not in self._type_markers:
            decl = self.packages[package].decls[name][0]
            markers = list(self.parse_markers((decl.prior, decl.doc), Scope.TYPE))
            for text in OVERLAYS.get(key, ()):
                marker = REGISTRY.parse(RawMarker(text, decl.position), Scope.TYPE, self.diagnostics)
                if marker is not None:
                    markers.append(marker)
            self._type_markers[key] = markers
        return self._type_markers[key]

    def _build_typedef(self, package: str, name: str) -> TypeDef | None:
        info = self.packages[package]
        decl, go_file = info.decls[name]
        markers = self.type_markers(package, name)
        marker_names = {m.name for m in markers}
        common = dict(
            validation=constraints(markers),
            openapi=constraints(markers, view="openapi"),
            crd=constraints(markers, view="crd"),
            name=name,
            package=package,
            python_name=names.python_class(name),
            doc=_comment_doc(decl.doc),
            comment=_comment_lines(decl.doc),
            markers=markers,
            position=_pos(decl.position),
        )
        python_marker = next((m for m in markers if m.name == "kgen:python"), None)
        if python_marker is not None:
            json_type = next((m.value for m in markers if m.name == "kgen:jsonType"), "any")
            members = self.members(decl.type.fields, package, go_file) if decl.type.kind == "struct" else []
            return TypeDef(
                kind="python",
                members=tuple(members),
                python_class=python_marker.value,
                json_type=json_type,
                mutable="kgen:mutable" in marker_names,
                **common,
            )
        expr = decl.type
        json_type = next((m.value for m in markers if m.name == "kubebuilder:validation:Type"), None)
        if expr.kind == "struct" and json_type in _JSON_TYPES:
            # A struct whose Go code writes it as a scalar (cluster-api's BootstrapTokenString is
            # "abcdef.0123456789abcdef"), as +kubebuilder:validation:Type says: its value is kept
            # as the JSON it is, since kgen cannot know the Go code that splits it.
            self.diagnostics.note(
                decl.position,
                f"{name} is a struct written as a JSON {json_type} (+kubebuilder:validation:Type): kgen keeps its "
                "value as JSON, not as fields",
            )
            return TypeDef(
                kind="python", python_class="kgen.runtime.rawjson:JSON", json_type=_JSON_TYPES[json_type],
                mutable=True, **common,
            )  # fmt: skip
        if expr.kind == "struct":
            members = self.members(expr.fields, package, go_file)
            return self._struct(common, members, package, decl.position)
        opaque = any(m.name in _OPAQUE_MARKERS for m in markers)
        underlying = self.resolve_expr(expr, package, go_file, allow_any=opaque)
        if underlying is None:
            return None
        if underlying.kind == "named":
            target = self.typedef(underlying.package, underlying.name)
            if target is None:
                return None
            # `type A B` takes B's type markers (validation, list and map semantics, enum,
            # default) as controller-gen does; A's own come after them, so they win.
            inherited = tuple(m for m in target.markers if not m.name.startswith(_IDENTITY_MARKERS))
            if target.kind != "python" and inherited:
                markers = [*inherited, *markers]
                marker_names |= {m.name for m in inherited}
                common |= {
                    "markers": tuple(markers),
                    "validation": constraints(markers),
                    "openapi": constraints(markers, view="openapi"),
                    "crd": constraints(markers, view="crd"),
                }
            if target.kind == "struct":
                return self._struct(
                    common, list(target.members), package, decl.position,
                    defined_from=f"{target.package}.{target.name}",
                )  # fmt: skip
            if target.kind == "python":
                return target.model_copy(update=common | {"markers": target.markers + tuple(markers)})
            underlying = target.underlying
        enum_values = self.enum_values(info, name)
        is_enum = bool(marker_names & {"enum", "k8s:enum"}) and (
            bool(enum_values) or any(m.name in ("enum", "k8s:enum") for m in self.type_markers(package, name))
        )
        if is_enum and not enum_values:
            self.diagnostics.warning(decl.position, f"+enum on {name}, but no constants of type {name} are declared")
        return TypeDef(kind="named", underlying=underlying, enum_values=enum_values, is_enum=is_enum, **common)

    # -- constants ----------------------------------------------------------------

    def members(self, fields: tuple[FieldDecl, ...], package: str, go_file: GoFile) -> list[Member]:
        out: list[Member] = []
        for decl in fields:
            tags, problem = read_struct_tag(decl.tag) if decl.tag else ({}, None)
            if problem is not None:  # go vet's complaint; the build takes what Go reads
                self.diagnostics.warning(decl.tag_position or decl.position, problem)
            json_tag = JSONTag.parse(tags.get("json"))
            if "json" not in tags and problem is None and decl.names and self.building and self._versioned_api(package):
                # Go writes the field under its Go name; controller-gen and kube-api-linter ask
                # for a tag (said where a kind reaches the field: Go code's own types need none)
                self.untagged.append((
                    self.building[-1],
                    decl.tag_position or decl.position,
                    f"field {decl.names[0]} has no json tag, so its JSON name is {decl.names[0]!r} and it is required "
                    f"in the CRD; add `json:\"{decl.names[0][:1].lower() + decl.names[0][1:]},omitempty\"` (or the name "
                    "it has on the wire)",
                ))  # fmt: skip
            if json_tag.skip and tags.get("protobuf", "-") == "-":
                # `json:"-"` and in no protobuf message: not part of the API, so its type is
                # never read (controller-gen's schema skips it the same way)
                continue
            markers = self.parse_markers((decl.doc,), Scope.FIELD)
            opaque = any(m.name in _OPAQUE_MARKERS for m in markers)
            type_ref = self.resolve_expr(decl.type, package, go_file, allow_any=opaque)
            protobuf = None
            if "protobuf" in tags and tags["protobuf"] != "-":  # `protobuf:"-"`: not in the message
                try:
                    parsed = ProtobufTag.parse(tags["protobuf"])
                    if parsed.trimmed:
                        self.diagnostics.warning(
                            decl.tag_position or decl.position,
                            f"protobuf tag {tags['protobuf']!r} has spaces around a part; read as "
                            f"{parsed.name or 'written'!r} (go-to-protobuf copies them into the .proto): remove them",
                        )
                    protobuf = ProtobufInfo(
                        wire_type=parsed.wire_type, number=parsed.number, label=parsed.label,
                        name=parsed.name, options=dict(parsed.options),
                    )  # fmt: skip
                except TagError as err:
                    self.diagnostics.error(decl.tag_position or decl.position, str(err))
            if type_ref is None:
                continue
            if not self._holds_data_ref(type_ref, decl):
                continue
            doc = _comment_doc(decl.doc)
            comment = _comment_lines(decl.doc)
            go_names = decl.names or (_embedded_name(decl.type),)
            for go_name in go_names:
                embedded = decl.embedded
                promoted = embedded and not json_tag.skip and json_tag.name == "" and self._is_struct(type_ref)
                json_name = None if json_tag.skip or promoted else (json_tag.name or go_name)
                out.append(
                    Member(
                        go_name=go_name, type=type_ref, embedded=embedded, promoted=promoted,
                        json_name=json_name, protobuf=protobuf, tags=tags, markers=markers, doc=doc,
                        comment=comment, position=_pos(decl.position),
                    )  # fmt: skip
                )
        return out

    def _versioned_api(self, import_path: str) -> bool:
        """A versioned API package of the input (internal types carry no json tags)."""
        info = self.packages.get(import_path)
        if info is None or info.role != "api":
            return False
        directory = (
            info.source.relative_dir.rsplit("/", 1)[-1] if info.source.relative_dir else info.source.directory.name
        )
        return bool(_VERSION.match(directory)) or any(m.name == "versionName" for m in info.markers)

    def _holds_data_ref(self, ref: TypeRef, member: FieldDecl) -> bool:
        """Report a member whose named type is an interface with methods, a func or a chan."""
        for named in _named_refs(ref):
            decl = self._declaration(named.package, named.name)
            if decl is not None and not _holds_data(decl):
                what = {"func": "a func type", "chan": "a channel type"}.get(
                    decl.type.kind, "an interface with methods"
                )
                name = member.names[0] if member.names else _embedded_name(member.type)
                self._unsupported(
                    member.type.position,
                    f"field {name}: {named.name} is {what}, which cannot be serialized; API types hold data only",
                )
                return False
        return True

    def _is_struct(self, ref: TypeRef) -> bool:
        if ref.kind == "pointer":
            ref = ref.elem
        if ref.kind != "named":
            return False
        target = self.typedef(ref.package, ref.name)
        return target is not None and target.kind == "struct"

    def _struct(
        self, common: dict, members: list[Member], package: str, position: Position, defined_from: str | None = None
    ) -> TypeDef:
        candidates: list[tuple[Member, int, tuple[str, ...], bool, str]] = []
        self._collect(members, 0, (), candidates, package, set())
        by_name: dict[str, list[tuple[Member, int, tuple[str, ...], bool, str]]] = {}
        for candidate in candidates:
            by_name.setdefault(candidate[0].json_name, []).append(candidate)
        fields: list[Field] = []
        taken: set[str] = set()
        for candidate in candidates:
            member, depth, path, tagged, declaring_package = candidate
            group = by_name[member.json_name]
            dominant = _dominant(group)
            if dominant is None:
                if candidate is group[0] and min(c[1] for c in group) == 0:
                    shallow = [c for c in group if c[1] == 0]
                    if len(shallow) > 1:
                        self.diagnostics.error(
                            Position(*_split_pos(shallow[1][0].position)),
                            f"fields {shallow[0][0].go_name} and {shallow[1][0].go_name} both use the JSON name "
                            f"{member.json_name!r}; Go would drop both: rename one",
                        )
                continue
            if dominant is not candidate:
                continue
            fields.append(self._field(member, path, declaring_package, taken))
        found = self._unions(common["markers"], fields)
        embedded_unions, views = self._embedded_rules(
            members, fields, {view: common[view] for view in ("validation", "openapi", "crd")}
        )
        struct_unions = [u for u in found if u.origin == "union"]
        unions_ = (*struct_unions, *embedded_unions, *(u for u in found if u.origin != "union"))
        typedef = TypeDef(
            kind="struct", members=tuple(members), fields=tuple(fields), defined_from=defined_from,
            unions=unions_, **(common | views),
        )  # fmt: skip
        return self._classify(typedef)

    def _unions(self, type_markers, fields) -> tuple:
        def report(position: str, message: str) -> None:
            self.diagnostics.error(Position(*_split_pos(position)), message)

        return unions(type_markers, fields, report)

    def _embedded_rules(self, members: list[Member], fields: list[Field], views: dict):
        """Unions and type rules of the structs embedded inline: they hold of this struct's JSON.

        A union is kept only when all its fields are still visible here, reached through the
        embedding (an outer field of the same JSON name hides an embedded one, as in Go)."""
        visible = {f.json_name: f for f in fields}
        found = []
        for member in members:
            if not member.promoted:
                continue
            ref = member.type.elem if member.type.kind == "pointer" else member.type
            target = self.typedef(ref.package, ref.name)
            if target is None:
                continue
            views = {view: with_embedded(own, getattr(target, view)) for view, own in views.items()}
            candidates = list(target.unions)
            marker = next((m for m in member.markers if m.name == "union"), None)
            if marker is not None and not any(u.origin == "union" for u in candidates):
                candidates = [*self._unions([marker], target.fields), *candidates]
            for union in candidates:
                names_ = [m.json_name for m in union.members] + ([union.discriminator] if union.discriminator else [])
                hidden = [n for n in names_ if n not in visible or visible[n].go_path[:1] != (member.go_name,)]
                if hidden:
                    self.diagnostics.warning(
                        Position(*_split_pos(member.position)),
                        f"the union of embedded {ref.name} does not hold here: its field(s) {', '.join(hidden)} "
                        f"are hidden by fields of the same JSON name; rename them to keep the union",
                    )
                    continue
                found.append(union)
        return tuple(found), views

    def _collect(self, members, depth, path, out, package, visiting: set) -> None:
        for member in members:
            member_path = path + (member.go_name,)
            if member.promoted:
                ref = member.type.elem if member.type.kind == "pointer" else member.type
                key = (ref.package, ref.name)
                if key in visiting:
                    continue
                target = self.typedef(ref.package, ref.name)
                if target is None:
                    continue
                self._collect(target.members, depth + 1, member_path, out, ref.package, visiting | {key})
                continue
            if member.json_name is None:
                continue
            tagged = JSONTag.parse(member.tags.get("json")).name != ""
            out.append((member, depth, member_path, tagged, package))

    def _field(self, member: Member, path: tuple[str, ...], package: str, taken: set[str]) -> Field:
        tags = member.tags
        json_tag = JSONTag.parse(tags.get("json"))
        default, declared_default, default_is_ref = self._default(member, package)
        return Field(
            go_name=member.go_name,
            go_path=path,
            json_name=member.json_name,
            python_name=names.python_attribute(member.json_name, taken),
            type=member.type,
            doc=member.doc,
            markers=member.markers,
            omitempty=json_tag.omitempty,
            omitzero=json_tag.omitzero,
            json_string=json_tag.string,
            optional=self._optional(member, json_tag, package),
            protobuf=member.protobuf,
            patch_strategy=tags.get("patchStrategy"),
            patch_merge_key=tags.get("patchMergeKey"),
            tags=tags,
            default=default,
            declared_default=declared_default,
            default_is_ref=default_is_ref,
            validation=constraints(member.markers, self._package_presence(package)),
            openapi=constraints(member.markers, self._package_presence(package), view="openapi"),
            crd=constraints(member.markers, self._package_presence(package), view="crd"),
            position=member.position,
        )

    def _package_presence(self, package: str) -> str | None:
        package_markers = {m.name for m in self.packages[package].markers}
        if "kubebuilder:validation:Optional" in package_markers:
            return "optional"
        if "kubebuilder:validation:Required" in package_markers:
            return "required"
        return None

    def _default(self, member: Member, package: str):
        """The field's default as defaulting applies it (its own marker, else its named type's;
        zero values count as none), and as the markers declare it (a zero value included)."""
        own = [m for m in member.markers if m.name in ("default", "kubebuilder:default")]
        values = [self._default_value(m, package) for m in own]
        # The same marker twice is reported with every repeated marker; this is +default vs +kubebuilder:default.
        if len({m.name for m in own}) > 1 and len({repr(v) for v in values}) > 1:
            self.diagnostics.error(
                Position(*_split_pos(own[1].position)),
                f"field {member.go_name} has two different defaults (+{own[0].name}={_json(values[0])} at "
                f"{own[0].position} and +{own[1].name}={_json(values[1])}); keep one",
            )
        value = values[0] if values else None
        from_ref = bool(own) and all(isinstance(m.value, ConstRef) for m in own)
        if not own:
            # The named type's own default; read from its declaration, not its built TypeDef,
            # so a field never builds the type it points to (a pointer may close a cycle).
            ref = member.type.elem if member.type.kind == "pointer" else member.type
            if ref.kind == "named" and self._declaration(ref.package, ref.name) is not None:
                marker = next(
                    (
                        m
                        for m in self.type_markers(ref.package, ref.name)
                        if m.name in ("default", "kubebuilder:default")
                    ),
                    None,
                )
                value = self._default_value(marker, ref.package) if marker else None
                from_ref = marker is not None and isinstance(marker.value, ConstRef)
        if value is None or (member.type.kind != "pointer" and self._is_zero_json(member.type, value)):
            return None, value, from_ref
        return value, value, from_ref

    def _default_value(self, marker: Marker, package: str):
        """A default marker's JSON value; `ref(Name)` is the constant's value, as defaulter-gen reads it."""
        if not isinstance(marker.value, ConstRef):
            return marker.value
        where = marker.value.package or package
        if where != package:
            self.ensure_package(where)
        value = self.const_value(where, marker.value.name)
        if value is None:
            self.diagnostics.error(
                Position(*_split_pos(marker.position)),
                f"+{marker.name}=ref({marker.value.package + '.' if marker.value.package else ''}{marker.value.name}): "
                f"no constant {marker.value.name} in {where} that kgen can evaluate",
            )
        return value

    def _is_zero_json(self, ref: TypeRef, value) -> bool:
        """Whether a JSON default is the Go zero value of a non-pointer type."""
        base = ref
        while base.kind == "named":
            key = (base.package, base.name)
            typedef = self.typedefs.get(key)
            decl = self._declaration(*key) if typedef is None and key not in self.in_progress else None
            if decl is not None and decl.type.kind != "struct":
                typedef = self.typedef(*key)  # a named scalar, declared later: safe to build now
            if typedef is None or typedef.kind != "named" or typedef.underlying is None:
                return False
            base = typedef.underlying
        if base.kind != "basic":
            return False
        if base.basic == "string":
            return value == ""
        if base.basic == "bool":
            return value is False
        if base.basic == "bytes":
            return False
        return type(value) in (int, float) and value == 0

    def _optional(self, member: Member, json_tag: JSONTag, package: str) -> bool:
        names_ = {m.name for m in member.markers}
        if names_ & {"optional", "k8s:optional", "kubebuilder:validation:Optional"}:
            return True
        if names_ & {"required", "k8s:required", "kubebuilder:validation:Required"}:
            return False
        presence = self._package_presence(package)
        if presence is not None:
            return presence == "optional"
        return json_tag.omitempty or json_tag.omitzero

    def _classify(self, typedef: TypeDef) -> TypeDef:
        promoted = {
            m.type.name for m in typedef.members if m.promoted and m.type.kind == "named" and m.type.package == META_V1
        }
        metadata = next((f for f in typedef.fields if f.json_name == "metadata"), None)
        meta_name = (
            metadata.type.name
            if metadata and metadata.type.kind == "named" and metadata.type.package == META_V1
            else None
        )
        if "TypeMeta" not in promoted:
            return typedef
        items = next((f for f in typedef.fields if f.json_name == "items"), None)
        if meta_name == "ListMeta" and items is not None and items.type.kind == "slice":
            return typedef.model_copy(update={"is_list": True, "list_item": items.type.elem})
        root_markers = {"genclient", "kubebuilder:object:root", "k8s:deepcopy-gen:interfaces"}
        if meta_name == "ObjectMeta" or any(m.name in root_markers for m in typedef.markers):
            return typedef.model_copy(update={"is_kind": True})
        return typedef

    # -- packages -----------------------------------------------------------------

    def build(self) -> Universe:
        self.load()
        named = self._load_conversion_packages()
        for import_path, info in list(self.packages.items()):
            if info.role != "api" and not (self.options.bootstrap and info.builtin) and import_path not in named:
                continue  # only what API types reach is read from other packages
            for name, (decl, _) in list(info.decls.items()):
                if not _holds_data(decl):
                    continue  # a func, chan or interface type (or an alias of one) no field uses
                if decl.alias:
                    self.resolve_named(import_path, name, decl.position)
                else:
                    self.typedef(import_path, name)
        if not self.options.bootstrap:
            for import_path, name in SERVER_TYPES:
                if name in self.packages[import_path].decls:
                    self.typedef(import_path, name)
        self._reach()
        self._decide_unsupported_members()
        self._check_import_cycles()
        self._check_value_cycles()
        self._break_alias_cycles()
        self._match_default_keys()
        packages = [
            self.package(path, info)
            for path, info in sorted(self.packages.items())
            if info.role == "api" or (self.options.bootstrap and info.builtin) or self._built_in(path)
        ]
        self._check_python_collisions(packages)
        return Universe(
            module=self.options.module, packages=tuple(packages), api_rule_exceptions=self._api_rule_exceptions()
        )

    def _check_group_version(self, info: _SourceInfo, group: str, version: str) -> None:
        """A group is a DNS subdomain (or "" for the core group) and a version a DNS label
        starting with a letter, as the API server requires: they name URLs, Scheme entries
        and generated code."""
        if info.builtin or info.dependency:
            return
        import_path = info.source.import_path
        if import_path and not _IMPORT_PATH.fullmatch(import_path):
            self.diagnostics.error(
                self._package_position(info),
                f"import path {import_path!r} is not one Go accepts (letters, digits and -._~+/ only); "
                "rename the directory or fix the module path in go.mod or --module",
            )
        for name, value, check in (("groupName", group, _GROUP), ("versionName", version, _VERSION_NAME)):
            if name == "versionName" and value == "__internal":
                continue
            if value == "" and name == "groupName":
                continue
            if check.fullmatch(value) and len(value) <= (253 if name == "groupName" else 63):
                continue
            marker = next((m for m in info.markers if m.name == name), None)
            where = (
                Position(*_split_pos(marker.position))
                if marker is not None and marker.position
                else self._package_position(info)
            )
            what = (
                "a lowercase DNS subdomain such as example.com (or empty for the core group)"
                if name == "groupName"
                else ("a lowercase DNS label starting with a letter, such as v1 or v1beta1")
            )
            source = f"+{name}" if marker is not None else "the package directory"
            self.diagnostics.error(where, f"{source} gives {name[:-4]} {value!r}, which is not {what}")

    def _package_position(self, info: _SourceInfo) -> Position:
        first = info.source.files[0] if info.source.files else None
        return Position(first.path if first is not None else str(info.source.directory), 1, 1)

    def package(self, import_path: str, info: _SourceInfo) -> Package:
        source = info.source
        directory = source.relative_dir.rsplit("/", 1)[-1] if source.relative_dir else source.directory.name
        group_marker = next((m.value for m in info.markers if m.name == "groupName"), None)
        version_marker = next((m.value for m in info.markers if m.name == "versionName"), None)
        internal = not info.builtin and not _VERSION.match(directory) and version_marker is None
        if internal:
            group, version = group_marker if group_marker is not None else directory, "__internal"
        else:
            parent = source.relative_dir.rsplit("/", 2)[-2] if "/" in source.relative_dir else ""
            group, version = group_marker if group_marker is not None else parent, version_marker or directory
        self._check_group_version(info, group, version)
        if info.builtin:
            group = group_marker or ""
            relative = import_path.removeprefix(APIMACHINERY).replace("apis/", "", 1)
            output_dir = "/".join(names.python_identifier(p) for p in relative.split("/"))
            python_package = (
                output_dir.replace("/", ".")
                if self.options.bootstrap
                else f"{RUNTIME_PACKAGE}.{output_dir.replace('/', '.')}"
            )
            generate = self.options.bootstrap
        elif info.dependency:
            output_dir = "_deps/" + "/".join(names.python_identifier(p) for p in import_path.split("/"))
            python_package, generate = output_dir.replace("/", "."), True
        else:
            output_dir = "/".join(names.python_identifier(p) for p in source.relative_dir.split("/") if p)
            python_package, generate = output_dir.replace("/", "."), True
        types = []
        for name, (decl, _) in info.decls.items():
            if decl.alias:
                continue
            typedef = self.typedefs.get((import_path, name))
            if typedef is not None:
                types.append(typedef)
        hooks: tuple[Hook, ...] = ()
        hooks_module = None
        if not info.builtin and not info.dependency:
            shown_directory = source.files[0].path.rsplit("/", 1)[0] if "/" in source.files[0].path else ""
            found = read_hook_modules(source.directory, shown_directory, self.diagnostics)
            hooks = tuple(
                Hook(
                    module=h.module, name=h.name, parameters=h.parameters, flexible=h.flexible, position=str(h.position)
                )
                for h in found
            )
            if hooks:
                root = self.options.hooks_package or self.options.input.resolve().name
                parts = [*root.split("."), *(p for p in source.relative_dir.split("/") if p)]
                hooks_module = ".".join(parts)
                unimportable = next((p for p in parts if not p.isidentifier() or p in names.PYTHON_KEYWORDS), None)
                if unimportable is not None:
                    # generated code imports the hooks as a package: each directory is a part of its name
                    self.diagnostics.error(
                        Position.parse(hooks[0].position),
                        f"the hooks beside {import_path} cannot be imported as {hooks_module}: {unimportable!r} is "
                        "not a Python package name; rename that directory"
                        + ("" if self.options.hooks_package else ", or set hooks-package in [tool.kgen] "
                           "to the package the input directory is imported as"),
                    )  # fmt: skip
        doc_file = next((f for f in source.files if Path(f.path).name == "doc.go"), None)
        doc = ""
        if doc_file is not None and doc_file.package_doc:
            last = doc_file.package_doc[-1]
            if last.last_line == doc_file.package_position.line - 1:
                doc = _comment_doc(last)
        custom_resources = (
            info.role == "api" and not internal and not is_kubernetes_group(group, import_path)
            and not any(m.name == "kubebuilder:skip" for m in info.markers)
        )  # fmt: skip
        return Package(
            import_path=import_path,
            go_name=source.files[0].package,
            group=group,
            version=version,
            internal=internal,
            role=info.role,
            custom_resources=custom_resources,
            output_dir=output_dir,
            python_package=python_package,
            builtin=info.builtin,
            generate=generate,
            doc=doc,
            markers=info.markers,
            files=tuple(f.path for f in source.files),
            types=tuple(types),
            hooks=hooks,
            manual_conversions=tuple(
                sorted({n for f in source.files for n in f.functions if n.startswith("Convert_")})
            ),
            hooks_module=hooks_module,
        )


def _json(value) -> str:
    return json.dumps(value)


def _dominant(group):
    """Go's dominantField: the shallowest field wins; ties are broken by a JSON tag; else none."""
    depth = min(c[1] for c in group)
    shallow = [c for c in group if c[1] == depth]
    if len(shallow) == 1:
        return shallow[0]
    tagged = [c for c in shallow if c[3]]
    return tagged[0] if len(tagged) == 1 else None


KUBERNETES_GROUPS = frozenset({
    "admission.k8s.io", "admissionregistration.k8s.io", "apidiscovery.k8s.io", "apiextensions.k8s.io",
    "apiregistration.k8s.io", "apiserver.k8s.io", "audit.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
    "certificates.k8s.io", "coordination.k8s.io", "custom.metrics.k8s.io", "discovery.k8s.io", "events.k8s.io",
    "external.metrics.k8s.io", "flowcontrol.apiserver.k8s.io", "imagepolicy.k8s.io", "internal.apiserver.k8s.io",
    "lifecycle.k8s.io", "meta.k8s.io", "metrics.k8s.io", "networking.k8s.io", "node.k8s.io",
    "rbac.authorization.k8s.io", "resource.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "storagemigration.k8s.io",
    "abac.authorization.kubernetes.io",
})  # fmt: skip
"""The API groups the Kubernetes API server serves itself (never custom resources)."""
KUBERNETES_MODULES = (
    "k8s.io/api/", "k8s.io/apimachinery/", "k8s.io/apiextensions-apiserver/", "k8s.io/apiserver/",
    "k8s.io/kube-aggregator/", "k8s.io/metrics/", "k8s.io/kubernetes/",
)  # fmt: skip


def is_kubernetes_group(group: str, import_path: str) -> bool:
    """Whether a group is one of Kubernetes' own: a group name without a dot (core, apps,
    batch...; a custom resource's group has one), a known built-in group, or any group
    declared in Kubernetes' own API modules."""
    return "." not in group or group in KUBERNETES_GROUPS or import_path.startswith(KUBERNETES_MODULES)


def _holds_data(decl: TypeDecl) -> bool:
    """Whether a declaration can be an API type: not an interface with methods, a func or a
    chan type, which an API package may declare for its Go code (they are errors only when a
    field uses them)."""
    kind = decl.type.kind
    return not (kind in ("func", "chan") or (kind == "interface" and not decl.type.empty_interface))


def _embedded_name(expr: TypeExpr) -> str:
    while expr.kind == "pointer" and expr.elem is not None:
        expr = expr.elem
    return expr.name or expr.text


def build_universe(options: BuildOptions, diagnostics: Diagnostics) -> Universe:
    """Read the input (and what it imports) into a resolved, frozen Universe.

    Problems are reported to `diagnostics`; the caller decides whether to stop."""
    return _Builder(options, diagnostics).build()
