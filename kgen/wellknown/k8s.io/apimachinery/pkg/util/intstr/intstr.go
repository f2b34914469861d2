// kgen's description of k8s.io/apimachinery/pkg/util/intstr.

// +k8s:openapi-model-package=io.k8s.apimachinery.pkg.util.intstr
// +k8s:protobuf-gen=package
package intstr

// IntOrString holds either an int32 or a string. JSON and YAML carry it as whichever
// of the two it holds, so one field can take, say, a port number or a port name.
//
// +protobuf=true
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +k8s:openapi-gen=true
// +kgen:python=kgen.runtime.intstr:IntOrString
// +kgen:jsonType=int-or-string
type IntOrString struct {
	Type   Type   `protobuf:"varint,1,opt,name=type,casttype=Type"`
	IntVal int32  `protobuf:"varint,2,opt,name=intVal"`
	StrVal string `protobuf:"bytes,3,opt,name=strVal"`
}

// Type says which of the two values an IntOrString holds.
type Type int64

const (
	Int    Type = iota // an int32, in IntVal
	String             // a string, in StrVal
)
