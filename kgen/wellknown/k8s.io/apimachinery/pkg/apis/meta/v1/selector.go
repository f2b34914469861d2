package v1

// LabelSelector picks resources by their labels: an object must satisfy both
// matchLabels and matchExpressions. An empty selector matches every object; a null
// one matches none.
// +structType=atomic
type LabelSelector struct {
	// matchLabels holds {key,value} pairs; an object matches when each key carries its value.
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels"`
	// matchExpressions are requirements on labels; an object must meet all of them.
	// +optional
	// +listType=atomic
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one condition of a label selector: a label key, an
// operator and the values the operator relates the key to.
type LabelSelectorRequirement struct {
	// key is the label the requirement tests.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// operator says how the key relates to the values: In, NotIn, Exists or
	// DoesNotExist, and nothing else.
	Operator LabelSelectorOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=LabelSelectorOperator"`
	// values are the strings the key is compared with: at least one for In and NotIn,
	// none for Exists and DoesNotExist.
	// +optional
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// LabelSelectorOperator is how a label selector requirement compares its key with its values.
type LabelSelectorOperator string

const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// FieldSelectorRequirement is one condition of a field selector: a field key, an
// operator and the values it compares with.
type FieldSelectorRequirement struct {
	// key is the field selector key the requirement is about.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// operator relates the key to the values: In, NotIn, Exists or DoesNotExist
	// (more may be added).
	Operator FieldSelectorOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=FieldSelectorOperator"`
	// values must be non-empty for In and NotIn, and empty for Exists and DoesNotExist.
	// +optional
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// FieldSelectorOperator is how a field selector requirement compares its key with its values.
type FieldSelectorOperator string

const (
	FieldSelectorOpIn           FieldSelectorOperator = "In"
	FieldSelectorOpNotIn        FieldSelectorOperator = "NotIn"
	FieldSelectorOpExists       FieldSelectorOperator = "Exists"
	FieldSelectorOpDoesNotExist FieldSelectorOperator = "DoesNotExist"
)
