/*
Copyright The kgen Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
*/

package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=frobberclasses,scope=Cluster,shortName=fbc
// +kgen:storageVersion

// FrobberClass is a cluster-wide class of Frobbers, set up by an administrator.
type FrobberClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata. Class names are DNS labels.
	// +optional
	// +k8s:subfield("name")=+k8s:format=k8s-short-name
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Controller is the name of the controller that frobs for this class.
	// +k8s:required
	// +k8s:immutable
	// +k8s:format=k8s-prefixed-label-key
	Controller string `json:"controller" protobuf:"bytes,2,opt,name=controller"`

	// Parameters passed to the controller.
	// +kubebuilder:validation:Optional
	// +kubebuilder:validation:MaxProperties=32
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters"`

	// Quota is the total amount of frobbing the class allows.
	// +optional
	Quota resource.Quantity `json:"quota,omitempty" protobuf:"bytes,4,opt,name=quota"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// FrobberClassList is a list of FrobberClasses.
type FrobberClassList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items is the list of FrobberClasses.
	Items []FrobberClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
