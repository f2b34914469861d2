// kgen's description of k8s.io/apimachinery/pkg/api/resource.

// +k8s:protobuf-gen=package
package resource

// Quantity is a fixed-point representation of a number.
// It provides convenient marshaling/unmarshaling in JSON and YAML,
// in addition to String() and AsInt64() accessors.
//
// The serialization format is:
//
//	<quantity>        ::= <signedNumber><suffix>
//	<suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//	<binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//	<decimalSI>       ::= m | "" | k | M | G | T | P | E
//	<decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
//
// +kgen:python=kgen.runtime.quantity:Quantity
// +kgen:jsonType=int-or-string
// +protobuf.embed=string
type Quantity struct {
	String string `protobuf:"bytes,1,opt,name=string"`
}
