"""The CRD generator: `crds/<group>_<plural>.yaml`, as controller-gen writes them.

One `apiextensions.k8s.io/v1` CustomResourceDefinition per kind of a group that is not
built in, with one entry per version that has the kind (exactly one of them the storage
version), each with a structural `openAPIV3Schema`: everything inline, `metadata` as
`type: object`, every validation constraint, default and CEL rule. Names, scope,
subresources, printer columns and version flags come from the `+kubebuilder:` markers
(and `+genclient:nonNamespaced`).

`check` builds every schema first and reports what would not be structural (a field
without a type, a `$ref`, an `x-kubernetes-*` extension where the API server rejects it)
with the path in the schema, so nothing is written. A type that contains itself is
written out once and the recursion kept as preserved unknown fields, with a warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import yaml

from kgen.diagnostics import Diagnostics, Position
from kgen.generators.options import GeneratorOptions
from kgen.generators.schema import SchemaBuilder
from kgen.ir import facts
from kgen.ir.facts import custom_resources, per_universe, pluralize, storage
from kgen.ir.model import Constraints, Package, TypeDef, TypeRef, Universe
from kgen.render import GeneratedFile, header
from kgen.runtime.validation import crdcost

NAME = "crd"
HOME = "crds/"
"""The directory of the output root that holds nothing but this generator's files."""
PRINTER_TYPES = ("integer", "number", "string", "boolean", "date")


@dataclass
class Version:
    package: Package
    kind: TypeDef
    schema: dict[str, Any]
    storage: bool


@dataclass
class Resource:
    group: str
    kind: str
    versions: list[Version] = field(default_factory=list)


def _resources(universe: Universe, embedded_object_meta: bool = False) -> tuple[list[Resource], SchemaBuilder]:
    """The kinds that get a CRD (`facts.custom_resources`), with their schemas."""
    builder = SchemaBuilder(universe, "crd", embedded_object_meta)
    resources = [
        Resource(found.group, found.kind, [Version(v.package, v.kind, builder.type_schema(v.kind), v.storage) for v in found.versions])
        for found in custom_resources(universe)
    ]  # fmt: skip
    return resources, builder


_built = per_universe(lambda universe: {})


def resources(universe: Universe, embedded_object_meta: bool = False) -> tuple[list[Resource], SchemaBuilder]:
    """Built once per universe (and option): `check` and `generate` read the same schemas."""
    built = _built(universe)
    if embedded_object_meta not in built:
        built[embedded_object_meta] = _resources(universe, embedded_object_meta)
    return built[embedded_object_meta]


