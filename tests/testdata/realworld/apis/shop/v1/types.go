/*
Copyright 2024 The Shop Authors.

Licensed under the Apache License, Version 2.0 (the "License");
*/

package v1

import (
	gw "example.com/gateway/apis/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Store is a shop front.
//
// It sells Items. This second paragraph is still
// documentation of Store.
// +kubebuilder:resource:scope=Cluster
type Store struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Spec   StoreSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status StoreStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type (
	// StoreSpec is the desired state of a Store.
	StoreSpec struct {
		Address `json:""`
		*Hours
		Owner          `json:"owner,omitempty"`
		Shelves, Bins int32 // how many of each the store has
		Stock         ResourceList              `json:"stock,omitempty"`
		Blobs         map[string][]byte         `json:"blobs,omitempty"`
		Aisles        map[AisleName][]string    `json:"aisles,omitempty"`
		Logo          []byte                    `json:"logo,omitempty"`
		Port          *intstr.IntOrString       `json:"port,omitempty"`
		Opened        metav1.Time               `json:"opened,omitempty"`
		Closed        *metav1.Time              `json:"closed,omitzero"`
		Ignored       string                    `json:"-"`
		Dash          string                    `json:"-,"`
		Count         int64                     `json:"count,string,omitempty"`
		Route         *Route                    `json:"route,omitempty"`
		Tuning        Tuning                    `json:"tuning,omitzero"`
		Level         Level                     `json:"level,omitempty"`
		// +kgen:opaque
		Extra interface{} `json:"extra,omitempty"`
		// Required is required.
		// +required
		Required string `json:"required" yaml:"required" custom:"kept verbatim"`
	}

	// Address is embedded and promoted (json:"").
	Address struct {
		Street string `json:"street,omitempty"`
		City   string `json:"city,omitempty"`
	}

	// Hours is embedded by pointer without a tag and promoted.
	Hours struct {
		Opens  string `json:"opens,omitempty"`
		Closes string `json:"closes,omitempty"`
		// City conflicts with Address.City at the same depth; Go drops both.
		City string `json:"city,omitempty"`
	}

	// Owner is embedded with a named tag: a normal field.
	Owner struct {
		Name string `json:"name"`
	}
)

// ResourceName names a resource.
type ResourceName string

// ResourceList maps resource names to quantities.
type ResourceList map[ResourceName]resource.Quantity

// AisleName names an aisle.
type AisleName string

// Route is defined from another repository's type.
type Route gw.GRPCRoute

// Time is an alias of the meta time.
type Time = metav1.Time

// StoreStatus is the observed state.
type StoreStatus struct {
	// LastAudit is when the store was last audited.
	LastAudit *Time `json:"lastAudit,omitempty"`
	// Phase of the store.
	Phase StorePhase `json:"phase,omitempty"`
}

// StorePhase is the phase of a store.
// +enum
type StorePhase string

// Phases of a store.
const (
	// StorePhaseOpen means the store is open.
	StorePhaseOpen StorePhase = "Open"
	StorePhaseClosed StorePhase = "Closed"
	// StorePhaseLegacy is not offered any more.
	// +k8s:enumExclude
	StorePhaseLegacy StorePhase = "Legacy"
	notAPhase = "x"
)

// Level is an integer level.
type Level int32

const (
	LevelLow Level = iota + 1
	LevelMid
	LevelHigh
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// StoreList is a list of Stores.
type StoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Store `json:"items"`
}

// helper is ignored: functions are not API.
func helper() string { return "" }

var ignoredVariable = 1
