"""The fields of `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy and
ValidatingAdmissionPolicyBinding, described once in kgen's words.

Each `Shape` says what JSON a field takes, the Go type the API server decodes it into (its
decoding errors name it), whether an empty value is left out when the object is written
(`omitempty`), and what OpenAPI says about it (list types, merge keys, atomic structs). From
the same description come

- `decode`: a request body as the API server's typed decoder reads it: unknown fields
  dropped (and reported), nulls dropped, a value of the wrong type a 400 naming the Go
  struct field (`json: cannot unmarshal number into Go struct field
  ValidatingAdmissionPolicySpec.spec.failurePolicy of type v1.FailurePolicyType`), and the
  object written back as Go writes it (empty `omitempty` fields left out);
- `openapi_schemas`: the OpenAPI v3 definitions published for the group (what `kubectl
  explain`, server-side apply and strategic merge patches read).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgen.runtime.errors import bad_request

GROUP = "admissionregistration.k8s.io"
VERSION = "v1"
API_VERSION = f"{GROUP}/{VERSION}"
_DEFINITION = "io.k8s.api.admissionregistration.v1."
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."


@dataclass(frozen=True)
class Shape:
    """What one field (or list item, or map value) holds."""

    json: str
    """`object`, `array`, `map`, `string`, `integer`, `boolean` or `any` (kept as given)."""
    go: str
    """The Go type it decodes into, as decoding errors print it (`v1.FailurePolicyType`)."""
    fields: Mapping[str, Field] = field(default_factory=dict)
    """An object's fields by JSON name."""
    items: Shape | None = None
    """An array's items or a map's values."""
    definition: str = ""
    """The OpenAPI definition an object is published as (`...v1.ParamKind`), if any."""
    description: str = ""
    enum: tuple[str, ...] = ()
    extensions: Mapping[str, Any] = field(default_factory=dict)
    """OpenAPI extensions (`x-kubernetes-list-type`, `x-kubernetes-map-type`, ...)."""

    @property
    def struct(self) -> str:
        """The Go struct name (`v1.ParamKind` -> `ParamKind`)."""
        return self.go.rsplit(".", 1)[-1].lstrip("*[]")


@dataclass(frozen=True)
class Field:
    """A field of an object: its shape and how Go writes it."""

    shape: Shape
    omitempty: bool = True
    description: str = ""


def _string(go: str = "string", description: str = "", enum: tuple[str, ...] = ()) -> Shape:
    return Shape("string", go, description=description, enum=enum)


_STRING = _string()
_INT64 = Shape("integer", "int64")
_TIME = Shape("string", "v1.Time")
_STRINGS = Shape("array", "[]string", items=_STRING, extensions={"x-kubernetes-list-type": "atomic"})
_STRING_MAP = Shape("map", "map[string]string", items=_STRING)


def _object(go: str, definition: str, description: str, fields: dict[str, Field], **extensions: Any) -> Shape:
    return Shape("object", go, fields, definition=definition, description=description, extensions=extensions)


def _list(item: Shape, list_type: str = "atomic", key: str = "", merge: bool = False) -> Shape:
    extensions: dict[str, Any] = {"x-kubernetes-list-type": list_type}
    if key:
        extensions["x-kubernetes-list-map-keys"] = [key]
    if merge:
        extensions["x-kubernetes-patch-merge-key"] = key
        extensions["x-kubernetes-patch-strategy"] = "merge"
    return Shape("array", f"[]{item.go.lstrip('*')}", items=item, extensions=extensions)


# -- metadata (ObjectMeta, as the typed decoder reads it) --------------------------------------

_ANY_OBJECT = Shape("any", "interface {}")
OBJECT_META = _object(
    "v1.ObjectMeta", _META + "ObjectMeta", "", {
        "name": Field(_STRING), "generateName": Field(_STRING), "namespace": Field(_STRING),
        "selfLink": Field(_STRING), "uid": Field(_string("types.UID")), "resourceVersion": Field(_STRING),
        "generation": Field(_INT64), "creationTimestamp": Field(_TIME, omitempty=False),
        "deletionTimestamp": Field(_TIME), "deletionGracePeriodSeconds": Field(_INT64),
        "labels": Field(_STRING_MAP), "annotations": Field(_STRING_MAP),
        "ownerReferences": Field(Shape("array", "[]v1.OwnerReference", items=_ANY_OBJECT)),
        "finalizers": Field(Shape("array", "[]string", items=_STRING)),
        "managedFields": Field(Shape("array", "[]v1.ManagedFieldsEntry", items=_ANY_OBJECT)),
    },
)  # fmt: skip
"""A creationTimestamp is written even when unset (null), as Go writes a zero metav1.Time."""

