"""Name systems: JSON names to Python attributes, constants to enum members."""

from __future__ import annotations

import pytest

from kgen.ir.names import enum_constants, python_attribute, snake_case


@pytest.mark.parametrize(
    "json_name, python",
    [
        ("apiVersion", "api_version"),
        ("podIPs", "pod_ips"),
        ("hostIPC", "host_ipc"),
        ("targetCPUUtilizationPercentage", "target_cpu_utilization_percentage"),
        ("heightInInches", "height_in_inches"),
        ("matchLabels", "match_labels"),
        ("x509", "x509"),
        ("FSGroup", "fs_group"),
        ("HTTPGet", "http_get"),
        ("x-kubernetes-list-type", "x_kubernetes_list_type"),
        ("$ref", "ref"),
        ("fieldsV1", "fields_v1"),
        ("apiVersionV2Beta", "api_version_v2_beta"),
    ],
)
def test_snake_case(json_name, python):
    assert snake_case(json_name) == python


@pytest.mark.parametrize(
    "json_name, taken, python",
    [
        ("from", set(), "from_"),
        ("continue", set(), "continue_"),
        ("schema", set(), "schema_"),
        ("copy", set(), "copy_"),
        ("json", set(), "json_"),
        ("type", set(), "type"),
        ("podIPs", {"pod_ips"}, "pod_ips_"),
        # pydantic refuses a field with a leading underscore (`_9_lives`)
        ("9lives", set(), "field_9_lives"),
        ("123", set(), "field_123"),
        ("-", set(), "field"),
    ],
)
def test_python_attributes_are_valid_and_unique(json_name, taken, python):
    assert python_attribute(json_name, set(taken)) == python


@pytest.mark.parametrize(
    "constants, type_name, expected",
    [
        (["FrobberPhaseRunning", "FrobberPhasePending"], "FrobberPhase", ["RUNNING", "PENDING"]),
        (["ConditionTrue", "ConditionFalse", "ConditionUnknown"], "ConditionStatus", ["TRUE", "FALSE", "UNKNOWN"]),
        (["LabelSelectorOpIn", "LabelSelectorOpNotIn"], "LabelSelectorOperator", ["IN", "NOT_IN"]),
        (["ProtocolTCP", "ProtocolUDP"], "Protocol", ["TCP", "UDP"]),
        (["Int", "String"], "Type", ["INT", "STRING"]),
    ],
)
def test_enum_constants_drop_the_shared_prefix(constants, type_name, expected):
    assert enum_constants(constants, type_name) == expected


def test_generated_models_import_whatever_real_apis_name_their_fields(generate_project):
    """Fields named after builtins and keywords (resource.k8s.io's DeviceAttribute has `bool`
    and `int`), and two imported packages ending in the same path (a project's own meta/v1
    beside apimachinery's, as cert-manager has): the module imports, and JSON round-trips."""
    module, _ = generate_project(
        {
            "attrs/v1/doc.go": "// +groupName=attrs.example.com\npackage v1\n",
            "attrs/v1/types.go": """
                package v1

                import (
                    cmmeta "example.com/apis/meta/v1"
                    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
                )

                type DeviceAttribute struct {
                    IntValue    *int64            `json:"int,omitempty"`
                    BoolValue   *bool             `json:"bool,omitempty"`
                    StringValue *string           `json:"string,omitempty"`
                    Str         string            `json:"str,omitempty"`
                    List        []string          `json:"list,omitempty"`
                    Dict        map[string]string `json:"dict,omitempty"`
                    Float       float64           `json:"float,omitempty"`
                    Other       bool              `json:"other"`
                    Ref         cmmeta.LocalObjectReference `json:"ref"`
                    Selector    metav1.LabelSelector        `json:"selector"`
                    Class       string            `json:"class,omitempty"`
                    Self        string            `json:"self,omitempty"`
                }
                """,
            "meta/v1/types.go": """
                package v1

                type LocalObjectReference struct {
                    Name string `json:"name"`
                }
                """,
        }
    )
    models = module("attrs.v1.models")
    text = '{"bool":true,"other":true,"ref":{"name":"r"},"selector":{"matchLabels":{"a":"b"}},"class":"c"}'
    attribute = models.DeviceAttribute.from_json(text)
    assert (attribute.bool_, attribute.other, attribute.class_) == (True, True, "c")
    assert "int" in models.DeviceAttribute.model_fields  # not an annotation of the class body: kept
    assert attribute.ref.name == "r" and attribute.selector.match_labels == {"a": "b"}
    assert attribute.to_json() == text.encode()


