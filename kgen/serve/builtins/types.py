"""kgen's definitions of the built-in kinds it serves, as Go types (`kgen.runtime.gotypes`).

The fields, their JSON names, `omitempty`, protobuf numbers, list and patch strategies are
those of k8s.io/api (core/v1, events/v1, coordination/v1) and apimachinery's meta/v1; the
descriptions are kgen's own. These structs are what requests are decoded into (Go's type
errors, strict decoding), what responses are written from (Go's encoder), what the
protobuf codec reads and writes, and what the OpenAPI documents publish.
"""

from __future__ import annotations

from kgen.runtime.gotypes import (
    BOOL,
    INT32,
    INT64,
    MICRO_TIME,
    STRING,
    TIME,
    Bytes,
    Field,
    Map,
    Pointer,
    RawJSON,
    Scalar,
    Slice,
    Struct,
)

UID = Scalar("types.UID")
_ATOMIC = {"x-kubernetes-map-type": "atomic"}
_STRING_MAP = Map("map[string]string", STRING)
_BYTES_MAP = Map("map[string][]uint8", Bytes())


def type_meta() -> tuple[Field, Field]:
    """The fields of metav1.TypeMeta, inlined into every kind."""
    return (
        Field("apiVersion", STRING, description="The version of the schema the object is written in (group/version)."),
        Field("kind", STRING, description="The kind of the object, in CamelCase."),
    )


# -- apimachinery meta/v1 ------------------------------------------------------------------------

OWNER_REFERENCE = Struct(
    "v1.OwnerReference",
    definition="io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
    description="An object this one belongs to; the garbage collector deletes dependents with their owner.",
    extensions=_ATOMIC,
    fields=(
        Field("apiVersion", STRING, omitempty=False, proto=5, required=True, description="The owner's API version."),
        Field("kind", STRING, omitempty=False, proto=1, required=True, description="The owner's kind."),
        Field("name", STRING, omitempty=False, proto=3, required=True, description="The owner's name."),
        Field("uid", UID, omitempty=False, proto=4, required=True, description="The owner's uid."),
        Field("controller", Pointer("*bool", BOOL), proto=6, description="Whether the owner is the managing controller."),
        Field("blockOwnerDeletion", Pointer("*bool", BOOL), proto=7,
              description="Whether a foreground deletion of the owner waits for this object to be gone."),
    ),
)  # fmt: skip

MANAGED_FIELDS_ENTRY = Struct(
    "v1.ManagedFieldsEntry",
    definition="io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
    description="The fields one manager set with one operation.",
    fields=(
        Field("manager", STRING, proto=1, description="Who manages the fields."),
        Field("operation", Scalar("v1.ManagedFieldsOperationType"), proto=2, description="Apply or Update."),
        Field("apiVersion", STRING, proto=3, description="The version the fields are written in."),
        Field("time", Pointer("*v1.Time", TIME), proto=4, description="When the fields last changed."),
        Field("fieldsType", STRING, proto=6, description="How fieldsV1 is written: FieldsV1."),
        Field("fieldsV1", Pointer("*v1.FieldsV1", RawJSON("v1.FieldsV1")), proto=7, description="The set of fields."),
        Field("subresource", STRING, proto=8, description="The subresource the fields were written through."),
    ),
)

