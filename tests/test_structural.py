"""kgen.runtime.structural: pruning, null pruning, defaulting and validation of custom
resources against a CRD's structural schema, with the paths, error types and messages the
API server gives. Each test names the upstream code whose behaviour it reproduces
(apiextensions-apiserver or kube-openapi)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kgen.runtime.structural import (
    Structural,
    default,
    list_type_errors,
    prune,
    prune_nulls,
    validate,
    validate_update,
)
from kgen.runtime.validation.field import ErrorType


def _schema(spec_properties: dict[str, Any], **spec_extra: Any) -> Structural:
    """A resource schema whose `spec` has these properties."""
    spec = {"type": "object", "properties": spec_properties, **spec_extra}
    return Structural.from_openapi({"type": "object", "properties": {"spec": spec}})


def _messages(schema: Structural, obj: Any, **kwargs: Any) -> list[str]:
    return [str(e) for e in validate(obj, schema, **kwargs)]


# -- types, nullable, required (kube-openapi validate/type.go, apiextensions validation.go) -----


def test_string_for_integer_is_a_type_error_naming_the_json_type() -> None:
    """type.go: InvalidType(path, "body", "integer", "string"); validation.go: TypeInvalid."""
    errors = validate({"spec": {"replicas": "3"}}, _schema({"replicas": {"type": "integer"}}))
    assert len(errors) == 1
    assert errors[0].type is ErrorType.TYPE_INVALID
    assert errors[0].field == "spec.replicas"
    assert errors[0].detail == 'spec.replicas in body must be of type integer: "string"'
    assert str(errors[0]) == (
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'
    )


@pytest.mark.parametrize(
    ("value", "json_type"),
    [(True, "boolean"), ([1], "array"), ({"a": 1}, "object"), (1.5, "number")],
)
def test_type_names_of_json_values(value: Any, json_type: str) -> None:
    """type.go schemaInfoForType: bool -> boolean, slice -> array, map -> object, float64 -> number."""
    messages = _messages(_schema({"name": {"type": "string"}}), {"spec": {"name": value}})
    assert messages == [
        f'spec.name: Invalid value: "{json_type}": spec.name in body must be of type string: "{json_type}"'
    ]


def test_number_accepts_integers_and_integer_accepts_integral_floats() -> None:
    """type.go: isIntFloat (an int64 for `number`) and isFloatInt (1.0 for `integer`) pass."""
    schema = _schema({"ratio": {"type": "number"}, "count": {"type": "integer"}})
    assert validate({"spec": {"ratio": 2, "count": 1.0}}, schema) == []


def test_fractional_float_for_integer_also_fails_the_range_check_reported_at_the_root() -> None:
    """type.go type error, plus validator.go numberValidator's IsValueValidAgainstRange, a plain
    error that validation.go reports as Invalid at the (nil) root path."""
    assert _messages(_schema({"count": {"type": "integer"}}), {"spec": {"count": 1.5}}) == [
        'spec.count: Invalid value: "number": spec.count in body must be of type integer: "number"',
        '<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.count',
    ]


def test_int32_format_out_of_range() -> None:
    """values.go IsValueValidAgainstRange with format int32."""
    assert _messages(_schema({"count": {"type": "integer", "format": "int32"}}), {"spec": {"count": 2**31}}) == [
        '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.count'
    ]
    assert validate({"spec": {"count": 2**31 - 1}}, _schema({"count": {"type": "integer", "format": "int32"}})) == []


def test_int_or_string_accepts_integers_and_strings_only() -> None:
    """validation.go ConvertJSONSchemaProps: x-kubernetes-int-or-string is type [integer, string]."""
    schema = _schema({"port": {"x-kubernetes-int-or-string": True}})
    assert validate({"spec": {"port": 80}}, schema) == []
    assert validate({"spec": {"port": "http"}}, schema) == []
    assert _messages(schema, {"spec": {"port": True}}) == [
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'
    ]


def test_null_is_a_type_error_unless_nullable() -> None:
    """type.go: a nil value needs `nullable: true` (or type null)."""
    schema = _schema({"a": {"type": "string"}, "b": {"type": "string", "nullable": True}})
    assert _messages(schema, {"spec": {"a": None, "b": None}}) == [
        'spec.a: Invalid value: "null": spec.a in body must be of type string: "null"'
    ]


def test_required_field() -> None:
    """object_validator.go: Required(path.name); validation.go: field.Required(path, "")."""
    schema = _schema({"foo": {"type": "string"}}, required=["foo"])
    errors = validate({"spec": {}}, schema)
    assert [str(e) for e in errors] == ["spec.foo: Required value"]
    assert errors[0].type is ErrorType.REQUIRED


def test_children_are_reported_before_the_parents_required_fields() -> None:
    """object_validator.go: properties are validated, then `required` is checked."""
    schema = _schema({"a": {"type": "integer"}, "b": {"type": "string"}}, required=["b"])
    assert _messages(schema, {"spec": {"a": "x"}}) == [
        'spec.a: Invalid value: "string": spec.a in body must be of type integer: "string"',
        "spec.b: Required value",
    ]


# -- null pruning and defaulting (apiextensions schema/defaulting: prunenulls.go, algorithm.go) --


def test_prune_nulls_removes_non_nullable_nulls_without_default() -> None:
    """prunenulls.go PruneNonNullableNullsWithoutDefaults."""
    schema = _schema(
        {
            "plain": {"type": "string"},
            "nullable": {"type": "string", "nullable": True},
            "defaulted": {"type": "string", "default": "d"},
            "list": {"type": "array", "items": {"type": "string"}},
            "map": {"type": "object", "additionalProperties": {"type": "string"}},
        }
    )
    obj: dict[str, Any] = {
        "spec": {"plain": None, "nullable": None, "defaulted": None, "list": ["a", None], "map": {"k": None}}
    }
    prune_nulls(obj, schema)
    assert obj == {"spec": {"nullable": None, "defaulted": None, "list": ["a", None], "map": {}}}
    default(obj, schema)
    assert obj["spec"]["defaulted"] == "d"
    # a null item cannot be dropped: validation reports it
    assert [e.field for e in validate(obj, schema)] == ["spec.list[1]"]


def test_default_sets_absent_fields_and_replaces_non_nullable_nulls() -> None:
    """algorithm.go Default: absent, or null and not nullable, takes the default; a nullable
    null stays null."""
    schema = _schema(
        {
            "absent": {"type": "integer", "default": 1},
            "null": {"type": "integer", "default": 2},
            "nullable": {"type": "integer", "nullable": True, "default": 3},
            "given": {"type": "integer", "default": 4},
        }
    )
    obj: dict[str, Any] = {"spec": {"null": None, "nullable": None, "given": 0}}
    prune_nulls(obj, schema)
    default(obj, schema)
    assert obj == {"spec": {"absent": 1, "null": 2, "nullable": None, "given": 0}}


def test_defaults_nested_in_a_default_items_and_map_values() -> None:
    """algorithm.go Default: recursion into values it has just set, items and
    additionalProperties values (where a non-nullable null item takes the items' default)."""
    schema = _schema(
        {
            "template": {
                "type": "object",
                "default": {},
                "properties": {"mode": {"type": "string", "default": "auto"}},
            },
            "ports": {
                "type": "array",
                "items": {
                    "type": "object",
                    "default": {},
                    "properties": {"proto": {"type": "string", "default": "TCP"}},
                },
            },
            "limits": {
                "type": "object",
                "additionalProperties": {"type": "object", "properties": {"max": {"type": "integer", "default": 9}}},
            },
        }
    )
    obj: dict[str, Any] = {"spec": {"ports": [{"port": 80}, None], "limits": {"cpu": {}}}}
    default(obj, schema)
    assert obj["spec"] == {
        "template": {"mode": "auto"},
        "ports": [{"port": 80, "proto": "TCP"}, {"proto": "TCP"}],
        "limits": {"cpu": {"max": 9}},
    }


def test_default_values_are_copies() -> None:
    """algorithm.go: runtime.DeepCopyJSONValue of the default."""
    schema = _schema({"tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]}})
    first: dict[str, Any] = {"spec": {}}
    second: dict[str, Any] = {"spec": {}}
    default(first, schema)
    first["spec"]["tags"].append("b")
    default(second, schema)
    assert second == {"spec": {"tags": ["a"]}}


# -- pruning (apiextensions schema/pruning/algorithm.go) --------------------------------------------


def test_prune_drops_unknown_fields_and_reports_sorted_paths() -> None:
    """algorithm.go PruneWithOptions: unknown fields deleted, their paths (keys joined with
    dots, indexes in brackets) sorted; apiVersion/kind/metadata of the resource kept as is."""
    schema = _schema(
        {
            "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {}}}},
        }
    )
    obj: dict[str, Any] = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "unknownMeta": 1},
        "spec": {"zzz": 1, "items": [{"name": "a", "bar": 2}], "labels": {"k": {"v": 1, "w": 2}}},
        "extra": True,
    }
    removed = prune(obj, schema)
    assert removed == ["extra", "spec.items[0].bar", "spec.labels.k.w", "spec.zzz"]
    assert obj == {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "unknownMeta": 1},
        "spec": {"items": [{"name": "a"}], "labels": {"k": {"v": 1}}},
    }


