/*
Copyright The kgen Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
*/

package v1beta1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=frobbers,scope=Namespaced,shortName=fb

// Frobber frobnicates widgets at a configurable intensity.
type Frobber struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the desired state of the Frobber.
	// +optional
	Spec FrobberSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Status is the observed state of the Frobber.
	// +optional
	Status FrobberStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FrobberSpec is the desired state of a Frobber.
type FrobberSpec struct {
	// FrobberCommon holds the settings every version shares.
	FrobberCommon `json:"" protobuf:"bytes,1,opt,name=frobberCommon"`

	// Param is the single parameter older clients set.
	// Deprecated: use params. When both are set, param must equal params[0].
	// +optional
	Param string `json:"param,omitempty" protobuf:"bytes,2,opt,name=param"`

	// Params are the parameters the Frobber is invoked with, in order.
	// +optional
	// +listType=atomic
	Params []string `json:"params,omitempty" protobuf:"bytes,3,rep,name=params"`

	// Height is how tall the frobbed widget is, in inches.
	// +optional
	Height *int32 `json:"height,omitempty" protobuf:"varint,4,opt,name=height"`

	// Replicas is the number of frobbing workers.
	// Defaults to 1.
	// +optional
	// +default=1
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,5,opt,name=replicas"`

	// Mode is how vigorously to frob.
	// Defaults to Gentle.
	// +optional
	// +default="Gentle"
	Mode FrobberMode `json:"mode,omitempty" protobuf:"bytes,6,opt,name=mode,casttype=FrobberMode"`

	// Turbo frobs twice as fast. Alpha: only honoured when the FrobberTurbo feature gate is on.
	// +featureGate=FrobberTurbo
	// +optional
	Turbo *bool `json:"turbo,omitempty" protobuf:"varint,7,opt,name=turbo"`

	// Ports the Frobber listens on, keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchMergeKey=name
	// +patchStrategy=merge
	Ports []FrobberPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,8,rep,name=ports"`

	// Resources reserved for each worker.
	// +optional
	Resources map[string]resource.Quantity `json:"resources,omitempty" protobuf:"bytes,9,rep,name=resources"`

	// Selector selects the widgets to frob.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,10,opt,name=selector"`

	// MaxUnavailable is how many workers may be down during an update: a number or a percentage.
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,11,opt,name=maxUnavailable"`
}

// FrobberCommon holds the settings every version of FrobberSpec shares.
type FrobberCommon struct {
	// Description is shown to humans.
	// +optional
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`

	// Priority orders Frobbers competing for the same widgets; higher goes first.
	// +optional
	Priority int32 `json:"priority,omitempty" protobuf:"varint,2,opt,name=priority"`
}

// FrobberMode is how vigorously a Frobber frobs.
// +enum
type FrobberMode string

const (
	FrobberModeGentle   FrobberMode = "Gentle"
	FrobberModeVigorous FrobberMode = "Vigorous"
)

// FrobberPort is a named network port.
type FrobberPort struct {
	// Name of the port; unique within the Frobber.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Port number.
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`
	// Protocol of the port. Defaults to TCP.
	// +optional
	// +default="TCP"
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol"`
}

// FrobberStatus is the observed state of a Frobber.
type FrobberStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`

	// Phase summarizes the Frobber's state.
	// +optional
	Phase string `json:"phase,omitempty" protobuf:"bytes,2,opt,name=phase"`

	// Conditions of the Frobber.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,3,rep,name=conditions"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FrobberList is a list of Frobbers.
type FrobberList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items is the list of Frobbers.
	Items []Frobber `json:"items" protobuf:"bytes,2,rep,name=items"`
}
