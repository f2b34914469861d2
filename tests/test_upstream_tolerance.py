"""What controller-gen, code-generator and go-to-protobuf accept, kgen accepts.

Each input is written the way operator repositories write their API types; kgen must
generate (with a warning where the input is doubtful) instead of stopping, and error only
where upstream errors too.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import write_tree

META = 'metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"'
_outputs = 0


def _generate(cli, root: Path, files: dict[str, str], *extra: str):
    global _outputs
    _outputs += 1
    write_tree(root, {f"apis/{path}": text for path, text in files.items()})
    out = f"gen{_outputs}"
    result = cli(["generate", "--input", "apis", "--output", out, "--module", "example.com/op/apis", *extra], root)
    return result, root / out


def _crd(out: Path, name: str) -> dict:
    return yaml.safe_load((out / "crds" / name).read_text())


def _kind(name: str, spec: str = "", extra_markers: str = "") -> str:
    return f"""
// +kubebuilder:object:root=true
{extra_markers}
// {name} is a kind.
type {name} struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec {name}Spec `json:"spec,omitempty"`
}}

// +kubebuilder:object:root=true

// {name}List is a list of {name}.
type {name}List struct {{
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items []{name} `json:"items"`
}}

// {name}Spec is the spec.
type {name}Spec struct {{
{spec}
}}
"""


DOC = "// +kubebuilder:object:generate=true\n// +groupName=ops.example.com\npackage {version}\n"


def test_json_dash_fields_are_not_part_of_the_api_whatever_their_type(cli, tmp_path):
    """controller-gen's schema skips a `json:"-"` field before it looks at the type: an
    interface, the standard library's json.RawMessage, `any` (client-go's clientcmd/api)."""
    types = f"""package v1

import (
	"encoding/json"

	{META}
	"k8s.io/apimachinery/pkg/runtime"
)
""" + _kind("Exec", """	// +optional
	Command string `json:"command,omitempty"`
	Config runtime.Object `json:"-"`
	Value json.RawMessage `json:"-"`
	Object map[string]any `json:"-"`
	Hidden Undeclared `json:"-"`""")
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    spec = _crd(out, "ops.example.com_execs.yaml")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert list(spec["properties"]) == ["command"]


def test_prose_that_starts_like_a_marker_is_a_warning_not_an_error(cli, tmp_path):
    """`+required - the name ...` names no marker exactly: controller-gen ignores the line; kgen
    says so at its place and applies nothing."""
    types = f"package v1\n\nimport {META}\n" + _kind("Probe", """	// Path to probe.
	// +required - the path of the request
	Path string `json:"path"`
	// Method of the request.
	// +optional, default GET
	Method string `json:"method,omitempty"`""")
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    assert "is not a marker (words follow +required) and is ignored" in result.output
    assert "apis/ops/v1/types.go:" in result.output and "+optional, default GET" in result.output
    spec = _crd(out, "ops.example.com_probes.yaml")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["required"] == ["path"]  # from the json tag (no omitempty), not from the prose


def test_an_alias_of_a_func_type_is_skipped_like_a_defined_one(cli, tmp_path):
    types = f"""package v1

import {META}

// Predicate filters things (Go code of the package, not API).
type Predicate = func(obj Thing) bool

// Filter is the same as a defined type.
type Filter func(obj Thing) bool

// Handler is an interface for the package's Go code.
type Handler = interface{{ Handle() }}

// Thing is a thing.
type Thing struct {{
	Name string `json:"name"`
}}
""" + _kind("Widget", "	Size int32 `json:\"size\"`")
    result, _ = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output


def test_a_protobuf_name_with_a_trailing_space_is_read_trimmed_with_a_warning(cli, tmp_path):
    types = f"""package v1

import {META}

// +genclient
// Widget is a kind.
type Widget struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec WidgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec "`
}}

