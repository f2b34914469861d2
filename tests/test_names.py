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
        ("9lives", set(), "_9_lives"),
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