@pytest.mark.parametrize("go_name, python", [("Frobber", "Frobber"), ("None", "None_"), ("models", "models_"),
                                             ("register", "register_"), ("list", "list_"), ("Exception", "Exception_")])
def test_class_names_never_hide_keywords_or_the_packages_modules(go_name, python):
    from kgen.ir.names import python_class

    assert python_class(go_name) == python


def test_every_name_that_reaches_python_is_escaped(generate_project):
    """Client accessors and `+genclient:method`s go through the models' escaping: a kind `A`
    (plural `as`), a resource path `import`, a method `class` and one named like a verb the
    class already has; a JSON name of digits; a Go type named like a builtin (`list`)."""
    module, _ = generate_project(
        {
            "odd/v1/doc.go": "// +groupName=odd.example.com\npackage v1\n",
            "odd/v1/types.go": """
                package v1

                import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

                type list struct {
                    Count int32 `json:"123,omitempty"`
                }

                // +genclient
                // +genclient:method=class,verb=get,subresource=status
                // +genclient:method=Get,verb=get,subresource=status
                type A struct {
                    metav1.TypeMeta   `json:",inline"`
                    metav1.ObjectMeta `json:"metadata,omitempty"`
                    Spec              list `json:"spec"`
                }

                type AList struct {
                    metav1.TypeMeta `json:",inline"`
                    metav1.ListMeta `json:"metadata,omitempty"`
                    Items           []A `json:"items"`
                }

                // +genclient
                // +kubebuilder:resource:path=import
                type Importer struct {
                    metav1.TypeMeta   `json:",inline"`
                    metav1.ObjectMeta `json:"metadata,omitempty"`
                }

                type ImporterList struct {
                    metav1.TypeMeta `json:",inline"`
                    metav1.ListMeta `json:"metadata,omitempty"`
                    Items           []Importer `json:"items"`
                }
                """,
        }
    )
    client = module("odd.v1.client")
    assert callable(client.Client.as_) and callable(client.Client.import_)
    assert callable(client.AClient.class_) and callable(client.AClient.get_)
    assert client.AClient.get is not client.AClient.get_  # the verb keeps its own method
    models = module("odd.v1.models")
    a = models.A.from_json('{"spec":{"123":4}}')
    assert a.spec.field_123 == 4 and isinstance(a.spec, models.list_)
    assert models.A.from_json(a.to_json()) == a and b'"spec":{"123":4}' in a.to_json()


def test_client_gen_scale_methods_keep_their_names_beside_the_scale_subresource(generate_project):
    """prometheus-operator's kinds have `+kubebuilder:subresource:scale` and client-gen's
    `+genclient:method=GetScale,verb=get,subresource=scale`: one `get_scale`, not `get_scale_`."""
    module, _ = generate_project(
        {
            "mon/v1/doc.go": "// +groupName=mon.example.com\npackage v1\n",
            "mon/v1/types.go": """
                package v1

                import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

                // +genclient
                // +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
                // +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
                // +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
                type Prom struct {
                    metav1.TypeMeta   `json:",inline"`
                    metav1.ObjectMeta `json:"metadata,omitempty"`
                    Spec              PromSpec `json:"spec"`
                }

                type PromSpec struct {
                    Replicas *int32 `json:"replicas,omitempty"`
                }

                type PromList struct {
                    metav1.TypeMeta `json:",inline"`
                    metav1.ListMeta `json:"metadata,omitempty"`
                    Items           []Prom `json:"items"`
                }
                """,
        }
    )
    client = module("mon.v1.client")
    assert callable(client.PromClient.get_scale) and callable(client.PromClient.update_scale)
    assert not hasattr(client.PromClient, "get_scale_") and not hasattr(client.PromClient, "update_scale_")
