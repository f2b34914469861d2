// kgen's description of k8s.io/apimachinery/pkg/runtime, the subset API types use.

// +k8s:protobuf-gen=package
package runtime

// RawExtension is used to hold extensions in external versions.
// Its JSON form is the embedded object itself.
//
// +kgen:python=kgen.runtime.rawjson:RawExtension
// +kgen:jsonType=object
// +kgen:mutable
type RawExtension struct {
	// Raw is the underlying serialization of this object.
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

// Unknown allows api objects with unknown types to be passed-through.
// It is the envelope of the Kubernetes protobuf encoding.
type Unknown struct {
	TypeMeta `json:",inline" protobuf:"bytes,1,opt,name=typeMeta"`
	// Raw will hold the complete serialized object.
	Raw []byte `json:"raw" protobuf:"bytes,2,opt,name=raw"`
	// ContentEncoding is encoding used to encode 'Raw' data.
	ContentEncoding string `json:"contentEncoding" protobuf:"bytes,3,opt,name=contentEncoding"`
	// ContentType is serialization method used to serialize 'Raw'.
	ContentType string `json:"contentType" protobuf:"bytes,4,opt,name=contentType"`
}

// TypeMeta is shared by all top level objects in the runtime envelope.
type TypeMeta struct {
	// +optional
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	// +optional
	Kind string `json:"kind,omitempty" protobuf:"bytes,2,opt,name=kind"`
}
