// kgen's description of k8s.io/apimachinery/pkg/types: the named string types API types use.

package types

// UID is a unique identifier, often but not always a UUID, hence a string. It is a
// type of its own so that UIDs are not mixed up with names.
type UID string

// NodeName is the name of a node, a type of its own so that it is not mixed up with
// other names.
type NodeName string

// PatchType is the media type of a PATCH request's body, naming the kind of patch.
type PatchType string

// The patch types the API server accepts. ApplyPatchType is the same value as
// ApplyYAMLPatchType (apimachinery defines it as that constant; written here as the
// literal because kgen evaluates only constants declared earlier in a file).
const (
	JSONPatchType           PatchType = "application/json-patch+json"
	MergePatchType          PatchType = "application/merge-patch+json"
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
	ApplyPatchType          PatchType = "application/apply-patch+yaml"
	ApplyYAMLPatchType      PatchType = "application/apply-patch+yaml"
	ApplyCBORPatchType      PatchType = "application/apply-patch+cbor"
)
