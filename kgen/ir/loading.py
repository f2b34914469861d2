"""The IR builder's loading part: kgen's well-known packages, the input's, and the packages
they import, found as the go command finds them (workspace, module cache, import map)."""

from __future__ import annotations

from pathlib import Path

from kgen.diagnostics import Position, display_path
from kgen.ir.common import WELLKNOWN_ROOT, _SourceInfo, _default_package_name
from kgen.markers.grammar import extract_markers
from kgen.markers.registry import REGISTRY, Marker, Scope
from kgen.source.loader import SourcePackage, load_package, load_packages
from kgen.source.modules import ModFileError, PackageNotFound, Workspace
from kgen.source.syntax import ConstDecl, GoFile, TypeDecl


class PackageLoading:
    """A part of the IR builder (`kgen.ir.build._Builder`); its state lives there."""

    def load(self) -> None:
        builtin = load_packages(WELLKNOWN_ROOT, "", self.diagnostics, self.options.tags, label="")
        for source in builtin:
            self.register(source, builtin=True, dependency=False)
        if self.options.bootstrap:
            return
        sources = self.options.sources
        if sources is None:
            sources = tuple(load_packages(self.options.input, self.options.module, self.diagnostics, self.options.tags))
        for source in sources:
            if source.import_path in self.packages:
                continue  # a well-known package kgen already knows
            self.register(source, builtin=False, dependency=False)

    def register(self, source: SourcePackage, builtin: bool, dependency: bool) -> None:
        decls: dict[str, tuple[TypeDecl, GoFile]] = {}
        consts: list[tuple[ConstDecl, GoFile]] = []
        package_markers: list[Marker] = []
        for go_file in source.files:
            for block in go_file.package_doc:
                for raw in extract_markers(block):
                    marker = REGISTRY.parse(raw, Scope.PACKAGE, self.diagnostics)
                    if marker is not None:
                        package_markers.append(marker)
            # controller-tools reads a package marker from any comment that documents no
            # declaration (kubebuilder writes +kubebuilder:webhook above its webhook code)
            documented = set(map(id, go_file.package_doc))
            for block in go_file.comment_blocks:
                if id(block) in documented:
                    continue
                for raw in extract_markers(block):
                    if REGISTRY.is_floating(raw.text):
                        marker = REGISTRY.parse(raw, Scope.PACKAGE, self.diagnostics)
                        if marker is not None:
                            package_markers.append(marker)
            for decl in go_file.types:
                previous = decls.get(decl.name)
                if previous is not None:
                    self.diagnostics.error(
                        decl.position,
                        f"type {decl.name} is declared twice in package {source.import_path or '.'} "
                        f"(first at {previous[0].position}); give one file a build constraint or rename one",
                    )
                    continue
                decls[decl.name] = (decl, go_file)
            consts.extend((c, go_file) for c in go_file.consts)
        self.packages[source.import_path] = _SourceInfo(
            source, decls, consts, tuple(package_markers), builtin, dependency,
            const_index={c.name: (c, f) for c, f in consts},
        )  # fmt: skip

    def ensure_package(self, import_path: str) -> _SourceInfo | None:
        """The package of an import path, read on first use: from an import-map directory,
        else where the go command finds it (kgen.source.modules). Only the package's own
        directory is read. None when it cannot be found (`not_found` says why)."""
        if import_path in self.packages:
            return self.packages[import_path]
        if import_path in self.not_found:
            return None
        directory, third_party = self._locate(import_path)
        if directory is None:
            return None
        source = load_package(directory, import_path, self.diagnostics, self.options.tags)
        if source is None:
            self.not_found[import_path] = f"{display_path(directory)} has no Go files for this build"
            return None
        if third_party:
            self.diagnostics.third_party.add(display_path(directory))
        self.register(source, builtin=False, dependency=True)
        return self.packages[import_path]

    def _locate(self, import_path: str) -> tuple[Path | None, bool]:
        """The directory of an imported package and whether it is third-party code."""
        for prefix, directory in sorted(self.options.import_map.items(), key=lambda kv: -len(kv[0])):
            if import_path == prefix or import_path.startswith(prefix + "/"):
                rest = import_path[len(prefix) :].strip("/")
                target = directory.resolve().joinpath(*rest.split("/")) if rest else directory.resolve()
                if target.is_dir():
                    return target, True
                self.not_found[import_path] = (
                    f"cannot find package {import_path!r}: the import map points {prefix} at "
                    f"{display_path(directory)}, which has no directory {rest or '.'}"
                )
                return None, False
        if "." not in import_path.split("/", 1)[0]:
            self.not_found[import_path] = (
                f"{import_path!r} is a package of Go's standard library, which API types cannot use "
                "(kgen knows time.Duration); use a Kubernetes type (metav1.Time, metav1.Duration...)"
            )
            return None, False
        if self.workspace is None:
            try:
                self.workspace = Workspace.find(self.options.input, self.options.environ)
            except ModFileError as err:
                self.diagnostics.error(err.position, str(err).split(": ", 1)[-1] if ": " in str(err) else str(err))
                self.workspace = Workspace(None)
        try:
            located = self.workspace.locate(import_path)
        except PackageNotFound as err:
            self.not_found[import_path] = str(err)
            return None, False
        return located.directory, located.via not in ("main module", "workspace")

    def import_table(self, go_file: GoFile) -> dict[str, str]:
        table: dict[str, str] = {}
        for imp in go_file.imports:
            if imp.alias in ("_", "."):
                continue
            alias = imp.alias
            if not alias:
                info = self.ensure_package(imp.path)
                alias = info.source.files[0].package if info else _default_package_name(imp.path)
            table[alias] = imp.path
        return table

    def _load_conversion_packages(self) -> set[str]:
        """The packages conversion-gen markers name (`+k8s:conversion-gen-external-types`, the
        versioned types of an internal-types layout such as kubernetes' pkg/apis/<group>/<v>
        beside k8s.io/api, and `+k8s:conversion-gen`, the hub), read even when no type imports
        them: every type of theirs is built, as conversion-gen converts them all."""
        named: set[str] = set()
        for info in list(self.packages.values()):
            if info.role != "api":
                continue
            for marker in info.markers:
                if marker.name not in ("k8s:conversion-gen-external-types", "k8s:conversion-gen"):
                    continue
                import_path = str(marker.value)
                if "/" not in import_path or import_path in self.packages:  # `false`, or loaded
                    named.add(import_path)
                    continue
                if self.ensure_package(import_path) is None:
                    reason = self.not_found.get(import_path) or f"cannot find package {import_path!r}"
                    self.diagnostics.error(
                        Position.parse(marker.position),
                        f"+{marker.name}={import_path}: {reason}; point --import-map at its directory "
                        "(or vendor it, or have it in the Go module cache)",
                    )
                    continue
                named.add(import_path)
        return named

    def _built_in(self, import_path: str) -> bool:
        """Whether any type of the package was built (reached from an API type)."""
        return any(key[0] == import_path and typedef is not None for key, typedef in self.typedefs.items())
