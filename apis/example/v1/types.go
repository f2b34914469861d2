/*
Copyright The kgen Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
*/

package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=frobbers,scope=Namespaced,shortName=fb,categories={all,frob}
// +kubebuilder:printcolumn:name="Mode",type="string",JSONPath=".spec.mode"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kgen:storageVersion

// Frobber frobnicates widgets at a configurable intensity.
//
// A Frobber runs a number of workers (spec.replicas), each of which reserves
// spec.resources and listens on spec.ports.
type Frobber struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the desired state of the Frobber.
	// +optional
	Spec FrobberSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Status is the observed state of the Frobber.
	// +optional
	Status FrobberStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FrobberSpec is the desired state of a Frobber.
//
// +k8s:deprecated=legacyMode,protobuf=9
type FrobberSpec struct {
	// FrobberCommon holds the settings every version shares.
	FrobberCommon `json:",inline" protobuf:"bytes,1,opt,name=frobberCommon"`

	// Params are the parameters the Frobber is invoked with, in order.
	// +optional
	// +listType=atomic
	// +k8s:maxItems=16
	// +k8s:eachVal=+k8s:maxLength=64
	Params []string `json:"params,omitempty" protobuf:"bytes,2,rep,name=params"`

	// HeightInInches is how tall the frobbed widget is.
	// +optional
	// +k8s:minimum=1
	HeightInInches *int32 `json:"heightInInches,omitempty" protobuf:"varint,3,opt,name=heightInInches"`

	// Width is how wide the frobbed widget is, in inches.
	// +optional
	// +k8s:minimum=1
	Width *int32 `json:"width,omitempty" protobuf:"varint,4,opt,name=width"`

	// Replicas is the number of frobbing workers.
	// Defaults to 1.
	// +optional
	// +default=1
	// +k8s:minimum=0
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,5,opt,name=replicas"`

	// Mode is how vigorously to frob.
	// Defaults to Gentle.
	// +optional
	// +default="Gentle"
	Mode FrobberMode `json:"mode,omitempty" protobuf:"bytes,6,opt,name=mode,casttype=FrobberMode"`

	// Turbo frobs twice as fast. Alpha: only honoured when the FrobberTurbo feature gate is on.
	// +featureGate=FrobberTurbo
	// +optional
	// +k8s:ifDisabled(FrobberTurbo)=+k8s:forbidden
	Turbo *bool `json:"turbo,omitempty" protobuf:"varint,7,opt,name=turbo"`

	// Ports the Frobber listens on, keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +k8s:maxItems=8
	Ports []FrobberPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,8,rep,name=ports"`

	// Resources reserved for each worker.
	// +optional
	Resources ResourceList `json:"resources,omitempty" protobuf:"bytes,10,rep,name=resources,casttype=ResourceList,castkey=ResourceName"`

	// Selector selects the widgets to frob. It may not change once set.
	// +optional
	// +k8s:immutable
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,11,opt,name=selector"`

	// Source says where the frobbing instructions come from.
	// +optional
	Source FrobberSource `json:"source,omitempty" protobuf:"bytes,12,opt,name=source"`

	// MaxUnavailable is how many workers may be down during an update: a number or a percentage.
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,13,opt,name=maxUnavailable"`

	// Interval between two frobs.
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty" protobuf:"bytes,14,opt,name=interval"`

	// ExtraArgs are additional arguments per widget kind.
	// +optional
	// +k8s:eachKey=+k8s:format=k8s-short-name
	// +k8s:eachVal=+k8s:maxItems=8
	ExtraArgs map[string]ExtraArgValues `json:"extraArgs,omitempty" protobuf:"bytes,15,rep,name=extraArgs"`

	// Config is an opaque, frobber-specific configuration object.
	// +optional
	Config *runtime.RawExtension `json:"config,omitempty" protobuf:"bytes,16,opt,name=config"`

	// Checksum of the instructions, if known.
	// +optional
	Checksum []byte `json:"checksum,omitempty" protobuf:"bytes,17,opt,name=checksum"`

	// Schedule says when the Frobber may run.
	// +optional
	Schedule *FrobberSchedule `json:"schedule,omitempty" protobuf:"bytes,18,opt,name=schedule"`
}

// +kubebuilder:validation:XValidation:rule="!has(self.endHour) || self.endHour > (has(self.startHour) ? self.startHour : 0)",messageExpression="'endHour (%d) must be after startHour (%d)'.format([self.endHour, has(self.startHour) ? self.startHour : 0])",fieldPath=".endHour"
// +kubebuilder:validation:XValidation:rule="self.trigger == oldSelf.trigger",message="trigger may not change; create a new schedule",reason=FieldValueForbidden

