"""`kgen lint --fix` for every rule that has a fix: the Go source after the fix is exactly
what is expected (comments and formatting around the edit kept), it still parses, kgen
generates from it, and the rule finds nothing left.

The fixes follow kube-api-linter's suggested fixes (pkg/analysis/<linter>/analyzer.go),
but for two choices of kgen's: a fix never renumbers an existing protobuf field (the
wire format depends on it), and `+kubebuilder:default` values are rewritten as the JSON
that `+default` takes.
"""

from __future__ import annotations

import dataclasses

import pytest

from lint_helpers import BUILTIN_GROUP, CRD_GROUP, IMPORTS, options, run, run_fix, write_package
from kgen import pipeline
from kgen.generators import DEFAULTS

# (rule, settings, group, source before, source after the fix)
FIXES: list[tuple[str, dict, str, str, str]] = [
    ("commentstart", {}, CRD_GROUP, """
type Spec struct {
	// Replicas is how many.
	Replicas int32 `json:"replicas"`
}""", """
type Spec struct {
	// replicas is how many.
	Replicas int32 `json:"replicas"`
}"""),
    ("conditions", {}, BUILTIN_GROUP, """
type Status struct {
	// conditions say how it is going.
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
}""", """
type Status struct {
	// conditions say how it is going.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}"""),
    ("conditions", {}, BUILTIN_GROUP, """
type Status struct {
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	Driver string `json:"driver,omitempty" protobuf:"bytes,1,opt,name=driver"`
}""", """
type Status struct {
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
	// +optional
	Driver string `json:"driver,omitempty" protobuf:"bytes,1,opt,name=driver"`
}"""),
    ("duplicatemarkers", {}, CRD_GROUP, """
// Name is a name.
// +kubebuilder:validation:MaxLength=10
// +kubebuilder:validation:MaxLength=10
type Name string""", """
// Name is a name.
// +kubebuilder:validation:MaxLength=10
type Name string"""),
    ("forbiddenmarkers", {"markers": [{"identifier": "kubebuilder:validation:XEmbeddedResource"}]}, CRD_GROUP, """
type Spec struct {
	// template is kept.
	// +kubebuilder:validation:XEmbeddedResource
	// +optional
	Template string `json:"template,omitempty"`
}""", """
type Spec struct {
	// template is kept.
	// +optional
	Template string `json:"template,omitempty"`
}"""),
    ("jsontags", {"fieldNameMatch": "SuggestFix"}, CRD_GROUP, """
type Spec struct {
	MaxSize int32 `json:"maxsize,omitempty"` // the largest
}""", """
type Spec struct {
	MaxSize int32 `json:"maxSize,omitempty"` // the largest
}"""),
    ("namingconventions", {"conventions": [
        {"name": "colour", "violationMatcher": "(?i)color", "operation": "Replacement", "replacement": "Colour",
         "message": "write colour"},
        {"name": "nodebug", "violationMatcher": "(?i)debug", "operation": "DropField", "message": "no debug fields"},
    ]}, CRD_GROUP, """
type Spec struct {
	// favoriteColor is a colour.
	FavoriteColor string `json:"favoriteColor"`

	// debugLevel is for us.
	DebugLevel int32 `json:"debugLevel"`
	Size int32 `json:"size"`
}""", """
type Spec struct {
	// favoriteColor is a colour.
	FavoriteColour string `json:"favoriteColour"`

	Size int32 `json:"size"`
}"""),
    ("nonpointerstructs", {}, BUILTIN_GROUP, """
type Spec struct {
	// template is required.
	// +optional
	Template Template `json:"template"`
}

type Template struct {
	// +required
	Name string `json:"name"`
}""", """
type Spec struct {
	// template is required.
	// +required
	Template Template `json:"template"`
}

type Template struct {
	// +required
	Name string `json:"name"`
}"""),
    ("nonullable", {}, CRD_GROUP, """
type Spec struct {
	// name may be left out.
	// +nullable
	// +optional
	Name *string `json:"name,omitempty"`
}""", """
type Spec struct {
	// name may be left out.
	// +optional
	Name *string `json:"name,omitempty"`
}"""),
    ("noreferences", {}, CRD_GROUP, """
type Spec struct {
	SecretReference string `json:"secretReference,omitempty"`
}""", """
type Spec struct {
	SecretRef string `json:"secretRef,omitempty"`
}"""),
    ("notimestamp", {}, CRD_GROUP, """
type Status struct {
	// +optional
	LastSyncTimestamp *metav1.Time `json:"lastSyncTimestamp,omitempty"`
}""", """
type Status struct {
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty"`
}"""),
    ("optionalfields", {}, CRD_GROUP, """
type Spec struct {
	// replicas is how many.
	// +optional
	Replicas int32 `json:"replicas"`
}""", """
type Spec struct {
	// replicas is how many.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}"""),
    ("optionalorrequired", {}, CRD_GROUP, """
type Spec struct {
	// +kubebuilder:validation:Optional
	Name string `json:"name"`
	// +kubebuilder:validation:Required
	// +required
	Size int32 `json:"size"`
}""", """
type Spec struct {
	// +optional
	Name string `json:"name"`
	// +required
	Size int32 `json:"size"`
}"""),
    ("preferredmarkers", {"markers": [{"preferredIdentifier": "k8s:maxLength",
                                       "equivalentIdentifiers": [{"identifier": "kubebuilder:validation:MaxLength"}]}]},
     CRD_GROUP, """
type Spec struct {
	// +kubebuilder:validation:MaxLength=10
	Name string `json:"name"`
}""", """
type Spec struct {
	// +k8s:maxLength=10
	Name string `json:"name"`
}"""),
    ("requiredfields", {}, CRD_GROUP, """
type Spec struct {
	// +required
	// +kubebuilder:validation:MinLength=1
	Name *string `json:"name"`
}""", """
type Spec struct {
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name,omitempty"`
}"""),
    ("ssatags", {}, CRD_GROUP, """
type Spec struct {
	// +listType=atomic
	Checksum []byte `json:"checksum"`
}""", """
type Spec struct {
	Checksum []byte `json:"checksum"`
}"""),
    ("statusoptional", {}, CRD_GROUP, """
type Widget struct {
	Status WidgetStatus `json:"status"`
}

type WidgetStatus struct {
	// ready says whether it is.
	// +required
	Ready string `json:"ready"`
}""", """
type Widget struct {
	Status WidgetStatus `json:"status"`
}

type WidgetStatus struct {
	// ready says whether it is.
	// +optional
	Ready string `json:"ready"`
}"""),
    ("statussubresource", {}, CRD_GROUP, """
// Widget is a widget.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}

type WidgetStatus struct{}""", """
// Widget is a widget.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}

type WidgetStatus struct{}"""),
    ("defaults", {}, CRD_GROUP, """
type Spec struct {
	// +optional
	// +kubebuilder:default={name: web, port: 80}
	Target Target `json:"target"`
}

type Target struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	Port int32 `json:"port,omitempty"`
}""", """
type Spec struct {
	// +optional
	// +default={"name":"web","port":80}
	Target Target `json:"target,omitzero"`
}

type Target struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	Port int32 `json:"port,omitempty"`
}"""),
    ("kindmetadata", {}, CRD_GROUP, """
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
}

// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}""", """
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
    ("specstatus", {}, CRD_GROUP, """
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec WidgetSpec `json:"spec"`
	Status WidgetStatus `json:"status"`
}

// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}

type WidgetSpec struct{}

type WidgetStatus struct{}""", """
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec WidgetSpec `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}

type WidgetSpec struct{}

type WidgetStatus struct{}"""),
]  # fmt: skip


@pytest.mark.parametrize("rule, config, group, before, after", FIXES, ids=[f"{f[0]}-{i}" for i, f in enumerate(FIXES)])
def test_fix(tmp_path, monkeypatch, rule, config, group, before, after):
    monkeypatch.chdir(tmp_path)
    path = write_package(tmp_path, before, group)
    assert any(f.fix is not None for f in run(tmp_path, rule, config)), "the rule offers a fix"
    result = run_fix(tmp_path, rule, config)
    assert result.fixed >= 1 and result.changed_files == ["apis/v1/types.go"]
    assert path.read_text() == f"package v1\n\n{IMPORTS}\n{after.strip(chr(10))}\n"
    assert [f.message for f in result.findings] == []  # the rule finds nothing left
    generated = pipeline.generate(dataclasses.replace(options(tmp_path), generators=DEFAULTS), use_cache=False)
    assert generated.files and not generated.diagnostics.errors  # it parses and generates


def test_every_fixable_rule_has_a_fix_case():
    from kgen.lint.registry import RULES

    tested = {f[0] for f in FIXES} | {"omitempty_match_case"}  # in test_lint_api.py
    assert {r.id for r in RULES.values() if r.fixable} == tested


def test_fix_leaves_other_findings_and_unfixable_ones_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write_package(
        tmp_path,
        """
type Spec struct {
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	On bool `json:"on"`
}""",
    )
    result = run_fix(tmp_path, None, None, select=("optionalfields", "nobools"))
    assert "Replicas *int32" in path.read_text()
    assert [f.rule for f in result.findings] == ["nobools"]
