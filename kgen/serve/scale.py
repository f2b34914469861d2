"""The /scale subresource of a custom resource (`+kubebuilder:subresource:scale`).

An `autoscaling/v1` Scale seen through the paths the CRD names: `spec.replicas` from its
specReplicasPath, `status.replicas` from its statusReplicasPath (0 when absent) and
`status.selector` from its labelSelectorPath, with the object's name, namespace, uid,
resourceVersion and creation time. A PUT or PATCH of the Scale writes its replicas back at
specReplicasPath through the resource's own update (its strategy and validation), with the
Scale's resourceVersion, when it has one, as the precondition; replicas below zero are 422.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.responses import Response

from kgen.runtime.errors import APIError, StatusCause, bad_request
from kgen.runtime.patch.errors import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH
from kgen.runtime.store import errors as store_errors
from kgen.runtime.store.engine import UpdateResult
from kgen.runtime.store.resource import json_copy
from kgen.serve.handlers import Call, manager_name, negotiate_object, read_weighed_body, with_managed_fields
from kgen.serve.negotiation import body_media_type, unsupported_media_type
from kgen.serve.patching import patched_object
from kgen.serve.policies import review_of
from kgen.serve.policies.matching import GroupVersionKind
from kgen.serve.respond import object_response

SCALE_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)
"""What a PATCH of /scale takes (a Scale is a built-in kind: strategic merge patch too)."""


def _steps(json_path: str) -> list[str]:
    return [step for step in json_path.split(".") if step]


def _read(obj: dict[str, Any], json_path: str, missing: Any = None) -> Any:
    value: Any = obj
    for step in _steps(json_path):
        if not isinstance(value, dict) or step not in value:
            return missing
        value = value[step]
    return value


def _write(obj: dict[str, Any], json_path: str, value: Any) -> None:
    steps = _steps(json_path)
    target = obj
    for step in steps[:-1]:
        target = target.setdefault(step, {})
    target[steps[-1]] = value


def scale_of(obj: dict[str, Any], paths: dict[str, str]) -> dict[str, Any]:
    """The Scale of a custom resource (in its served version) under the CRD's scale paths."""
    metadata = obj.get("metadata") or {}
    spec_replicas = _read(obj, paths.get("specReplicasPath", ""))
    status_replicas = _read(obj, paths.get("statusReplicasPath", ""))
    status: dict[str, Any] = {"replicas": status_replicas if isinstance(status_replicas, int) else 0}
    selector_path = paths.get("labelSelectorPath") or ""
    selector = _read(obj, selector_path) if selector_path else None
    if isinstance(selector, str) and selector:
        status["selector"] = selector
    scale_metadata = {
        key: metadata[key]
        for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
        if key in metadata
    }
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_metadata,
        "spec": {"replicas": spec_replicas} if isinstance(spec_replicas, int) and spec_replicas else {},
        "status": status,
    }


def _paths(call: Call) -> dict[str, str]:
    paths = call.endpoint.version.scale
    assert paths is not None  # routing serves /scale only where the version has it
    return paths


def _replicas_found(obj: dict[str, Any], paths: dict[str, str]) -> dict[str, Any]:
    """`obj`, when it has a value at the spec replicas path; else the 500 the API server
    answers a Scale of it with (customresource/etcd.go ScaleREST)."""
    path = paths.get("specReplicasPath", "")
    if _read(obj, path, _ABSENT) is _ABSENT:
        message = f'the spec replicas field "{path}" does not exist'
        raise APIError(500, "InternalError", f"Internal error occurred: {message}", [StatusCause("", message, "")])
    return obj


_ABSENT = object()


async def get_scale(call: Call) -> Response:
    """GET of /scale."""
    representation = negotiate_object(call)
    flow, version, paths = call.endpoint.flow, call.version, _paths(call)
    scale = await call.endpoint.async_store().get(
        call.name, call.namespace,
        then=lambda stored: scale_of(_replicas_found(flow.from_storage(stored, version), paths), paths),
    )  # fmt: skip
    return object_response(call.request, scale, representation)


