"""The REST verbs of a resource: get, list, create, update, delete, deletecollection.

Each handler takes a `Call` (the request, the endpoint, the namespace, name and
subresource of its URL), runs the request flow (`kgen.serve.flow`) around the store
engine, and answers in the negotiated representation. Patch and apply are in
`kgen.serve.patching`, watch in `kgen.serve.watching`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from kgen.runtime import work
from kgen.runtime.errors import APIError, bad_request
from kgen.runtime.scheme import DecodeResult, FieldValidation
from kgen.runtime.store import errors as store_errors
from kgen.runtime.store.engine import DeleteResult, UpdateResult
from kgen.serve import params, table
from kgen.serve.api import Endpoint, ServedAPI
from kgen.serve.flow import parse_field_validation
from kgen.serve.negotiation import (
    JSON,
    PARTIAL,
    PARTIAL_LIST,
    PROTOBUF,
    TABLE,
    YAML,
    Representation,
    body_media_type,
    negotiate,
    unsupported_media_type,
)
from kgen.serve.policies import review_of
from kgen.serve.policies.admission import delete_options as delete_options_json
from kgen.serve.respond import object_response


@dataclass
class Call:
    """One request to a resource endpoint."""

    request: Request
    api: ServedAPI
    endpoint: Endpoint
    namespace: str
    name: str
    subresource: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def query(self) -> QueryParams:
        """The query parameters."""
        return self.request.query_params

    @property
    def version(self) -> str:
        """The endpoint's version (the version objects are read and written in)."""
        return self.endpoint.version.version

    def deprecation(self) -> None:
        """The deprecation warning of a deprecated version."""
        version = self.endpoint.version
        if version.deprecated:
            self.warnings.append(
                version.deprecation_warning or f"{self.endpoint.api_version} {self.endpoint.kind} is deprecated"
            )


# -- representations ---------------------------------------------------------------------------


def _include_object(call: Call) -> str:
    value = call.query.get("includeObject", "") or "Metadata"
    if value not in ("None", "Metadata", "Object"):
        raise bad_request(
            f'includeObject: Unsupported value: {value!r}: supported values: "None", "Metadata", "Object"'
        )
    return value


def represent(call: Call, obj: dict[str, Any], representation: Representation, status_code: int = 200) -> Response:
    """One object in the representation the client asked for."""
    if representation.target == TABLE:
        body = table.table(
            [obj], table.columns_of(call.endpoint.printer_columns), include_object=_include_object(call),
            version=representation.target_version,
        )  # fmt: skip
        return object_response(call.request, body, representation, status_code=status_code, warnings=call.warnings)
    if representation.target == PARTIAL:
        partial = table.partial_metadata(obj)
        return object_response(
            call.request,
            partial,
            representation,
            status_code=status_code,
            warnings=call.warnings,
            protobuf_body=lambda: _partial_protobuf(partial),
        )
    flow, version = call.endpoint.flow, call.version
    return object_response(
        call.request, obj, representation, status_code=status_code, warnings=call.warnings,
        protobuf_body=lambda: flow.encode_protobuf(obj, version),
    )  # fmt: skip


def represent_list(call: Call, listed: dict[str, Any], representation: Representation) -> Response:
    """A list in the representation the client asked for."""
    if representation.target == TABLE:
        body = table.table(
            listed["items"], table.columns_of(call.endpoint.printer_columns), list_metadata=listed["metadata"],
            include_object=_include_object(call), version=representation.target_version,
        )  # fmt: skip
        return object_response(call.request, body, representation, warnings=call.warnings)
    if representation.target == PARTIAL_LIST:
        partial = table.partial_metadata_list(listed)
        return object_response(
            call.request,
            partial,
            representation,
            warnings=call.warnings,
            protobuf_body=lambda: _partial_protobuf(partial),
        )
    flow, version = call.endpoint.flow, call.version
    if call.endpoint.custom:  # an unstructured list: its continue is always set, "" on the last page
        listed["metadata"].setdefault("continue", "")
    return object_response(
        call.request,
        listed,
        representation,
        warnings=call.warnings,
        protobuf_body=lambda: flow.encode_protobuf_list(listed, version),
    )


def _partial_protobuf(data: dict[str, Any]) -> bytes:
    from kgen.runtime import protobuf
    from kgen.runtime.apimachinery.meta.v1 import models
    from kgen.runtime.apimachinery.meta.v1 import protobuf as _meta  # noqa: F401 - registers the converters

    cls = (
        models.PartialObjectMetadataList
        if data["kind"] == "PartialObjectMetadataList"
        else models.PartialObjectMetadata
    )
    return protobuf.encode_envelope("meta.k8s.io/v1", data["kind"], protobuf.marshal(cls.from_dict(data)))


