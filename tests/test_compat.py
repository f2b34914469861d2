"""`kgen compat`: every rule on a minimal before/after pair of Go types, with its exact finding.

What is a break follows the API change guide (kubernetes/community,
contributors/devel/sig-architecture/api_changes.md, "On compatibility": an API call that
succeeded must still succeed; defaults, requiredness and mutability do not change; valid
values do not become invalid; "Backward compatibility gotchas": enums, validation, a new
version as the storage version, defaults in every version), and the API server's handling
of CRDs (apiextensions-apiserver: pruning, defaulting on read, validation with ratcheting,
ValidateCustomResourceDefinitionStoredVersions, immutable scope and plural). The example
objects in the messages are checked with kgen's structural schema engine, whose messages
are the API server's (tests/test_structural.py).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from conftest import write_tree
from kgen.compat import compare, read_paths
from kgen.compat import crdfiles
from kgen.compat.rules import RULES
from kgen.diagnostics import Diagnostics

TYPES = """\
package {version}

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
{kind_markers}
// Widget is a widget.
type Widget struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec WidgetSpec `json:"spec,omitempty"`
	// +optional
	Status WidgetStatus `json:"status,omitempty"`
}}

// WidgetSpec is what is wanted.
{spec_markers}
type WidgetSpec struct {{
{spec}
}}

// WidgetStatus is what is.
type WidgetStatus struct {{
{status}
}}
{extra}
"""


def api(spec="", status="", extra="", version="v1", kind_markers="", doc="", spec_markers="") -> dict[str, str]:
    """The files of a one-kind API (Widget of shop.example.com) in one version."""
    return {
        "go.mod": "module example.com/shop/apis\n\ngo 1.22\n",
        f"shop/{version}/doc.go": f"{doc}\n// +groupName=shop.example.com\npackage {version}\n",
        f"shop/{version}/types.go": TYPES.format(
            version=version, spec=spec, status=status, extra=extra, kind_markers=kind_markers,
            spec_markers=spec_markers,
        ),  # fmt: skip
    }


def field(*lines: str) -> str:
    return "\n".join(lines)


STORAGE = "// +kubebuilder:storageversion"


def two(first=("v1", STORAGE), second=("v1beta1", ""), spec_first="", spec_second="") -> dict[str, str]:
    """Widget in two versions (the first one stored unless the markers say otherwise)."""
    return {**api(version=first[0], kind_markers=first[1], spec=spec_first),
            **api(version=second[0], kind_markers=second[1], spec=spec_second)}  # fmt: skip


GADGET = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Gadget is a gadget.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
"""

PORT = """
// Port is a port.
type Port struct {
	Name string `json:"name"`
	// +optional
	Port int32 `json:"port,omitempty"`
}
"""

BLOB = """
// Blob is opaque.
{marker}
type Blob struct {{
	// +optional
	A string `json:"a,omitempty"`
}}
"""

PROTOBUF = "// +k8s:protobuf-gen=package"
SIZE = field("// +optional", 'Size int32 `json:"size,omitempty"`')
NAME = 'Name string `json:"name,omitempty"`'


def run(tmp_path: Path, old: dict[str, str], new: dict[str, str], examples: bool = True):
    before = write_tree(tmp_path / "old", old)
    after = write_tree(tmp_path / "new", new)
    found, notes = compare(read_paths([before], None, "old"), read_paths([after], None, "new"), examples=examples)
    return sorted(found, key=lambda f: f.sort_key()), notes


def said(found) -> list[tuple[str, str, str]]:
    return [(f.severity.value, f.rule, f.message) for f in found]


