"""The client generator: `client.py` per package with `+genclient` kinds, as client-gen.

For each such kind a sync and an async typed client, composed of the runtime's verb mixins
(kgen.runtime.client.resource) that the kind's markers allow: `+genclient:nonNamespaced`,
`:noStatus`, `:readonly`, `:onlyVerbs=`, `:skipVerbs=`, `:noVerbs`, `:method=` (an extra
method on a subresource), and `+resourceName=` / `+kubebuilder:resource:path=` for the
plural (else the plural the CRD generator forms). A `Client` (and `AsyncClient`) per
group/version hands out the kinds' clients, as client-gen's `ExampleV1Client` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgen.diagnostics import Diagnostics, Position
from kgen.ir.facts import pluralize
from kgen.generators.models import docstring
from kgen.generators.options import GeneratorOptions
from kgen.generators.python import ModuleContext, package_file, package_sources, py_string
from kgen.ir.model import Package, TypeDef, Universe
from kgen.ir.names import python_method
from kgen.runtime.client import resource as client_runtime
from kgen.render import GeneratedFile, render_python

NAME = "client"

VERBS = ("get", "list", "watch", "create", "update", "updateStatus", "patch", "apply", "applyStatus", "delete",
         "deleteCollection")  # fmt: skip
_READONLY = ("get", "list", "watch")
# The runtime mixin of each verb (watch includes list's methods; apply covers applyStatus).
_MIXINS = {
    "get": "Get", "list": "List", "watch": "Watch", "create": "Create", "update": "Update",
    "updateStatus": "UpdateStatus", "patch": "Patch", "apply": "Apply", "delete": "Delete",
    "deleteCollection": "DeleteCollection",
}  # fmt: skip
# What client-gen's namer does not pluralize by the rules.
_PLURAL_EXCEPTIONS = {"Endpoints": "endpoints"}


@dataclass
class ExtraMethod:
    """A `+genclient:method=Name,verb=...,subresource=...` method."""

    name: str
    verb: str
    subresource: str

    @property
    def http_method(self) -> str:
        return _HTTP_METHODS[self.verb]

    @property
    def applies(self) -> bool:
        return self.verb in ("apply", "applyStatus")


_HTTP_METHODS = {
    "get": "GET", "list": "GET", "watch": "GET", "create": "POST", "update": "PUT", "updateStatus": "PUT",
    "patch": "PATCH", "apply": "PATCH", "applyStatus": "PATCH", "delete": "DELETE", "deleteCollection": "DELETE",
}  # fmt: skip


@dataclass
class KindClient:
    """What the template needs of one kind's clients."""

    name: str
    kind: str
    plural: str
    model: str
    list_model: str
    namespaced: bool
    subresources: tuple[str, ...]
    mixins: list[str]
    async_mixins: list[str]
    doc: str
    extra: list[ExtraMethod] = field(default_factory=list)
    accessor: str = ""


def generated_kinds(package: Package) -> list[TypeDef]:
    """The `+genclient` kinds of a package."""
    return [t for t in package.types if t.kind == "struct" and t.is_kind and t.has_marker("genclient")]


_LISTING = ("list", "watch", "deleteCollection")


def plural(typedef: TypeDef) -> str:
    """The resource name: `+resourceName=`, `+kubebuilder:resource:path=`, else the plural the
    API server and the CRD generator form from the kind."""
    named = typedef.marker("resourceName")
    if named is not None and named.value:
        return str(named.value)
    resource = typedef.marker("kubebuilder:resource")
    if resource is not None and resource.args.get("path"):
        return str(resource.args["path"])
    return _PLURAL_EXCEPTIONS.get(typedef.name) or pluralize(typedef.name.lower())


def verbs(typedef: TypeDef) -> list[str]:
    """The verbs the kind's client has, in client-gen's order."""
    if typedef.has_marker("genclient:noVerbs"):
        return []
    if typedef.has_marker("genclient:readonly"):
        chosen = list(_READONLY)
    elif (only := typedef.marker("genclient:onlyVerbs")) is not None:
        chosen = [v for v in VERBS if v in set(only.value or ())]
    else:
        chosen = list(VERBS)
    skipped = typedef.marker("genclient:skipVerbs")
    if skipped is not None:
        chosen = [v for v in chosen if v not in set(skipped.value or ())]
    if typedef.has_marker("genclient:noStatus") or not _has_status(typedef):
        chosen = [v for v in chosen if v not in ("updateStatus", "applyStatus")]
    return chosen


def _has_status(typedef: TypeDef) -> bool:
    return typedef.has_marker("kubebuilder:subresource:status") or any(f.json_name == "status" for f in typedef.fields)


def _namespaced(typedef: TypeDef) -> bool:
    resource = typedef.marker("kubebuilder:resource")
    scope = resource.args.get("scope") if resource is not None else None
    return not (typedef.has_marker("genclient:nonNamespaced") or scope == "Cluster")


def _class_names(mixins: list[str]) -> frozenset[str]:
    """What a kind's client class has before its `+genclient:method`s: the attributes of its
    runtime mixins, which an extra method of the same name would replace."""
    classes = [getattr(client_runtime, m) for m in mixins] or [client_runtime._Client]
    return frozenset(name for cls in classes for klass in cls.__mro__ for name in vars(klass))