// FrobberSchedule says when a Frobber may run: on a cron schedule or every few minutes,
// between two hours of the day, on some weekdays or some days of the month.
type FrobberSchedule struct {
	// Trigger names the member that fires the schedule.
	// +k8s:unionDiscriminator
	// +required
	Trigger FrobberTrigger `json:"trigger" protobuf:"bytes,1,opt,name=trigger,casttype=FrobberTrigger"`

	// Cron is a cron expression of five fields.
	// +k8s:unionMember
	// +optional
	// +kubebuilder:validation:Pattern=`^(\S+\s+){4}\S+$`
	Cron string `json:"cron,omitempty" protobuf:"bytes,2,opt,name=cron"`

	// IntervalMinutes between two runs: a multiple of 5, at least 5.
	// +k8s:unionMember(memberName: "Interval")
	// +optional
	// +k8s:minimum=5
	// +kubebuilder:validation:MultipleOf=5
	IntervalMinutes *int32 `json:"intervalMinutes,omitempty" protobuf:"varint,3,opt,name=intervalMinutes"`

	// StartHour is the first hour of the day the Frobber may run.
	// +k8s:optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=23
	StartHour int32 `json:"startHour,omitempty" protobuf:"varint,4,opt,name=startHour"`

	// EndHour is the hour the Frobber stops; after midnight, at most 24.
	// +kubebuilder:validation:Optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Maximum=24
	EndHour *int32 `json:"endHour,omitempty" protobuf:"varint,5,opt,name=endHour"`

	// Weekdays the Frobber runs on.
	// +optional
	// +listType=set
	// +k8s:zeroOrOneOfMember
	// +kubebuilder:validation:MaxItems=7
	// +kubebuilder:validation:items:Enum=Mon;Tue;Wed;Thu;Fri;Sat;Sun
	Weekdays []string `json:"weekdays,omitempty" protobuf:"bytes,6,rep,name=weekdays"`

	// Days of the month the Frobber runs on.
	// +optional
	// +k8s:listType=atomic
	// +k8s:unique=set
	// +k8s:zeroOrOneOfMember
	// +k8s:eachVal=+k8s:minimum=1
	// +k8s:eachVal=+k8s:maximum=31
	Days []int32 `json:"days,omitempty" protobuf:"varint,7,rep,name=days"`

	// TimeZone is an IANA time zone name, such as Europe/Paris.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z]+(/[A-Za-z0-9_+-]+)*$`
	// +kubebuilder:validation:XValidation:rule="self != 'Local'",message="must name a zone, not Local"
	TimeZone string `json:"timeZone,omitempty" protobuf:"bytes,8,opt,name=timeZone"`

	// Owner is the email address of whoever answers for this schedule.
	// +optional
	// +kubebuilder:validation:Format=email
	Owner string `json:"owner,omitempty" protobuf:"bytes,9,opt,name=owner"`

	// Window is how long one run may take, such as 90m.
	// +optional
	// +k8s:format=duration
	Window string `json:"window,omitempty" protobuf:"bytes,10,opt,name=window"`

	// WidgetLabels are added to the widgets while the schedule runs.
	// +optional
	// +k8s:maxProperties=8
	// +k8s:eachKey=+k8s:format=k8s-label-key
	// +k8s:eachVal=+k8s:format=k8s-label-value
	WidgetLabels map[string]string `json:"widgetLabels,omitempty" protobuf:"bytes,11,rep,name=widgetLabels"`
}

// FrobberTrigger names how a schedule fires.
// +k8s:enum
type FrobberTrigger string

const (
	// FrobberTriggerCron fires on a cron schedule.
	FrobberTriggerCron FrobberTrigger = "Cron"
	// FrobberTriggerInterval fires every few minutes.
	FrobberTriggerInterval FrobberTrigger = "Interval"
)

