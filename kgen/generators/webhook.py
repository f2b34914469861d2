"""The webhook generator: `webhook.py`, the webhook application of the input's custom
resources, and `webhooks/manifests.yaml`, the Mutating- and ValidatingWebhookConfiguration
that point a cluster at it.

`webhook.py` imports every package of the custom resources' groups (registering their
kinds, defaulters, conversions and validation in the Scheme) and builds a
`kgen.webhook.Webhooks` for them: the conversion webhook at the CRDs' conversion path,
kubebuilder's `/mutate-<group>-<version>-<kind>` and `/validate-...` paths of every kind
and version, the paths of the `+kubebuilder:webhook` markers, and the hooks of the
packages' `validation.py` that only admission calls: `validate_<Kind>_delete(obj)`,
`warnings_<Kind>(obj)`, `warnings_<Kind>_update(new, old)`.

The manifests are controller-gen's (controller-tools pkg/webhook/parser.go): from the
`+kubebuilder:webhook` markers of the input's packages when there are any (with their
checks: `sideEffects` None or NoneOnDryRun, `timeoutSeconds` from 1 to 30,
`admissionReviewVersions` given, a path or a URL; `patch=` merged into the webhook, for
selectors and match conditions), else, with `[tool.kgen.webhook]`, a mutating and a
validating webhook per custom resource at its storage version (`matchPolicy:
Equivalent`: the API server converts requests in other versions first). Both get the CA
bundle or the cert-manager annotation the settings name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from kgen.diagnostics import Diagnostics, Position
from kgen.generators import crd
from kgen.generators.options import GeneratorOptions
from kgen.hooks import check_arity
from kgen.ir.facts import Resource, custom_resources
from kgen.ir.model import Hook, Marker, Package, Universe
from kgen.render import GeneratedFile, header, render_python
from kgen.runtime.patch.jsonpatch import apply_merge_patch

NAME = "webhook"
HOME = "webhooks/"
"""The directory of the output root that holds nothing but this generator's manifests."""
MODULE = "webhook.py"
MANIFESTS = HOME + "manifests.yaml"

CONFIGURATION_NAMES = {True: "mutating-webhook-configuration", False: "validating-webhook-configuration"}
"""controller-gen's names of the two configurations (kubebuilder's kustomize prefixes them)."""

#: The hooks of a package's validation.py that only admission calls: name pattern, what
#: kgen calls it with, and the `Webhooks` argument that holds them.
ADMISSION_HOOKS = (
    ("validate_{kind}_delete", "obj", "delete_validators"),
    ("warnings_{kind}", "obj", "create_warnings"),
    ("warnings_{kind}_update", "new, old", "update_warnings"),
)

_VERBS = {"create": "CREATE", "update": "UPDATE", "delete": "DELETE", "connect": "CONNECT", "*": "*"}
_FAILURE_POLICIES = {"fail": "Fail", "ignore": "Ignore"}
_MATCH_POLICIES = {"exact": "Exact", "equivalent": "Equivalent"}
_SIDE_EFFECTS = {"none": "None", "noneondryrun": "NoneOnDryRun", "some": "Some", "unknown": "Unknown"}
_REINVOCATION = {"never": "Never", "ifneeded": "IfNeeded"}
_REQUIRED = ("mutating", "failurePolicy", "groups", "resources", "verbs", "versions", "name", "admissionReviewVersions")


@dataclass
class Plan:
    """What the generator writes: the app's routes and hooks, and the manifests."""

    resources: list[Resource]
    routes: dict[str, tuple[bool, list[tuple[str, str]]]] = field(default_factory=dict)
    """Admission path -> (mutating, the (group, kind)s it admits)."""
    hooks: dict[str, list[tuple[Package, str, Hook]]] = field(default_factory=dict)
    """`Webhooks` argument -> (package, kind, hook) of the admission-only hooks."""
    webhooks: dict[bool, list[dict[str, Any]]] = field(default_factory=lambda: {True: [], False: []})
    """mutating? -> the webhooks of that configuration."""
    names: dict[bool, str] = field(default_factory=dict)
    """mutating? -> the configuration's name from a `+kubebuilder:webhookconfiguration` marker."""


