"""CustomResourceDefinitions as a served API: `apiextensions.k8s.io/v1` `customresourcedefinitions`.

`kubectl apply -f crds/` (kgen's generated CRDs, or any third party's) installs kinds while the
server runs, as on a cluster. A CRD is checked as the API server checks the essentials of one
(its name is `<plural>.<group>`, a scope, names, versions with exactly one storage version and
a schema each), and gets the status a cluster's controllers give an accepted CRD
(`NamesAccepted` and `Established` true, `acceptedNames`, `storedVersions`).

After every write of a CRD, `sync` brings the served endpoints in line with the stored CRDs:
each served version of each CRD becomes an endpoint on the schema-driven path of
`kgen.serve.custom` (conversion strategy None: there is no webhook to call), discovery and
OpenAPI show it, and the objects of a deleted CRD are deleted with it. The CRDs kgen generates
for `apis/` are installed when the server starts: while one is stored as generated, its kind
is served by its generated endpoints (applying kgen's own CRDs changes nothing); a CRD that
changes it is served by its own schemas, and deleting it stops serving the kind.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

from kgen.runtime.errors import APIError, bad_request
from kgen.runtime.scheme import DecodeResult, FieldValidation, GroupVersionKind
from kgen.runtime.store import DefaultStrategy, ResourceInfo
from kgen.runtime.validation import field
from kgen.runtime.validation.field import FieldError, Path, invalid_error
from kgen.serve.loader import PrinterColumn, Resource, ServedVersion

GROUP = "apiextensions.k8s.io"

CRDS = Resource(
    group=GROUP,
    kind="CustomResourceDefinition",
    plural="customresourcedefinitions",
    singular="customresourcedefinition",
    namespaced=False,
    storage_version="v1",
    versions=(
        ServedVersion(
            version="v1",
            printer_columns=(PrinterColumn("Created At", "date", ".metadata.creationTimestamp"),),
            status=True,
        ),
    ),
    list_kind="CustomResourceDefinitionList",
    short_names=("crd", "crds"),
    categories=("api-extensions",),
)


class CustomResourceDefinitionFlow:
    """The request flow of CRDs: JSON, one version, checked by `validate`."""

    group = GROUP
    kind = "CustomResourceDefinition"
    storage_version = "v1"
    protobuf = False

    def decode(self, data: bytes, version: str, field_validation: FieldValidation) -> DecodeResult:
        try:
            document = json.loads(data)
        except ValueError as error:
            raise bad_request(f"invalid JSON: {error}") from None
        return self.decode_dict(document, version, field_validation)

    def decode_dict(self, document: Any, version: str, field_validation: FieldValidation) -> DecodeResult:
        if not isinstance(document, dict):
            raise bad_request("the object must be a JSON object")
        document.setdefault("apiVersion", f"{GROUP}/v1")
        document.setdefault("kind", self.kind)
        if document["apiVersion"] != f"{GROUP}/v1" or document["kind"] != self.kind:
            raise bad_request(
                f"the kind in the data ({document['apiVersion']}, Kind={document['kind']}) does not match the "
                f"expected kind ({GROUP}/v1, Kind={self.kind})"
            )
        for section in ("metadata", "spec", "status"):
            if document.get(section) is not None and not isinstance(document[section], dict):
                raise bad_request(
                    f'{self.kind} in version "v1" cannot be handled as a {self.kind}: {section}: must be an object'
                )
        return DecodeResult(document, GroupVersionKind(GROUP, "v1", self.kind), [])

    def to_storage(self, obj: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
        stored: dict[str, Any] = copy.deepcopy(obj)
        return stored

    def from_storage(self, stored: dict[str, Any], version: str) -> dict[str, Any]:
        return stored

    def strategy(self, info: ResourceInfo, version: str) -> CustomResourceDefinitionStrategy:
        return CustomResourceDefinitionStrategy(info)


def _defaulted(spec: dict[str, Any]) -> None:
    """The defaults of a CRD's spec the API server sets (listKind, singular, conversion)."""
    names = spec.setdefault("names", {})
    if isinstance(names, dict) and isinstance(names.get("kind"), str):
        names.setdefault("listKind", names["kind"] + "List")
        names.setdefault("singular", names["kind"].lower())
    spec.setdefault("conversion", {"strategy": "None"})


