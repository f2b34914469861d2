"""The built-in `namespaces` resource (core v1 `Namespace`) and namespace lifecycle.

A namespace is stored as JSON (`metadata`, `spec.finalizers`, `status.phase`); its flow
checks the fields a Namespace has and that its name is a DNS label, and sets the phase
`Active`. Deleting a namespace marks it `Terminating` (creates in it are then refused
with 403, as the NamespaceLifecycle admission plugin refuses them), deletes everything in
it, and removes it once nothing is left, as the namespace controller does.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any, cast

from kgen.runtime import gotypes
from kgen.runtime.gotypes import Struct
from kgen.runtime.conversion import Scope
from kgen.runtime.protobuf import ProtobufError
from kgen.runtime.errors import APIError, StatusCause, bad_request
from kgen.runtime.scheme import DecodeResult, FieldValidation, GroupVersionKind, cannot_handle
from kgen.runtime.store import DefaultStrategy, DeleteResult, ResourceInfo
from kgen.runtime.validation.field import FieldError, Path, invalid_error, not_supported
from kgen.serve.builtins import wire
from kgen.serve.builtins.types import NAMESPACE, list_of
from kgen.serve.loader import PrinterColumn, Resource, ServedVersion

NAMESPACES = Resource(
    group="",
    kind="Namespace",
    plural="namespaces",
    singular="namespace",
    namespaced=False,
    storage_version="v1",
    versions=(
        ServedVersion(
            version="v1",
            printer_columns=(
                PrinterColumn("Status", "string", ".status.phase", "The status of the namespace"),
                PrinterColumn(
                    "Age",
                    "date",
                    ".metadata.creationTimestamp",
                    "CreationTimestamp is a timestamp representing the server time when this object was created.",
                ),
            ),
            status=True,
        ),
    ),
    list_kind="NamespaceList",
    short_names=("ns",),
)

NAMESPACE_LIST = list_of(NAMESPACE, "v1.NamespaceList", "io.k8s.api.core.v1.NamespaceList", "A list of namespaces.")

#: Namespaces every cluster has.
INITIAL = ("default", "kube-system", "kube-public", "kube-node-lease")
ACTIVE = "Active"
TERMINATING = "Terminating"
_TOP_LEVEL = set(NAMESPACE.by_json)
_KNOWN = {name: set(cast(Struct, NAMESPACE.field(name).type).by_json) for name in ("metadata", "spec", "status")}


def _problems(document: dict[str, Any]) -> list[str]:
    """The unknown fields of the Namespace and of its metadata, spec and status."""
    problems = [f'unknown field "{key}"' for key in document if key not in _TOP_LEVEL]
    for section, known in _KNOWN.items():
        value = document.get(section)
        if isinstance(value, dict):
            problems += [f'unknown field "{section}.{key}"' for key in value if key not in known]
    return problems


class NamespaceFlow:
    """The request flow of namespaces: JSON checked field by field, no conversion."""

    group = ""
    kind = "Namespace"
    storage_version = "v1"
    has_internal = False
    scope = Scope()

    def decode(self, data: bytes, version: str, field_validation: FieldValidation) -> DecodeResult:
        """A Namespace from JSON; unknown fields as field validation says."""
        if len(data) > 3 * 1024 * 1024:
            raise APIError(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")
        try:
            document = json.loads(data)
        except ValueError as error:
            raise bad_request(f"invalid JSON: {error}") from None
        return self.decode_dict(document, version, field_validation)

    def decode_dict(self, document: Any, version: str, field_validation: FieldValidation) -> DecodeResult:
        """A Namespace from JSON data."""
        if not isinstance(document, dict):
            raise bad_request("the object must be a JSON object")
        # what the data leaves out is what the path says, as the API server's decoder fills it
        document = {
            **document,
            "apiVersion": document.get("apiVersion") or "v1",
            "kind": document.get("kind") or "Namespace",
        }
        if document.get("kind") != "Namespace" or document.get("apiVersion") != "v1":
            raise bad_request(
                f"the kind in the data ({document.get('apiVersion')}, Kind={document.get('kind')}) "
                "does not match the expected kind (v1, Kind=Namespace)"
            )
        for section in ("metadata", "spec", "status"):
            if section in document and document[section] is not None and not isinstance(document[section], dict):
                raise bad_request(
                    f'Namespace in version "v1" cannot be handled as a Namespace: {section}: must be an object'
                )
        warnings: list[str] = []
        if field_validation is not FieldValidation.IGNORE:
            problems = _problems(document)
            if problems and field_validation is FieldValidation.STRICT:
                raise cannot_handle("Namespace", "v1", "strict decoding error: " + ", ".join(problems))
            warnings = problems
        obj = {k: v for k, v in document.items() if k in _TOP_LEVEL and v is not None}
        obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        return DecodeResult(obj, GroupVersionKind("", "v1", "Namespace"), warnings)

    def to_storage(self, obj: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
        """The namespace as stored: phase Active unless it is terminating."""
        stored: dict[str, Any] = json.loads(json.dumps(obj))
        phase = ((old or {}).get("status") or {}).get("phase") or ACTIVE
        stored.setdefault("status", {})["phase"] = phase
        return stored

    def from_storage(self, stored: dict[str, Any], version: str) -> dict[str, Any]:
        """Namespaces have one version."""
        return stored

    def encode_protobuf(self, obj: dict[str, Any], version: str) -> bytes:
        """A Namespace as protobuf."""
        return namespace_to_protobuf(obj)

    def encode_protobuf_list(self, listed: dict[str, Any], version: str) -> bytes:
        """A NamespaceList as protobuf: ListMeta, then the items."""
        return wire.encode_object(listed, NAMESPACE_LIST, "v1", "NamespaceList")

    def validate(self, stored: dict[str, Any], old: dict[str, Any] | None, version: str) -> list[FieldError]:
        """The name is a DNS label, and the object metadata is valid."""
        from kgen.runtime.apimachinery.meta.v1.models import ObjectMeta
        from kgen.runtime.validation.meta import validate_object_meta, validate_object_meta_update

        errors: list[FieldError] = []
        try:
            meta = ObjectMeta.from_dict(stored.get("metadata") or {})
        except Exception as error:  # noqa: BLE001 - pydantic's error, as the API's
            raise bad_request(f'Namespace in version "v1" cannot be handled as a Namespace: {error}') from None
        validate_object_meta(meta, (None, "metadata"), errors, namespaced=False, name_format="k8s-short-name")
        if old is not None:
            validate_object_meta_update(
                meta, ObjectMeta.from_dict(old.get("metadata") or {}), (None, "metadata"), errors
            )
        phase = (stored.get("status") or {}).get("phase")
        if phase not in (None, ACTIVE, TERMINATING):
            errors.append(not_supported(Path.root("status", "phase"), phase, [ACTIVE, TERMINATING]))
        return errors

    def strategy(self, info: ResourceInfo, version: str) -> _NamespaceStrategy:
        """The store strategy of namespaces."""
        return _NamespaceStrategy(info, self)


class _NamespaceStrategy(DefaultStrategy):
    """Namespaces have no generation; their phase is the server's."""

    def __init__(self, info: ResourceInfo, flow: NamespaceFlow):
        super().__init__(info)
        self.flow = flow

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """A new namespace is Active, and labelled with its name."""
        obj.setdefault("status", {})["phase"] = ACTIVE
        _label_with_name(obj)

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """The phase is kept (only deletion changes it); the name label stays."""
        obj["status"] = json.loads(json.dumps(old.get("status") or {"phase": ACTIVE}))
        _label_with_name(obj)

    def validate_create(self, obj: dict[str, Any]) -> None:
        """422 for a name that is not a DNS label, or bad metadata."""
        self._check(obj, None)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """422 for bad metadata or a change it may not make."""
        self._check(obj, old)

    def _check(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        errors = self.flow.validate(obj, old, "v1")
        if errors:
            raise invalid_error("", "Namespace", (obj.get("metadata") or {}).get("name", ""), errors)


NAME_LABEL = "kubernetes.io/metadata.name"


def _label_with_name(obj: dict[str, Any]) -> None:
    """Every namespace has the label `kubernetes.io/metadata.name: <name>` (core v1's
    SetDefaults_Namespace, and the namespace strategy's Canonicalize for generated names):
    what namespace selectors select namespaces by name with."""
    metadata = obj.setdefault("metadata", {})
    if metadata.get("name"):
        labels = metadata.get("labels")
        metadata["labels"] = {**(labels if isinstance(labels, dict) else {}), NAME_LABEL: metadata["name"]}


# -- lifecycle ---------------------------------------------------------------------------------


def _namespaces(api: Any) -> Any:
    return api.endpoint("", "v1", "namespaces").store


def namespace_accepts(api: Any, namespace: str, endpoint: Any, name: str) -> None:
    """NamespaceLifecycle: objects are created only in namespaces that exist (404) and are not
    being deleted (403 Forbidden)."""
    try:
        found = _namespaces(api).get(namespace)
    except APIError as error:
        if error.code == 404:
            raise APIError(
                404,
                "NotFound",
                f'namespaces "{namespace}" not found',
                details={"name": namespace, "kind": "namespaces"},
            ) from None
        raise
    if (found.get("status") or {}).get("phase") == TERMINATING:
        qualified = f"{endpoint.resource.plural}.{endpoint.group}" if endpoint.group else endpoint.resource.plural
        raise APIError(
            403,
            "Forbidden",
            f'{qualified} "{name}" is forbidden: unable to create new content in namespace {namespace} because it is being terminated',
            [StatusCause("NamespaceTerminating", f"namespace {namespace} is being terminated", "metadata.namespace")],
            {"name": name, "group": endpoint.group, "kind": endpoint.resource.plural},
        )


async def check_namespace_accepts(api: Any, namespace: str, endpoint: Any, name: str) -> None:
    """`namespace_accepts` for asyncio."""
    await asyncio.to_thread(namespace_accepts, api, namespace, endpoint, name)


def ensure_initial(api: Any) -> None:
    """Create the namespaces every cluster has, and finish deleting terminating ones."""
    store = _namespaces(api)
    for name in INITIAL:
        try:
            store.create(
                {
                    "apiVersion": "v1",
                    "kind": "Namespace",
                    "metadata": {"name": name},
                    "spec": {"finalizers": ["kubernetes"]},
                }
            )
        except APIError as error:
            if error.code != 409:
                raise
    for namespace in store.list()["items"]:
        if (namespace.get("status") or {}).get("phase") == TERMINATING:
            _start_purge(api, namespace["metadata"]["name"])


async def delete_namespace(api: Any, name: str, options: Any, admit: Any = None) -> DeleteResult:
    """Delete a namespace: mark it Terminating (the answer), then delete what it holds and,
    once nothing is left, the namespace itself, in the background. With `admit` (a
    `kgen.serve.policies.Review`) admission judges the delete first, the stored namespace as
    its old object, as the namespace registry's delete validation does."""
    store = _namespaces(api)

    def admitted(current: dict[str, Any]) -> None:
        if admit is not None:
            api.admission.review(admit, "DELETE", None, current)

    if options.dry_run or options.preconditions is not None:
        checked: DeleteResult = await asyncio.to_thread(
            store.delete, name, preconditions=options.preconditions, propagation_policy=options.propagation_policy,
            orphan_dependents=options.orphan_dependents, dry_run=True,
        )  # fmt: skip
        if options.dry_run:
            await asyncio.to_thread(lambda: admitted(store.get(name)))
            return checked

    def terminating(current: dict[str, Any] | None) -> dict[str, Any]:
        assert current is not None
        admitted(current)
        current.setdefault("status", {})["phase"] = TERMINATING
        return current

    outcome = await asyncio.to_thread(store.guaranteed_update, name, "", terminating, subresource="status")
    _start_purge(api, name)
    return DeleteResult(outcome.object, deleted=False)


def _start_purge(api: Any, name: str) -> None:
    thread = threading.Thread(target=_purge, args=(api, name), name=f"kgen-namespace-{name}", daemon=True)
    thread.start()


def _purge(api: Any, name: str, interval: float = 0.5) -> None:
    """The namespace controller's work: delete the contents, wait for finalizers, then the namespace."""
    store = _namespaces(api)
    stopping = getattr(api, "stopping", None)
    while stopping is None or not stopping.is_set():
        remaining = 0
        for resource in api.namespaced_stores():
            try:
                deleted = resource.delete_collection(name)
                remaining += sum(1 for item in deleted["items"] if (item.get("metadata") or {}).get("finalizers"))
            except APIError:
                remaining += 1
        if not remaining:
            try:
                store.delete(name)
            except APIError:
                pass
            return
        if stopping is not None:
            stopping.wait(interval)
        else:
            time.sleep(interval)


# -- protobuf (core/v1 Namespace, as typed clients such as `kubectl create namespace` send it) ----


def namespace_from_protobuf(body: bytes) -> dict[str, Any]:
    """A Namespace from an `application/vnd.kubernetes.protobuf` body, as the JSON Go writes
    for it (empty `omitempty` fields left out); ProtobufError when it is not a v1 Namespace."""
    obj = wire.decode_message(body, NAMESPACE, "v1", "Namespace")
    if (obj["apiVersion"], obj["kind"]) != ("v1", "Namespace"):
        raise ProtobufError(f"expected a v1 Namespace, not {obj['kind']} of {obj['apiVersion']}")
    return {"apiVersion": "v1", "kind": "Namespace", **gotypes.normalize(NAMESPACE, obj)}


def namespace_to_protobuf(obj: dict[str, Any]) -> bytes:
    """A Namespace as an `application/vnd.kubernetes.protobuf` body."""
    return wire.encode_object(obj, NAMESPACE, "v1", "Namespace")