def negotiate_object(call: Call) -> Representation:
    """The representation of one object (the endpoint's serializers, Table, metadata)."""
    return negotiate(call.request.headers.get("accept", ""), targets=(TABLE, PARTIAL), allowed=serializers(call))


def negotiate_list(call: Call) -> Representation:
    """The representation of a list."""
    return negotiate(call.request.headers.get("accept", ""), targets=(TABLE, PARTIAL_LIST), allowed=serializers(call))


def serializers(call: Call) -> tuple[str, ...]:
    """What the endpoint reads and writes: custom resources have no protobuf encoding."""
    return (JSON, YAML, PROTOBUF) if getattr(call.endpoint.flow, "protobuf", True) else (JSON, YAML)


# -- request bodies ----------------------------------------------------------------------------


def body_json(call: Call, body: bytes) -> bytes:
    """A JSON, YAML or protobuf body as JSON text; 415 for other types, 400 when unreadable."""
    media = body_media_type(call.request.headers.get("content-type", ""))
    if media == JSON:
        return body
    if media == YAML:
        from kgen.runtime import yamlio

        try:
            return yamlio.to_json(body)
        except yamlio.YAMLError as error:
            raise bad_request(f"error converting YAML to JSON: {error}") from None
    if media == PROTOBUF:
        import json

        from kgen.runtime import protobuf
        from kgen.serve.namespaces import namespace_from_protobuf

        try:
            if call.endpoint.builtin:
                return json.dumps(namespace_from_protobuf(body)).encode()
            to_json = getattr(call.endpoint.flow, "protobuf_to_json", None)
            if to_json is not None:  # a built-in kind's own codec
                converted: bytes = to_json(body)
                return converted
            data: bytes = protobuf.decode(body).to_json()
            return data
        except protobuf.ProtobufError as error:
            raise bad_request(f"unable to decode protobuf: {error}") from None
    raise unsupported_media_type(serializers(call))


BULK_BODY_BYTES = 64 * 1024
"""A request whose body is larger than this does its work in the bulk lane."""


async def read_weighed_body(call: Call) -> bytes:
    """The request body; a large one moves the request's work to the bulk lane."""
    body = await params.read_body(call.request)
    if len(body) > BULK_BODY_BYTES:
        work.use_lane(work.Lane.BULK)
    return body


async def decode_off_loop(call: Call, body: bytes, field_validation: FieldValidation) -> DecodeResult:
    """`decode`, in a worker thread for a large body (the event loop serves everyone)."""
    if len(body) > BULK_BODY_BYTES:
        return await work.run(decode, call, body, field_validation)
    return decode(call, body, field_validation)


def decode(call: Call, body: bytes, field_validation: FieldValidation) -> DecodeResult:
    """The request's object, decoded and defaulted in the endpoint's version."""
    result: DecodeResult = call.endpoint.flow.decode(body_json(call, body), call.version, field_validation)
    call.warnings.extend(result.warnings)
    return result


def _to_dict(obj: Any) -> dict[str, Any]:
    return obj if isinstance(obj, dict) else obj.to_dict()


def _check_names(call: Call, obj: dict[str, Any], creating: bool) -> None:
    """The URL's namespace goes into the object; a different one (or name) is 400."""
    metadata = obj.setdefault("metadata", {})
    if call.endpoint.namespaced:
        given = metadata.get("namespace") or ""
        if given and given != call.namespace:
            raise bad_request("the namespace of the provided object does not match the namespace sent on the request")
        metadata["namespace"] = call.namespace
    else:
        metadata.pop("namespace", None)
    if not creating and metadata.get("name", "") != call.name:
        raise bad_request(
            f"the name of the object ({metadata.get('name', '')}) does not match the name on the URL ({call.name})"
        )


def manager_name(call: Call, kind: str) -> str:
    """The request's field manager: fieldManager, else the User-Agent's product."""
    from kgen.runtime.patch import manager_or_user_agent

    return manager_or_user_agent(params.field_manager(call.query, kind), call.request.headers.get("user-agent", ""))


def with_managed_fields(stored: dict[str, Any], versioned: dict[str, Any]) -> dict[str, Any]:
    """`stored` with the managedFields a field manager wrote into `versioned`."""
    managed = (versioned.get("metadata") or {}).get("managedFields")
    metadata = stored.setdefault("metadata", {})
    if managed is None:
        metadata.pop("managedFields", None)
    else:
        metadata["managedFields"] = managed
    return stored


async def retry_too_large(write: Callable[[bool], Awaitable[Response]]) -> Response:
    """`write(False)`; when storage refuses the object as too large, `write(True)`: once more
    without managedFields, which may be most of it (kube-apiserver's create, update and
    patch handlers do the same on etcd's "request is too large"; apply does not)."""
    try:
        return await write(False)
    except APIError as error:
        if not store_errors.is_too_large(error):
            raise
    return await write(True)


