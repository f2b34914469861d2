package v1

import (
	"k8s.io/apimachinery/pkg/types"
)

// The options kinds travel as query parameters of the REST verbs (DeleteOptions also as
// a body). apimachinery also gives the query-parameter kinds conversion-gen's
// explicit-from=net/url.Values marker; kgen's marker registry does not know it (it would
// warn on every run), so it is left out here.

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ListOptions are the query options of a list or watch call.
//
// +k8s:deprecated=includeUninitialized,protobuf=6
type ListOptions struct {
	TypeMeta `json:",inline"`

	// labelSelector keeps only the objects whose labels match it; empty selects everything.
	// +optional
	LabelSelector string `json:"labelSelector,omitempty" protobuf:"bytes,1,opt,name=labelSelector"`
	// fieldSelector keeps only the objects whose fields match it; empty selects everything.
	// +optional
	FieldSelector string `json:"fieldSelector,omitempty" protobuf:"bytes,2,opt,name=fieldSelector"`

	// watch turns the call into a stream of added, modified and deleted events.
	// +optional
	Watch bool `json:"watch,omitempty" protobuf:"varint,3,opt,name=watch"`
	// allowWatchBookmarks asks a watch for BOOKMARK events; the server may send them
	// at any interval, or not at all. Ignored unless watch is set.
	// +optional
	AllowWatchBookmarks bool `json:"allowWatchBookmarks,omitempty" protobuf:"varint,9,opt,name=allowWatchBookmarks"`

	// resourceVersion bounds which resource versions the call may be served from, as
	// resourceVersionMatch says. Unset by default.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,4,opt,name=resourceVersion"`

	// resourceVersionMatch says how resourceVersion applies to a list call. Unset by default.
	// +optional
	ResourceVersionMatch ResourceVersionMatch `json:"resourceVersionMatch,omitempty" protobuf:"bytes,10,opt,name=resourceVersionMatch,casttype=ResourceVersionMatch"`
	// timeoutSeconds ends the call after this many seconds, busy or idle.
	// +optional
	TimeoutSeconds *int64 `json:"timeoutSeconds,omitempty" protobuf:"varint,5,opt,name=timeoutSeconds"`

	// limit is the most items one list response may hold; when more remain, the list
	// metadata's continue token fetches the next page from the same snapshot. Not
	// supported with watch.
	Limit int64 `json:"limit,omitempty" protobuf:"varint,7,opt,name=limit"`
	// continue is the token of a previous paged response, asking for its next page.
	// Not supported with watch.
	Continue string `json:"continue,omitempty" protobuf:"bytes,8,opt,name=continue"`

	// sendInitialEvents starts a watch with synthetic events for the objects that
	// already exist, then a bookmark annotated "k8s.io/initial-events-end"; it needs
	// resourceVersionMatch=NotOlderThan.
	// +optional
	SendInitialEvents *bool `json:"sendInitialEvents,omitempty" protobuf:"varint,11,opt,name=sendInitialEvents"`

	// shardSelector keeps only the objects of one hash shard: a CEL expression of
	// shardRange(object.metadata.uid|namespace, 'start', 'end') calls joined by ||.
	// Alpha: needs the ShardedListAndWatch feature gate.
	// +featureGate=ShardedListAndWatch
	// +optional
	ShardSelector string `json:"shardSelector,omitempty" protobuf:"bytes,15,opt,name=shardSelector"`
}

// ResourceVersionMatch says how a list call's resourceVersion is applied; it may
// be set only together with resourceVersion.
type ResourceVersionMatch string

