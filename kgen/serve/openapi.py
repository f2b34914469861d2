"""The OpenAPI documents the server publishes: `/openapi/v2` and `/openapi/v3/<group-version>`.

The schemas are the openapi generator's documents of the same run; the server adds what
only it knows, the paths: one per endpoint and verb, each operation carrying
`x-kubernetes-action` and `x-kubernetes-group-version-kind` and its query parameters.
kubectl reads the PATCH operations' `fieldValidation` parameter to learn that the server
validates fields (so it sends `fieldValidation=Strict` instead of validating itself),
and `kubectl explain` reads the schemas of `/openapi/v3/apis/<group>/<version>`.
`/openapi/v3` is the index of those documents, each addressed with a hash of its
content so clients may cache it for good.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from kgen.serve import builtins
from kgen.serve.api import Endpoint, ServedAPI

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_QUERY = {
    "dryRun": "All: check and compute the change but store nothing (the only value).",
    "fieldManager": "The name of the actor making the change, recorded in managedFields.",
    "fieldValidation": "What to do with unknown or duplicate fields of the request's object: Ignore, Warn or Strict.",
    "force": "Apply only: take over the fields other managers own instead of failing with a conflict.",
    "pretty": "Indent the answer when true.",
    "labelSelector": "Only objects whose labels match this selector.",
    "fieldSelector": "Only objects whose fields match this selector.",
    "limit": "At most this many objects; the list's continue token gives the rest.",
    "continue": "The token of the previous page, to read the next one.",
    "resourceVersion": "The revision the answer must be at least as new as (or exactly, with resourceVersionMatch).",
    "resourceVersionMatch": "How a list reads resourceVersion: NotOlderThan or Exact.",
    "watch": "Stream the changes of the selected objects instead of listing them.",
    "allowWatchBookmarks": "Send BOOKMARK events that carry the current resourceVersion.",
    "sendInitialEvents": "With watch: begin with an ADDED event for every selected object.",
    "timeoutSeconds": "End the list or watch after this many seconds.",
    "propagationPolicy": "What happens to dependents: Orphan, Background or Foreground.",
    "gracePeriodSeconds": "Seconds to wait before the object is deleted.",
}
_TYPES = {"limit": "integer", "timeoutSeconds": "integer", "gracePeriodSeconds": "integer",
          "watch": "boolean", "allowWatchBookmarks": "boolean", "sendInitialEvents": "boolean", "force": "boolean"}  # fmt: skip
_LIST = ("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "pretty", "resourceVersion",
         "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch")  # fmt: skip
_WRITE = ("dryRun", "fieldManager", "fieldValidation", "pretty")
_PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json",
                "application/apply-patch+yaml")  # fmt: skip

_NAMESPACE_V3: dict[str, Any] = {
    "io.k8s.api.core.v1.Namespace": {
        "description": "A namespace: a scope for the names of the objects in it.",
        "type": "object",
        "properties": {
            "apiVersion": {
                "type": "string",
                "description": "The versioned schema of this representation of the object (group/version).",
            },
            "kind": {
                "type": "string",
                "description": "The kind of the object, in CamelCase: the REST resource it represents.",
            },
            "metadata": {
                "allOf": [{"$ref": f"#/components/schemas/{_META}ObjectMeta"}],
                "default": {},
                "description": "The object's standard metadata.",
            },
            "spec": {
                "type": "object",
                "description": "What the namespace should be.",
                "properties": {
                    "finalizers": {
                        "type": "array",
                        "items": {"type": "string", "default": ""},
                        "x-kubernetes-list-type": "atomic",
                        "description": "What must be done (each entry removed) before the namespace is removed.",
                    }
                },
            },
            "status": {
                "type": "object",
                "description": "What the namespace is.",
                "properties": {
                    "phase": {
                        "type": "string",
                        "description": "Active, or Terminating once it is being deleted.",
                        "enum": ["Active", "Terminating"],
                    }
                },
            },
        },
        "x-kubernetes-group-version-kind": [{"group": "", "kind": "Namespace", "version": "v1"}],
    },
    "io.k8s.api.core.v1.NamespaceList": {
        "description": "A list of namespaces.",
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"allOf": [{"$ref": f"#/components/schemas/{_META}ListMeta"}], "default": {}},
            "items": {
                "type": "array",
                "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Namespace"}], "default": {}},
            },
        },
        "x-kubernetes-group-version-kind": [{"group": "", "kind": "NamespaceList", "version": "v1"}],
    },
}
_SHARED: dict[str, Any] = {  # what the operations refer to, as small as a client needs
    f"{_META}Status": {"type": "object", "description": "The outcome of a call that returns no object, or of a failed one.",
                       "x-kubernetes-group-version-kind": [{"group": "", "kind": "Status", "version": "v1"}]},
    f"{_META}Patch": {"type": "object", "description": "The body of a PATCH request."},
    f"{_META}DeleteOptions": {"type": "object", "description": "How to delete: preconditions, propagation policy, grace period, dry run."},
    f"{_META}WatchEvent": {"type": "object", "description": "One change of a watched object: its type and the object."},
}  # fmt: skip


def _definition_name(schemas: dict[str, Any], group: str, version: str, kind: str) -> str | None:
    for name, schema in schemas.items():
        for gvk in schema.get("x-kubernetes-group-version-kind", ()):
            if (gvk.get("group", ""), gvk.get("version"), gvk.get("kind")) == (group, version, kind):
                return name
    return None


def _parameters(names: tuple[str, ...], v3: bool) -> list[dict[str, Any]]:
    out = []
    for name in names:
        kind = _TYPES.get(name, "string")
        parameter: dict[str, Any] = {"name": name, "in": "query", "description": _QUERY[name]}
        if v3:
            parameter["schema"] = {"type": kind, "uniqueItems": True}
        else:
            parameter.update(type=kind, uniqueItems=True)
        out.append(parameter)
    return out


def _operation(endpoint: Endpoint, action: str, verb_id: str, reference: str, query: tuple[str, ...], v3: bool,
               body: str | None = None, patch: bool = False) -> dict[str, Any]:  # fmt: skip
    gvk = {"group": endpoint.group, "version": endpoint.version.version, "kind": endpoint.kind}
    name = "".join(part[:1].upper() + part[1:] for part in endpoint.group.replace("-", ".").split(".") if part)
    operation: dict[str, Any] = {
        "tags": [f"{endpoint.group or 'core'}_{endpoint.version.version}"],
        "description": f"{action} {endpoint.kind}",
        "operationId": f"{verb_id}{name}{endpoint.version.version.capitalize()}{endpoint.kind}",
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": gvk,
        "parameters": _parameters(query, v3),
    }
    ref = f"#/components/schemas/{reference}" if v3 else f"#/definitions/{reference}"
    if v3:
        operation["responses"] = {
            "200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": ref}}}}
        }
        if body is not None:
            types = _patch_types(endpoint) if patch else ("application/json", "application/yaml")
            body_ref = f"#/components/schemas/{body}"
            operation["requestBody"] = {"content": {t: {"schema": {"$ref": body_ref}} for t in types}, "required": True}
    else:
        operation["responses"] = {"200": {"description": "OK", "schema": {"$ref": ref}}}
        if body is not None:
            operation["parameters"].append(
                {"name": "body", "in": "body", "required": True, "schema": {"$ref": f"#/definitions/{body}"}}
            )
            if patch:
                operation["consumes"] = list(_patch_types(endpoint))
    return operation


def _patch_types(endpoint: Endpoint) -> tuple[str, ...]:
    """The patch types a PATCH takes: kubectl apply sends a strategic merge patch only where the
    operation lists it, and a custom resource takes none."""
    if endpoint.custom:
        return tuple(t for t in _PATCH_TYPES if t != "application/strategic-merge-patch+json")
    return _PATCH_TYPES


def _paths(endpoint: Endpoint, kind_def: str, list_def: str, v3: bool) -> dict[str, Any]:
    base = (
        f"/apis/{endpoint.group}/{endpoint.version.version}" if endpoint.group else f"/api/{endpoint.version.version}"
    )
    plural = endpoint.resource.plural
    scoped = f"{base}/namespaces/{{namespace}}/{plural}" if endpoint.namespaced else f"{base}/{plural}"
    path_parameters = (
        [{"name": "namespace", "in": "path", "required": True, "description": "the namespace of the objects"}]
        if endpoint.namespaced
        else []
    )
    name_parameter = {"name": "name", "in": "path", "required": True, "description": f"name of the {endpoint.kind}"}
    if v3:
        for parameter in [*path_parameters, name_parameter]:
            parameter["schema"] = {"type": "string", "uniqueItems": True}
    else:
        for parameter in [*path_parameters, name_parameter]:
            parameter["type"] = "string"
    status = f"{_META}Status"
    paths: dict[str, Any] = {
        scoped: {
            "get": _operation(endpoint, "list", "list", list_def, _LIST, v3),
            "post": _operation(endpoint, "post", "create", kind_def, _WRITE, v3, body=kind_def),
            "delete": _operation(endpoint, "deletecollection", "deleteCollection", status, ("dryRun", "propagationPolicy", *_LIST), v3, body=f"{_META}DeleteOptions"),
            "parameters": list(path_parameters),
        },
        f"{scoped}/{{name}}": {
            "get": _operation(endpoint, "get", "read", kind_def, ("pretty", "resourceVersion"), v3),
            "put": _operation(endpoint, "put", "replace", kind_def, _WRITE, v3, body=kind_def),
            "patch": _operation(endpoint, "patch", "patch", kind_def, (*_WRITE, "force"), v3, body=f"{_META}Patch", patch=True),
            "delete": _operation(endpoint, "delete", "delete", status, ("dryRun", "gracePeriodSeconds", "propagationPolicy", "pretty"), v3, body=f"{_META}DeleteOptions"),
            "parameters": [*path_parameters, name_parameter],
        },
    }  # fmt: skip
    for subresource in endpoint.subresources():
        if subresource != "status":
            continue
        paths[f"{scoped}/{{name}}/status"] = {
            "get": _operation(endpoint, "get", "readStatus", kind_def, ("pretty",), v3),
            "put": _operation(endpoint, "put", "replaceStatus", kind_def, _WRITE, v3, body=kind_def),
            "patch": _operation(endpoint, "patch", "patchStatus", kind_def, (*_WRITE, "force"), v3, body=f"{_META}Patch", patch=True),
            "parameters": [*path_parameters, name_parameter],
        }  # fmt: skip
    if endpoint.namespaced:
        paths[f"{base}/{plural}"] = {"get": _operation(endpoint, "list", "listForAllNamespaces", list_def, _LIST, v3)}
    return paths


class Documents:
    """The documents, built once at startup, with their hashes."""

    def __init__(self, api: ServedAPI):
        self.v3: dict[str, bytes] = {}
        self.v3_hashes: dict[str, str] = {}
        loaded = api.loaded
        for group, versions in api.groups().items():
            for version in versions:
                key = f"apis/{group}/{version}" if group else f"api/{version}"
                document = copy.deepcopy(loaded.openapi_v3.get(key)) or {
                    "openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "unversioned"}, "paths": {}, "components": {"schemas": {}},
                }  # fmt: skip
                document.pop("x-kgen-generated", None)
                schemas = document.setdefault("components", {}).setdefault("schemas", {})
                for name, schema in builtins.openapi_schemas(api.endpoints_of(group, version)).items():
                    schemas.setdefault(name, schema)
                if not group:
                    schemas.update(copy.deepcopy(_NAMESPACE_V3))
                    for name, schema in _apimachinery_schemas(loaded.openapi_v3).items():
                        schemas.setdefault(name, schema)
                    for name in ("ObjectMeta", "ListMeta"):
                        schemas.setdefault(f"{_META}{name}", {"type": "object"})
                for name, schema in _SHARED.items():
                    schemas.setdefault(name, copy.deepcopy(schema))
                custom = [e for e in api.endpoints_of(group, version) if e.custom]
                if custom:  # what the apiextensions-apiserver publishes for its CRDs instead
                    for name in [n for n in schemas if not n.startswith("io.k8s.")]:
                        del schemas[name]
                    for name, schema in _apimachinery_schemas(loaded.openapi_v3).items():
                        schemas.setdefault(name, schema)
                    for endpoint in custom:
                        schemas.update(custom_resource_schemas(endpoint))
                paths = document.setdefault("paths", {})
                for endpoint in api.endpoints_of(group, version):
                    kind_def = _definition_name(schemas, group, version, endpoint.kind) or f"{_META}Status"
                    list_def = _definition_name(schemas, group, version, endpoint.list_kind) or kind_def
                    paths.update(_paths(endpoint, kind_def, list_def, v3=True))
                body = json.dumps(document, separators=(",", ":"), sort_keys=True).encode()
                self.v3[key] = body
                self.v3_hashes[key] = hashlib.sha512(body).hexdigest()[:128].upper()
        self.v2 = json.dumps(self._v2(api), separators=(",", ":"), sort_keys=True).encode()

    def _v2(self, api: ServedAPI) -> dict[str, Any]:
        document = copy.deepcopy(api.loaded.openapi_v2)
        document.pop("x-kgen-generated", None)
        definitions = document.setdefault("definitions", {})
        for name, schema in _NAMESPACE_V3.items():
            definitions.setdefault(
                name, json.loads(json.dumps(schema).replace("#/components/schemas/", "#/definitions/"))
            )
        for name, schema in _SHARED.items():
            definitions.setdefault(name, copy.deepcopy(schema))
        for name, schema in builtins.openapi_schemas(list(api.endpoints.values())).items():
            definitions.setdefault(
                name, json.loads(json.dumps(schema).replace("#/components/schemas/", "#/definitions/"))
            )
        for name in ("ObjectMeta", "ListMeta"):
            definitions.setdefault(f"{_META}{name}", {"type": "object"})
        _custom_resources_v2(definitions, [e for _, e in sorted(api.endpoints.items()) if e.custom])
        paths = document.setdefault("paths", {})
        for (group, version, _), endpoint in sorted(api.endpoints.items()):
            kind_def = _definition_name(definitions, group, version, endpoint.kind) or f"{_META}Status"
            list_def = _definition_name(definitions, group, version, endpoint.list_kind) or kind_def
            paths.update(_paths(endpoint, kind_def, list_def, v3=False))
        return document

    def index(self) -> dict[str, Any]:
        """The /openapi/v3 index: every document's address, with its hash."""
        return {
            "paths": {
                key: {"serverRelativeURL": f"/openapi/v3/{key}?hash={self.v3_hashes[key]}"} for key in sorted(self.v3)
            }
        }