def strip_managed_fields(stored: dict[str, Any]) -> dict[str, Any]:
    """`stored` without metadata.managedFields."""
    stored.get("metadata", {}).pop("managedFields", None)
    return stored


# -- verbs -------------------------------------------------------------------------------------


async def get(call: Call) -> Response:
    """GET of one object (or its status)."""
    representation = negotiate_object(call)
    call.deprecation()
    response: Response = await call.endpoint.async_store().get(
        call.name, call.namespace, resource_version=call.query.get("resourceVersion", ""),
        then=lambda stored: represent(call, call.endpoint.flow.from_storage(stored, call.version), representation),
    )  # fmt: skip
    return response


def list_options(call: Call) -> dict[str, Any]:
    """The list options of the query (selectors, paging, resourceVersion)."""
    query = call.query
    return {
        "label_selector": query.get("labelSelector", ""),
        "field_selector": query.get("fieldSelector", ""),
        "limit": params.integer(query, "limit"),
        "continue_token": query.get("continue", ""),
        "resource_version": query.get("resourceVersion", ""),
        "resource_version_match": query.get("resourceVersionMatch", ""),
    }


def convert_list(call: Call, listed: dict[str, Any]) -> dict[str, Any]:
    """A stored list in the endpoint's version."""
    flow, version = call.endpoint.flow, call.version
    # from_storage even in the storage version: an events.k8s.io event is stored as a core one.
    many = getattr(flow, "from_storage_many", None)
    if many is not None and version != call.endpoint.resource.storage_version:
        listed["items"] = many(listed["items"], version)  # one conversion webhook call for the list
    else:
        listed["items"] = [flow.from_storage(item, version) for item in listed["items"]]
    listed["apiVersion"] = call.endpoint.api_version
    listed["kind"] = call.endpoint.list_kind
    return listed


async def list_objects(call: Call) -> Response:
    """GET of a collection (in the bulk lane: its conversion and encoding too)."""
    representation = negotiate_list(call)
    work.use_lane(work.Lane.BULK)
    call.deprecation()
    response: Response = await call.endpoint.async_store().list(
        call.namespace,
        **list_options(call),
        then=lambda listed: represent_list(call, convert_list(call, listed), representation),
    )
    return response


def refuse_create_while_terminating(endpoint: Any, name: str) -> None:
    """No new object of a kind whose CRD is being deleted (customresource_handler.go
    forbidCreateAdmission): 403 Forbidden."""
    if endpoint.terminating:
        plural, group = endpoint.resource.plural, endpoint.group
        raise APIError(403, "Forbidden", f'{plural}.{group} "{name}" is forbidden: create not allowed while custom '
                       "resource definition is terminating", details={"name": name, "group": group, "kind": plural})  # fmt: skip


async def create(call: Call) -> Response:
    """POST of a new object: 201 with the object as stored."""
    representation = negotiate_object(call)
    query = call.query
    dry_run = params.dry_run(query.getlist("dryRun"), "CreateOptions")
    manager = manager_name(call, "CreateOptions")
    field_validation = parse_field_validation(query.get("fieldValidation", ""))
    body = await read_weighed_body(call)
    result = await decode_off_loop(call, body, field_validation)
    versioned = _to_dict(result.object)
    _check_names(call, versioned, creating=True)
    name = versioned["metadata"].get("name") or versioned["metadata"].get("generateName", "")
    refuse_create_while_terminating(call.endpoint, name)
    if call.endpoint.namespaced:
        from kgen.serve.namespaces import check_namespace_accepts

        await check_namespace_accepts(call.api, call.namespace, call.endpoint, name)
    flow = call.endpoint.flow
    review = review_of(call)
    decoded = result.object
    if call.api.webhook_admission.hooks(mutating=True):  # calls to webhooks: not on the event loop
        decoded = await work.run(call.api.webhook_admission.mutate, review, "CREATE", decoded, versioned, None)
    if getattr(flow, "remote_conversion", False):  # a webhook call: not on the event loop
        stored = await work.run(flow.to_storage, decoded, None)
    else:
        stored = flow.to_storage(decoded, None)
    if call.endpoint.namespaced:
        stored.setdefault("metadata", {})["namespace"] = call.namespace
    else:
        stored.setdefault("metadata", {}).pop("namespace", None)
    managed = call.endpoint.field_manager().update(None, versioned, manager)
    with_managed_fields(stored, managed)
    call.deprecation()

    async def write(without_managed_fields: bool) -> Response:
        response: Response = await call.endpoint.async_store(call.version, review=review).create(
            strip_managed_fields(stored) if without_managed_fields else stored, dry_run=dry_run,
            then=lambda created: represent(call, flow.from_storage(created, call.version), representation, status_code=201),
        )  # fmt: skip
        return response

    return await retry_too_large(write)