// WidgetSpec is the spec.
type WidgetSpec struct {{
	Size int32 `json:"size" protobuf:"varint,1,opt,name=size"`
}}
"""
    doc = "// +k8s:protobuf-gen=package\n// +groupName=ops.example.com\npackage v1\n"
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": doc, "ops/v1/types.go": types}, "--only", "protobuf")
    assert result.exit_code == 0, result.output
    assert "has spaces around a part; read as 'spec'" in result.output
    assert "optional WidgetSpec spec = 2;" in (out / "ops" / "v1" / "generated.proto").read_text()


def test_skipversion_on_a_kind_leaves_its_storage_to_the_versions_the_crd_serves(cli, tmp_path):
    """A kind in v1alpha1 (skipped from the CRD) and v1beta1: stored in v1beta1 with no marker,
    as controller-gen decides from the versions the CRD keeps."""
    files = {}
    for version, markers in (("v1alpha1", "// +kubebuilder:skipversion"), ("v1beta1", "")):
        files[f"ops/{version}/doc.go"] = DOC.format(version=version)
        files[f"ops/{version}/types.go"] = f"package {version}\n\nimport {META}\n" + _kind(
            "Gadget", "	Size int32 `json:\"size\"`", markers
        )
    result, out = _generate(cli, tmp_path, files)
    assert result.exit_code == 0, result.output
    versions = _crd(out, "ops.example.com_gadgets.yaml")["spec"]["versions"]
    assert [(v["name"], v["storage"]) for v in versions] == [("v1beta1", True)]


def test_a_component_configuration_kind_gets_no_crd_and_needs_no_storage_version(cli, tmp_path):
    """A kind that embeds TypeMeta only (a component config, two versions, no storage marker):
    models, defaults and conversion, no CRD and no storage-version error."""
    files = {}
    for version in ("v1alpha1", "v1beta1"):
        files[f"ops/{version}/doc.go"] = DOC.format(version=version)
        files[f"ops/{version}/types.go"] = f"""package {version}

import {META}

// +kubebuilder:object:root=true

// ControllerConfig configures the manager.
type ControllerConfig struct {{
	metav1.TypeMeta `json:",inline"`
	// +kubebuilder:default=8080
	Port int32 `json:"port,omitempty"`
}}
"""
    result, out = _generate(cli, tmp_path, files)
    assert result.exit_code == 0, result.output
    assert not (out / "crds").exists() or not list((out / "crds").iterdir())
    assert (out / "ops" / "v1beta1" / "models.py").exists()


def _costly(markers: str = "", package_marker: str = "") -> dict[str, str]:
    rule = "self.all(x, self.all(y, self.all(z, x + y + z != '')))"
    field = f"""	// +kubebuilder:validation:XValidation:rule="{rule}"\n{markers}\tItems []string `json:"items"`"""
    types = f"package v1\n\nimport {META}\n" + _kind("Costly", field)
    return {"ops/v1/doc.go": package_marker + DOC.format(version="v1"), "ops/v1/types.go": types}


def test_a_cel_rule_over_budget_is_an_error_unless_marked_to_warn(cli, tmp_path):
    result, _ = _generate(cli, tmp_path / "a", _costly())
    assert result.exit_code == 2
    assert "error: CRD Costly v1: rule" in result.output and "+kgen:celCost=warn" in result.output
    for files in (_costly("	// +kgen:celCost=warn\n"), _costly(package_marker="// +kgen:celCost=warn\n")):
        result, out = _generate(cli, tmp_path / f"b{_outputs}", files)
        assert result.exit_code == 0, result.output
        assert "warning: CRD Costly v1: rule" in result.output and "(a warning under +kgen:celCost=warn)" in result.output
        assert (out / "crds" / "ops.example.com_costlies.yaml").exists()


def test_each_type_of_a_grouped_block_has_its_own_markers(cli, tmp_path):
    """In `type ( ... )` the doc of the type above ends two lines up as well; it is not the
    next type's (controller-gen reads each spec's own doc)."""
    types = f"""package v1

import {META}

// Modes and levels.
type (
	// +kubebuilder:validation:Enum=Fast;Slow
	Mode string
	// +kubebuilder:validation:Enum=Low;High
	Level string
	Other string
)
""" + _kind("Knob", "	Mode Mode `json:\"mode\"`\n	Level Level `json:\"level\"`\n	Other Other `json:\"other\"`")
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    assert "given twice" not in result.output
    spec = _crd(out, "ops.example.com_knobs.yaml")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["properties"]["mode"]["enum"] == ["Fast", "Slow"]
    assert spec["properties"]["level"]["enum"] == ["Low", "High"]
    assert "enum" not in spec["properties"]["other"]