def _custom_resources_v2(definitions: dict[str, Any], custom: list[Endpoint]) -> None:
    """Replace the generated v2 definitions of custom resources (named by Go package) with
    what the apiextensions-apiserver publishes for their CRDs, and drop what only those
    generated definitions referred to."""
    served = {(e.group, e.version.version, kind) for e in custom for kind in (e.kind, e.list_kind)}
    replaced = [
        name for name, schema in definitions.items()
        if any((g.get("group", ""), g.get("version"), g.get("kind")) in served for g in schema.get("x-kubernetes-group-version-kind", ()))
    ]  # fmt: skip
    reachable_before = _references(definitions, replaced)
    for name in replaced:
        del definitions[name]
    for endpoint in custom:
        definitions.update(custom_resource_schemas(endpoint, v2=True))
    still_used = _references(definitions, [name for name in definitions if name not in reachable_before])
    for name in reachable_before - still_used:
        definitions.pop(name, None)


def _references(definitions: dict[str, Any], roots: list[str]) -> set[str]:
    """The definitions `roots` refer to, directly or not (themselves included)."""
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in seen or name not in definitions:
            continue
        seen.add(name)
        text = json.dumps(definitions[name])
        for part in text.split('"#/definitions/')[1:]:
            pending.append(part.split('"', 1)[0])
    return seen