def test_prune_not_at_a_resource_root_drops_apiversion_silently() -> None:
    """algorithm.go prune: without isResourceRoot the meta fields are not special; at the top
    level they are deleted without being reported."""
    schema = Structural.from_openapi({"type": "object", "properties": {"a": {"type": "string"}}})
    obj = {"a": "x", "kind": "K", "b": 1}
    assert prune(obj, schema, is_resource_root=False) == ["b"]
    assert obj == {"a": "x"}


def test_preserve_unknown_fields_keeps_unknowns_but_prunes_known_properties() -> None:
    """algorithm.go skipPrune: unknown fields kept at that level (and in its array's items),
    specified properties below still pruned."""
    schema = _schema(
        {
            "config": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}},
            },
            "list": {
                "type": "array",
                "x-kubernetes-preserve-unknown-fields": True,
                "items": {"type": "object", "properties": {"a": {"type": "string"}}},
            },
        }
    )
    obj: dict[str, Any] = {
        "spec": {"config": {"free": {"x": 1}, "known": {"a": "1", "b": 2}}, "list": [{"a": "1", "other": 2}]}
    }
    assert prune(obj, schema) == ["spec.config.known.b"]
    assert obj["spec"] == {"config": {"free": {"x": 1}, "known": {"a": "1"}}, "list": [{"a": "1", "other": 2}]}


