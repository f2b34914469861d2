"""Defaulting: +default forms, hooks found with libcst, upstream order, nested objects."""

from __future__ import annotations

import json

import pytest

from kgen.diagnostics import InputError

DOC = "// +groupName=widgets.example.com\npackage v1\n"

TYPES = """
package v1

import (
    "k8s.io/apimachinery/pkg/api/resource"
    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
    "k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
type Widget struct {
    metav1.TypeMeta   `json:",inline"`
    metav1.ObjectMeta `json:"metadata,omitempty"`
    Spec WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
    // +default="blue"
    Color string `json:"color,omitempty"`
    // +default=3
    Replicas *int32 `json:"replicas,omitempty"`
    // +kubebuilder:default=true
    Enabled *bool `json:"enabled,omitempty"`
    // +default=["a", "b"]
    Tags []string `json:"tags,omitempty"`
    // +default={"team": "core"}
    Labels map[string]string `json:"labels,omitempty"`
    // +default={"name": "main", "port": 80}
    Primary *Port `json:"primary,omitempty"`
    // +default={"name": "admin", "port": 9090}
    Admin Port `json:"admin,omitempty"`
    // +default={"cpu": "500m"}
    Limits map[string]resource.Quantity `json:"limits,omitempty"`
    // +default="25%"
    Surge *intstr.IntOrString `json:"surge,omitempty"`
    // +default=0
    Zero int32 `json:"zero,omitempty"`
    Ports []Port `json:"ports,omitempty"`
    ByName map[string]*Port `json:"byName,omitempty"`
    Mode Mode `json:"mode,omitempty"`
    Next *Node `json:"next,omitempty"`
}

type Port struct {
    Name string `json:"name"`
    Port int32 `json:"port"`
    // +default="TCP"
    Protocol string `json:"protocol,omitempty"`
}

// Mode defaults wherever it is used.
// +default="Fast"
type Mode string

// Node refers to itself: defaulting must not loop.
type Node struct {
    // +default="leaf"
    Kind string `json:"kind,omitempty"`
    Next *Node `json:"next,omitempty"`
}
"""

HOOKS = """
calls = []


def set_defaults_WidgetSpec(obj):
    calls.append(("base", obj.color, obj.replicas))
    if obj.color == "":
        obj.color = "from-hook"


def set_defaults_WidgetSpec_zz_last(obj):
    calls.append(("extra-z", obj.color))


def set_defaults_WidgetSpec_aa_first(obj):
    calls.append(("extra-a", obj.color))
"""


@pytest.fixture
def widgets(generate_project):
    module, _ = generate_project({"widgets/v1/doc.go": DOC, "widgets/v1/types.go": TYPES, "widgets/v1/defaults.py": HOOKS})
    return module("widgets.v1"), module("widgets.v1.defaulters")


def test_every_default_form_is_applied_to_unset_fields(widgets):
    models, defaulters = widgets
    spec = {"ports": [{"name": "http", "port": 8080}], "byName": {"x": {"name": "x", "port": 1}, "nil": None}}
    widget = models.Widget.from_dict({"spec": spec})
    defaulters.set_object_defaults_Widget(widget)
    spec = widget.spec
    assert spec.color == "from-hook"  # the base hook runs before +default values
    assert (spec.replicas, spec.enabled, spec.tags, spec.labels) == (3, True, ["a", "b"], {"team": "core"})
    assert spec.primary == models.Port(name="main", port=80, protocol="TCP")
    assert spec.admin == models.Port(name="admin", port=9090, protocol="TCP")  # a struct value, zero until defaulted
    assert spec.limits == {"cpu": "500m"} and str(spec.surge) == "25%"
    assert spec.ports[0].protocol == "TCP" and spec.by_name["x"].protocol == "TCP" and spec.by_name["nil"] is None
    assert spec.mode == "Fast"  # the default of the named type Mode
    assert spec.zero == 0 and spec.next is None


