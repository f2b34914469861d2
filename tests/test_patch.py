"""JSON patch, merge patch and strategic merge patch as the API server applies them.

Expected results are upstream's behaviour: evanphx/json-patch v4 (what kube-apiserver
applies JSON and merge patches with) and the test tables of
k8s.io/apimachinery/pkg/util/strategicpatch (patch_test.go), restated as small cases.
"""

from __future__ import annotations

import json

import pytest
import yaml

from kgen.runtime.patch import (
    CUSTOM_RESOURCE_PATCH_TYPES,
    PatchError,
    Schema,
    apply_json_patch,
    apply_merge_patch,
    apply_strategic_merge_patch,
)
from kgen.runtime.scheme import APIError

# JSON patch (RFC 6902, evanphx/json-patch v4).

DOC = {"a": {"b": [1, 2, 3], "c": "x"}, "k~/": 1, "n": None}

JSON_PATCH_CASES = [
    ("add a key", [{"op": "add", "path": "/a/d", "value": {"e": 1}}], {**DOC, "a": {**DOC["a"], "d": {"e": 1}}}),
    ("add inserts into a list", [{"op": "add", "path": "/a/b/1", "value": 9}], {**DOC, "a": {"b": [1, 9, 2, 3], "c": "x"}}),
    ("add - appends", [{"op": "add", "path": "/a/b/-", "value": 4}], {**DOC, "a": {"b": [1, 2, 3, 4], "c": "x"}}),
    ("add at the length appends", [{"op": "add", "path": "/a/b/3", "value": 4}], {**DOC, "a": {"b": [1, 2, 3, 4], "c": "x"}}),
    ("negative index counts from the end", [{"op": "add", "path": "/a/b/-1", "value": 4}], {**DOC, "a": {"b": [1, 2, 3, 4], "c": "x"}}),
    ("remove a key", [{"op": "remove", "path": "/a/c"}], {**DOC, "a": {"b": [1, 2, 3]}}),
    ("remove an item", [{"op": "remove", "path": "/a/b/0"}], {**DOC, "a": {"b": [2, 3], "c": "x"}}),
    ("~0 and ~1 unescape", [{"op": "replace", "path": "/k~0~1", "value": 2}], {**DOC, "k~/": 2}),
    ("replace an item", [{"op": "replace", "path": "/a/b/2", "value": 0}], {**DOC, "a": {"b": [1, 2, 0], "c": "x"}}),
    ("replace of a missing key adds it", [{"op": "replace", "path": "/z", "value": 1}], {**DOC, "z": 1}),
    ("replace the root", [{"op": "replace", "path": "", "value": {"x": 1}}], {"x": 1}),
    ("move", [{"op": "move", "from": "/a/c", "path": "/c"}], {**DOC, "a": {"b": [1, 2, 3]}, "c": "x"}),
    ("copy", [{"op": "copy", "from": "/a/b", "path": "/b"}], {**DOC, "b": [1, 2, 3]}),
    ("copy of a missing key copies null", [{"op": "copy", "from": "/zz", "path": "/b"}], {**DOC, "b": None}),
    ("test passes", [{"op": "test", "path": "/a/c", "value": "x"}], DOC),
    ("test of null passes for a missing value", [{"op": "test", "path": "/zz", "value": None}], DOC),
    ("test of an existing null", [{"op": "test", "path": "/n"}], DOC),
    ("test the whole document", [{"op": "test", "path": "", "value": DOC}], DOC),
    ("the first segment is ignored", [{"op": "add", "path": "x/y", "value": 1}], {**DOC, "y": 1}),
    ("add without a value adds null", [{"op": "add", "path": "/v"}], {**DOC, "v": None}),
]


@pytest.mark.parametrize("name,patch,expected", JSON_PATCH_CASES, ids=[c[0] for c in JSON_PATCH_CASES])
def test_json_patch(name, patch, expected):
    before = json.loads(json.dumps(DOC))
    assert apply_json_patch(DOC, patch) == expected
    assert DOC == before  # the input is not changed


