"""CustomResourceDefinition manifests read into a `Snapshot`, with the line of every schema node.

`read(paths)` takes YAML (or JSON) files and directories of them, as a release publishes
its CRDs (`config/crd/`, a single `install.yaml`). Documents that are not CRDs are passed
over; `apiextensions.k8s.io/v1beta1` CRDs are read as the API server converts them (one
schema for every version unless a version has its own). A file that does not parse is an
input error at its line, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from kgen.compat.snapshot import Resource, Snapshot, Steps, Version
from kgen.diagnostics import Diagnostics, Position, display_path
from kgen.runtime.structural import Structural

_SKIPPED = {".git", "vendor", "node_modules", "testdata"}
_SUFFIXES = (".yaml", ".yml", ".json")
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):  # type: ignore[misc, valid-type]
    """YAML as the API server reads it: `=` is a plain string (PyYAML's value tag refuses it)."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def files_in(paths: Iterable[Path]) -> list[Path]:
    """The manifest files of `paths`: files as given, directories searched (hidden, vendor
    and test data directories left out), in path order."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
                out += [Path(root) / n for n in sorted(names) if n.endswith(_SUFFIXES)]
        else:
            out.append(path)
    return out


def read(paths: Iterable[Path], label: str, diagnostics: Diagnostics, shown_as: Path | None = None) -> Snapshot:
    """The CRDs in `paths`. `shown_as`: the directory positions are written relative to, under
    `label` (an extracted revision); else the files' own display paths."""
    snapshot = Snapshot(label)
    for path in files_in(paths):
        shown = f"{label}:{path.relative_to(shown_as).as_posix()}" if shown_as is not None else display_path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            diagnostics.error(Position(shown), f"cannot read the CRD file: {err}")
            continue
        if "CustomResourceDefinition" not in text:
            continue
        try:
            nodes = list(yaml.compose_all(text, Loader=_Loader))
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            where = Position(shown, mark.line + 1, mark.column + 1) if mark is not None else Position(shown)
            diagnostics.error(where, f"not a YAML document: {getattr(err, 'problem', None) or err}")
            continue
        for node in nodes:
            if node is None:
                continue
            document = _Loader("").construct_document(node)
            if not _is_crd(document):
                continue
            resource = _resource(document, node, shown, diagnostics)
            if resource is None:
                continue
            key = (resource.group, resource.kind)
            if key in snapshot.resources:
                diagnostics.warning(
                    resource.position or Position(shown),
                    f"a second CRD of {resource.kind} ({resource.group}); the first one, at "
                    f"{snapshot.resources[key].position}, is compared",
                )
                continue
            snapshot.resources[key] = resource
    return snapshot


def _is_crd(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and document.get("kind") == "CustomResourceDefinition"
        and str(document.get("apiVersion", "")).startswith("apiextensions.k8s.io/")
    )


def _resource(document: dict[str, Any], node: yaml.Node, shown: str, diagnostics: Diagnostics) -> Resource | None:
    spec = document.get("spec")
    where = Position(shown, node.start_mark.line + 1, node.start_mark.column + 1)
    if not isinstance(spec, dict) or not isinstance(spec.get("names"), dict):
        diagnostics.error(where, "a CustomResourceDefinition without spec.names")
        return None
    names = spec["names"]
    resource = Resource(
        group=str(spec.get("group", "")),
        kind=str(names.get("kind", "")),
        plural=str(names.get("plural", "")),
        scope=str(spec.get("scope", "Namespaced")),
        custom=True,
        position=where,
    )
    shared = ((spec.get("validation") or {}).get("openAPIV3Schema")) or {}  # v1beta1
    versions = spec.get("versions")
    if not versions and spec.get("version"):  # v1beta1 with one version
        versions = [{"name": spec["version"], "served": True, "storage": True}]
    for entry in versions or ():
        if not isinstance(entry, dict) or "name" not in entry:
            diagnostics.error(where, f"CRD {resource.kind}: a version without a name")
            continue
        schema = ((entry.get("schema") or {}).get("openAPIV3Schema")) or shared
        try:
            Structural.from_openapi(schema if isinstance(schema, dict) else None)
        except (TypeError, ValueError) as err:
            diagnostics.error(where, f"CRD {resource.kind} {entry['name']}: openAPIV3Schema is not a schema the API "
                              f"server accepts: {err}")  # fmt: skip
            continue
        resource.versions[str(entry["name"])] = Version(
            name=str(entry["name"]),
            served=bool(entry.get("served", True)),
            storage=bool(entry.get("storage", False)),
            deprecated=bool(entry.get("deprecated", False)),
            schema=schema if isinstance(schema, dict) else {},
        )
    order = [str(v.get("name")) for v in versions or () if isinstance(v, dict)]
    per_version = {
        str(v.get("name")): bool((v.get("schema") or {}).get("openAPIV3Schema"))
        for v in versions or ()
        if isinstance(v, dict)
    }

    def locate(version: str, steps: Steps) -> Position | None:
        if version not in order:
            return None
        root = _child(node, "spec")
        if per_version.get(version):
            root = _child(_item(_child(root, "versions"), order.index(version)), "schema")
        else:
            root = _child(root, "validation")
        schema = _child(root, "openAPIV3Schema")
        found = schema
        current = schema
        for step in steps:
            if current is None:
                break
            if step[0] == "properties":
                key, current = _key_and_value(_child(current, "properties"), step[1])
                found = key if key is not None else found
            else:
                key, current = _key_and_value(current, step[0])
                found = key if key is not None else found
        if found is None:
            return None
        return Position(shown, found.start_mark.line + 1, found.start_mark.column + 1)

    resource.locate = locate
    return resource


def _key_and_value(node: yaml.Node | None, name: str) -> tuple[yaml.Node | None, yaml.Node | None]:
    if not isinstance(node, yaml.MappingNode):
        return None, None
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == name:
            return key, value
    return None, None


def _child(node: yaml.Node | None, name: str) -> yaml.Node | None:
    return _key_and_value(node, name)[1]


def _item(node: yaml.Node | None, index: int) -> yaml.Node | None:
    if isinstance(node, yaml.SequenceNode) and 0 <= index < len(node.value):
        return node.value[index]
    return None