def truncate_descriptions(schema: Any, limit: int) -> Any:
    """A schema with descriptions cut as controller-gen's maxDescLen cuts them: at the last
    sentence end within the limit, else the last space (with "..."), else hard; 0 drops them."""
    if isinstance(schema, list):
        return [truncate_descriptions(item, limit) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "description" and isinstance(value, str):
            if limit == 0:
                continue
            value = _truncate(value, limit)
        elif key in ("properties", "patternProperties", "definitions", "dependencies"):
            value = {k: truncate_descriptions(v, limit) for k, v in value.items()}
        else:
            value = truncate_descriptions(value, limit)
        out[key] = value
    return out


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    text = text[:limit]
    end = max((i for i, ch in enumerate(text) if ch in _SENTENCE_ENDS), default=-1)
    if end > 0:
        return text[: end + 1]
    space = max((i for i, ch in enumerate(text) if ch.isspace()), default=-1)
    if space > 0:
        return text[:space] + "..."
    return text + "..."


# Unicode's sentence terminals (STerm) that API comments use.
_SENTENCE_ENDS = frozenset(".!?\u0589\u061f\u06d4\u0964\u0965\u3002\uff01\uff0e\uff1f")


def resource_names(resource: Resource | facts.Resource) -> tuple[dict[str, Any], str]:
    """The CRD's `names` (kind, listKind, plural, singular, short names, categories) and its
    scope, from the `+kubebuilder:resource` marker of the storage version's kind."""
    kind = _main(resource).kind
    marker = kind.marker("kubebuilder:resource")
    args = marker.args if marker is not None else {}
    plural = args.get("path") or pluralize(resource.kind.lower())
    names: dict[str, Any] = {
        "kind": resource.kind,
        "listKind": resource.kind + "List",
        "plural": plural,
        "singular": args.get("singular") or resource.kind.lower(),
    }
    if args.get("shortName"):
        names["shortNames"] = list(args["shortName"])
    if args.get("categories"):
        names["categories"] = list(args["categories"])
    cluster = args.get("scope") == "Cluster" or kind.has_marker("genclient:nonNamespaced")
    return names, "Cluster" if cluster else "Namespaced"


def _metadata(resource: Resource) -> dict[str, dict[str, str]]:
    """The CRD's own labels and annotations (`+kubebuilder:metadata:annotations=k=v;k2=v2,labels=...`),
    from every version's kind, the storage version's last so that its values win."""
    out: dict[str, dict[str, str]] = {}
    for version in sorted(resource.versions, key=lambda v: v.storage):
        for marker in version.kind.markers:
            if marker.name != "kubebuilder:metadata":
                continue
            for key in ("annotations", "labels"):
                for pair in marker.args.get(key) or ():
                    name, _, value = pair.partition("=")
                    out.setdefault(key, {})[name] = value
    return {key: dict(sorted(values.items())) for key, values in sorted(out.items())}


def _main(resource: Resource | facts.Resource) -> Version | facts.ResourceVersion:
    """The version whose markers name the resource: the storage version."""
    return next((v for v in resource.versions if v.storage), resource.versions[0])


def _version(version: Version) -> dict[str, Any]:
    kind = version.kind
    entry: dict[str, Any] = {
        "name": version.package.version,
        "schema": {"openAPIV3Schema": version.schema},
        "served": not kind.has_marker("kubebuilder:unservedversion"),
        "storage": version.storage,
    }
    deprecated = kind.marker("kubebuilder:deprecatedversion")
    if deprecated is not None:
        entry["deprecated"] = True
        if deprecated.args.get("warning"):
            entry["deprecationWarning"] = deprecated.args["warning"]
    columns = []
    for marker in kind.markers:
        if marker.name != "kubebuilder:printcolumn":
            continue
        column = {
            "name": marker.args.get("name"),
            "type": marker.args.get("type"),
            "jsonPath": marker.args.get("JSONPath"),
        }
        for key in ("description", "format", "priority"):
            if marker.args.get(key) not in (None, ""):
                column[key] = marker.args[key]
        columns.append(column)
    if columns:
        entry["additionalPrinterColumns"] = columns
    selectable = [{"jsonPath": m.args.get("JSONPath")} for m in kind.markers if m.name == "kubebuilder:selectablefield"]
    if selectable:
        entry["selectableFields"] = selectable
    subresources: dict[str, Any] = {}
    if kind.has_marker("kubebuilder:subresource:status"):
        subresources["status"] = {}
    scale = kind.marker("kubebuilder:subresource:scale")
    if scale is not None:
        subresources["scale"] = {"specReplicasPath": scale.args.get("specpath"),
                                 "statusReplicasPath": scale.args.get("statuspath")}  # fmt: skip
        if scale.args.get("selectorpath"):
            subresources["scale"]["labelSelectorPath"] = scale.args["selectorpath"]
    if subresources or columns:
        # controller-gen's printcolumn marker gives the version a subresources object even
        # when it has none (`subresources: {}`); kept, so its CRDs and kgen's read alike.
        entry["subresources"] = subresources
    return entry


def manifest(resource: Resource) -> dict[str, Any]:
    names, scope = resource_names(resource)
    versions = sorted(resource.versions, key=lambda v: v.package.version)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{names['plural']}.{resource.group}", **_metadata(resource)},
        "spec": {
            "group": resource.group,
            "names": names,
            "scope": scope,
            "versions": [_version(v) for v in versions],
        },
    }


def literal_style(value: str) -> str | None:
    """Multi-line strings as literal blocks, when a block keeps them exactly."""
    if "\n" in value and all(line == line.rstrip() for line in value.split("\n")):
        return "|"
    return None


_STR = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()
_FLOATS = yaml.representer.SafeRepresenter()


def _scalar(tag: str, value: str, style: str | None = None) -> yaml.ScalarEvent:
    """The event PyYAML's serializer makes for a scalar node (implicit when the plain text
    reads back as the same tag)."""
    plain = _RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
    return yaml.ScalarEvent(None, tag, (plain == tag, tag == _STR), value, style=style)


