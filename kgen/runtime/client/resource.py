"""Typed resource clients: the verbs of one kind, as mixins that generated clients compose.

A generated client names its resource and its model classes and inherits one mixin per
verb the kind allows (`+genclient:readonly`, `:onlyVerbs=`, `:skipVerbs=`, `:noStatus`),
so a type checker knows which methods exist and what they return:

    class FrobberClient(Get[Frobber, FrobberList], List[Frobber, FrobberList], ...):
        resource = Resource("example.kgen.dev", "v1", "frobbers", "Frobber", namespaced=True)
        model = Frobber
        list_model = FrobberList

Every verb is a request built by the functions of `options` and sent by a `Transport`; the
async mixins (`AsyncGet`, ...) do the same on an `AsyncTransport`. `iter` pages through a
list at one resource version; `watch` resumes from the last version it saw when the server
ends the stream, and lists again when that version is gone (410), telling the caller.

The model classes may be either backend's (`kgen.runtime.model.Model` or
`kgen.runtime.structs.Struct`): the clients need only what `TypedObject` names.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, Self, TypeVar

from kgen.runtime.backend import backend_of
from kgen.runtime.client.errors import Expired, Gone, ResourceRef
from kgen.runtime.client.options import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    FieldValidation,
    PropagationPolicy,
    ResourceVersionMatch,
    apply_query,
    create_query,
    delete_options,
    get_query,
    list_query,
    patch_query,
    resource_path,
    update_query,
    watch_query,
)
from kgen.runtime.client.transport import AsyncTransport, Transport
from kgen.runtime.client.watch import BOOKMARK, WatchEvent

__all__ = [
    "Resource",
    "TypedObject",
    "PatchType",
    "apply_configuration",
    "Get", "List", "Watch", "Create", "Update", "UpdateStatus", "Patch", "Apply", "Delete", "DeleteCollection", "Scale",
    "AsyncGet", "AsyncList", "AsyncWatch", "AsyncCreate", "AsyncUpdate", "AsyncUpdateStatus", "AsyncPatch",
    "AsyncApply", "AsyncDelete", "AsyncDeleteCollection", "AsyncScale",
]  # fmt: skip


class TypedObject(Protocol):
    """What the clients need of a model class: Go's JSON both ways. Generated models of
    both backends (pydantic models and msgspec structs) have it."""

    @classmethod
    def from_json(cls, data: str | bytes) -> Self: ...

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self: ...

    def to_json(self) -> bytes: ...

    def to_dict(self) -> dict[str, Any]: ...


T = TypeVar("T", bound=TypedObject)
L = TypeVar("L", bound=TypedObject)

PatchType = Literal["json", "merge", "strategic"]
_PATCH_TYPES: dict[str, str] = {"json": JSON_PATCH, "merge": MERGE_PATCH, "strategic": STRATEGIC_MERGE_PATCH}
OnExpired = Literal["restart", "raise"]
OnGone = Literal["relist", "raise"]


@dataclass(frozen=True)
class Resource:
    """Where a kind is served: its group, version, plural resource name and scope."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool = True
    subresources: frozenset[str] = frozenset()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


class _Client(Generic[T, L]):
    """What every verb needs: the transport, the namespace, the resource and its types."""

    resource: Resource
    model: type[T]
    list_model: type[L]

    def __init__(self, transport: Transport, namespace: str | None = None) -> None:
        """A client of the resource in `namespace` (None: the transport's namespace; "" with
        a namespaced resource: every namespace, for list, watch and delete_collection)."""
        self.transport = transport
        self.namespace = _namespace_of(self.resource, namespace, transport.namespace)

    def _path(self, name: str = "", subresource: str = "", namespace: str | None = None, every: bool = False) -> str:
        return _path(self.resource, self.namespace if namespace is None else namespace, name, subresource, every)

    def _ref(self, name: str = "") -> ResourceRef:
        return ResourceRef(self.resource.group, self.resource.plural, name)