async def update(call: Call) -> Response:
    """PUT of an object (or its status): optimistic concurrency on metadata.resourceVersion."""
    representation = negotiate_object(call)
    query = call.query
    dry_run = params.dry_run(query.getlist("dryRun"), "UpdateOptions")
    manager = manager_name(call, "UpdateOptions")
    field_validation = parse_field_validation(query.get("fieldValidation", ""))
    body = await read_weighed_body(call)
    result = await decode_off_loop(call, body, field_validation)
    versioned = _to_dict(result.object)
    _check_names(call, versioned, creating=False)
    endpoint, flow = call.endpoint, call.endpoint.flow
    field_manager = endpoint.field_manager(call.subresource)

    review = review_of(call)

    def transform(current: dict[str, Any] | None) -> dict[str, Any]:
        live = flow.from_storage(current, call.version) if current is not None else None
        operation = "UPDATE" if current is not None else "CREATE"
        decoded = call.api.webhook_admission.mutate(review, operation, result.object, versioned, live)
        stored = flow.to_storage(decoded, current)
        return with_managed_fields(stored, field_manager.update(live, versioned, manager))

    def answer(outcome: UpdateResult) -> Response:
        status_code = 201 if outcome.created else 200
        return represent(call, flow.from_storage(outcome.object, call.version), representation, status_code=status_code)

    call.deprecation()

    async def write(without_managed_fields: bool) -> Response:
        response: Response = await endpoint.async_store(call.version, review=review).guaranteed_update(
            call.name, call.namespace, (lambda current: strip_managed_fields(transform(current))) if without_managed_fields else transform,
            subresource=call.subresource, dry_run=dry_run, then=answer,
        )  # fmt: skip
        return response

    return await retry_too_large(write)


async def delete(call: Call) -> Response:
    """DELETE of an object: the object as deleted, or as it stays while finalizers keep it."""
    representation = negotiate_object(call)
    options = params.delete_options(
        call.query, await params.read_body(call.request), call.request.headers.get("content-type", "")
    )
    review = review_of(call, dry_run=options.dry_run, delete=delete_options_json(options, call.query))
    if call.endpoint.builtin and call.endpoint.resource.plural == "namespaces":
        from kgen.serve.namespaces import delete_namespace

        outcome = await delete_namespace(call.api, call.name, options, admit=review)
        call.deprecation()
        return represent(
            call, call.endpoint.flow.from_storage(outcome.object, call.version), representation, outcome.status_code
        )
    call.deprecation()
    response: Response = await call.endpoint.async_store(review=review).delete(
        call.name, call.namespace, preconditions=options.preconditions, propagation_policy=options.propagation_policy,
        orphan_dependents=options.orphan_dependents, dry_run=options.dry_run,
        then=lambda outcome: _deleted(call, outcome, representation),
    )  # fmt: skip
    return response


def _deleted(call: Call, outcome: DeleteResult, representation: Representation) -> Response:
    """The answer to a delete: the object as deleted (or as finalizers keep it), or, for a
    custom resource (or a built-in kind whose registry does not return deleted objects)
    that is gone, a Status Success naming it (the generic registry's finalizeDelete:
    `kind` holds the resource name)."""
    obj = outcome.object
    answers_status = call.endpoint.custom or getattr(call.endpoint.flow, "delete_answers_status", False)
    if answers_status and outcome.deleted:
        metadata = obj.get("metadata") or {}
        details = {"name": metadata.get("name", ""), "group": call.endpoint.group, "kind": call.endpoint.resource.plural,
                   "uid": metadata.get("uid", "")}  # fmt: skip
        status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}
        return object_response(call.request, status, Representation(representation.media_type), warnings=call.warnings)
    return represent(call, call.endpoint.flow.from_storage(obj, call.version), representation, outcome.status_code)


async def delete_collection(call: Call) -> Response:
    """DELETE of a collection: every selected object, as delete does each; the list of them."""
    representation = negotiate_list(call)
    options = params.delete_options(
        call.query, await params.read_body(call.request), call.request.headers.get("content-type", "")
    )
    if call.endpoint.builtin:
        raise APIError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
    work.use_lane(work.Lane.BULK)
    call.deprecation()
    review = review_of(call, dry_run=options.dry_run, delete=delete_options_json(options, call.query), collection=True)
    response: Response = await call.endpoint.async_store(review=review).delete_collection(
        call.namespace, **list_options(call), preconditions=options.preconditions,
        propagation_policy=options.propagation_policy, orphan_dependents=options.orphan_dependents, dry_run=options.dry_run,
        then=lambda listed: represent_list(call, convert_list(call, listed), representation),
    )  # fmt: skip
    return response
