package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// TypeMeta names the kind and API version of one object sent to or received from
// the server. Versioned and stored types are expected to embed it inline.
//
// +k8s:deepcopy-gen=false
type TypeMeta struct {
	// Kind is the CamelCase name of the object's type, which stands for a REST resource.
	// A server may work it out from the URL the request was sent to.
	// It cannot change once set.
	// +optional
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`

	// APIVersion is the group/version whose schema this representation follows. A
	// server converts versions it knows to its latest internal form and may refuse
	// versions it does not know.
	// +optional
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
}

// ListMeta is the metadata of resources the server makes up rather than stores, such
// as lists and status objects. A type has ObjectMeta or ListMeta, never both.
type ListMeta struct {
	// Deprecated: selfLink is an old read-only field; the server no longer fills it in.
	// +optional
	SelfLink string `json:"selfLink,omitempty" protobuf:"bytes,1,opt,name=selfLink"`

	// ResourceVersion is the server's opaque internal version of the list; clients
	// compare it with an earlier one to tell whether anything has changed.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`

	// continue is set when the request had a limit and more items remain. It is an
	// opaque token; passing it back to the same endpoint fetches the next page.
	Continue string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`

	// remainingItemCount counts the items that come after this response and are not
	// part of it.
	// +optional
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"bytes,4,opt,name=remainingItemCount"`

	// shardInfo is present when the list holds only the shard of the collection that the
	// request's shard selector chose; it repeats that selector.
	// Alpha: needs the ShardedListAndWatch feature gate.
	// +featureGate=ShardedListAndWatch
	// +optional
	ShardInfo *ShardInfo `json:"shardInfo,omitempty" protobuf:"bytes,5,opt,name=shardInfo"`
}

// ShardInfo names the shard selector a list response was filtered by.
type ShardInfo struct {
	// selector is the request's shard selector, as the client sent it.
	// +required
	Selector string `json:"selector" protobuf:"bytes,1,opt,name=selector"`
}