def test_embedded_resource_keeps_its_type_and_object_meta() -> None:
    """algorithm.go: XEmbeddedResource skips apiVersion, kind and metadata."""
    schema = _schema(
        {
            "template": {
                "type": "object",
                "x-kubernetes-embedded-resource": True,
                "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}},
            }
        }
    )
    obj: dict[str, Any] = {
        "spec": {
            "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {"a": "1", "b": 2}, "c": 3}
        }
    }
    assert prune(obj, schema) == ["spec.template.c", "spec.template.spec.b"]
    assert obj["spec"]["template"] == {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {"a": "1"}}


def test_additional_properties_true_has_no_schema_to_keep_fields_by() -> None:
    """algorithm.go prune with a nil schema: every field of an object value is dropped."""
    schema = _schema({"m": {"type": "object", "additionalProperties": True}})
    obj: dict[str, Any] = {"spec": {"m": {"k": {"x": 1}, "s": "kept"}}}
    assert prune(obj, schema) == ["spec.m.k.x"]
    assert obj["spec"]["m"] == {"k": {}, "s": "kept"}


# -- string, number, array and object keywords (kube-openapi validator.go, values.go, errors/schema.go)


def test_max_length_is_too_long_in_bytes_wording_counting_characters() -> None:
    """values.go MaxLength counts runes; validation.go TooLong(path, "", max): apimachinery's
    message says bytes whatever the unit counted."""
    schema = _schema({"name": {"type": "string", "maxLength": 4}})
    assert validate({"spec": {"name": "äöüß"}}, schema) == []  # 4 characters, 8 bytes
    errors = validate({"spec": {"name": "abcde"}}, schema)
    assert [str(e) for e in errors] == ["spec.name: Too long: may not be more than 4 bytes"]
    assert errors[0].type is ErrorType.TOO_LONG