class _AsyncClient(Generic[T, L]):
    """As `_Client`, on an `AsyncTransport`."""

    resource: Resource
    model: type[T]
    list_model: type[L]

    def __init__(self, transport: AsyncTransport, namespace: str | None = None) -> None:
        """As the sync client's."""
        self.transport = transport
        self.namespace = _namespace_of(self.resource, namespace, transport.namespace)

    def _path(self, name: str = "", subresource: str = "", namespace: str | None = None, every: bool = False) -> str:
        return _path(self.resource, self.namespace if namespace is None else namespace, name, subresource, every)

    def _ref(self, name: str = "") -> ResourceRef:
        return ResourceRef(self.resource.group, self.resource.plural, name)


def _namespace_of(resource: Resource, namespace: str | None, default: str) -> str:
    if not resource.namespaced:
        if namespace:
            raise ValueError(f"{resource.plural} are cluster-scoped: they have no namespace")
        return ""
    return default if namespace is None else namespace


def _path(resource: Resource, namespace: str, name: str, subresource: str, every: bool) -> str:
    if resource.namespaced and not namespace and not every:
        raise ValueError(f"{resource.plural} are namespaced: give the client a namespace")
    return resource_path(resource.group, resource.version, resource.plural, namespace, name, subresource)


def _object_namespace(client: _Client[Any, Any] | _AsyncClient[Any, Any], obj: Any) -> str | None:
    """The namespace an object names (its own, else the client's); a mismatch is an error."""
    own = getattr(getattr(obj, "metadata", None), "namespace", "") or ""
    if isinstance(obj, dict):
        own = (obj.get("metadata") or {}).get("namespace", "") or ""
    if not client.resource.namespaced:
        return None
    if own and client.namespace and own != client.namespace:
        raise ValueError(f"the object is in namespace {own!r}, the client in {client.namespace!r}")
    return own or None


def _name(obj: Any) -> str:
    name = (obj.get("metadata") or {}).get("name", "") if isinstance(obj, dict) else obj.metadata.name
    if not name:
        raise ValueError("the object has no metadata.name")
    return str(name)


def apply_configuration(obj: TypedObject | dict[str, Any]) -> dict[str, Any]:
    """The body of a server-side apply: a dict as given, or of a typed object the fields
    that were set, in Go's JSON: a pydantic model's fields that were set (decoded, passed
    or assigned), a struct's fields that are not at their zero value (structs record no
    presence, as Go's structs do not). A field left at its zero value is not claimed, as an
    apply configuration of client-go leaves it out."""
    if isinstance(obj, dict):
        return obj
    document = obj.to_dict()
    _keep_set(obj, document)
    return document


def _set_fields(obj: Any) -> dict[str, str] | None:
    """A typed object's fields that were set, JSON name to Python name; None for a value
    that is no typed object."""
    backend = backend_of(obj)
    return None if backend is None else backend.fields_set(obj)


def _keep_set(obj: Any, document: dict[str, Any]) -> None:
    wanted = _set_fields(obj)
    if wanted is None:
        return
    for key in ("apiVersion", "kind"):
        if key in document:
            wanted.setdefault(key, key)
    for key in list(document):
        if key not in wanted:
            del document[key]
            continue
        value = getattr(obj, wanted[key], None)
        _keep_set_value(value, document[key])


def _keep_set_value(value: Any, json_value: Any) -> None:
    if isinstance(json_value, dict) and not isinstance(value, dict):
        _keep_set(value, json_value)
    elif isinstance(value, list) and isinstance(json_value, list):
        for item, json_item in zip(value, json_value):
            _keep_set_value(item, json_item)
    elif isinstance(value, dict) and isinstance(json_value, dict):
        for key, item in value.items():
            if key in json_value:
                _keep_set_value(item, json_value[key])


# -- sync verbs -------------------------------------------------------------------------------


class Get(_Client[T, L]):
    def get(self, name: str, *, resource_version: str = "", namespace: str | None = None) -> T:
        """The object named `name` (404 NotFound when there is none)."""
        return self.transport.request(
            "GET", self._path(name, namespace=namespace), query=get_query(resource_version=resource_version),
            result_type=self.model, resource=self._ref(name),
        )  # fmt: skip


