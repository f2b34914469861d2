"""What the server serves: every group/version of the API, the built-in `namespaces` and the
built-in kinds of `kgen.serve.builtins` (ConfigMaps, Secrets, ServiceAccounts, Events, Leases).

An `Endpoint` is one resource in one served version (`/apis/example.kgen.dev/v1/frobbers`):
its names and scope, the store it reads and writes (in the storage version, shared by
every version of the resource), the request flow that converts between the two, and
the schema server-side apply works with. `ServedAPI` finds endpoints by URL and lists the
groups, versions and resources discovery shows.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kgen.runtime.errors import APIError
from kgen.runtime.scheme import version_priority
from kgen.runtime.store import Engine, ResourceInfo, ResourceStore
from kgen.runtime.store.aio import AsyncResourceStore
from kgen.serve.custom import CustomResourceFlow
from kgen.serve.flow import KindFlow
from kgen.serve.loader import LoadedAPI, PrinterColumn, Resource, ServedVersion
from kgen.serve.namespaces import NAMESPACES, NamespaceFlow
from kgen.serve.webhooks import WebhookCaller

VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
SUBRESOURCE_VERBS = ("get", "patch", "update")


@dataclass
class Endpoint:
    """One resource in one served version."""

    resource: Resource
    version: ServedVersion
    flow: Any
    """The request flow: `KindFlow`, `CustomResourceFlow`, `NamespaceFlow` for the built-in
    namespaces, or `BuiltinFlow` for the other built-in kinds."""
    info: ResourceInfo
    store: ResourceStore
    openapi_v3: Mapping[str, Any] | None = None
    """The group/version's OpenAPI v3 document (for server-side apply's schema)."""
    builtin: bool = False
    terminating: bool = False
    """Its CRD is being deleted and still has objects: they may be read, changed and
    deleted, and no new one created."""
    _managers: dict[str, Any] = field(default_factory=dict)

    @property
    def group(self) -> str:
        """The API group ("" for the core group)."""
        return self.resource.group

    @property
    def api_version(self) -> str:
        """`group/version` (`v1` in the core group)."""
        return f"{self.group}/{self.version.version}" if self.group else self.version.version

    @property
    def kind(self) -> str:
        """The kind of the resource's objects."""
        return self.resource.kind

    @property
    def list_kind(self) -> str:
        """The kind of a list of them."""
        return self.resource.list_kind or f"{self.resource.kind}List"

    @property
    def namespaced(self) -> bool:
        """Whether objects live in namespaces."""
        return self.resource.namespaced

    @property
    def custom(self) -> bool:
        """Whether this is a custom resource (served as the apiextensions-apiserver serves it)."""
        return self.resource.custom

    @property
    def printer_columns(self) -> tuple[PrinterColumn, ...]:
        """This version's printer columns."""
        return self.version.printer_columns

    def subresources(self) -> tuple[str, ...]:
        """The subresources this version serves: /status, and /scale for a custom resource
        whose CRD has a scale subresource."""
        return (("status",) if self.version.status else ()) + (("scale",) if self.version.scale and self.custom else ())

    def async_store(self, strategy_version: str | None = None, review: Any = None) -> AsyncResourceStore:
        """The store for a request: writes validate the object in the request's version, and
        with a `review` (`kgen.serve.policies.review_of`) admission policies then judge them."""
        if strategy_version is None and review is None:
            return AsyncResourceStore(self.store)
        strategy = self.flow.strategy(self.info, strategy_version) if strategy_version else self.store.strategy
        if review is not None:
            from kgen.serve.policies.admission import AdmittingStrategy

            strategy = AdmittingStrategy(strategy, review)
        return AsyncResourceStore(self.store.engine.resource(self.info, strategy))

    def field_manager(self, subresource: str = "") -> Any:
        """The server-side apply field manager of this version (and subresource)."""
        manager = self._managers.get(subresource)
        if manager is None:
            from kgen.runtime.patch import FieldManager

            manager = self._managers[subresource] = FieldManager(
                self.type_ref,
                self.api_version,
                self.kind,
                subresource=subresource,
                reset_fields=self._reset_fields(subresource),
                drop_nulls=not self.custom,
            )
        return manager

    def _reset_fields(self, subresource: str) -> list[tuple[str, ...]]:
        """What the endpoint wipes, which no manager owns: status on the main resource of a
        resource with /status; everything but status on /status."""
        if subresource == "status":
            properties = self._root_properties()
            return [(name,) for name in properties if name not in ("apiVersion", "kind", "metadata", "status")] or [
                ("spec",)
            ]
        return [("status",)] if self.version.status else []

    def _root_properties(self) -> list[str]:
        spec = self.type_ref.atom.map
        return list(spec.fields) if spec is not None else ["spec"]

    @cached_property
    def type_ref(self) -> Any:
        """The kind's schema for patches and apply (from the OpenAPI v3 document)."""
        from kgen.runtime.patch import Schema

        if self.openapi_v3 is not None:
            try:
                return Schema.from_openapi_v3(self.openapi_v3).for_kind(self.group, self.version.version, self.kind)
            except KeyError:
                pass
        if self.custom and self.version.schema:  # a CRD's version: its structural schema, list and map types too
            return Schema.from_crd_schema(self.version.schema).root
        return Schema.from_crd_schema({"type": "object", "x-kubernetes-preserve-unknown-fields": True}).root