def test_only_the_first_string_error_is_reported() -> None:
    """validator.go stringValidator: maxLength, then minLength, then pattern, first failure returned."""
    schema = _schema({"name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"}})
    assert _messages(schema, {"spec": {"name": "A"}}) == [
        'spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long'
    ]
    assert _messages(schema, {"spec": {"name": "AB"}}) == [
        "spec.name: Invalid value: \"AB\": spec.name in body should match '^[a-z]+$'"
    ]


def test_enum_lists_allowed_values_as_strings_and_json() -> None:
    """validation.go EnumFailCode: NotSupported, non-string allowed values JSON-encoded."""
    schema = _schema({"mode": {"x-kubernetes-int-or-string": True, "enum": ["a", 1]}})
    errors = validate({"spec": {"mode": "b"}}, schema)
    assert [str(e) for e in errors] == ['spec.mode: Unsupported value: "b": supported values: "a", "1"']
    assert errors[0].type is ErrorType.NOT_SUPPORTED
    assert validate({"spec": {"mode": 1}}, schema) == []


def test_enum_compares_after_go_conversion() -> None:
    """validator.go basicCommonValidator: the value is converted to the enum value's Go type
    first, so a float64 1.9 converts to the int64 1 and matches."""
    schema = _schema({"n": {"type": "number", "enum": [1]}})
    assert validate({"spec": {"n": 1.9}}, schema) == []
    assert _messages(schema, {"spec": {"n": 2}}) == ['spec.n: Unsupported value: 2: supported values: "1"']


@pytest.mark.parametrize(
    ("keywords", "value", "detail"),
    [
        ({"minimum": 1}, 0, "should be greater than or equal to 1"),
        ({"minimum": 1, "exclusiveMinimum": True}, 1, "should be greater than 1"),
        ({"maximum": 10}, 11, "should be less than or equal to 10"),
        ({"maximum": 10, "exclusiveMaximum": True}, 10, "should be less than 10"),
        ({"multipleOf": 3}, 10, "should be a multiple of 3"),
    ],
)
def test_integer_bounds(keywords: dict[str, Any], value: int, detail: str) -> None:
    """values.go MinimumInt/MaximumInt/MultipleOfInt; errors/schema.go messages."""
    schema = _schema({"n": {"type": "integer", **keywords}})
    assert _messages(schema, {"spec": {"n": value}}) == [f"spec.n: Invalid value: {value}: spec.n in body {detail}"]


def test_number_bounds_print_floats_as_go() -> None:
    """values.go Maximum / MultipleOf on float64: %v of the bound."""
    schema = _schema({"n": {"type": "number", "maximum": 2.5, "multipleOf": 0.1}})
    assert _messages(schema, {"spec": {"n": 3.05}}) == [
        "spec.n: Invalid value: 3.05: spec.n in body should be a multiple of 0.1",
        "spec.n: Invalid value: 3.05: spec.n in body should be less than or equal to 2.5",
    ]


