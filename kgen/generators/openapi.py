"""The OpenAPI generator: the documents the API server would serve for these types.

- `openapi/swagger.json`: OpenAPI v2 with the definitions of every versioned package
  (and of the apimachinery types they use);
- `openapi/v3/apis/<group>/<version>.json` (`openapi/v3/api/<version>.json` for the core
  group): OpenAPI v3, one document per group/version, as `/openapi/v3` serves them.

Definitions are named, described and typed as openapi-gen writes them (`schema.py`).
openapi-gen's API rule violations (`names_match`, `omitempty_match_case`,
`list_type_missing`) are written to `openapi/api-rule-violations.list`, as openapi-gen's
report is, so a change shows in the drift check. An input that keeps the list of known
violations in `api-rules/violation_exceptions.list` has them enforced: `check` makes
every violation not on it an error.
"""

from __future__ import annotations

from typing import Any

from kgen.diagnostics import Diagnostics, Position
from kgen.generators.options import GeneratorOptions
from kgen.generators.schema import SchemaBuilder, sort_keys
from kgen.ir.build import SERVER_TYPES
from kgen.ir.model import API_RULE_EXCEPTIONS, Member, Package, TypeDef, Universe
from kgen.render import GeneratedFile, header, render_json

NAME = "openapi"
HOME = "openapi/"
"""The directory of the output root that holds nothing but this generator's files."""
REPORT = "openapi/api-rule-violations.list"
VIOLATION = "API rule violation: "


def packages(universe: Universe) -> list[Package]:
    """The versioned API packages of the input with published schemas (`+k8s:openapi-gen=false`
    opts out); what they use from other packages is defined where they refer to it."""
    chosen = []
    for package in universe.generated_packages:
        marker = package.marker("k8s:openapi-gen")
        if package.role != "api" or package.internal or not package.version:
            continue
        if marker is not None and str(marker.value) == "false":
            continue
        chosen.append(package)
    return chosen


def published(typedef: TypeDef) -> bool:
    marker = typedef.marker("k8s:openapi-gen")
    return typedef.kind == "struct" and not (marker is not None and str(marker.value) == "false")


def _group_version_kind(package: Package, typedef: TypeDef) -> list[dict[str, str]] | None:
    if not (typedef.is_kind or typedef.is_list):
        return None
    return [{"group": package.group, "kind": typedef.name, "version": package.version}]


def definitions(universe: Universe, chosen: list[Package], dialect: str, served: bool = True) -> dict[str, Any]:
    """The definitions of the chosen packages' types (and what they use); with `served`, also
    those every API server serves (discovery, Status, DeleteOptions, WatchEvent)."""
    builder = SchemaBuilder(universe, dialect)  # type: ignore[arg-type]
    for package in chosen:
        for typedef in package.types:
            if published(typedef):
                name = builder.define(typedef)
                gvk = _group_version_kind(package, typedef)
                if gvk:
                    builder.definitions[name]["x-kubernetes-group-version-kind"] = gvk
    if served:
        everywhere = _served_group_versions(universe)
        for import_path, type_name in SERVER_TYPES:
            typedef = _find(universe, import_path, type_name)
            if typedef is None:
                continue
            name = builder.define(typedef)
            if type_name in _IN_EVERY_GROUP_VERSION:
                gvks = [{"group": g, "kind": type_name, "version": v} for g, v in everywhere]
            elif type_name in _CORE_KINDS:
                gvks = [{"group": "", "kind": type_name, "version": "v1"}]
            else:
                continue
            builder.definitions[name]["x-kubernetes-group-version-kind"] = gvks
    return sort_keys(builder.definitions)


# How an API server registers apimachinery's kinds: DeleteOptions and WatchEvent in every
# group version it serves, discovery and Status as the core group's.
_IN_EVERY_GROUP_VERSION = ("DeleteOptions", "WatchEvent")
_CORE_KINDS = ("Status", "APIGroup", "APIGroupList", "APIResourceList", "APIVersions")


def _served_group_versions(universe: Universe) -> list[tuple[str, str]]:
    """The group versions an API server of these packages serves: each API package with kinds,
    and the core group's v1, sorted as the API server lists them."""
    found = {("", "v1")}
    for package in universe.packages:
        if package.role == "api" and not package.internal and any(t.is_kind for t in package.types):
            found.add((package.group, package.version))
    return sorted(found)


def _find(universe: Universe, import_path: str, name: str) -> TypeDef | None:
    try:
        return universe.package(import_path).type(name)
    except KeyError:
        return None


