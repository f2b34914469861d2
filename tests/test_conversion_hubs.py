"""Conversion hubs in every form conversion-gen and kubebuilder give them: a versioned hub
(`+k8s:conversion-gen=<versioned package>`), the storage version of custom resources with no
internal package, and external types (`+k8s:conversion-gen-external-types`)."""

from __future__ import annotations

import pytest

from conftest import messages
from kgen.diagnostics import InputError
from kgen.runtime.conversion import ConversionError
from kgen.runtime.scheme import Scheme

WIDGET = """
package {version}

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

{markers}type Widget struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec WidgetSpec `json:"spec"`
}}

type WidgetList struct {{
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []Widget `json:"items"`
}}

type WidgetSpec struct {{
	Size  int32  `json:"size"`
{extra}}}
"""


def _version(version: str, markers: str = "", extra: str = "", doc: str = "") -> dict[str, str]:
    return {
        f"widgets/{version}/doc.go": f"{doc}// +groupName=widgets.example.com\npackage {version}\n",
        f"widgets/{version}/types.go": WIDGET.format(version=version, markers=markers, extra=extra),
    }


def _scheme(module, *versions: str) -> Scheme:
    scheme = Scheme()
    for version in versions:
        module(f"widgets.{version}.register").add_to_scheme(scheme)
    return scheme


def test_a_versioned_hub_named_by_conversion_gen(generate_project):
    """cluster-api's layout: v1beta1 converts to and from v1beta2, which is served and stored."""
    files = _version("v1beta1", doc="// +k8s:conversion-gen=example.com/apis/widgets/v1beta2\n")
    files |= _version("v1beta2", markers="// +kubebuilder:storageversion\n")
    module, result = generate_project(files)
    assert not [d for d in result.diagnostics.items if d.severity.value != "note"]
    conversion = module("widgets.v1beta1.conversion")
    assert {"to_v1beta2_Widget", "from_v1beta2_Widget", "convert_v1beta1_WidgetSpec_to_v1beta2_WidgetSpec"} <= set(
        dir(conversion)
    )
    scheme = _scheme(module, "v1beta1", "v1beta2")
    old = module("widgets.v1beta1.models").Widget.from_json(b'{"metadata":{"name":"w"},"spec":{"size":3}}')
    new = scheme.convert(old, "widgets.example.com/v1beta2")
    assert (new.spec.size, new.metadata.name) == (3, "w")
    assert type(new).__module__.endswith("widgets.v1beta2.models")
    back = scheme.convert(new, "widgets.example.com/v1beta1")
    assert back.to_json() == old.to_json()
    assert scheme.convert(new, "widgets.example.com/v1beta2").to_json() == new.to_json()


def test_custom_resources_without_an_internal_package_convert_through_the_storage_version(generate_project):
    """kubebuilder's hub and spokes: no conversion markers, the storage version is the hub."""
    files = _version("v1alpha1") | _version("v1", markers="// +kubebuilder:storageversion\n")
    module, result = generate_project(files)
    assert "to_v1_Widget" in dir(module("widgets.v1alpha1.conversion"))
    scheme = _scheme(module, "v1alpha1", "v1")
    alpha = module("widgets.v1alpha1.models").Widget.from_json(b'{"spec":{"size":2}}')
    assert scheme.convert(alpha, "widgets.example.com/v1").spec.size == 2


def test_an_implicit_hub_with_differing_fields_warns_and_raises_until_the_hook_is_written(generate_project):
    files = _version("v1alpha1", extra="\tColour string `json:\"colour\"`\n")
    files |= _version("v1", markers="// +kubebuilder:storageversion\n", extra="\tColor string `json:\"color\"`\n")
    module, result = generate_project(files)
    warnings = [m for m in messages(result.diagnostics) if "warning" in m and "conversion webhook" not in m]
    assert len(warnings) == 1 and "need hand-written hooks" in warnings[0]
    assert "convert_v1alpha1_WidgetSpec_to_v1_WidgetSpec" in warnings[0]
    assert warnings[0].split(": warning:")[0].endswith("widgets/v1alpha1/doc.go:1:1")  # a line to jump to
    alpha = module("widgets.v1alpha1.models").Widget.from_json(b'{"spec":{"size":2,"colour":"red"}}')
    with pytest.raises(ConversionError, match="convert_v1alpha1_WidgetSpec_to_v1_WidgetSpec is not written yet"):
        module("widgets.v1alpha1.conversion").to_v1_Widget(alpha)