# (old API, new API, [(severity, rule, message)]): one pair per rule, and the variants the
# guide distinguishes (alpha versions, feature-gated fields, status, deprecated versions).
CASES = {
    # -- resources and versions ------------------------------------------------------------------
    "kind-removed": (
        {**api(), "shop/v1/gadget.go": GADGET}, api(),
        [("error", "kind-removed", "Gadget (shop.example.com): no longer served (it was served in v1); its objects "
          "are stored in v1")],
    ),
    "version-removed: beta": (
        two(), api(), [("error", "version-removed", "Widget shop.example.com/v1beta1: removed")],
    ),
    "version-removed: deprecated beta is a warning": (
        two(second=("v1beta1", "// +kubebuilder:deprecatedversion")), api(),
        [("warning", "version-removed", "Widget shop.example.com/v1beta1: removed (deprecated before)")],
    ),
    "version-removed: alpha is a warning": (
        two(second=("v1alpha1", "")), api(),
        [("warning", "version-removed", "Widget shop.example.com/v1alpha1: removed")],
    ),
    "version-removed: no longer served": (
        two(), two(second=("v1beta1", "// +kubebuilder:unservedversion")),
        [("error", "version-removed", "Widget shop.example.com/v1beta1: no longer served")],
    ),
    "stored-version-removed": (
        two(first=("v1", ""), second=("v1beta1", STORAGE)), api(),
        [("error", "stored-version-removed", "Widget shop.example.com/v1beta1: removed while its objects are stored in it"),
         ("error", "version-removed", "Widget shop.example.com/v1beta1: removed")],
    ),
    "scope-changed": (
        api(), api(kind_markers="// +kubebuilder:resource:scope=Cluster"),
        [("error", "scope-changed", "Widget (shop.example.com): scope changed from Namespaced to Cluster")],
    ),
    "plural-changed": (
        api(), api(kind_markers="// +kubebuilder:resource:path=widgetz"),
        [("error", "plural-changed", "Widget (shop.example.com): resource name changed from widgets to widgetz")],
    ),
    "storage-version-new": (
        api(version="v1beta1"), two(),
        [("error", "storage-version-new", "Widget shop.example.com/v1: added as the storage version in the same change")],
    ),
    # -- fields ----------------------------------------------------------------------------------
    "field-removed": (
        api(spec=SIZE), api(),
        [("error", "field-removed", 'Widget shop.example.com/v1 spec.size: removed; for example the API server drops '
          'spec.size from {"spec":{"size":0}} (unknown field "spec.size"), and from stored objects on their next write')],
    ),
    "field-removed: status": (
        api(status=SIZE), api(),
        [("error", "field-removed", 'Widget shop.example.com/v1 status.size: removed; for example the API server drops '
          'status.size from {"status":{"size":0}} (unknown field "status.size"), and from stored objects on their '
          "next write")],
    ),
    "field-removed: alpha version is a warning": (
        api(version="v1alpha1", spec=SIZE), api(version="v1alpha1"),
        [("warning", "field-removed", "Widget shop.example.com/v1alpha1 spec.size: removed (v1alpha1 is an alpha "
          'version: warning); for example the API server drops spec.size from {"spec":{"size":0}} (unknown field '
          '"spec.size"), and from stored objects on their next write')],
    ),
    "field-removed: feature-gated field is a warning": (
        api(spec=field("// +featureGate=Sizes", SIZE)), api(),
        [("warning", "field-removed", "Widget shop.example.com/v1 spec.size: removed (the field is behind a feature "
          'gate (+featureGate): warning); for example the API server drops spec.size from {"spec":{"size":0}} '
          '(unknown field "spec.size"), and from stored objects on their next write')],
    ),
    "type-changed": (
        api(spec=field("// +optional", 'Size string `json:"size,omitempty"`')), api(spec=SIZE),
        [("error", "type-changed", 'Widget shop.example.com/v1 spec.size: type changed from string to integer; for '
          'example {"spec":{"size":"a"}} is accepted before the change and refused after it: spec.size: Invalid '
          'value: "string": spec.size in body must be of type integer: "string"')],
    ),
    "json-name-changed": (
        api(spec=SIZE), api(spec=field("// +optional", 'Size int32 `json:"sizes,omitempty"`')),
        [("error", "json-name-changed", 'shop.example.com/v1 WidgetSpec.size: JSON name changed from "size" to "sizes"')],
    ),
    "go-type-changed": (
        api(spec=field("// +optional", 'Size *int32 `json:"size,omitempty"`')), api(spec=SIZE),
        [("warning", "go-type-changed", "shop.example.com/v1 WidgetSpec.size: Go type changed from *int32 to int32")],
    ),
    "protobuf-number-changed": (
        api(doc=PROTOBUF, spec=field("// +optional", 'Size int32 `json:"size,omitempty" protobuf:"varint,1,opt,name=size"`')),
        api(doc=PROTOBUF, spec=field("// +optional", 'Size int32 `json:"size,omitempty" protobuf:"varint,2,opt,name=size"`')),
        [("error", "protobuf-number-changed", "shop.example.com/v1 WidgetSpec.size: protobuf number changed from 1 to 2")],
    ),
    "protobuf-wire-type-changed": (
        api(doc=PROTOBUF, spec=field("// +optional", 'Tags []string `json:"tags,omitempty" protobuf:"bytes,1,rep,name=tags"`')),
        api(doc=PROTOBUF, spec=field("// +optional", 'Tags []string `json:"tags,omitempty" protobuf:"bytes,1,opt,name=tags"`')),
        [("error", "protobuf-wire-type-changed",
          "shop.example.com/v1 WidgetSpec.tags: protobuf wire type changed from bytes,rep to bytes,opt")],
    ),
    "protobuf-name-changed": (
        api(doc=PROTOBUF, spec=field("// +optional", 'Size int32 `json:"size,omitempty" protobuf:"varint,1,opt,name=size"`')),
        api(doc=PROTOBUF, spec=field("// +optional", 'Size int32 `json:"size,omitempty" protobuf:"varint,1,opt,name=count"`')),
        [("warning", "protobuf-name-changed", "shop.example.com/v1 WidgetSpec.size: protobuf name changed from size to count")],
    ),
    "protobuf-number-reused (and the removal without a tombstone)": (
        api(doc=PROTOBUF, spec=field("// +optional", 'Size int32 `json:"size,omitempty" protobuf:"varint,1,opt,name=size"`')),
        api(doc=PROTOBUF, spec=field("// +optional", 'Count int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`')),
        [("error", "field-removed", 'Widget shop.example.com/v1 spec.size: removed; for example the API server drops '
          'spec.size from {"spec":{"size":0}} (unknown field "spec.size"), and from stored objects on their next write'),
         ("warning", "protobuf-tombstone-missing", "shop.example.com/v1 WidgetSpec.size: removed without a tombstone: "
          "add `// +k8s:deprecated=size,protobuf=1` to WidgetSpec"),
         ("error", "protobuf-number-reused",
          'shop.example.com/v1 WidgetSpec.count: protobuf number 1 belonged to Size ("size") before')],
    ),
    "protobuf-number-reused: a tombstoned number": (
        api(doc=PROTOBUF, spec_markers="// +k8s:deprecated=size,protobuf=1"),
        api(doc=PROTOBUF, spec_markers="// +k8s:deprecated=size,protobuf=1",
            spec=field("// +optional", 'Count int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`')),
        [("error", "protobuf-number-reused", 'shop.example.com/v1 WidgetSpec.count: protobuf number 1 is tombstoned for "size"')],
    ),
    "protobuf-name-reused": (
        api(doc=PROTOBUF, spec_markers="// +k8s:deprecated=size,protobuf=1"),
        api(doc=PROTOBUF, spec_markers="// +k8s:deprecated=size,protobuf=1",
            spec=field("// +optional", 'Size string `json:"size,omitempty" protobuf:"bytes,2,opt,name=size"`')),
        [("error", "protobuf-name-reused", 'shop.example.com/v1 WidgetSpec.size: the name "size" is tombstoned')],
    ),
    "protobuf-tombstone-missing: none when the tombstone is there": (
        api(doc=PROTOBUF, spec=field("// +optional", 'Size int32 `json:"size,omitempty" protobuf:"varint,1,opt,name=size"`')),
        api(doc=PROTOBUF, spec_markers="// +k8s:deprecated=size,protobuf=1"),
        [("error", "field-removed", 'Widget shop.example.com/v1 spec.size: removed; for example the API server drops '
          'spec.size from {"spec":{"size":0}} (unknown field "spec.size"), and from stored objects on their next write')],
    ),
    # -- required fields and defaults ------------------------------------------------------------
    "field-made-required": (
        api(spec=SIZE), api(spec=field("// +required", 'Size int32 `json:"size,omitempty"`')),
        [("error", "field-made-required", 'Widget shop.example.com/v1 spec.size: made required; for example '
          '{"spec":{}} is accepted before the change and refused after it: spec.size: Required value')],
    ),
    "required-field-added": (
        api(), api(spec='Size int32 `json:"size"`'),
        [("error", "required-field-added", 'Widget shop.example.com/v1 spec.size: new required field; for example '
          '{"spec":{}} is accepted before the change and refused after it: spec.size: Required value')],
    ),
    "required-field-added: none with a default": (
        api(), api(spec=field("// +kubebuilder:default=1", 'Size int32 `json:"size"`')), [],
    ),
    "default-added": (
        api(spec=SIZE), api(spec=field("// +optional", "// +default=3", 'Size int32 `json:"size,omitempty"`')),
        [("error", "default-added", 'Widget shop.example.com/v1 spec.size: default 3 added; for example {"spec":{}}, '
          "stored before the change, reads back without it before and with spec.size 3 after it")],
    ),
    "default-changed": (
        api(spec=field("// +optional", "// +default=3", 'Size int32 `json:"size,omitempty"`')),
        api(spec=field("// +optional", "// +default=4", 'Size int32 `json:"size,omitempty"`')),
        [("error", "default-changed", 'Widget shop.example.com/v1 spec.size: default changed from 3 to 4; for example '
          '{"spec":{}}, stored before the change, reads back with spec.size 3 before and with spec.size 4 after it')],
    ),
    "default-removed": (
        api(spec=field("// +optional", "// +default=3", 'Size int32 `json:"size,omitempty"`')), api(spec=SIZE),
        [("error", "default-removed", 'Widget shop.example.com/v1 spec.size: default 3 removed; for example '
          '{"spec":{}}, stored before the change, reads back with spec.size 3 before and without it after it')],
    ),
    "default-differs-between-versions": (
        two(),
        two(spec_first=field("// +optional", "// +default=2", 'Size int32 `json:"size,omitempty"`'), spec_second=SIZE),
        [("error", "default-differs-between-versions",
          "Widget shop.example.com/v1 spec.size: defaults now differ between versions (v1: 2, v1beta1: none)")],
    ),
    # -- validation ------------------------------------------------------------------------------
    "immutable-added": (
        api(spec=SIZE), api(spec=field("// +optional", "// +k8s:immutable", 'Size int32 `json:"size,omitempty"`')),
        [("error", "immutable-added", 'Widget shop.example.com/v1 spec.size: made immutable (rule "self == oldSelf"); '
          "for example an update of spec.size from 0 to 1 is accepted before the change and refused after it: "
          'spec.size: Invalid value: 1: field is immutable')],
    ),
    "bounds-tightened: maximum": (
        api(spec=field("// +optional", "// +kubebuilder:validation:Maximum=10", 'Size int32 `json:"size,omitempty"`')),
        api(spec=field("// +optional", "// +kubebuilder:validation:Maximum=5", 'Size int32 `json:"size,omitempty"`')),
        [("error", "bounds-tightened", 'Widget shop.example.com/v1 spec.size: maximum lowered from 10 to 5; for example '
          '{"spec":{"size":10}} is accepted before the change and refused after it: spec.size: Invalid value: 10: '
          "spec.size in body should be less than or equal to 5")],
    ),
    "bounds-tightened: exclusive minimum": (
        api(spec=field("// +optional", "// +kubebuilder:validation:Minimum=0", 'Size int32 `json:"size,omitempty"`')),
        api(spec=field("// +optional", "// +kubebuilder:validation:Minimum=0",
                       "// +kubebuilder:validation:ExclusiveMinimum=true", 'Size int32 `json:"size,omitempty"`')),
        [("error", "bounds-tightened", 'Widget shop.example.com/v1 spec.size: minimum 0 made exclusive; for example '
          '{"spec":{"size":0}} is accepted before the change and refused after it: spec.size: Invalid value: 0: '
          "spec.size in body should be greater than 0")],
    ),
    "bounds-tightened: multipleOf": (
        api(spec=SIZE),
        api(spec=field("// +optional", "// +kubebuilder:validation:MultipleOf=2", 'Size int32 `json:"size,omitempty"`')),
        [("error", "bounds-tightened", 'Widget shop.example.com/v1 spec.size: multipleOf 2 added; for example '
          '{"spec":{"size":1}} is accepted before the change and refused after it: spec.size: Invalid value: 1: '
          "spec.size in body should be a multiple of 2")],
    ),
    "length-tightened": (
        api(spec=field("// +optional", "// +kubebuilder:validation:MaxLength=10", NAME)),
        api(spec=field("// +optional", "// +kubebuilder:validation:MaxLength=5", NAME)),
        [("error", "length-tightened", 'Widget shop.example.com/v1 spec.name: maxLength lowered from 10 to 5; for '
          'example {"spec":{"name":"example"}} is accepted before the change and refused after it: spec.name: Too '
          "long: may not be more than 5 bytes")],
    ),
    "items-tightened": (
        api(spec=field("// +optional", 'Tags []string `json:"tags,omitempty"`')),
        api(spec=field("// +optional", "// +kubebuilder:validation:MaxItems=2", 'Tags []string `json:"tags,omitempty"`')),
        [("error", "items-tightened", 'Widget shop.example.com/v1 spec.tags: maxItems 2 added; for example '
          '{"spec":{"tags":["a","example",""]}} is accepted before the change and refused after it: spec.tags: Too '
          "many: 3: must have at most 2 items")],
    ),
    "properties-tightened": (
        api(spec=field("// +optional", 'Labels map[string]string `json:"labels,omitempty"`')),
        api(spec=field("// +optional", "// +kubebuilder:validation:MaxProperties=1",
                       'Labels map[string]string `json:"labels,omitempty"`')),
        [("error", "properties-tightened", 'Widget shop.example.com/v1 spec.labels: maxProperties 1 added; for example '
          '{"spec":{"labels":{"a":"a","b":"a"}}} is accepted before the change and refused after it: spec.labels: '
          "Too many: 2: must have at most 1 item")],
    ),
    "pattern-changed": (
        api(spec=field("// +optional", "// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`", NAME)),
        api(spec=field("// +optional", "// +kubebuilder:validation:Pattern=`^[a-z]+$`", NAME)),
        [("error", "pattern-changed", 'Widget shop.example.com/v1 spec.name: pattern changed from "^[a-z0-9-]+$" to '
          '"^[a-z]+$"; for example {"spec":{"name":"0"}} is accepted before the change and refused after it: '
          "spec.name: Invalid value: \"0\": spec.name in body should match '^[a-z]+$'")],
    ),
    "pattern-changed: a warning when no value shows it": (
        api(spec=field("// +optional", "// +kubebuilder:validation:Pattern=`^[a-z]+$`", NAME)),
        api(spec=field("// +optional", "// +kubebuilder:validation:Pattern=`^[a-z]{1,}$`", NAME)),
        [("warning", "pattern-changed", 'Widget shop.example.com/v1 spec.name: pattern changed from "^[a-z]+$" to '
          '"^[a-z]{1,}$"; no value was found that the old schema accepts and the new one refuses: check by hand')],
    ),
    "format-changed": (
        api(spec=field("// +optional", 'ID string `json:"id,omitempty"`')),
        api(spec=field("// +optional", "// +kubebuilder:validation:Format=uuid", 'ID string `json:"id,omitempty"`')),
        [("error", "format-changed", 'Widget shop.example.com/v1 spec.id: format uuid added; for example '
          '{"spec":{"id":"a"}} is accepted before the change and refused after it: spec.id: Invalid value: "a": '
          'spec.id in body must be of type uuid: "a"')],
    ),
    "enum-narrowed": (
        api(spec=field("// +optional", "// +kubebuilder:validation:Enum=a;b;c", 'Mode string `json:"mode,omitempty"`')),
        api(spec=field("// +optional", "// +kubebuilder:validation:Enum=a;b", 'Mode string `json:"mode,omitempty"`')),
        [("error", "enum-narrowed", 'Widget shop.example.com/v1 spec.mode: enum values removed: "c"; for example '
          '{"spec":{"mode":"c"}} is accepted before the change and refused after it: spec.mode: Unsupported value: '
          '"c": supported values: "a", "b"')],
    ),
    "enum-value-added": (
        api(spec=field("// +optional", "// +kubebuilder:validation:Enum=a;b", 'Mode string `json:"mode,omitempty"`')),
        api(spec=field("// +optional", "// +kubebuilder:validation:Enum=a;b;c", 'Mode string `json:"mode,omitempty"`')),
        [("warning", "enum-value-added", 'Widget shop.example.com/v1 spec.mode: enum values added: "c"')],
    ),
    "cel-rule-added": (
        api(spec=field("// +optional", NAME)),
        api(spec=field("// +optional", '// +kubebuilder:validation:XValidation:rule="self.size() < 5",message="too long"',
                       NAME)),
        [("error", "cel-rule-added", 'Widget shop.example.com/v1 spec.name: rule "self.size() < 5" added; for example '
          '{"spec":{"name":"example"}} is accepted before the change and refused after it: spec.name: Invalid value: '
          '"example": too long')],
    ),
    "cel-rule-changed": (
        api(spec=field("// +optional", '// +kubebuilder:validation:XValidation:rule="self.size() <= 10",message="too long"',
                       NAME)),
        api(spec=field("// +optional", '// +kubebuilder:validation:XValidation:rule="self.size() <= 3",message="too long"',
                       NAME)),
        [("error", "cel-rule-changed", 'Widget shop.example.com/v1 spec.name: rule "self.size() <= 10" replaced by '
          '"self.size() <= 3"; for example {"spec":{"name":"example"}} is accepted before the change and refused '
          'after it: spec.name: Invalid value: "example": too long')],
    ),
    "cel-rule-changed: a new message for the same rule is no change": (
        api(spec=field("// +optional", '// +kubebuilder:validation:XValidation:rule="self.size() <= 10",message="too long"',
                       NAME)),
        api(spec=field("// +optional",
                       '// +kubebuilder:validation:XValidation:rule="self.size() <= 10",message="name is too long"', NAME)),
        [],
    ),
    "list-type-changed": (
        api(spec=field("// +optional", "// +listType=atomic", 'Tags []string `json:"tags,omitempty"`')),
        api(spec=field("// +optional", "// +listType=set", 'Tags []string `json:"tags,omitempty"`')),
        [("error", "list-type-changed", 'Widget shop.example.com/v1 spec.tags: list type changed from atomic to set; '
          'for example {"spec":{"tags":["a","a"]}} is accepted before the change and refused after it: '
          'spec.tags[1]: Duplicate value: "a"')],
    ),
    "list-map-keys-changed": (
        api(spec=field("// +optional", "// +listType=map", "// +listMapKey=name", "// +listMapKey=port",
                       'Ports []Port `json:"ports,omitempty"`'), extra=PORT),
        api(spec=field("// +optional", "// +listType=map", "// +listMapKey=name", 'Ports []Port `json:"ports,omitempty"`'),
            extra=PORT),
        [("error", "list-map-keys-changed", 'Widget shop.example.com/v1 spec.ports: list map keys changed from '
          '["name", "port"] to ["name"]; for example {"spec":{"ports":[{"name":"a"},{"name":"a","port":0}]}} is '
          'accepted before the change and refused after it: spec.ports[1]: Duplicate value: {"name":"a"}')],
    ),
    "map-type-changed": (
        api(spec=field("// +optional", 'Labels map[string]string `json:"labels,omitempty"`')),
        api(spec=field("// +optional", "// +mapType=atomic", 'Labels map[string]string `json:"labels,omitempty"`')),
        [("error", "map-type-changed", "Widget shop.example.com/v1 spec.labels: map type changed from granular to atomic")],
    ),
    "nullable-changed": (
        api(spec=field("// +optional", "// +nullable", 'Note *string `json:"note,omitempty"`')),
        api(spec=field("// +optional", 'Note *string `json:"note,omitempty"`')),
        [("error", "nullable-changed", "Widget shop.example.com/v1 spec.note: no longer nullable: a null sent for it is "
          'dropped (or defaulted) instead of kept; for example the null in {"spec":{"note":null}} was kept before the '
          "change and is dropped after it")],
    ),
    "nullable-changed: made nullable is a warning": (
        api(spec=field("// +optional", 'Note *string `json:"note,omitempty"`')),
        api(spec=field("// +optional", "// +nullable", 'Note *string `json:"note,omitempty"`')),
        [("warning", "nullable-changed", "Widget shop.example.com/v1 spec.note: made nullable: readers may now find null in it")],
    ),
    "pruning-enabled": (
        api(spec=field("// +optional", 'Blob Blob `json:"blob,omitempty"`'),
            extra=BLOB.format(marker="// +kubebuilder:pruning:PreserveUnknownFields")),
        api(spec=field("// +optional", 'Blob Blob `json:"blob,omitempty"`'), extra=BLOB.format(marker="")),
        [("error", "pruning-enabled", "Widget shop.example.com/v1 spec.blob: x-kubernetes-preserve-unknown-fields "
          "removed: fields the schema does not name are now dropped; for example the API server keeps "
          'spec.blob.x-example of {"spec":{"blob":{"x-example":"kept"}}} before the change and drops it after it')],
    ),
    "description-changed: a warning on a stable version": (
        api(spec=field("// Size is how big the widget is, in centimetres.", "// +optional", 'Size int32 `json:"size,omitempty"`')),
        api(spec=field("// Size is how big the widget is, in inches.", "// +optional", 'Size int32 `json:"size,omitempty"`')),
        [("warning", "description-changed", "Widget shop.example.com/v1 spec.size: its description changed: check that it "
          "still means what it meant")],
    ),
    "description-changed: a description given for the first time is not a change": (
        api(spec=field("// +optional", 'Size int32 `json:"size,omitempty"`')),
        api(spec=field("// Size is how big the widget is.", "// +optional", 'Size int32 `json:"size,omitempty"`')),
        [],
    ),
    "validation-relaxed: a warning on a stable version": (
        api(spec=field("// +optional", "// +kubebuilder:validation:MaxLength=5", NAME)),
        api(spec=field("// +optional", "// +kubebuilder:validation:MaxLength=10", NAME)),
        [("warning", "validation-relaxed", "Widget shop.example.com/v1 spec.name: validation relaxed: maxLength raised from 5 to 10")],
    ),
    "validation-relaxed: info on a beta version": (
        api(version="v1beta1", spec=field("// +optional", "// +kubebuilder:validation:MaxLength=5", NAME)),
        api(version="v1beta1", spec=field("// +optional", "// +kubebuilder:validation:MaxLength=10", NAME)),
        [("info", "validation-relaxed",
          "Widget shop.example.com/v1beta1 spec.name: validation relaxed: maxLength raised from 5 to 10")],
    ),
    "validation under status is info: the server's controllers write it": (
        api(status=field("// +optional", NAME)),
        api(status=field("// +optional", "// +kubebuilder:validation:MaxLength=3", NAME)),
        [("info", "length-tightened", "Widget shop.example.com/v1 status.name: maxLength 3 added (status is written by "
          'the API\'s own controllers: info); for example {"status":{"name":"example"}} is accepted before the change '
          "and refused after it: status.name: Too long: may not be more than 3 bytes")],
    ),
    # -- compatible changes pass -------------------------------------------------------------------
    "a new optional field": (api(), api(spec=SIZE), []),
    "a new version that is not the storage version": (
        api(version="v1beta1"), two(first=("v1", ""), second=("v1beta1", STORAGE)), [],
    ),
    "a relaxation under status": (
        api(status=field("// +optional", "// +kubebuilder:validation:MaxLength=3", NAME)),
        api(status=field("// +optional", NAME)), [],
    ),
    "description-changed: on a beta version, information": (
        api(spec=field("// Size is the size.", SIZE), version="v1beta1"),
        api(spec=field("// Size is how big it is.", SIZE), version="v1beta1"),
        [("info", "description-changed", "Widget shop.example.com/v1beta1 spec.size: its description changed: check "
          "that it still means what it meant")],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", CASES)
def test_each_rule_on_a_minimal_pair(tmp_path, name):
    old, new, expected = CASES[name]
    found, _ = run(tmp_path, old, new)
    assert said(found) == expected


def test_every_rule_has_a_case():
    covered = {rule for _, _, expected in CASES.values() for _, rule, _ in expected} | {"validation-changed"}
    assert covered == set(RULES)


def test_the_same_change_of_a_shared_type_is_one_finding_at_its_go_field(tmp_path, monkeypatch):
    """A struct two kinds embed changes once: one finding at the Go field, naming both places."""
    shared = api(spec=field("// +optional", 'Part Part `json:"part,omitempty"`'), extra="""
// Part is shared.
type Part struct {
	// +optional
	// +kubebuilder:validation:MaxLength=10
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// Gizmo uses a part too.
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Part Part `json:"part,omitempty"`
}
""")  # fmt: skip
    tightened = {k: v.replace("MaxLength=10", "MaxLength=5") for k, v in shared.items()}
    monkeypatch.chdir(tmp_path)
    found, _ = run(tmp_path, shared, tightened)
    assert [(f.rule, f.location) for f in found] == [("length-tightened", "new/shop/v1/types.go:35:2")]
    assert found[0].message.startswith(
        "Gizmo shop.example.com/v1 part.name: maxLength lowered from 10 to 5 (also Widget shop.example.com/v1 "
        "spec.part.name); for example"
    )
    assert found[0].subject == "example.com/shop/apis/shop/v1.Part.name"


def test_findings_point_at_the_go_field_or_the_struct_that_lost_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    found, _ = run(tmp_path, api(spec=field(SIZE, "// +optional", 'Tags []string `json:"tags,omitempty"`')),
                   api(spec=field("// +optional", "// +kubebuilder:validation:MaxItems=1",
                                  'Tags []string `json:"tags,omitempty"`')))  # fmt: skip
    assert {f.rule: f.location for f in found} == {
        "field-removed": "new/shop/v1/types.go:21:6",  # type WidgetSpec
        "items-tightened": "new/shop/v1/types.go:24:1",  # the Tags field
    }


def crd_files(tmp_path: Path, files: dict[str, str], name: str) -> Path:
    """The CRDs kgen's generator writes for an API (as a release would publish them)."""
    from kgen.generators import crd
    from kgen.generators.options import GeneratorOptions
    from kgen.options import Options
    from kgen import pipeline

    source = write_tree(tmp_path / f"{name}-go", files)
    universe, _ = pipeline.build(Options(input=source, output=tmp_path / "unused", module="example.com/shop/apis"))
    out = tmp_path / f"{name}-crds"
    out.mkdir()
    for generated in crd.generate(universe, GeneratorOptions(generators=("crd",))):
        (out / generated.path.removeprefix(crd.HOME)).write_text(generated.content)
    return out


@pytest.mark.parametrize(
    "name", [n for n, (_, _, e) in CASES.items() if e and not any(RULES[r].go_only for _, r, _ in e)]
)
def test_crd_manifests_give_the_same_findings_as_the_go_types(tmp_path, name):
    """The schema and resource rules read CRD manifests as they read Go types: a release's
    published CRDs compared with the next release's give the findings of their Go types."""
    old, new, expected = CASES[name]
    before, after = crd_files(tmp_path, old, "old"), crd_files(tmp_path, new, "new")
    found, _ = compare(read_paths([before], None, "old"), read_paths([after], None, "new"))
    # Go types only: feature gates and the Go reasons for lowering a severity
    if any("feature gate" in m for _, _, m in expected):
        expected = [("error", r, m.replace(" (the field is behind a feature gate (+featureGate): warning)", ""))
                    for _, r, m in expected]  # fmt: skip
    assert said(sorted(found, key=lambda f: f.message)) == sorted(expected, key=lambda e: e[2])


COMPOSED = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.shop.example.com
spec:
  group: shop.example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
                anyOf: [{minimum: 0}, {maximum: -10}]
"""


def test_validation_changed_composition_keywords_of_a_crd(tmp_path):
    """allOf, anyOf, oneOf and not (which kgen's Go markers do not write, but CRDs may hold):
    a change is an error when some value shows it, with the value."""
    (tmp_path / "old.yaml").write_text(COMPOSED)
    (tmp_path / "new.yaml").write_text(COMPOSED.replace("[{minimum: 0}, {maximum: -10}]", "[{minimum: 0}]"))
    found, _ = compare(read_paths([tmp_path / "old.yaml"], None), read_paths([tmp_path / "new.yaml"], None))
    assert said(found) == [(
        "error", "validation-changed",
        'Widget shop.example.com/v1 spec.size: anyOf changed; for example {"spec":{"size":-10}} is accepted before '
        'the change and refused after it: <nil>: Invalid value: "": "spec.size" must validate at least one schema '
        "(anyOf); spec.size: Invalid value: -10: spec.size in body should be greater than or equal to 0",
    )]  # fmt: skip


def test_crd_findings_are_placed_at_their_yaml_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.yaml").write_text(COMPOSED)
    (tmp_path / "new.yaml").write_text(COMPOSED.replace("type: integer", "type: string"))
    found, _ = compare(read_paths([Path("old.yaml")], None), read_paths([Path("new.yaml")], None))
    assert [(f.rule, f.location) for f in found] == [("type-changed", "new.yaml:20:15")]


def test_v1beta1_crds_are_read_as_the_api_server_converts_them(tmp_path):
    legacy = textwrap.dedent("""\
        apiVersion: apiextensions.k8s.io/v1beta1
        kind: CustomResourceDefinition
        metadata: {name: widgets.shop.example.com}
        spec:
          group: shop.example.com
          version: v1
          names: {kind: Widget, plural: widgets}
          scope: Namespaced
          validation:
            openAPIV3Schema:
              type: object
              properties:
                spec: {type: object, properties: {size: {type: integer}}}
    """)  # fmt: skip
    (tmp_path / "old.yaml").write_text(legacy)
    (tmp_path / "new.yaml").write_text(COMPOSED.replace("                anyOf: [{minimum: 0}, {maximum: -10}]\n", ""))
    found, _ = compare(read_paths([tmp_path / "old.yaml"], None), read_paths([tmp_path / "new.yaml"], None))
    assert found == []


def test_a_crd_file_that_does_not_parse_is_an_input_error_at_its_line(tmp_path):
    from kgen.diagnostics import InputError

    (tmp_path / "bad.yaml").write_text("kind: CustomResourceDefinition\nspec: [\n")
    with pytest.raises(InputError) as caught:
        read_paths([tmp_path / "bad.yaml"], None)
    assert str(caught.value).startswith(f"{tmp_path / 'bad.yaml'}:3:1: error: not a YAML document")


def test_documents_that_are_not_crds_are_passed_over(tmp_path):
    (tmp_path / "all.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n" + COMPOSED)
    snapshot = crdfiles.read([tmp_path], "release", Diagnostics())
    assert list(snapshot.resources) == [("shop.example.com", "Widget")]


def builtin(spec: str) -> dict[str, str]:
    """The same kind in a group without a dot: one of Kubernetes' own groups, validated in code."""
    files = api(spec=spec)
    files["shop/v1/doc.go"] = "// +groupName=shop\npackage v1\n"
    return files


def test_kubernetes_own_groups_check_requiredness_in_code(tmp_path):
    """`+required` on a field of Kubernetes' own types documents what hand-written validation
    checks (k8s.io/api 0.36 added it to many fields that were always checked): only the
    published schema changes, a warning. validation-gen's `+k8s:required` is validation the
    API server runs: an error. Their examples quote no server message (the server's own
    validation, not the schema, answers them)."""
    found, _ = run(
        tmp_path / "doc", builtin(SIZE), builtin(field("// +required", 'Size int32 `json:"size,omitempty"`'))
    )
    assert said(found) == [(
        "warning", "field-made-required", "Widget shop/v1 spec.size: made required (Kubernetes' own groups check "
        "requiredness in code: only the published schema changed: warning); for example {\"spec\":{}} is valid before "
        "the change and not after it",
    )]  # fmt: skip
    found, _ = run(tmp_path / "k8s", builtin(SIZE),
                   builtin(field("// +k8s:required", 'Size int32 `json:"size,omitempty"`')))  # fmt: skip
    assert [(f.severity.value, f.rule) for f in found] == [("error", "field-made-required")]


def test_kubernetes_own_groups_have_no_storage_rules(tmp_path):
    """Their storage version is the API server's choice (its storage factory), which the types
    do not say: a new v1 beside v1beta1 is no finding for them."""
    one = api(version="v1beta1")
    one["shop/v1beta1/doc.go"] = "// +groupName=shop\npackage v1beta1\n"
    both = two(first=("v1", ""), second=("v1beta1", ""))
    both["shop/v1/doc.go"] = "// +groupName=shop\npackage v1\n"
    both["shop/v1beta1/doc.go"] = "// +groupName=shop\npackage v1beta1\n"
    found, _ = run(tmp_path, one, both)
    assert found == []


def test_the_allow_list_matches_by_rule_and_selectors(tmp_path):
    from kgen.compat import settings
    from kgen.compat.report import changes, findings, group

    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.kgen.compat]
        [[tool.kgen.compat.allow]]
        rule = "field-removed"
        version = "v1"
        path = "spec.si*"
        reason = "size moved to the status"

        [[tool.kgen.compat.allow]]
        rule = "field-removed"
        kind = "Gadget"
        reason = "never matches"
    """))  # fmt: skip
    allow = settings.load(tmp_path / "pyproject.toml").allow
    before = write_tree(
        tmp_path / "old", api(spec=field(SIZE, "// +optional", 'Tags []string `json:"tags,omitempty"`'))
    )
    after = write_tree(tmp_path / "new", api())
    old, new = read_paths([before], None), read_paths([after], None)
    kept, notes = findings(group(changes(old, new), old, new), new, allow)
    assert [f.message for f in kept] == ["Widget shop.example.com/v1 spec.tags: removed"]
    assert notes[0].startswith("allowed: ") and notes[0].endswith(
        "Widget shop.example.com/v1 spec.size: removed [field-removed] (size moved to the status)"
    )
    assert notes[1].endswith("entry 2: allows field-removed, but nothing matches it now; remove it")


@pytest.mark.parametrize(
    "settings_text, problem",
    [
        ('[[tool.kgen.compat.allow]]\nrule = "field-removed"\n', "every allowed exception needs a reason"),
        ('[[tool.kgen.compat.allow]]\nrule = "field-gone"\nreason = "x"\n', "unknown compat rule 'field-gone'"),
        ('[[tool.kgen.compat.allow]]\nrule = "field-removed"\nreason = "x"\nfield = "spec"\n',
         "unknown keys field (known: rule, reason, kind, group, version, path, subject)"),
        ('[tool.kgen.compat.allow]\nfield-removed = ""\n', "[tool.kgen.compat.allow] field-removed needs a reason"),
        ('[tool.kgen.compat]\nfail-on = "sometimes"\n', "fail-on must be one of error, warning, info, never"),
        ('[tool.kgen.compat]\nbaseline = "x"\n', "unknown [tool.kgen.compat] settings: baseline"),
    ],
)  # fmt: skip
def test_bad_settings_say_what_is_wrong(tmp_path, settings_text, problem):
    from kgen.compat import settings
    from kgen.options import OptionsError

    (tmp_path / "pyproject.toml").write_text("[tool.kgen]\n" + settings_text)
    with pytest.raises(OptionsError, match=re.escape(problem)):
        settings.load(tmp_path / "pyproject.toml")


def test_a_crd_schema_of_the_wrong_shape_is_an_input_error(tmp_path):
    from kgen.diagnostics import InputError

    bad = COMPOSED.split("        properties:\n")[0] + "        properties: [spec]\n"
    (tmp_path / "bad.yaml").write_text(bad)
    with pytest.raises(InputError) as caught:
        read_paths([tmp_path / "bad.yaml"], None)
    assert "CRD Widget v1: openAPIV3Schema is not a schema the API server accepts: properties must be an object" in str(
        caught.value
    )


def test_a_new_rule_no_old_value_breaks_is_a_warning(tmp_path):
    """cluster-api 1.13: `layout` (required) became optional beside a new `diskLayout`, with a
    rule that exactly one is set. Every partition valid before still is: no example exists."""
    old = api(spec=field("// +optional", 'Partitions []Partition `json:"partitions,omitempty"`'), extra="""
// Partition is a partition.
type Partition struct {
	Layout bool `json:"layout"`
}
""")  # fmt: skip
    new = api(spec=field("// +optional", 'Partitions []Partition `json:"partitions,omitempty"`'), extra="""
// Partition is a partition.
// +kubebuilder:validation:XValidation:rule="[has(self.layout),has(self.diskLayout)].filter(x,x==true).size() == 1",message="exactly one of layout or diskLayout"
type Partition struct {
	// +optional
	Layout *bool `json:"layout,omitempty"`
	// +optional
	DiskLayout string `json:"diskLayout,omitempty"`
}
""")  # fmt: skip
    found, _ = run(tmp_path, old, new)
    by_rule = {f.rule: f for f in found}
    assert sorted((f.severity.value, f.rule) for f in found) == [
        ("warning", "cel-rule-added"), ("warning", "go-type-changed"), ("warning", "validation-relaxed")]  # fmt: skip
    assert by_rule["cel-rule-added"].message.endswith(
        "no value was found that the old schema accepts and the new one refuses: check by hand"
    )


def test_a_tighter_keyword_that_refuses_nothing_is_a_warning(tmp_path):
    """gateway-api 1.5: wellKnownCACertificates, whose enum allowed only "System", got a
    minLength 1 and a maxLength 253 beside a pattern: no value valid before is refused."""
    old = api(spec=field("// +optional", "// +kubebuilder:validation:Enum=System", NAME))
    new = api(spec=field("// +optional", "// +kubebuilder:validation:MinLength=1",
                         "// +kubebuilder:validation:MaxLength=253", NAME))  # fmt: skip
    found, _ = run(tmp_path, old, new)
    assert said(found) == [
        ("warning", "length-tightened", "Widget shop.example.com/v1 spec.name: maxLength 253 added; no value was found "
         "that the old schema accepts and the new one refuses: check by hand"),
        ("warning", "length-tightened", "Widget shop.example.com/v1 spec.name: minLength 1 added; no value was found "
         "that the old schema accepts and the new one refuses: check by hand"),
        ("warning", "validation-relaxed", "Widget shop.example.com/v1 spec.name: validation relaxed: enum removed"),
    ]  # fmt: skip


def test_a_keyword_the_type_does_not_have_changes_nothing(tmp_path):
    """A maxLength written on a list (gateway-api 1.4's allowedHeaders) is never checked."""
    old = api(
        spec=field("// +optional", "// +kubebuilder:validation:MaxLength=64", 'Tags []string `json:"tags,omitempty"`')
    )
    found, _ = run(tmp_path, old, api(spec=field("// +optional", 'Tags []string `json:"tags,omitempty"`')))
    assert found == []