@dataclass
class _GeneratedKind:
    """A custom resource of `apis/`: the CRD kgen wrote for it, and its generated endpoints."""

    crd: dict[str, Any]
    endpoints: dict[tuple[str, str, str], Endpoint] = field(default_factory=dict)


class ServedAPI:
    """Every endpoint, by group, version and resource name."""

    def __init__(
        self,
        loaded: LoadedAPI,
        engine: Engine,
        feature_gates: Mapping[str, bool] | None = None,
        webhooks: WebhookCaller | None = None,
    ):
        self.loaded = loaded
        self.engine = engine
        self.webhooks = webhooks or WebhookCaller()
        """How the server reaches webhooks (conversion webhooks of CRDs)."""
        self.endpoints: dict[tuple[str, str, str], Endpoint] = {}
        self._generated: dict[tuple[str, str], _GeneratedKind] = {}
        """Each generated custom resource (by group and plural): served by its endpoints
        while the CRD the generator wrote for it is the one installed."""
        self.admission: Any = None
        self.webhook_admission: Any = None
        """The admission webhooks (`kgen.serve.admissionwebhooks.WebhookAdmission`)."""
        """The ValidatingAdmissionPolicy stage (`kgen.serve.policies.Admission`)."""
        self.terminating_groups: frozenset[str] = frozenset()
        """Groups with a CRD being deleted whose objects' finalizers keep it: a write there
        may let its deletion finish (the server syncs after it)."""
        self.stopping = threading.Event()
        """Set when the server shuts down (background work stops)."""
        gates = dict(feature_gates or {})
        resources = list(loaded.resources)
        if not any(r.group == "" and r.plural == "namespaces" for r in resources):
            resources.append(NAMESPACES)
        for resource in resources:
            builtin = resource is NAMESPACES
            storage = resource.storage
            info = ResourceInfo(
                group=resource.group,
                version=resource.storage_version,
                resource=resource.plural,
                kind=resource.kind,
                namespaced=resource.namespaced,
                has_status=storage.status,
                selectable_fields=storage.selectable_fields,
                list_kind=resource.list_kind,
                # The custom resource strategy refuses an update without a resourceVersion.
                allow_unconditional_update=not resource.custom,
            )
            flow: Any
            if builtin:
                flow = NamespaceFlow()
            else:
                flow = KindFlow(resource.group, resource.kind, resource.storage_version, gates, loaded.scheme)
                if resource.custom:  # served as the apiextensions-apiserver serves it, by its CRD's schemas
                    flow = CustomResourceFlow(
                        resource.group, resource.kind, resource.storage_version,
                        {v.version: v.schema for v in resource.versions}, flow,
                        webhook_conversion=resource.conversion == "Webhook", namespaced=resource.namespaced,
                        scales={v.version: v.scale for v in resource.versions},
                        conversion=(resource.crd or {}).get("spec", {}).get("conversion"), caller=self.webhooks,
                    )  # fmt: skip
            # Reads and deletes need no validation; namespaces keep their own strategy throughout.
            store = (
                engine.resource(info, flow.strategy(info, resource.storage_version))
                if builtin
                else engine.resource(info)
            )
            # A generated custom resource is served while its CRD is installed (it is at start).
            table = (
                self._generated.setdefault((resource.group, resource.plural), _GeneratedKind(resource.crd)).endpoints
                if resource.crd
                else self.endpoints
            )
            for version in resource.versions:
                document = loaded.openapi_v3.get(
                    f"apis/{resource.group}/{version.version}" if resource.group else f"api/{version.version}"
                )
                table[(resource.group, version.version, resource.plural)] = Endpoint(
                    resource, version, flow, info, store, document, builtin
                )
        self._serve_builtins({(r.group, r.plural) for r in resources}, gates)
        from kgen.serve import policies

        self.admission = policies.Admission(self)  # admission policies, served and enforced
        from kgen.serve.admissionwebhooks import WebhookAdmission

        self.webhook_admission = WebhookAdmission(self)  # the webhooks of the stored configurations
        for resource, flow, info, store, document in policies.served(self):
            self.endpoints[(resource.group, resource.storage_version, resource.plural)] = Endpoint(
                resource, resource.versions[0], flow, info, store, document
            )
        self._serve_custom_resource_definitions()

    def _serve_builtins(self, defined: set[tuple[str, str]], gates: Mapping[str, bool]) -> None:
        """ConfigMaps, Secrets, ServiceAccounts, Events and Leases, unless the API defines them."""
        from kgen.serve import builtins

        for kind in builtins.served(defined, gates):
            store = self.engine.resource(kind.info)
            for version in kind.resource.versions:
                self.endpoints[(kind.resource.group, version.version, kind.resource.plural)] = Endpoint(
                    kind.resource, version, kind.flow, kind.info, store, kind.openapi_v3
                )

    # -- CustomResourceDefinitions -----------------------------------------------------------------

    def _serve_custom_resource_definitions(self) -> None:
        """apiextensions.k8s.io/v1 customresourcedefinitions, and what the stored ones define."""
        from kgen.serve import crds

        info = ResourceInfo(
            group=crds.GROUP, version="v1", resource=crds.CRDS.plural, kind=crds.CRDS.kind, namespaced=False,
            has_status=True, list_kind=crds.CRDS.list_kind,
        )  # fmt: skip
        flow = crds.CustomResourceDefinitionFlow()
        store = self.engine.resource(info, flow.strategy(info, "v1"))
        self.endpoints[(crds.GROUP, "v1", crds.CRDS.plural)] = Endpoint(
            crds.CRDS, crds.CRDS.versions[0], flow, info, store
        )
        self._static = frozenset(self.endpoints)
        self._install_generated_definitions()
        self.sync_custom_resources()

    def _install_generated_definitions(self) -> None:
        """Store the CRD of every generated custom resource, as `kubectl apply -f crds/` does
        before an operator runs: created when absent, its spec replaced when it differs (a
        store that outlived a change of `apis/`)."""
        from kgen.serve import crds

        store = self.definitions
        for generated in self._generated.values():
            document = copy.deepcopy(generated.crd)
            name = document["metadata"]["name"]
            try:
                current = store.get(name)
            except APIError as error:
                if error.code != 404:
                    raise
                store.create(document)
                continue
            if current.get("spec") != crds.defaulted_spec(document["spec"]):

                def replace(stored: dict[str, Any] | None, wanted: dict[str, Any] = document) -> dict[str, Any]:
                    assert stored is not None
                    return {**stored, "spec": copy.deepcopy(wanted["spec"])}

                store.guaranteed_update(name, "", replace)

    @property
    def definitions(self) -> ResourceStore:
        """The store of CustomResourceDefinitions."""
        from kgen.serve import crds

        return self.endpoints[(crds.GROUP, "v1", crds.CRDS.plural)].store

    def sync_custom_resources(self) -> None:
        """Serve what the stored CRDs define, and nothing a deleted one defined (its objects
        are deleted with it). A kind `apis/` serves keeps its generated endpoint. The endpoint
        table is replaced whole, so requests reading the old one are undisturbed."""
        from kgen.serve import crds
        from kgen.serve.custom import CustomResourceFlow

        endpoints = {key: endpoint for key, endpoint in self.endpoints.items() if key in self._static}
        previous = {key: endpoint for key, endpoint in self.endpoints.items() if key not in self._static}
        terminating_groups = set()
        for crd, terminating in self._run_definition_controllers():
            try:
                resource = crds.resource_of(crd)
            except (KeyError, StopIteration, TypeError):
                continue  # not a CRD the server could serve (validation refuses those)
            if any((resource.group, v.version, resource.plural) in self._static for v in resource.versions):
                continue
            if terminating:
                terminating_groups.add(resource.group)
            generated = self._generated.get((resource.group, resource.plural))
            if generated and crd.get("spec") == crds.defaulted_spec(generated.crd["spec"]):
                # the generator's CRD: served with its generated conversions
                endpoints.update({key: dataclasses.replace(e, terminating=terminating) if terminating else e
                                  for key, e in generated.endpoints.items()})  # fmt: skip
                continue
            flow = CustomResourceFlow(
                resource.group, resource.kind, resource.storage_version,
                {v.version: v.schema for v in resource.versions}, None, webhook_conversion=False,
                namespaced=resource.namespaced, scales={v.version: v.scale for v in resource.versions},
                conversion=crd["spec"].get("conversion"), caller=self.webhooks,
            )  # fmt: skip
            info = ResourceInfo(
                group=resource.group, version=resource.storage_version, resource=resource.plural, kind=resource.kind,
                namespaced=resource.namespaced, has_status=resource.storage.status if resource.version(resource.storage_version) else False,
                selectable_fields=resource.versions[0].selectable_fields, list_kind=resource.list_kind,
                allow_unconditional_update=False,
            )  # fmt: skip
            store = self.engine.resource(info)
            for version in resource.versions:
                endpoints[(resource.group, version.version, resource.plural)] = Endpoint(
                    resource, version, flow, info, store, terminating=terminating
                )
        gone = {endpoint.info: endpoint.store for key, endpoint in previous.items() if key not in endpoints}
        self.endpoints = endpoints
        self.terminating_groups = frozenset(terminating_groups)
        for store in gone.values():
            _delete_every_object(store)

    def _run_definition_controllers(self) -> list[tuple[dict[str, Any], bool]]:
        """What the API server's CRD controllers do once a CRD is written, and the CRDs left
        to serve, each with whether it is terminating: a new or changed CRD gets its names
        accepted and is established; a deleted one (with the cleanup finalizer) has its
        objects deleted, then goes, or stays terminating while finalizers keep objects."""
        from kgen.runtime.store.base import now
        from kgen.serve import crds

        store = self.definitions
        manager = self.endpoints[(crds.GROUP, "v1", crds.CRDS.plural)].field_manager("status")

        def write_status(name: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any] | None:
            def update(stored: dict[str, Any] | None) -> dict[str, Any]:
                assert stored is not None
                wanted = copy.deepcopy(stored)
                change(wanted)
                return manager.update(stored, wanted, crds.CONTROLLER)

            try:
                return store.guaranteed_update(name, "", update, subresource="status").object
            except APIError:
                return None  # deleted meanwhile: the next sync serves what is left

        served = []
        for crd in store.list()["items"]:
            name, metadata = crd["metadata"]["name"], crd["metadata"]
            if metadata.get("deletionTimestamp"):
                if crds.CLEANUP_FINALIZER in (metadata.get("finalizers") or ()):
                    if not self._finish_definition_deletion(crd, write_status):
                        served.append((crd, True))
                continue
            if crd.get("status") != crds.accepted_status(crd, ""):
                accepted = write_status(
                    name, lambda c: c.update(status=crds.accepted_status(c, now(self.engine.clock)))
                )
                crd = accepted or crd
            served.append((crd, False))
        return served

    def _finish_definition_deletion(self, crd: dict[str, Any], write_status: Callable[..., Any]) -> bool:
        """The finalizer controller (apiextensions-apiserver pkg/controller/finalizer): delete
        every object of a deleted CRD, then its cleanup finalizer, which lets it go; False
        while objects are left (their own finalizers keep them), to be tried again."""
        from kgen.serve import crds

        name = crd["metadata"]["name"]
        reason = next((c.get("reason") for c in (crd.get("status") or {}).get("conditions") or ()
                       if c.get("type") == "Terminating"), None)  # fmt: skip
        if reason != "InstanceDeletionInProgress":
            write_status(name, lambda c: crds.set_condition(c, "Terminating", "InstanceDeletionInProgress",
                                                            "CustomResource deletion is in progress"))  # fmt: skip
        try:
            resource = crds.resource_of(crd)
        except (KeyError, StopIteration, TypeError):
            resource = None
        if resource is not None:
            info = ResourceInfo(group=resource.group, version=resource.storage_version, resource=resource.plural,
                                kind=resource.kind, namespaced=resource.namespaced)  # fmt: skip
            objects = self.engine.resource(info)
            _delete_every_object(objects)
            if objects.list(limit=1)["items"]:
                return False  # kept by their own finalizers until they are removed

        def without_finalizer(stored: dict[str, Any] | None) -> dict[str, Any]:
            assert stored is not None
            kept = [f for f in stored["metadata"].get("finalizers") or () if f != crds.CLEANUP_FINALIZER]
            return {**stored, "metadata": {**stored["metadata"], "finalizers": kept}}

        try:
            self.definitions.guaranteed_update(name, "", without_finalizer)
        except APIError:
            pass  # gone meanwhile
        return True

    def endpoint(self, group: str, version: str, plural: str) -> Endpoint:
        """The endpoint of a URL's group, version and resource; 404 NotFound when none."""
        found = self.endpoints.get((group, version, plural))
        if found is None:
            raise APIError(404, "NotFound", "the server could not find the requested resource")
        return found

    def has_group_version(self, group: str, version: str) -> bool:
        """Whether anything is served in `group/version`."""
        return any(g == group and v == version for g, v, _ in self.endpoints)

    def groups(self) -> dict[str, list[str]]:
        """Served versions of each group (the core group ""), the preferred version first."""
        found: dict[str, set[str]] = {}
        for group, version, _ in self.endpoints:
            found.setdefault(group, set()).add(version)
        return {group: sorted(versions, key=version_priority) for group, versions in sorted(found.items())}

    def endpoints_of(self, group: str, version: str) -> list[Endpoint]:
        """Every endpoint of a group/version, by resource name."""
        return [e for (g, v, _), e in sorted(self.endpoints.items()) if g == group and v == version]

    def namespaced_stores(self) -> list[ResourceStore]:
        """One store per namespaced resource (for namespace deletion)."""
        seen: dict[ResourceInfo, ResourceStore] = {}
        for endpoint in self.endpoints.values():
            if endpoint.namespaced:
                seen.setdefault(endpoint.info, endpoint.store)
        return list(seen.values())


def _delete_every_object(store: ResourceStore) -> None:
    """Delete what `store` holds (objects with finalizers are only marked as deleting)."""
    for obj in store.list()["items"]:
        metadata = obj.get("metadata") or {}
        try:
            store.delete(metadata.get("name", ""), metadata.get("namespace", ""))
        except APIError:
            pass  # gone meanwhile
