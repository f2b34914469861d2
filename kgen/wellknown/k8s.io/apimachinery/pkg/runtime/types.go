// kgen's description of k8s.io/apimachinery/pkg/runtime: the API types of the runtime
// package (its interfaces, codecs and Scheme are kgen's own, in kgen.runtime).

// +k8s:openapi-model-package=io.k8s.apimachinery.pkg.runtime
// +k8s:protobuf-gen=package
package runtime

// TypeMeta is the apiVersion and kind every top-level object in the runtime envelope carries.
//
// +k8s:deepcopy-gen=false
// +protobuf=true
// +k8s:openapi-gen=true
type TypeMeta struct {
	// +optional
	APIVersion string `json:"apiVersion,omitempty" yaml:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	// +optional
	Kind string `json:"kind,omitempty" yaml:"kind,omitempty" protobuf:"bytes,2,opt,name=kind"`
}

// Object is what Go code holds any API object as: an interface, which API types do not
// hold (Go code's own types in an API package may, as velero's scheme registration does).
type Object interface {
	DeepCopyObject() Object
}

// Go's RawExtension also has an Object field (json:"-", an interface holding the
// decoded object); kgen's Python class keeps the parsed JSON instead.

// RawExtension carries an embedded object of any type in a versioned (external) API.
// Its JSON form is the embedded object itself.
//
// +k8s:deepcopy-gen=true
// +protobuf=true
// +k8s:openapi-gen=true
// +kgen:python=kgen.runtime.rawjson:RawExtension
// +kgen:jsonType=object
// +kgen:mutable
type RawExtension struct {
	// Raw is the embedded object's encoded bytes.
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

// Go writes an Unknown in JSON as its Raw bytes; in the model, as for any struct, Raw
// (json:"-") is not a JSON field. kgen.runtime.protobuf reads and writes the envelope
// through the message itself.

// Unknown carries an API object of a type the reader does not know, unchanged.
// It is the envelope of the Kubernetes protobuf encoding.
//
// +k8s:deepcopy-gen=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +protobuf=true
// +k8s:openapi-gen=true
type Unknown struct {
	TypeMeta `json:",inline" protobuf:"bytes,1,opt,name=typeMeta"`
	// Raw is the whole object, encoded.
	Raw []byte `json:"-" protobuf:"bytes,2,opt,name=raw"`
	// ContentEncoding is the encoding Raw's bytes were written with.
	ContentEncoding string `protobuf:"bytes,3,opt,name=contentEncoding"`
	// ContentType is the media type Raw is serialized in.
	ContentType string `protobuf:"bytes,4,opt,name=contentType"`
}