def _title(universe: Universe) -> str:
    return universe.module or "kgen"


def generate(universe: Universe, options: GeneratorOptions) -> list[GeneratedFile]:
    chosen = packages(universe)
    if not chosen:
        return []
    files = []
    swagger = {
        "swagger": "2.0",
        "info": {"title": _title(universe), "version": "unversioned"},
        "paths": {},
        "definitions": definitions(universe, chosen, "v2"),
    }
    files.append(render_json(f"{HOME}swagger.json", NAME, swagger))
    for package in chosen:
        document = {
            "openapi": "3.0.0",
            "info": {"title": _title(universe), "version": "unversioned"},
            "paths": {},
            "components": {"schemas": definitions(universe, [package], "v3", served=False)},
        }
        where = f"apis/{package.group}/{package.version}" if package.group else f"api/{package.version}"
        files.append(render_json(f"{HOME}v3/{where}.json", NAME, document))
    report = sorted({text for text, _ in violations(universe)})
    lines = [header(NAME, ()), *(line + "\n" for line in report)]
    files.append(GeneratedFile(path=REPORT, content="".join(lines), generator=NAME))
    return files


# -- API rule violations -----------------------------------------------------------------


def violations(universe: Universe) -> list[tuple[str, Position]]:
    """openapi-gen's API rule violations, as its report lists them, with where each is."""
    found: list[tuple[str, Position]] = []
    for package in packages(universe):
        for typedef in package.types:
            if not published(typedef):
                continue
            for member in typedef.members:
                where = Position.parse(member.position or typedef.position)
                for rule in _member_violations(universe, typedef, member):
                    found.append((f"{VIOLATION}{rule},{package.import_path},{typedef.name},{member.go_name}", where))
    return found


def _member_violations(universe: Universe, typedef: TypeDef, member: Member) -> list[str]:
    rules = []
    json_tag = member.tags.get("json")
    if json_tag is None:
        rules.append("names_match")
    elif json_tag != "-" and not names_match(member.go_name, json_tag.split(",")[0]):
        rules.append("names_match")
    if json_tag is not None:
        options = json_tag.split(",")[1:]
        if any(o.lower() == "omitempty" and o != "omitempty" for o in options):
            rules.append("omitempty_match_case")
    has_list_type = any(m.name in ("listType", "k8s:listType") for m in member.markers)
    if member.type.kind == "slice":
        if member.go_name == "Items" and any(m.embedded and m.type.name == "ListMeta" for m in typedef.members):
            if has_list_type:
                rules.append("list_type_missing")  # a list kind's items are never merged
        elif not has_list_type:
            rules.append("list_type_missing")
    return rules


def names_match(go_name: str, json_name: str) -> bool:
    """openapi-gen's names_match: other than the initial capital (or initial acronym),
    the Go and JSON names are the same (`PodSpec`/`podSpec`, `JSONSpec`/`jsonSpec`)."""
    if json_name in ("", "metadata"):
        return True
    if go_name.lower() != json_name.lower():
        return False
    if not go_name[0].isupper() or not go_name[0].isascii() or json_name[0].isupper():
        return False
    for i, (g, j) in enumerate(zip(go_name, json_name)):
        if g == j:
            return go_name[i:] == json_name[i:] and (i == 1 or go_name[i].isupper())
    return True


def check(universe: Universe, diagnostics: Diagnostics) -> None:
    """New API rule violations are errors (as openapi-gen fails on them); exceptions that
    no longer happen are warnings, so the list shrinks as the API is fixed."""
    if universe.api_rule_exceptions is None:
        return  # not enforced: the generated report lists them
    known = {line.removeprefix(VIOLATION): line for line in universe.api_rule_exceptions}  # the prefix is optional
    seen = set()
    for text, where in violations(universe):
        key = text.removeprefix(VIOLATION)
        seen.add(key)
        if key not in known:
            rule = key.split(",", 1)[0]
            diagnostics.error(where, f"{text}: {_advice(rule)}, or list it in {API_RULE_EXCEPTIONS} of the input")
    for key in sorted(known.keys() - seen):
        diagnostics.warning(
            Position(API_RULE_EXCEPTIONS, 0, 0), f"{known[key]!r} no longer happens; remove it from the list"
        )


def _advice(rule: str) -> str:
    return {
        "names_match": "the JSON name must be the Go name with its initial capital (or acronym) lower-cased",
        "omitempty_match_case": "write `omitempty` in lower case",
        "list_type_missing": "say how the list merges with +listType=atomic, +listType=set or +listType=map",
    }[rule]