def _packages(universe: Universe, resources: list[Resource]) -> list[Package]:
    """Every API package of the resources' groups (internal ones too), by output directory."""
    groups = {r.group for r in resources}
    found = [
        p for p in universe.generated_packages if p.role == "api" and p.group in groups and (p.internal or p.version)
    ]
    return sorted(found, key=lambda p: p.output_dir)


def plural(resource: Resource) -> str:
    return str(crd.resource_names(resource)[0]["plural"])


def namespaced(resource: Resource) -> bool:
    return crd.resource_names(resource)[1] == "Namespaced"


def storage_version(resource: Resource) -> str:
    return next((v.package.version for v in resource.versions if v.storage), resource.versions[0].package.version)


def kubebuilder_path(mutating: bool, group: str, version: str, kind: str) -> str:
    """kubebuilder's admission path (the same as `kgen.webhook.kubebuilder_path`)."""
    return f"/{'mutate' if mutating else 'validate'}-{group.replace('.', '-')}-{version}-{kind.lower()}"


def plan(universe: Universe, options: GeneratorOptions | None, diagnostics: Diagnostics | None = None) -> Plan:
    """The routes, hooks and manifests of the input; problems reported to `diagnostics`."""
    report = diagnostics if diagnostics is not None else Diagnostics()
    resources = custom_resources(universe)
    result = Plan(resources)
    for resource in resources:
        for version in resource.versions:
            for mutating in (True, False):
                path = kubebuilder_path(mutating, resource.group, version.package.version, resource.kind)
                result.routes[path] = (mutating, [(resource.group, resource.kind)])
    kinds = {r.kind for r in resources}
    for package in _packages(universe, resources):
        for pattern, parameters, argument in ADMISSION_HOOKS:
            for kind in sorted(kinds):
                hook = package.hook("validation", pattern.format(kind=kind))
                if hook is None:
                    continue
                if check_arity(hook, len(parameters.split(", ")), f"{hook.name}({parameters})", report):
                    result.hooks.setdefault(argument, []).append((package, kind, hook))
    markers = [(p, m) for p in universe.generated_packages if p.role == "api" for m in p.markers]
    webhook_markers = [(p, m) for p, m in markers if m.name == "kubebuilder:webhook"]
    for _, marker in [(p, m) for p, m in markers if m.name == "kubebuilder:webhookconfiguration"]:
        mutating = bool(marker.args.get("mutating", False))
        if mutating in result.names:
            report.error(
                Position.parse(marker.position),
                f"a second {'mutating' if mutating else 'validating'} +kubebuilder:webhookconfiguration: "
                "the manifests hold one configuration of each",
            )
        elif marker.args.get("name"):
            result.names[mutating] = marker.args["name"]
    settings = options.webhook if options is not None else {}
    for _, marker in sorted(webhook_markers, key=lambda pm: str(pm[1].args.get("name", ""))):
        _from_marker(marker, resources, result, settings, report)
    if not webhook_markers and settings:
        _from_settings(universe, resources, result, settings)
    return result