def custom_resource_name(group: str, version: str, kind: str) -> str:
    """A custom resource's definition name: its group reversed, its version and kind
    (`com.example.shop.v1.Widget`), as the apiextensions-apiserver names it."""
    return ".".join([*reversed(group.split(".")), version, kind])


def custom_resource_schemas(endpoint: Endpoint, v2: bool = False) -> dict[str, Any]:
    """The OpenAPI schemas of a custom resource and its list, as a cluster publishes them:
    the CRD's schema of the version inline, `metadata` a reference to ObjectMeta, embedded
    resources given apiVersion, kind and metadata. In v2 (`v2`) the schema is cut to what v2
    clients such as kubectl can read (`_for_v2`), and a resource that keeps unknown fields at
    its root is only an object."""
    group, version, kind = endpoint.group, endpoint.version.version, endpoint.kind
    prefix = "#/definitions/" if v2 else "#/components/schemas/"
    schema = copy.deepcopy(endpoint.version.schema or {"type": "object"})
    if v2 and schema.get("x-kubernetes-preserve-unknown-fields"):
        schema = {"type": "object"}
    else:
        if v2:
            _for_v2(schema)
        properties = schema.setdefault("properties", {})
        properties["apiVersion"] = {"type": "string", "description": _API_VERSION}
        properties["kind"] = {"type": "string", "description": _KIND}
        properties["metadata"] = _reference(prefix + f"{_META}ObjectMeta", _METADATA, v2)
        for value in properties.values():
            _embed_resources(value, prefix, v2)
        schema["type"] = "object"
    schema["x-kubernetes-group-version-kind"] = [{"group": group, "kind": kind, "version": version}]
    name = custom_resource_name(group, version, kind)
    list_schema = {
        "type": "object",
        "description": f"{endpoint.list_kind} is a list of {kind}",
        "required": ["items"],
        "properties": {
            "apiVersion": {"type": "string", "description": _API_VERSION},
            "items": {
                "type": "array",
                "description": f"The {endpoint.resource.plural} of the list.",
                "items": {"$ref": prefix + name},
            },
            "kind": {"type": "string", "description": _KIND},
            "metadata": _reference(prefix + f"{_META}ListMeta", _LIST_METADATA, v2),
        },
        "x-kubernetes-group-version-kind": [{"group": group, "kind": endpoint.list_kind, "version": version}],
    }
    return {name: schema, custom_resource_name(group, version, endpoint.list_kind): list_schema}


