package v1

// APIVersions lists the versions of the legacy core API, served at /api.
//
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type APIVersions struct {
	TypeMeta `json:",inline"`
	// versions are the API versions served.
	// +listType=atomic
	Versions []string `json:"versions" protobuf:"bytes,1,rep,name=versions"`
	// serverAddressByClientCIDRs maps client networks to the server address that
	// serves them best; a client picks the longest CIDR that matches its address.
	// +listType=atomic
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs" protobuf:"bytes,2,rep,name=serverAddressByClientCIDRs"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// APIGroupList lists the API groups, served at /apis.
type APIGroupList struct {
	TypeMeta `json:",inline"`
	// groups are the API groups served.
	// +listType=atomic
	Groups []APIGroup `json:"groups" protobuf:"bytes,1,rep,name=groups"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// APIGroup is one API group: its name, the versions it serves and the one it prefers.
type APIGroup struct {
	TypeMeta `json:",inline"`
	// name is the group's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// versions the group serves.
	// +listType=atomic
	Versions []GroupVersionForDiscovery `json:"versions" protobuf:"bytes,2,rep,name=versions"`
	// preferredVersion is the version the server prefers, usually the storage version.
	// +optional
	PreferredVersion GroupVersionForDiscovery `json:"preferredVersion,omitempty" protobuf:"bytes,3,opt,name=preferredVersion"`
	// serverAddressByClientCIDRs maps client networks to the server address that
	// serves them best; a client picks the longest CIDR that matches its address.
	// +optional
	// +listType=atomic
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty" protobuf:"bytes,4,rep,name=serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR is the server address for clients of one network.
type ServerAddressByClientCIDR struct {
	// clientCIDR is the network a client's address must fall in.
	ClientCIDR string `json:"clientCIDR" protobuf:"bytes,1,opt,name=clientCIDR"`
	// serverAddress is a hostname or IP, with an optional port, for those clients.
	ServerAddress string `json:"serverAddress" protobuf:"bytes,2,opt,name=serverAddress"`
}

// GroupVersionForDiscovery is one version of a group, as "group/version" and "version".
type GroupVersionForDiscovery struct {
	// groupVersion is "group/version" ("v1" for the core group).
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// version alone, so clients need not split groupVersion.
	Version string `json:"version" protobuf:"bytes,2,opt,name=version"`
}

// APIResource describes one resource of a group version: its names, kind, scope and verbs.
type APIResource struct {
	// name is the resource's plural name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// singularName is the resource's singular name.
	SingularName string `json:"singularName" protobuf:"bytes,6,opt,name=singularName"`
	// namespaced tells whether objects of the resource live in namespaces.
	Namespaced bool `json:"namespaced" protobuf:"varint,2,opt,name=namespaced"`
	// group the resource prefers; empty means the group of the list. Subresources may differ.
	Group string `json:"group,omitempty" protobuf:"bytes,8,opt,name=group"`
	// version the resource prefers; empty means the version of the list. Subresources may differ.
	Version string `json:"version,omitempty" protobuf:"bytes,9,opt,name=version"`
	// kind of the resource's objects.
	Kind string `json:"kind" protobuf:"bytes,3,opt,name=kind"`
	// verbs the resource supports (get, list, watch, create, update, patch, delete, ...).
	Verbs Verbs `json:"verbs" protobuf:"bytes,4,opt,name=verbs"`
	// shortNames clients may use for the resource.
	// +listType=atomic
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,5,rep,name=shortNames"`
	// categories the resource belongs to (such as "all").
	// +listType=atomic
	Categories []string `json:"categories,omitempty" protobuf:"bytes,7,rep,name=categories"`
	// storageVersionHash is an opaque hash of the version objects are stored in; only
	// comparing two hashes means anything. Set only with the StorageVersionHash gate.
	// +optional
	StorageVersionHash string `json:"storageVersionHash,omitempty" protobuf:"bytes,10,opt,name=storageVersionHash"`
}

// Verbs is a list of API verbs, a named type so that protobuf can hold it.
//
// +protobuf.nullable=true
// +protobuf.options.(gogoproto.goproto_stringer)=false
type Verbs []string

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// APIResourceList lists the resources of one group version and whether each is namespaced.
type APIResourceList struct {
	TypeMeta `json:",inline"`
	// groupVersion the resources belong to.
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// resources of that group version.
	// +listType=atomic
	APIResources []APIResource `json:"resources" protobuf:"bytes,2,rep,name=resources"`
}

// RootPaths lists the paths the server serves at its root ("/healthz", "/apis", ...).
type RootPaths struct {
	// paths served at the root.
	// +listType=atomic
	Paths []string `json:"paths" protobuf:"bytes,1,rep,name=paths"`
}