# Emitters read events and never change them, so one event may stand for every equal value.
_MAPPING = (yaml.MappingStartEvent(None, "tag:yaml.org,2002:map", True, flow_style=False), yaml.MappingEndEvent())
_SEQUENCE = (yaml.SequenceStartEvent(None, "tag:yaml.org,2002:seq", True, flow_style=False), yaml.SequenceEndEvent())
_CONSTANTS = {
    True: _scalar("tag:yaml.org,2002:bool", "true"),
    False: _scalar("tag:yaml.org,2002:bool", "false"),
    None: _scalar("tag:yaml.org,2002:null", "null"),
}


def events(document: Any) -> list[yaml.Event]:
    """The YAML events of JSON data (what manifests hold), exactly those PyYAML's
    SafeDumper would emit for it with sorted keys, block style and no aliases, without
    building its node graph: for CRDs of many large schemas that was most of the time."""
    out: list[yaml.Event] = [yaml.StreamStartEvent(), yaml.DocumentStartEvent()]
    append = out.append
    strings: dict[str, yaml.ScalarEvent] = {}

    def walk(data: Any) -> None:
        kind = type(data)
        if kind is str:
            event = strings.get(data)
            if event is None:
                event = strings[data] = _scalar(_STR, data, literal_style(data))
            append(event)
        elif kind is dict:
            append(_MAPPING[0])
            for key, value in sorted(data.items()):
                walk(key)
                walk(value)
            append(_MAPPING[1])
        elif kind is list:
            append(_SEQUENCE[0])
            for value in data:
                walk(value)
            append(_SEQUENCE[1])
        elif kind is bool or data is None:
            append(_CONSTANTS[data])
        elif kind is int:
            append(_scalar("tag:yaml.org,2002:int", str(data)))
        elif kind is float:
            append(_scalar("tag:yaml.org,2002:float", _FLOATS.represent_float(data).value))
        else:
            raise TypeError(f"a manifest holds JSON data, not {kind.__name__}: {data!r}")

    walk(document)
    out += [yaml.DocumentEndEvent(), yaml.StreamEndEvent()]
    return out


#: libyaml's emitter when PyYAML was built with it (every PyPI wheel is), the pure-Python
#: one otherwise; both write the same bytes (tests/test_crd.py).
DUMPERS: dict[str, type] = {"python": yaml.SafeDumper}
if yaml.__with_libyaml__:
    DUMPERS["libyaml"] = yaml.CSafeDumper


def to_yaml(document: dict[str, Any], emitter: str = "libyaml" if "libyaml" in DUMPERS else "python") -> str:
    """YAML as controller-gen writes it: block style, keys sorted, long strings folded at
    80 columns, multi-line strings as literal blocks, and never an anchor or alias."""
    return yaml.emit(events(document), Dumper=DUMPERS[emitter], width=80, allow_unicode=True)


def documents(universe: Universe, options: GeneratorOptions) -> list[tuple[Resource, dict[str, Any]]]:
    """Every CRD manifest, with the run's options applied (description lengths, conversion)."""
    found, _ = resources(universe, options.crd_embedded_object_meta)
    out = []
    for resource in found:
        document = manifest(resource)
        if options.crd_max_description_length is not None:
            for version in document["spec"]["versions"]:
                version["schema"] = truncate_descriptions(version["schema"], options.crd_max_description_length)
        if len(document["spec"]["versions"]) > 1:
            document["spec"]["conversion"] = conversion_stanza(options.crd_conversion)
            if "cert-manager" in options.crd_conversion:
                annotations = document["metadata"].setdefault("annotations", {})
                annotations[CA_INJECTION_ANNOTATION] = options.crd_conversion["cert-manager"]
        out.append((resource, document))
    return out


def conversion_stanza(webhook: dict[str, Any]) -> dict[str, Any]:
    """How the API server converts between a multi-version CRD's versions: through the
    configured webhook (a Service, at kubebuilder's `/convert` on port 443 unless given, or
    an HTTPS URL; with the CA bundle when one is configured), or not at all (strategy None:
    only the apiVersion changes, which is right only when every version has the same schema)."""
    if not webhook:
        return {"strategy": "None"}
    client: dict[str, Any] = {}
    if "url" in webhook:
        client["url"] = webhook["url"]
    else:
        client["service"] = {"name": webhook["service-name"], "namespace": webhook["service-namespace"],
                             "path": webhook.get("path", "/convert"), "port": webhook.get("port", 443)}  # fmt: skip
    if "ca-bundle" in webhook:
        client["caBundle"] = webhook["ca-bundle"]
    return {
        "strategy": "Webhook",
        "webhook": {"clientConfig": client, "conversionReviewVersions": webhook.get("review-versions", ["v1"])},
    }


