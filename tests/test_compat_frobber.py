"""The Frobber history of the API change guide, replayed through `kgen compat`.

kubernetes/community, contributors/devel/sig-architecture/api_changes.md walks one
hypothetical API (`Frobber`, at v6) through its changes and says which are compatible:
"Adding a field" (with a sane default), "Making a singular field plural" (add `params`
beside `param`, never replace it), "Multiple API versions" (renaming `height` with units:
`heightInInches` added beside it, both pointers), "Adding Unstable Features to Stable
Versions" (an alpha `width` behind a feature gate, later removed with a tombstone that keeps
its name and protobuf number from being reused), "New enum value in existing field", and
"Backward compatibility gotchas" (a new version is not the storage version in the release
that adds it). The Go inputs are written here as the guide shows them, with the struct tags
a real API needs (the guide's snippets leave some out); each step is compared with the one
before it.

What the guide forbids for reasons no type shows (two fields for one property kept in sync
by hand, `params[0]` having to equal `param`) is semantics, not schema: kgen cannot see it.
"""

from __future__ import annotations

import pytest

from conftest import write_tree
from kgen.compat import compare, read_paths

KIND = """\
package {version}

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
{markers}
// Frobber frobs.
{type_markers}
type Frobber struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

{fields}
}}
"""


def frobber(
    fields: str, *, version: str = "v6", markers: str = "", type_markers: str = "", more=None
) -> dict[str, str]:
    files = {
        "go.mod": "module example.com/frob/apis\n\ngo 1.22\n",
        f"frob/{version}/doc.go": f"// +k8s:protobuf-gen=package\n// +groupName=frob.example.com\npackage {version}\n",
        f"frob/{version}/types.go": KIND.format(
            version=version, fields=fields, markers=markers, type_markers=type_markers
        ),
    }
    files.update(more or {})
    return files


# API v6 as the guide starts it.
V6 = """\
	Height int    `json:"height" protobuf:"varint,2,opt,name=height"`
	Param  string `json:"param" protobuf:"bytes,3,opt,name=param"`"""

# "Adding a field": Width as the guide first writes it, and with the sane default it asks for.
WIDTH_AS_WRITTEN = V6 + """
	Width  int    `json:"width" protobuf:"varint,4,opt,name=width"`"""
WIDTH = V6 + """
	// +default=1
	Width  int    `json:"width" protobuf:"varint,4,opt,name=width"`"""

# "Making a singular field plural": replacing param (refused), or adding params beside it.
PARAMS_REPLACING = """\
	Height int      `json:"height" protobuf:"varint,2,opt,name=height"`
	// +default=1
	Width  int      `json:"width" protobuf:"varint,4,opt,name=width"`
	Params []string `json:"params" protobuf:"bytes,5,rep,name=params"`"""
PARAMS = WIDTH + """
	// +optional
	Params []string `json:"params,omitempty" protobuf:"bytes,5,rep,name=params"`"""

# Renaming with units: the field's JSON name changed (refused), or heightInInches added
# beside height, both pointers to tell unset from 0.
HEIGHT_RENAMED = PARAMS.replace('`json:"height" protobuf:"varint,2,opt,name=height"`',
                                '`json:"heightInInches" protobuf:"varint,2,opt,name=heightInInches"`')  # fmt: skip
HEIGHT_IN_INCHES = PARAMS.replace("Height int    ", "Height *int   ") + """
	// +optional
	HeightInInches *int `json:"heightInInches,omitempty" protobuf:"varint,6,opt,name=heightInInches"`"""

# "Adding Unstable Features to Stable Versions": depth behind the Frobber3D gate, then
# abandoned: removed with the tombstone the guide writes, or without one; a later change
# that reuses its number or its name.
DEPTH = HEIGHT_IN_INCHES + """
	// depth is alpha-level, only honoured by servers that enable the Frobber3D feature.
	// +featureGate=Frobber3D
	// +optional
	Depth *int32 `json:"depth,omitempty" protobuf:"varint,7,opt,name=depth"`"""
TOMBSTONE = "// +k8s:deprecated=depth,protobuf=7"
REUSED_NUMBER = HEIGHT_IN_INCHES + """
	// +optional
	Length *int32 `json:"length,omitempty" protobuf:"varint,7,opt,name=length"`"""
REUSED_NAME = HEIGHT_IN_INCHES + """
	// +optional
	Depth *string `json:"depth,omitempty" protobuf:"bytes,8,opt,name=depth"`"""

# "New enum value in existing field".
POLICY = HEIGHT_IN_INCHES + """
	// +optional
	// +kubebuilder:validation:Enum=Always;Never
	RestartPolicy string `json:"policy,omitempty" protobuf:"bytes,9,opt,name=policy"`"""
POLICY_ON_TUESDAY = POLICY.replace("Enum=Always;Never", "Enum=Always;Never;OnlyOnTuesday")

# A new version, v7beta1, beside v6.
STORED = "// +kubebuilder:storageversion"


def with_v7beta1(v6_markers: str, v7_markers: str) -> dict[str, str]:
    v7 = frobber(POLICY, version="v7beta1", markers=v7_markers)
    return frobber(POLICY, markers=v6_markers, more={k: v for k, v in v7.items() if k != "go.mod"})