def test_fractional_multiple_of_rejects_every_integer_value() -> None:
    """values.go MultipleOfNativeType: an int64 value is checked against int64(0.5) == 0, which
    MultipleOfInt reports as a factor that must be positive."""
    schema = _schema({"n": {"type": "number", "multipleOf": 0.5}})
    assert validate({"spec": {"n": 1.5}}, schema) == []
    assert _messages(schema, {"spec": {"n": 3}}) == [
        "spec.n: Invalid value: 0: factor MultipleOf declared for spec.n must be positive: 0"
    ]


def test_array_keywords() -> None:
    """slice_validator.go: items first, then minItems (Invalid), maxItems (TooMany), uniqueItems."""
    schema = _schema({"xs": {"type": "array", "maxItems": 2, "uniqueItems": True, "items": {"type": "integer"}}})
    errors = validate({"spec": {"xs": [1, "a", 1]}}, schema)
    assert [str(e) for e in errors] == [
        'spec.xs[1]: Invalid value: "string": spec.xs[1] in body must be of type integer: "string"',
        "spec.xs: Too many: 3: must have at most 2 items",
        'spec.xs: Invalid value: "": spec.xs in body shouldn\'t contain duplicates',
    ]
    assert errors[1].type is ErrorType.TOO_MANY
    short = _schema({"xs": {"type": "array", "minItems": 2}})
    assert _messages(short, {"spec": {"xs": [1]}}) == [
        "spec.xs: Invalid value: 1: spec.xs in body should have at least 2 items"
    ]


def test_unique_items_tells_integers_from_floats() -> None:
    """values.go UniqueItems: reflect.DeepEqual, so int64 1 and float64 1.0 differ."""
    schema = _schema({"xs": {"type": "array", "uniqueItems": True, "items": {"type": "number"}}})
    assert validate({"spec": {"xs": [1, 1.0]}}, schema) == []


def test_object_property_counts_and_map_value_paths() -> None:
    """object_validator.go: min/maxProperties, then additionalProperties values at `path.key`."""
    schema = _schema({"m": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}}})
    assert _messages(schema, {"spec": {"m": {"a": "x", "b.c": 2}}}) == [
        "spec.m: Too many: 2: must have at most 1 item",
        'spec.m.b.c: Invalid value: "integer": spec.m.b.c in body must be of type string: "integer"',
    ]
    few = _schema({"m": {"type": "object", "minProperties": 2}})
    assert _messages(few, {"spec": {"m": {}}}) == [
        "spec.m: Invalid value: 0: spec.m in body should have at least 2 properties"
    ]


def test_path_prefix_for_a_subresource() -> None:
    """validation.go kubeOpenAPIResultToFieldErrors: errPath = fldPath.Child(name); errors that
    are not about one value are at fldPath itself."""
    schema = Structural.from_openapi(
        {
            "type": "object",
            "properties": {"ready": {"type": "boolean"}, "n": {"type": "integer", "anyOf": [{"minimum": 1}]}},
        }
    )
    assert _messages(schema, {"ready": "yes", "n": 0}, path_prefix="status") == [
        'status: Invalid value: "": "n" must validate at least one schema (anyOf)',
        "status.n: Invalid value: 0: n in body should be greater than or equal to 1",
        'status.ready: Invalid value: "string": ready in body must be of type boolean: "string"',
    ]


# -- allOf / anyOf / oneOf / not (kube-openapi schema_props.go, schema_messages.go) -----------------


def test_any_of_reports_the_failure_of_one_branch() -> None:
    """schema_props.go: the anyOf error, then the errors of the failing branch with the highest
    MatchCount (applicable checks, not passed ones: a tie keeps the first branch)."""
    schema = _schema(
        {"n": {"type": "integer", "anyOf": [{"minimum": 5, "maximum": 1}, {"minimum": 10}]}},
    )
    assert _messages(schema, {"spec": {"n": 3}}) == [
        '<nil>: Invalid value: "": "spec.n" must validate at least one schema (anyOf)',
        "spec.n: Invalid value: 3: spec.n in body should be greater than or equal to 5",
        "spec.n: Invalid value: 3: spec.n in body should be less than or equal to 1",
    ]
    assert validate({"spec": {"n": 12}}, schema) == []


