// kgen's description of k8s.io/apimachinery/pkg/api/resource.

// +k8s:openapi-model-package=io.k8s.apimachinery.pkg.api.resource
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
// +protobuf=true
// +protobuf.embed=string
// +protobuf.options.marshal=false
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +k8s:deepcopy-gen=true
// +k8s:openapi-gen=true
// +kgen:python=kgen.runtime.quantity:Quantity
// +kgen:jsonType=int-or-string
type Quantity struct {
	String string `protobuf:"bytes,1,opt,name=string"`
}

// Go embeds Quantity in QuantityValue, so its JSON and protobuf forms are Quantity's;
// so is its Python class.

// QuantityValue is a Quantity usable as a command-line flag value.
//
// +protobuf=true
// +protobuf.embed=string
// +protobuf.options.marshal=false
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +k8s:deepcopy-gen=true
// +kgen:python=kgen.runtime.quantity:Quantity
// +kgen:jsonType=int-or-string
type QuantityValue struct {
	String string `protobuf:"bytes,1,opt,name=string"`
}

// Format is how a Quantity is written: with a binary suffix (12Mi), a decimal suffix
// (12M) or a decimal exponent (12e6).
type Format string

// apimachinery declares these as untyped constants converted to Format
// (DecimalExponent = Format("DecimalExponent")); kgen reads a constant's type only
// from its declaration, so they are written typed here, with the same values.
const (
	DecimalExponent Format = "DecimalExponent"
	BinarySI        Format = "BinarySI"
	DecimalSI       Format = "DecimalSI"
)