STEPS = {
    "adding a field without a default: refused": (
        frobber(V6), frobber(WIDTH_AS_WRITTEN),
        [("error", "required-field-added", 'Frobber frob.example.com/v6 width: new required field; for example '
          '{"height":0,"param":"a"} is accepted before the change and refused after it: width: Required value')],
    ),
    "adding a field with a sane default: accepted": (frobber(V6), frobber(WIDTH), []),
    "replacing param with params: refused": (
        frobber(WIDTH), frobber(PARAMS_REPLACING),
        [("error", "field-removed", 'Frobber frob.example.com/v6 param: removed; for example the API server drops '
          'param from {"height":0,"param":"a","width":1} (unknown field "param"), and from stored objects on their '
          "next write"),
         ("error", "required-field-added", 'Frobber frob.example.com/v6 params: new required field; for example '
          '{"height":0,"param":"a","width":1} is accepted before the change and refused after it: params: Required '
          "value"),
         ("warning", "protobuf-tombstone-missing", "frob.example.com/v6 Frobber.param: removed without a tombstone: "
          "add `// +k8s:deprecated=param,protobuf=3` to Frobber")],
    ),
    "adding params beside param: accepted": (frobber(WIDTH), frobber(PARAMS), []),
    "renaming height to heightInInches: refused": (
        frobber(PARAMS), frobber(HEIGHT_RENAMED),
        [("error", "json-name-changed",
          'frob.example.com/v6 Frobber.height: JSON name changed from "height" to "heightInInches"'),
         ("warning", "protobuf-name-changed",
          "frob.example.com/v6 Frobber.heightInInches: protobuf name changed from height to heightInInches"),
         ("error", "required-field-added", "Frobber frob.example.com/v6 heightInInches: new required field; for "
          'example {"height":0,"param":"a","width":1} is accepted before the change and refused after it: '
          "heightInInches: Required value")],
    ),
    "heightInInches beside height, both pointers: accepted, the pointer a warning": (
        frobber(PARAMS), frobber(HEIGHT_IN_INCHES),
        [("warning", "go-type-changed", "frob.example.com/v6 Frobber.height: Go type changed from int to *int")],
    ),
    "an alpha field behind a feature gate: accepted": (frobber(HEIGHT_IN_INCHES), frobber(DEPTH), []),
    "the abandoned alpha field removed with its tombstone: accepted, a warning": (
        frobber(DEPTH), frobber(HEIGHT_IN_INCHES, type_markers=TOMBSTONE),
        [("warning", "field-removed", "Frobber frob.example.com/v6 depth: removed (the field is behind a feature gate "
          '(+featureGate): warning); for example the API server drops depth from {"height":0,"param":"a","width":1,'
          '"depth":0} (unknown field "depth"), and from stored objects on their next write')],
    ),
    "the abandoned alpha field removed without a tombstone: a warning more": (
        frobber(DEPTH), frobber(HEIGHT_IN_INCHES),
        [("warning", "field-removed", "Frobber frob.example.com/v6 depth: removed (the field is behind a feature gate "
          '(+featureGate): warning); for example the API server drops depth from {"height":0,"param":"a","width":1,'
          '"depth":0} (unknown field "depth"), and from stored objects on their next write'),
         ("warning", "protobuf-tombstone-missing", "frob.example.com/v6 Frobber.depth: removed without a tombstone: "
          "add `// +k8s:deprecated=depth,protobuf=7` to Frobber")],
    ),
    "reusing the tombstoned protobuf number: refused": (
        frobber(HEIGHT_IN_INCHES, type_markers=TOMBSTONE), frobber(REUSED_NUMBER, type_markers=TOMBSTONE),
        [("error", "protobuf-number-reused",
          'frob.example.com/v6 Frobber.length: protobuf number 7 is tombstoned for "depth"')],
    ),
    "reusing the tombstoned name: refused": (
        frobber(HEIGHT_IN_INCHES, type_markers=TOMBSTONE), frobber(REUSED_NAME, type_markers=TOMBSTONE),
        [("error", "protobuf-name-reused", 'frob.example.com/v6 Frobber.depth: the name "depth" is tombstoned')],
    ),
    "a new enum value: accepted, a warning (clients must be told to expect new values)": (
        frobber(POLICY), frobber(POLICY_ON_TUESDAY),
        [("warning", "enum-value-added", 'Frobber frob.example.com/v6 policy: enum values added: "OnlyOnTuesday"')],
    ),
    "a new version v7beta1, stored at once: refused": (
        frobber(POLICY), with_v7beta1("", STORED),
        [("error", "storage-version-new", "Frobber frob.example.com/v7beta1: added as the storage version in the "
          "same change")],
    ),
    "a new version v7beta1, v6 still stored: accepted": (frobber(POLICY), with_v7beta1(STORED, ""), []),
    "the release after: v7beta1 becomes the storage version: accepted": (
        with_v7beta1(STORED, ""), with_v7beta1("", STORED), [],
    ),
}  # fmt: skip


@pytest.mark.parametrize("step", STEPS)
def test_the_frobber_history_of_the_api_change_guide(tmp_path, step):
    before, after, expected = STEPS[step]
    old = read_paths([write_tree(tmp_path / "before", before)], None, "before")
    new = read_paths([write_tree(tmp_path / "after", after)], None, "after")
    found, _ = compare(old, new)
    assert [(f.severity.value, f.rule, f.message) for f in sorted(found, key=lambda f: f.rule)] == sorted(
        expected, key=lambda e: e[1]
    )
    refused = any(f.severity.value == "error" for f in found)
    assert refused == step.endswith("refused")
