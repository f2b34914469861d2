"""Admission webhooks, called as kube-apiserver's MutatingAdmissionWebhook and
ValidatingAdmissionWebhook plugins call them (k8s.io/apiserver pkg/admission/plugin/webhook).

The webhooks are those of the stored Mutating- and ValidatingWebhookConfigurations,
configurations in the order of their names and webhooks in the order they are listed; what
was written a moment ago applies to the next request.

- **Which requests** (generic/webhook.go ShouldCallHook): the namespace selector, the object
  selector (new or old object), then the rules (no rule: no request), through another
  version of the resource with `matchPolicy: Equivalent` (the objects are then converted to
  that version), then the match conditions (CEL; an error fails the request with 403 under
  failurePolicy Fail).
- **The call** (request/admissionreview.go): an `AdmissionReview` of the first version the
  webhook speaks (v1, else v1beta1) with a fresh uid, the request's kind, resource,
  subresource, name, namespace, operation, user, objects, dryRun and options, POSTed within
  `timeoutSeconds` to the clientConfig (`kgen.serve.webhooks`). A request with dryRun goes
  only to webhooks whose sideEffects are None or NoneOnDryRun (else 400).
- **The answer** (VerifyAdmissionResponse): the same uid and kind, a patch only with its
  patchType from a mutating webhook; warnings go to the response. A webhook that cannot be
  called, or answers badly, fails the request with 500 InternalError (`failed calling webhook
  "<name>": ...`) under failurePolicy Fail and is skipped under Ignore. A refusal is the
  webhook's Status (errors/statuserror.go: at least 400, `admission webhook "<name>" denied
  the request: <message>`).
- **Mutating** webhooks run in the handler, before the object is converted for storage
  (create, and inside the write for update and patch, with the stored object as oldObject):
  one after another, each JSON patch applied to the object in the version the webhook was
  called with, which is then decoded (pruned) and defaulted again. A webhook with
  `reinvocationPolicy: IfNeeded` is called once more when a later webhook changed the object.
- **Validating** webhooks run inside the store's write after validation and the admission
  policies (`AdmittingStrategy`), each on the final object, all of them, the first refusal
  answering.
"""

from __future__ import annotations

import base64
import functools
import json
import uuid
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgen.runtime.errors import APIError, StatusCause
from kgen.runtime.scheme import FieldValidation
from kgen.runtime.store.resource import decode_object, json_copy
from kgen.serve.policies import matching
from kgen.serve.webhooks import WebhookError

if TYPE_CHECKING:
    from kgen.serve.api import ServedAPI
    from kgen.serve.policies.admission import Review

__all__ = ["WebhookAdmission"]

GROUP = "admissionregistration.k8s.io"
_CONFIGURATIONS = {True: "mutatingwebhookconfigurations", False: "validatingwebhookconfigurations"}
_REVIEW_VERSIONS = ("v1", "v1beta1")


@dataclass(frozen=True)
class Hook:
    """One webhook of one configuration."""

    configuration: str
    index: int
    webhook: Mapping[str, Any]
    mutating: bool

    @property
    def name(self) -> str:
        return str(self.webhook.get("name", ""))

    @property
    def uid(self) -> str:
        """What tells this webhook apart from every other (its configuration, name and place)."""
        return f"{self.configuration}/{self.name}/{self.index}"

    @property
    def ignores_failures(self) -> bool:
        return self.webhook.get("failurePolicy") == "Ignore"


@dataclass
class _Invocation:
    """A webhook that applies to a request, and the resource and kind it applies as."""

    hook: Hook
    resource: matching.GroupVersionResource
    kind: matching.GroupVersionKind


class _CallFailed(Exception):
    """A webhook could not be called, or answered what no webhook may (ErrCallingWebhook)."""

    def __init__(self, hook: Hook, reason: str):
        super().__init__(f'failed calling webhook "{hook.name}": {reason}')
        self.hook = hook