class List(_Client[T, L]):
    def list(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        resource_version_match: ResourceVersionMatch = "",
        limit: int = 0,
        continue_: str = "",
        timeout_seconds: int | None = None,
    ) -> L:
        """One list (a page of at most `limit` items when given; its `metadata.continue`
        asks for the next); `iter` pages for you."""
        query = list_query(
            label_selector=label_selector, field_selector=field_selector, resource_version=resource_version,
            resource_version_match=resource_version_match, limit=limit, continue_=continue_,
            timeout_seconds=timeout_seconds,
        )  # fmt: skip
        return self.transport.request(
            "GET", self._path(every=True), query=query, result_type=self.list_model, resource=self._ref()
        )

    def iter(
        self, *, label_selector: str = "", field_selector: str = "", limit: int = 500, on_expired: OnExpired = "restart"
    ) -> Iterator[T]:
        """Every object, `limit` at a time, all read at the resource version of the first page.
        A continue token that expired while paging (410) starts the list again from the first
        page (`on_expired="restart"`: objects already yielded come again) or raises Expired."""
        while True:
            token = ""
            try:
                while True:
                    page = self.list(label_selector=label_selector, field_selector=field_selector, limit=limit,
                                     continue_=token)  # fmt: skip
                    for item in page.items:  # type: ignore[attr-defined]
                        yield item
                    token = page.metadata.continue_  # type: ignore[attr-defined]
                    if not token:
                        return
            except Expired:
                if on_expired == "raise" or not token:
                    raise


class Watch(List[T, L]):
    def watch(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        send_initial_events: bool | None = None,
        timeout_seconds: int | None = None,
        bookmarks: bool = False,
        on_gone: OnGone = "relist",
        on_relist: Callable[[L], None] | None = None,
    ) -> Iterator[WatchEvent[T]]:
        """Changes from `resource_version` (unset: from now) as typed events. When the server
        ends the stream, the watch resumes from the last version seen (with `timeout_seconds`,
        it ends instead). When that version is gone (410), it lists again and calls
        `on_relist(list)`, then watches on from the list's version (`on_gone="relist"`), or
        raises Expired. Bookmarks keep the version current; `bookmarks=True` yields them too."""
        version = resource_version
        while True:
            query = watch_query(
                label_selector=label_selector, field_selector=field_selector, resource_version=version,
                send_initial_events=send_initial_events, allow_watch_bookmarks=True, timeout_seconds=timeout_seconds,
                # the API server takes initial events only with NotOlderThan
                resource_version_match="NotOlderThan" if send_initial_events else "",
            )  # fmt: skip
            try:
                stream = self.transport.watch(self._path(every=True), query=query, result_type=self.model,
                                              resource=self._ref())  # fmt: skip
                with stream:
                    for event in stream:
                        version = _version_of(event, version)
                        if event.type != BOOKMARK or bookmarks:
                            yield event
            except Gone:
                if on_gone == "raise":
                    raise
                listed = self.list(label_selector=label_selector, field_selector=field_selector)
                version = listed.metadata.resource_version  # type: ignore[attr-defined]
                send_initial_events = None
                if on_relist is not None:
                    on_relist(listed)
                continue
            if timeout_seconds is not None:
                return
            send_initial_events = None  # resumed: the initial events were sent


def _version_of(event: WatchEvent[Any], current: str) -> str:
    metadata = getattr(event.object, "metadata", None)
    version = getattr(metadata, "resource_version", "") if metadata is not None else ""
    return str(version) if version else current


