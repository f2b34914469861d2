"""How `kgen serve` gets the API's code: one pipeline run, written to a private directory.

`load(options)` runs the pipeline on the input (answered from kgen's run cache when the
input did not change), writes the generated package into a directory of its own, keyed by
the run and the package's name (`<kgen cache>/serve/<run key>-<package>/`), together with
a copy of the input's Python hooks and `api.json`, the resource metadata of every served
kind. That directory goes first on `sys.path` and the generated packages are imported;
their kinds, defaulters, conversions and validation are added to a `Scheme` of the served
API's own (importing them also registers them in the process-wide `SCHEME`, as any import
of a generated package does).

The models are the configuration's backend (`models = "msgspec"` in [tool.kgen], or
`Options.models`): the server works on either through the same Scheme, and objects leave
the request flow as JSON data.

Resource metadata (plural and singular names, scope, short names, categories, printer
columns, subresources, selectable fields, storage version) is what the CRD generator
computes from the `+kubebuilder:` markers (`kgen.generators.crd.manifest`), so the server
and the CRDs kgen writes agree. The OpenAPI documents are the openapi generator's files of
the same run.

The repository's own output directory (`generated/`) is never read: it may be stale, and a
server that imports exactly what this run generated cannot disagree with its input.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgen.options import Options
from kgen.runtime.scheme import Scheme

#: The generators whose output a server needs (strategies need hypothesis; the rest is served).
SERVE_GENERATORS = (
    "models",
    "deepcopy",
    "defaulters",
    "conversion",
    "scheme",
    "validation",
    "openapi",
    "crd",
    "protobuf",
)
_MANIFEST = "api.json"
_MANIFEST_FORMAT = "kgen-serve/4"


@dataclass(frozen=True, slots=True)
class PrinterColumn:
    """One `+kubebuilder:printcolumn` (a CRD's additionalPrinterColumns entry)."""

    name: str
    type: str
    json_path: str
    description: str = ""
    format: str = ""
    priority: int = 0
    cell: Callable[[dict[str, Any], Any], Any] | None = field(default=None, compare=False, hash=False)
    """How a built-in kind's printer computes the column from an object and the time now
    (its columns are then the whole table: Name is one of them)."""


@dataclass(frozen=True, slots=True)
class ServedVersion:
    """What one version of a resource serves."""

    version: str
    printer_columns: tuple[PrinterColumn, ...] = ()
    selectable_fields: tuple[str, ...] = ()
    """JSONPaths (`.spec.color`), as a CRD's selectableFields."""
    status: bool = False
    scale: dict[str, str] | None = None
    """specReplicasPath, statusReplicasPath and labelSelectorPath of a scale subresource."""
    deprecated: bool = False
    deprecation_warning: str = ""
    schema: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    """A custom resource's structural schema in this version (the CRD's openAPIV3Schema)."""


@dataclass(frozen=True, slots=True)
class Resource:
    """One resource type of the API: its names, scope and versions."""

    group: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    storage_version: str
    versions: tuple[ServedVersion, ...]
    list_kind: str = ""
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    conversion: str = "None"
    """A custom resource's conversion strategy: "Webhook" or "None"."""
    custom: bool = False
    """A custom resource: the CRD generator writes a CRD for it, and a cluster serves it
    through the apiextensions-apiserver (no strategic merge patch, no protobuf, updates
    must name a resourceVersion, a delete answers a Status)."""
    crd: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    """A generated custom resource's CRD, as the CRD generator writes it."""

    def version(self, name: str) -> ServedVersion | None:
        """The served version `name`, or None."""
        return next((v for v in self.versions if v.version == name), None)

    @property
    def storage(self) -> ServedVersion:
        """The storage version's entry."""
        found = self.version(self.storage_version)
        assert found is not None
        return found


@dataclass
class LoadedAPI:
    """What a run produced for serving: resources, OpenAPI documents, imported modules."""

    resources: list[Resource]
    openapi_v2: dict[str, Any]
    openapi_v3: dict[str, dict[str, Any]]
    """By group-version path: `apis/example.kgen.dev/v1`."""
    directory: Path
    """The private directory holding the generated package."""
    modules: list[str] = field(default_factory=list)
    scheme: Scheme = field(default_factory=Scheme)
    """The served kinds, their defaulters, conversions and validation (and nothing else:
    another API's packages imported in the same process do not change what is served)."""
    models: str = "pydantic"
    """The model backend of the generated package: "pydantic" or "msgspec"."""


class LoadError(Exception):
    """The generated code could not be written or imported."""


def serve_options(options: Options) -> Options:
    """The run options a server needs: every generator it serves from, and the project's
    own, on the model backend the options select (`models = "msgspec"` serves msgspec
    structs). The package is imported under the output's name, so in a test process it is
    the one copy the test's `import generated...` finds too, whichever is imported first:
    it holds every module the project's generated/ holds."""
    from kgen.generator_names import NAMES

    wanted = set(SERVE_GENERATORS) | set(options.generators)
    return dataclasses.replace(options, generators=tuple(g for g in NAMES if g in wanted), only=())


def load(options: Options, progress: Callable[[str], None] | None = None) -> LoadedAPI:
    """Generate (or reuse) the API's code for `options` and import it; see the module doc."""
    import importlib.util

    from kgen import cache
    from kgen.render import cache_root

    options = serve_options(options)
    if options.models == "msgspec" and importlib.util.find_spec("msgspec") is None:
        raise LoadError(
            'models = "msgspec" needs msgspec: pip install "kgen-k8s[msgspec]" (or serve the pydantic models)'
        )
    # The package is written under the output's name, which the run's key does not hold.
    key = f"{cache.run_key(options, False)}-{options.output.name}-{_MANIFEST_FORMAT.rsplit('/', 1)[1]}"
    root = cache_root()
    directory = (root / "serve" / key) if root is not None else Path(tempfile.mkdtemp(prefix="kgen-serve-"))
    if not (directory / _MANIFEST).is_file():
        from kgen import pipeline  # the generators are loaded only when there is something to generate

        result = pipeline.generate(options, progress=progress)
        universe = result.universe
        if universe is None:  # the files came from the run cache: parse once more for the IR
            universe, _ = pipeline.build(options)
        manifest = _manifest(universe, options)
        _write(directory, options, result.files, manifest)
    return _import(directory)


def _manifest(universe: Any, options: Options) -> dict[str, Any]:
    """api.json: the served resources, the modules to import, the OpenAPI document paths."""
    from kgen.generators import crd
    from kgen.ir import facts

    modules: list[str] = []
    package_root = options.output.name
    for package in universe.generated_packages:
        if package.role != "api" or package.builtin:
            continue
        if any(t.is_kind or t.is_list for t in package.types):
            modules.append(f"{package_root}.{package.python_package}")
    found = {
        (r.group, r.kind): crd.Resource(
            r.group, r.kind, [crd.Version(v.package, v.kind, {}, v.storage) for v in r.versions]
        )
        for r in facts.resources(universe)
    }
    # The kinds that get a CRD, with their structural schemas: what a cluster validates them by,
    # and the CRD as the generator writes it (its conversion stanza included).
    from kgen.generators import GeneratorOptions
    from kgen.pipeline import carried_options

    generated = crd.documents(universe, carried_options(options, GeneratorOptions, generators=options.selected))
    custom = [resource for resource, _ in generated]
    crds = {(r.group, r.kind): document for r, document in generated}
    found.update({(r.group, r.kind): r for r in custom})
    custom_kinds = {(r.group, r.kind) for r in custom}
    resources = []
    for (group, kind), resource in sorted(found.items()):
        document = crds.get((group, kind)) or crd.manifest(resource)
        entry = _resource_entry(document, resource, custom=(group, kind) in custom_kinds)
        # How the CRD converts between versions (crd.conversion_stanza): the generated
        # conversions stand in for a configured webhook; without one only apiVersion changes.
        entry["conversion"] = "Webhook" if options.crd_conversion and len(entry["versions"]) > 1 else "None"
        if (group, kind) in custom_kinds:  # installed in the served CRDs, as `kubectl apply -f crds/` would
            entry["crd"] = document
        resources.append(entry)
    return {"format": _MANIFEST_FORMAT, "models": options.models, "modules": modules, "resources": resources}


def _resource_entry(document: dict[str, Any], resource: Any, custom: bool) -> dict[str, Any]:
    spec = document["spec"]
    names = spec["names"]
    storage = next((v.package.version for v in resource.versions if v.storage), None)
    if storage is None:  # a kind of a group whose storage the API server chooses: the preferred
        from kgen.runtime.scheme import version_priority

        storage = sorted((v.package.version for v in resource.versions), key=version_priority)[0]
    versions = []
    for entry in spec["versions"]:
        if not entry.get("served", True):
            continue
        subresources = entry.get("subresources") or {}
        versions.append({
            "version": entry["name"],
            "printerColumns": entry.get("additionalPrinterColumns", []),
            "selectableFields": [f["jsonPath"] for f in entry.get("selectableFields", [])],
            "status": "status" in subresources,
            "scale": subresources.get("scale"),
            "deprecated": bool(entry.get("deprecated")),
            "deprecationWarning": entry.get("deprecationWarning", ""),
            "schema": (entry.get("schema") or {}).get("openAPIV3Schema") if custom else None,
        })  # fmt: skip
    return {
        "group": spec["group"],
        "kind": names["kind"],
        "plural": names["plural"],
        "singular": names["singular"],
        "listKind": names.get("listKind", ""),
        "namespaced": spec["scope"] == "Namespaced",
        "shortNames": names.get("shortNames", []),
        "categories": names.get("categories", []),
        "storageVersion": storage,
        "versions": versions,
        "custom": custom,
    }


def _write(directory: Path, options: Options, files: list[Any], manifest: dict[str, Any]) -> None:
    """Write the run's files, the input's Python modules and api.json into `directory`, in a
    sibling first and then renamed, so a directory with api.json is always complete."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        package_root = staging / options.output.name
        for generated in files:
            target = package_root / generated.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(generated.content, encoding="utf-8")
        # The hooks are imported under the input's package name (`apis.example.v1.conversion`),
        # and may import other modules of the input (`apis.example.features`).
        hooks_root = options.hooks_package or options.input.resolve().name  # as the generated modules import them
        hooks_dir = staging.joinpath(*hooks_root.split("."))
        for source in sorted(options.input.rglob("*.py")):
            if "__pycache__" in source.parts:
                continue
            target = hooks_dir / source.relative_to(options.input)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        (staging / _MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        try:
            os.rename(staging, directory)
        except OSError:
            if not (directory / _MANIFEST).is_file():  # not another server writing the same run
                raise
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _import(directory: Path) -> LoadedAPI:
    """Import the generated packages of `directory` and add them to a Scheme of their own."""
    manifest = json.loads((directory / _MANIFEST).read_text(encoding="utf-8"))
    if manifest.get("format") != _MANIFEST_FORMAT:
        raise LoadError(f"{directory}: written by another kgen; remove the directory")
    sys.path.insert(0, str(directory))
    modules = list(manifest["modules"])
    scheme = Scheme()
    for module in modules:
        package = directory.joinpath(*module.split("."))
        try:
            importlib.import_module(module)
            if (package / "register.py").is_file():
                importlib.import_module(f"{module}.register").add_to_scheme(scheme)
            if (package / "protobuf.py").is_file():
                importlib.import_module(f"{module}.protobuf")  # registers the protobuf converters
        except Exception as error:  # noqa: BLE001 - the user's hooks run here
            raise LoadError(
                f"importing the generated package {module} failed: {type(error).__name__}: {error}"
            ) from error
    package_root = modules[0].split(".")[0] if modules else "generated"
    openapi_dir = directory / package_root / "openapi"
    v2_path = openapi_dir / "swagger.json"
    openapi_v2 = (
        json.loads(v2_path.read_text(encoding="utf-8")) if v2_path.is_file() else {"swagger": "2.0", "definitions": {}}
    )
    openapi_v3 = {}
    v3_dir = openapi_dir / "v3"
    if v3_dir.is_dir():
        for path in sorted(v3_dir.rglob("*.json")):
            relative = path.relative_to(v3_dir).with_suffix("").as_posix()
            openapi_v3[relative] = json.loads(path.read_text(encoding="utf-8"))
    resources = [_resource(entry) for entry in manifest["resources"]]
    return LoadedAPI(resources, openapi_v2, openapi_v3, directory, modules, scheme, manifest.get("models", "pydantic"))


def _resource(entry: dict[str, Any]) -> Resource:
    versions = tuple(
        ServedVersion(
            version=v["version"],
            printer_columns=tuple(
                PrinterColumn(
                    name=c.get("name", ""),
                    type=c.get("type", "string"),
                    json_path=c.get("jsonPath", ""),
                    description=c.get("description", ""),
                    format=c.get("format", ""),
                    priority=int(c.get("priority", 0) or 0),
                )
                for c in v["printerColumns"]
            ),
            selectable_fields=tuple(v["selectableFields"]),
            status=v["status"],
            scale=v["scale"],
            deprecated=v["deprecated"],
            deprecation_warning=v["deprecationWarning"],
            schema=v.get("schema"),
        )
        for v in entry["versions"]
    )
    return Resource(
        group=entry["group"],
        kind=entry["kind"],
        plural=entry["plural"],
        singular=entry["singular"],
        namespaced=entry["namespaced"],
        storage_version=entry["storageVersion"],
        versions=versions,
        list_kind=entry["listKind"],
        short_names=tuple(entry["shortNames"]),
        categories=tuple(entry["categories"]),
        custom=entry.get("custom", False),
        conversion=entry.get("conversion", "None"),
        crd=entry.get("crd"),
    )
