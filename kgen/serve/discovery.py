"""Discovery: what kubectl and client libraries read to learn the API.

- `/api` (APIVersions) and `/apis` (APIGroupList), `/apis/<group>` (APIGroup),
  `/api/v1` and `/apis/<group>/<version>` (APIResourceList: names, verbs, scope, kind,
  short names, categories, subresources);
- aggregated discovery (`apidiscovery.k8s.io/v2` APIGroupDiscoveryList) at `/api` and
  `/apis` when the Accept header asks for it, as kubectl 1.30+ does first.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from kgen.serve.api import SUBRESOURCE_VERBS, VERBS, Endpoint, ServedAPI
from kgen.serve.negotiation import parse_accept

AGGREGATED_GROUP = "apidiscovery.k8s.io"
AGGREGATED_KIND = "APIGroupDiscoveryList"


def wants_aggregated(accept: str) -> str | None:
    """The aggregated discovery version (v2, v2beta1) the Accept header asks for first, if
    it asks for aggregated discovery before plain JSON."""
    for media in parse_accept(accept):
        if media.params.get("as") == AGGREGATED_KIND and media.params.get("g") == AGGREGATED_GROUP:
            if media.params.get("v") in ("v2", "v2beta1") and media.type in (
                "application/json",
                "*/*",
                "application/*",
            ):
                return media.params["v"]
        elif media.type in ("application/json", "*/*", "application/*") and "as" not in media.params:
            return None
    return None


def aggregated_content_type(version: str) -> str:
    """The Content-Type of an aggregated discovery document."""
    return f"application/json;g={AGGREGATED_GROUP};v={version};as={AGGREGATED_KIND}"


def _storage_version_hash(endpoint: Endpoint) -> str:
    """A hash of the storage version and kind, as the API server publishes it."""
    text = f"{endpoint.group}/{endpoint.resource.storage_version}/{endpoint.kind}"
    return base64.b64encode(hashlib.sha256(text.encode()).digest()[:8]).decode()


def api_versions(server_address: str) -> dict[str, Any]:
    """/api: the core group's versions."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def _group(api: ServedAPI, group: str, versions: list[str]) -> dict[str, Any]:
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": entries, "preferredVersion": entries[0]}


def api_group_list(api: ServedAPI) -> dict[str, Any]:
    """/apis: every named group."""
    groups = [_group(api, group, versions) for group, versions in api.groups().items() if group]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(api: ServedAPI, group: str) -> dict[str, Any] | None:
    """/apis/<group>, or None when the group is not served."""
    versions = api.groups().get(group)
    if not group or not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group(api, group, versions)}


def api_resource_list(api: ServedAPI, group: str, version: str) -> dict[str, Any] | None:
    """/apis/<group>/<version> (or /api/v1): the resources of a group/version."""
    endpoints = api.endpoints_of(group, version)
    if not endpoints:
        return None
    resources: list[dict[str, Any]] = []
    for endpoint in endpoints:
        resource = endpoint.resource
        entry: dict[str, Any] = {
            "name": resource.plural,
            "singularName": resource.singular,
            "namespaced": resource.namespaced,
            "kind": resource.kind,
            "verbs": list(VERBS) if not endpoint.builtin else [v for v in VERBS if v != "deletecollection"],
        }
        if resource.short_names:
            entry["shortNames"] = list(resource.short_names)
        if resource.categories:
            entry["categories"] = list(resource.categories)
        entry["storageVersionHash"] = _storage_version_hash(endpoint)
        resources.append(entry)
        for subresource in endpoint.subresources():
            sub: dict[str, Any] = {
                "name": f"{resource.plural}/{subresource}",
                "singularName": "",
                "namespaced": resource.namespaced,
                "kind": resource.kind if subresource == "status" else "Scale",
                "verbs": list(SUBRESOURCE_VERBS),
            }
            if subresource == "scale":
                sub.update(group="autoscaling", version="v1")
            resources.append(sub)
    group_version = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}


def _aggregated_resource(endpoint: Endpoint) -> dict[str, Any]:
    resource = endpoint.resource
    entry: dict[str, Any] = {
        "resource": resource.plural,
        "responseKind": {"group": endpoint.group, "version": endpoint.version.version, "kind": resource.kind},
        "scope": "Namespaced" if resource.namespaced else "Cluster",
        "singularResource": resource.singular,
        "verbs": list(VERBS) if not endpoint.builtin else [v for v in VERBS if v != "deletecollection"],
    }
    if resource.short_names:
        entry["shortNames"] = list(resource.short_names)
    if resource.categories:
        entry["categories"] = list(resource.categories)
    subresources = []
    for subresource in endpoint.subresources():
        kind = (
            {"group": endpoint.group, "version": endpoint.version.version, "kind": resource.kind}
            if subresource == "status"
            else {"group": "autoscaling", "version": "v1", "kind": "Scale"}
        )
        subresources.append({"subresource": subresource, "responseKind": kind, "verbs": list(SUBRESOURCE_VERBS)})
    if subresources:
        entry["subresources"] = subresources
    return entry


def aggregated(api: ServedAPI, core: bool, version: str = "v2") -> dict[str, Any]:
    """The aggregated discovery document of the core group (`/api`) or the named groups (`/apis`)."""
    items = []
    for group, versions in api.groups().items():
        if bool(group) == core:
            continue
        entries = []
        for served in versions:
            resources = [_aggregated_resource(e) for e in api.endpoints_of(group, served)]
            entries.append({"version": served, "resources": resources, "freshness": "Current"})
        metadata: dict[str, Any] = {"creationTimestamp": None}
        if group:
            metadata["name"] = group
        items.append({"metadata": metadata, "versions": entries})
    return {"kind": AGGREGATED_KIND, "apiVersion": f"{AGGREGATED_GROUP}/{version}", "metadata": {}, "items": items}
