"""ValidatingAdmissionPolicy: CEL admission without webhooks, as kube-apiserver runs it.

`served(api)` gives what serves the `admissionregistration.k8s.io/v1` resources
`validatingadmissionpolicies` (with `/status`) and `validatingadmissionpolicybindings` (unless
the API defines them itself), with their OpenAPI definitions; `Admission(api)` is the
admission stage that enforces them on every write of every other resource. A handler asks `review_of(call)` for what the
stage needs to know of its request and hands it to the store with the request's strategy
(`Endpoint.async_store(..., review=...)`); the store runs the stage after its validation.

    resources.py    the two resources: decoding, defaults, strategy
    types.py        their Go types (decoded as the typed decoder does, OpenAPI)
    validation.py   validation of the objects (validation.go)
    expressions.py  the admission CEL environment (compile checks, variables, cost, authorizer)
    evaluation.py   one policy, compiled, evaluated for one binding and param
    matching.py     matchConstraints, matchResources, selectors, Equivalent matching
    admission.py    the dispatcher: bindings, params, decisions, the Status of a denial
    status.py       the policy status controller (observedGeneration, type checking)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kgen.serve.policies import types
from kgen.serve.policies.admission import Admission, Review, options_of, user_of
from kgen.serve.policies.resources import BINDINGS, POLICIES, PolicyFlow, info_of

if TYPE_CHECKING:
    from kgen.runtime.store import ResourceInfo, ResourceStore
    from kgen.serve.api import ServedAPI
    from kgen.serve.handlers import Call
    from kgen.serve.loader import Resource

__all__ = ["BINDINGS", "POLICIES", "Admission", "Review", "review_of", "served"]

DOCUMENT_KEY = f"apis/{types.GROUP}/{types.VERSION}"


def _document(api: ServedAPI) -> dict[str, Any]:
    """The group's OpenAPI v3 document: the two kinds and the meta definitions they refer to."""
    known: dict[str, Any] = {}
    for document in api.loaded.openapi_v3.values():
        known.update(document.get("components", {}).get("schemas", {}))
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "unversioned"},
        "paths": {},
        "components": {"schemas": types.openapi_schemas(known)},
    }


def served(api: ServedAPI) -> list[tuple[Resource, PolicyFlow, ResourceInfo, ResourceStore, dict[str, Any]]]:
    """What serves the two resources (resource, flow, store info, store, OpenAPI document),
    none when the API defines admissionregistration.k8s.io/v1 itself."""
    if any(
        r.group == types.GROUP and any(v.version == types.VERSION for v in r.versions) for r in api.loaded.resources
    ):
        return []
    document = _document(api)
    api.loaded.openapi_v3.setdefault(DOCUMENT_KEY, document)
    found = []
    for resource in (POLICIES, BINDINGS):
        info = info_of(resource)
        flow = PolicyFlow(resource)
        found.append((resource, flow, info, api.engine.resource(info, flow.strategy(info, types.VERSION)), document))
    return found


def review_of(
    call: Call,
    *,
    dry_run: bool | None = None,
    delete: dict[str, Any] | None = None,
    collection: bool = False,
    view: Callable[[dict[str, Any], str], dict[str, Any]] | None = None,
    kind: Any = None,
) -> Review:
    """What the admission stage needs to know of a handler's request. `delete`: a delete's
    options (as DeleteOptions JSON); `collection`: each object of a collection delete;
    `view` and `kind`: how a subresource of another kind (/scale) shows the object."""
    query = call.query
    runs = query.getlist("dryRun")
    if dry_run is None:
        dry_run = bool(runs)
    elif dry_run and not runs:
        runs = ["All"]
    return Review(
        api=call.api,
        endpoint=call.endpoint,
        subresource=call.subresource,
        name=call.name,
        namespace=call.namespace,
        user=user_of(call.request.scope),
        dry_run=dry_run,
        options=options_of(query, runs, delete),
        warnings=call.warnings,
        view=view,
        kind=kind,
        collection=collection,
    )
