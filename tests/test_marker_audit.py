"""Every marker kgen knows does something, or says why it does not.

For each marker of the registry, a small API using it is generated twice: as written, and
with the marker's own line taken out. A marker kgen applies must change what kgen writes
(or whether the input is accepted); one kgen knows but does not apply must be warned about
where it is written; one that only steers Go code (`inert`) must change nothing, so that
`kgen markers` says the truth about it. A marker added to the registry without a sample
here fails the first test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgen.diagnostics import Diagnostics
from kgen.generators import CHECKS, GENERATORS, GeneratorOptions, crd
from kgen.ir.build import BuildOptions, build_universe
from kgen.markers.registry import REGISTRY

_TYPES = """package {version}

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

{T_MODE}
// Mode is a mode.
type Mode string

const (
{C_FAST}
	// ModeFast is fast.
	ModeFast Mode = "Fast"
	// ModeSlow is slow.
	ModeSlow Mode = "Slow"
)

// Names are names.
{T_NAMES}
type Names []string

{T_KIND}
// Widget is a kind.
type Widget struct {{
	metav1.TypeMeta   `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// +optional
	Spec WidgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// +optional
	Status WidgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}}

// +kubebuilder:object:root=true

// WidgetList is a list of Widget.
type WidgetList struct {{
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items []Widget `json:"items" protobuf:"bytes,2,rep,name=items"`
}}

{T_CONFIG}
// Config is a configuration file's kind.
type Config struct {{
	metav1.TypeMeta `json:",inline"`
	// +optional
	Level int32 `json:"level,omitempty" protobuf:"varint,1,opt,name=level"`
}}

{T_SPEC}
// WidgetSpec is the spec.
type WidgetSpec struct {{
{F_NAME}
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
{F_COUNT}
	// +optional
	Count int32 `json:"count,omitempty" protobuf:"varint,2,opt,name=count"`
{F_TAGS}
	// +optional
	Tags []string `json:"tags,omitempty" protobuf:"bytes,3,rep,name=tags"`
{F_LABELS}
	// +optional
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,4,rep,name=labels"`
{F_SUB}
	// +optional
	Sub *Sub `json:"sub,omitempty" protobuf:"bytes,5,opt,name=sub"`
{F_MODE}
	// +optional
	Mode Mode `json:"mode,omitempty" protobuf:"bytes,6,opt,name=mode,casttype=Mode"`
{F_ITEMS}
	// +optional
	Items []Item `json:"items,omitempty" protobuf:"bytes,7,rep,name=items"`
{F_OTHER}
	// +optional
	Other *string `json:"other,omitempty" protobuf:"bytes,8,opt,name=other"`
{F_COUNTS}
	// +optional
	Counts []int32 `json:"counts,omitempty" protobuf:"varint,12,rep,name=counts"`
{F_ALIASES}
	// +optional
	Aliases Names `json:"aliases,omitempty" protobuf:"bytes,9,opt,name=aliases"`
{F_PLAIN}
	Plain string `json:"plain" protobuf:"bytes,10,opt,name=plain"`
{F_EXTRA}
}}

{T_SUB}
// Sub is a sub.
type Sub struct {{
	// +optional
	A string `json:"a,omitempty" protobuf:"bytes,1,opt,name=a"`
	// +optional
	B string `json:"b,omitempty" protobuf:"bytes,2,opt,name=b"`
}}

// Item is an item.
type Item struct {{
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// +optional
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
}}

// WidgetStatus is the status.
type WidgetStatus struct {{
	// +optional
	Ready bool `json:"ready,omitempty" protobuf:"varint,1,opt,name=ready"`
}}
"""

_INTERNAL = """package ops

// Widget is the internal kind.
type Widget struct {
	Spec WidgetSpec
}

// WidgetSpec is the internal spec.
type WidgetSpec struct {
	Name string
	Count int32
}
"""

_EXTERNAL = """package v1

// Widget is the external kind.
type Widget struct {
	Spec WidgetSpec `json:"spec"`
}