OBJECT_META = Struct(
    "v1.ObjectMeta",
    definition="io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    description="The metadata every persisted object has.",
    fields=(
        Field("name", STRING, proto=1, description="The object's name, unique in its namespace."),
        Field("generateName", STRING, proto=2, description="A prefix the server completes into a unique name."),
        Field("namespace", STRING, proto=3, description="The namespace the object lives in."),
        Field("selfLink", STRING, proto=4, description="Unused; the server leaves it empty."),
        Field("uid", UID, proto=5, description="The server's unique id of the object."),
        Field("resourceVersion", STRING, proto=6, description="The version of the object, for optimistic concurrency."),
        Field("generation", INT64, proto=7, description="The generation of the desired state, where the kind keeps one."),
        Field("creationTimestamp", TIME, proto=8, description="When the server created the object."),
        Field("deletionTimestamp", Pointer("*v1.Time", TIME), proto=9, description="When deletion was asked for."),
        Field("deletionGracePeriodSeconds", Pointer("*int64", INT64), proto=10,
              description="Seconds the object may take to terminate."),
        Field("labels", _STRING_MAP, proto=11, description="Keys and values to select objects by."),
        Field("annotations", _STRING_MAP, proto=12, description="Keys and values tools keep on the object."),
        Field("ownerReferences", Slice("[]v1.OwnerReference", OWNER_REFERENCE), proto=13, description="The owners.",
              extensions={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["uid"],
                          "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "uid"}),
        Field("finalizers", Slice("[]string", STRING), proto=14, description="What must happen before deletion completes.",
              extensions={"x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge"}),
        Field("managedFields", Slice("[]v1.ManagedFieldsEntry", MANAGED_FIELDS_ENTRY), proto=17,
              description="Which manager set which fields.", extensions={"x-kubernetes-list-type": "atomic"}),
    ),
)  # fmt: skip

LIST_META = Struct(
    "v1.ListMeta",
    definition="io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
    description="The metadata of a list.",
    fields=(
        Field("selfLink", STRING, proto=1, description="Unused."),
        Field("resourceVersion", STRING, proto=2, description="The version the list was read at."),
        Field("continue", STRING, proto=3, description="Where the next page of a paged list starts."),
        Field("remainingItemCount", Pointer("*int64", INT64), proto=4, description="Items after this page."),
    ),
)

LABEL_SELECTOR_REQUIREMENT = Struct(
    "v1.LabelSelectorRequirement",
    definition="io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
    description="A key, an operator (In, NotIn, Exists, DoesNotExist) and the values it compares with.",
    fields=(
        Field("key", STRING, omitempty=False, proto=1, required=True),
        Field("operator", Scalar("v1.LabelSelectorOperator"), omitempty=False, proto=2, required=True),
        Field("values", Slice("[]string", STRING), proto=3, extensions={"x-kubernetes-list-type": "atomic"}),
    ),
)

LABEL_SELECTOR = Struct(
    "v1.LabelSelector",
    definition="io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
    description="A label query: every requirement must hold; an empty selector matches everything.",
    extensions=_ATOMIC,
    fields=(
        Field("matchLabels", _STRING_MAP, proto=1, description="Labels that must have exactly these values."),
        Field("matchExpressions", Slice("[]v1.LabelSelectorRequirement", LABEL_SELECTOR_REQUIREMENT), proto=2,
              description="Requirements on labels.", extensions={"x-kubernetes-list-type": "atomic"}),
    ),
)  # fmt: skip

CONDITION = Struct(
    "v1.Condition",
    definition="io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
    description="One aspect of the current state of an object.",
    fields=(
        Field("type", STRING, omitempty=False, proto=1, required=True),
        Field("status", Scalar("v1.ConditionStatus"), omitempty=False, proto=2, required=True),
        Field("observedGeneration", INT64, proto=3),
        Field("lastTransitionTime", TIME, omitempty=False, proto=4, required=True),
        Field("reason", STRING, omitempty=False, proto=5, required=True),
        Field("message", STRING, omitempty=False, proto=6, required=True),
    ),
)


def _metadata(omitempty: bool = True) -> Field:
    return Field("metadata", OBJECT_META, omitempty=omitempty, proto=1, description="Standard object metadata.")


def list_of(item: Struct, name: str, definition: str, description: str) -> Struct:
    """The list kind of `item` (`items` is required, as in every list)."""
    return Struct(
        name,
        definition=definition,
        description=description,
        fields=(
            *type_meta(),
            Field("metadata", LIST_META, proto=1, description="Standard list metadata."),
            Field("items", Slice(f"[]{item.name}", item), omitempty=False, proto=2, required=True,
                  description="The objects."),
        ),
    )  # fmt: skip


# -- core/v1 -------------------------------------------------------------------------------------

OBJECT_REFERENCE = Struct(
    "v1.ObjectReference",
    definition="io.k8s.api.core.v1.ObjectReference",
    description="A reference to another object, by kind, namespace and name.",
    extensions=_ATOMIC,
    fields=(
        Field("kind", STRING, proto=1, description="The kind of the object."),
        Field("namespace", STRING, proto=2, description="Its namespace."),
        Field("name", STRING, proto=3, description="Its name."),
        Field("uid", UID, proto=4, description="Its uid."),
        Field("apiVersion", STRING, proto=5, description="Its API version."),
        Field("resourceVersion", STRING, proto=6, description="The version of it that is meant."),
        Field("fieldPath", STRING, proto=7, description="A part of the object, such as a container's spec."),
    ),
)

LOCAL_OBJECT_REFERENCE = Struct(
    "v1.LocalObjectReference",
    definition="io.k8s.api.core.v1.LocalObjectReference",
    description="A reference to an object in the same namespace, by name.",
    extensions=_ATOMIC,
    fields=(Field("name", STRING, proto=1, description="The object's name."),),
)

NAMESPACE_CONDITION = Struct(
    "v1.NamespaceCondition",
    definition="io.k8s.api.core.v1.NamespaceCondition",
    description="A problem the namespace controller met deleting the namespace's contents.",
    fields=(
        Field("type", Scalar("v1.NamespaceConditionType"), omitempty=False, proto=1, required=True),
        Field("status", Scalar("v1.ConditionStatus"), omitempty=False, proto=2, required=True),
        Field("lastTransitionTime", TIME, proto=4),
        Field("reason", STRING, proto=5),
        Field("message", STRING, proto=6),
    ),
)

NAMESPACE = Struct(
    "v1.Namespace",
    definition="io.k8s.api.core.v1.Namespace",
    description="A namespace: a scope for the names of the objects in it.",
    fields=(
        *type_meta(),
        _metadata(),
        Field("spec", Struct("v1.NamespaceSpec", definition="io.k8s.api.core.v1.NamespaceSpec", fields=(
            Field("finalizers", Slice("[]v1.FinalizerName", Scalar("v1.FinalizerName")), proto=1,
                  extensions={"x-kubernetes-list-type": "atomic"}),
        )), proto=2),
        Field("status", Struct("v1.NamespaceStatus", definition="io.k8s.api.core.v1.NamespaceStatus", fields=(
            Field("phase", Scalar("v1.NamespacePhase"), proto=1),
            Field("conditions", Slice("[]v1.NamespaceCondition", NAMESPACE_CONDITION), proto=2,
                  extensions={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                              "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "type"}),
        )), proto=3),
    ),
)  # fmt: skip
"""Served by `kgen.serve.namespaces` (its lifecycle is its own); its protobuf is this struct's."""

CONFIG_MAP = Struct(
    "v1.ConfigMap",
    definition="io.k8s.api.core.v1.ConfigMap",
    description="Configuration for workloads to read: text values and binary values by key.",
    fields=(
        *type_meta(),
        _metadata(),
        Field("immutable", Pointer("*bool", BOOL), proto=4,
              description="When true, data and binaryData can no longer change (and immutable stays true)."),
        Field("data", _STRING_MAP, proto=2, description="Text values by key."),
        Field("binaryData", _BYTES_MAP, proto=3, description="Binary values by key, base64 in JSON."),
    ),
)  # fmt: skip

SECRET = Struct(
    "v1.Secret",
    definition="io.k8s.api.core.v1.Secret",
    description="Confidential values by key: passwords, tokens, keys.",
    fields=(
        *type_meta(),
        _metadata(),
        Field("immutable", Pointer("*bool", BOOL), proto=5,
              description="When true, data can no longer change (and immutable stays true)."),
        Field("data", _BYTES_MAP, proto=2, description="Values by key, base64 in JSON; 1 MiB in all."),
        Field("stringData", _STRING_MAP, proto=4,
              description="Text values to write into data (they replace data's); write-only, never returned."),
        Field("type", Scalar("v1.SecretType"), proto=3,
              description="What the secret holds, which decides the keys it must have (Opaque when not given)."),
    ),
)  # fmt: skip

SERVICE_ACCOUNT = Struct(
    "v1.ServiceAccount",
    definition="io.k8s.api.core.v1.ServiceAccount",
    description="An identity for processes that run in pods.",
    fields=(
        *type_meta(),
        _metadata(),
        Field("secrets", Slice("[]v1.ObjectReference", OBJECT_REFERENCE), proto=2,
              description="Secrets of this namespace for pods of the account (only names are kept).",
              extensions={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}),
        Field("imagePullSecrets", Slice("[]v1.LocalObjectReference", LOCAL_OBJECT_REFERENCE), proto=3,
              description="Secrets used to pull the images of the account's pods.",
              extensions={"x-kubernetes-list-type": "atomic"}),
        Field("automountServiceAccountToken", Pointer("*bool", BOOL), proto=4,
              description="Whether pods of the account get its token mounted."),
    ),
)  # fmt: skip

EVENT_SOURCE = Struct(
    "v1.EventSource",
    definition="io.k8s.api.core.v1.EventSource",
    description="What reported an event.",
    fields=(
        Field("component", STRING, proto=1, description="The reporting component."),
        Field("host", STRING, proto=2, description="The node it runs on."),
    ),
)

CORE_EVENT_SERIES = Struct(
    "v1.EventSeries",
    definition="io.k8s.api.core.v1.EventSeries",
    description="A run of the same event.",
    fields=(
        Field("count", INT32, proto=1, description="How often it has happened."),
        Field("lastObservedTime", MICRO_TIME, proto=2, description="When it last happened."),
    ),
)

CORE_EVENT = Struct(
    "v1.Event",
    definition="io.k8s.api.core.v1.Event",
    description="A report of something that happened to an object.",
    fields=(
        *type_meta(),
        _metadata(omitempty=False),
        Field("involvedObject", OBJECT_REFERENCE, omitempty=False, proto=2, required=True,
              description="The object the event is about."),
        Field("reason", STRING, proto=3, description="Why it happened, in UpperCamelCase."),
        Field("message", STRING, proto=4, description="What happened, for people."),
        Field("source", EVENT_SOURCE, proto=5, description="What reported it."),
        Field("firstTimestamp", TIME, proto=6, description="When it first happened."),
        Field("lastTimestamp", TIME, proto=7, description="When it last happened."),
        Field("count", INT32, proto=8, description="How often it happened."),
        Field("type", STRING, proto=9, description="Normal or Warning."),
        Field("eventTime", MICRO_TIME, proto=10, description="When it was first seen, to the microsecond."),
        Field("series", Pointer("*v1.EventSeries", CORE_EVENT_SERIES), proto=11, description="Its run, if it repeats."),
        Field("action", STRING, proto=12, description="What was done, or failed, about the object."),
        Field("related", Pointer("*v1.ObjectReference", OBJECT_REFERENCE), proto=13, description="A second object."),
        Field("reportingComponent", STRING, omitempty=False, proto=14, description="The controller that reported it."),
        Field("reportingInstance", STRING, omitempty=False, proto=15, description="Which instance of it."),
    ),
)  # fmt: skip

# -- events.k8s.io/v1 ------------------------------------------------------------------------------

EVENTS_EVENT_SERIES = Struct(
    "v1.EventSeries",
    definition="io.k8s.api.events.v1.EventSeries",
    description="A run of the same event.",
    fields=(
        Field("count", INT32, omitempty=False, proto=1, required=True, description="How often it has happened."),
        Field("lastObservedTime", MICRO_TIME, omitempty=False, proto=2, required=True,
              description="When it last happened."),
    ),
)  # fmt: skip

EVENTS_EVENT = Struct(
    "v1.Event",
    definition="io.k8s.api.events.v1.Event",
    description="A report of something that happened to an object (the same events as core v1's).",
    fields=(
        *type_meta(),
        _metadata(omitempty=False),
        Field("eventTime", MICRO_TIME, omitempty=False, proto=2, required=True,
              description="When it was first seen, to the microsecond."),
        Field("series", Pointer("*v1.EventSeries", EVENTS_EVENT_SERIES), proto=3, description="Its run, if it repeats."),
        Field("reportingController", STRING, proto=4, description="The controller that reported it."),
        Field("reportingInstance", STRING, proto=5, description="Which instance of it."),
        Field("action", STRING, proto=6, description="What was done, or failed, about the object."),
        Field("reason", STRING, proto=7, description="Why it happened, in UpperCamelCase."),
        Field("regarding", OBJECT_REFERENCE, proto=8, description="The object the event is about."),
        Field("related", Pointer("*v1.ObjectReference", OBJECT_REFERENCE), proto=9, description="A second object."),
        Field("note", STRING, proto=10, description="What happened, for people."),
        Field("type", STRING, proto=11, description="Normal or Warning."),
        Field("deprecatedSource", EVENT_SOURCE, proto=12, description="core v1's source."),
        Field("deprecatedFirstTimestamp", TIME, proto=13, description="core v1's firstTimestamp."),
        Field("deprecatedLastTimestamp", TIME, proto=14, description="core v1's lastTimestamp."),
        Field("deprecatedCount", INT32, proto=15, description="core v1's count."),
    ),
)  # fmt: skip

# -- coordination.k8s.io/v1 --------------------------------------------------------------------------

LEASE_SPEC = Struct(
    "v1.LeaseSpec",
    definition="io.k8s.api.coordination.v1.LeaseSpec",
    description="Who holds the lease, and until when.",
    fields=(
        Field("holderIdentity", Pointer("*string", STRING), proto=1, description="The current holder."),
        Field("leaseDurationSeconds", Pointer("*int32", INT32), proto=2,
              description="How long others wait after the last renewal before taking the lease."),
        Field("acquireTime", Pointer("*v1.MicroTime", MICRO_TIME), proto=3, description="When the holder took it."),
        Field("renewTime", Pointer("*v1.MicroTime", MICRO_TIME), proto=4, description="When the holder last renewed it."),
        Field("leaseTransitions", Pointer("*int32", INT32), proto=5, description="How often the holder changed."),
        Field("strategy", Pointer("*v1.CoordinatedLeaseStrategy", Scalar("v1.CoordinatedLeaseStrategy")), proto=6,
              description="How coordinated leader election picks a holder (feature CoordinatedLeaderElection)."),
        Field("preferredHolder", Pointer("*string", STRING), proto=7,
              description="Who should hold it next (feature CoordinatedLeaderElection)."),
    ),
)  # fmt: skip

LEASE = Struct(
    "v1.Lease",
    definition="io.k8s.api.coordination.v1.Lease",
    description="A lease: what leader election and heartbeats hold.",
    fields=(*type_meta(), _metadata(), Field("spec", LEASE_SPEC, proto=2, description="The lease itself.")),
)