def _from_marker(
    marker: Marker, resources: list[Resource], result: Plan, settings: dict[str, Any], report: Diagnostics
) -> None:
    """One `+kubebuilder:webhook`: a webhook of the manifests and the route that serves it,
    checked as controller-gen checks it."""
    args = marker.args
    where = Position.parse(marker.position)
    missing = [name for name in _REQUIRED if name not in args]
    if missing:
        report.error(where, f"+kubebuilder:webhook needs {', '.join(missing)} (as controller-gen requires)")
        return
    mutating = bool(args["mutating"])
    problems: list[str] = []
    if bool(args.get("path")) == bool(args.get("url")):
        problems.append("`url` or `path` markers are required and mutually exclusive")
    side_effects = _SIDE_EFFECTS.get(str(args.get("sideEffects", "")).lower())
    if side_effects not in ("None", "NoneOnDryRun"):
        problems.append(
            "sideEffects must be None or NoneOnDryRun for admissionregistration.k8s.io/v1 "
            "(controller-gen: SideEffects is required, and should not be Some or Unknown)"
        )
    timeout = args.get("timeoutSeconds", 0)
    if timeout and not 1 <= timeout <= 30:
        problems.append("timeoutSeconds must be between 1 and 30 seconds")
    match_policy = args.get("matchPolicy")
    if match_policy is not None and str(match_policy).lower() not in _MATCH_POLICIES:
        problems.append(f"unknown value {match_policy!r} for matchPolicy (Exact or Equivalent)")
    if any(v != "v1" for v in args.get("webhookVersions") or ()):
        problems.append("webhookVersions may only be v1 (the only admissionregistration version kgen writes)")
    if not args["admissionReviewVersions"]:
        problems.append("admissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration")
    groups = ["" if g == "core" else g for g in args["groups"]]
    wanted = {(g, r.split("/", 1)[0]) for g in groups for r in args["resources"]}
    kinds = sorted(
        (r.group, r.kind) for r in resources if any(g in (r.group, "*") and p in (plural(r), "*") for g, p in wanted)
    )
    if not kinds:
        shown = ";".join(g or '""' for g in groups)
        problems.append(
            f"no custom resource of this API is among resources {';'.join(args['resources'])} of groups "
            f"{shown}: the webhook application could not decode what the API server sends"
        )
    webhook: dict[str, Any] = {"name": args["name"]}
    if args.get("url"):
        webhook["clientConfig"] = {"url": args["url"]}
        path = urlsplit(args["url"]).path or "/"
    else:
        path = args["path"]
        service: dict[str, Any] = {
            "name": args.get("serviceName") or "webhook-service",
            "namespace": args.get("serviceNamespace") or "system",
            "path": path,
        }
        if "servicePort" in args:
            service["port"] = args["servicePort"]
        webhook["clientConfig"] = {"service": service}
    if "ca-bundle" in settings:
        webhook["clientConfig"]["caBundle"] = settings["ca-bundle"]
    webhook["rules"] = [{
        "apiGroups": groups, "apiVersions": list(args["versions"]), "resources": list(args["resources"]),
        "operations": [_VERBS.get(v.lower(), v) for v in args["verbs"]],
    }]  # fmt: skip
    webhook["failurePolicy"] = _FAILURE_POLICIES.get(str(args["failurePolicy"]).lower(), args["failurePolicy"])
    if match_policy is not None and str(match_policy).lower() in _MATCH_POLICIES:
        webhook["matchPolicy"] = _MATCH_POLICIES[str(match_policy).lower()]
    if side_effects is not None:
        webhook["sideEffects"] = side_effects
    if timeout:
        webhook["timeoutSeconds"] = timeout
    webhook["admissionReviewVersions"] = list(args["admissionReviewVersions"])
    reinvocation = _REINVOCATION.get(str(args.get("reinvocationPolicy", "")).lower())
    if mutating and reinvocation is not None:
        webhook["reinvocationPolicy"] = reinvocation
    if args.get("patch", "").strip():
        try:
            patch = json.loads(args["patch"])
        except ValueError as error:
            problems.append(f"patch is not JSON: {error}")
        else:
            if not isinstance(patch, dict):
                problems.append("patch must be a JSON object (a strategic merge patch of the webhook)")
            else:
                webhook = apply_merge_patch(webhook, patch)
    for problem in problems:
        report.error(where, f"+kubebuilder:webhook name={args['name']}: {problem}")
    if problems:
        return
    result.webhooks[mutating].append(webhook)
    result.routes[path] = (mutating, kinds)


def _from_settings(universe: Universe, resources: list[Resource], result: Plan, settings: dict[str, Any]) -> None:
    """`[tool.kgen.webhook]`: a mutating and a validating webhook per custom resource, at its
    storage version, as kubebuilder scaffolds them (names `m<kind>-<version>.<group>`)."""
    deleting = {kind for package, kind, _ in result.hooks.get("delete_validators", ())}
    for resource in resources:
        version = storage_version(resource)
        for mutating in (True, False):
            if not settings.get("mutating" if mutating else "validating", True):
                continue
            path = kubebuilder_path(mutating, resource.group, version, resource.kind)
            client: dict[str, Any]
            if "base-url" in settings:
                client = {"url": settings["base-url"].rstrip("/") + path}
            else:
                service = {"name": settings["service-name"], "namespace": settings["service-namespace"], "path": path}
                if "port" in settings:
                    service["port"] = settings["port"]
                client = {"service": service}
            if "ca-bundle" in settings:
                client["caBundle"] = settings["ca-bundle"]
            operations = ["CREATE", "UPDATE"]
            if not mutating and resource.kind in deleting:
                operations.append("DELETE")
            webhook: dict[str, Any] = {
                "name": f"{'m' if mutating else 'v'}{resource.kind.lower()}-{version}.{resource.group}",
                "admissionReviewVersions": list(settings.get("admission-review-versions", ["v1"])),
                "clientConfig": client,
                "failurePolicy": settings.get("failure-policy", "Fail"),
                "matchPolicy": "Equivalent",
                "rules": [{"apiGroups": [resource.group], "apiVersions": [version], "operations": operations,
                           "resources": [plural(resource)]}],
                "sideEffects": "None",
                "timeoutSeconds": settings.get("timeout-seconds", 10),
            }  # fmt: skip
            if mutating:
                webhook["reinvocationPolicy"] = settings.get("reinvocation-policy", "IfNeeded")
            for key, name in (("namespace-selector", "namespaceSelector"), ("object-selector", "objectSelector")):
                if key in settings:
                    webhook[name] = settings[key]
            result.webhooks[mutating].append(webhook)