class Create(_Client[T, L]):
    def create(
        self, obj: T, *, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = ""
    ) -> T:
        """Store a new object (409 AlreadyExists when its name is taken); returns it as stored."""
        namespace = _object_namespace(self, obj)
        return self.transport.request(
            "POST", self._path(namespace=namespace), body=obj, result_type=self.model, resource=self._ref(),
            query=create_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class Update(_Client[T, L]):
    def update(
        self, obj: T, *, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = ""
    ) -> T:
        """Replace the object (409 Conflict when its resourceVersion is not the stored one)."""
        name, namespace = _name(obj), _object_namespace(self, obj)
        return self.transport.request(
            "PUT", self._path(name, namespace=namespace), body=obj, result_type=self.model, resource=self._ref(name),
            query=update_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class UpdateStatus(_Client[T, L]):
    def update_status(
        self, obj: T, *, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = ""
    ) -> T:
        """Replace the object's status (its /status subresource); the rest is kept."""
        name, namespace = _name(obj), _object_namespace(self, obj)
        return self.transport.request(
            "PUT", self._path(name, "status", namespace=namespace), body=obj, result_type=self.model,
            resource=self._ref(name),
            query=update_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class Patch(_Client[T, L]):
    def patch(
        self,
        name: str,
        patch: Any,
        *,
        type: PatchType = "merge",
        subresource: str = "",
        dry_run: bool = False,
        field_manager: str = "",
        field_validation: FieldValidation = "",
        namespace: str | None = None,
    ) -> T:
        """Change the object with a JSON patch (a list of operations), a merge patch or a
        strategic merge patch (built-in kinds only), as JSON data or bytes."""
        return self.transport.request(
            "PATCH", self._path(name, subresource, namespace), body=patch, content_type=_PATCH_TYPES[type],
            result_type=self.model, resource=self._ref(name),
            query=patch_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class Apply(_Client[T, L]):
    def apply(
        self,
        obj: T | dict[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        subresource: str = "",
        dry_run: bool = False,
        field_validation: FieldValidation = "",
    ) -> T:
        """Server-side apply: make `field_manager` own the fields `obj` sets (a typed object's
        fields that were set, or a partial object as a dict), creating the object if needed.
        409 Conflict names the managers of fields another manager owns, unless `force`."""
        body = apply_configuration(obj)
        name, namespace = _name(body), _object_namespace(self, body)
        return self.transport.request(
            "PATCH", self._path(name, subresource, namespace), body=body, content_type=APPLY_PATCH,
            result_type=self.model, resource=self._ref(name),
            query=apply_query(field_manager=field_manager, force=force, dry_run=dry_run,
                              field_validation=field_validation),
        )  # fmt: skip


class Delete(_Client[T, L]):
    def delete(
        self,
        name: str,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        precondition_uid: str = "",
        precondition_resource_version: str = "",
        dry_run: bool = False,
        namespace: str | None = None,
    ) -> T | None:
        """Delete the object; returns it as the server answered: its last state, or, while
        finalizers hold it, with its deletionTimestamp set (None when the server answered
        with a Status instead). Preconditions that do not hold are 409 Conflict."""
        body = delete_options(
            grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
            precondition_uid=precondition_uid, precondition_resource_version=precondition_resource_version,
            dry_run=dry_run,
        )  # fmt: skip
        data = self.transport.request(
            "DELETE", self._path(name, namespace=namespace), body=body, resource=self._ref(name)
        )
        return _deleted(self.model, data)


def _deleted(model: type[T], data: Any) -> T | None:
    if isinstance(data, dict) and data.get("kind") not in (None, "Status"):
        return model.from_dict(data)
    return None


class DeleteCollection(_Client[T, L]):
    def delete_collection(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        dry_run: bool = False,
    ) -> None:
        """Delete every object the selectors choose (in the client's namespace, or every one)."""
        body = delete_options(grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
                              dry_run=dry_run)  # fmt: skip
        self.transport.request(
            "DELETE", self._path(every=True), body=body, resource=self._ref(),
            query=list_query(label_selector=label_selector, field_selector=field_selector),
        )  # fmt: skip


class Scale(_Client[T, L]):
    def get_scale(self, name: str, *, namespace: str | None = None) -> dict[str, Any]:
        """The object's /scale subresource (an autoscaling/v1 Scale, as JSON data)."""
        data: dict[str, Any] = self.transport.request(
            "GET", self._path(name, "scale", namespace), resource=self._ref(name)
        )
        return data

    def update_scale(
        self, name: str, scale: dict[str, Any], *, dry_run: bool = False, namespace: str | None = None
    ) -> dict[str, Any]:
        """Replace the object's scale (`spec.replicas`)."""
        data: dict[str, Any] = self.transport.request(
            "PUT", self._path(name, "scale", namespace), body=scale, resource=self._ref(name),
            query=update_query(dry_run=dry_run),
        )  # fmt: skip
        return data


# -- async verbs ------------------------------------------------------------------------------


class AsyncGet(_AsyncClient[T, L]):
    async def get(self, name: str, *, resource_version: str = "", namespace: str | None = None) -> T:
        """As `Get.get`."""
        return await self.transport.request(
            "GET", self._path(name, namespace=namespace), query=get_query(resource_version=resource_version),
            result_type=self.model, resource=self._ref(name),
        )  # fmt: skip


class AsyncList(_AsyncClient[T, L]):
    async def list(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        resource_version_match: ResourceVersionMatch = "",
        limit: int = 0,
        continue_: str = "",
        timeout_seconds: int | None = None,
    ) -> L:
        """As `List.list`."""
        query = list_query(
            label_selector=label_selector, field_selector=field_selector, resource_version=resource_version,
            resource_version_match=resource_version_match, limit=limit, continue_=continue_,
            timeout_seconds=timeout_seconds,
        )  # fmt: skip
        return await self.transport.request(
            "GET", self._path(every=True), query=query, result_type=self.list_model, resource=self._ref()
        )

    async def iter(
        self, *, label_selector: str = "", field_selector: str = "", limit: int = 500, on_expired: OnExpired = "restart"
    ) -> AsyncIterator[T]:
        """As `List.iter`."""
        while True:
            token = ""
            try:
                while True:
                    page = await self.list(label_selector=label_selector, field_selector=field_selector, limit=limit,
                                           continue_=token)  # fmt: skip
                    for item in page.items:  # type: ignore[attr-defined]
                        yield item
                    token = page.metadata.continue_  # type: ignore[attr-defined]
                    if not token:
                        return
            except Expired:
                if on_expired == "raise" or not token:
                    raise


class AsyncWatch(AsyncList[T, L]):
    async def watch(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        send_initial_events: bool | None = None,
        timeout_seconds: int | None = None,
        bookmarks: bool = False,
        on_gone: OnGone = "relist",
        on_relist: Callable[[L], None] | None = None,
    ) -> AsyncIterator[WatchEvent[T]]:
        """As `Watch.watch`."""
        version = resource_version
        while True:
            query = watch_query(
                label_selector=label_selector, field_selector=field_selector, resource_version=version,
                send_initial_events=send_initial_events, allow_watch_bookmarks=True, timeout_seconds=timeout_seconds,
                # the API server takes initial events only with NotOlderThan
                resource_version_match="NotOlderThan" if send_initial_events else "",
            )  # fmt: skip
            try:
                stream = await self.transport.watch(self._path(every=True), query=query, result_type=self.model,
                                                    resource=self._ref())  # fmt: skip
                async with stream:
                    async for event in stream:
                        version = _version_of(event, version)
                        if event.type != BOOKMARK or bookmarks:
                            yield event
            except Gone:
                if on_gone == "raise":
                    raise
                listed = await self.list(label_selector=label_selector, field_selector=field_selector)
                version = listed.metadata.resource_version  # type: ignore[attr-defined]
                send_initial_events = None
                if on_relist is not None:
                    on_relist(listed)
                continue
            if timeout_seconds is not None:
                return
            send_initial_events = None


class AsyncCreate(_AsyncClient[T, L]):
    async def create(
        self, obj: T, *, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = ""
    ) -> T:
        """As `Create.create`."""
        namespace = _object_namespace(self, obj)
        return await self.transport.request(
            "POST", self._path(namespace=namespace), body=obj, result_type=self.model, resource=self._ref(),
            query=create_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class AsyncUpdate(_AsyncClient[T, L]):
    async def update(
        self, obj: T, *, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = ""
    ) -> T:
        """As `Update.update`."""
        name, namespace = _name(obj), _object_namespace(self, obj)
        return await self.transport.request(
            "PUT", self._path(name, namespace=namespace), body=obj, result_type=self.model, resource=self._ref(name),
            query=update_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class AsyncUpdateStatus(_AsyncClient[T, L]):
    async def update_status(
        self, obj: T, *, dry_run: bool = False, field_manager: str = "", field_validation: FieldValidation = ""
    ) -> T:
        """As `UpdateStatus.update_status`."""
        name, namespace = _name(obj), _object_namespace(self, obj)
        return await self.transport.request(
            "PUT", self._path(name, "status", namespace=namespace), body=obj, result_type=self.model,
            resource=self._ref(name),
            query=update_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class AsyncPatch(_AsyncClient[T, L]):
    async def patch(
        self,
        name: str,
        patch: Any,
        *,
        type: PatchType = "merge",
        subresource: str = "",
        dry_run: bool = False,
        field_manager: str = "",
        field_validation: FieldValidation = "",
        namespace: str | None = None,
    ) -> T:
        """As `Patch.patch`."""
        return await self.transport.request(
            "PATCH", self._path(name, subresource, namespace), body=patch, content_type=_PATCH_TYPES[type],
            result_type=self.model, resource=self._ref(name),
            query=patch_query(dry_run=dry_run, field_manager=field_manager, field_validation=field_validation),
        )  # fmt: skip


class AsyncApply(_AsyncClient[T, L]):
    async def apply(
        self,
        obj: T | dict[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        subresource: str = "",
        dry_run: bool = False,
        field_validation: FieldValidation = "",
    ) -> T:
        """As `Apply.apply`."""
        body = apply_configuration(obj)
        name, namespace = _name(body), _object_namespace(self, body)
        return await self.transport.request(
            "PATCH", self._path(name, subresource, namespace), body=body, content_type=APPLY_PATCH,
            result_type=self.model, resource=self._ref(name),
            query=apply_query(field_manager=field_manager, force=force, dry_run=dry_run,
                              field_validation=field_validation),
        )  # fmt: skip


class AsyncDelete(_AsyncClient[T, L]):
    async def delete(
        self,
        name: str,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        precondition_uid: str = "",
        precondition_resource_version: str = "",
        dry_run: bool = False,
        namespace: str | None = None,
    ) -> T | None:
        """As `Delete.delete`."""
        body = delete_options(
            grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
            precondition_uid=precondition_uid, precondition_resource_version=precondition_resource_version,
            dry_run=dry_run,
        )  # fmt: skip
        data = await self.transport.request("DELETE", self._path(name, namespace=namespace), body=body,
                                            resource=self._ref(name))  # fmt: skip
        return _deleted(self.model, data)


class AsyncDeleteCollection(_AsyncClient[T, L]):
    async def delete_collection(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        dry_run: bool = False,
    ) -> None:
        """As `DeleteCollection.delete_collection`."""
        body = delete_options(grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
                              dry_run=dry_run)  # fmt: skip
        await self.transport.request(
            "DELETE", self._path(every=True), body=body, resource=self._ref(),
            query=list_query(label_selector=label_selector, field_selector=field_selector),
        )  # fmt: skip


class AsyncScale(_AsyncClient[T, L]):
    async def get_scale(self, name: str, *, namespace: str | None = None) -> dict[str, Any]:
        """As `Scale.get_scale`."""
        data: dict[str, Any] = await self.transport.request("GET", self._path(name, "scale", namespace),
                                                            resource=self._ref(name))  # fmt: skip
        return data

    async def update_scale(
        self, name: str, scale: dict[str, Any], *, dry_run: bool = False, namespace: str | None = None
    ) -> dict[str, Any]:
        """As `Scale.update_scale`."""
        data: dict[str, Any] = await self.transport.request(
            "PUT", self._path(name, "scale", namespace), body=scale, resource=self._ref(name),
            query=update_query(dry_run=dry_run),
        )  # fmt: skip
        return data