JSON_PATCH_FAILURES = [
    ("test fails", [{"op": "test", "path": "/a/c", "value": "y"}], "testing value /a/c failed: test failed"),
    ("1 is not 1.0", [{"op": "test", "path": "/k~0~1", "value": 1.0}], "testing value /k~0~1 failed: test failed"),
    ("true is not 1", [{"op": "test", "path": "/k~0~1", "value": True}], "testing value /k~0~1 failed: test failed"),
    ("add at the root", [{"op": "add", "path": "", "value": {}}], 'add operation does not apply: doc is missing path: "": missing value'),
    ("add below a missing key", [{"op": "add", "path": "/x/y", "value": 1}], 'add operation does not apply: doc is missing path: "/x/y": missing value'),
    ("add past the end", [{"op": "add", "path": "/a/b/5", "value": 1}], "error in add for path: '/a/b/5': Unable to access invalid index: 5: invalid index referenced"),
    (
        "add at a non-index",
        [{"op": "add", "path": "/a/b/x", "value": 1}],
        "error in add for path: '/a/b/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
    ),
    ("remove a missing key", [{"op": "remove", "path": "/zz"}], "error in remove for path: '/zz': Unable to remove nonexistent key: zz: missing value"),
    ("replace a missing item", [{"op": "replace", "path": "/a/b/7", "value": 1}], "replace operation does not apply: doc is missing key: /a/b/7: missing value"),
    ("replace the root with a scalar", [{"op": "replace", "path": "", "value": 1}], "replace operation value must be object or array: %!w(<nil>)"),
    ("unknown op", [{"op": "frob", "path": "/a"}], "Unexpected kind: frob"),
    ("missing op", [{"path": "/a"}], "Unexpected kind: unknown"),
    ("remove without a path", [{"op": "remove"}], "remove operation failed to decode path: missing value"),
]


@pytest.mark.parametrize("name,patch,detail", JSON_PATCH_FAILURES, ids=[c[0] for c in JSON_PATCH_FAILURES])
def test_json_patch_failures_are_422_with_the_generic_message(name, patch, detail):
    with pytest.raises(PatchError) as err:
        apply_json_patch(DOC, patch)
    assert (err.value.code, err.value.reason) == (422, "Invalid")
    assert err.value.message == "the server rejected our request due to an error in our request"
    assert err.value.detail == detail
    assert isinstance(err.value, APIError)


