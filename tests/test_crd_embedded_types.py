"""CRDs of projects that embed Kubernetes' own types (core/v1, apiextensions' JSON), as
controller-gen writes them: it reads those packages' kubebuilder and shared markers but not
openapi-gen's `+enum` or `+union`, keeps their `""` defaults, carries `+structType=atomic`
from an embedded struct, and knows apiextensions' JSON as any value."""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import write_tree
from kgen import pipeline
from kgen.generators import GENERATORS
from kgen.options import resolve_options

CORE = {
    "k8s.io/api/core/v1/doc.go": "// +groupName=\n// +k8s:protobuf-gen=package\npackage v1\n",
    "k8s.io/api/core/v1/types.go": """
        package v1

        // +structType=atomic
        type LocalObjectReference struct {
            // +optional
            // +default=""
            // +kubebuilder:default=""
            Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
        }

        type SecretEnvSource struct {
            LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
            // +optional
            Optional *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
        }

        // +enum
        type Protocol string

        const (
            ProtocolTCP Protocol = "TCP"
            ProtocolUDP Protocol = "UDP"
        )

        // +k8s:enum
        type Policy string

        const (
            PolicyAlways Policy = "Always"
            PolicyNever Policy = "Never"
        )

        // +union
        type Profile struct {
            // +unionDiscriminator
            Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
            // +optional
            LocalhostProfile *string `json:"localhostProfile,omitempty" protobuf:"bytes,2,opt,name=localhostProfile"`
        }

        type Port struct {
            // +k8s:maximum=65535
            // +kubebuilder:validation:Maximum=65535
            Number int32 `json:"number" protobuf:"varint,1,opt,name=number"`
            // +optional
            Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`
            // +optional
            Policy Policy `json:"policy,omitempty" protobuf:"bytes,3,opt,name=policy,casttype=Policy"`
        }
        """,
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go": """
        package v1

        // JSON represents any valid JSON value (its Go code writes it by hand).
        type JSON struct {
            Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
        }
        """,
}

APP = {
    "apps/v1/doc.go": "// +groupName=apps.example.com\npackage v1\n",
    "apps/v1/types.go": """
        package v1

        import (
            corev1 "k8s.io/api/core/v1"
            apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
            metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
        )

        // +kubebuilder:object:root=true
        type App struct {
            metav1.TypeMeta   `json:",inline"`
            metav1.ObjectMeta `json:"metadata,omitempty"`
            Spec AppSpec `json:"spec"`
        }

        type AppSpec struct {
            // +optional
            Secret *corev1.SecretEnvSource `json:"secret,omitempty"`
            Port corev1.Port `json:"port"`
            // +optional
            Profile *corev1.Profile `json:"profile,omitempty"`
            // +optional
            Values []apiextensionsv1.JSON `json:"values,omitempty"`
            // +optional
            Value *apiextensionsv1.JSON `json:"value,omitempty"`
        }
        """,
}


@pytest.fixture
def generated(tmp_path, monkeypatch):
    write_tree(tmp_path / "third_party", CORE)
    write_tree(tmp_path / "apis", APP)
    monkeypatch.chdir(tmp_path)
    options = resolve_options(
        config_path=tmp_path / "none.toml", input="apis", output="out", module="example.com/apis",
        import_map=("k8s.io/api=third_party/k8s.io/api",
                    "k8s.io/apiextensions-apiserver=third_party/k8s.io/apiextensions-apiserver"),
        registered=tuple(GENERATORS),
    )  # fmt: skip
    result = pipeline.generate(options, use_cache=False)
    return {f.path: f.content for f in result.files}, result


def _spec(files) -> dict:
    crd = yaml.safe_load(files["crds/apps.example.com_apps.yaml"])
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]


def test_embedded_kubernetes_types_read_as_controller_gen_reads_them(generated):
    files, _ = generated
    spec = _spec(files)
    secret = spec["secret"]
    assert secret["x-kubernetes-map-type"] == "atomic"  # from the LocalObjectReference it embeds
    assert secret["properties"]["name"] == {"default": "", "type": "string"}  # a "" default is kept
    port = spec["port"]["properties"]
    assert port["number"] == {"format": "int32", "maximum": 65535, "type": "integer"}  # no +k8s:maximum twice
    assert "enum" not in port["protocol"]  # openapi-gen's +enum
    assert port["policy"]["enum"] == ["Always", "Never"]  # +k8s:enum, which controller-gen reads
    assert "x-kubernetes-validations" not in spec["profile"]  # +union is openapi-gen's


def test_apiextensions_json_is_any_value(generated, tmp_path, monkeypatch):
    files, _ = generated
    spec = _spec(files)
    assert spec["values"]["items"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert spec["value"] == {"x-kubernetes-preserve-unknown-fields": True}
    for path, content in files.items():
        target = tmp_path / "out" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    models = importlib.import_module("out.apps.v1.models")
    text = b'{"port":{"number":1},"values":[1,"a",{"b":[true,null]}],"value":{"x":1}}'
    spec_object = models.AppSpec.from_json(text)
    assert json.loads(spec_object.to_json()) == json.loads(text)
    copied = spec_object.deep_copy()
    copied.values[2].raw["b"].append(False)
    assert spec_object.values[2].raw == {"b": [True, None]}


def test_controller_gen_crd_options_from_pyproject_and_flags(tmp_path, cli):
    """`[tool.kgen.crd]` and the flags that override it: maxDescLen and generateEmbeddedObjectMeta."""
    write_tree(tmp_path / "third_party", CORE)
    app = dict(APP)
    app["apps/v1/types.go"] = app["apps/v1/types.go"].replace(
        "            // +optional\n            Values []apiextensionsv1.JSON",
        "            // template is what each copy of the app runs. It is a pod template, which is the usual\n"
        "            // shape. Longer text follows here.\n"
        "            // +optional\n            Template *Template `json:\"template,omitempty\"`\n"
        "            // +optional\n            Values []apiextensionsv1.JSON",
    ) + (
        "\n        type Template struct {\n            metav1.ObjectMeta `json:\"metadata,omitempty\"`\n        }\n"
    )
    write_tree(tmp_path / "apis", app)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.kgen]\ninput = "apis"\noutput = "out"\nmodule = "example.com/apis"\ngenerators = ["crd"]\n'
        '[tool.kgen.import-map]\n"k8s.io/api" = "third_party/k8s.io/api"\n'
        '"k8s.io/apiextensions-apiserver" = "third_party/k8s.io/apiextensions-apiserver"\n'
        "[tool.kgen.crd]\nmax-description-length = 60\nembedded-object-meta = true\n"
    )
    result = cli(["generate"], tmp_path)
    assert result.exit_code == 0, result.output
    spec = _spec({"crds/apps.example.com_apps.yaml": (tmp_path / "out/crds/apps.example.com_apps.yaml").read_text()})
    assert spec["template"]["description"] == "template is what each copy of the app runs."
    assert set(spec["template"]["properties"]["metadata"]["properties"]) == {"annotations", "finalizers", "labels", "name", "namespace"}
    result = cli(["generate", "--crd-max-description-length", "0", "--no-crd-embedded-object-meta"], tmp_path)
    assert result.exit_code == 0, result.output
    spec = _spec({"crds/apps.example.com_apps.yaml": (tmp_path / "out/crds/apps.example.com_apps.yaml").read_text()})
    assert "description" not in spec["template"]
    assert spec["template"]["properties"]["metadata"] == {"type": "object"}


def test_unknown_crd_settings_are_named(tmp_path, cli):
    write_tree(tmp_path, APP)
    (tmp_path / "pyproject.toml").write_text('[tool.kgen]\ninput = "."\n[tool.kgen.crd]\nmaxDescLen = 1\n')
    result = cli(["generate", "--verify-only"], tmp_path)
    assert result.exit_code == 2
    assert "unknown [tool.kgen.crd] settings: maxDescLen (known: conversion, embedded-object-meta, max-description-length, output)" in result.output