def test_one_of_all_of_and_not() -> None:
    """schema_props.go: oneOf (exactly one), allOf (each branch's errors, then the summary), not."""
    schema = _schema(
        {
            "n": {
                "type": "integer",
                "oneOf": [{"minimum": 1}, {"minimum": 2}],
                "allOf": [{"maximum": 0}, {"maximum": 9}],
                "not": {"minimum": 0},
            }
        }
    )
    assert _messages(schema, {"spec": {"n": 5}}) == [
        '<nil>: Invalid value: "": "spec.n" must validate one and only one schema (oneOf). Found 2 valid alternatives',
        "spec.n: Invalid value: 5: spec.n in body should be less than or equal to 0",
        '<nil>: Invalid value: "": "spec.n" must validate all the schemas (allOf)',
        '<nil>: Invalid value: "": "spec.n" must not validate the schema (not)',
    ]


def test_value_validations_under_all_of_reach_properties() -> None:
    """schema_props.go: a branch is a whole schema validator at the same path."""
    schema = _schema({"a": {"type": "string"}}, allOf=[{"properties": {"a": {"maxLength": 1}}}])
    assert _messages(schema, {"spec": {"a": "xy"}}) == [
        "spec.a: Too long: may not be more than 1 byte",
        '<nil>: Invalid value: "": "spec" must validate all the schemas (allOf). None validated',
    ]


# -- x-kubernetes-list-type (apiextensions schema/listtype/validation.go) ------------------------------


def test_set_duplicates_are_reported_once_at_the_second_appearance() -> None:
    """listtype validation.go validateListSet: Duplicate at the index of the second appearance."""
    schema = _schema({"tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}})
    errors = validate({"spec": {"tags": ["a", "b", "a", "a", "b"]}}, schema)
    assert [str(e) for e in errors] == ['spec.tags[2]: Duplicate value: "a"', 'spec.tags[4]: Duplicate value: "b"']
    assert errors[0].type is ErrorType.DUPLICATE


def test_set_compares_scalars_by_go_type_and_objects_by_json() -> None:
    """listtype validation.go: scalars are map keys (int64 1 != float64 1.0), compounds their JSON."""
    schema = _schema({"xs": {"type": "array", "x-kubernetes-list-type": "set", "items": {}}})
    assert list_type_errors({"spec": {"xs": [1, 1.0]}}, schema) == []
    objects = {"spec": {"xs": [{"a": 1, "b": [2]}, {"b": [2], "a": 1.0}]}}
    assert [str(e) for e in list_type_errors(objects, schema)] == ['spec.xs[1]: Duplicate value: {"a":1,"b":[2]}']


def test_map_list_duplicate_keys() -> None:
    """listtype validation.go validateListMap: Duplicate of the key fields (`{}` when the single
    key is missing); map keys on the way are written [key]."""
    single = _schema(
        {
            "byName": {
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
            }
        }
    )
    obj = {"spec": {"byName": {"x": [{"name": "a"}, {"name": "a"}, {}, {}]}}}
    assert [str(e) for e in validate(obj, single)] == [
        'spec.byName[x][1]: Duplicate value: {"name":"a"}',
        "spec.byName[x][3]: Duplicate value: {}",
    ]
    multi = _schema(
        {
            "ports": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {
                    "type": "object",
                    "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}},
                },
            }
        }
    )
    ports = {
        "spec": {
            "ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}, {"port": 80, "protocol": "TCP"}]
        }
    }
    assert [str(e) for e in validate(ports, multi)] == ['spec.ports[2]: Duplicate value: {"port":80,"protocol":"TCP"}']


def test_map_list_items_must_be_objects() -> None:
    """listtype validation.go validateListMap: the first non-object item, and nothing else."""
    schema = _schema(
        {"xs": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"], "items": {}}}
    )
    assert [str(e) for e in list_type_errors({"spec": {"xs": [{"k": 1}, {"k": 1}, 3, "s"]}}, schema)] == [
        "spec.xs[2]: Invalid value: 3: must be an object for an array of list-type map"
    ]


# -- formats (apiextensions validation/formats.go, kube-openapi strfmt) ------------------------------------


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2024-02-29T10:00:00.5+01:00", "2024-02-29 10:00:00"),
        ("date", "2024-02-29", "2023-02-29"),
        ("uuid", "0A1B2C3D4E5F60718293A4B5C6D7E8F9", "0a1b2c3d-4e5f-6071-8293"),
        ("hostname", "example.com", "example.123"),
        ("ipv4", "10.0.0.1", "10.0.0.256"),
        ("ipv6", "::1", "10.0.0.1"),
        ("cidr", "10.0.0.0/8", "10.0.0.0/33"),
        ("mac", "01:23:45:67:89:ab", "01:23:45:67:89"),
        ("email", "Ann <ann@example.com>", "ann.example.com"),
        ("uri", "https://example.com:8443/x?y", "example.com/x"),
        ("byte", "aGVsbG8=", "aGVsbG8"),
        ("duration", "3 days", "soon"),
        ("k8s-short-name", "web-1", "Web"),
    ],
)
def test_string_formats(fmt: str, good: str, bad: str) -> None:
    """formats.go FormatOf: InvalidType(path, in, format, data) -> TypeInvalid with the format name."""
    schema = _schema({"v": {"type": "string", "format": fmt}})
    assert validate({"spec": {"v": good}}, schema) == []
    errors = validate({"spec": {"v": bad}}, schema)
    assert [str(e) for e in errors] == [
        f'spec.v: Invalid value: "{bad}": spec.v in body must be of type {fmt}: "{bad}"'
    ]
    assert errors[0].type is ErrorType.TYPE_INVALID


