"""Every lint rule on a minimal API package: the source before (with the exact messages the
rule reports) and after the correction (no finding).

The kube-api-linter rules' messages, positions and semantics follow its analyzers
(kubernetes-sigs/kube-api-linter, pkg/analysis/<linter>/analyzer.go, and its
serialization and zero-value helpers in pkg/analysis/utils); openapi-gen's rules follow
kube-openapi (pkg/generators/rules); kgen's own follow the API conventions
(kubernetes/community, contributors/devel/sig-architecture/api-conventions.md).
"""

from __future__ import annotations

import pytest

from lint_helpers import BUILTIN_GROUP, CRD_GROUP, run, write_package
from kgen.lint.registry import KUBE_API_LINTER, RULES

KIND = """
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +genclient

// Widget is a widget.
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state.
	// +optional
	Spec WidgetSpec `json:"spec,omitempty,omitzero"`
	// status is the observed state.
	// +optional
	Status WidgetStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// WidgetList is a list of widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the list's metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the widgets.
	Items []Widget `json:"items"`
}
"""

# (rule, settings, source before, exact messages, source after)
CASES: list[tuple[str, dict, str, list[str], str]] = [
    ("arrayofstruct", {}, """
        type Spec struct {
        	// +optional
        	Items []Item `json:"items,omitempty"`
        }
        type Item struct {
        	// +optional
        	Name string `json:"name,omitempty"`
        }""",
     ["Spec.Items is an array of structs, but the struct has no required fields. At least one field should be marked "
      "as required to prevent ambiguous YAML configurations"], """
        type Spec struct {
        	// +optional
        	Items []Item `json:"items,omitempty"`
        }
        type Item struct {
        	// +required
        	Name string `json:"name,omitempty"`
        }"""),
    ("commentstart", {}, """
        type Spec struct {
        	// The replicas.
        	Replicas int32 `json:"replicas"`
        	Size int32 `json:"size"`
        }""",
     ["godoc for field Spec.Replicas should start with 'replicas ...'", "field Spec.Size is missing godoc comment"], """
        type Spec struct {
        	// replicas is how many.
        	Replicas int32 `json:"replicas"`
        	// size is how big.
        	Size int32 `json:"size"`
        }"""),
    ("conditions", {}, """
        type Status struct {
        	// +optional
        	Phase string `json:"phase,omitempty"`
        	Conditions []metav1.Condition `json:"conditions,omitempty"`
        }""",
     ["Conditions field in Status is missing the following markers: listType=map, listMapKey=type, "
      "patchStrategy=merge, patchMergeKey=type, optional",
      'Conditions field in Status has incorrect tags, should be: `json:"conditions,omitempty" patchStrategy:"merge" '
      'patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`',
      "Conditions field in Status must be the first field in the struct"], """
        type Status struct {
        	// +listType=map
        	// +listMapKey=type
        	// +patchStrategy=merge
        	// +patchMergeKey=type
        	// +optional
        	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
        	// +optional
        	Phase string `json:"phase,omitempty"`
        }"""),
    ("conflictingmarkers", {"conflicts": [{"name": "set_or_map", "sets": [["listType=set"], ["listMapKey"]],
                                            "description": "A set has no keys."}]}, """
        type Spec struct {
        	// +listType=set
        	// +listMapKey=name
        	Names []string `json:"names"`
        }""",
     ["field Spec.Names has conflicting markers: set_or_map: {[listType=set], [listMapKey]}. A set has no keys."], """
        type Spec struct {
        	// +listType=set
        	Names []string `json:"names"`
        }"""),
    ("defaultorrequired", {}, """
        type Spec struct {
        	// +required
        	// +default=3
        	Replicas int32 `json:"replicas"`
        }""",
     ["field Spec.Replicas has conflicting markers: default_or_required: {[default], [required]}. A field with a "
      "default value cannot be required. A required field must be provided by the user, so a default value is not "
      "meaningful."], """
        type Spec struct {
        	// +optional
        	// +default=3
        	Replicas int32 `json:"replicas,omitempty"`
        }"""),
    ("defaults", {}, """
        type Spec struct {
        	// +kubebuilder:default=3
        	Replicas int32 `json:"replicas"`
        }""",
     ["field Spec.Replicas should use +default marker instead of +kubebuilder:default",
      "field Spec.Replicas has a default value but is not marked as optional",
      "field Spec.Replicas has a default value but does not have omitempty in its json tag"], """
        type Spec struct {
        	// +optional
        	// +default=3
        	Replicas int32 `json:"replicas,omitempty"`
        }"""),
    ("dependenttags", {"rules": [{"identifier": "k8s:unionMember", "type": "All", "dependsOn": ["k8s:optional"]}]}, """
        type Spec struct {
        	// +k8s:unionMember
        	Cat *string `json:"cat,omitempty"`
        }""",
     ["field Spec.Cat with marker +k8s:unionMember is missing required marker(s): +k8s:optional"], """
        type Spec struct {
        	// +k8s:unionMember
        	// +k8s:optional
        	Cat *string `json:"cat,omitempty"`
        }"""),
    ("duplicatemarkers", {}, """
        // +kubebuilder:validation:MaxLength=10
        // +kubebuilder:validation:MaxLength=10
        type Name string""",
     ["Name has duplicated markers kubebuilder:validation:MaxLength=10"], """
        // +kubebuilder:validation:MaxLength=10
        type Name string"""),
    ("forbiddenmarkers", {"markers": [{"identifier": "kubebuilder:validation:XEmbeddedResource"}]}, """
        type Spec struct {
        	// +kubebuilder:validation:XEmbeddedResource
        	Template string `json:"template"`
        }""",
     ['field Spec.Template has forbidden marker "kubebuilder:validation:XEmbeddedResource"'], """
        type Spec struct {
        	Template string `json:"template"`
        }"""),
    ("integers", {}, """
        type Spec struct {
        	Replicas int `json:"replicas"`
        	Size uint32 `json:"size"`
        }""",
     ["field Spec.Replicas should not use an int, int8 or int16. Use int32 or int64 depending on bounding requirements",
      "field Spec.Size should not use unsigned integers, use only int32 or int64 and apply validation to ensure the "
      "value is positive"], """
        type Spec struct {
        	Replicas int32 `json:"replicas"`
        	Size int64 `json:"size"`
        }"""),
    ("jsontags", {}, """
        type Spec struct {
        	Replicas int32
        	MaxSize int32 `json:"max_size"`
        }""",
     ["field Spec.Replicas is missing json tag",
      'field Spec.MaxSize json tag does not match pattern "^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$": max_size'], """
        type Spec struct {
        	Replicas int32 `json:"replicas"`
        	MaxSize int32 `json:"maxSize"`
        }"""),
    ("maxlength", {}, """
        type Spec struct {
        	Name string `json:"name"`
        	Tags []string `json:"tags"`
        }""",
     ["field Spec.Name must have a maximum length, add kubebuilder:validation:MaxLength marker",
      "field Spec.Tags array element must have a maximum length, add kubebuilder:validation:items:MaxLength marker",
      "field Spec.Tags must have a maximum items, add kubebuilder:validation:MaxItems marker"], """
        type Spec struct {
        	// +kubebuilder:validation:MaxLength=63
        	Name string `json:"name"`
        	// +kubebuilder:validation:MaxItems=10
        	// +kubebuilder:validation:items:MaxLength=20
        	Tags []string `json:"tags"`
        }"""),
    ("minlength", {}, """
        type Spec struct {
        	Name string `json:"name"`
        	Labels map[string]string `json:"labels"`
        }""",
     ["field Spec.Name must have a minimum length, add kubebuilder:validation:MinLength marker",
      "field Spec.Labels must have a minimum properties, add kubebuilder:validation:MinProperties marker"], """
        type Spec struct {
        	// +kubebuilder:validation:MinLength=1
        	Name string `json:"name"`
        	// +kubebuilder:validation:MinProperties=1
        	Labels map[string]string `json:"labels"`
        }"""),
    ("namingconventions", {"conventions": [{"name": "colour", "violationMatcher": "(?i)color", "operation": "Replacement",
                                            "replacement": "Colour", "message": "write colour"}]}, """
        type Spec struct {
        	FavoriteColor string `json:"favoriteColor"`
        }""",
     ['naming convention "colour": field Spec.FavoriteColor: write colour'], """
        type Spec struct {
        	FavoriteColour string `json:"favoriteColour"`
        }"""),
    ("nobools", {}, """
        type Spec struct {
        	Paused *bool `json:"paused,omitempty"`
        }""",
     ["field Spec.Paused pointer should not use a bool. Use a string type with meaningful constant values as an enum."], """
        type Spec struct {
        	Mode string `json:"mode,omitempty"`
        }"""),
    ("nodurations", {}, """
        type Spec struct {
        	Timeout metav1.Duration `json:"timeout"`
        }""",
     ["field Spec.Timeout should not use a Duration. Use an integer type with units in the name to avoid the need for "
      "clients to implement Go style duration parsing."], """
        type Spec struct {
        	TimeoutSeconds int32 `json:"timeoutSeconds"`
        }"""),
    ("nofloats", {}, """
        type Ratio float64""",
     ["type Ratio should not use a float value because they cannot be reliably round-tripped."], """
        type Ratio string"""),
    ("nomaps", {}, """
        type Spec struct {
        	Ports map[string]int32 `json:"ports"`
        	Labels map[string]string `json:"labels"`
        }""",
     ["field Spec.Ports should not use a map type, use a list type with a unique name/identifier instead"], """
        type Spec struct {
        	Labels map[string]string `json:"labels"`
        }"""),
    ("nonpointerstructs", {}, """
        type Spec struct {
        	Template Template `json:"template"`
        }
        type Template struct {
        	// +required
        	Name string `json:"name"`
        }""",
     ["field Spec.Template is a non-pointer struct with required fields. It must be marked as required."], """
        type Spec struct {
        	// +required
        	Template Template `json:"template"`
        }
        type Template struct {
        	// +required
        	Name string `json:"name"`
        }"""),
    ("nonullable", {}, """
        type Spec struct {
        	// +nullable
        	Name *string `json:"name"`
        }""",
     ['field Spec.Name has forbidden marker "nullable"'], """
        type Spec struct {
        	Name *string `json:"name"`
        }"""),
    ("nophase", {}, """
        type Status struct {
        	Phase string `json:"phase"`
        }""",
     ['naming convention "nophase": field Status.Phase: phase fields are deprecated and conditions should be '
      "preferred, avoid phase like enum fields"], """
        type Status struct {
        	Ready string `json:"ready"`
        }"""),
    ("noreferences", {}, """
        type Spec struct {
        	SecretReference string `json:"secretReference"`
        }""",
     ["naming convention \"reference-to-ref\": field Spec.SecretReference: field names should use 'Ref' instead of "
      "'Reference'"], """
        type Spec struct {
        	SecretRef string `json:"secretRef"`
        }"""),
    ("notimestamp", {}, """
        type Status struct {
        	LastUpdateTimestamp metav1.Time `json:"lastUpdateTimestamp"`
        }""",
     ["naming convention \"notimestamp\": field Status.LastUpdateTimestamp: prefer use of the term 'time' over "
      "'timestamp'"], """
        type Status struct {
        	LastUpdateTime metav1.Time `json:"lastUpdateTime"`
        }"""),
    ("optionalfields", {}, """
        type Spec struct {
        	// +optional
        	Replicas int32 `json:"replicas"`
        }""",
     ["field Spec.Replicas should be a pointer.", "field Spec.Replicas should have the omitempty tag."], """
        type Spec struct {
        	// +optional
        	Replicas *int32 `json:"replicas,omitempty"`
        }"""),
    ("optionalfields", {"pointers.preference": "WhenRequired"}, """
        type Spec struct {
        	// +optional
        	Replicas int32 `json:"replicas,omitempty"`
        	// +optional
        	// +kubebuilder:validation:MinLength=1
        	Name *string `json:"name,omitempty"`
        }""",
     ["field Spec.Replicas has a valid zero value (0), but the validation is not complete (e.g. minimum/maximum). The "
      "field should be a pointer to allow the zero value to be set. If the zero value is not a valid use case, "
      "complete the validation and remove the pointer.",
      "field Spec.Name does not allow the zero value. The field does not need to be a pointer."], """
        type Spec struct {
        	// +optional
        	// +kubebuilder:validation:Minimum=1
        	Replicas int32 `json:"replicas,omitempty"`
        	// +optional
        	// +kubebuilder:validation:MinLength=1
        	Name string `json:"name,omitempty"`
        }"""),
    ("optionalorrequired", {}, """
        type Spec struct {
        	Replicas int32 `json:"replicas"`
        	// +kubebuilder:validation:Optional
        	Name string `json:"name"`
        }""",
     ["field Spec.Replicas must be marked as optional or required",
      "field Spec.Name should use marker optional instead of kubebuilder:validation:Optional"], """
        type Spec struct {
        	// +required
        	Replicas int32 `json:"replicas"`
        	// +optional
        	Name string `json:"name"`
        }"""),
    ("preferredmarkers", {"markers": [{"preferredIdentifier": "k8s:optional",
                                       "equivalentIdentifiers": [{"identifier": "optional"}]}]}, """
        type Spec struct {
        	// +optional
        	Name string `json:"name"`
        }""",
     ['field Spec.Name uses marker "optional", should use preferred marker "k8s:optional" instead'], """
        type Spec struct {
        	// +k8s:optional
        	Name string `json:"name"`
        }"""),
    ("requiredfields", {}, """
        type Spec struct {
        	// +required
        	Replicas int32 `json:"replicas"`
        }""",
     ["field Spec.Replicas has a valid zero value (0), but the validation is not complete (e.g. minimum/maximum). The "
      "field should be a pointer to allow the zero value to be set. If the zero value is not a valid use case, "
      "complete the validation and remove the pointer.",
      "field Spec.Replicas should have the omitempty tag."], """
        type Spec struct {
        	// +required
        	// +kubebuilder:validation:Minimum=1
        	Replicas int32 `json:"replicas,omitempty"`
        }"""),
    ("ssatags", {}, """
        type Spec struct {
        	Names []string `json:"names"`
        	// +listType=map
        	Ports []Port `json:"ports"`
        }
        type Port struct {
        	Name string `json:"name"`
        }""",
     ["Spec.Names should have a listType marker for proper Server-Side Apply behavior (atomic, set, or map)",
      "Spec.Ports with listType=map must have at least one listMapKey marker"], """
        type Spec struct {
        	// +listType=set
        	Names []string `json:"names"`
        	// +listType=map
        	// +listMapKey=name
        	Ports []Port `json:"ports"`
        }
        type Port struct {
        	Name string `json:"name"`
        }"""),
    ("statusoptional", {}, """
        type Widget struct {
        	Status WidgetStatus `json:"status"`
        }
        type WidgetStatus struct {
        	// +required
        	Ready string `json:"ready"`
        	Count int32 `json:"count"`
        }""",
     ['status field "Ready" must be marked as optional, not required', 'status field "Count" must be marked as optional'], """
        type Widget struct {
        	Status WidgetStatus `json:"status"`
        }
        type WidgetStatus struct {
        	// +optional
        	Ready string `json:"ready"`
        	// +optional
        	Count int32 `json:"count"`
        }"""),
    ("statussubresource", {}, """
        // +kubebuilder:object:root=true
        type Widget struct {
        	Status WidgetStatus `json:"status"`
        }
        type WidgetStatus struct{}""",
     ['root object type "Widget" has a status field but does not have the marker "kubebuilder:subresource:status" '
      "to enable the status subresource"], """
        // +kubebuilder:object:root=true
        // +kubebuilder:subresource:status
        type Widget struct {
        	Status WidgetStatus `json:"status"`
        }
        type WidgetStatus struct{}"""),
    ("uniquemarkers", {}, """
        type Spec struct {
        	// +kubebuilder:validation:MaxLength=10
        	// +kubebuilder:validation:MaxLength=20
        	Name string `json:"name"`
        }""",
     ["field Spec.Name has multiple definitions of marker kubebuilder:validation:MaxLength when only a single "
      "definition should exist"], """
        type Spec struct {
        	// +kubebuilder:validation:MaxLength=10
        	Name string `json:"name"`
        }"""),
    # -- kgen's rules -------------------------------------------------------------------
    ("kindmetadata", {}, """
        // +genclient
        // +kubebuilder:object:root=true
        type Widget struct {
        	metav1.TypeMeta `json:",inline"`
        	Spec WidgetSpec `json:"spec"`
        }
        type WidgetSpec struct{}""",
     ['kind Widget has no `metadata` field of metav1.ObjectMeta: every API object carries one (`metav1.ObjectMeta '
      '`json:"metadata,omitempty"`)'], """
        // +genclient
        // +kubebuilder:object:root=true
        type Widget struct {
        	metav1.TypeMeta `json:",inline"`
        	metav1.ObjectMeta `json:"metadata,omitempty"`
        	Spec WidgetSpec `json:"spec"`
        }
        type WidgetSpec struct{}"""),
    ("listkinds", {}, """
        // +genclient
        // +kubebuilder:object:root=true
        type Widget struct {
        	metav1.TypeMeta `json:",inline"`
        	metav1.ObjectMeta `json:"metadata,omitempty"`
        }""",
     ['kind Widget has no list type: declare WidgetList with `metav1.ListMeta `json:"metadata,omitempty"`` and '
      '`Items []Widget `json:"items"``, which list and watch answer with'], """
        // +genclient
        // +kubebuilder:object:root=true
        type Widget struct {
        	metav1.TypeMeta `json:",inline"`
        	metav1.ObjectMeta `json:"metadata,omitempty"`
        }
        // +kubebuilder:object:root=true
        type WidgetList struct {
        	metav1.TypeMeta `json:",inline"`
        	metav1.ListMeta `json:"metadata,omitempty"`
        	Items []Widget `json:"items"`
        }"""),
    ("specstatus", {}, KIND.replace('Status WidgetStatus `json:"status,omitempty,omitzero"`', 'Status WidgetStatus `json:"status"`')
     + "type WidgetSpec struct{}\ntype WidgetStatus struct{}",
     ['field Widget.Status should be optional (`json:"status,omitempty"`): clients create objects without a status, '
      "which controllers write"], KIND + "type WidgetSpec struct{}\ntype WidgetStatus struct{}"),
    ("enums", {}, """
        // +kubebuilder:validation:Enum=Fast;Slow
        type Mode string

        const (
        	ModeFast Mode = "Fast"
        	ModeSlow Mode = "slow"
        )""",
     ["+kubebuilder:validation:Enum of Mode lists 'Slow' that no constant has and leaves out 'slow': the schema and "
      "the Go constants disagree",
      "enum value 'slow' of Mode (ModeSlow) is not UpperCamelCase, as enum values are written"], """
        // +kubebuilder:validation:Enum=Fast;Slow
        type Mode string

        const (
        	ModeFast Mode = "Fast"
        	ModeSlow Mode = "Slow"
        )"""),
    ("conditiontypes", {}, """
        type Status struct {
        	Conditions []WidgetCondition `json:"conditions"`
        }
        type WidgetCondition struct {
        	Type string `json:"type"`
        }""",
     ["field Status.Conditions holds WidgetCondition, which has no `status` (True, False or Unknown): a condition says "
      "what it is about and whether it holds (metav1.Condition is the usual type)"], """
        type Status struct {
        	Conditions []WidgetCondition `json:"conditions"`
        }
        type WidgetCondition struct {
        	Type string `json:"type"`
        	Status string `json:"status"`
        	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
        }"""),
]  # fmt: skip