def test_nullable_and_example_reach_the_crd_as_controller_gen_writes_them(cli, tmp_path):
    types = f"package v1\n\nimport {META}\n" + _kind("Sample", """	// +nullable
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +kubebuilder:example=3
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// +kubebuilder:example={"a":"b"}
	// +optional
	Extra map[string]string `json:"extra,omitempty"`""")
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    spec = _crd(out, "ops.example.com_samples.yaml")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["properties"]["labels"]["nullable"] is True
    assert spec["properties"]["replicas"]["example"] == 3
    assert spec["properties"]["extra"]["example"] == {"a": "b"}
    assert "nullable" not in spec["properties"]["replicas"]


def test_versions_that_import_each_others_models_import_in_any_order(cli, tmp_path):
    """v1alpha1's types embed v1beta1's, and v1beta1 converts to v1alpha1, the storage version:
    each package imports first in a fresh interpreter, and converts."""
    import subprocess
    import sys

    files = {}
    for version, other in (("v1alpha1", "v1beta1"), ("v1beta1", None)):
        files[f"ops/{version}/doc.go"] = DOC.format(version=version)
        imports = f'{META}\n\t"example.com/op/apis/ops/v1beta1"' if other else META
        shared = "v1beta1.Shared" if other else "Shared"
        stored = "// +kubebuilder:storageversion" if other else ""
        files[f"ops/{version}/types.go"] = f"package {version}\n\nimport (\n\t{imports}\n)\n" + (
            "" if other else "\n// Shared is embedded by the other version.\ntype Shared struct {\n\tName string `json:\"name\"`\n}\n"
        ) + _kind("Widget", f"	Shared {shared} `json:\"shared\"`", stored)
    result, out = _generate(cli, tmp_path, files)
    assert result.exit_code == 0, result.output
    for first in ("v1alpha1", "v1beta1"):
        program = (
            f"import {out.name}.ops.{first}\n"
            f"from {out.name}.ops.v1beta1 import Widget\n"
            "from kgen.runtime.scheme import SCHEME\n"
            "w = Widget.from_json('{\"apiVersion\": \"ops.example.com/v1beta1\", \"kind\": \"Widget\", "
            "\"metadata\": {\"name\": \"w\"}, \"spec\": {\"shared\": {\"name\": \"n\"}}}')\n"
            "print(SCHEME.convert(w, 'ops.example.com/v1alpha1').spec.shared.name)\n"
        )
        done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.split() == ["n"], done.stderr[-1500:]


def test_packages_that_import_each_other_are_refused_at_the_import(cli, tmp_path):
    """The go command refuses an import cycle; kgen says where, instead of writing modules
    that fail with `partially initialized module`."""
    files = {
        "a/v1/doc.go": "// +groupName=a.example.com\npackage v1\n",
        "a/v1/types.go": 'package v1\n\nimport bv1 "example.com/op/apis/b/v1"\n\n// A refers to B.\n'
                         "type A struct {\n\tB *bv1.B `json:\"b,omitempty\"`\n}\n",
        "b/v1/doc.go": "// +groupName=b.example.com\npackage v1\n",
        "b/v1/types.go": 'package v1\n\nimport av1 "example.com/op/apis/a/v1"\n\n// B refers to A.\n'
                         "type B struct {\n\tA *av1.A `json:\"a,omitempty\"`\n}\n",
    }
    result, out = _generate(cli, tmp_path, files)
    assert result.exit_code == 2
    assert ("apis/b/v1/types.go:3:8: error: import cycle not allowed: example.com/op/apis/a/v1 imports "
            "example.com/op/apis/b/v1 imports example.com/op/apis/a/v1") in result.output
    assert not out.exists()