CA_INJECTION_ANNOTATION = "cert-manager.io/inject-ca-from"
"""cert-manager's CA injector fills the caBundle of the object carrying this annotation with
the CA of the named Certificate (`<namespace>/<name>`), as kubebuilder's config expects."""


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    files = []
    for resource, document in documents(universe, options):
        path = f"{HOME}{resource.group}_{document['spec']['names']['plural']}.yaml"
        content = header(NAME, tuple(sorted({f"{v.package.import_path}" for v in resource.versions}))) + "---\n"
        files.append(GeneratedFile(path=path, content=content + to_yaml(document), generator=NAME))
    return files


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_without_descriptions(v) for v in schema]
    return schema


CLIENT_SIDE_APPLY_LIMIT = 262_144
"""Bytes of annotations an object may carry: what `kubectl apply` (client-side) writes the
whole applied object into (kubectl.kubernetes.io/last-applied-configuration)."""


def check_documents(universe: Universe, options: GeneratorOptions, diagnostics: Diagnostics) -> None:
    """Warn about CRDs too large for client-side `kubectl apply` to annotate, and about
    versions whose schemas differ with no conversion webhook to convert between them."""
    for resource, document in documents(universe, options):
        schemas = [_without_descriptions(v["schema"]) for v in document["spec"]["versions"]]
        if document["spec"].get("conversion") == {"strategy": "None"} and any(x != schemas[0] for x in schemas):
            diagnostics.warning(
                Position.parse(resource.versions[0].kind.position),
                f"the versions of {resource.kind} ({', '.join(v['name'] for v in document['spec']['versions'])}) "
                "have different schemas, but the CRD has no conversion webhook: the API server would only change "
                "their apiVersion; configure one in [tool.kgen.crd.conversion] (service-name, service-namespace)",
            )
        size = len(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode())
        if size <= CLIENT_SIDE_APPLY_LIMIT:
            continue
        kind = resource.versions[0].kind
        diagnostics.warning(
            Position.parse(kind.position),
            f"the CRD of {resource.kind} is {size:,} bytes, more than the {CLIENT_SIDE_APPLY_LIMIT:,} bytes of "
            "annotations client-side `kubectl apply` writes it into; set [tool.kgen.crd] max-description-length "
            "(or --crd-max-description-length), or apply it with `kubectl apply --server-side`",
        )


# -- structural schema checks ------------------------------------------------------------------

_LIST_ONLY = ("x-kubernetes-list-type", "x-kubernetes-list-map-keys")


def structural_problems(schema: dict[str, Any], path: str = "") -> list[tuple[str, str]]:
    """Where a schema is not structural, as (path, problem), the way the API server says it."""
    problems: list[tuple[str, str]] = []
    here = path or "<root>"
    if "$ref" in schema:
        problems.append((here, "$ref is not allowed in a CRD schema; the type must be written inline"))
    int_or_string = schema.get("x-kubernetes-int-or-string") is True
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    if "type" not in schema and not int_or_string and not preserve:
        problems.append((here, "type: Required value: must not be empty for specified object fields"))
    kind = schema.get("type")
    for key in _LIST_ONLY:
        if key in schema and kind != "array":
            problems.append((here, f"{key}: may only be set on arrays (this is {kind or 'untyped'})"))
    if "x-kubernetes-list-map-keys" in schema and schema.get("x-kubernetes-list-type") != "map":
        problems.append((here, "x-kubernetes-list-map-keys: may only be set with x-kubernetes-list-type: map"))
    if schema.get("x-kubernetes-list-type") == "map":
        items = schema.get("items", {})
        if not schema.get("x-kubernetes-list-map-keys"):
            problems.append(
                (here, "x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map")
            )
        for key in schema.get("x-kubernetes-list-map-keys", []):
            if key not in items.get("properties", {}):
                problems.append((here, f"x-kubernetes-list-map-keys: {key!r} is not a property of the items"))
    if "x-kubernetes-map-type" in schema and kind != "object":
        problems.append((here, f"x-kubernetes-map-type: may only be set on objects (this is {kind or 'untyped'})"))
    if int_or_string and kind is not None:
        problems.append((here, "x-kubernetes-int-or-string: type must be empty"))
    if schema.get("x-kubernetes-embedded-resource") is True and kind != "object":
        problems.append((here, "x-kubernetes-embedded-resource: type must be object"))
    if schema.get("uniqueItems") is True:
        problems.append((here, "uniqueItems: may not be true; use x-kubernetes-list-type: set"))
    for name, sub in schema.get("properties", {}).items():
        problems.extend(structural_problems(sub, f"{path}.{name}" if path else name))
    if isinstance(schema.get("items"), dict):
        problems.extend(structural_problems(schema["items"], f"{path}[*]" if path else "[*]"))
    if isinstance(schema.get("additionalProperties"), dict):
        problems.extend(structural_problems(schema["additionalProperties"], f"{path}[*]" if path else "[*]"))
    return problems