const (
	// ResourceVersionMatchNotOlderThan serves data at least as new as resourceVersion.
	ResourceVersionMatchNotOlderThan ResourceVersionMatch = "NotOlderThan"
	// ResourceVersionMatchExact serves data at exactly resourceVersion.
	ResourceVersionMatchExact ResourceVersionMatch = "Exact"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GetOptions are the query options of a get call.
//
// +k8s:deprecated=includeUninitialized,protobuf=2
type GetOptions struct {
	TypeMeta `json:",inline"`
	// resourceVersion bounds which resource version the object may be served from.
	// Unset by default.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,1,opt,name=resourceVersion"`
}

// DeletionPropagation says whether and how the garbage collector deletes the
// dependents of a deleted object.
type DeletionPropagation string

const (
	// DeletePropagationOrphan leaves the dependents in place.
	DeletePropagationOrphan DeletionPropagation = "Orphan"
	// DeletePropagationBackground deletes the object now and its dependents afterwards.
	DeletePropagationBackground DeletionPropagation = "Background"
	// DeletePropagationForeground keeps the object until its blocking dependents are gone.
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DeleteOptions are the options of a delete call.
type DeleteOptions struct {
	TypeMeta `json:",inline"`

	// gracePeriodSeconds is how long the object may take to go away (0: at once);
	// nil uses the kind's default.
	// +optional
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`

	// preconditions must hold for the delete to happen, else it fails with 409 Conflict.
	// +k8s:conversion-gen=false
	// +optional
	Preconditions *Preconditions `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`

	// Deprecated: use propagationPolicy. orphanDependents adds (true) or removes (false)
	// the "orphan" finalizer; it may not be set together with propagationPolicy.
	// +optional
	OrphanDependents *bool `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`

	// propagationPolicy says what happens to the dependents: Orphan, Background or
	// Foreground. Unset, the finalizers and the kind's default decide.
	// +optional
	PropagationPolicy *DeletionPropagation `json:"propagationPolicy,omitempty" protobuf:"varint,4,opt,name=propagationPolicy"`

	// dryRun ("All") runs every stage of the request without persisting it; an
	// unknown value fails the request.
	// +optional
	// +listType=atomic
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`

	// ignoreStoreReadErrorWithClusterBreakingPotential deletes an object the store
	// cannot read or decode, skipping finalizers and preconditions. Dangerous; off
	// unless set.
	// +optional
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty" protobuf:"varint,6,opt,name=ignoreStoreReadErrorWithClusterBreakingPotential"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CreateOptions are the query options of a create call.
//
// +k8s:deprecated=includeUninitialized,protobuf=2
type CreateOptions struct {
	TypeMeta `json:",inline"`

	// dryRun ("All") runs every stage of the request without persisting it; an
	// unknown value fails the request.
	// +optional
	// +listType=atomic
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`

	// fieldManager names the actor making the change: at most 128 printable characters.
	// +optional
	FieldManager string `json:"fieldManager,omitempty" protobuf:"bytes,3,name=fieldManager"`

	// fieldValidation says what to do with unknown or duplicate fields in the body:
	// Ignore (drop them), Warn (drop them with a warning header each; the default) or
	// Strict (fail with BadRequest listing them all).
	// +optional
	FieldValidation string `json:"fieldValidation,omitempty" protobuf:"bytes,4,name=fieldValidation"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PatchOptions are the query options of a patch call (a superset of UpdateOptions).
type PatchOptions struct {
	TypeMeta `json:",inline"`

	// dryRun ("All") runs every stage of the request without persisting it; an
	// unknown value fails the request.
	// +optional
	// +listType=atomic
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`

	// force makes an apply take over fields other managers own; only for apply patches.
	// +optional
	Force *bool `json:"force,omitempty" protobuf:"varint,2,opt,name=force"`

	// fieldManager names the actor making the change: at most 128 printable characters;
	// required for apply patches.
	// +optional
	FieldManager string `json:"fieldManager,omitempty" protobuf:"bytes,3,name=fieldManager"`

	// fieldValidation says what to do with unknown or duplicate fields in the body:
	// Ignore, Warn (the default) or Strict.
	// +optional
	FieldValidation string `json:"fieldValidation,omitempty" protobuf:"bytes,4,name=fieldValidation"`
}

// ApplyOptions are the options of a server-side apply: PatchOptions with the
// field manager required.
type ApplyOptions struct {
	TypeMeta `json:",inline"`

	// dryRun ("All") runs every stage of the request without persisting it; an
	// unknown value fails the request.
	// +optional
	// +listType=atomic
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`

	// force makes the apply take over fields other managers own.
	Force bool `json:"force" protobuf:"varint,2,opt,name=force"`

	// fieldManager names the actor making the change: at most 128 printable characters.
	FieldManager string `json:"fieldManager" protobuf:"bytes,3,name=fieldManager"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateOptions are the query options of an update call; PatchOptions has them all.
type UpdateOptions struct {
	TypeMeta `json:",inline"`

	// dryRun ("All") runs every stage of the request without persisting it; an
	// unknown value fails the request.
	// +optional
	// +listType=atomic
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`

	// fieldManager names the actor making the change: at most 128 printable characters.
	// +optional
	FieldManager string `json:"fieldManager,omitempty" protobuf:"bytes,2,name=fieldManager"`

	// fieldValidation says what to do with unknown or duplicate fields in the body:
	// Ignore, Warn (the default) or Strict.
	// +optional
	FieldValidation string `json:"fieldValidation,omitempty" protobuf:"bytes,3,name=fieldValidation"`
}

// Preconditions must hold before an update or delete is carried out.
type Preconditions struct {
	// uid the object must have.
	// +optional
	UID *types.UID `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// resourceVersion the object must have.
	// +optional
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}