def test_embedded_object_meta_expands_the_metadata_of_a_nested_kind(cli, tmp_path):
    """Volume claim templates are a list of a kind: with controller-gen's
    crd:generateEmbeddedObjectMeta their metadata gets its schema; the CRD's own metadata
    stays the API server's (`type: object`)."""
    types = f"package v1\n\nimport {META}\n" + _kind("Store", """	// +optional
	ClaimTemplates []Claim `json:"claimTemplates,omitempty"`""") + """
// Claim is a kind of its own, used as a template.
type Claim struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Size string `json:"size,omitempty"`
}
"""
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types},
                            "--crd-embedded-object-meta")
    assert result.exit_code == 0, result.output
    schema = _crd(out, "ops.example.com_stores.yaml")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert schema["properties"]["metadata"] == {"type": "object"}
    nested = schema["properties"]["spec"]["properties"]["claimTemplates"]["items"]["properties"]["metadata"]
    assert {"annotations", "finalizers", "labels", "name", "namespace"} <= set(nested["properties"])


INTERNAL_LAYOUT = {
    # kubernetes' layout: internal types in pkg/apis/<group>, the versioned package holds only
    # conversion-gen's markers, its types live in another module (k8s.io/api) nothing imports
    "apis/apps/doc.go": "// +k8s:deepcopy-gen=package\n// +groupName=apps.example.com\n\n// Package apps is internal.\npackage apps\n",
    "apis/apps/types.go": """package apps

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Deployment is internal.
type Deployment struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Replicas int32
}
""",
    "apis/apps/v1/doc.go": """// +k8s:conversion-gen=example.com/op/apis/apps
// +k8s:conversion-gen-external-types=example.com/ext/api/apps/v1
// +groupName=apps.example.com

// Package v1 converts the external types.
package v1
""",
    "apis/apps/v1/register.go": "package v1\n\n// GroupName is the group.\nconst GroupName = \"apps.example.com\"\n",
    "api/apps/v1/doc.go": "// +groupName=apps.example.com\npackage v1\n",
    "api/apps/v1/types.go": """package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Deployment is external.
type Deployment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Replicas int32 `json:"replicas"`
}
""",
}


def _generate_layout(cli, root: Path, files: dict[str, str]):
    global _outputs
    _outputs += 1
    write_tree(root, files)
    out = f"gen{_outputs}"
    args = ["generate", "--input", "apis", "--output", out, "--module", "example.com/op/apis",
            "--import-map", "example.com/ext/api=api"]  # fmt: skip
    return cli(args, root), root / out


