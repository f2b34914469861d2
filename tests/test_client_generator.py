"""What the client generator makes of client-gen's markers: the verbs a kind's client has,
its scope, its resource name, and extra methods on subresources."""

from __future__ import annotations

import inspect

TYPES = """
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=ApplyScale,verb=apply,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale

// Full has every verb.
type Full struct {
\tmetav1.TypeMeta   `json:",inline"`
\tmetav1.ObjectMeta `json:"metadata,omitempty"`
\tStatus            FullStatus `json:"status,omitempty"`
}

// FullStatus is observed.
type FullStatus struct {
\tReady bool `json:"ready,omitempty"`
}

// FullList lists them.
type FullList struct {
\tmetav1.TypeMeta `json:",inline"`
\tmetav1.ListMeta `json:"metadata,omitempty"`
\tItems           []Full `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +genclient:readonly
// +resourceName=readers

// Reader is only read.
type Reader struct {
\tmetav1.TypeMeta   `json:",inline"`
\tmetav1.ObjectMeta `json:"metadata,omitempty"`
}

// ReaderList lists them.
type ReaderList struct {
\tmetav1.TypeMeta `json:",inline"`
\tmetav1.ListMeta `json:"metadata,omitempty"`
\tItems           []Reader `json:"items"`
}

// +genclient
// +genclient:skipVerbs=delete,deleteCollection
// +genclient:noStatus

// Policy is never deleted.
type Policy struct {
\tmetav1.TypeMeta   `json:",inline"`
\tmetav1.ObjectMeta `json:"metadata,omitempty"`
\tStatus            FullStatus `json:"status,omitempty"`
}

// PolicyList lists them.
type PolicyList struct {
\tmetav1.TypeMeta `json:",inline"`
\tmetav1.ListMeta `json:"metadata,omitempty"`
\tItems           []Policy `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=create,get

// Endpoints keep their plural.
type Endpoints struct {
\tmetav1.TypeMeta   `json:",inline"`
\tmetav1.ObjectMeta `json:"metadata,omitempty"`
}
"""


def _methods(cls) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")}


def test_verbs_scope_names_and_extra_methods(generate_project):
    load, result = generate_project({
        "things/v1/doc.go": "// +groupName=things.example.com\npackage v1\n",
        "things/v1/types.go": TYPES,
    })  # fmt: skip
    assert [str(d) for d in result.diagnostics.sorted() if "error" in str(d)] == []
    client = load("things.v1.client")
    full = _methods(client.FullClient)
    assert {"get", "list", "iter", "watch", "create", "update", "update_status", "patch", "apply", "delete",
            "delete_collection", "get_scale", "apply_scale"} <= full  # fmt: skip
    assert inspect.signature(client.FullClient.apply_scale).parameters["field_manager"].kind is inspect.Parameter.KEYWORD_ONLY
    assert _methods(client.ReaderClient) == {"get", "list", "iter", "watch"}
    assert client.ReaderClient.resource.plural == "readers" and not client.ReaderClient.resource.namespaced
    policy = _methods(client.PolicyClient)
    assert "delete" not in policy and "delete_collection" not in policy and "update_status" not in policy
    assert _methods(client.EndpointsClient) == {"create", "get"}
    assert client.EndpointsClient.resource.plural == "endpoints"
    assert _methods(client.AsyncReaderClient) == {"get", "list", "iter", "watch"}
    assert {"fulls", "readers", "policies", "endpoints"} <= _methods(client.Client)
    assert "namespace" not in inspect.signature(client.Client.readers).parameters
