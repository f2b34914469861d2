/*
Copyright The kgen Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
*/

package example

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Frobber frobnicates widgets at a configurable intensity.
type Frobber struct {
	metav1.TypeMeta
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the Frobber.
	// +optional
	Spec FrobberSpec `json:"spec,omitempty"`

	// Status is the observed state of the Frobber.
	// +optional
	Status FrobberStatus `json:"status,omitempty"`
}

// FrobberSpec is the desired state of a Frobber.
type FrobberSpec struct {
	// FrobberCommon holds the settings every version shares.
	FrobberCommon `json:",inline"`

	// Params are the parameters the Frobber is invoked with, in order.
	// +optional
	// +listType=atomic
	Params []string `json:"params,omitempty"`

	// HeightInInches is how tall the frobbed widget is.
	// +optional
	HeightInInches *int32 `json:"heightInInches,omitempty"`

	// Width is how wide the frobbed widget is, in inches.
	// +optional
	Width *int32 `json:"width,omitempty"`

	// Replicas is the number of frobbing workers.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Mode is how vigorously to frob.
	// +optional
	Mode FrobberMode `json:"mode,omitempty"`

	// Turbo frobs twice as fast. Alpha: only honoured when the FrobberTurbo feature gate is on.
	// +featureGate=FrobberTurbo
	// +optional
	Turbo *bool `json:"turbo,omitempty"`

	// Ports the Frobber listens on, keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	Ports []FrobberPort `json:"ports,omitempty"`

	// Resources reserved for each worker.
	// +optional
	Resources ResourceList `json:"resources,omitempty"`

	// Selector selects the widgets to frob.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// Source says where the frobbing instructions come from.
	// +optional
	Source FrobberSource `json:"source,omitempty"`

	// MaxUnavailable is how many workers may be down during an update: a number or a percentage.
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// Interval between two frobs.
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`

	// ExtraArgs are additional arguments per widget kind.
	// +optional
	ExtraArgs map[string][]string `json:"extraArgs,omitempty"`

	// Config is an opaque, frobber-specific configuration object.
	// +optional
	Config *runtime.RawExtension `json:"config,omitempty"`

	// Checksum of the instructions, if known.
	// +optional
	Checksum []byte `json:"checksum,omitempty"`

	// Schedule says when the Frobber may run.
	// +optional
	Schedule *FrobberSchedule `json:"schedule,omitempty"`
}

// FrobberSchedule says when a Frobber may run.
type FrobberSchedule struct {
	Trigger         FrobberTrigger    `json:"trigger,omitempty"`
	Cron            string            `json:"cron,omitempty"`
	IntervalMinutes *int32            `json:"intervalMinutes,omitempty"`
	StartHour       int32             `json:"startHour,omitempty"`
	EndHour         *int32            `json:"endHour,omitempty"`
	Weekdays        []string          `json:"weekdays,omitempty"`
	Days            []int32           `json:"days,omitempty"`
	TimeZone        string            `json:"timeZone,omitempty"`
	Owner           string            `json:"owner,omitempty"`
	Window          string            `json:"window,omitempty"`
	WidgetLabels    map[string]string `json:"widgetLabels,omitempty"`
}

// FrobberTrigger names how a schedule fires.
type FrobberTrigger string

const (
	FrobberTriggerCron     FrobberTrigger = "Cron"
	FrobberTriggerInterval FrobberTrigger = "Interval"
)

// FrobberCommon holds the settings every version of FrobberSpec shares.
type FrobberCommon struct {
	// Description is shown to humans.
	// +optional
	Description string `json:"description,omitempty"`

	// Priority orders Frobbers competing for the same widgets; higher goes first.
	// +optional
	Priority int32 `json:"priority,omitempty"`
}

// FrobberMode is how vigorously a Frobber frobs.
// +enum
type FrobberMode string

const (
	// FrobberModeGentle frobs without disturbing the widget.
	FrobberModeGentle FrobberMode = "Gentle"
	// FrobberModeVigorous frobs as hard as it can.
	FrobberModeVigorous FrobberMode = "Vigorous"
	// FrobberModeFrantic frobs faster than is wise; behind the FrobberFrantic gate.
	FrobberModeFrantic FrobberMode = "Frantic"
)

// FrobberPort is a named network port.
type FrobberPort struct {
	// Name of the port; unique within the Frobber.
	Name string `json:"name"`
	// Port number.
	Port int32 `json:"port"`
	// Protocol of the port.
	// +optional
	Protocol Protocol `json:"protocol,omitempty"`
	// TargetPort on the widget: a number or a named port.
	// +optional
	TargetPort intstr.IntOrString `json:"targetPort,omitempty"`
}

// Protocol is a network protocol.
// +enum
type Protocol string

const (
	ProtocolTCP Protocol = "TCP"
	ProtocolUDP Protocol = "UDP"
)

// ResourceName is the name of a resource a worker reserves.
type ResourceName string

// ResourceList maps resource names to quantities.
type ResourceList map[ResourceName]resource.Quantity

// FrobberSource is a union: exactly one of its members is set, named by Type.
// +union
type FrobberSource struct {
	// Type names the member that is set.
	// +unionDiscriminator
	// +optional
	Type FrobberSourceType `json:"type,omitempty"`
	// Git fetches instructions from a repository.
	// +optional
	Git *GitSource `json:"git,omitempty"`
	// Inline carries the instructions in the object.
	// +optional
	Inline *InlineSource `json:"inline,omitempty"`
}

// FrobberSourceType names a member of FrobberSource.
// +enum
type FrobberSourceType string

const (
	FrobberSourceTypeGit    FrobberSourceType = "Git"
	FrobberSourceTypeInline FrobberSourceType = "Inline"
)

// GitSource fetches instructions from a git repository.
type GitSource struct {
	// URL of the repository.
	URL string `json:"url"`
	// Revision to check out.
	// +optional
	Revision string `json:"revision,omitempty"`
	// Tag to check out.
	// +optional
	Tag string `json:"tag,omitempty"`
}

// InlineSource carries instructions in the object.
type InlineSource struct {
	// Instructions, one per line.
	Instructions string `json:"instructions"`
}

// FrobberStatus is the observed state of a Frobber.
type FrobberStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Phase summarizes the Frobber's state.
	// +optional
	Phase FrobberPhase `json:"phase,omitempty"`

	// Conditions of the Frobber.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// LastFrobbed is when the Frobber last frobbed.
	// +optional
	LastFrobbed *metav1.Time `json:"lastFrobbed,omitempty"`

	// ReadyReplicas is the number of workers ready to frob.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// FrobberPhase summarizes the state of a Frobber. Clients must accept phases they do not know.
type FrobberPhase string

const (
	FrobberPhasePending FrobberPhase = "Pending"
	FrobberPhaseRunning FrobberPhase = "Running"
	FrobberPhaseFailed  FrobberPhase = "Failed"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FrobberList is a list of Frobbers.
type FrobberList struct {
	metav1.TypeMeta
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items is the list of Frobbers.
	Items []Frobber `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FrobberClass is a cluster-wide class of Frobbers, set up by an administrator.
type FrobberClass struct {
	metav1.TypeMeta
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Controller is the name of the controller that frobs for this class.
	Controller string `json:"controller"`

	// Parameters passed to the controller.
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`

	// Quota is the total amount of frobbing the class allows.
	// +optional
	Quota resource.Quantity `json:"quota,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FrobberClassList is a list of FrobberClasses.
type FrobberClassList struct {
	metav1.TypeMeta
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items is the list of FrobberClasses.
	Items []FrobberClass `json:"items"`
}
