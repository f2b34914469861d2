// Package v1 is """ hostile \ docs.
// +k8s:deepcopy-gen=package
// +groupName=hostile.example.com
package v1