// ObjectMeta is the metadata every stored resource carries, and so every object a
// user creates.
//
// +k8s:deprecated=clusterName,protobuf=15
type ObjectMeta struct {
	// Name identifies the object in its namespace, where no two objects share it. A
	// create request must give it unless the resource lets the server make one up
	// (see generateName). It exists mainly to make creation idempotent and to refer to
	// objects in configuration.
	// It cannot change once set.
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`

	// GenerateName is a prefix from which the server makes up a unique name, used
	// only when Name is empty.
	// +optional
	GenerateName string `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`

	// Namespace is the scope inside which names are unique. Empty means the same as
	// "default", which is the preferred spelling. Objects that are not namespaced
	// (cluster-scoped) leave it empty.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`

	// Deprecated: selfLink is an old read-only field; the server no longer fills it in.
	// +optional
	SelfLink string `json:"selfLink,omitempty" protobuf:"bytes,4,opt,name=selfLink"`

	// UID tells this object apart from every other object, past or future. The server
	// usually assigns it when the object is created, and an update (PUT) may not
	// change it.
	// +optional
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid,casttype=k8s.io/kubernetes/pkg/types.UID"`

	// ResourceVersion is the server's opaque internal version of the object; clients
	// compare it with an earlier one to tell whether the object has changed.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`

	// Generation counts the versions of the desired state; the server sets it and
	// clients only read it.
	// +optional
	Generation int64 `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`

	// CreationTimestamp is the time on the server's clock when the object was
	// created.
	// +optional
	CreationTimestamp Time `json:"creationTimestamp,omitempty,omitzero" protobuf:"bytes,8,opt,name=creationTimestamp"`

	// DeletionTimestamp is when the resource is due to be deleted, as an RFC 3339 date and time.
	// +optional
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`

	// DeletionGracePeriodSeconds is how many seconds the object has to shut down
	// gracefully before it is removed. Set only together with deletionTimestamp.
	// +optional
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`

	// Labels are string key/value pairs that sort objects into groups, so that
	// they can be scoped and selected.
	// +optional
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels"`

	// Annotations are free-form string key/value pairs kept with the resource, in
	// which tools can record and read back any metadata they like.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations"`

	// OwnerReferences lists the objects this object depends on. Once every one of
	// them is gone, the garbage collector deletes this object too.
	// +optional
	// +patchMergeKey=uid
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=uid
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,13,rep,name=ownerReferences"`

	// Finalizers name the components that still have work to do before the object
	// is removed from storage, which waits until the list is empty; each component
	// takes its own entry out when it is done.
	// +optional
	// +patchStrategy=merge
	// +listType=set
	Finalizers []string `json:"finalizers,omitempty" patchStrategy:"merge" protobuf:"bytes,14,rep,name=finalizers"`

	// ManagedFields records, for each workflow (manager) and version, the fields
	// that workflow manages.
	//
	// +optional
	// +listType=atomic
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// OwnerReference points at an object that owns this one. The owner lives in the
// dependent's namespace or is cluster-scoped, which is why there is no namespace
// field.
// +structType=atomic
type OwnerReference struct {
	// APIVersion is the owner's API version.
	APIVersion string `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	// Kind is the owner's kind.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// Name is the owner's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// UID is the owner's UID.
	UID types.UID `json:"uid" protobuf:"bytes,4,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// Controller is true when the owner is the controller that manages this object.
	// +optional
	Controller *bool `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	// BlockOwnerDeletion, when true and the owner has the "foregroundDeletion"
	// finalizer, keeps the owner in the key-value store until this reference
	// has been taken out.
	// +optional
	BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// ManagedFieldsEntry records the fields one workflow manages: a workflow id, a field
// set, and the group version that set is expressed in.
//
// +k8s:deprecated=fields,protobuf=5
type ManagedFieldsEntry struct {
	// Manager identifies the workflow that manages these fields.
	Manager string `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	// Operation is the kind of request that produced this entry: 'Apply' or
	// 'Update', the only two values allowed.
	Operation ManagedFieldsOperationType `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation,casttype=ManagedFieldsOperationType"`
	// APIVersion is the version of the resource that the field set is written
	// against.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	// Time is when this entry was added.
	// +optional
	Time *Time `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	// FieldsType says which format and version the fields are written in.
	// "FieldsV1" is the only value so far.
	FieldsType string `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	// FieldsV1 holds the fields in the first JSON format, the "FieldsV1" type.
	// +optional
	FieldsV1 *FieldsV1 `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	// Subresource names the subresource through which the object was updated; it
	// is empty when the update went through the main resource.
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// ManagedFieldsOperationType is the kind of request that produced a ManagedFieldsEntry.
type ManagedFieldsOperationType string

const (
	ManagedFieldsOperationApply  ManagedFieldsOperationType = "Apply"
	ManagedFieldsOperationUpdate ManagedFieldsOperationType = "Update"
)

// FieldsV1 is a set of fields, written as JSON nested like a trie.
//
// +k8s:deepcopy-gen=false
// +protobuf.options.marshal=false
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +kgen:python=kgen.runtime.rawjson:FieldsV1
// +kgen:jsonType=object
// +kgen:mutable
type FieldsV1 struct {
	// Raw is the set's JSON encoding.
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=Raw"`
}

// Condition reports on one aspect of an API resource's current state.
type Condition struct {
	// type names the condition, as CamelCase or foo.example.com/CamelCase.
	// +required
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`
	// +kubebuilder:validation:MaxLength=316
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// status is True, False or Unknown.
	// +required
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// observedGeneration is the .metadata.generation the condition was worked out from.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// lastTransitionTime is when the status last changed.
	// +required
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	LastTransitionTime Time `json:"lastTransitionTime" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// reason is a machine-readable identifier for why the condition last changed.
	// +required
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Pattern=`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`
	Reason string `json:"reason" protobuf:"bytes,5,opt,name=reason"`
	// message explains the last change to a person.
	// It may be empty.
	// +required
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message" protobuf:"bytes,6,opt,name=message"`
}

// ConditionStatus is the status of a condition.
type ConditionStatus string

// The condition statuses: ConditionTrue when the resource is in the condition,
// ConditionFalse when it is not, and ConditionUnknown when Kubernetes cannot tell
// either way.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// List is a list of objects of any kind, each kept as the JSON it arrived as; the
// server need not know their types.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type List struct {
	TypeMeta `json:",inline"`
	// metadata is the list's metadata.
	// +optional
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the objects of the list.
	Items []runtime.RawExtension `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Patch names the body of a PATCH request; its content depends on the patch type, so
// it has no fields of its own.
type Patch struct{}
