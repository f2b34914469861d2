"""The served resources `validatingadmissionpolicies` (with `/status`) and
`validatingadmissionpolicybindings` of `admissionregistration.k8s.io/v1`.

Both are cluster-scoped built-in kinds: a body is read as the typed decoder reads it into
their Go types (`types`, `gotypes.decode`), defaulted as kubernetes'
pkg/apis/admissionregistration/v1 defaults (failurePolicy Fail, matchPolicy Equivalent,
empty selectors, rule scope `*`), written back as Go writes it, validated by
`validation`, and stored by the strategy of
pkg/registry/admissionregistration/validatingadmissionpolicy (and ...binding): generation 1
on create and one more on a change of the spec, the status kept apart (written only through
/status), and updates that must name a resourceVersion (no unconditional update).
"""

from __future__ import annotations

import copy
from typing import Any

from kgen.runtime import gotypes
from kgen.runtime.errors import APIError, bad_request
from kgen.runtime.scheme import DecodeResult, FieldValidation, GroupVersionKind, cannot_handle
from kgen.runtime.store import DefaultStrategy, ResourceInfo
from kgen.runtime.validation.field import FieldError, invalid_error
from kgen.serve.builtins.types import LABEL_SELECTOR
from kgen.serve.loader import PrinterColumn, Resource, ServedVersion
from kgen.serve.policies import types, validation

POLICY_KIND = "ValidatingAdmissionPolicy"
BINDING_KIND = "ValidatingAdmissionPolicyBinding"
_MAX_BODY = 3 * 1024 * 1024

POLICIES = Resource(
    group=types.GROUP,
    kind=POLICY_KIND,
    plural="validatingadmissionpolicies",
    singular="validatingadmissionpolicy",
    namespaced=False,
    storage_version=types.VERSION,
    versions=(ServedVersion(version=types.VERSION, status=True),),
    list_kind=POLICY_KIND + "List",
    categories=("api-extensions",),
)

BINDINGS = Resource(
    group=types.GROUP,
    kind=BINDING_KIND,
    plural="validatingadmissionpolicybindings",
    singular="validatingadmissionpolicybinding",
    namespaced=False,
    storage_version=types.VERSION,
    versions=(
        ServedVersion(
            version=types.VERSION,
            printer_columns=(
                PrinterColumn("PolicyName", "string", ".spec.policyName", "The policy the binding binds."),
                PrinterColumn(
                    "Age", "date", ".metadata.creationTimestamp",
                    "CreationTimestamp is a timestamp representing the server time when this object was created.",
                ),
            ),
        ),
    ),
    list_kind=BINDING_KIND + "List",
    categories=("api-extensions",),
)  # fmt: skip


def info_of(resource: Resource) -> ResourceInfo:
    """What the store engine knows of one of the two resources."""
    return ResourceInfo(
        group=resource.group,
        version=resource.storage_version,
        resource=resource.plural,
        kind=resource.kind,
        namespaced=False,
        has_status=resource is POLICIES,
        list_kind=resource.list_kind,
        allow_unconditional_update=False,
    )


# -- defaults --------------------------------------------------------------------------------
# They work on decoded Go values (`gotypes.decode`), where an unset pointer is None, as the
# defaulters do on the Go structs.


def _default_match_resources(resources: dict[str, Any] | None) -> None:
    """SetDefaults_MatchResources and SetDefaults_Rule of its rules."""
    if resources is None:
        return
    if resources["matchPolicy"] is None:
        resources["matchPolicy"] = "Equivalent"
    for name in ("namespaceSelector", "objectSelector"):
        if resources[name] is None:
            resources[name] = gotypes.zero(LABEL_SELECTOR)
    for name in ("resourceRules", "excludeResourceRules"):
        for rule in resources[name] or []:
            if rule["scope"] is None:
                rule["scope"] = "*"


def default_policy(value: dict[str, Any]) -> None:
    """The defaults of a decoded ValidatingAdmissionPolicy."""
    spec = value["spec"]
    if spec["failurePolicy"] is None:
        spec["failurePolicy"] = "Fail"
    _default_match_resources(spec["matchConstraints"])


def default_binding(value: dict[str, Any]) -> None:
    """The defaults of a decoded ValidatingAdmissionPolicyBinding."""
    _default_match_resources(value["spec"]["matchResources"])