def defaulted_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of a CRD's spec with the API server's defaults, as it is stored."""
    copied = copy.deepcopy(spec)
    _defaulted(copied)
    return copied


def validate(obj: dict[str, Any]) -> list[FieldError]:
    """The errors of a CRD the API server would refuse for its essentials."""
    errors: list[FieldError] = []
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    path = Path.root("spec")
    group = spec.get("group") or ""
    if not group:
        errors.append(field.required(field.child(path, "group"), ""))
    elif "." not in group:
        errors.append(field.invalid(field.child(path, "group"), group, "should be a domain with at least one dot"))
    names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
    for required in ("plural", "kind"):
        if not names.get(required):
            errors.append(field.required(field.child(path, "names", required), ""))
    plural = names.get("plural") or ""
    name = (obj.get("metadata") or {}).get("name", "")
    if plural and group and name != f"{plural}.{group}":
        errors.append(field.invalid(Path.root("metadata", "name"), name, 'must be spec.names.plural+"."+spec.group'))
    scope = spec.get("scope")
    if scope not in ("Namespaced", "Cluster"):
        errors.append(field.not_supported(field.child(path, "scope"), scope or "", ["Cluster", "Namespaced"]))
    versions = spec.get("versions") if isinstance(spec.get("versions"), list) else []
    if not versions:
        errors.append(
            field.invalid(
                field.child(path, "versions"), versions, "must have exactly one version marked as storage version"
            )
        )
    elif sum(1 for v in versions if isinstance(v, dict) and v.get("storage")) != 1:
        errors.append(
            field.invalid(
                field.child(path, "versions"), versions, "must have exactly one version marked as storage version"
            )
        )
    errors += _conversion_errors(spec.get("conversion"), field.child(path, "conversion"))
    for i, version in enumerate(versions):
        entry = field.index(field.child(path, "versions"), i)
        if not isinstance(version, dict) or not version.get("name"):
            errors.append(field.required(field.child(entry, "name"), ""))
            continue
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if not isinstance(schema, dict):
            errors.append(field.required(field.child(entry, "schema", "openAPIV3Schema"), "schemas are required"))
    return errors


_REVIEW_VERSIONS = ("v1", "v1beta1")


def _conversion_errors(conversion: Any, path: Any) -> list[FieldError]:
    """spec.conversion: strategy None or Webhook; a webhook needs its clientConfig and the
    ConversionReview versions it speaks, and nothing else may have them. The API server
    reports them at the paths of its internal version (`webhookClientConfig`)."""
    from kgen.serve.webhooks import ca_bundle_errors, client_config_errors

    if not isinstance(conversion, dict):
        return []
    errors: list[FieldError] = []
    strategy = conversion.get("strategy")
    if strategy not in ("None", "Webhook"):
        errors.append(field.not_supported(field.child(path, "strategy"), strategy or "", ["None", "Webhook"]))
    webhook = conversion.get("webhook") if isinstance(conversion.get("webhook"), dict) else None
    client_config = (webhook or {}).get("clientConfig")
    versions = (webhook or {}).get("conversionReviewVersions") or []
    config_path = field.child(path, "webhookClientConfig")
    if strategy == "Webhook":
        if not isinstance(client_config, dict):
            errors.append(field.required(config_path, "required when strategy is set to Webhook"))
        else:
            errors += client_config_errors(client_config, config_path)
            errors += ca_bundle_errors(client_config.get("caBundle"), field.child(config_path, "caBundle"))
        versions_path = field.child(path, "conversionReviewVersions")
        if not versions:
            errors.append(field.required(versions_path, ""))
        elif not any(v in _REVIEW_VERSIONS for v in versions):
            errors.append(field.invalid(versions_path, versions, "must include at least one of v1, v1beta1"))
    else:
        if client_config is not None:
            errors.append(field.forbidden(config_path, "should not be set when strategy is not set to Webhook"))
        if versions:
            errors.append(
                field.forbidden(
                    field.child(path, "conversionReviewVersions"),
                    "should not be set when strategy is not set to Webhook",
                )
            )
    return errors


class CustomResourceDefinitionStrategy(DefaultStrategy):
    """Checks a CRD. A created one has an empty status but its stored version, an updated
    one keeps its status and adds its new storage version (customresourcedefinition/strategy.go);
    the names and establishing controllers accept it right after (`accepted_status`)."""

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        _defaulted(obj.setdefault("spec", {}))
        obj["status"] = {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                         "storedVersions": _stored_versions(obj, None)}  # fmt: skip

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(obj, old)
        _defaulted(obj.setdefault("spec", {}))
        obj["status"] = {**copy.deepcopy(old.get("status") or {}), "storedVersions": _stored_versions(obj, old)}

    def prepare_for_delete(self, obj: dict[str, Any]) -> None:
        """The first delete of a CRD adds the cleanup finalizer and says its objects will go
        (customresourcedefinition/etcd.go Delete); the finalizer controller deletes them,
        then the CRD (`ServedAPI._finish_definition_deletion`)."""
        finalizers = obj["metadata"].setdefault("finalizers", [])
        if CLEANUP_FINALIZER not in finalizers:
            finalizers.append(CLEANUP_FINALIZER)
        set_condition(obj, "Terminating", "InstanceDeletionPending",
                      "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon")  # fmt: skip

    def validate_create(self, obj: dict[str, Any]) -> None:
        self._check(obj)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        self._check(obj)

    def _check(self, obj: dict[str, Any]) -> None:
        errors = validate(obj)
        if errors:
            raise invalid_error(GROUP, "CustomResourceDefinition", (obj.get("metadata") or {}).get("name", ""), errors)


def _stored_versions(obj: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    spec = obj.get("spec") or {}
    storage = next((v["name"] for v in spec.get("versions") or [] if isinstance(v, dict) and v.get("storage")), "")
    stored = list(((old or {}).get("status") or {}).get("storedVersions") or [])
    if storage and storage not in stored:
        stored.append(storage)
    return stored


CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
"""Keeps a deleted CRD until its objects are deleted."""


def set_condition(crd: dict[str, Any], kind: str, reason: str, message: str, status: str = "True",
                  at: str | None = None) -> None:  # fmt: skip
    """SetCRDCondition: add or replace the condition `kind` (new ones go last); its
    lastTransitionTime (`at`, now by default) changes only with its status."""
    from kgen.runtime.store.base import now

    conditions = (crd.setdefault("status", {}).get("conditions")) or []
    before = next((c for c in conditions if c.get("type") == kind), None)
    since = before.get("lastTransitionTime") if before and before.get("status") == status else None
    condition = {"type": kind, "status": status, "lastTransitionTime": since or (now(time.time) if at is None else at),
                 "reason": reason, "message": message}  # fmt: skip
    crd["status"]["conditions"] = [condition if c is before else c for c in conditions] + (
        [] if before else [condition]
    )


CONTROLLER = "kube-apiserver"
"""The field manager of the status the API server's own CRD controllers write."""