@pytest.mark.parametrize(
    "rule, config, before, expected, after", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_rule_before_and_after(tmp_path, monkeypatch, rule, config, before, expected, after):
    monkeypatch.chdir(tmp_path)
    group = BUILTIN_GROUP if rule in BUILTIN_CASES else CRD_GROUP
    write_package(tmp_path, before, group)
    found = run(tmp_path, rule, config)
    assert sorted(f.message for f in found) == sorted(expected)
    assert {f.rule for f in found} == {rule}
    assert all(f.path == "apis/v1/types.go" and f.line > 0 and f.col > 0 for f in found)
    write_package(tmp_path, after, group)
    assert [f.message for f in run(tmp_path, rule, config)] == []


BUILTIN_CASES = {"conditions", "nonpointerstructs"}
"""Rules whose case is a Kubernetes-style built-in group (their profile settings differ for CRDs)."""


def test_every_rule_has_a_case():
    """The table covers every rule but those with cases of their own below."""
    own = {"names_match", "omitempty_match_case", "list_type_missing", "celcost", "versionmarkers"}
    assert set(RULES) - own == {case[0] for case in CASES}
    assert len(KUBE_API_LINTER) == 31
    # kube-api-linter's 21 default linters (docs/linters.md) are the builtin profile's
    defaults = {
        "arrayofstruct", "commentstart", "conditions", "defaultorrequired", "defaults", "duplicatemarkers", "integers",
        "jsontags", "nodurations", "nofloats", "nomaps", "nonpointerstructs", "nonullable", "nophase", "noreferences",
        "notimestamp", "optionalfields", "optionalorrequired", "requiredfields", "ssatags", "uniquemarkers",
    }  # fmt: skip
    assert {r for r in KUBE_API_LINTER if "builtin" in RULES[r].profiles} == defaults
    crd = {r for r in KUBE_API_LINTER if "crd" in RULES[r].profiles}
    assert crd == defaults - {"nonpointerstructs"} | {"maxlength", "statusoptional", "statussubresource"}