def test_external_types_named_only_by_a_marker_are_loaded_and_converted(cli, tmp_path):
    import subprocess
    import sys

    result, out = _generate_layout(cli, tmp_path, INTERNAL_LAYOUT)
    assert result.exit_code == 0, result.output
    program = (
        f"from {out.name}.apps.v1 import conversion\n"
        f"from {out.name}._deps.example_com.ext.api.apps.v1.models import Deployment\n"
        "d = Deployment.from_json('{\"metadata\": {\"name\": \"d\"}, \"replicas\": 3}')\n"
        "internal = conversion.to_internal_Deployment(d)\n"
        "print(internal.replicas, conversion.from_internal_Deployment(internal) == d)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.split() == ["3", "True"], done.stderr[-1500:]


def test_conversion_markers_that_produce_nothing_say_why_at_the_marker(cli, tmp_path):
    files = dict(INTERNAL_LAYOUT)
    files["api/apps/v1/types.go"] = files["api/apps/v1/types.go"].replace("Deployment", "Rollout")
    result, _ = _generate_layout(cli, tmp_path / "a", files)
    assert result.exit_code == 0, result.output
    assert ("apis/apps/v1/doc.go:2:4: warning: example.com/op/apis/apps/v1 gets no conversion functions: "
            "example.com/ext/api/apps/v1 and its hub example.com/op/apis/apps have no struct type of the same name") in result.output
    files["apis/apps/v1/doc.go"] = files["apis/apps/v1/doc.go"].replace("ext/api/apps/v1", "ext/api/batch/v1")
    result, _ = _generate_layout(cli, tmp_path / "b", files)
    assert result.exit_code == 2
    assert "apis/apps/v1/doc.go:2:4: error: +k8s:conversion-gen-external-types=example.com/ext/api/batch/v1: " in result.output


def test_an_anonymous_struct_no_kind_reaches_is_left_out_with_a_warning(cli, tmp_path):
    """deepcopy-gen copies Go code's own types with anonymous structs, and the CRD generator
    never meets them; where a kind reaches one, it is an error as before."""
    loose = """
// Settings is Go code's own type, which no kind uses.
type Settings struct {
	Spec struct {
		Verbose bool `json:"verbose"`
	} `json:"spec"`
}

// Holder uses Settings, and no kind uses Holder either.
type Holder struct {
	Settings Settings `json:"settings"`
}
"""
    types = f"package v1\n\nimport {META}\n" + _kind("Plain", "	Size int32 `json:\"size\"`") + loose
    result, out = _generate(cli, tmp_path / "a", {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    assert "warning: Settings has a field kgen cannot generate (anonymous struct types are not supported in API types)" \
        "; no kind uses Settings" in result.output
    models = (out / "ops" / "v1" / "models.py").read_text()
    assert "class Plain(" in models and "class Settings(" not in models and "class Holder(" not in models
    reached = types.replace("	Size int32 `json:\"size\"`", "	Holder Holder `json:\"holder\"`")
    result, _ = _generate(cli, tmp_path / "b", {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": reached})
    assert result.exit_code == 2
    assert "error: anonymous struct types are not supported in API types; declare a named struct type" in result.output


def test_cel_selects_escaped_property_names_as_the_api_server_names_them(cli, tmp_path):
    """`namespace` is reserved in CEL and `dash-name` no identifier: a rule selects them as
    `__namespace__` and `dash__dash__name` (the apiserver's escaping), in kgen's check and when
    kgen evaluates the rule."""
    import json
    import subprocess
    import sys

    types = f"package v1\n\nimport {META}\n" + _kind("Binding", """	// +kubebuilder:validation:XValidation:rule="!has(self.__namespace__) || self.__namespace__ != 'kube-system'",message="not there"
	// +kubebuilder:validation:XValidation:rule="!has(self.dash__dash__name) || self.dash__dash__name != 'x'",message="not x"
	// +optional
	Ref Ref `json:"ref,omitempty"`""") + """
// Ref refers to an object.
type Ref struct {
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +optional
	DashName string `json:"dash-name,omitempty"`
}
"""
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    program = (
        f"import json, sys\nfrom {out.name}.ops.v1 import Binding, validation\n"
        "for ref in json.loads(sys.argv[1]):\n"
        "    b = Binding.from_json(json.dumps({'metadata': {'name': 'b', 'namespace': 'n'}, 'spec': {'ref': ref}}))\n"
        "    print(json.dumps([str(e) for e in validation.validate_Binding(b)]))\n"
    )
    refs = [{"namespace": "kube-system"}, {"namespace": "ok", "dash-name": "x"}, {"namespace": "ok"}]
    done = subprocess.run([sys.executable, "-c", program, json.dumps(refs)], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-1500:]
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        ['spec.ref: Invalid value: not there'], ['spec.ref: Invalid value: not x'], [],
    ]


def test_a_quantity_finer_than_a_nano_unit_compares_as_go_rounds_it():
    """ParseQuantity keeps an int64 amount only down to nano-units (scale >= -9): a longer
    fraction is rounded up to one (`9.99999999999999999` is 10, and equal to it)."""
    from kgen.runtime.quantity import Quantity

    assert Quantity("9.99999999999999999") == Quantity("10") and str(Quantity("9.99999999999999999")) == "10"
    assert Quantity("9.999999999") < Quantity("10")


def test_go_codes_own_types_that_no_kind_uses_may_hold_anything(cli, tmp_path):
    """An API package's helpers (cloudnative-pg's `regexErrors{errs []error}`, knative's
    `CannotConvertError` without json tags, a callback): no kind reaches them, so they are left
    out with a warning, and their untagged fields are not warned about."""
    types = f"package v1\n\nimport {META}\n" + _kind("Cluster", "	Size int32 `json:\"size\"`") + """
type regexErrors struct {
	errs []error
}

// CannotConvertError is Go's error of a conversion.
type CannotConvertError struct {
	Message string
	Field   string
}

// Hooks are callbacks.
type Hooks struct {
	OnChange func(string)
	Done     chan struct{}
}
"""
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    assert "regexErrors has a field kgen cannot generate (error is an interface with methods" in result.output
    assert "Hooks has a field kgen cannot generate (func fields cannot be serialized)" in result.output
    assert "no json tag" not in result.output
    assert "class Cluster(" in (out / "ops" / "v1" / "models.py").read_text()


def test_a_number_format_on_an_integer_reaches_the_crd_as_controller_gen_writes_it(cli, tmp_path):
    """rook's `+kubebuilder:validation:Format=int64` on a uint32: OpenAPI's formats of numbers
    apply to integers (a string format there stays an error)."""
    field = "	// +kubebuilder:validation:Format=int64\n	// +optional\n	KeyGeneration uint32 `json:\"keyGeneration,omitempty\"`"
    types = f"package v1\n\nimport {META}\n" + _kind("Keyring", field)
    result, out = _generate(cli, tmp_path / "a", {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    spec = _crd(out, "ops.example.com_keyrings.yaml")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["properties"]["keyGeneration"] == {"format": "int64", "type": "integer"}
    result, _ = _generate(cli, tmp_path / "b", {"ops/v1/doc.go": DOC.format(version="v1"),
                                                 "ops/v1/types.go": types.replace("Format=int64", "Format=email")})
    assert result.exit_code == 2 and "its format constraint applies only to a string" in result.output


def test_cel_accessors_of_durations_and_timestamps_are_known(cli, tmp_path):
    """metallb: `duration(self).getSeconds()`: CEL's accessors of durations and timestamps."""
    field = ("	// +kubebuilder:validation:XValidation:rule=\"duration(self).getSeconds() >= 1 && "
             "duration(self).getMilliseconds() % 1000 == 0\",message=\"whole seconds, at least one\"\n"
             "	// +optional\n	ConnectTime *metav1.Duration `json:\"connectTime,omitempty\"`")  # fmt: skip
    types = f"package v1\n\nimport {META}\n" + _kind("Peer", field)
    result, out = _generate(cli, tmp_path, {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types})
    assert result.exit_code == 0, result.output
    import subprocess
    import sys

    program = (f"from {out.name}.ops.v1 import Peer, validation\n"
               "for text in ('2s', '1500ms'):\n"
               "    p = Peer.from_json('{\"metadata\": {\"name\": \"p\", \"namespace\": \"n\"}, \"spec\": {\"connectTime\": \"%s\"}}' % text)\n"
               "    print([str(e) for e in validation.validate_Peer(p)])\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.splitlines() == ["[]", "['spec.connectTime: Invalid value: \"1.5s\": whole seconds, at least one']"]


def test_go_code_holding_runtime_objects_beside_the_api_types_is_no_error(cli, tmp_path):
    """velero's register.go keeps `runtime.Object`s in a type of its own: the interface is
    known, and the type, which no kind uses, is left out."""
    types = f"package v1\n\nimport {META}\n" + _kind("Backup", "	Size int32 `json:\"size\"`")
    register = ('package v1\n\nimport "k8s.io/apimachinery/pkg/runtime"\n\n'
                "type typeInfo struct {\n\tPluralName string\n\tItemType runtime.Object\n}\n")  # fmt: skip
    files = {"ops/v1/doc.go": DOC.format(version="v1"), "ops/v1/types.go": types, "ops/v1/register.go": register}
    result, _ = _generate(cli, tmp_path, files)
    assert result.exit_code == 0, result.output
    assert "typeInfo has a field kgen cannot generate (field ItemType: Object is an interface with methods" in result.output