# Runtime mixin methods by the verb and subresource they serve: a `+genclient:method` of the
# same name, verb and subresource is the same method, not a second one to rename.
_MIXIN_METHODS = {"get_scale": ("get", "scale"), "update_scale": ("update", "scale")}

# What the group clients (`Client`, `AsyncClient`) have beside one accessor per kind.
_GROUP_CLIENT_NAMES = frozenset({"transport", "from_config"})


def _extra_methods(typedef: TypeDef, taken: frozenset[str] = frozenset()) -> list[ExtraMethod]:
    out = []
    for marker in typedef.markers:
        if marker.name != "genclient:method":
            continue
        name, _, rest = str(marker.value).partition(",")
        args = dict(part.split("=", 1) for part in rest.split(",") if "=" in part)
        snake, verb, subresource = _snake(name.strip()), args.get("verb", "get"), args.get("subresource", "")
        # GetScale/UpdateScale (client-gen's own names) do what the Scale mixin's methods do: same name
        same = _MIXIN_METHODS.get(snake) == (verb, subresource)
        method = snake if same else python_method(snake, taken)
        out.append(ExtraMethod(method, verb, subresource))
    return out


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """A `+genclient` kind needs its list type; a custom method needs a known verb."""
    for package in universe.generated_packages:
        if package.role != "api" or package.internal:
            continue
        for typedef in package.types:
            if typedef.kind != "struct" or not typedef.has_marker("genclient"):
                continue
            where = Position.parse(typedef.position)
            for method in _extra_methods(typedef):
                if method.verb not in _HTTP_METHODS:
                    diagnostics.error(where, f"+genclient:method {method.name}: verb {method.verb!r} must be one of "
                                             f"{', '.join(_HTTP_METHODS)}")  # fmt: skip


def has_module(universe: Universe, package: Package) -> bool:
    return package.role == "api" and not package.internal and bool(generated_kinds(package))


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    files = []
    for package in universe.generated_packages:
        if has_module(universe, package):
            files.append(_client_file(universe, package))
    return files


def _client_file(universe: Universe, package: Package) -> GeneratedFile:
    context = ModuleContext(universe, package, "client")
    models = context.sibling("models")
    clients = []
    names = {t.name for t in package.types}
    for typedef in generated_kinds(package):
        chosen = verbs(typedef)
        listed = f"{typedef.name}List" in names
        if not listed:  # a kind without a list type is only read and written one by one
            chosen = [v for v in chosen if v not in _LISTING]
        list_model = f"{models}.{typedef.python_name}List" if listed else f"{models}.{typedef.python_name}"
        mixins = [_MIXINS[v] for v in chosen if v in _MIXINS]
        if "watch" in chosen and "List" in mixins:
            mixins.remove("List")  # Watch includes list's methods
        if "applyStatus" in chosen and "Apply" not in mixins:
            mixins.append("Apply")
        if typedef.has_marker("kubebuilder:subresource:scale"):
            mixins.append("Scale")
        for mixin in mixins:
            context.imports[("kgen.runtime.client.resource", mixin)] = f"_{mixin}"
            context.imports[("kgen.runtime.client.resource", f"Async{mixin}")] = f"_Async{mixin}"
        subresources = tuple(
            s for s, present in (("status", "updateStatus" in chosen or "applyStatus" in chosen),
                                 ("scale", typedef.has_marker("kubebuilder:subresource:scale"))) if present
        )  # fmt: skip
        name = plural(typedef)
        clients.append(
            KindClient(
                name=f"{typedef.python_name}Client",
                kind=typedef.name,
                plural=name,
                model=f"{models}.{typedef.python_name}",
                list_model=list_model,
                namespaced=_namespaced(typedef),
                subresources=subresources,
                mixins=[f"_{m}[{models}.{typedef.python_name}, {list_model}]" for m in mixins],
                async_mixins=[f"_Async{m}[{models}.{typedef.python_name}, {list_model}]" for m in mixins],
                doc=f"{name} of {package.group or 'the core group'}/{package.version}"
                    f"{' (namespaced)' if _namespaced(typedef) else ' (cluster-scoped)'}: {typedef.name} objects.",
                extra=_extra_methods(typedef, _class_names(mixins)),
                accessor=python_method(name.lower(), _GROUP_CLIENT_NAMES),
            )
        )  # fmt: skip
    for name in ("Resource", "_Client", "_AsyncClient"):
        context.imports[("kgen.runtime.client.resource", name)] = name if name.startswith("_") else f"_{name}"
    for name in ("Transport", "AsyncTransport", "configured"):
        context.imports[("kgen.runtime.client", name)] = f"_{name}"
    if any(m.applies for c in clients for m in c.extra):
        context.imports[("kgen.runtime.client.options", "APPLY_PATCH")] = "_APPLY_PATCH"
        context.imports[("kgen.runtime.client.options", "apply_query")] = "_apply_query"
    context.stdlib("typing", "Any")
    group_version = f"{package.group}/{package.version}" if package.group else package.version
    return render_python(
        "client/client.py.j2",
        package_file(package, "client.py"),
        NAME,
        package_sources(package),
        package=package,
        group_version=group_version,
        imports=context.import_lines(),
        clients=clients,
        docstring=docstring,
        py=py_string,
    )
