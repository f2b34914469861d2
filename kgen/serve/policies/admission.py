"""The ValidatingAdmissionPolicy admission stage of every write.

The store engine calls it where kube-apiserver's generic registry calls its
createValidation, updateValidation and deleteValidation: inside the write, after the
strategy validated the final object, dry runs included (`AdmittingStrategy` wraps a request's
strategy). `Admission.review` is the dispatcher of k8s.io/apiserver's policy/validating
(dispatcher.go) with the policy source of policy/generic:

- every binding whose policy exists, with its policy's current compiled form (a policy or
  binding written a moment ago applies to the next request; a deleted one no longer does;
  the admissionregistration resources themselves are never subject to these policies);
- a policy applies when its matchConstraints match, a binding when its matchResources
  (further) do; params are collected by the binding's paramRef (by name or selector, in the
  request's namespace unless it names one; none found: allowed, or denied with
  `parameterNotFoundAction: Deny`); configuration problems follow the failure policy;
- the objects are those of the request's version, or of the version an Equivalent match
  was made through; `request` has the request's attributes (userInfo, dryRun, options);
- a denial: the first denied decision answers, `<resource> "<name>" is forbidden:
  ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request: <message>`,
  with the validation's reason (Invalid, 422, by default) and the message as the cause;
  a Warn action adds `Validation failed for ValidatingAdmissionPolicy '<policy>' with
  binding '<binding>': <message>` to the response's warnings; Audit changes nothing the
  client sees (kgen serve keeps no audit log).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgen.runtime.errors import APIError, StatusCause
from kgen.runtime.store import Strategy
from kgen.runtime.store.resource import decode_object, json_copy
from kgen.serve.policies import expressions, matching
from kgen.serve.policies.evaluation import CompiledPolicy, Decision
from kgen.serve.policies.matching import GroupVersionKind, GroupVersionResource
from kgen.serve.policies.resources import BINDINGS, POLICIES
from kgen.serve.policies.types import GROUP

if TYPE_CHECKING:
    from kgen.serve.api import Endpoint, ServedAPI

_EXEMPT = frozenset({
    (GROUP, "validatingadmissionpolicies"), (GROUP, "validatingadmissionpolicybindings"),
    (GROUP, "mutatingadmissionpolicies"), (GROUP, "mutatingadmissionpolicybindings"),
})  # fmt: skip
"""Resources API-based policies never apply to (their own configuration: no circles)."""

_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}

ANONYMOUS = {"username": "system:anonymous", "groups": ["system:unauthenticated"]}
"""Who a request without credentials is (a server without authentication)."""


@dataclass
class Review:
    """One request as the admission stage sees it (what the handler knows of it)."""

    api: ServedAPI
    endpoint: Endpoint
    subresource: str
    name: str
    """The name on the URL ("" for a create, and for each object of a collection delete)."""
    namespace: str
    user: Mapping[str, Any]
    dry_run: bool
    options: Callable[[str], dict[str, Any]]
    """The request's options object for an operation (CreateOptions, UpdateOptions, DeleteOptions)."""
    warnings: list[str]
    view: Callable[[dict[str, Any], str], dict[str, Any]] | None = None
    """The object as the request reads and writes it, from the stored object and a version
    (a /scale request's Scale); None: the object itself in that version."""
    kind: GroupVersionKind | None = None
    """The kind the request reads and writes when not the endpoint's (a Scale)."""
    collection: bool = False

    # -- attributes ----------------------------------------------------------------------

    @property
    def resource(self) -> GroupVersionResource:
        return GroupVersionResource(self.endpoint.group, self.endpoint.version.version, self.endpoint.resource.plural)

    def request_kind(self) -> GroupVersionKind:
        if self.kind is not None:
            return self.kind
        return GroupVersionKind(self.endpoint.group, self.endpoint.version.version, self.endpoint.kind)

    def versioned(self, stored: dict[str, Any] | None, version: str) -> dict[str, Any] | None:
        """A stored object as the request sees it in `version`."""
        if stored is None:
            return None
        endpoint = self.api.endpoints.get((self.endpoint.group, version, self.endpoint.resource.plural), self.endpoint)
        obj = endpoint.flow.from_storage(stored, version)
        if obj is stored:
            obj = json_copy(stored)
        if self.view is not None:
            return self.view(obj, version)
        versioned: dict[str, Any] = obj
        return versioned

    def equivalents(self) -> list[tuple[GroupVersionResource, GroupVersionKind]]:
        """The resource in every version that serves it (and the subresource), preferred first."""
        from kgen.runtime.scheme import version_priority

        found = []
        for (group, version, plural), endpoint in self.api.endpoints.items():
            if group != self.endpoint.group or plural != self.endpoint.resource.plural:
                continue
            if self.subresource and self.subresource not in endpoint.subresources():
                continue
            kind = self.kind if self.kind is not None else GroupVersionKind(group, version, endpoint.kind)
            found.append((GroupVersionResource(group, version, plural), kind))
        found.sort(key=lambda pair: version_priority(pair[0].version))
        return found