LABEL_SELECTOR = _object(
    "v1.LabelSelector", _META + "LabelSelector",
    "A label query: every requirement must hold; an empty selector matches everything.", {
        "matchLabels": Field(_STRING_MAP, description="Labels that must have exactly these values."),
        "matchExpressions": Field(_list(_object(
            "v1.LabelSelectorRequirement", _META + "LabelSelectorRequirement",
            "A key, an operator (In, NotIn, Exists, DoesNotExist) and the values it compares with.", {
                "key": Field(_STRING, omitempty=False),
                "operator": Field(_string("v1.LabelSelectorOperator"), omitempty=False),
                "values": Field(_STRINGS),
            },
        )), description="Requirements on labels."),
    }, **{"x-kubernetes-map-type": "atomic"},
)  # fmt: skip

_CONDITION = _object(
    "v1.Condition", _META + "Condition", "One aspect of the current state of an object.", {
        "type": Field(_STRING, omitempty=False), "status": Field(_string("v1.ConditionStatus"), omitempty=False),
        "observedGeneration": Field(_INT64), "lastTransitionTime": Field(_TIME, omitempty=False),
        "reason": Field(_STRING, omitempty=False), "message": Field(_STRING, omitempty=False),
    },
)  # fmt: skip

# -- ValidatingAdmissionPolicy ------------------------------------------------------------------

_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")

NAMED_RULE = _object(
    "v1.NamedRuleWithOperations", _DEFINITION + "NamedRuleWithOperations",
    "Operations on resources of API groups and versions, optionally only on objects of these names.", {
        "resourceNames": Field(_STRINGS, description="Names of the objects the rule applies to; empty: all."),
        "operations": Field(_list(_string("v1.OperationType", enum=_OPERATIONS)),
                            description="CREATE, UPDATE, DELETE, CONNECT, or * for all of them."),
        "apiGroups": Field(_STRINGS, description="API groups; '' is the core group, * all groups."),
        "apiVersions": Field(_STRINGS, description="API versions; * all versions."),
        "resources": Field(_STRINGS, description="Resources ('pods'), subresources ('pods/status'), '*' or '*/*'."),
        "scope": Field(_string("v1.ScopeType", "Cluster, Namespaced or * (the default).")),
    }, **{"x-kubernetes-map-type": "atomic"},
)  # fmt: skip

MATCH_RESOURCES = _object(
    "v1.MatchResources", _DEFINITION + "MatchResources",
    "Which requests a policy (or binding) applies to: by namespace and object labels and by resource rules.", {
        "namespaceSelector": Field(LABEL_SELECTOR, description="Labels of the namespace of the object."),
        "objectSelector": Field(LABEL_SELECTOR, description="Labels of the object (old or new)."),
        "resourceRules": Field(_list(NAMED_RULE), description="Requests that match."),
        "excludeResourceRules": Field(_list(NAMED_RULE), description="Requests that never match."),
        "matchPolicy": Field(_string("v1.MatchPolicyType", "Exact, or Equivalent (the default).",
                                     ("Equivalent", "Exact"))),
    }, **{"x-kubernetes-map-type": "atomic"},
)  # fmt: skip

_PARAM_KIND = _object(
    "v1.ParamKind", _DEFINITION + "ParamKind", "The kind of the objects a policy takes its parameters from.", {
        "apiVersion": Field(_STRING), "kind": Field(_STRING),
    }, **{"x-kubernetes-map-type": "atomic"},
)  # fmt: skip

_VALIDATION = _object(
    "v1.Validation", _DEFINITION + "Validation", "A CEL expression that must be true for a request to pass.", {
        "expression": Field(_STRING, omitempty=False, description="CEL that must evaluate to true."),
        "message": Field(_STRING, description="What a denial says (default: the failed expression)."),
        "reason": Field(_string("v1.StatusReason"), description="The Status reason of a denial: Invalid (the "
                        "default), Forbidden or RequestEntityTooLarge."),
        "messageExpression": Field(_STRING, description="CEL giving the denial's message (a string)."),
    },
)  # fmt: skip