def test_set_values_are_kept(widgets):
    models, defaulters = widgets
    spec = {"color": "red", "replicas": 0, "enabled": False, "tags": [], "mode": "Slow", "admin": {"name": "x", "port": 1}}
    widget = models.Widget.from_dict({"spec": spec})
    defaulters.set_object_defaults_Widget(widget)
    assert (widget.spec.color, widget.spec.replicas, widget.spec.enabled, widget.spec.tags, widget.spec.mode) == (
        "red", 0, False, [], "Slow",
    )  # fmt: skip
    assert (widget.spec.admin.name, widget.spec.admin.port) == ("x", 1)


def test_hooks_run_base_first_then_additional_by_suffix(widgets):
    models, defaulters = widgets
    import importlib

    hooks = importlib.import_module(defaulters.__dict__["_hooks"].__name__)
    hooks.calls.clear()
    defaulters.set_object_defaults_Widget(models.Widget())
    assert hooks.calls == [("base", "", None), ("extra-a", "from-hook"), ("extra-z", "from-hook")]


def test_defaults_are_fresh_values_and_defaulting_is_idempotent(widgets):
    models, defaulters = widgets
    first, second = models.Widget(), models.Widget()
    defaulters.set_object_defaults_Widget(first)
    defaulters.set_object_defaults_Widget(second)
    first.spec.tags.append("c")
    assert second.spec.tags == ["a", "b"]
    again = first.deep_copy()
    defaulters.set_object_defaults_Widget(again)
    assert again == first


def test_self_referencing_types_are_walked_without_looping(widgets):
    models, defaulters = widgets
    widget = models.Widget.from_dict({"spec": {"next": {"next": {"next": {}}}}})
    defaulters.set_object_defaults_Widget(widget)
    node, kinds = widget.spec.next, []
    while node is not None:
        kinds.append(node.kind)
        node = node.next
    assert kinds == ["leaf", "leaf", "leaf"]


def test_generated_code_follows_upstream_order(generate_project):
    _, result = generate_project({"widgets/v1/doc.go": DOC, "widgets/v1/types.go": TYPES, "widgets/v1/defaults.py": HOOKS})
    source = next(f.content for f in result.files if f.path.endswith("widgets/v1/defaulters.py"))
    body = source.split("def default_WidgetSpec(obj: WidgetSpec) -> None:")[1].split("\ndef ")[0]
    lines = [line.strip() for line in body.strip().splitlines()[1:]]
    assert lines[:5] == [
        "_hooks.set_defaults_WidgetSpec(obj)",
        "_hooks.set_defaults_WidgetSpec_aa_first(obj)",
        "_hooks.set_defaults_WidgetSpec_zz_last(obj)",
        'if obj.color == "":',
        'obj.color = "blue"',
    ]
    assert "obj.zero" not in body  # a default equal to the zero value generates nothing


def test_packages_without_defaults_get_no_defaulters_module(generate_project):
    _, result = generate_project({"plain/v1/types.go": "package v1\n\ntype A struct {\n\tB string `json:\"b\"`\n}\n"})
    assert not any(f.path.endswith("defaulters.py") for f in result.files)


@pytest.mark.parametrize(
    "hooks, expected",
    [
        (
            "def set_defaults_Thing(obj, extra):\n    pass\n",
            "api{n}/things/v1/defaults.py:1:1: error: set_defaults_Thing takes 2 required parameters; "
            "kgen calls it as `set_defaults_Thing(obj)`, so write `def set_defaults_Thing(obj):`",
        ),
        (
            "def set_defaults_Thing(*args):\n    pass\n",
            "api{n}/things/v1/defaults.py:1:1: error: set_defaults_Thing takes 0 required parameters and optional "
            "ones; kgen calls it as `set_defaults_Thing(obj)`, so write `def set_defaults_Thing(obj):`",
        ),
        (
            "x = 1\n\n\ndef set_defaults_Thingy(obj):\n    pass\n",
            "api{n}/things/v1/defaults.py:4:1: warning: set_defaults_Thingy matches no type of package "
            "example.com/apis/things/v1, so it is never called; defaulting hooks are named "
            "set_defaults_<Type> or set_defaults_<Type>_<suffix>",
        ),
        ("def set_defaults_Thing(obj:\n", "api{n}/things/v1/defaults.py:1:1: error: cannot parse hook module"),
    ],
)
def test_hook_problems_are_diagnostics(generate_project, hooks, expected):
    from conftest import _projects  # the next project's number

    files = {"things/v1/types.go": "package v1\n\ntype Thing struct {\n\tA string `json:\"a\"`\n}\n", "things/v1/defaults.py": hooks}
    expected = expected.format(n=_projects + 1)
    try:
        _, result = generate_project(files)
        messages = [str(d) for d in result.diagnostics.sorted()]
    except InputError as err:
        messages = [str(d) for d in err.diagnostics]
    assert any(m.startswith(expected) for m in messages), messages