def test_unsupported_formats_are_ignored() -> None:
    """formats.go StripUnsupportedFormatsPostProcessorForVersion: unknown formats, and formats
    for another type, are dropped before validation."""
    schema = _schema({"a": {"type": "string", "format": "phone"}, "b": {"type": "integer", "format": "date"}})
    assert validate({"spec": {"a": "anything", "b": 3}}, schema) == []


def test_a_non_string_value_for_a_formatted_string_names_the_format() -> None:
    """type.go: with a format, a non-string value fails as `must be of type <format>: "<go format>"`."""
    schema = _schema({"when": {"type": "string", "format": "date"}})
    assert _messages(schema, {"spec": {"when": 5}}) == [
        'spec.when: Invalid value: "int64": spec.when in body must be of type date: "int64"'
    ]


# -- ratcheting (apiextensions validation/ratcheting.go, apiserver cel/common/equality.go) ----------------


def test_unchanged_invalid_field_is_ratcheted_and_changed_one_is_not() -> None:
    """ratcheting.go: errors of a value DeepEqual to its correlated old value become warnings."""
    schema = _schema({"a": {"type": "string", "maxLength": 1}, "b": {"type": "string", "maxLength": 1}})
    old = {"spec": {"a": "xx", "b": "yy"}}
    new = {"spec": {"a": "xx", "b": "zz"}}
    assert [str(e) for e in validate_update(new, old, schema)] == ["spec.b: Too long: may not be more than 1 byte"]
    assert len(validate(new, schema)) == 2


def test_errors_of_a_changed_parent_are_kept() -> None:
    """ratcheting.go: the spec changed, so its own `required` error stays."""
    schema = _schema({"a": {"type": "string"}, "b": {"type": "string"}}, required=["a"])
    assert [str(e) for e in validate_update({"spec": {"b": "2"}}, {"spec": {"b": "1"}}, schema)] == [
        "spec.a: Required value"
    ]
    assert validate_update({"spec": {"b": "1"}}, {"spec": {"b": "1"}}, schema) == []


