// kgen's description of k8s.io/apimachinery/pkg/apis/meta/v1: the object metadata every
// Kubernetes-style API shares. Field names, JSON names and protobuf numbers are those
// the API server serves.

// +k8s:conversion-gen=false
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-model-package=io.k8s.apimachinery.pkg.apis.meta.v1
// +groupName=meta.k8s.io
// +k8s:protobuf-gen=package

package v1