def _reference(ref: str, description: str, v2: bool) -> dict[str, Any]:
    """A described reference: beside `$ref` in v2, through `allOf` in v3."""
    return {"$ref": ref, "description": description} if v2 else {"allOf": [{"$ref": ref}], "description": description}


def _embed_resources(schema: Any, prefix: str, v2: bool) -> None:
    """Give every `x-kubernetes-embedded-resource` object its apiVersion, kind (both
    required) and metadata, as the apiextensions-apiserver publishes them (in v2, not below
    x-kubernetes-preserve-unknown-fields, where properties would make kubectl refuse
    unknown fields)."""
    if not isinstance(schema, dict):
        return
    for value in (schema.get("properties") or {}).values():
        _embed_resources(value, prefix, v2)
    for key in ("items", "additionalProperties"):
        _embed_resources(schema.get(key), prefix, v2)
    if v2 and schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    if schema.get("x-kubernetes-embedded-resource"):
        properties = schema.setdefault("properties", {})
        properties["apiVersion"] = {"type": "string", "description": _API_VERSION}
        properties["kind"] = {"type": "string", "description": _KIND}
        properties["metadata"] = _reference(prefix + f"{_META}ObjectMeta", _METADATA, v2)
        required = schema.setdefault("required", [])
        required.extend(name for name in ("kind", "apiVersion") if name not in required)