def test_json_patch_that_does_not_decode_is_400():
    for body, message in [
        (b"{not json", "invalid JSON patch"),
        (b'{"op": "add"}', "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        (b'["add"]', "json: cannot unmarshal string into Go value of type jsonpatch.Operation"),
    ]:
        with pytest.raises(PatchError) as err:
            apply_json_patch(DOC, body)
        assert (err.value.code, err.value.reason, err.value.message) == (400, "BadRequest", message)


def test_json_patch_limits():
    with pytest.raises(PatchError) as err:
        apply_json_patch({}, [{"op": "test", "path": "/a"}] * 10001)
    assert (err.value.code, err.value.reason) == (413, "RequestEntityTooLarge")
    assert err.value.message == "The allowed maximum operations in a JSON patch is 10000, got 10001"
    big = {"a": "x" * 100}
    with pytest.raises(PatchError) as err:
        apply_json_patch(big, [{"op": "copy", "from": "/a", "path": f"/b{i}"} for i in range(3)], copy_limit=250)
    assert err.value.detail == "Unable to complete the copy, the accumulated size increase of copy is 306, exceeding the limit 250"


def test_json_patch_operations_apply_in_order_on_the_result_of_the_previous():
    patch = b'[{"op":"add","path":"/l","value":[]},{"op":"add","path":"/l/-","value":1},{"op":"move","from":"/l","path":"/m"}]'
    assert apply_json_patch({}, patch) == {"m": [1]}


# JSON merge patch (RFC 7386, evanphx/json-patch's MergePatch).

MERGE_PATCH_CASES = [
    ("set a key", {"a": 1}, {"b": 2}, {"a": 1, "b": 2}),
    ("null deletes", {"a": 1, "b": 2}, {"a": None}, {"b": 2}),
    ("null of a missing key", {"a": 1}, {"z": None}, {"a": 1}),
    ("objects merge", {"a": {"x": 1, "y": 2}}, {"a": {"y": None, "z": 3}}, {"a": {"x": 1, "z": 3}}),
    ("lists are replaced", {"a": [1, 2]}, {"a": [3]}, {"a": [3]}),
    ("a new object loses its nulls", {}, {"a": {"x": None, "y": {"z": None}}}, {"a": {"y": {}}}),
    ("an object over a scalar", {"a": 1}, {"a": {"x": None, "y": 1}}, {"a": {"y": 1}}),
    ("nulls inside objects of a new list go", {}, {"a": [{"x": None}, None]}, {"a": [{}, None]}),
    ("a scalar over an object", {"a": {"x": 1}}, {"a": "s"}, {"a": "s"}),
    ("an empty patch", {"a": 1}, {}, {"a": 1}),
]


@pytest.mark.parametrize("name,doc,patch,expected", MERGE_PATCH_CASES, ids=[c[0] for c in MERGE_PATCH_CASES])
def test_merge_patch(name, doc, patch, expected):
    assert apply_merge_patch(doc, json.dumps(patch)) == expected


def test_merge_patch_that_is_null_or_a_scalar_is_400():
    for body in (b"null", b"1", b'"x"'):
        with pytest.raises(PatchError) as err:
            apply_merge_patch({"a": 1}, body)
        assert (err.value.code, err.value.message) == (400, "Invalid JSON Patch")
    with pytest.raises(PatchError) as err:
        apply_merge_patch({}, b"{")
    assert (err.value.code, err.value.message) == (400, "invalid JSON patch")


def test_merge_patch_that_is_an_array_replaces_the_document():
    assert apply_merge_patch({"a": 1}, [{"x": None}]) == [{}]


# Strategic merge patch: upstream's MergeItem test type, as an OpenAPI v3 document.

_ITEM = "#/components/schemas/mergeItem"
MERGE_ITEM = Schema.from_openapi_v3(
    {
        "components": {
            "schemas": {
                "mergeItem": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "value": {"type": "string"},
                        "other": {"type": "string"},
                        "mergingList": {
                            "type": "array",
                            "items": {"allOf": [{"$ref": _ITEM}]},
                            "x-kubernetes-patch-merge-key": "name",
                            "x-kubernetes-patch-strategy": "merge",
                        },
                        "nonMergingList": {"type": "array", "items": {"$ref": _ITEM}},
                        "mergingIntList": {"type": "array", "items": {"type": "integer"}, "x-kubernetes-patch-strategy": "merge"},
                        "nonMergingIntList": {"type": "array", "items": {"type": "integer"}},
                        "mergeItemPtr": {
                            "allOf": [{"$ref": _ITEM}],
                            "x-kubernetes-patch-merge-key": "name",
                            "x-kubernetes-patch-strategy": "merge",
                        },
                        "simpleMap": {"type": "object", "additionalProperties": {"type": "string"}},
                        "replacingItem": {
                            "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension"}],
                            "x-kubernetes-patch-strategy": "replace",
                        },
                        "retainKeysMap": {
                            "allOf": [{"$ref": "#/components/schemas/retainKeysMergeItem"}],
                            "x-kubernetes-patch-strategy": "retainKeys",
                        },
                        "retainKeysMergingList": {
                            "type": "array",
                            "items": {"$ref": _ITEM},
                            "x-kubernetes-patch-merge-key": "name",
                            "x-kubernetes-patch-strategy": "merge,retainKeys",
                        },
                    },
                },
                "retainKeysMergeItem": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "value": {"type": "string"},
                        "other": {"type": "string"},
                        "mergingIntList": {"type": "array", "items": {"type": "integer"}, "x-kubernetes-patch-strategy": "merge"},
                    },
                },
                "io.k8s.apimachinery.pkg.runtime.RawExtension": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            }
        }
    }
).type("mergeItem")


def _yaml(text: str):
    return yaml.safe_load(text) or {}


