package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// Table shows a set of resources as rows of cells under typed columns, the server's
// choice of what is worth seeing at a glance. It has no protobuf form (its cells hold
// arbitrary JSON).
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +protobuf=false
type Table struct {
	TypeMeta `json:",inline"`
	// metadata is the table's list metadata.
	// +optional
	ListMeta `json:"metadata,omitempty"`

	// columnDefinitions describe the columns; every row has one cell per column.
	// +listType=atomic
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	// rows of the table.
	// +listType=atomic
	Rows []TableRow `json:"rows"`
}

// TableColumnDefinition describes one column of a Table.
//
// +protobuf=false
type TableColumnDefinition struct {
	// name is the column's human-readable name.
	Name string `json:"name"`
	// type of the cells, as an OpenAPI type (string, number, integer, boolean, array, ...).
	Type string `json:"type"`
	// format refines the type, as an OpenAPI format; "name" marks the column that holds
	// the resource's name.
	Format string `json:"format"`
	// description of the column, for people.
	Description string `json:"description"`
	// priority ranks the column: the lower, the more important; clients short of space
	// drop the higher ones first.
	Priority int32 `json:"priority"`
}

// TableRow is one row of a Table.
//
// +protobuf=false
type TableRow struct {
	// cells hold the row's values, one per column: strings, numbers, booleans, simple
	// maps and lists, or null, as the column's type says.
	// +listType=atomic
	// +kgen:opaque
	Cells []interface{} `json:"cells"`
	// conditions of the row (not of the object) that matter to a reader; only
	// "Completed" is defined.
	// +optional
	// +listType=atomic
	Conditions []TableRowCondition `json:"conditions,omitempty"`
	// object is the row's object as the request's includeObject asked: nothing (None),
	// its metadata as a PartialObjectMetadata (Metadata, the default) or all of it
	// (Object), in the encoding of the table itself.
	// +optional
	Object runtime.RawExtension `json:"object,omitempty"`
}

// TableRowCondition is one condition of a table row.
//
// +protobuf=false
type TableRowCondition struct {
	// type of the condition; "Completed" is the one defined.
	Type RowConditionType `json:"type"`
	// status of the condition: True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// reason is a short machine-readable cause of the last transition.
	// +optional
	Reason string `json:"reason,omitempty"`
	// message explains the last transition to a person.
	// +optional
	Message string `json:"message,omitempty"`
}

// RowConditionType is the type of a table row condition; more may be added.
type RowConditionType string

const (
	// RowCompleted marks a row whose resource has run to completion, so that it may be
	// shown with less emphasis.
	RowCompleted RowConditionType = "Completed"
)

// IncludeObjectPolicy says how much of each object a Table carries.
type IncludeObjectPolicy string

const (
	// IncludeNone carries no object.
	IncludeNone IncludeObjectPolicy = "None"
	// IncludeMetadata carries the object's metadata only.
	IncludeMetadata IncludeObjectPolicy = "Metadata"
	// IncludeObject carries the whole object.
	IncludeObject IncludeObjectPolicy = "Object"
)

// TableOptions are the query options of a request for a Table.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type TableOptions struct {
	TypeMeta `json:",inline"`

	// NoHeaders leaves out the column definitions; for callers inside the server only,
	// it is not part of the API's JSON.
	NoHeaders bool `json:"-"`

	// includeObject says what each row's object holds: None, Metadata (the default, as
	// a meta.k8s.io/v1beta1 PartialObjectMetadata) or Object.
	IncludeObject IncludeObjectPolicy `json:"includeObject,omitempty" protobuf:"bytes,1,opt,name=includeObject,casttype=IncludeObjectPolicy"`
}

// PartialObjectMetadata is any object reduced to its metadata, for clients that need
// only ObjectMeta.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type PartialObjectMetadata struct {
	TypeMeta `json:",inline"`
	// metadata is the object's metadata.
	// +optional
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
}

// PartialObjectMetadataList is a list of objects reduced to their metadata.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type PartialObjectMetadataList struct {
	TypeMeta `json:",inline"`
	// metadata is the list's metadata.
	// +optional
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the objects' metadata.
	Items []PartialObjectMetadata `json:"items" protobuf:"bytes,2,rep,name=items"`
}
