"""MutatingWebhookConfigurations and ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1).

What a cluster is told about admission webhooks: for each webhook, where it listens
(`clientConfig`), which requests it sees (`rules`, selectors, `matchPolicy`,
`matchConditions`), and what a failure means (`failurePolicy`, `timeoutSeconds`,
`sideEffects`, `admissionReviewVersions`; `reinvocationPolicy` for mutating ones).

Both kinds are cluster-scoped, served as JSON and YAML, with kube-apiserver's semantics:
- the v1 defaults (pkg/apis/admissionregistration/v1/defaults.go): failurePolicy Fail,
  matchPolicy Equivalent, empty selectors, timeoutSeconds 10, a rule's scope `*`, a
  service's port 443, reinvocationPolicy Never;
- the strategy (pkg/registry/admissionregistration/{mutating,validating}webhookconfiguration):
  generation 1, one more whenever the webhooks change;
- validation (pkg/apis/admissionregistration/validation: ValidateMutatingWebhookConfiguration
  and its update): fully qualified, unique webhook names, rules, failure, match and
  reinvocation policies, sideEffects None or NoneOnDryRun, timeouts of 1 to 30 seconds,
  label selectors, the clientConfig, the AdmissionReview versions and match conditions
  that compile. An update relaxes what the stored configuration already broke, as upstream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgen.runtime.gotypes import INT32, STRING, Bytes, Field, Pointer, Scalar, Slice, Struct
from kgen.runtime.validation.content import is_dns1035_label, is_fully_qualified_name
from kgen.runtime.validation.field import FieldError, Path, duplicate, invalid, not_supported, required
from kgen.serve.builtins import tables, types
from kgen.serve.builtins.types import LABEL_SELECTOR, _metadata, type_meta
from kgen.serve.policies.types import MATCH_CONDITION
from kgen.serve.builtins.flow import BuiltinKind
from kgen.serve.builtins.validation import object_meta, object_meta_update

GROUP = "admissionregistration.k8s.io"
_DEFINITION = "io.k8s.api.admissionregistration.v1."
_STRINGS = Slice("[]string", STRING)
_ATOMIC_LIST = {"x-kubernetes-list-type": "atomic"}
_BY_NAME = {
    "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
    "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name",
}  # fmt: skip

REVIEW_VERSIONS = ("v1", "v1beta1")
"""The AdmissionReview versions kgen serve sends."""
_FAILURE_POLICIES = ("Fail", "Ignore")
_MATCH_POLICIES = ("Equivalent", "Exact")
_SIDE_EFFECTS = ("None", "NoneOnDryRun")
_ALL_SIDE_EFFECTS = ("None", "NoneOnDryRun", "Some", "Unknown")
_REINVOCATION_POLICIES = ("IfNeeded", "Never")

# -- the Go types ----------------------------------------------------------------------------------

SERVICE_REFERENCE = Struct(
    "v1.ServiceReference",
    definition=_DEFINITION + "ServiceReference",
    description="A Service the webhook runs behind: https://<name>.<namespace>.svc:<port><path>.",
    fields=(
        Field("namespace", STRING, omitempty=False, proto=1, required=True, description="The Service's namespace."),
        Field("name", STRING, omitempty=False, proto=2, required=True, description="The Service's name."),
        Field("path", Pointer("*string", STRING), proto=3, description="The URL path requests are sent to."),
        Field("port", Pointer("*int32", INT32), proto=4, description="The Service's port (443 when not given)."),
    ),
)  # fmt: skip

WEBHOOK_CLIENT_CONFIG = Struct(
    "v1.WebhookClientConfig",
    definition=_DEFINITION + "WebhookClientConfig",
    description="How the API server reaches a webhook: a URL or a Service, and the CA its certificate is signed by.",
    fields=(
        Field("url", Pointer("*string", STRING), proto=3,
              description="https://host[:port][/path], for a webhook outside the cluster; or use service."),
        Field("service", Pointer("*v1.ServiceReference", SERVICE_REFERENCE), proto=1,
              description="The Service of a webhook inside the cluster; or use url."),
        Field("caBundle", Bytes(), proto=2,
              description="PEM certificates to verify the webhook's serving certificate with (else the system's)."),
    ),
)  # fmt: skip

RULE_WITH_OPERATIONS = Struct(
    "v1.RuleWithOperations",
    definition=_DEFINITION + "RuleWithOperations",
    description="Requests a webhook sees: operations on resources of API groups and versions.",
    fields=(
        Field("operations", Slice("[]v1.OperationType", Scalar("v1.OperationType")), proto=1,
              extensions=_ATOMIC_LIST, description="CREATE, UPDATE, DELETE, CONNECT, or * for all."),
        Field("apiGroups", _STRINGS, proto=1, extensions=_ATOMIC_LIST,
              description="API groups (\"\" is the core group; * is every group)."),
        Field("apiVersions", _STRINGS, proto=2, extensions=_ATOMIC_LIST, description="API versions (* is every version)."),
        Field("resources", _STRINGS, proto=3, extensions=_ATOMIC_LIST,
              description="Resources, and subresources as resource/subresource (* and */* as wildcards)."),
        Field("scope", Pointer("*v1.ScopeType", Scalar("v1.ScopeType")), proto=4,
              description="Cluster, Namespaced or * (the default)."),
    ),
)  # fmt: skip


def _webhook_fields(mutating: bool) -> tuple[Field, ...]:
    fields = [
        Field("name", STRING, omitempty=False, proto=1, required=True,
              description="The webhook's name, a fully qualified domain name (imagepolicy.example.com)."),
        Field("clientConfig", WEBHOOK_CLIENT_CONFIG, omitempty=False, proto=2, required=True,
              description="Where the webhook listens."),
        Field("rules", Slice("[]v1.RuleWithOperations", RULE_WITH_OPERATIONS), proto=3, extensions=_ATOMIC_LIST,
              description="The requests the webhook is called for (none: no request)."),
        Field("failurePolicy", Pointer("*v1.FailurePolicyType", Scalar("v1.FailurePolicyType")), proto=4,
              description="What a failed call means: Fail (the request fails, the default) or Ignore."),
        Field("matchPolicy", Pointer("*v1.MatchPolicyType", Scalar("v1.MatchPolicyType")), proto=9,
              description="Exact, or Equivalent (the default): also requests of the same resource in other versions."),
        Field("namespaceSelector", Pointer("*v1.LabelSelector", LABEL_SELECTOR), proto=5,
              description="Only requests in namespaces whose labels match."),
        Field("objectSelector", Pointer("*v1.LabelSelector", LABEL_SELECTOR), proto=11 if mutating else 10,
              description="Only requests whose object (new or old) has matching labels."),
        Field("sideEffects", Pointer("*v1.SideEffectClass", Scalar("v1.SideEffectClass")), proto=6,
              description="None or NoneOnDryRun: the webhook changes nothing else (dry runs may call it)."),
        Field("timeoutSeconds", Pointer("*int32", INT32), proto=7,
              description="How long a call may take, 1 to 30 seconds (10 when not given)."),
        Field("admissionReviewVersions", _STRINGS, omitempty=False, proto=8, required=True, extensions=_ATOMIC_LIST,
              description="The AdmissionReview versions the webhook reads, the preferred first."),
    ]  # fmt: skip
    if mutating:
        fields.append(
            Field("reinvocationPolicy", Pointer("*v1.ReinvocationPolicyType", Scalar("v1.ReinvocationPolicyType")),
                  proto=10, description="Never (the default), or IfNeeded: once more when a later mutation changed the object.")
        )  # fmt: skip
    fields.append(
        Field("matchConditions", Slice("[]v1.MatchCondition", MATCH_CONDITION), proto=12 if mutating else 11,
              extensions=_BY_NAME, description="Conditions that must all hold for the webhook to be called.")
    )  # fmt: skip
    return tuple(fields)


MUTATING_WEBHOOK = Struct(
    "v1.MutatingWebhook", definition=_DEFINITION + "MutatingWebhook", fields=_webhook_fields(True),
    description="One admission webhook that may change the objects it is sent.",
)  # fmt: skip
VALIDATING_WEBHOOK = Struct(
    "v1.ValidatingWebhook", definition=_DEFINITION + "ValidatingWebhook", fields=_webhook_fields(False),
    description="One admission webhook that admits or refuses the requests it is sent.",
)  # fmt: skip


def _configuration(kind: str, webhook: Struct, description: str) -> Struct:
    return Struct(
        f"v1.{kind}",
        definition=_DEFINITION + kind,
        description=description,
        fields=(
            *type_meta(),
            _metadata(),
            Field("webhooks", Slice(f"[]{webhook.name}", webhook), proto=2, extensions=_BY_NAME,
                  description="The webhooks, called in this order."),
        ),
    )  # fmt: skip


MUTATING_CONFIGURATION = _configuration(
    "MutatingWebhookConfiguration", MUTATING_WEBHOOK, "Admission webhooks that may change the objects of requests."
)
VALIDATING_CONFIGURATION = _configuration(
    "ValidatingWebhookConfiguration", VALIDATING_WEBHOOK, "Admission webhooks that admit or refuse requests."
)

# -- defaults -------------------------------------------------------------------------------------


def _default_webhook(webhook: dict[str, Any], mutating: bool) -> None:
    """SetDefaults_MutatingWebhook / SetDefaults_ValidatingWebhook, SetDefaults_Rule and
    SetDefaults_ServiceReference."""
    webhook.setdefault("failurePolicy", "Fail")
    webhook.setdefault("matchPolicy", "Equivalent")
    if webhook.get("namespaceSelector") is None:
        webhook["namespaceSelector"] = {}
    if webhook.get("objectSelector") is None:
        webhook["objectSelector"] = {}
    if webhook.get("timeoutSeconds") is None:
        webhook["timeoutSeconds"] = 10
    if mutating and webhook.get("reinvocationPolicy") is None:
        webhook["reinvocationPolicy"] = "Never"
    for rule in webhook.get("rules") or []:
        if rule.get("scope") is None:
            rule["scope"] = "*"
    service = (webhook.get("clientConfig") or {}).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443


def _defaulted(mutating: bool) -> Any:
    def internal(obj: dict[str, Any]) -> dict[str, Any]:
        for webhook in obj.get("webhooks") or []:
            _default_webhook(webhook, mutating)
        return obj

    return internal


def _generation(obj: dict[str, Any], old: dict[str, Any] | None, gates: Mapping[str, bool]) -> None:
    """PrepareForCreate: generation 1; PrepareForUpdate: one more when the webhooks change."""
    metadata = obj.setdefault("metadata", {})
    if old is None:
        metadata["generation"] = 1
        return
    generation = (old.get("metadata") or {}).get("generation") or 0
    metadata["generation"] = generation + 1 if obj.get("webhooks") != old.get("webhooks") else generation


# -- validation -----------------------------------------------------------------------------------


def _has_wildcard(items: Sequence[Any]) -> bool:
    return "*" in items


def _resources_errors(resources: Sequence[str], path: Path) -> list[FieldError]:
    """validateResources: subresources allowed, wildcards not beside what they cover."""
    errors = [] if resources else [required(path, "")]
    with_wildcard_sub: set[str] = set()
    sub_with_wildcard_resource: set[str] = set()
    double = single = plain = False
    for index, entry in enumerate(resources):
        if not entry:
            errors.append(required(path.index(index), ""))
            continue
        double = double or entry == "*/*"
        single = single or entry == "*"
        resource, slash, sub = entry.partition("/")
        if not slash:
            plain = entry != "*"
            continue
        if resource in with_wildcard_sub:
            errors.append(invalid(path.index(index), entry, f"if '{resource}/*' is present, must not specify {entry}"))
        if sub in sub_with_wildcard_resource:
            errors.append(invalid(path.index(index), entry, f"if '*/{sub}' is present, must not specify {entry}"))
        if sub == "*":
            with_wildcard_sub.add(resource)
        if resource == "*":
            sub_with_wildcard_resource.add(sub)
    if len(resources) > 1 and double:
        errors.append(invalid(path, list(resources), "if '*/*' is present, must not specify other resources"))
    if single and plain:
        errors.append(
            invalid(path, list(resources), "if '*' is present, must not specify other resources without subresources")
        )
    return errors


def _rule_errors(rule: Mapping[str, Any], path: Path) -> list[FieldError]:
    """validateRuleWithOperations and validateRule."""
    errors: list[FieldError] = []
    operations = rule.get("operations") or []
    if not operations:
        errors.append(required(path.child("operations"), ""))
    if len(operations) > 1 and _has_wildcard(operations):
        errors.append(
            invalid(path.child("operations"), operations, "if '*' is present, must not specify other operations")
        )
    for index, operation in enumerate(operations):
        if operation not in ("*", "CONNECT", "CREATE", "DELETE", "UPDATE"):
            errors.append(
                not_supported(
                    path.child("operations").index(index), operation, ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
                )
            )
    groups = rule.get("apiGroups") or []
    if not groups:
        errors.append(required(path.child("apiGroups"), ""))
    if len(groups) > 1 and _has_wildcard(groups):
        errors.append(invalid(path.child("apiGroups"), groups, "if '*' is present, must not specify other API groups"))
    versions = rule.get("apiVersions") or []
    if not versions:
        errors.append(required(path.child("apiVersions"), ""))
    if len(versions) > 1 and _has_wildcard(versions):
        errors.append(
            invalid(path.child("apiVersions"), versions, "if '*' is present, must not specify other API versions")
        )
    for index, version in enumerate(versions):
        if not version:
            errors.append(required(path.child("apiVersions").index(index), ""))
    errors += _resources_errors(rule.get("resources") or [], path.child("resources"))
    scope = rule.get("scope")
    if scope is not None and scope not in ("*", "Cluster", "Namespaced"):
        errors.append(not_supported(path.child("scope"), scope, ["*", "Cluster", "Namespaced"]))
    return errors


def _review_version_errors(versions: Sequence[str], require_known: bool, path: Path) -> list[FieldError]:
    """validateAdmissionReviewVersions."""
    if not versions:
        return [required(path, "must specify one of " + ", ".join(REVIEW_VERSIONS))]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, version in enumerate(versions):
        if version in seen:
            errors.append(invalid(path.index(index), version, "duplicate version"))
            continue
        seen.add(version)
        errors += [invalid(path.index(index), version, problem) for problem in is_dns1035_label(version)]
    if require_known and not any(v in REVIEW_VERSIONS for v in versions):
        errors.append(invalid(path, list(versions), "must include at least one of " + ", ".join(REVIEW_VERSIONS)))
    return errors


def _webhook_errors(webhook: Mapping[str, Any], mutating: bool, relaxed: _Relaxed, path: Path) -> list[FieldError]:
    """validateMutatingWebhook / validateValidatingWebhook."""
    from kgen.serve.policies.validation import _match_conditions, label_selector
    from kgen.serve.webhooks import client_config_errors

    errors: list[FieldError] = []
    name = webhook.get("name") or ""
    if not name:
        errors.append(required(path.child("name"), ""))
    else:
        errors += [invalid(path.child("name"), name.rstrip("."), p) for p in is_fully_qualified_name(name.rstrip("."))][
            :1
        ]
    for index, rule in enumerate(webhook.get("rules") or []):
        errors += _rule_errors(rule, path.child("rules").index(index))
    for key, allowed in (("failurePolicy", _FAILURE_POLICIES), ("matchPolicy", _MATCH_POLICIES)):
        value = webhook.get(key)
        if value is not None and value not in allowed:
            errors.append(not_supported(path.child(key), value, allowed))
    allowed_effects = _ALL_SIDE_EFFECTS if relaxed.side_effects else _SIDE_EFFECTS
    effects = webhook.get("sideEffects")
    if effects is None:
        errors.append(required(path.child("sideEffects"), "must specify one of " + ", ".join(allowed_effects)))
    elif effects not in allowed_effects:
        errors.append(not_supported(path.child("sideEffects"), effects, allowed_effects))
    timeout = webhook.get("timeoutSeconds")
    if timeout is not None and not 1 <= timeout <= 30:
        errors.append(
            invalid(path.child("timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds")
        )
    for key in ("namespaceSelector", "objectSelector"):
        if webhook.get(key) is not None:
            errors += label_selector(webhook[key], path.child(key))
    if mutating:
        policy = webhook.get("reinvocationPolicy")
        if policy is not None and policy not in _REINVOCATION_POLICIES:
            errors.append(not_supported(path.child("reinvocationPolicy"), policy, _REINVOCATION_POLICIES))
    errors += client_config_errors(webhook.get("clientConfig") or {}, path.child("clientConfig"))
    if not relaxed.match_conditions:
        errors += _match_conditions(webhook.get("matchConditions") or [], False, path.child("matchConditions"))
    return errors


class _Relaxed:
    """What an update may keep that a create may not, because the stored object had it."""

    def __init__(self, old: Mapping[str, Any] | None, new: Mapping[str, Any]):
        hooks = (old or {}).get("webhooks") or []
        self.side_effects = old is not None and any(h.get("sideEffects") not in _SIDE_EFFECTS for h in hooks)
        self.review_versions = old is not None and any(
            h.get("admissionReviewVersions") and not any(v in REVIEW_VERSIONS for v in h["admissionReviewVersions"])
            for h in hooks
        )
        names = [h.get("name") for h in hooks]
        self.unique_names = old is not None and len(names) != len(set(names))
        new_hooks = new.get("webhooks") or []
        self.match_conditions = (
            old is not None
            and len(new_hooks) == len(hooks)
            and all(a.get("matchConditions") == b.get("matchConditions") for a, b in zip(new_hooks, hooks))
        )


def _configuration_errors(mutating: bool) -> Any:
    def validate(obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        errors = object_meta(obj, namespaced=False) if old is None else object_meta_update(obj, old)
        relaxed = _Relaxed(old, obj)
        names: set[str] = set()
        for index, webhook in enumerate(obj.get("webhooks") or []):
            path = Path.root("webhooks").index(index)
            errors += _webhook_errors(webhook, mutating, relaxed, path)
            errors += _review_version_errors(
                webhook.get("admissionReviewVersions") or [], not relaxed.review_versions,
                path.child("admissionReviewVersions"),
            )  # fmt: skip
            name = webhook.get("name") or ""
            if name and not relaxed.unique_names:
                if name in names:
                    errors.append(duplicate(path.child("name"), name))
                names.add(name)
        return errors

    return validate


def _webhook_count(obj: dict[str, Any], now: Any) -> int:
    return len(obj.get("webhooks") or [])


def _kind(kind: str, plural: str, go_type: Struct, mutating: bool) -> BuiltinKind:
    return BuiltinKind(
        group=GROUP, version="v1", kind=kind, plural=plural, singular=plural[:-1], namespaced=False, protobuf=False,
        type=go_type, list_type=types.list_of(go_type, f"v1.{kind}List", f"{_DEFINITION}{kind}List", f"A list of {kind}s."),
        validate=_configuration_errors(mutating), internal=_defaulted(mutating), prepare=_generation,
        columns=(tables.NAME, tables.column("Webhooks", _webhook_count, "How many webhooks it has.", type="integer"),
                 tables.AGE),
    )  # fmt: skip


MUTATING = _kind("MutatingWebhookConfiguration", "mutatingwebhookconfigurations", MUTATING_CONFIGURATION, True)
VALIDATING = _kind("ValidatingWebhookConfiguration", "validatingwebhookconfigurations", VALIDATING_CONFIGURATION, False)
