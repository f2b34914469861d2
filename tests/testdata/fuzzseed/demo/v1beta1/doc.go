// Package v1 is the v1beta1 version of the demo API.
// +k8s:deepcopy-gen=package
// +k8s:protobuf-gen=package
// +groupName=demo.example.com
package v1beta1
