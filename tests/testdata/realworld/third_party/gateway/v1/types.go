// Package v1 stands in for an API package of another repository (read via --import-map).
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GRPCRoute routes gRPC traffic.
type GRPCRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec defines the desired state of GRPCRoute.
	Spec GRPCRouteSpec `json:"spec,omitempty"`
}

// GRPCRouteSpec defines the desired state of GRPCRoute.
type GRPCRouteSpec struct {
	// Hostnames to match.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Hostnames []Hostname `json:"hostnames,omitempty"`
}

// Hostname is a DNS host name.
type Hostname string