def manifests(result: Plan, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The Mutating- and ValidatingWebhookConfiguration that have webhooks."""
    documents = []
    for mutating in (True, False):
        webhooks = sorted(result.webhooks[mutating], key=lambda w: str(w["name"]))
        if not webhooks:
            continue
        metadata: dict[str, Any] = {
            "name": result.names.get(mutating) or settings.get("name-prefix", "") + CONFIGURATION_NAMES[mutating]
        }
        if "cert-manager" in settings:
            metadata["annotations"] = {crd.CA_INJECTION_ANNOTATION: settings["cert-manager"]}
        documents.append({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration" if mutating else "ValidatingWebhookConfiguration",
            "metadata": metadata,
            "webhooks": webhooks,
        })  # fmt: skip
    return documents


def conversion_path(options: GeneratorOptions) -> str:
    """Where the CRDs send ConversionReviews (the path of their service, or of their URL)."""
    conversion = options.crd_conversion
    if "url" in conversion:
        return urlsplit(conversion["url"]).path or "/"
    return str(conversion.get("path", "/convert"))


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """The webhook markers and the admission hooks must be what kgen can serve, and the
    module's name must be free."""
    plan(universe, None, diagnostics)
    for package in universe.generated_packages:
        if package.output_dir.split("/", 1)[0] == MODULE.removesuffix(".py") and custom_resources(universe):
            diagnostics.error(
                Position(package.import_path, 1, 1),
                f"the package of {package.import_path} is written to {package.output_dir}/, where the webhook "
                f"application's module {MODULE} would shadow it; move the package or leave out the webhook generator",
            )
            return


def _alias(package: Package) -> str:
    return "_" + package.python_package.replace(".", "_")


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    result = plan(universe, options)
    if not result.resources:
        return []
    packages = _packages(universe, result.resources)
    sources = tuple(p.import_path for p in packages)
    hooked = sorted({p.hooks_module for ps in result.hooks.values() for p, _, _ in ps if p.hooks_module})
    module = render_python(
        "webhook/webhook.py.j2",
        MODULE,
        NAME,
        sources,
        packages=[
            (p.python_package.rpartition(".")[0], p.python_package.rpartition(".")[2], _alias(p)) for p in packages
        ],
        hook_modules=[(m, "_hooks_" + m.replace(".", "_")) for m in hooked],
        resources=[
            (
                r.group,
                r.kind,
                plural(r),
                namespaced(r),
                tuple(v.package.version for v in r.versions),
                storage_version(r),
            )
            for r in result.resources
        ],
        routes=[(path, mutating, kinds) for path, (mutating, kinds) in sorted(result.routes.items())],
        hooks={
            argument: [(_alias(p), kind, "_hooks_" + str(p.hooks_module).replace(".", "_"), hook.name)
                       for p, kind, hook in entries]
            for argument, entries in sorted(result.hooks.items())
        },  # fmt: skip
        conversion_path=conversion_path(options),
    )
    files = [module]
    documents = manifests(result, options.webhook)
    if documents:
        text = header(NAME, sources) + "".join("---\n" + crd.to_yaml(d) for d in documents)
        files.append(GeneratedFile(path=MANIFESTS, content=text, generator=NAME))
    return files