def _for_v2(schema: dict[str, Any]) -> None:
    """A CRD schema cut to what OpenAPI v2 and its clients can read, in place, as the
    apiextensions-apiserver cuts it for /openapi/v2: no allOf, oneOf, anyOf or not; a
    nullable value loses its type (v2 has no nullable) and its properties and items; one that
    keeps unknown fields loses its properties and items, and its type when that is object; an
    array left without items loses its type; a nullable property is no longer required."""
    for junctor in ("allOf", "oneOf", "anyOf", "not"):
        schema.pop(junctor, None)
    properties = schema.get("properties") or {}
    if schema.pop("nullable", False):
        for key in ("type", "items", "properties"):
            schema.pop(key, None)
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        schema.pop("items", None)
        schema.pop("properties", None)
    if schema.get("type") == "array" and "items" not in schema:
        del schema["type"]
    if schema.get("x-kubernetes-preserve-unknown-fields") and schema.get("type") == "object":
        del schema["type"]
    nullable = {name for name, value in properties.items() if isinstance(value, dict) and value.get("nullable")}
    additional = schema.get("additionalProperties")
    if "required" in schema and (isinstance(additional, dict) and additional.get("nullable")):
        del schema["required"]
    elif nullable and "required" in schema:
        schema["required"] = [name for name in schema["required"] if name not in nullable]
        if not schema["required"]:
            del schema["required"]
    for value in (schema.get("properties") or {}).values():
        if isinstance(value, dict):
            _for_v2(value)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _for_v2(schema[key])


_API_VERSION = "The versioned schema of this representation of the object (group/version)."
_KIND = "The kind of the object, in CamelCase: the REST resource it represents."
_METADATA = "The object's standard metadata."
_LIST_METADATA = "The list's standard metadata."


def _apimachinery_schemas(documents: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The apimachinery schemas (ObjectMeta and what it refers to) of the generated documents."""
    found: dict[str, Any] = {}
    for document in documents.values():
        for name, schema in document.get("components", {}).get("schemas", {}).items():
            if name.startswith("io.k8s.apimachinery."):
                found.setdefault(name, copy.deepcopy(schema))
    return found
