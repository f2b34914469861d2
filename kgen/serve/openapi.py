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
    "dryRun": "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed",
    "fieldManager": "fieldManager is a name associated with the actor or entity that is making these changes.",
    "fieldValidation": (
        "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown "
        "or duplicate fields. Valid values are: - Ignore - Warn - Strict"
    ),
    "force": 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.',
    "pretty": "If 'true', then the output is pretty printed.",
    "labelSelector": "A selector to restrict the list of returned objects by their labels.",
    "fieldSelector": "A selector to restrict the list of returned objects by their fields.",
    "limit": "limit is a maximum number of responses to return for a list call.",
    "continue": "The continue option should be set when retrieving more results from the server.",
    "resourceVersion": "resourceVersion sets a constraint on what resource versions a request may be served from.",
    "resourceVersionMatch": "resourceVersionMatch determines how resourceVersion is applied to list calls.",
    "watch": "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
    "allowWatchBookmarks": 'allowWatchBookmarks requests watch events with type "BOOKMARK".',
    "sendInitialEvents": "`sendInitialEvents=true` may be set together with `watch=true`.",
    "timeoutSeconds": "Timeout for the list/watch call.",
    "propagationPolicy": "Whether and how garbage collection will be performed.",
    "gracePeriodSeconds": "The duration in seconds before the object should be deleted.",
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
        "description": "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
        "type": "object",
        "properties": {
            "apiVersion": {
                "type": "string",
                "description": "APIVersion defines the versioned schema of this representation of an object.",
            },
            "kind": {
                "type": "string",
                "description": "Kind is a string value representing the REST resource this object represents.",
            },
            "metadata": {
                "allOf": [{"$ref": f"#/components/schemas/{_META}ObjectMeta"}],
                "default": {},
                "description": "Standard object's metadata.",
            },
            "spec": {
                "type": "object",
                "description": "Spec defines the behavior of the Namespace.",
                "properties": {
                    "finalizers": {
                        "type": "array",
                        "items": {"type": "string", "default": ""},
                        "x-kubernetes-list-type": "atomic",
                        "description": "Finalizers is an opaque list of values that must be empty to permanently remove object from storage.",
                    }
                },
            },
            "status": {
                "type": "object",
                "description": "Status describes the current status of a Namespace.",
                "properties": {
                    "phase": {
                        "type": "string",
                        "description": "Phase is the current lifecycle phase of the namespace.",
                        "enum": ["Active", "Terminating"],
                    }
                },
            },
        },
        "x-kubernetes-group-version-kind": [{"group": "", "kind": "Namespace", "version": "v1"}],
    },
    "io.k8s.api.core.v1.NamespaceList": {
        "description": "NamespaceList is a list of Namespaces.",
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
    f"{_META}Status": {"type": "object", "description": "Status is a return value for calls that don't return other objects.",
                       "x-kubernetes-group-version-kind": [{"group": "", "kind": "Status", "version": "v1"}]},
    f"{_META}Patch": {"type": "object", "description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body."},
    f"{_META}DeleteOptions": {"type": "object", "description": "DeleteOptions may be provided when deleting an API object."},
    f"{_META}WatchEvent": {"type": "object", "description": "Event represents a single event to a watched resource."},
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
        [{"name": "namespace", "in": "path", "required": True, "description": "object name and auth scope"}]
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


def custom_resource_name(group: str, version: str, kind: str) -> str:
    """A custom resource's definition name: its group reversed, its version and kind
    (`com.example.shop.v1.Widget`), as the apiextensions-apiserver names it."""
    return ".".join([*reversed(group.split(".")), version, kind])


def custom_resource_schemas(endpoint: Endpoint) -> dict[str, Any]:
    """The OpenAPI v3 schemas of a custom resource and its list, as a cluster publishes them:
    the CRD's schema of the version inline, `metadata` a reference to ObjectMeta."""
    group, version, kind = endpoint.group, endpoint.version.version, endpoint.kind
    schema = copy.deepcopy(endpoint.version.schema or {"type": "object"})
    properties = schema.setdefault("properties", {})
    properties["apiVersion"] = {"type": "string", "description": _API_VERSION}
    properties["kind"] = {"type": "string", "description": _KIND}
    properties["metadata"] = {"allOf": [{"$ref": f"#/components/schemas/{_META}ObjectMeta"}], "description": _METADATA}
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
                "items": {"$ref": f"#/components/schemas/{name}"},
            },
            "kind": {"type": "string", "description": _KIND},
            "metadata": {"allOf": [{"$ref": f"#/components/schemas/{_META}ListMeta"}], "description": _LIST_METADATA},
        },
        "x-kubernetes-group-version-kind": [{"group": group, "kind": endpoint.list_kind, "version": version}],
    }
    return {name: schema, custom_resource_name(group, version, endpoint.list_kind): list_schema}


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
