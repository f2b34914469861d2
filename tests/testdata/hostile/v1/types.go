package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Mode is a mode.
// +enum
type Mode string

const (
	// Nasty is a value nobody should write.
	Nasty Mode = NASTY_LITERAL
	Plain Mode = "plain"
)

// Widget ends its doc with a quote "
// and has """ and a backslash \ inside.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

type WidgetSpec struct {
	// +optional
	// +default=NASTY_LITERAL
	// +kubebuilder:validation:MaxLength=200
	Text string `json:"text,omitempty"`

	// +optional
	// +kubebuilder:validation:Pattern=`^[^"]*"""[^']*$`
	Quoted string `json:"quoted,omitempty"`

	// +optional
	// +kubebuilder:validation:XValidation:rule="self != '\"\"\"'",message="no \"triple\" quotes \\ here"
	Rule string `json:"rule,omitempty"`

	// +optional
	Mode Mode `json:"mode,omitempty"`

	// +optional
	Odd string `json:"odd$name{x},omitempty"`
}