@pytest.mark.parametrize(
    "field, expected",
    [
        ('// +default="many"\n\tN int32 `json:"n"`', 'default "many" for field Thing.N (int32) must be an integer'),
        ("// +default=3000000000\n\tN int32 `json:\"n\"`", "default 3000000000 for field Thing.N (int32) is out of range for int32"),
        ('// +default={"bogus": 1}\n\tP *Sub `json:"p"`', "has no field 'bogus' (fields: s)"),
        ('// +default="1.2.3"\n\tQ *resource.Quantity `json:"q"`', "is not a valid Quantity"),
        ('// +default=1\n\t// +kubebuilder:default=2\n\tN int32 `json:"n"`', "field N has two different defaults"),
    ],
)
def test_bad_defaults_are_errors(generate_project, field, expected):
    types = (
        'package v1\n\nimport "k8s.io/apimachinery/pkg/api/resource"\n\nvar _ resource.Quantity\n\n'
        f"type Sub struct {{\n\tS string `json:\"s\"`\n}}\n\ntype Thing struct {{\n\t{field}\n}}\n"
    )
    with pytest.raises(InputError) as caught:
        generate_project({"things/v1/types.go": types})
    assert any(expected in str(d) for d in caught.value.diagnostics), [str(d) for d in caught.value.diagnostics]


def test_default_keys_match_fields_ignoring_case_as_encoding_json_does(generate_project):
    """defaulter-gen decodes `{"s": ...}` into a field named `S`; kgen writes the field's name."""
    types = """
package v1

type Inner struct {
	Deep string `json:"deep"`
}

type Sub struct {
	S string
	// +optional
	Inner *Inner `json:"inner,omitempty"`
}

type Thing struct {
	// +default={"s": "foo", "INNER": {"Deep": "x"}}
	P *Sub `json:"p,omitempty"`
	// +default=[{"s": "a"}]
	L []Sub `json:"l,omitempty"`
}
"""
    load, result = generate_project({"things/v1/doc.go": DOC, "things/v1/types.go": types})
    models, defaulters = load("things.v1.models"), load("things.v1.defaulters")
    thing = models.Thing()
    defaulters.default_Thing(thing)
    assert thing.to_dict() == {"p": {"S": "foo", "inner": {"deep": "x"}}, "l": [{"S": "a"}]}
    warnings = [str(d) for d in result.diagnostics.sorted() if d.severity.value == "warning" and "default of" in d.message]
    assert [w.split(": warning: ", 1)[1] for w in warnings] == [
        "default of Thing.P: key 'Deep' matches field Deep ('deep') only ignoring case; Go's encoding/json takes it, "
        "a CRD's schema would drop it; kgen writes 'deep'",
        "default of Thing.P: key 'INNER' matches field Inner ('inner') only ignoring case; Go's encoding/json takes it, "
        "a CRD's schema would drop it; kgen writes 'inner'",
        "default of Thing.P: key 's' matches field S ('S') only ignoring case; Go's encoding/json takes it, "
        "a CRD's schema would drop it; kgen writes 'S'",
        "default of Thing.L: key 's' matches field S ('S') only ignoring case; Go's encoding/json takes it, "
        "a CRD's schema would drop it; kgen writes 'S'",
    ]
    documents = {f.path: f.content for f in result.files}
    schema = json.loads(next(text for path, text in documents.items() if path.startswith("openapi/v3/")))
    props = schema["components"]["schemas"]["com.example.apis.things.v1.Thing"]["properties"]
    assert props["p"]["default"] == {"S": "foo", "inner": {"deep": "x"}}
    assert props["l"]["default"] == [{"S": "a"}]