_AUDIT_ANNOTATION = _object(
    "v1.AuditAnnotation", _DEFINITION + "AuditAnnotation",
    "An annotation of the request's audit event, valued by a CEL expression.", {
        "key": Field(_STRING, omitempty=False, description="The annotation's key, after the policy's name."),
        "valueExpression": Field(_STRING, omitempty=False, description="CEL giving a string, or null for none."),
    },
)  # fmt: skip

_MATCH_CONDITION = _object(
    "v1.MatchCondition", _DEFINITION + "MatchCondition",
    "A named CEL expression that must be true for the policy to apply.", {
        "name": Field(_STRING, omitempty=False), "expression": Field(_STRING, omitempty=False),
    },
)  # fmt: skip

_VARIABLE = _object(
    "v1.Variable", _DEFINITION + "Variable", "A named CEL expression the others read as variables.<name>.", {
        "name": Field(_STRING, omitempty=False), "expression": Field(_STRING, omitempty=False),
    },
)  # fmt: skip

_EXPRESSION_WARNING = _object(
    "v1.ExpressionWarning", _DEFINITION + "ExpressionWarning", "A type checking problem of one expression.", {
        "fieldRef": Field(_STRING, omitempty=False), "warning": Field(_STRING, omitempty=False),
    },
)  # fmt: skip

POLICY_SPEC = _object(
    "v1.ValidatingAdmissionPolicySpec", _DEFINITION + "ValidatingAdmissionPolicySpec", "What a policy checks.", {
        "paramKind": Field(_PARAM_KIND, description="The kind bindings take params of (`params` in CEL)."),
        "matchConstraints": Field(MATCH_RESOURCES, description="The requests the policy applies to."),
        "validations": Field(_list(_VALIDATION), description="Expressions every request must pass."),
        "failurePolicy": Field(_string("v1.FailurePolicyType", "Fail (the default) or Ignore.", ("Fail", "Ignore"))),
        "auditAnnotations": Field(_list(_AUDIT_ANNOTATION), description="Annotations of the audit event."),
        "matchConditions": Field(_list(_MATCH_CONDITION, "map", "name", merge=True),
                                 description="CEL conditions all of which must be true for the policy to apply."),
        "variables": Field(_list(_VARIABLE, "map", "name", merge=True),
                           description="Named CEL expressions, evaluated when read."),
    },
)  # fmt: skip

POLICY_STATUS = _object(
    "v1.ValidatingAdmissionPolicyStatus", _DEFINITION + "ValidatingAdmissionPolicyStatus",
    "What the server found checking the policy.", {
        "observedGeneration": Field(_INT64),
        "typeChecking": Field(_object("v1.TypeChecking", _DEFINITION + "TypeChecking", "Type checking results.", {
            "expressionWarnings": Field(_list(_EXPRESSION_WARNING)),
        })),
        "conditions": Field(_list(_CONDITION, "map", "type")),
    },
)  # fmt: skip

POLICY = _object(
    "v1.ValidatingAdmissionPolicy", _DEFINITION + "ValidatingAdmissionPolicy",
    "CEL validations of requests, enforced where a binding says, without a webhook.", {
        "apiVersion": Field(_STRING), "kind": Field(_STRING),
        "metadata": Field(OBJECT_META, omitempty=False),
        "spec": Field(POLICY_SPEC, omitempty=False),
        "status": Field(POLICY_STATUS, omitempty=False),
    },
)  # fmt: skip

# -- ValidatingAdmissionPolicyBinding -----------------------------------------------------------

_PARAM_REF = _object(
    "v1.ParamRef", _DEFINITION + "ParamRef", "The parameter objects of a binding: by name, or by label selector.", {
        "name": Field(_STRING), "namespace": Field(_STRING), "selector": Field(LABEL_SELECTOR),
        "parameterNotFoundAction": Field(_string("v1.ParameterNotFoundActionType", "Allow or Deny.",
                                                 ("Allow", "Deny"))),
    }, **{"x-kubernetes-map-type": "atomic"},
)  # fmt: skip