async def update_scale(call: Call) -> Response:
    """PUT of /scale: the Scale's spec.replicas written into the object."""
    body = await read_weighed_body(call)
    try:
        scale = json.loads(body)
    except ValueError as error:
        raise bad_request(f"invalid JSON: {error}") from None
    return await _write_scale(call, lambda current: scale)


async def patch_scale(call: Call) -> Response:
    """PATCH of /scale: the patch applied to the current Scale, then written as a PUT is."""
    patch_type = body_media_type(call.request.headers.get("content-type", ""))
    if patch_type == APPLY_PATCH or patch_type not in SCALE_PATCH_TYPES:
        raise unsupported_media_type(SCALE_PATCH_TYPES)
    body = await read_weighed_body(call)
    return await _write_scale(call, lambda current: patched_object(patch_type, current, body, None))


async def _write_scale(call: Call, new_scale: Any) -> Response:
    representation = negotiate_object(call)
    endpoint, flow, version, paths = call.endpoint, call.endpoint.flow, call.version, _paths(call)

    manager = manager_name(call, "UpdateOptions" if call.request.method == "PUT" else "PatchOptions")
    field_manager = endpoint.field_manager("scale")

    def transform(current: dict[str, Any] | None) -> dict[str, Any]:
        assert current is not None  # the store answers 404 for a scale of nothing
        live = flow.from_storage(current, version)
        versioned = json_copy(live)
        scale = new_scale(scale_of(_replicas_found(versioned, paths), paths))
        _check_scale(scale, call.name)
        wanted = (scale.get("metadata") or {}).get("resourceVersion") or ""
        if wanted and wanted != (current.get("metadata") or {}).get("resourceVersion"):
            raise store_errors.conflict(endpoint.group, endpoint.resource.plural, call.name)
        _write(versioned, paths["specReplicasPath"], (scale.get("spec") or {}).get("replicas", 0))
        versioned.setdefault("metadata", {})["resourceVersion"] = current["metadata"].get("resourceVersion", "")
        stored: dict[str, Any] = flow.to_storage(versioned, current)
        # The replicas a scale write sets are its manager's, with subresource "scale"
        # (the scale handler of the field manager maps the Scale's fields to the object's).
        return with_managed_fields(stored, field_manager.update(live, versioned, manager))

    def answer(outcome: UpdateResult) -> Response:
        return object_response(
            call.request, scale_of(flow.from_storage(outcome.object, version), paths), representation
        )

    review = review_of(call, view=_scale_view(call), kind=SCALE_KIND)
    response: Response = await endpoint.async_store(version, review=review).guaranteed_update(
        call.name, call.namespace, transform, then=answer
    )
    return response


SCALE_KIND = GroupVersionKind("autoscaling", "v1", "Scale")
"""What a /scale request reads and writes, whatever the resource's kind."""


def _scale_view(call: Call) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    """The object as admission sees a /scale request: its Scale, in any served version."""
    endpoint = call.endpoint

    def view(obj: dict[str, Any], version: str) -> dict[str, Any]:
        served = call.api.endpoints.get((endpoint.group, version, endpoint.resource.plural), endpoint)
        return scale_of(obj, served.version.scale or {})

    return view


def _check_scale(scale: Any, name: str) -> None:
    """A Scale as the scale subresource decodes it: an autoscaling/v1 Scale of this object,
    with integer replicas."""
    if not isinstance(scale, dict):
        raise bad_request("the body of a scale must be a Scale object")
    if scale.get("kind", "Scale") != "Scale" or scale.get("apiVersion", "autoscaling/v1") != "autoscaling/v1":
        raise bad_request(f"the body of the request must be an autoscaling/v1 Scale, not {scale.get('kind')}")
    given = (scale.get("metadata") or {}).get("name", name)
    if given != name:
        raise bad_request(f"the name of the object ({given}) does not match the name on the URL ({name})")
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    if isinstance(replicas, bool) or not isinstance(replicas, int) or not -(2**31) <= replicas < 2**31:
        # An autoscaling/v1 Scale holds an int32; the API server's decoder fails this way.
        raise bad_request('no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:111"')
    # Replicas below zero are the custom resource's validation error at the CRD's replicas path
    # (customresource/validator.go ValidateScaleSpec); the Scale itself is not validated.