class AdmittingStrategy(Strategy):
    """A request's strategy, with the admission stage after its validation."""

    def __init__(self, inner: Strategy, review: Review):
        self.inner = inner
        self.review = review

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """The request's strategy's."""
        self.inner.prepare_for_create(obj)

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """The request's strategy's."""
        self.inner.prepare_for_update(obj, old)

    def prepare_for_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """The request's strategy's."""
        self.inner.prepare_for_status_update(obj, old)

    def prepare_for_delete(self, obj: dict[str, Any]) -> None:
        """The request's strategy's."""
        self.inner.prepare_for_delete(obj)

    def _admit(self, operation: str, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """The validating admission plugins, in kube-apiserver's order: policies, then webhooks."""
        api = self.review.api
        api.admission.review(self.review, operation, obj, old)
        api.webhook_admission.validate(self.review, operation, obj, old)

    def validate_create(self, obj: dict[str, Any]) -> None:
        """The strategy's validation, then admission of a CREATE."""
        self.inner.validate_create(obj)
        self._admit("CREATE", obj, None)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """The strategy's validation, then admission of an UPDATE."""
        self.inner.validate_update(obj, old)
        self._admit("UPDATE", obj, old)

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """The strategy's validation of a /status update, then admission of the UPDATE."""
        self.inner.validate_status_update(obj, old)
        self._admit("UPDATE", obj, old)

    def validate_delete(self, obj: dict[str, Any]) -> None:
        """The strategy's check, then admission of a DELETE (the stored object as oldObject)."""
        self.inner.validate_delete(obj)
        self._admit("DELETE", None, obj)


@dataclass
class _Hook:
    policy: CompiledPolicy
    bindings: list[dict[str, Any]]
    problem: str | None = None
    """A configuration error of the policy (a paramKind nothing serves)."""
    params: Endpoint | None = None


@dataclass
class _Denied:
    policy: str
    binding: str | None
    decision: Decision


@dataclass
class _Pending:
    """One write under review: its objects by version, what the expressions see of it
    (worked out once for every policy), and the denials found so far."""

    review: Review
    request: matching.Request
    obj: dict[str, Any] | None
    old: dict[str, Any] | None
    versioned: dict[str, tuple[dict[str, Any] | None, dict[str, Any] | None]]
    denied: list[_Denied] = field(default_factory=list)
    namespace_object: Callable[[], dict[str, Any] | None] = lambda: None
    authorizer: dict[str, Any] = field(default_factory=dict)
    _requests: dict[tuple[GroupVersionResource, GroupVersionKind], dict[str, Any]] = field(default_factory=dict)

    def objects(self, version: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The new and old objects in `version` (VersionedAttributes)."""
        if version not in self.versioned:
            self.versioned[version] = (
                self.review.versioned(self.obj, version),
                self.review.versioned(self.old, version),
            )
        return self.versioned[version]

    def request_value(self, resource: GroupVersionResource, kind: GroupVersionKind) -> dict[str, Any]:
        """`request` as a policy matched through `resource` and `kind` sees it."""
        if (resource, kind) not in self._requests:
            self._requests[(resource, kind)] = Admission.request_value(self.review, self.request, resource, kind)
        return self._requests[(resource, kind)]


@dataclass
class _Compiled:
    cache: dict[tuple[str, str], CompiledPolicy] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Admission:
    """The ValidatingAdmissionPolicy plugin of one served API."""

    def __init__(self, api: ServedAPI):
        self.api = api
        self._compiled = _Compiled()
        self._last: dict[str, tuple[tuple[str, int], ...]] = {}
        self._hooks: tuple[Any, list[_Hook]] | None = None

    # -- the policy source --------------------------------------------------------------

    def _store(self, resource: Any) -> Any:
        return self.api.endpoints[(resource.group, resource.storage_version, resource.plural)].store

    def _compile(self, policy: dict[str, Any]) -> CompiledPolicy:
        metadata = policy.get("metadata") or {}
        key = (metadata.get("uid", ""), metadata.get("resourceVersion", ""))
        with self._compiled.lock:
            found = self._compiled.cache.get(key)
        if found is None:
            found = CompiledPolicy(policy)
            with self._compiled.lock:
                if len(self._compiled.cache) > 4096:
                    self._compiled.cache.clear()
                self._compiled.cache[key] = found
        return found

    def _read(self, resource: Any) -> tuple[tuple[tuple[str, int], ...], list[dict[str, Any]] | None]:
        """The stored objects of a resource as (key, revision) pairs, and the objects when
        they differ from what was read last (None when they do not)."""
        store = self._store(resource)
        kvs = self.api.engine.backend.range(store.prefix).kvs
        versions = tuple((kv.key, kv.mod_revision) for kv in kvs)
        if versions == self._last.get(resource.plural):
            return versions, None
        return versions, [decode_object(kv.value, kv.mod_revision) for kv in kvs]

    def hooks(self) -> list[_Hook]:
        """Every policy that has bindings, with them (calculatePolicyData): read from the
        store on every request (what was written a moment ago applies), worked out again only
        when a policy, a binding or the served kinds changed."""
        binding_versions, bindings = self._read(BINDINGS)
        if not binding_versions:
            return []
        policy_versions, policies = self._read(POLICIES)
        with self._compiled.lock:
            cached = self._hooks
            if bindings is None and policies is None and cached is not None and cached[0] is self.api.endpoints:
                return cached[1]
        if bindings is None or policies is None:  # one of them changed: read both again
            self._last.clear()
            binding_versions, bindings = self._read(BINDINGS)
            policy_versions, policies = self._read(POLICIES)
        assert bindings is not None and policies is not None
        hooks = self._hooks_of(bindings, policies)
        with self._compiled.lock:
            self._last = {BINDINGS.plural: binding_versions, POLICIES.plural: policy_versions}
            self._hooks = (self.api.endpoints, hooks)
        return hooks

    def _hooks_of(self, bindings: list[dict[str, Any]], stored: list[dict[str, Any]]) -> list[_Hook]:
        by_policy: dict[str, list[dict[str, Any]]] = {}
        for binding in sorted(bindings, key=lambda b: b["metadata"]["name"]):
            by_policy.setdefault((binding.get("spec") or {}).get("policyName", ""), []).append(binding)
        policies = {p["metadata"]["name"]: p for p in stored}
        hooks = []
        for name in sorted(by_policy):
            policy = policies.get(name)
            if policy is None:
                continue  # a binding of a policy that does not exist (yet, or any more) does nothing
            hook = _Hook(self._compile(policy), by_policy[name])
            kind = (policy.get("spec") or {}).get("paramKind")
            if kind is not None:
                hook.params = self._param_endpoint(kind)
                if hook.params is None:
                    group, _, version = (kind.get("apiVersion") or "").rpartition("/")
                    hook.problem = f"failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind.get('kind', '')}'"
            hooks.append(hook)
        return hooks

    def _param_endpoint(self, kind: Mapping[str, Any]) -> Endpoint | None:
        group, _, version = (kind.get("apiVersion") or "").rpartition("/")
        for (g, v, _), endpoint in self.api.endpoints.items():
            if g == group and v == version and endpoint.kind == kind.get("kind"):
                return endpoint
        return None

    # -- the dispatcher ------------------------------------------------------------------

    def review(self, review: Review, operation: str, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Admit or deny one write (stored objects: `obj` to be written, `old` as stored);
        raises the denial's APIError."""
        if (review.endpoint.group, review.endpoint.resource.plural) in _EXEMPT:
            return
        hooks = self.hooks()
        if not hooks:
            return
        version = review.endpoint.version.version
        new_view, old_view = review.versioned(obj, version), review.versioned(old, version)
        request = matching.Request(
            operation=operation,
            resource=review.resource,
            subresource=review.subresource,
            kind=review.request_kind(),
            name=self._name(review, obj),
            namespace=self._namespace(review),
            object=new_view,
            old_object=old_view,
            equivalents=functools.cache(review.equivalents),
            namespace_labels=self._namespace_labels,
        )
        pending = _Pending(review, request, obj, old, {version: (new_view, old_view)})
        pending.namespace_object = functools.cache(lambda: self._namespace_object(request))
        pending.authorizer = expressions.authorizer(
            {"group": request.resource.group, "resource": request.resource.resource,
             "subresource": request.subresource, "namespace": request.namespace, "name": request.name}
        )  # fmt: skip
        for hook in hooks:
            self._dispatch(hook, pending)
        if pending.denied:
            raise self._denial(request, pending.denied[0])

    def _dispatch(self, hook: _Hook, pending: _Pending) -> None:
        """One policy's decisions on a request, into `pending` (its denials and warnings)."""
        review, request, denied = pending.review, pending.request, pending.denied
        policy = hook.policy

        def configuration_error(message: str, binding: Mapping[str, Any] | None) -> None:
            if policy.failure_policy == "Ignore":
                return
            prefix = "failed to configure binding" if binding is not None else "failed to configure policy"
            name = binding["metadata"]["name"] if binding is not None else None
            denied.append(_Denied(policy.name, name, Decision(deny=True, message=f"{prefix}: {message}", error=True)))

        constraints = policy.spec.get("matchConstraints")
        if constraints is None:
            configuration_error("policy contained no match constraints, a required field", None)
            return
        try:
            matched = matching.matches(constraints, request)
        except matching.ConfigurationError as error:
            configuration_error(error.message, None)
            return
        if matched is None:
            return
        if hook.problem is not None:
            configuration_error(hook.problem, None)
            return
        resource, kind = matched
        for binding in hook.bindings:
            spec = binding.get("spec") or {}
            try:
                if spec.get("matchResources") is not None and matching.matches(spec["matchResources"], request) is None:
                    continue
            except matching.ConfigurationError as error:
                configuration_error(error.message, binding)
                continue
            try:
                params = self._params(hook, spec.get("paramRef"), request.namespace)
            except matching.ConfigurationError as error:
                configuration_error(error.message, binding)
                continue
            if not params:
                continue
            new_view, old_view = pending.objects(kind.version)
            values = {
                expressions.OBJECT: new_view,
                expressions.OLD_OBJECT: old_view,
                expressions.REQUEST: pending.request_value(resource, kind),
                expressions.NAMESPACE: pending.namespace_object(),
                expressions.AUTHORIZER: pending.authorizer,
            }
            actions = spec.get("validationActions") or []
            binding_name = binding["metadata"]["name"]
            for param in params:
                outcome = policy.validate({**values, expressions.PARAMS: param})
                for decision in outcome.decisions:
                    if not decision.deny:
                        continue
                    if "Deny" in actions:
                        denied.append(_Denied(policy.name, binding_name, decision))
                    if "Warn" in actions:
                        warning = (
                            f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' with binding "
                            f"'{binding_name}': {decision.message}"
                        )
                        if warning not in review.warnings:  # a retried write warns once, as the recorder dedups
                            review.warnings.append(warning)
                for annotation in outcome.annotations:
                    if annotation.action == "error":
                        denied.append(_Denied(policy.name, binding_name, Decision(True, annotation.error, error=True)))

    # -- params, namespaces, the request -------------------------------------------------

    def _params(self, hook: _Hook, reference: Mapping[str, Any] | None, namespace: str) -> list[Any]:
        """The params of a binding (CollectParams): [None] when the policy or binding has none."""
        if hook.params is None or reference is None:
            return [None]
        endpoint = hook.params
        kind = hook.policy.spec.get("paramKind") or {}
        scope = ""
        if endpoint.namespaced:
            scope = reference.get("namespace") or namespace
            if not scope:
                raise matching.ConfigurationError(
                    "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
                )
        elif reference.get("namespace"):
            raise matching.ConfigurationError(
                "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
            )
        found: list[dict[str, Any]]
        if reference.get("name"):
            try:
                found = [endpoint.store.get(reference["name"], scope)]
            except APIError as error:
                if error.code != 404:
                    raise
                found = []
        else:
            chosen = matching.selector(reference.get("selector") or {})
            assert chosen is not None
            found = [
                item for item in endpoint.store.list(scope)["items"]
                if chosen.matches((item.get("metadata") or {}).get("labels"))
            ]  # fmt: skip
        if not found and reference.get("parameterNotFoundAction") == "Deny":
            raise matching.ConfigurationError("no params found for policy binding with `Deny` parameterNotFoundAction")
        params = []
        for stored in found:
            param = endpoint.flow.from_storage(stored, endpoint.version.version)
            param = json_copy(param)
            param["apiVersion"], param["kind"] = kind.get("apiVersion", ""), kind.get("kind", "")
            params.append(param)
        return params

    def _namespaces(self) -> Any:
        return self.api.endpoint("", "v1", "namespaces").store

    def _namespace_labels(self, name: str) -> Mapping[str, str] | None:
        try:
            namespace = self._namespaces().get(name)
        except APIError as error:
            if error.code == 404:
                raise matching.namespace_not_found(name) from None
            raise
        labels: Mapping[str, str] | None = (namespace.get("metadata") or {}).get("labels")
        return labels

    def _namespace_object(self, request: matching.Request) -> dict[str, Any] | None:
        """The `namespaceObject` (CreateNamespaceObject): null for cluster-scoped objects and
        namespaces themselves; the namespace's 404 fails the request."""
        if not request.namespace or request.kind == GroupVersionKind("", "v1", "Namespace"):
            return None
        try:
            namespace = self._namespaces().get(request.namespace)
        except APIError as error:
            if error.code == 404:
                raise matching.namespace_not_found(request.namespace) from None
            raise
        metadata = namespace.get("metadata") or {}
        kept = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers")  # fmt: skip
        value: dict[str, Any] = {
            "metadata": {k: json_copy(metadata[k]) for k in kept if metadata.get(k) not in (None, "", 0, [], {})}
        }
        value["metadata"].setdefault("creationTimestamp", None)
        value["spec"] = json_copy(namespace.get("spec") or {})
        value["status"] = json_copy(namespace.get("status") or {})
        return value

    def name_of(self, review: Review, obj: dict[str, Any] | None) -> str:
        """The name admission sees (the URL's, else the object's; none in a collection delete)."""
        return self._name(review, obj)

    def namespace_of(self, review: Review) -> str:
        """The namespace admission sees (a namespace's own name for /namespaces/<name>)."""
        return self._namespace(review)

    def namespace_labels(self, name: str) -> Mapping[str, str] | None:
        """The labels of a namespace; the 404 when it does not exist."""
        return self._namespace_labels(name)

    @staticmethod
    def _name(review: Review, obj: dict[str, Any] | None) -> str:
        if review.collection:
            return ""
        if review.name:
            return review.name
        metadata = (obj or {}).get("metadata") or {}
        return metadata.get("name") or ""

    @staticmethod
    def _namespace(review: Review) -> str:
        if review.endpoint.namespaced:
            return review.namespace
        if review.endpoint.group == "" and review.endpoint.resource.plural == "namespaces" and review.name:
            return review.name  # a request of /namespaces/<name> is in that namespace
        return ""

    @staticmethod
    def request_value(
        review: Review, request: matching.Request, resource: GroupVersionResource, kind: GroupVersionKind
    ) -> dict[str, Any]:
        """`request` (CreateAdmissionRequest), as JSON of an AdmissionRequest."""
        value: dict[str, Any] = {"uid": "", "kind": kind.as_dict(), "resource": resource.as_dict()}
        if request.subresource:
            value["subResource"] = request.subresource
        value["requestKind"] = request.kind.as_dict()
        value["requestResource"] = request.resource.as_dict()
        if request.subresource:
            value["requestSubResource"] = request.subresource
        if request.name:
            value["name"] = request.name
        if request.namespace:
            value["namespace"] = request.namespace
        value["operation"] = request.operation
        value["userInfo"] = json_copy(dict(review.user))
        value["object"] = None
        value["oldObject"] = None
        value["dryRun"] = review.dry_run
        value["options"] = review.options(request.operation)
        return value

    # -- the answer -----------------------------------------------------------------------

    @staticmethod
    def _denial(request: matching.Request, denied: _Denied) -> APIError:
        """admission.NewForbidden with the decision's reason, code and message as a cause."""
        if denied.binding is not None:
            message = (
                f"ValidatingAdmissionPolicy '{denied.policy}' with binding '{denied.binding}' denied request: "
                f"{denied.decision.message}"
            )
        else:
            message = f"ValidatingAdmissionPolicy '{denied.policy}' denied request: {denied.decision.message}"
        name = request.name
        if not name and request.object is not None:
            metadata = request.object.get("metadata") or {}
            name = metadata.get("name") or metadata.get("generateName") or ""
        if not name:
            name = "Unknown"
        group, resource = request.resource.group, request.resource.resource
        qualified = f"{resource}.{group}" if group else resource
        reason = denied.decision.reason or "Invalid"
        error = APIError(
            _CODES.get(reason, 422),
            reason,
            f'{qualified} "{name}" is forbidden: {message}',
            [StatusCause("", message)],
            {"name": name, "group": group, "kind": resource},
        )
        return error


def user_of(scope: Mapping[str, Any]) -> Mapping[str, Any]:
    """Who made a request: the user the server's authentication recognised, else anonymous."""
    user: Mapping[str, Any] | None = scope.get("kgen.user")
    return user if user is not None else ANONYMOUS


def options_of(
    query: Mapping[str, Any], dry_run: Sequence[str], delete: Mapping[str, Any] | None = None
) -> Callable[[str], dict[str, Any]]:
    """The request's options object by operation: CreateOptions, UpdateOptions (patches'
    options as the API server converts them) or DeleteOptions."""

    def options(operation: str) -> dict[str, Any]:
        if operation == "DELETE":
            value: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
            value.update(delete or {})
            return value
        kind = "CreateOptions" if operation == "CREATE" else "UpdateOptions"
        value = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
        if dry_run:
            value["dryRun"] = list(dry_run)
        for name in ("fieldManager", "fieldValidation"):
            if query.get(name):
                value[name] = query[name]
        return value

    return options


def delete_options(options: Any, query: Mapping[str, Any]) -> dict[str, Any]:
    """A delete's options (`kgen.serve.params.DeleteOptions`) as the DeleteOptions JSON the
    admission request carries."""
    value: dict[str, Any] = {}
    grace = query.get("gracePeriodSeconds")
    if grace not in (None, ""):
        value["gracePeriodSeconds"] = int(grace)
    if options.preconditions is not None:
        value["preconditions"] = {
            k: v for k, v in (("uid", options.preconditions.uid), ("resourceVersion", options.preconditions.resource_version))
            if v is not None
        }  # fmt: skip
    if options.orphan_dependents is not None:
        value["orphanDependents"] = options.orphan_dependents
    if options.propagation_policy:
        value["propagationPolicy"] = options.propagation_policy
    if options.dry_run:
        value["dryRun"] = ["All"]
    return value
