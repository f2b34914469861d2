"""AdmissionReview: the generated defaulting and validation of custom resources, as the
mutating and validating admission webhooks the API server calls.

The API server sends `admission.k8s.io/v1` (or `v1beta1`) AdmissionReviews
(apiserver pkg/admission/plugin/webhook/request/admissionreview.go,
`CreateV1AdmissionReview`): `request.kind` is the version the webhook is registered for
(with `matchPolicy: Equivalent` the API server converts a request in another version
first; `requestKind` says what the client sent), `object` the new object (null on
DELETE), `oldObject` the stored one (on UPDATE and DELETE), `dryRun` whether anything will
be stored. It checks the answer (`VerifyAdmissionResponse`): the same uid and review
apiVersion, and from a mutating webhook a `patch` only together with `patchType:
JSONPatch`.

Mutating (CREATE and UPDATE): the object is decoded, defaulted by the generated
defaulters (with the hand-written `set_defaults_*` hooks), and taken through the hub and
back with the configured feature gates and, on update, the stored object as `scope.old`:
the conversion hooks' rules (a disabled alpha field dropped on create, kept on update when
already set) run as in the API server's own request flow. What changed is the JSON patch
(`kgen.webhook.patches`). Defaulting is idempotent, so a reinvocation (`reinvocationPolicy:
IfNeeded`) on the patched object answers with no patch.

Validating: CREATE checks the object, UPDATE the object against `oldObject` (ratcheting:
what did not change is not checked again), both with the internal version's validation
and the version's own (`Scheme.validate_served`); DELETE calls a `validate_<Kind>_delete(obj)`
hook on `oldObject` when the API has one. Errors are denied with the API server's 422
Invalid Status, one cause per field, which the API server passes on prefixed with
`admission webhook "<name>" denied the request: ` (webhook/errors `ToStatusErr`).
`warnings_<Kind>(obj)` and `warnings_<Kind>_update(new, old)` hooks give the response's
warnings. A hook may raise an `APIError` to deny with any Status.

Nothing here has side effects: the webhooks are `sideEffects: None`, so the API server
calls them on dry runs too; hooks that care read `current_request().dry_run`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kgen.runtime import gojson
from kgen.runtime.conversion import Scope
from kgen.runtime.errors import APIError, bad_request
from kgen.runtime.scheme import INTERNAL_VERSION, SCHEME, GroupVersionKind, Scheme, decoding_error
from kgen.runtime.validation import Options as ValidationOptions
from kgen.runtime.validation.field import invalid_error
from kgen.webhook.conversion import _AllEnabled, decode
from kgen.webhook.patches import mutation_patch
from kgen.webhook.records import _CURRENT, AdmissionRequest, Resource, review_api_version

#: The AdmissionReview versions this webhook answers, preferred first (a webhook's
#: `admissionReviewVersions`).
REVIEW_VERSIONS = ("v1", "v1beta1")
REVIEW_GROUP = "admission.k8s.io"

Hooks = Mapping[type, Callable[..., Any]]


class Admission:
    """The mutating and validating admission webhooks of some kinds registered in a Scheme."""

    def __init__(
        self,
        resources: Iterable[Resource],
        scheme: Scheme = SCHEME,
        feature_gates: Mapping[str, bool] | None = None,
        delete_validators: Hooks | None = None,
        create_warnings: Hooks | None = None,
        update_warnings: Hooks | None = None,
    ):
        self.scheme = scheme
        self.resources = {(r.group, r.kind): r for r in resources}
        self.feature_gates = dict(feature_gates or {})
        self.scope = Scope(self.feature_gates)
        """What mutation's conversions see: the feature gates as configured."""
        self.whole = Scope(_AllEnabled())
        """What the conversions of objects to check see: nothing is dropped before it is checked."""
        self.options = ValidationOptions(self.feature_gates)
        self.delete_validators = dict(delete_validators or {})
        self.create_warnings = dict(create_warnings or {})
        self.update_warnings = dict(update_warnings or {})

    # -- the review ------------------------------------------------------------------------

    def review(self, body: Any, mutating: bool, kinds: Iterable[tuple[str, str]] | None = None) -> dict[str, Any]:
        """The AdmissionReview answering `body` (an AdmissionReview with a request, as parsed
        JSON) as the mutating or the validating webhook; `kinds` limits the (group, kind)s
        this path admits. A body that is not a review raises `ReviewError` (HTTP 400)."""
        api_version, request = _parse_review(body)
        token = _CURRENT.set(request)
        try:
            response = self._answer(request, mutating, kinds)
        except APIError as error:
            response = denied(error)
        except Exception as error:  # noqa: BLE001 - a hook's bug is a denial with a Status, never a crash
            response = denied(
                APIError(500, "InternalError", f"Internal error occurred: {type(error).__name__}: {error}")
            )
        finally:
            _CURRENT.reset(token)
        return {"apiVersion": api_version, "kind": "AdmissionReview", "response": {"uid": request.uid, **response}}

    def _answer(
        self, request: AdmissionRequest, mutating: bool, kinds: Iterable[tuple[str, str]] | None
    ) -> dict[str, Any]:
        group, version, kind = request.kind
        resource = self.resources.get((group, kind))
        gvk = GroupVersionKind(group, version, kind)
        if resource is None or (kinds is not None and (group, kind) not in set(kinds)):
            raise bad_request(f"this webhook does not admit {gvk}")
        if version not in resource.versions:
            raise bad_request(f"this webhook does not admit {gvk}: {kind} is served in {', '.join(resource.versions)}")
        if request.operation == "CONNECT":
            return {"allowed": True}
        if mutating:
            return self._mutate(request, gvk)
        return self._validate(request, gvk)

    # -- mutating --------------------------------------------------------------------------

    def _mutate(self, request: AdmissionRequest, gvk: GroupVersionKind) -> dict[str, Any]:
        if request.operation == "DELETE":
            return {"allowed": True}
        raw = _required(request.object, "object")
        obj = self._decode(raw, gvk)
        before = obj.to_dict()
        self.scheme.default(obj)
        if self._has_hub(obj):
            old = None
            if request.operation == "UPDATE" and request.old_object is not None:
                old = self.scheme.to_internal(self._decode(request.old_object, gvk), self.whole)
            scope = self.scope.for_update(old) if old is not None else self.scope
            internal = self.scheme.to_internal(obj, scope)
            obj = self.scheme.from_internal(internal, gvk.group_version.api_version, self.scope)
        operations = mutation_patch(raw, before, obj.to_dict())
        if not operations:
            return {"allowed": True}
        patch = base64.b64encode(gojson.marshal_struct(operations)).decode("ascii")
        return {"allowed": True, "patchType": "JSONPatch", "patch": patch}

    # -- validating ------------------------------------------------------------------------

    def _validate(self, request: AdmissionRequest, gvk: GroupVersionKind) -> dict[str, Any]:
        warnings: list[str] = []
        if request.operation == "DELETE":
            old = self._decode(_required(request.old_object, "oldObject"), gvk)
            errors = self._hooked(self.delete_validators, old)
            subject = old
        else:
            obj = self._decode(_required(request.object, "object"), gvk)
            old = None
            if request.operation == "UPDATE":
                old = self._decode(_required(request.old_object, "oldObject"), gvk)
            errors = self.scheme.validate_served(obj, old, self.options, self.whole)
            if old is None:
                warnings = self._hooked(self.create_warnings, obj)
            else:
                warnings = self._hooked(self.update_warnings, obj, old)
            subject = obj
        response: dict[str, Any] = {"allowed": True}
        if errors:
            name = getattr(getattr(subject, "metadata", None), "name", "") or request.name
            response = denied(invalid_error(gvk.group, gvk.kind, name, errors))
        if warnings:
            response["warnings"] = [str(w) for w in warnings]
        return response

    def _hooked(self, hooks: Hooks, obj: Any, *more: Any) -> list[Any]:
        """What the hooks of the object's version and of its internal version return (each
        called on the object in its own version), in that order."""
        found: list[Any] = []
        hook = hooks.get(type(obj))
        if hook is not None:
            found += hook(obj, *more) or []
        if self._has_hub(obj) and hooks:
            internal = self.scheme.to_internal(obj, self.whole)
            hook = hooks.get(type(internal))
            if hook is not None and type(internal) is not type(obj):
                converted = [self.scheme.to_internal(m, self.whole) for m in more]
                found += hook(internal, *converted) or []
        return found

    # -- helpers ---------------------------------------------------------------------------

    def _has_hub(self, obj: Any) -> bool:
        """Whether the object's kind converts through a hub (hooks run on the way)."""
        return self.scheme.converts(obj) and self.scheme.kind_of(obj).version != INTERNAL_VERSION

    def _decode(self, data: dict[str, Any], gvk: GroupVersionKind) -> Any:
        """An object of the review in its model (no defaulting); 400 as the API server
        words a body that does not decode."""
        api_version, kind = data.get("apiVersion"), data.get("kind")
        if (api_version is not None and api_version != gvk.group_version.api_version) or (
            kind is not None and kind != gvk.kind
        ):
            raise bad_request(f"the object is {api_version}, Kind={kind}, but the request names {gvk} (request.kind)")
        if api_version is None or kind is None:
            data = {**data, "apiVersion": gvk.group_version.api_version, "kind": gvk.kind}
        cls = self.scheme.type_for(gvk)
        try:
            return decode(cls, data)
        except ValueError as error:
            said = decoding_error(cls, gvk, data, error)
            if said is None:
                raise
            raise said from None


def denied(error: APIError) -> dict[str, Any]:
    """A response that denies the request with the error's Status."""
    status = error.to_status().to_dict()
    status.pop("apiVersion", None)
    status.pop("kind", None)
    return {"allowed": False, "status": status}


def _required(value: dict[str, Any] | None, name: str) -> dict[str, Any]:
    if value is None:
        raise bad_request(f"request.{name}: Required value: the AdmissionReview request has no {name}")
    return value


def _parse_review(body: Any) -> tuple[str, AdmissionRequest]:
    """The review's apiVersion and request; `ReviewError` for anything else."""
    api_version = review_api_version(body, "AdmissionReview", REVIEW_GROUP, REVIEW_VERSIONS)
    return api_version, AdmissionRequest.parse(body.get("request"))