def _check_rule_costs(universe: Universe, resource: Resource, version: Version, diagnostics: Diagnostics) -> None:
    """The API server's limits on the estimated cost of CEL rules, each at its marker: errors,
    but for rules declared under `+kgen:celCost=warn` (for projects that strip such rules from
    their CRDs after generation)."""
    where = Position.parse(version.kind.position)
    found = crdcost.problems(version.schema)
    over = {p.rule for p in found if p.rule is not None and "exceeds budget" in p.message}
    warned = _cost_warned_rules(universe)
    package_warns = _cost_mode(version.package.markers) == "warn"
    located = [(p, _rule_position(universe, version.kind, p.rule) if p.rule is not None else None) for p in found]
    # the total over budget is downgraded with the rules that make it up
    every_rule_warned = all(str(at) in warned for p, at in located if p.rule is not None)
    for problem, at in located:
        rule = problem.rule
        if rule in over and "exceeds budget" not in problem.message:
            continue  # already reported as over the limit on its own, at the same marker
        what = f" {rule.part} {rule.expression!r}" if rule is not None else ""
        message = (f"CRD {resource.kind} {version.package.version}:{what} at {problem.path}: {problem.message}; "
                   "the API server rejects the CRD")  # fmt: skip
        if package_warns or (str(at) in warned if rule is not None else every_rule_warned and len(located) > 1):
            diagnostics.warning(at or where, message + " (a warning under +kgen:celCost=warn)")
        else:
            diagnostics.error(at or where, message + "; lower the rule's cost (maxItems, maxLength, maxProperties "
                              "bound it), or mark it +kgen:celCost=warn if a later step removes it")  # fmt: skip


def _cost_mode(markers) -> str | None:
    marker = next((m for m in markers if m.name == "kgen:celCost"), None)
    return None if marker is None else str(marker.value)


def _rules_of(constraints: Constraints) -> list[str]:
    rules = [*constraints.rules, *(r for g in constraints.gated for r in g.constraints.rules)]
    return [r.position for r in rules if r.position]


@per_universe
def _cost_warned_rules(universe: Universe) -> frozenset[str]:
    """The positions of the rules declared on types and fields marked `+kgen:celCost=warn`."""
    found: set[str] = set()
    for package in universe.generated_packages:
        for typedef in package.types:
            if _cost_mode(typedef.markers) == "warn":
                found.update(_rules_of(typedef.validation) + _rules_of(typedef.crd))
            for f in typedef.fields:
                if _cost_mode(f.markers) == "warn":
                    found.update(_rules_of(f.validation) + _rules_of(f.crd))
    return frozenset(found)


def _rule_position(universe: Universe, kind: TypeDef, rule: crdcost.RuleCost) -> Position | None:
    """Where the marker of a rule of a CRD schema was written: found by following the
    rule's way down the schema through the kind's fields, list items and map values."""
    ref = TypeRef(kind="named", package=kind.package, name=kind.name)
    owners: list[Constraints] = []
    fallback = kind.position
    for step in rule.steps:
        ref, owners = _owners_of(universe, ref, owners)
        if step[0] == "properties":
            if ref.kind != "named" or universe.resolve(ref).kind != "struct":
                return None
            member = next((f for f in universe.resolve(ref).fields if f.json_name == step[1]), None)
            if member is None:
                return None
            owners = [member.validation, member.crd]
            fallback = member.position or fallback
            ref = member.type
        else:
            owners = [c.items for c in owners if c.items is not None]
            if ref.kind not in ("slice", "map") or ref.elem is None:
                return None
            ref = ref.elem
    _, owners = _owners_of(universe, ref, owners)
    for constraints in owners:
        for candidate in (*constraints.rules, *(r for g in constraints.gated for r in g.constraints.rules)):
            text = candidate.rule if rule.part == "rule" else candidate.message_expression
            if text == rule.expression and candidate.position:
                return Position.parse(candidate.position)
    return Position.parse(fallback) if fallback else None