SMP_CASES = [
    ("unique scalars when merging lists", "mergingIntList: [1, 2]", "mergingIntList: [2, 3]", "mergingIntList: [1, 2, 3]"),
    ("delete map from nested map", "simpleMap: {key1: '1', key2: '1'}", "simpleMap: {$patch: delete}", "simpleMap: {}"),
    ("delete all items from merging list", "mergingList: [{name: '1'}, {name: '2'}]", "mergingList: [{$patch: replace}]", "mergingList: []"),
    ("merge empty merging lists", "mergingList: []", "mergingList: []", "mergingList: []"),
    ("delete all keys from map", "{name: '1', value: '1'}", "{$patch: replace}", "{}"),
    ("add key and delete all keys from map", "{name: '1', value: '1'}", "{other: a, $patch: replace}", "{other: a}"),
    (
        "delete all duplicate entries in a merging list",
        "mergingList: [{name: '1'}, {name: '1'}, {name: '2', value: a}, {name: '3'}, {name: '3'}]",
        "mergingList: [{name: '1', $patch: delete}, {name: '3', $patch: delete}]",
        "mergingList: [{name: '2', value: a}]",
    ),
    (
        "preserve the order from the patch in a merging list",
        "mergingList: [{name: '1'}, {name: '2', value: b}, {name: '3'}]",
        "mergingList: [{name: '3', value: c}, {name: '1', value: a}, {name: '2', other: x}]",
        "mergingList: [{name: '3', value: c}, {name: '1', value: a}, {name: '2', value: b, other: x}]",
    ),
    (
        "server-only items keep their place",
        "mergingList: [{name: '1'}, {name: '2', value: b}, {name: '3'}]",
        "mergingList: [{name: '3', value: c}, {name: '1', value: a}]",
        "mergingList: [{name: '2', value: b}, {name: '3', value: c}, {name: '1', value: a}]",
    ),
    ("preserve the order of a merging int list", "mergingIntList: [1, 2, 3]", "mergingIntList: [3, 1]", "mergingIntList: [2, 3, 1]"),
    ("non-merging lists are replaced", "nonMergingList: [{name: '1'}, {name: '2'}]", "nonMergingList: [{name: '3'}]", "nonMergingList: [{name: '3'}]"),
    ("null deletes a key", "{name: '1', value: '1'}", "{value: null}", "{name: '1'}"),
    ("nested maps merge", "mergeItemPtr: {name: a, value: b}", "mergeItemPtr: {other: c}", "mergeItemPtr: {name: a, value: b, other: c}"),
    ("replace strategy replaces a map", "replacingItem: {a: 1, b: 2}", "replacingItem: {c: 3}", "replacingItem: {c: 3}"),
    ("nulls of a new key are dropped", "{}", "mergeItemPtr: {name: a, value: null}", "mergeItemPtr: {name: a}"),
    ("$deleteFromPrimitiveList", "mergingIntList: [1, 2, 3]", "$deleteFromPrimitiveList/mergingIntList: [2]", "mergingIntList: [1, 3]"),
    ("$deleteFromPrimitiveList of a missing item", "mergingIntList: [1, 2]", "$deleteFromPrimitiveList/mergingIntList: [3]", "mergingIntList: [1, 2]"),
    ("$deleteFromPrimitiveList of a missing list", "foo: [bar]", "$deleteFromPrimitiveList/mergingIntList: [3]", "foo: [bar]"),
    ("$deleteFromPrimitiveList of a null list", "mergingIntList: null", "$deleteFromPrimitiveList/mergingIntList: [3]", "mergingIntList: null"),
    (
        "$deleteFromPrimitiveList of a non-merging list",
        "nonMergingIntList: [1, 2, 3]",
        "$deleteFromPrimitiveList/nonMergingIntList: [2]",
        "nonMergingIntList: [1, 3]",
    ),
    (
        "$setElementOrder with items not in the list",
        "mergingList: [{name: '1'}, {name: '3'}]",
        "{$setElementOrder/mergingList: [{name: '3'}, {name: '2'}, {name: '1'}], mergingList: [{name: '3', value: '3'}, {name: '1', value: '1'}]}",
        "mergingList: [{name: '3', value: '3'}, {name: '1', value: '1'}]",
    ),
    ("$setElementOrder of an int list", "mergingIntList: [1, 3]", "$setElementOrder/mergingIntList: [3, 2, 1]", "mergingIntList: [3, 1]"),
    (
        "$setElementOrder with deletions",
        "mergingIntList: [1, 2, 3]",
        "{$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}",
        "mergingIntList: [1, 2]",
    ),
    ("$retainKeys clears the keys it does not list", "retainKeysMap: {value: foo}", "retainKeysMap: {$retainKeys: [other], other: bar}", "retainKeysMap: {other: bar}"),
    (
        "$retainKeys keeps the keys it lists",
        "retainKeysMap: {name: foo, other: a}",
        "retainKeysMap: {$retainKeys: [name, value], value: bar}",
        "retainKeysMap: {name: foo, value: bar}",
    ),
    ("retainKeys map merges without the directive", "retainKeysMap: {name: foo}", "retainKeysMap: {value: bar}", "retainKeysMap: {name: foo, value: bar}"),
    (
        "merge,retainKeys lists merge by key",
        "retainKeysMergingList: [{name: bar}, {name: foo, value: a}]",
        "retainKeysMergingList: [{name: foo, value: b}]",
        "retainKeysMergingList: [{name: bar}, {name: foo, value: b}]",
    ),
]


