// kgen's description of k8s.io/apimachinery/pkg/api/resource.

// +k8s:openapi-model-package=io.k8s.apimachinery.pkg.api.resource
// +k8s:protobuf-gen=package
package resource

// Quantity is an exact (fixed-point) decimal number with an optional unit suffix, such
// as 100m, 1.5Gi or 2e3. JSON and YAML carry it as a string; Go code reads it with
// String() and AsInt64().
//
// A quantity is a signed number followed by at most one suffix:
//
//	binary SI:        Ki, Mi, Gi, Ti, Pi, Ei (powers of 1024)
//	decimal SI:       m, k, M, G, T, P, E (powers of 1000; m is one thousandth)
//	decimal exponent: e or E followed by a signed number
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