def accepted_status(crd: dict[str, Any], now: str) -> dict[str, Any]:
    """The status the names controller and the establishing controller give `crd`
    (apiextensions-apiserver pkg/controller/status, pkg/controller/establish): its names
    accepted and the CRD established at `now`."""
    accepted = {"status": copy.deepcopy(crd.get("status") or {})}
    set_condition(accepted, "NamesAccepted", "NoConflicts", "no conflicts found", at=now)
    set_condition(accepted, "Established", "InitialNamesAccepted", "the initial names have been accepted", at=now)
    accepted["status"]["acceptedNames"] = copy.deepcopy((crd.get("spec") or {}).get("names") or {})
    return accepted["status"]


def resource_of(crd: dict[str, Any]) -> Resource:
    """The served resource a stored CRD describes."""
    spec = crd["spec"]
    names = spec["names"]
    storage = next(v["name"] for v in spec["versions"] if v.get("storage"))
    versions = []
    for version in spec["versions"]:
        if not version.get("served", True):
            continue
        subresources = version.get("subresources") or {}
        versions.append(
            ServedVersion(
                version=version["name"],
                printer_columns=tuple(
                    PrinterColumn(
                        c.get("name", ""), c.get("type", "string"), c.get("jsonPath", ""), c.get("description", ""),
                        c.get("format", ""), int(c.get("priority", 0) or 0),
                    )  # fmt: skip
                    for c in version.get("additionalPrinterColumns") or []
                ),
                selectable_fields=tuple(f["jsonPath"] for f in version.get("selectableFields") or []),
                status="status" in subresources,
                scale=subresources.get("scale"),
                deprecated=bool(version.get("deprecated")),
                deprecation_warning=version.get("deprecationWarning", ""),
                schema=(version.get("schema") or {}).get("openAPIV3Schema"),
            )
        )
    return Resource(
        group=spec["group"],
        kind=names["kind"],
        plural=names["plural"],
        singular=names.get("singular") or names["kind"].lower(),
        namespaced=spec["scope"] == "Namespaced",
        storage_version=storage,
        versions=tuple(versions),
        list_kind=names.get("listKind") or names["kind"] + "List",
        short_names=tuple(names.get("shortNames") or ()),
        categories=tuple(names.get("categories") or ()),
        custom=True,
        conversion=(spec.get("conversion") or {}).get("strategy") or "None",
    )


def load_documents(paths: list[Any]) -> list[dict[str, Any]]:
    """The CRDs of YAML files (one or many documents each; other kinds are an error)."""
    from pathlib import Path as FilePath

    from kgen.runtime import yamlio

    found = []
    for path in paths:
        text = FilePath(path).read_text(encoding="utf-8")
        for raw in yamlio.to_json_documents(text):
            document = json.loads(raw)
            if not document:
                continue
            if document.get("kind") != "CustomResourceDefinition":
                raise APIError(400, "BadRequest", f"{path}: a {document.get('kind')} is not a CustomResourceDefinition")
            found.append(document)
    return found