BINDING_SPEC = _object(
    "v1.ValidatingAdmissionPolicyBindingSpec", _DEFINITION + "ValidatingAdmissionPolicyBindingSpec",
    "Which policy applies where, with which parameters, and what a failed validation does.", {
        "policyName": Field(_STRING, description="The ValidatingAdmissionPolicy bound."),
        "paramRef": Field(_PARAM_REF, description="Where the params are (by name or selector)."),
        "matchResources": Field(MATCH_RESOURCES, description="Restricts the requests the policy applies to."),
        "validationActions": Field(Shape("array", "[]v1.ValidationAction", items=_string(
            "v1.ValidationAction", enum=("Audit", "Deny", "Warn")), extensions={"x-kubernetes-list-type": "set"}),
            description="Deny, Warn and/or Audit."),
    },
)  # fmt: skip

BINDING = _object(
    "v1.ValidatingAdmissionPolicyBinding", _DEFINITION + "ValidatingAdmissionPolicyBinding",
    "Binds a ValidatingAdmissionPolicy to the requests it checks (and its parameters).", {
        "apiVersion": Field(_STRING), "kind": Field(_STRING),
        "metadata": Field(OBJECT_META, omitempty=False),
        "spec": Field(BINDING_SPEC, omitempty=False),
    },
)  # fmt: skip


# -- decoding ------------------------------------------------------------------------------------


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _TypeError(Exception):
    """The first value of the wrong type (Go's decoder reports the first one it met)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _matches(shape: Shape, value: Any) -> bool:
    kind = shape.json
    if kind == "any":
        return True
    if kind in ("object", "map"):
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return False


def _shown(value: Any) -> str:
    """How Go names a JSON value in an UnmarshalTypeError: its kind, and a number's text."""
    kind = _json_kind(value)
    if kind == "number" and not isinstance(value, bool):
        return f"number {json.dumps(value)}"
    return kind


def _read(shape: Shape, value: Any, path: tuple[str, ...], struct: str, unknown: list[str], where: str) -> Any:
    """`value` as Go decodes it into `shape` (nulls and unknown fields dropped), or raise."""
    if not _matches(shape, value):
        if shape.json == "integer" and isinstance(value, float) and not isinstance(value, bool):
            shown = _shown(value)
        else:
            shown = _json_kind(value)
        go = shape.go.lstrip("*")
        if struct:
            raise _TypeError(
                f"json: cannot unmarshal {shown} into Go struct field {struct}.{'.'.join(path)} of type {go}"
            )
        raise _TypeError(f"json: cannot unmarshal {shown} into Go value of type {go}")
    if shape.json == "object":
        out: dict[str, Any] = {}
        for name, item in value.items():
            member = shape.fields.get(name)
            here = f"{where}.{name}" if where else name
            if member is None:
                unknown.append(f'unknown field "{here}"')
                continue
            if item is None:
                continue
            out[name] = _read(member.shape, item, path + (name,), shape.struct, unknown, here)
        return out
    if shape.json == "array":
        assert shape.items is not None
        return [
            _read(shape.items, item, path, struct, unknown, f"{where}[{i}]") if item is not None else _zero(shape.items)
            for i, item in enumerate(value)
        ]
    if shape.json == "map":
        assert shape.items is not None
        return {
            key: (
                _read(shape.items, item, path, struct, unknown, f"{where}.{key}")
                if item is not None
                else _zero(shape.items)
            )
            for key, item in value.items()
        }
    return value


def _zero(shape: Shape) -> Any:
    """What a null list item or map value decodes to (Go's zero value)."""
    return {"string": "", "integer": 0, "boolean": False, "object": {}, "array": [], "map": {}}.get(shape.json)


def written(shape: Shape, value: Any) -> Any:
    """`value` as Go writes it: empty `omitempty` fields left out, every field of a struct
    that is not `omitempty` present (its zero value when unset)."""
    if shape.json == "object" and isinstance(value, dict):
        out: dict[str, Any] = {}
        for name, member in shape.fields.items():
            if name not in value:
                if not member.omitempty and member.shape.json not in ("object", "any"):
                    out[name] = None if member.shape.go == "v1.Time" else _zero(member.shape)
                elif not member.omitempty and member.shape.json == "object":
                    out[name] = written(member.shape, {})
                continue
            item = written(member.shape, value[name])
            if (
                member.omitempty
                and item in ("", 0, False, [], {})
                and not (member.shape.json == "object" and isinstance(item, dict))
            ):
                continue  # an empty struct pointer ({}) stays; empty strings, lists and maps do not
            out[name] = item
        for name, item in value.items():  # fields the shape does not know (kept by the caller)
            out.setdefault(name, item)
        return out
    if shape.json == "array" and isinstance(value, list) and shape.items is not None:
        return [written(shape.items, item) for item in value]
    if shape.json == "map" and isinstance(value, dict) and shape.items is not None:
        return {key: written(shape.items, item) for key, item in value.items()}
    return value