// FrobberCommon holds the settings every version of FrobberSpec shares.
type FrobberCommon struct {
	// Description is shown to humans.
	// +optional
	// +k8s:maxLength=256
	// +k8s:neq="TODO"
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`

	// Priority orders Frobbers competing for the same widgets; higher goes first.
	// +optional
	// +kubebuilder:validation:Minimum=-100
	// +kubebuilder:validation:Maximum=100
	Priority int32 `json:"priority,omitempty" protobuf:"varint,2,opt,name=priority"`
}

// ExtraArgValues is a list of arguments.
type ExtraArgValues []string

// FrobberMode is how vigorously a Frobber frobs.
// +enum
type FrobberMode string

const (
	// FrobberModeGentle frobs without disturbing the widget.
	FrobberModeGentle FrobberMode = "Gentle"
	// FrobberModeVigorous frobs as hard as it can.
	FrobberModeVigorous FrobberMode = "Vigorous"
	// FrobberModeFrantic frobs faster than is wise. Alpha: allowed only while the
	// FrobberFrantic feature gate is on (or when the stored object already uses it).
	// +k8s:ifDisabled(FrobberFrantic)=+k8s:enumExclude
	FrobberModeFrantic FrobberMode = "Frantic"
)

// FrobberPort is a named network port.
type FrobberPort struct {
	// Name of the port; unique within the Frobber.
	// +required
	// +k8s:format=k8s-short-name
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Port number.
	// +required
	// +k8s:minimum=1
	// +k8s:maximum=65535
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`
	// Protocol of the port. Defaults to TCP.
	// +optional
	// +default="TCP"
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol,casttype=Protocol"`
	// TargetPort on the widget: a number or a named port.
	// +optional
	TargetPort intstr.IntOrString `json:"targetPort,omitempty" protobuf:"bytes,4,opt,name=targetPort"`
}

// Protocol is a network protocol.
// +enum
type Protocol string

const (
	// ProtocolTCP is the TCP protocol.
	ProtocolTCP Protocol = "TCP"
	// ProtocolUDP is the UDP protocol.
	ProtocolUDP Protocol = "UDP"
)

// ResourceName is the name of a resource a worker reserves.
type ResourceName string

const (
	// ResourceCPU is CPU, in cores.
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is memory, in bytes.
	ResourceMemory ResourceName = "memory"
)

// ResourceList maps resource names to quantities.
type ResourceList map[ResourceName]resource.Quantity

// FrobberSource is a union: exactly one of its members is set, named by Type.
// +union
type FrobberSource struct {
	// Type names the member that is set.
	// +unionDiscriminator
	// +optional
	Type FrobberSourceType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type,casttype=FrobberSourceType"`
	// Git fetches instructions from a repository.
	// +optional
	Git *GitSource `json:"git,omitempty" protobuf:"bytes,2,opt,name=git"`
	// Inline carries the instructions in the object.
	// +optional
	Inline *InlineSource `json:"inline,omitempty" protobuf:"bytes,3,opt,name=inline"`
}

// FrobberSourceType names a member of FrobberSource.
// +enum
type FrobberSourceType string

const (
	FrobberSourceTypeGit    FrobberSourceType = "Git"
	FrobberSourceTypeInline FrobberSourceType = "Inline"
)

// GitSource fetches instructions from a git repository.
// +kubebuilder:validation:AtMostOneOf=revision;tag
type GitSource struct {
	// URL of the repository.
	// +required
	// +k8s:format=uri
	URL string `json:"url" protobuf:"bytes,1,opt,name=url"`
	// Revision to check out. Defaults to the default branch.
	// +optional
	Revision string `json:"revision,omitempty" protobuf:"bytes,2,opt,name=revision"`
	// Tag to check out.
	// +optional
	// +k8s:update=NoModify
	Tag string `json:"tag,omitempty" protobuf:"bytes,3,opt,name=tag"`
}

// InlineSource carries instructions in the object.
type InlineSource struct {
	// Instructions, one per line.
	// +required
	// +k8s:maxBytes=65536
	Instructions string `json:"instructions" protobuf:"bytes,1,opt,name=instructions"`
}

// FrobberStatus is the observed state of a Frobber.
type FrobberStatus struct {
	// ObservedGeneration is the generation the status describes; it never goes back.
	// +optional
	// +k8s:monotonic
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`

	// Phase summarizes the Frobber's state.
	// +optional
	Phase FrobberPhase `json:"phase,omitempty" protobuf:"bytes,2,opt,name=phase,casttype=FrobberPhase"`

	// Conditions of the Frobber.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,3,rep,name=conditions"`

	// LastFrobbed is when the Frobber last frobbed.
	// +optional
	LastFrobbed *metav1.Time `json:"lastFrobbed,omitempty" protobuf:"bytes,4,opt,name=lastFrobbed"`

	// ReadyReplicas is the number of workers ready to frob.
	// +optional
	// +k8s:minimum=0
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,5,opt,name=readyReplicas"`
}

// FrobberPhase summarizes the state of a Frobber. Clients must accept phases they do not know.
type FrobberPhase string

const (
	FrobberPhasePending FrobberPhase = "Pending"
	FrobberPhaseRunning FrobberPhase = "Running"
	FrobberPhaseFailed  FrobberPhase = "Failed"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// FrobberList is a list of Frobbers.
type FrobberList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items is the list of Frobbers.
	Items []Frobber `json:"items" protobuf:"bytes,2,rep,name=items"`
}