def test_map_list_items_are_correlated_by_key_atomic_lists_are_not() -> None:
    """equality.go correlateOldValueForChildAtNewIndex: `map` lists by their keys, atomic lists
    (and sets) not item by item."""
    item = {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "string", "maxLength": 1}}}
    keyed = _schema(
        {"xs": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"], "items": item}}
    )
    old = {"spec": {"xs": [{"k": "a", "v": "bad"}, {"k": "b", "v": "1"}]}}
    new = {"spec": {"xs": [{"k": "b", "v": "2"}, {"k": "a", "v": "bad"}]}}
    assert validate_update(new, old, keyed) == []
    for list_type in ("atomic", "set"):
        unkeyed = _schema({"xs": {"type": "array", "x-kubernetes-list-type": list_type, "items": item}})
        assert [str(e) for e in validate_update(new, old, unkeyed)] == [
            "spec.xs[1].v: Too long: may not be more than 1 byte"
        ]
    # unchanged as a whole, an atomic list is ratcheted with everything in it
    assert validate_update(old, old, _schema({"xs": {"type": "array", "items": item}})) == []


def test_list_type_errors_are_not_reported_on_update_when_old_had_them() -> None:
    """customresource strategy.go ValidateUpdate: list-set/map errors only if the old object had none."""
    schema = _schema({"tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}})
    old = {"spec": {"tags": ["a", "a"]}}
    assert validate_update({"spec": {"tags": ["a", "a", "b"]}}, old, schema) == []
    assert [str(e) for e in validate_update({"spec": {"tags": ["a", "a"]}}, {"spec": {"tags": []}}, schema)] == [
        'spec.tags[1]: Duplicate value: "a"'
    ]


# -- the parsed schema -----------------------------------------------------------------------------------


def test_schema_is_immutable_and_keeps_extensions_as_data() -> None:
    """structural.go: the extensions a structural schema carries."""
    source = {
        "type": "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "x-kubernetes-map-type": "atomic", "default": {"a": [1]}},
        "x-kubernetes-validations": [{"rule": "self.size() > 0", "message": "empty"}],
    }
    schema = Structural.from_openapi(source)
    assert schema.list_type == "map" and schema.list_map_keys == ("name",)
    assert schema.items is not None and schema.items.map_type == "atomic"
    assert schema.validations[0]["rule"] == "self.size() > 0"
    source["items"]["default"]["a"].append(2)  # type: ignore[index]
    assert schema.items.default == {"a": [1]}
    with pytest.raises(AttributeError):
        schema.type = "object"  # type: ignore[misc]
    with pytest.raises(TypeError):
        schema.properties["x"] = schema  # type: ignore[index]


_DEFAULTED = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "ports": {"type": "array", "items": {"type": "object", "properties": {"protocol": {"type": "string", "default": "TCP"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "x"}},
                "plain": {"type": "object", "properties": {"a": {"type": "string"}}},
            },
        },
    },
}


@pytest.mark.parametrize(
    "obj",
    [
        {},
        {"spec": {}},
        {"spec": {"replicas": 2}},
        {"spec": {"replicas": None}},
        {"spec": {"replicas": 2, "ports": [{"protocol": "UDP"}, {}]}},
        {"spec": {"replicas": 2, "ports": [{"protocol": "UDP"}]}},
        {"spec": {"replicas": 2, "labels": {"a": None}}},
        {"spec": {"replicas": 2, "labels": {"a": "b"}, "plain": {"a": "z"}}},
    ],
)
def test_needs_defaults_says_whether_defaulting_changes_an_object(obj) -> None:
    """A stored object is copied and defaulted on read only when defaulting would change it."""
    from kgen.runtime.structural import Structural, default, needs_defaults

    schema = Structural.from_openapi(_DEFAULTED)
    defaulted = copy.deepcopy(obj)
    default(defaulted, schema)
    assert needs_defaults(obj, schema) == (defaulted != obj)
