package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// WatchEvent is one event of a watch stream: what happened and to which object.
//
// +protobuf=true
// +k8s:deepcopy-gen=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type WatchEvent struct {
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`

	// object is the object's new state (ADDED, MODIFIED), its last state (DELETED),
	// or for ERROR usually a Status.
	Object runtime.RawExtension `json:"object" protobuf:"bytes,2,opt,name=object"`
}
