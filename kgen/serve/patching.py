"""PATCH: JSON patch, merge patch, strategic merge patch and server-side apply.

A patch is applied to the live object in the request's version, inside the store's
`guaranteed_update`, so a writer that lost a race patches the newer object again. The
result goes through the same flow as an update (decoded with field validation, defaulted,
converted through the internal version, validated), and `metadata.managedFields` records
who changed what: `FieldManager.update` after a JSON, merge or strategic patch,
`FieldManager.apply` for an apply (409 on conflicts unless `force=true`). An apply of an
object that does not exist creates it.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response

from kgen.runtime.patch import (
    apply_json_patch,
    apply_merge_patch,
    apply_strategic_merge_patch,
)
from kgen.runtime.patch.errors import (
    APPLY_PATCH,
    CUSTOM_RESOURCE_PATCH_TYPES,
    JSON_PATCH,
    MERGE_PATCH,
    PATCH_TYPES,
    STRATEGIC_MERGE_PATCH,
)
from kgen.runtime.errors import APIError, bad_request
from kgen.runtime.scheme import DecodeError, FieldValidation
from kgen.runtime.validation.field import Path, invalid, invalid_error
from kgen.runtime.store.engine import UpdateResult
from kgen.serve import params
from kgen.serve.flow import parse_field_validation
from kgen.serve.handlers import (
    Call,
    manager_name,
    negotiate_object,
    read_weighed_body,
    refuse_create_while_terminating,
    represent,
    retry_too_large,
    strip_managed_fields,
    with_managed_fields,
)
from kgen.serve.negotiation import body_media_type, unsupported_media_type
from kgen.serve.policies import review_of


def _apply_configuration(body: bytes) -> tuple[bytes, dict[str, Any]]:
    """An apply body (YAML, or JSON which is YAML) as JSON text and data; 400 otherwise."""
    import json

    from kgen.runtime import yamlio

    try:
        text = yamlio.to_json(body)
    except yamlio.YAMLError as error:
        raise bad_request(f"error decoding YAML: {error}") from None
    document = json.loads(text)
    if not isinstance(document, dict):
        raise bad_request("the apply configuration must be an object")
    return text, document


async def patch(call: Call) -> Response:
    """PATCH of an object (or its status) with any of the four patch types."""
    representation = negotiate_object(call)
    patch_type = body_media_type(call.request.headers.get("content-type", ""))
    accepted = CUSTOM_RESOURCE_PATCH_TYPES if call.endpoint.custom else PATCH_TYPES
    if patch_type not in accepted:
        raise unsupported_media_type(accepted)
    query = call.query
    is_apply = patch_type == APPLY_PATCH
    force = params.boolean(query, "force")
    params.check_patch_options(is_apply, params.field_manager(query, "PatchOptions"), force)
    dry_run = params.dry_run(query.getlist("dryRun"), "PatchOptions")
    manager = manager_name(call, "PatchOptions")
    field_validation = parse_field_validation(query.get("fieldValidation", ""))
    body = await read_weighed_body(call)
    endpoint, flow, version = call.endpoint, call.endpoint.flow, call.version
    field_manager = endpoint.field_manager(call.subresource)
    applied: dict[str, Any] = {}
    applied_warnings: list[str] = []
    if is_apply:
        text, applied = _apply_configuration(body)
        # Unknown and duplicate fields of the configuration, as field validation asks: warned
        # of once the apply succeeded (patch.go checks them after the field manager's Apply).
        applied_warnings = flow.decode(text, version, field_validation).warnings
        given = applied.get("metadata")
        metadata: dict[str, Any] = given if isinstance(given, dict) else {}
        if metadata.get("name", call.name) != call.name:
            raise bad_request(
                f"the name of the object ({metadata.get('name')}) does not match the name on the URL ({call.name})"
            )
        if endpoint.namespaced and metadata.get("namespace", call.namespace) != call.namespace:
            raise bad_request("the namespace of the provided object does not match the namespace sent on the request")
    warnings: list[str] = []

    def transform(current: dict[str, Any] | None) -> dict[str, Any]:
        warnings.clear()
        live = flow.from_storage(current, version) if current is not None else None
        if is_apply:
            if live is None:
                refuse_create_while_terminating(endpoint, call.name)
            if live is None and endpoint.namespaced:
                from kgen.serve.namespaces import namespace_accepts

                namespace_accepts(call.api, call.namespace, endpoint, call.name)
            new = field_manager.apply(live, applied, manager, force=bool(force))
            # An apply configuration's fields were checked above; the merged object holds live
            # fields too. It is not decoded again: a custom resource keeps its nulls.
            decode_applied = getattr(flow, "decode_applied", flow.decode_dict)
            result = decode_applied(new, version, FieldValidation.IGNORE)
        else:
            assert live is not None  # the store answers 404 for a patch of nothing
            patched = patched_object(patch_type, live, body, endpoint.type_ref)
            result = _decode_patched(flow, patched, version, field_validation)
            # The manager owns what the decoded object holds (a Secret's stringData is data by now).
            decoded = result.object if isinstance(result.object, dict) else result.object.to_dict()
            new = field_manager.update(live, decoded, manager)
        warnings.extend(result.warnings)
        decoded_object = call.api.webhook_admission.mutate(
            review, "UPDATE" if live is not None else "CREATE", result.object, _as_dict(result.object), live
        )
        stored = flow.to_storage(decoded_object, current)
        metadata = stored.setdefault("metadata", {})
        if endpoint.namespaced:
            metadata.setdefault("namespace", call.namespace)
        metadata.setdefault("name", call.name)
        return with_managed_fields(stored, new)

    def answer(outcome: UpdateResult) -> Response:
        call.warnings.extend(applied_warnings + warnings)
        status_code = 201 if outcome.created else 200
        return represent(call, flow.from_storage(outcome.object, version), representation, status_code=status_code)

    call.deprecation()
    review = review_of(call)

    async def write(without_managed_fields: bool) -> Response:
        try:
            response: Response = await endpoint.async_store(version, review=review).guaranteed_update(
                call.name, call.namespace, (lambda current: strip_managed_fields(transform(current))) if without_managed_fields else transform,
                subresource=call.subresource, dry_run=dry_run, force_allow_create=is_apply, then=answer,
            )  # fmt: skip
        except APIError:
            call.warnings.extend(w for w in warnings if w not in call.warnings)  # they go with the refusal too
            raise
        return response

    if is_apply:  # an apply keeps its managedFields: they are what it is about
        return await write(False)
    return await retry_too_large(write)


def _decode_patched(flow: Any, patched: dict[str, Any], version: str, field_validation: FieldValidation) -> Any:
    """The patched object decoded; what the decoder refuses (strict field validation
    included) is a 422 at `patch` quoting the patched object, as the patch handler reports it
    (endpoints/handlers/patch.go: NewInvalid with no kind and no name)."""
    text = json.dumps(patched, separators=(",", ":"))
    try:
        return flow.decode_dict(patched, version, field_validation)
    except DecodeError as error:
        raise invalid_error("", "", "", [invalid(Path.root("patch"), text, error.problem)]) from None


def patched_object(patch_type: str, live: dict[str, Any], body: bytes, type_ref: Any) -> dict[str, Any]:
    """`live` with a JSON, merge or strategic merge patch applied (strategic by `type_ref`)."""
    patched: dict[str, Any]
    if patch_type == JSON_PATCH:
        patched = apply_json_patch(live, body)
    elif patch_type == MERGE_PATCH:
        patched = apply_merge_patch(live, body)
    else:
        assert patch_type == STRATEGIC_MERGE_PATCH
        patched = apply_strategic_merge_patch(live, body, type_ref, custom_resource=False)
    return patched


def _as_dict(obj: Any) -> dict[str, Any]:
    return obj if isinstance(obj, dict) else obj.to_dict()