@pytest.mark.parametrize("name,original,patch,expected", SMP_CASES, ids=[c[0] for c in SMP_CASES])
def test_strategic_merge_patch(name, original, patch, expected):
    doc = _yaml(original)
    before = json.loads(json.dumps(doc))
    assert apply_strategic_merge_patch(doc, json.dumps(_yaml(patch)), MERGE_ITEM) == _yaml(expected)
    assert doc == before


SMP_ERRORS = [
    ("missing merge key", "mergingList: [{name: '1', value: a}]", "mergingList: [{value: b}]", 500, "map: map[value:b] does not contain declared merge key: name"),
    (
        "order that does not match $setElementOrder",
        "mergingIntList: [1, 3, 2]",
        "{$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3, 1]}",
        500,
        "The order in patch list:\n[3 1]\n doesn't match $setElementOrder list:\n[1 2 3]\n",
    ),
    ("retainKeys not a list", "retainKeysMap: {name: a}", "retainKeysMap: {$retainKeys: x}", 400, "invalid patch format of retainKeys"),
    ("key missing from $retainKeys", "retainKeysMap: {name: a}", "retainKeysMap: {$retainKeys: [name], value: b}", 400, "invalid patch format of retainKeys"),
    ("$patch merge in a list", "mergingList: [{name: a}]", "mergingList: [{$patch: merge}]", 500, "merging lists cannot yet be specified in the patch"),
    ("lists of lists", "mergingIntList: [[1]]", "mergingIntList: [[2]]", 422, "lists of lists are not supported"),
    ("unknown directive", "mergeItemPtr: {name: a}", "mergeItemPtr: {$patch: frob}", 500, "unknown patch type: frob in map: map[$patch:frob]"),
]


@pytest.mark.parametrize("name,original,patch,code,detail", SMP_ERRORS, ids=[c[0] for c in SMP_ERRORS])
def test_strategic_merge_patch_errors(name, original, patch, code, detail):
    with pytest.raises(PatchError) as err:
        apply_strategic_merge_patch(_yaml(original), _yaml(patch), MERGE_ITEM)
    assert err.value.code == code
    assert err.value.detail == detail
    if code == 400:
        assert (err.value.reason, err.value.message) == ("BadRequest", detail)
    if code == 422:
        assert err.value.message == "the server rejected our request due to an error in our request"


def test_strategic_merge_patch_of_a_custom_resource_is_415():
    with pytest.raises(PatchError) as err:
        apply_strategic_merge_patch({}, {}, None, custom_resource=True)
    assert (err.value.code, err.value.reason) == (415, "UnsupportedMediaType")
    assert err.value.message == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    )
    assert CUSTOM_RESOURCE_PATCH_TYPES == (
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/apply-patch+yaml",
    )


def test_strategic_merge_patch_that_is_not_an_object_is_400():
    with pytest.raises(PatchError) as err:
        apply_strategic_merge_patch({}, b"[]", MERGE_ITEM)
    assert err.value.code == 400
    assert err.value.message == "json: cannot unmarshal array into Go value of type map[string]interface {}"


def test_strategic_merge_patch_on_the_example_api():
    with open("generated/openapi/v3/apis/example.kgen.dev/v1.json") as f:
        frobber = Schema.from_openapi_v3(json.load(f)).for_kind("example.kgen.dev", "v1", "Frobber")
    live = {
        "metadata": {"name": "f", "finalizers": ["a"], "labels": {"x": "1"}},
        "spec": {"ports": [{"name": "http", "port": 80}, {"name": "grpc", "port": 90}], "params": ["p"]},
        "status": {"conditions": [{"type": "Ready", "status": "False"}]},
    }
    patch = {
        "metadata": {"finalizers": ["b"], "labels": {"x": None, "y": "2"}},
        "spec": {"ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9}], "params": ["q"]},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    # Items the live list does not have go before the server-only items (upstream's order).
    assert apply_strategic_merge_patch(live, patch, frobber) == {
        "metadata": {"name": "f", "finalizers": ["b", "a"], "labels": {"y": "2"}},
        "spec": {
            "ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9}, {"name": "grpc", "port": 90}],
            "params": ["q"],
        },
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