# -- the request flow --------------------------------------------------------------------------


class PolicyFlow:
    """Decoding, defaulting and validation of one of the two kinds (one version, no conversion)."""

    group = types.GROUP
    storage_version = types.VERSION
    protobuf = False
    """Served as JSON and YAML (kubectl and the client libraries speak JSON to these)."""

    def __init__(self, resource: Resource):
        self.resource = resource
        self.kind = resource.kind
        self.type = types.POLICY if resource is POLICIES else types.BINDING
        self._default = default_policy if resource is POLICIES else default_binding

    def decode(self, data: bytes, version: str, field_validation: FieldValidation) -> DecodeResult:
        """A request body: 413 beyond the request limit, 400 when it is not JSON of this kind."""
        if len(data) > _MAX_BODY:
            raise APIError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {_MAX_BODY}")
        try:
            document = gotypes.parse_json(data)
        except ValueError as error:
            raise bad_request(f"invalid JSON: {error}") from None
        return self.decode_dict(document, version, field_validation)

    def decode_dict(self, document: Any, version: str, field_validation: FieldValidation) -> DecodeResult:
        """`decode` of JSON data (a patch's result, or what `gotypes.parse_json` read): Go's
        type errors and strict decoding errors are the 400 of transformDecodeError
        (`<Kind> in version "v1" cannot be handled as a <Kind>: ...`)."""
        if not gotypes.is_object(document):
            raise bad_request("the object must be a JSON object")
        members = gotypes.type_meta(document)
        api_version = members.get("apiVersion") or types.API_VERSION
        kind = members.get("kind") or self.kind
        if api_version != types.API_VERSION or kind != self.kind:
            raise bad_request(
                f"the API version in the data ({api_version}) does not match the expected API version "
                f"({types.API_VERSION})"
                if kind == self.kind
                else f"the kind in the data ({kind}) does not match the expected kind ({self.kind})"
            )
        try:
            decoded = gotypes.decode(self.type, document)
        except gotypes.DecodeError as error:
            raise cannot_handle(self.kind, version, str(error)) from None
        problems = decoded.strict if field_validation is not FieldValidation.IGNORE else []
        if problems and field_validation is FieldValidation.STRICT:
            raise cannot_handle(self.kind, version, "strict decoding error: " + ", ".join(problems))
        value = decoded.value
        value["apiVersion"], value["kind"] = types.API_VERSION, self.kind
        self._default(value)
        obj: dict[str, Any] = gotypes.encode(self.type, value)
        return DecodeResult(obj, GroupVersionKind(types.GROUP, version, self.kind), problems)

    def to_storage(self, obj: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
        """The object as stored (the one version is the storage version)."""
        stored: dict[str, Any] = copy.deepcopy(obj)
        return stored

    def from_storage(self, stored: dict[str, Any], version: str) -> dict[str, Any]:
        """The stored object as served."""
        return stored

    def strategy(self, info: ResourceInfo, version: str) -> PolicyStrategy:
        """The store strategy of the kind."""
        return PolicyStrategy(info, self)


class PolicyStrategy(DefaultStrategy):
    """Generation, status and validation of policies and bindings."""

    def __init__(self, info: ResourceInfo, flow: PolicyFlow):
        super().__init__(info)
        self.flow = flow

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """Generation 1; a policy's status starts empty."""
        super().prepare_for_create(obj)
        if self.info.has_status:
            obj["status"] = {}

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """The stored status is kept; the generation goes up when the spec changes."""
        super().prepare_for_update(obj, old)
        if self.info.has_status:
            obj["status"] = copy.deepcopy(old.get("status") or {})

    def validate_create(self, obj: dict[str, Any]) -> None:
        """422 with every error of the object."""
        self._refuse(self._errors(obj, None), obj)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """422 with every error of the object (and of its status, when that changed)."""
        errors = self._errors(obj, old)
        if self.info.has_status and obj.get("status") != old.get("status"):
            errors += validation.policy_status(obj)
        self._refuse(errors, obj)

    def _errors(self, obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        if self.info.has_status:
            return validation.policy(obj, old)
        return validation.binding(obj, old)

    def _refuse(self, errors: list[FieldError], obj: dict[str, Any]) -> None:
        if errors:
            name = (obj.get("metadata") or {}).get("name", "")
            raise invalid_error(types.GROUP, self.flow.kind, name, errors)