def test_a_go_manual_conversion_makes_a_missing_python_hook_a_warning(generate_project):
    extra = "\tColour string `json:\"colour\"`\n"
    manual = (
        "package v1beta1\n\nfunc Convert_v1beta1_WidgetSpec_To_v1beta2_WidgetSpec(in *WidgetSpec, out *v1beta2.WidgetSpec, "
        "s conversion.Scope) error {\n\treturn nil\n}\n"
    )
    files = _version("v1beta1", extra=extra, doc="// +k8s:conversion-gen=example.com/apis/widgets/v1beta2\n")
    files |= _version("v1beta2", markers="// +kubebuilder:storageversion\n")
    module, result = generate_project(files | {"widgets/v1beta1/conversion.go": manual})
    warnings = [m for m in messages(result.diagnostics) if "warning" in m and "conversion webhook" not in m]
    assert len(warnings) == 1
    assert "convert_v1beta1_WidgetSpec_to_v1beta2_WidgetSpec (Go: Convert_v1beta1_WidgetSpec_To_v1beta2_WidgetSpec)" in warnings[0]
    with pytest.raises(InputError) as caught:
        generate_project(files)  # no Go counterpart: the hook is the user's to write
    assert any("needs a hand-written hook" in str(d) for d in caught.value.diagnostics)


def test_external_types_convert_in_the_package_that_names_them(generate_project, tmp_path):
    """k8s.io/kubernetes' layout: pkg/apis/widgets/v1 holds the conversions of the types of
    another package (k8s.io/api's widgets/v1) to the internal package."""
    files = {
        "widgets/doc.go": "// +groupName=widgets.example.com\npackage widgets\n",
        "widgets/types.go": WIDGET.format(version="widgets", markers="", extra=""),
        "widgets/v1/doc.go": (
            "// +k8s:conversion-gen=example.com/apis/widgets\n"
            "// +k8s:conversion-gen-external-types=example.com/apis/external/widgets/v1\n"
            "// +groupName=widgets.example.com\npackage v1\n"
        ),
        "external/widgets/v1/types.go": WIDGET.format(version="v1", markers="", extra=""),
    }
    module, result = generate_project(files)
    conversion = module("widgets.v1.conversion")
    external = module("external.widgets.v1.models").Widget.from_json(b'{"spec":{"size":5}}')
    assert conversion.to_internal_Widget(external).spec.size == 5
    assert type(conversion.from_internal_Widget(conversion.to_internal_Widget(external))) is type(external)


def test_a_type_converted_by_hand_needs_a_hook_only_where_it_is_used(generate_project):
    """conversion-gen's `+k8s:conversion-gen=false`: no automatic conversion for the type; a
    list that holds it still converts its items through the hand-written one."""
    marker = "// +k8s:conversion-gen=false\n"
    files = _version("v1beta1", markers=marker, doc="// +k8s:conversion-gen=example.com/apis/widgets/v1beta2\n")
    files |= _version("v1beta2", markers="// +kubebuilder:storageversion\n")
    with pytest.raises(InputError) as caught:
        generate_project(files)
    found = [str(d) for d in caught.value.diagnostics]
    assert any("converting v1beta1 Widget to v1beta2 Widget needs a hand-written hook: its conversion is written "
               "by hand (+k8s:conversion-gen=false)" in line for line in found), found
    hooks = (
        "from {out}.widgets.v1beta1 import conversion as generated\n\n\n"
        "def convert_v1beta1_Widget_to_v1beta2_Widget(src, dst, scope):\n"
        "    dst.metadata = src.metadata.deep_copy()\n"
        "    generated.convert_v1beta1_WidgetSpec_to_v1beta2_WidgetSpec(src.spec, dst.spec, scope)\n"
        "    dst.spec.size = src.spec.size * 10\n\n\n"
        "def convert_v1beta2_Widget_to_v1beta1_Widget(src, dst, scope):\n"
        "    dst.spec.size = src.spec.size // 10\n"
    )
    import conftest  # the next project's number names its output package

    module, _ = generate_project(files | {"widgets/v1beta1/conversion.py": hooks.format(out=f"out{conftest._projects + 1}")})
    conversion = module("widgets.v1beta1.conversion")
    assert not hasattr(conversion, "auto_convert_v1beta1_Widget_to_v1beta2_Widget")
    items = module("widgets.v1beta1.models").WidgetList.from_json(b'{"items":[{"spec":{"size":2}}]}')
    assert conversion.to_v1beta2_WidgetList(items).items[0].spec.size == 20


def test_metadata_embedded_inline_in_the_internal_type_converts_field_by_field(generate_project):
    """Internal types as Kubernetes writes them: `metav1.ObjectMeta` embedded without a tag
    (its fields promoted), where the version holds it as `metadata`: the same Go member."""
    internal = """
package widgets

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Widget struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Spec WidgetSpec
}

type WidgetSpec struct {
	Size int32
}
"""
    files = {
        "widgets/doc.go": "// +groupName=widgets.example.com\npackage widgets\n",
        "widgets/types.go": internal,
        **_version("v1"),
    }
    module, result = generate_project(files)
    conversion = module("widgets.v1.conversion")
    widget = module("widgets.v1.models").Widget.from_json(b'{"metadata":{"name":"w","labels":{"a":"b"}},"spec":{"size":2}}')
    hub = conversion.to_internal_Widget(widget)
    assert (hub.name, hub.labels, hub.spec.size) == ("w", {"a": "b"}, 2)
    assert conversion.from_internal_Widget(hub).to_json() == widget.to_json()
