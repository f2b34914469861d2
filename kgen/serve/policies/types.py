"""`admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy and
ValidatingAdmissionPolicyBinding as Go types (`kgen.runtime.gotypes`).

The fields, their JSON names, `omitempty` and which are pointers are those of k8s.io/api's
admissionregistration/v1 types.go (the metadata, label selectors and conditions are the
meta/v1 structs of `kgen.serve.builtins.types`); the descriptions are kgen's own. A request
body is decoded into them as the API server's typed decoder does (`gotypes.decode`: Go's
type errors, unknown and duplicate fields), written back as Go writes it (`gotypes.encode`),
and the group's OpenAPI v3 definitions are written from them (`openapi_schemas`). Both kinds
are served as JSON only, so no protobuf numbers are given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgen.runtime.gotypes import INT64, STRING, Field, Pointer, Scalar, Slice, Struct
from kgen.serve.builtins import openapi
from kgen.serve.builtins.types import CONDITION, LABEL_SELECTOR, OBJECT_META, list_of, type_meta

GROUP = "admissionregistration.k8s.io"
VERSION = "v1"
API_VERSION = f"{GROUP}/{VERSION}"
_DEFINITION = "io.k8s.api.admissionregistration.v1."
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_ATOMIC = {"x-kubernetes-map-type": "atomic"}
_ATOMIC_LIST = {"x-kubernetes-list-type": "atomic"}
_STRINGS = Slice("[]string", STRING)
_SELECTOR = Pointer("*v1.LabelSelector", LABEL_SELECTOR)


def _enum(name: str, *values: str) -> Scalar:
    return Scalar(name, enum=values)


def _pointer(go_type: Scalar | Struct) -> Pointer:
    return Pointer(f"*{go_type.name}", go_type)


def _list(item: Struct | Scalar) -> Slice:
    return Slice(f"[]{item.name}", item)


def _keyed(key: str) -> dict[str, Any]:
    """A list of structs merged by `key` (patchStrategy merge, a listType map)."""
    return {
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": [key],
        "x-kubernetes-patch-merge-key": key,
        "x-kubernetes-patch-strategy": "merge",
    }


# -- ValidatingAdmissionPolicy ------------------------------------------------------------------

NAMED_RULE = Struct(
    "v1.NamedRuleWithOperations",
    definition=_DEFINITION + "NamedRuleWithOperations",
    description="Operations on resources of API groups and versions, optionally only on objects of these names.",
    extensions=_ATOMIC,
    fields=(  # resourceNames, then the inlined RuleWithOperations and its inlined Rule
        Field("resourceNames", _STRINGS, description="Names of the objects the rule applies to; empty: all.",
              extensions=_ATOMIC_LIST),
        Field("operations", _list(_enum("v1.OperationType", "*", "CONNECT", "CREATE", "DELETE", "UPDATE")),
              description="CREATE, UPDATE, DELETE, CONNECT, or * for all of them.", extensions=_ATOMIC_LIST),
        Field("apiGroups", _STRINGS, description="API groups; '' is the core group, * all groups.",
              extensions=_ATOMIC_LIST),
        Field("apiVersions", _STRINGS, description="API versions; * all versions.", extensions=_ATOMIC_LIST),
        Field("resources", _STRINGS, description="Resources ('pods'), subresources ('pods/status'), '*' or '*/*'.",
              extensions=_ATOMIC_LIST),
        Field("scope", _pointer(Scalar("v1.ScopeType")), description="Cluster, Namespaced or * (the default)."),
    ),
)  # fmt: skip

MATCH_RESOURCES = Struct(
    "v1.MatchResources",
    definition=_DEFINITION + "MatchResources",
    description="Which requests a policy (or binding) applies to: by namespace and object labels and by resource rules.",
    extensions=_ATOMIC,
    fields=(
        Field("namespaceSelector", _SELECTOR, description="Labels of the namespace of the object."),
        Field("objectSelector", _SELECTOR, description="Labels of the object (old or new)."),
        Field("resourceRules", _list(NAMED_RULE), description="Requests that match.", extensions=_ATOMIC_LIST),
        Field("excludeResourceRules", _list(NAMED_RULE), description="Requests that never match.",
              extensions=_ATOMIC_LIST),
        Field("matchPolicy", _pointer(_enum("v1.MatchPolicyType", "Equivalent", "Exact")),
              description="Exact, or Equivalent (the default)."),
    ),
)  # fmt: skip

_PARAM_KIND = Struct(
    "v1.ParamKind",
    definition=_DEFINITION + "ParamKind",
    description="The kind of the objects a policy takes its parameters from.",
    extensions=_ATOMIC,
    fields=(Field("apiVersion", STRING), Field("kind", STRING)),
)

_VALIDATION = Struct(
    "v1.Validation",
    definition=_DEFINITION + "Validation",
    description="A CEL expression that must be true for a request to pass.",
    fields=(
        Field("expression", STRING, omitempty=False, required=True, description="CEL that must evaluate to true."),
        Field("message", STRING, description="What a denial says (default: the failed expression)."),
        Field("reason", _pointer(Scalar("v1.StatusReason")), description="The Status reason of a denial: Invalid "
              "(the default), Forbidden or RequestEntityTooLarge."),
        Field("messageExpression", STRING, description="CEL giving the denial's message (a string)."),
    ),
)  # fmt: skip

_AUDIT_ANNOTATION = Struct(
    "v1.AuditAnnotation",
    definition=_DEFINITION + "AuditAnnotation",
    description="An annotation of the request's audit event, valued by a CEL expression.",
    fields=(
        Field("key", STRING, omitempty=False, required=True, description="The annotation's key, after the policy's name."),
        Field("valueExpression", STRING, omitempty=False, required=True,
              description="CEL giving a string, or null for none."),
    ),
)  # fmt: skip


def _named_expression(name: str, description: str) -> Struct:
    return Struct(
        f"v1.{name}",
        definition=_DEFINITION + name,
        description=description,
        fields=(
            Field("name", STRING, omitempty=False, required=True),
            Field("expression", STRING, omitempty=False, required=True),
        ),
    )


MATCH_CONDITION = _named_expression(
    "MatchCondition", "A named CEL expression that must be true for the policy or webhook to apply."
)
"""One type for policies and webhooks, as in admissionregistration/v1 (one OpenAPI definition)."""
_VARIABLE = _named_expression("Variable", "A named CEL expression the others read as variables.<name>.")

_EXPRESSION_WARNING = Struct(
    "v1.ExpressionWarning",
    definition=_DEFINITION + "ExpressionWarning",
    description="A type checking problem of one expression.",
    fields=(
        Field("fieldRef", STRING, omitempty=False, required=True),
        Field("warning", STRING, omitempty=False, required=True),
    ),
)

POLICY_SPEC = Struct(
    "v1.ValidatingAdmissionPolicySpec",
    definition=_DEFINITION + "ValidatingAdmissionPolicySpec",
    description="What a policy checks.",
    fields=(
        Field("paramKind", _pointer(_PARAM_KIND), description="The kind bindings take params of (`params` in CEL)."),
        Field("matchConstraints", _pointer(MATCH_RESOURCES), description="The requests the policy applies to."),
        Field("validations", _list(_VALIDATION), description="Expressions every request must pass.",
              extensions=_ATOMIC_LIST),
        Field("failurePolicy", _pointer(_enum("v1.FailurePolicyType", "Fail", "Ignore")),
              description="Fail (the default) or Ignore."),
        Field("auditAnnotations", _list(_AUDIT_ANNOTATION), description="Annotations of the audit event.",
              extensions=_ATOMIC_LIST),
        Field("matchConditions", _list(MATCH_CONDITION), extensions=_keyed("name"),
              description="CEL conditions all of which must be true for the policy to apply."),
        Field("variables", _list(_VARIABLE), description="Named CEL expressions, evaluated when read.",
              extensions=_keyed("name")),
    ),
)  # fmt: skip

_TYPE_CHECKING = Struct(
    "v1.TypeChecking",
    definition=_DEFINITION + "TypeChecking",
    description="Type checking results.",
    fields=(Field("expressionWarnings", _list(_EXPRESSION_WARNING), extensions=_ATOMIC_LIST),),
)

POLICY_STATUS = Struct(
    "v1.ValidatingAdmissionPolicyStatus",
    definition=_DEFINITION + "ValidatingAdmissionPolicyStatus",
    description="What the server found checking the policy.",
    fields=(
        Field("observedGeneration", INT64),
        Field("typeChecking", _pointer(_TYPE_CHECKING)),
        Field("conditions", _list(CONDITION), extensions={"x-kubernetes-list-type": "map",
                                                          "x-kubernetes-list-map-keys": ["type"]}),
    ),
)  # fmt: skip

POLICY = Struct(
    "v1.ValidatingAdmissionPolicy",
    definition=_DEFINITION + "ValidatingAdmissionPolicy",
    description="CEL validations of requests, enforced where a binding says, without a webhook.",
    fields=(
        *type_meta(),
        Field("metadata", OBJECT_META, description="Standard object metadata."),
        Field("spec", POLICY_SPEC, description="What the policy checks."),
        Field("status", POLICY_STATUS, description="What the server found checking the policy."),
    ),
)

# -- ValidatingAdmissionPolicyBinding -----------------------------------------------------------

_PARAM_REF = Struct(
    "v1.ParamRef",
    definition=_DEFINITION + "ParamRef",
    description="The parameter objects of a binding: by name, or by label selector.",
    extensions=_ATOMIC,
    fields=(
        Field("name", STRING),
        Field("namespace", STRING),
        Field("selector", _SELECTOR),
        Field("parameterNotFoundAction", _pointer(_enum("v1.ParameterNotFoundActionType", "Allow", "Deny")),
              description="Allow or Deny."),
    ),
)  # fmt: skip

BINDING_SPEC = Struct(
    "v1.ValidatingAdmissionPolicyBindingSpec",
    definition=_DEFINITION + "ValidatingAdmissionPolicyBindingSpec",
    description="Which policy applies where, with which parameters, and what a failed validation does.",
    fields=(
        Field("policyName", STRING, description="The ValidatingAdmissionPolicy bound."),
        Field("paramRef", _pointer(_PARAM_REF), description="Where the params are (by name or selector)."),
        Field("matchResources", _pointer(MATCH_RESOURCES), description="Restricts the requests the policy applies to."),
        Field("validationActions", _list(_enum("v1.ValidationAction", "Audit", "Deny", "Warn")),
              description="Deny, Warn and/or Audit.", extensions={"x-kubernetes-list-type": "set"}),
    ),
)  # fmt: skip

BINDING = Struct(
    "v1.ValidatingAdmissionPolicyBinding",
    definition=_DEFINITION + "ValidatingAdmissionPolicyBinding",
    description="Binds a ValidatingAdmissionPolicy to the requests it checks (and its parameters).",
    fields=(
        *type_meta(),
        Field("metadata", OBJECT_META, description="Standard object metadata."),
        Field("spec", BINDING_SPEC, description="Which policy applies where."),
    ),
)

POLICY_LIST = list_of(
    POLICY, "v1.ValidatingAdmissionPolicyList", _DEFINITION + "ValidatingAdmissionPolicyList",
    "A list of ValidatingAdmissionPolicies.",
)  # fmt: skip
BINDING_LIST = list_of(
    BINDING, "v1.ValidatingAdmissionPolicyBindingList", _DEFINITION + "ValidatingAdmissionPolicyBindingList",
    "A list of ValidatingAdmissionPolicyBindings.",
)  # fmt: skip


def openapi_schemas(known: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAPI v3 definitions of both kinds and their lists, and of the meta.k8s.io
    definitions they refer to (those of `known`, the generated documents' own, where it
    has them)."""
    meta = {name: schema for name, schema in known.items() if name.startswith(_META)}
    kinds = (
        (POLICY, POLICY_LIST, "ValidatingAdmissionPolicy"),
        (BINDING, BINDING_LIST, "ValidatingAdmissionPolicyBinding"),
    )
    roots = [(struct, GROUP, VERSION, kind) for struct, _, kind in kinds]
    roots += [(listed, GROUP, VERSION, kind + "List") for _, listed, kind in kinds]
    return openapi.definitions(roots, meta)
