// kgen's description of k8s.io/apimachinery/pkg/types, the subset API types use.

package types

// UID is a type that holds unique ID values, including UUIDs. Because we
// don't ONLY use UUIDs, this is an alias to string. Being a type captures
// intent and helps make sure that UIDs and names do not get conflated.
type UID string