// WidgetSpec is the external spec.
type WidgetSpec struct {
	Name string `json:"name"`
}
"""

_DEFAULTS = {
    "pkg": "// +k8s:protobuf-gen=package",
    "T_KIND": "// +genclient\n// +kubebuilder:object:root=true",
}
_SLOTS = ("pkg", "T_MODE", "C_FAST", "T_NAMES", "T_KIND", "T_CONFIG", "T_SPEC", "F_NAME", "F_COUNT", "F_TAGS",
          "F_LABELS", "F_SUB", "F_MODE", "F_ITEMS", "F_OTHER", "F_COUNTS", "F_ALIASES", "F_PLAIN", "F_EXTRA", "T_SUB")  # fmt: skip

_CONVERTED = {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:conversion-gen=example.com/op/apis/ops", "internal": ""}
_TWO_VERSIONS = {"v2": ""}
_WEBHOOK = (
    "// +kubebuilder:webhook:path=/validate-ops,mutating=false,failurePolicy=fail,sideEffects=None,groups=ops.example.com,"
    "resources=widgets,verbs=create;update,versions=v1,name=vwidget.ops.example.com,admissionReviewVersions=v1"
)
_COSTLY = "// +kubebuilder:validation:XValidation:rule=\"self.all(x, self.all(y, self.all(z, x + y + z != 'abc')))\""

SAMPLES: dict[str, dict[str, str]] = {
    "groupName": {"pkg": "// +k8s:protobuf-gen=package\n// +groupName=other.example.com"},
    "versionName": {"pkg": "// +k8s:protobuf-gen=package\n// +versionName=v2"},
    "k8s:deepcopy-gen": {"T_SUB": "// +k8s:deepcopy-gen=false"},
    "k8s:deepcopy-gen:interfaces": {"T_CONFIG": "// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"},
    "k8s:deepcopy-gen:nonpointer-interfaces": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +k8s:deepcopy-gen:nonpointer-interfaces=true"},
    "k8s:defaulter-gen": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:defaulter-gen=TypeMeta"},
    "k8s:defaulter-gen-input": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:defaulter-gen-input=example.com/op/apis/ops/v1"},
    "k8s:conversion-gen": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:conversion-gen=false", "internal": ""},
    "k8s:conversion-gen-external-types": {
        **_CONVERTED,
        "pkg": _CONVERTED["pkg"] + "\n// +k8s:conversion-gen-external-types=example.com/op/apis/external/v1",
        "external": "",
    },
    "k8s:conversion-fn": {**_CONVERTED, "F_NAME": "// +k8s:conversion-fn=drop"},
    "k8s:openapi-gen": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:openapi-gen=false"},
    "k8s:openapi-model-package": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:openapi-model-package=com.example.ops.v1"},
    "k8s:protobuf-gen": {"pkg": "// +k8s:protobuf-gen=package"},
    "protobuf": {"T_SUB": "// +protobuf=false"},
    "protobuf.nullable": {"T_NAMES": "// +protobuf.nullable=true"},
    "protobuf.as": {"T_SUB": "// +protobuf.as=Timestamp"},
    "protobuf.embed": {"T_SUB": "// +protobuf.embed=string"},
    "protobuf.options.(gogoproto.goproto_stringer)": {"T_SUB": "// +protobuf.options.(gogoproto.goproto_stringer)=false"},
    "k8s:prerelease-lifecycle-gen": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:prerelease-lifecycle-gen=true"},
    "k8s:prerelease-lifecycle-gen:introduced": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +k8s:prerelease-lifecycle-gen:introduced=1.20"},
    "k8s:prerelease-lifecycle-gen:deprecated": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +k8s:prerelease-lifecycle-gen:deprecated=1.22"},
    "k8s:prerelease-lifecycle-gen:removed": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +k8s:prerelease-lifecycle-gen:removed=1.25"},
    "k8s:prerelease-lifecycle-gen:replacement": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +k8s:prerelease-lifecycle-gen:replacement=ops.example.com,v2,Widget"},
    "k8s:deprecated": {"T_SUB": "// +k8s:deprecated=c,protobuf=3"},
    "k8s:validation-gen": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:validation-gen=TypeMeta"},
    "k8s:validation-gen-input": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:validation-gen-input=example.com/op/apis/ops/v1"},
    "k8s:validation-gen-scheme-registry": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:validation-gen-scheme-registry=k8s.io/client-go/kubernetes.Scheme"},
    "k8s:validation-gen-test-fixture": {"pkg": "// +k8s:protobuf-gen=package\n// +k8s:validation-gen-test-fixture=validateFalse"},
    "k8s:optional": {"F_PLAIN": "// +k8s:optional"},
    "k8s:required": {"F_EXTRA": "// +k8s:required\nExtra string `json:\"extra,omitempty\" protobuf:\"bytes,11,opt,name=extra\"`"},
    "k8s:forbidden": {"F_EXTRA": "// +k8s:forbidden\nExtra string `json:\"extra,omitempty\" protobuf:\"bytes,11,opt,name=extra\"`"},
    "k8s:minimum": {"F_COUNT": "// +k8s:minimum=1"},
    "k8s:maximum": {"F_COUNT": "// +k8s:maximum=5"},
    "k8s:minLength": {"F_NAME": "// +k8s:minLength=1"},
    "k8s:maxLength": {"F_NAME": "// +k8s:maxLength=5"},
    "k8s:maxBytes": {"F_NAME": "// +k8s:maxBytes=5"},
    "k8s:minItems": {"F_TAGS": "// +k8s:minItems=1"},
    "k8s:maxItems": {"F_TAGS": "// +k8s:maxItems=5"},
    "k8s:minProperties": {"F_LABELS": "// +k8s:minProperties=1"},
    "k8s:maxProperties": {"F_LABELS": "// +k8s:maxProperties=5"},
    "k8s:format": {"F_NAME": "// +k8s:format=k8s-short-name"},
    "k8s:enum": {"T_MODE": "// +k8s:enum"},
    "k8s:enumExclude": {"T_MODE": "// +k8s:enum", "C_FAST": "// +k8s:enumExclude"},
    "k8s:listType": {"F_TAGS": "// +k8s:listType=set"},
    "k8s:listMapKey": {"F_ITEMS": "// +listType=map\n// +k8s:listMapKey=key"},
    "k8s:unique": {"F_TAGS": "// +k8s:unique=set"},
    "k8s:eachVal": {"F_TAGS": "// +k8s:eachVal=+k8s:minLength=1"},
    "k8s:eachKey": {"F_LABELS": "// +k8s:eachKey=+k8s:minLength=1"},
    "k8s:subfield": {"F_SUB": "// +k8s:subfield(a)=+k8s:minLength=1"},
    "k8s:item": {"F_ITEMS": "// +listType=map\n// +listMapKey=key\n// +k8s:item(key: \"x\")=+k8s:maxLength=3"},
    "k8s:unionMember": {"F_NAME": "// +k8s:unionMember", "F_OTHER": "// +k8s:unionMember"},
    "k8s:unionDiscriminator": {"F_MODE": "// +k8s:unionDiscriminator", "F_NAME": "// +k8s:unionMember", "F_OTHER": "// +k8s:unionMember"},
    "k8s:zeroOrOneOfMember": {"F_NAME": "// +k8s:zeroOrOneOfMember", "F_OTHER": "// +k8s:zeroOrOneOfMember"},
    "k8s:immutable": {"F_NAME": "// +k8s:immutable"},
    "k8s:update": {"F_NAME": "// +k8s:update=NoModify"},
    "k8s:monotonic": {"F_COUNT": "// +k8s:monotonic"},
    "k8s:ifEnabled": {"F_NAME": "// +k8s:ifEnabled(Gate)=+k8s:maxLength=3"},
    "k8s:ifDisabled": {"F_NAME": "// +k8s:ifDisabled(Gate)=+k8s:maxLength=3"},
    "k8s:alpha": {"F_NAME": "// +k8s:alpha(since: \"1.35\")=+k8s:maxLength=3"},
    "k8s:beta": {"F_NAME": "// +k8s:beta(since: \"1.35\")=+k8s:maxLength=3"},
    "k8s:declarativeValidationNative": {"F_NAME": "// +k8s:maxLength=3\n// +k8s:declarativeValidationNative"},
    "k8s:discriminator": {"F_MODE": "// +k8s:discriminator", "F_NAME": "// +k8s:member(\"Fast\")=+k8s:maxLength=3"},
    "k8s:modeDiscriminator": {"F_MODE": "// +k8s:modeDiscriminator", "F_NAME": "// +k8s:ifMode(\"Fast\")=+k8s:maxLength=3"},
    "k8s:member": {"F_MODE": "// +k8s:discriminator", "F_NAME": "// +k8s:member(\"Fast\")=+k8s:maxLength=3"},
    "k8s:ifMode": {"F_MODE": "// +k8s:modeDiscriminator", "F_NAME": "// +k8s:ifMode(\"Fast\")=+k8s:maxLength=3"},
    "k8s:dependentRequired": {"F_NAME": "// +k8s:dependentRequired(count)"},
    "k8s:dependentForbidden": {"F_NAME": "// +k8s:dependentForbidden(count)"},
    "k8s:customUnique": {"F_TAGS": "// +listType=set\n// +k8s:customUnique"},
    "k8s:customValidation": {"F_NAME": "// +k8s:customValidation"},
    "k8s:validation-gen-nolint": {"T_SUB": "// +k8s:validation-gen-nolint"},
    "k8s:conversion-gen:explicit-from": {"T_SUB": "// +k8s:conversion-gen:explicit-from=net/url.Values"},
    "k8s:opaqueType": {"F_SUB": "// +k8s:opaqueType"},
    "k8s:isSubresource": {"T_SUB": "// +k8s:isSubresource=/status"},
    "k8s:supportsSubresource": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +k8s:supportsSubresource=/status"},
    "k8s:neq": {"F_NAME": "// +k8s:neq=\"x\""},
    "optional": {"F_PLAIN": "// +optional"},
    "required": {"F_EXTRA": "// +required\nExtra string `json:\"extra,omitempty\" protobuf:\"bytes,11,opt,name=extra\"`"},
    "nullable": {"F_OTHER": "// +nullable"},
    "default": {"F_NAME": "// +default=\"x\""},
    "listType": {"F_TAGS": "// +listType=set"},
    "listMapKey": {"F_ITEMS": "// +listType=map\n// +listMapKey=key"},
    "mapType": {"F_LABELS": "// +mapType=atomic"},
    "structType": {"F_SUB": "// +structType=atomic"},
    "patchStrategy": {"F_ITEMS": "// +patchStrategy=merge"},
    "patchMergeKey": {"F_ITEMS": "// +patchMergeKey=key"},
    "union": {"T_SUB": "// +union"},
    "unionDiscriminator": {"T_SPEC": "// +union", "F_MODE": "// +unionDiscriminator"},
    "unionDeprecated": {"F_NAME": "// +unionDeprecated", "F_OTHER": "// +unionDeprecated"},
    "enum": {"T_MODE": "// +enum"},
    "featureGate": {"F_NAME": "// +featureGate=MyGate"},
    "resourceName": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +resourceName=gadgets"},
    "kubebuilder:webhook": {"pkg": "// +k8s:protobuf-gen=package\n" + _WEBHOOK},
    "kubebuilder:webhookconfiguration": {
        "pkg": "// +k8s:protobuf-gen=package\n" + _WEBHOOK + "\n// +kubebuilder:webhookconfiguration:mutating=false,name=ops"
    },
    "genclient": {"T_KIND": "// +kubebuilder:object:root=true\n// +genclient"},
    "genclient:nonNamespaced": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +genclient:nonNamespaced"},
    "genclient:noVerbs": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +genclient:noVerbs"},
    "genclient:noStatus": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +genclient:noStatus"},
    "genclient:readonly": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +genclient:readonly"},
    "genclient:onlyVerbs": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +genclient:onlyVerbs=get,list"},
    "genclient:skipVerbs": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +genclient:skipVerbs=delete"},
    "genclient:method": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +genclient:method=GetThing,verb=get,subresource=thing"},
    "kubebuilder:object:root": {"T_CONFIG": "// +kubebuilder:object:root=true"},
    "kubebuilder:object:generate": {"T_SUB": "// +kubebuilder:object:generate=false"},
    "kubebuilder:skip": {"pkg": "// +k8s:protobuf-gen=package\n// +kubebuilder:skip"},
    "kubebuilder:subresource:status": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:subresource:status"},
    "kubebuilder:subresource:scale": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:subresource:scale:specpath=.spec.count,statuspath=.status.count"},
    "kubebuilder:resource": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:resource:shortName=wd"},
    "kubebuilder:printcolumn": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:printcolumn:name=Name,type=string,JSONPath=.spec.name"},
    "kubebuilder:storageversion": {**_TWO_VERSIONS, "T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:storageversion"},
    "kubebuilder:skipversion": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:skipversion"},
    "kubebuilder:unservedversion": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:unservedversion"},
    "kubebuilder:deprecatedversion": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:deprecatedversion:warning=old"},
    "kubebuilder:selectablefield": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:selectablefield:JSONPath=.spec.name"},
    "kubebuilder:metadata": {"T_KIND": _DEFAULTS["T_KIND"] + "\n// +kubebuilder:metadata:labels=team=ops"},
    "kubebuilder:default": {"F_NAME": "// +kubebuilder:default=x"},
    "kubebuilder:example": {"F_NAME": "// +kubebuilder:example=x"},
    "kubebuilder:title": {"F_NAME": "// +kubebuilder:title=Name"},
    "kubebuilder:pruning:PreserveUnknownFields": {"F_SUB": "// +kubebuilder:pruning:PreserveUnknownFields"},
    "kubebuilder:validation:Optional": {"F_PLAIN": "// +kubebuilder:validation:Optional"},
    "kubebuilder:validation:Required": {"F_EXTRA": "// +kubebuilder:validation:Required\nExtra string `json:\"extra,omitempty\" protobuf:\"bytes,11,opt,name=extra\"`"},
    "kubebuilder:validation:Type": {"F_NAME": "// +kubebuilder:validation:Type=integer"},
    "kubebuilder:validation:XValidation": {"F_NAME": "// +kubebuilder:validation:XValidation:rule=\"self != 'x'\",message=\"not x\""},
    "kubebuilder:validation:items:Type": {"F_TAGS": "// +kubebuilder:validation:items:Type=integer"},
    "kubebuilder:validation:items:XValidation": {"F_TAGS": "// +kubebuilder:validation:items:XValidation:rule=\"self != 'x'\""},
    "kubebuilder:validation:ExactlyOneOf": {"T_SUB": "// +kubebuilder:validation:ExactlyOneOf=a;b"},
    "kubebuilder:validation:AtMostOneOf": {"T_SUB": "// +kubebuilder:validation:AtMostOneOf=a;b"},
    "kubebuilder:validation:AtLeastOneOf": {"T_SUB": "// +kubebuilder:validation:AtLeastOneOf=a;b"},
    "kubebuilder:validation:Schemaless": {"F_SUB": "// +kubebuilder:validation:Schemaless"},
    "kubebuilder:validation:EmbeddedResource": {"F_SUB": "// +kubebuilder:validation:EmbeddedResource"},
    "kubebuilder:validation:XEmbeddedResource": {"F_SUB": "// +kubebuilder:validation:XEmbeddedResource"},
    "kubebuilder:validation:XIntOrString": {"F_NAME": "// +kubebuilder:validation:XIntOrString"},
    "kgen:storageVersion": {**_TWO_VERSIONS, "T_KIND": _DEFAULTS["T_KIND"] + "\n// +kgen:storageVersion"},
    "kgen:python": {"pkg": "", "T_SUB": "// +kgen:python=json:JSONDecoder\n// +kgen:jsonType=string"},
    "kgen:jsonType": {"pkg": "", "T_SUB": "// +kgen:python=json:JSONDecoder\n// +kgen:jsonType=string"},
    "kgen:mutable": {"pkg": "", "T_SUB": "// +kgen:python=json:JSONDecoder\n// +kgen:jsonType=string\n// +kgen:mutable"},
    "kgen:celCost": {"pkg": "// +k8s:protobuf-gen=package\n// +kgen:celCost=warn", "F_TAGS": _COSTLY},
    "kgen:opaque": {"F_EXTRA": "// +kgen:opaque\n// +optional\nExtra interface{} `json:\"extra,omitempty\" protobuf:\"bytes,11,opt,name=extra\"`"},
}
_VALIDATION = {
    "Minimum": ("F_COUNT", "1"), "Maximum": ("F_COUNT", "5"), "ExclusiveMinimum": ("F_COUNT", "true"),
    "ExclusiveMaximum": ("F_COUNT", "true"), "MultipleOf": ("F_COUNT", "2"), "MinLength": ("F_NAME", "1"),
    "MaxLength": ("F_NAME", "5"), "Pattern": ("F_NAME", "`^a$`"), "MinItems": ("F_TAGS", "1"),
    "MaxItems": ("F_TAGS", "5"), "UniqueItems": ("F_TAGS", "true"), "MinProperties": ("F_LABELS", "1"),
    "MaxProperties": ("F_LABELS", "5"), "Enum": ("F_NAME", "a;b"), "Format": ("F_NAME", "email"),
}  # fmt: skip
for _key, (_slot, _value) in _VALIDATION.items():
    # an exclusive bound needs its bound beside it
    _bound = {"ExclusiveMinimum": "Minimum=1", "ExclusiveMaximum": "Maximum=5"}.get(_key)
    _items = "F_COUNTS" if _slot == "F_COUNT" else "F_TAGS"
    for _prefix, _target in (("kubebuilder:validation:", _slot), ("kubebuilder:validation:items:", _items)):
        _item_value = _value
        _lines = ([f"// +{_prefix}{_bound}"] if _bound else []) + [f"// +{_prefix}{_key}={_item_value}"]
        SAMPLES[_prefix + _key] = {_target: "\n".join(_lines)}


_COPIED_MARKERS = re.compile(r"^\s*(// \+.*)?\n", re.MULTILINE)
"""Marker lines go-to-protobuf copies into a message's comment (as kgen's .proto does), and
the blank line before them: quoted, not applied."""


def _without(text: str, name: str) -> str:
    """The text with the lines of marker `name` (and no other) taken out."""
    pattern = re.compile(r"^\s*// \+" + re.escape(name) + r"(?=$|[=:(])")
    return "\n".join(line for line in text.split("\n") if not pattern.match(line))


def _generate(root: Path, slots: dict[str, str]) -> tuple[dict[str, str] | None, list[str]]:
    """The files every generator writes for the API (None when the input is refused) and
    the diagnostics, with positions made relative to `root`."""
    values = {slot: "" for slot in _SLOTS} | _DEFAULTS | {k: v for k, v in slots.items() if k in _SLOTS}
    pkg = values.pop("pkg")
    versions = ["v1", "v2"] if "v2" in slots else ["v1"]
    for version in versions:  # a second version is written as the defaults have it
        folder = root / "ops" / version
        folder.mkdir(parents=True, exist_ok=True)
        own = values if version == "v1" else {slot: "" for slot in _SLOTS[1:]} | {"T_KIND": _DEFAULTS["T_KIND"]}
        (folder / "doc.go").write_text(f"{pkg if version == 'v1' else _DEFAULTS['pkg']}\n// +groupName=ops.example.com\npackage {version}\n")
        (folder / "types.go").write_text(_TYPES.format(version=version, **own))
    if "internal" in slots:
        (root / "ops" / "doc.go").write_text("// +groupName=ops.example.com\npackage ops\n")
        (root / "ops" / "types.go").write_text(_INTERNAL)
    if "external" in slots:  # the external types of the version, in a package of their own
        folder = root / "external" / "v1"
        folder.mkdir(parents=True)
        (folder / "doc.go").write_text("// +groupName=ops.example.com\npackage v1\n")
        (folder / "types.go").write_text(_EXTERNAL)
    diagnostics = Diagnostics()
    universe = build_universe(BuildOptions(input=root, module="example.com/op/apis"), diagnostics)
    if not diagnostics.errors:
        for check in CHECKS.values():
            check(universe, diagnostics)
    said = [str(d).replace(str(root), "") for d in diagnostics.sorted()]
    if diagnostics.errors:
        return None, said
    options = GeneratorOptions(generators=tuple(GENERATORS), wiring=tuple(GENERATORS))
    files = {f.path: _COPIED_MARKERS.sub("", f.content) for generate in GENERATORS.values() for f in generate(universe, options)}
    crd.check_documents(universe, options, diagnostics)
    return (None if diagnostics.errors else files), [str(d).replace(str(root), "") for d in diagnostics.sorted()]


def test_every_known_marker_has_a_sample():
    assert sorted(set(REGISTRY.definitions) - set(SAMPLES)) == []
    assert sorted(set(SAMPLES) - set(REGISTRY.definitions)) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REGISTRY.definitions))
def test_a_known_marker_changes_the_output_or_says_it_is_not_applied(name, tmp_path):
    definition = REGISTRY.definitions[name]
    sample = SAMPLES[name]
    stripped = {slot: _without(text, name) for slot, text in sample.items()}
    assert stripped != sample, f"the sample of +{name} does not use it"
    with_files, with_said = _generate(tmp_path / "with", sample)
    without_files, without_said = _generate(tmp_path / "without", stripped)
    new = [line for line in with_said if line not in without_said]
    # an input refused either way shows the marker's effect in what is said about it
    changed = with_files != without_files or (with_files is None and with_said != without_said)
    if definition.inert:
        assert not changed and not new, f"+{name} is declared inert ({definition.inert}) but changes the output: {new}"
    elif definition.unapplied:
        assert any(f"+{name} is not applied" in line for line in new), new
    else:
        assert changed or any(name in line for line in new), (
            f"+{name} is known but changes nothing kgen writes and says nothing: apply it, declare it "
            "inert (it only steers Go code), or mark it unapplied so that each use is warned about"
        )


def test_a_message_left_out_of_protobuf_but_used_by_a_field_is_an_error_at_the_field(tmp_path):
    files, said = _generate(tmp_path, {"T_SUB": "// +protobuf=false"})
    assert files is None
    assert any(
        line.startswith("/ops/v1/types.go:") and "WidgetSpec.Sub uses Sub, which +protobuf=false leaves out" in line
        for line in said
    ), said


def test_a_python_implemented_type_in_a_protobuf_message_is_an_error_not_a_crash(tmp_path):
    files, said = _generate(tmp_path, {"T_SUB": "// +kgen:python=json:JSONDecoder\n// +kgen:jsonType=string"})
    assert files is None
    assert any("WidgetSpec.Sub uses Sub, implemented by the Python class json:JSONDecoder" in line for line in said), said


def test_markers_kgen_does_not_apply_are_listed_as_such():
    from click.testing import CliRunner

    from kgen.cli import main

    listing = CliRunner().invoke(main, ["markers"]).output
    assert "+k8s:item" in listing and "(not applied, with a warning:" in listing
    assert "(changes nothing kgen writes: Go method receivers" in listing
