package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Phase is where a widget is in its life.
// +enum
type Phase string

const (
	// PhasePending means not started.
	PhasePending Phase = "Pending"
	PhaseRunning Phase = "Running"
)

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`

// Widget is a thing.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Spec   WidgetSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status WidgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// WidgetSpec is what the user wants.
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="min above max"
type WidgetSpec struct {
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty" protobuf:"varint,1,opt,name=minReplicas"`
	// +kubebuilder:validation:Maximum=100
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,2,opt,name=maxReplicas"`
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// +listType=map
	// +listMapKey=name
	// +optional
	Ports []Port `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,4,rep,name=ports"`
	// +optional
	Limits map[string]resource.Quantity `json:"limits,omitempty" protobuf:"bytes,5,rep,name=limits"`
	// +optional
	Target *intstr.IntOrString `json:"target,omitempty" protobuf:"bytes,6,opt,name=target"`
	// +kubebuilder:validation:Enum=a;b;c
	// +optional
	Mode string `json:"mode,omitempty" protobuf:"bytes,7,opt,name=mode"`
	// +optional
	Deadline *metav1.Time `json:"deadline,omitempty" protobuf:"bytes,8,opt,name=deadline"`
}

// Port is a named port.
type Port struct {
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`
}

// WidgetStatus is what the controller saw.
type WidgetStatus struct {
	// +optional
	Phase Phase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=Phase"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,2,rep,name=conditions"`
}

// +kubebuilder:object:root=true

// WidgetList is a list of widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Widget `json:"items" protobuf:"bytes,2,rep,name=items"`
}