def _owners_of(universe: Universe, ref: TypeRef, owners: list[Constraints]) -> tuple[TypeRef, list[Constraints]]:
    """A type reference without its pointers and named types, and the constraints of the
    named types passed on the way (whose rules the schema states at the same place)."""
    owners = list(owners)
    while ref.kind == "pointer" or ref.kind == "named":
        if ref.kind == "pointer":
            assert ref.elem is not None
            ref = ref.elem
            continue
        typedef = universe.resolve(ref)
        owners += [typedef.validation, typedef.crd]
        if typedef.kind != "named" or typedef.underlying is None:
            break
        ref = typedef.underlying
    return ref, owners


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """Every CRD schema must be structural; versions and printer columns must make sense."""
    found, builder = resources(universe)
    served: dict[tuple[str, str], Resource] = {}
    for resource in found:  # one resource (and CRD file) per plural of a group
        plural = resource_names(resource)[0]["plural"]
        other = served.setdefault((resource.group, plural), resource)
        if other is not resource:
            diagnostics.error(
                Position.parse(resource.versions[0].kind.position),
                f"kinds {other.kind} and {resource.kind} of group {resource.group} have the same plural {plural!r} "
                f"(the resource and CRD name); name one with +kubebuilder:resource:path=<plural>",
            )
    reported = set()
    for typedef, cycle in builder.cycles:
        if typedef.name in reported:
            continue
        reported.add(typedef.name)
        diagnostics.warning(
            Position.parse(typedef.position),
            f"{typedef.name} contains itself ({' -> '.join(c.rsplit('.', 1)[-1] for c in cycle)}); a CRD schema "
            "cannot say a recursive type, so it keeps the inner value unchecked (x-kubernetes-preserve-unknown-fields)",
        )
    for resource in found:
        for version in resource.versions:
            where = Position.parse(version.kind.position)
            for path, problem in structural_problems(version.schema):
                diagnostics.error(
                    where,
                    f"CRD {resource.kind} {version.package.version}: schema is not structural at {path}: {problem}",
                )
            _check_rule_costs(universe, resource, version, diagnostics)
            for marker in version.kind.markers:
                if marker.name != "kubebuilder:printcolumn":
                    continue
                at = Position.parse(marker.position) if marker.position else where
                for key in ("name", "type", "JSONPath"):
                    if not marker.args.get(key):
                        diagnostics.error(at, f"+kubebuilder:printcolumn needs {key}=...")
                if marker.args.get("type") and marker.args["type"] not in PRINTER_TYPES:
                    diagnostics.error(at, f"+kubebuilder:printcolumn type {marker.args['type']!r} must be one of "
                                          f"{', '.join(PRINTER_TYPES)}")  # fmt: skip
                if marker.args.get("JSONPath") and not str(marker.args["JSONPath"]).startswith("."):
                    diagnostics.error(
                        at, f"+kubebuilder:printcolumn JSONPath {marker.args['JSONPath']!r} must start with '.'"
                    )
            for marker in version.kind.markers:
                if marker.name == "kubebuilder:selectablefield":
                    at = Position.parse(marker.position) if marker.position else where
                    path = str(marker.args.get("JSONPath") or "")
                    if not path.startswith(".") or path.startswith(".metadata"):
                        diagnostics.error(at, f"+kubebuilder:selectablefield JSONPath {path!r} must name a field "
                                              "outside metadata, starting with '.' (as .spec.replicas)")  # fmt: skip
        served = [v for v in resource.versions if not v.kind.has_marker("kubebuilder:unservedversion")]
        if not served:
            where = Position.parse(resource.versions[0].kind.position)
            diagnostics.error(where, f"CRD {resource.kind}: no version is served")
        stored = storage(universe).versions.get((resource.group, resource.kind))
        if stored is not None and not any(v.storage for v in resource.versions):
            where = Position.parse(resource.versions[0].kind.position)
            diagnostics.error(
                where, f"CRD {resource.kind}: its storage version {stored} is left out of the CRD "
                "(+kubebuilder:skipversion); mark a version the CRD keeps with +kubebuilder:storageversion"
            )  # fmt: skip
    for position, message in storage(universe).problems:
        diagnostics.error(Position.parse(position), message)