def decode(shape: Shape, document: Any, kind: str) -> tuple[dict[str, Any], list[str]]:
    """A request body of `kind` as the typed decoder reads it, and the unknown fields it
    dropped (`unknown field "spec.foo"`); 400 for a value of the wrong type."""
    if not isinstance(document, dict):
        raise bad_request("the object must be a JSON object")
    unknown: list[str] = []
    try:
        obj = _read(shape, document, (), "", unknown, "")
    except _TypeError as error:
        raise bad_request(f'{kind} in version "{VERSION}" cannot be handled as a {kind}: {error.message}') from None
    return obj, unknown


# -- OpenAPI ---------------------------------------------------------------------------------------


def _schema(shape: Shape, found: dict[str, Any], description: str = "") -> dict[str, Any]:
    """The OpenAPI v3 schema of a shape; definitions it refers to are added to `found`
    (unless it already has them)."""
    if shape.definition:
        if shape.definition not in found:
            found[shape.definition] = {}  # reserved first: definitions may refer to each other
            found[shape.definition] = _definition(shape, found)
        reference: dict[str, Any] = {"allOf": [{"$ref": f"#/components/schemas/{shape.definition}"}]}
        if description:
            reference["description"] = description
        return reference
    schema: dict[str, Any]
    if shape.json == "array":
        assert shape.items is not None
        schema = {"type": "array", "items": _schema(shape.items, found)}
    elif shape.json == "map":
        assert shape.items is not None
        schema = {"type": "object", "additionalProperties": _schema(shape.items, found)}
    elif shape.json == "any":
        schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    else:
        schema = {"type": shape.json}
        if shape.go == "v1.Time":
            schema["format"] = "date-time"
        if shape.json == "integer":
            schema["format"] = "int64"
    if shape.enum:
        schema["enum"] = list(shape.enum)
    if description or shape.description:
        schema["description"] = description or shape.description
    schema.update(shape.extensions)
    return schema


def _definition(shape: Shape, found: dict[str, Any]) -> dict[str, Any]:
    properties = {name: _schema(member.shape, found, member.description) for name, member in shape.fields.items()}
    definition: dict[str, Any] = {"type": "object", "properties": properties}
    if shape.description:
        definition["description"] = shape.description
    required = [name for name, member in shape.fields.items() if not member.omitempty and name != "metadata"]
    if required and shape.definition not in (POLICY.definition, BINDING.definition):
        definition["required"] = required
    definition.update(shape.extensions)
    return definition


_LIST_META = _object(
    "v1.ListMeta", _META + "ListMeta", "The metadata of a list.", {
        "selfLink": Field(_STRING), "resourceVersion": Field(_STRING), "continue": Field(_STRING),
        "remainingItemCount": Field(_INT64),
    },
)  # fmt: skip


def openapi_schemas(known: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAPI v3 definitions of both kinds and their lists, and the meta.k8s.io
    definitions they refer to (those of `known`, the generated documents' own, where it
    has them)."""
    found: dict[str, Any] = {name: schema for name, schema in known.items() if name.startswith(_META)}
    _schema(_LIST_META, found)
    for shape, kind in ((POLICY, "ValidatingAdmissionPolicy"), (BINDING, "ValidatingAdmissionPolicyBinding")):
        _schema(shape, found)
        found[shape.definition]["x-kubernetes-group-version-kind"] = [
            {"group": GROUP, "kind": kind, "version": VERSION}
        ]
        found[shape.definition + "List"] = {
            "type": "object",
            "description": f"A list of {kind}s.",
            "required": ["items"],
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {"allOf": [{"$ref": f"#/components/schemas/{_META}ListMeta"}], "default": {}},
                "items": {"type": "array", "items": {"allOf": [{"$ref": f"#/components/schemas/{shape.definition}"}],
                                                     "default": {}}},
            },
            "x-kubernetes-group-version-kind": [{"group": GROUP, "kind": kind + "List", "version": VERSION}],
        }  # fmt: skip
    return found
