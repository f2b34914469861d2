// kgen's description of k8s.io/apimachinery/pkg/runtime/schema: group, version, kind and
// resource names as Go code passes them around. They have no JSON tags (encoding/json
// writes the Go field names), no protobuf messages and no published schema (openapi-gen
// does not read this package).

// +k8s:openapi-gen=false
package schema

// GroupResource names a resource by group, without a version.
type GroupResource struct {
	Group    string
	Resource string
}

// GroupVersionResource names a resource exactly: group, version and resource.
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// GroupKind names a kind by group, without a version.
type GroupKind struct {
	Group string
	Kind  string
}

// GroupVersionKind names a kind exactly: group, version and kind.
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// GroupVersion is an API group and one of its versions.
type GroupVersion struct {
	Group   string
	Version string
}