@dataclass
class _Source:
    """The stored configurations of one kind, read again only when they changed."""

    revisions: tuple[tuple[str, int], ...] = ()
    hooks: list[Hook] = field(default_factory=list)


class WebhookAdmission:
    """The two webhook admission plugins of one served API."""

    def __init__(self, api: ServedAPI):
        self.api = api
        self._sources = {True: _Source(), False: _Source()}

    # -- the webhooks ---------------------------------------------------------------------------

    def hooks(self, mutating: bool) -> list[Hook]:
        """Every webhook of the stored configurations of a kind, in the order they are called."""
        endpoint = self.api.endpoints.get((GROUP, "v1", _CONFIGURATIONS[mutating]))
        if endpoint is None:
            return []
        kvs = self.api.engine.backend.range(endpoint.store.prefix).kvs
        revisions = tuple((kv.key, kv.mod_revision) for kv in kvs)
        source = self._sources[mutating]
        if revisions != source.revisions:
            configurations = sorted(
                (decode_object(kv.value, kv.mod_revision) for kv in kvs), key=lambda c: c["metadata"]["name"]
            )
            hooks = [
                Hook(configuration["metadata"]["name"], index, webhook, mutating)
                for configuration in configurations
                for index, webhook in enumerate(configuration.get("webhooks") or [])
            ]
            self._sources[mutating] = source = _Source(revisions, hooks)
        return source.hooks

    # -- which requests ------------------------------------------------------------------------

    def _request(
        self, review: Review, operation: str, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> matching.Request:
        """What matching sees of a request (objects in the request's version)."""
        admission = self.api.admission
        return matching.Request(
            operation=operation,
            resource=review.resource,
            subresource=review.subresource,
            kind=review.request_kind(),
            name=admission.name_of(review, obj if obj is not None else old),
            namespace=admission.namespace_of(review),
            object=obj,
            old_object=old,
            equivalents=functools.cache(review.equivalents),
            namespace_labels=admission.namespace_labels,
        )

    def _invocation(self, hook: Hook, review: Review, request: matching.Request, views: _Views) -> _Invocation | None:
        """ShouldCallHook: the resource and kind the webhook applies to the request as, or None."""
        rules = hook.webhook.get("rules") or []
        if not rules:
            return None
        constraints = {
            "namespaceSelector": hook.webhook.get("namespaceSelector"),
            "objectSelector": hook.webhook.get("objectSelector"),
            "resourceRules": rules,
            "matchPolicy": hook.webhook.get("matchPolicy") or "Equivalent",
        }
        try:
            matched = matching.matches(constraints, request)
        except matching.ConfigurationError as error:
            raise APIError(500, "InternalError", f"Internal error occurred: {error.message}") from None
        if matched is None:
            return None
        invocation = _Invocation(hook, *matched)
        conditions = hook.webhook.get("matchConditions") or []
        if conditions and not self._conditions_hold(hook, conditions, invocation, review, request, views):
            return None
        return invocation

    def _conditions_hold(
        self, hook: Hook, conditions: list[Any], invocation: _Invocation, review: Review,
        request: matching.Request, views: _Views,
    ) -> bool:  # fmt: skip
        """Whether the match conditions hold; an error under failurePolicy Fail is a 403."""
        from kgen.serve.policies import expressions
        from kgen.serve.policies.evaluation import CompiledPolicy

        compiled = CompiledPolicy(
            {"metadata": {"name": hook.name}, "spec": {"failurePolicy": hook.webhook.get("failurePolicy") or "Fail",
                                                       "matchConditions": conditions}}
        )  # fmt: skip
        new, old = views.objects(invocation.kind.version)
        values = {
            expressions.OBJECT: new,
            expressions.OLD_OBJECT: old,
            expressions.REQUEST: self.api.admission.request_value(review, request, invocation.resource, invocation.kind),
            expressions.AUTHORIZER: expressions.authorizer(
                {"group": request.resource.group, "resource": request.resource.resource,
                 "subresource": request.subresource, "namespace": request.namespace, "name": request.name}
            ),
        }  # fmt: skip
        holds, problem = compiled.conditions_hold(values)
        if problem is not None:
            group, resource = request.resource.group, request.resource.resource
            qualified = f"{resource}.{group}" if group else resource
            raise APIError(
                403, "Forbidden", f'{qualified} "{request.name}" is forbidden: {problem}',
                details={"name": request.name, "group": group, "kind": resource},
            )  # fmt: skip
        return holds

    # -- the call ----------------------------------------------------------------------------

    def _review(
        self, invocation: _Invocation, review: Review, request: matching.Request, views: _Views
    ) -> dict[str, Any]:
        """Send the AdmissionReview and return its verified response."""
        hook = invocation.hook
        webhook = hook.webhook
        if review.dry_run and webhook.get("sideEffects") not in ("None", "NoneOnDryRun"):
            raise APIError(400, "BadRequest", f'admission webhook "{hook.name}" does not support dry run')
        offered = list(webhook.get("admissionReviewVersions") or [])
        version = next((v for v in offered if v in _REVIEW_VERSIONS), None)
        if version is None:
            raise _CallFailed(
                hook, "could not create admission objects: webhook does not accept known AdmissionReview versions"
            )
        new, old = views.objects(invocation.kind.version)
        body = self.api.admission.request_value(review, request, invocation.resource, invocation.kind)
        uid = str(uuid.uuid4())
        body.update(uid=uid, object=new, oldObject=old)
        sent = {"apiVersion": f"admission.k8s.io/{version}", "kind": "AdmissionReview", "request": body}
        timeout = float(webhook.get("timeoutSeconds") or 10)
        try:
            answer = self.api.webhooks.post(webhook.get("clientConfig") or {}, sent, timeout)
        except WebhookError as error:
            raise _CallFailed(hook, f"failed to call webhook: {error}") from None
        try:
            response = _verified(answer, uid, version, hook.mutating)
        except ValueError as error:
            raise _CallFailed(hook, f"received invalid webhook response: {error}") from None
        for warning in response.get("warnings") or []:
            if isinstance(warning, str) and warning not in review.warnings:
                review.warnings.append(warning)
        if not response.get("allowed"):
            raise _refusal(hook, response.get("status"))
        return response

    # -- mutating -----------------------------------------------------------------------------

    def mutate(
        self, review: Review, operation: str, decoded: Any, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> Any:
        """The request's object after the mutating webhooks (`decoded`, the flow's object, when
        none changed it; else the patched object decoded again). `obj` and `old` are the new
        and stored objects in the request's version (None for a delete, and for a create)."""
        hooks = self.hooks(mutating=True)
        if not hooks:
            return decoded
        chain = _Chain(decoded, obj)
        self._round(hooks, review, operation, old, chain, reinvoking=None)
        if chain.reinvoke:
            self._round(hooks, review, operation, old, chain, reinvoking=set(chain.reinvoke))
        return chain.decoded

    def _round(
        self, hooks: list[Hook], review: Review, operation: str, old: dict[str, Any] | None, chain: _Chain,
        reinvoking: set[str] | None,
    ) -> None:  # fmt: skip
        """One pass over the mutating webhooks (the second only calls those to reinvoke)."""
        for hook in hooks:
            if reinvoking is not None and hook.uid not in reinvoking:
                continue
            request = self._request(review, operation, chain.obj, old)
            views = _Views(self, review, chain.obj, old)
            invocation = self._invocation(hook, review, request, views)
            if invocation is None:
                continue
            try:
                response = self._review(invocation, review, request, views)
            except _CallFailed as failed:
                if hook.ignores_failures:
                    continue
                raise _internal(str(failed)) from None
            changed = self._apply(invocation, review, response, views, chain)
            if changed:
                chain.reinvoke |= chain.invoked
            if hook.webhook.get("reinvocationPolicy") == "IfNeeded":
                chain.invoked.add(hook.uid)

    def _apply(
        self, invocation: _Invocation, review: Review, response: dict[str, Any], views: _Views, chain: _Chain
    ) -> bool:
        """Apply a mutating webhook's JSON patch; whether the object changed."""
        from kgen.runtime.patch.jsonpatch import apply_json_patch

        hook = invocation.hook
        raw = response.get("patch")
        if not raw:
            return False
        try:
            patch = json.loads(base64.b64decode(raw))
        except (ValueError, TypeError) as error:
            if hook.ignores_failures:
                return False
            raise _internal(
                f'failed calling webhook "{hook.name}": received undecodable patch in webhook response: {error}'
            ) from None
        if not patch:
            return False
        target, _ = views.objects(invocation.kind.version)
        if target is None:
            raise _internal(
                f'admission webhook "{hook.name}" attempted to modify the object, which is not supported for this operation'
            )
        try:
            patched = apply_json_patch(target, patch)
        except APIError as error:
            raise _internal(error.message) from None
        version = invocation.kind.version
        endpoint = self.api.endpoints.get(
            (review.endpoint.group, version, review.endpoint.resource.plural), review.endpoint
        )
        try:
            redecoded = endpoint.flow.decode_dict(patched, version, FieldValidation.IGNORE)
        except APIError as error:
            raise _internal(error.message) from None
        patched_dict = _as_dict(redecoded.object)
        if patched_dict == target:
            return False
        if version != review.endpoint.version.version:  # back into the request's version
            patched_dict = views.convert(patched_dict, version, review.endpoint.version.version)
            redecoded = review.endpoint.flow.decode_dict(
                json_copy(patched_dict), review.endpoint.version.version, FieldValidation.IGNORE
            )
            patched_dict = _as_dict(redecoded.object)
        chain.decoded, chain.obj = redecoded.object, patched_dict
        return True

    # -- validating --------------------------------------------------------------------------

    def validate(
        self, review: Review, operation: str, stored: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> None:
        """Call every validating webhook that applies (the objects as they are stored); raises
        the first refusal or failure."""
        hooks = self.hooks(mutating=False)
        if not hooks:
            return
        version = review.endpoint.version.version
        new_view, old_view = review.versioned(stored, version), review.versioned(old, version)
        request = self._request(review, operation, new_view, old_view)
        views = _Views(self, review, new_view, old_view, stored=(stored, old))
        invocations = [i for hook in hooks if (i := self._invocation(hook, review, request, views)) is not None]
        if not invocations:
            return
        for invocation in invocations:  # every version a webhook needs, before the calls
            views.objects(invocation.kind.version)

        def call(invocation: _Invocation) -> APIError | None:
            try:
                self._review(invocation, review, request, views)
            except _CallFailed as failed:
                return None if invocation.hook.ignores_failures else _internal(str(failed))
            except APIError as error:
                return error
            return None

        if len(invocations) == 1:
            outcomes = [call(invocations[0])]
        else:
            with ThreadPoolExecutor(max_workers=min(len(invocations), 16)) as pool:
                outcomes = list(pool.map(call, invocations))
        refused = next((outcome for outcome in outcomes if outcome is not None), None)
        if refused is not None:
            raise refused


@dataclass
class _Chain:
    """The object as the mutating webhooks have left it so far, and who to reinvoke."""

    decoded: Any
    obj: dict[str, Any] | None
    invoked: set[str] = field(default_factory=set)
    """Webhooks with reinvocationPolicy IfNeeded called so far."""
    reinvoke: set[str] = field(default_factory=set)
    """Those called before a later webhook changed the object."""


class _Views:
    """A request's new and old objects in every version a webhook asks for."""

    def __init__(
        self, admission: WebhookAdmission, review: Review, obj: dict[str, Any] | None, old: dict[str, Any] | None,
        stored: tuple[dict[str, Any] | None, dict[str, Any] | None] | None = None,
    ):  # fmt: skip
        self.review = review
        self.version = review.endpoint.version.version
        self.stored = stored
        self._by_version = {self.version: (obj, old)}

    def objects(self, version: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        if version not in self._by_version:
            obj, old = self._by_version[self.version]
            if self.stored is not None:
                self._by_version[version] = (
                    self.review.versioned(self.stored[0], version), self.review.versioned(self.stored[1], version)
                )  # fmt: skip
            else:
                self._by_version[version] = (
                    self.convert(obj, self.version, version) if obj is not None else None,
                    self.convert(old, self.version, version) if old is not None else None,
                )
        return self._by_version[version]

    def convert(self, obj: dict[str, Any], source: str, target: str) -> dict[str, Any]:
        """An object of the request (not yet stored) in another version of its resource."""
        flow = self.review.endpoint.flow
        convert = getattr(flow, "_convert", None)
        if convert is not None:  # a custom resource: the CRD's conversion
            converted: dict[str, Any] = convert(json_copy(obj), source, target)
            return converted
        stored = flow.to_storage(json_copy(obj), None)
        return self.review.versioned(stored, target) or {}


def _as_dict(obj: Any) -> dict[str, Any]:
    return obj if isinstance(obj, dict) else obj.to_dict()


def _internal(message: str) -> APIError:
    return APIError(500, "InternalError", f"Internal error occurred: {message}", [StatusCause("", message)])


def _verified(answer: Mapping[str, Any], uid: str, version: str, mutating: bool) -> dict[str, Any]:
    """The response of an AdmissionReview answer, checked as VerifyAdmissionResponse checks it."""
    response = answer.get("response")
    if not isinstance(response, dict):
        raise ValueError("webhook response was absent")
    if version == "v1":
        if response.get("uid") != uid:
            raise ValueError(f'expected response.uid="{uid}", got "{response.get("uid", "")}"')
        got = f"{answer.get('apiVersion', '')}, Kind={answer.get('kind', '')}"
        if got != "admission.k8s.io/v1, Kind=AdmissionReview":
            raise ValueError(f"expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {got}")
        patch, patch_type = response.get("patch"), response.get("patchType")
        if mutating:
            if patch and patch_type is None:
                raise ValueError("webhook returned response.patch but not response.patchType")
            if not patch and patch_type is not None:
                raise ValueError("webhook returned response.patchType but not response.patch")
            if patch_type is not None and patch_type != "JSONPatch":
                raise ValueError(f'webhook returned invalid response.patchType of "{patch_type}"')
        else:
            if patch:
                raise ValueError("validating webhook may not return response.patch")
            if patch_type is not None:
                raise ValueError("validating webhook may not return response.patchType")
    elif not mutating:
        response = {**response, "patch": None}
    return response


def _refusal(hook: Hook, status: Any) -> APIError:
    """ToStatusErr: the webhook's Status, at least 400, worded as the webhook's refusal."""
    result = status if isinstance(status, dict) else {}
    code = result.get("code") or 0
    code = code if isinstance(code, int) and code >= 400 else 400
    denied = f'admission webhook "{hook.name}" denied the request'
    if result.get("message"):
        message = f"{denied}: {result['message']}"
    elif result.get("reason"):
        message = f"{denied}: {result['reason']}"
    else:
        message = f"{denied} without explanation"
    details = result.get("details") if isinstance(result.get("details"), dict) else {}
    causes = [
        StatusCause(c.get("reason", ""), c.get("message", ""), c.get("field", ""))
        for c in details.get("causes") or [] if isinstance(c, dict)
    ]  # fmt: skip
    kept = {k: v for k, v in details.items() if k in ("name", "group", "kind", "uid", "retryAfterSeconds")}
    return APIError(code, str(result.get("reason") or ""), message, causes, kept)
