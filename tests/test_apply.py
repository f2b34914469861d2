"""Server-side apply and managedFields, as the API server and structured-merge-diff do them.

Expected values restate facts of sigs.k8s.io/structured-merge-diff's merge tests and of
the API server's field manager (k8s.io/apimachinery/pkg/util/managedfields/internal):
conflict messages, FieldsV1 encoding, manager identities, timestamps, stripped fields.
"""

from __future__ import annotations

import datetime
import json
import time

import pytest
import yaml

from kgen.runtime.patch import FieldManager, FieldSet, Schema, manager_or_user_agent
from kgen.runtime.patch.fieldpath import field, index, key, path_string, value
from kgen.runtime.patch.schema import _builtin_definitions
from kgen.runtime.patch.updater import Conflicts, SameTypeConverter, Typed, Updater
from kgen.runtime.scheme import APIError

META = {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}

# A Deployment-like kind: every list and map type apply tells apart.
DEPLOYMENT = Schema.from_openapi_v3(
    {
        "components": {
            "schemas": {
                "Deployment": {
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": META,
                        "spec": {"allOf": [{"$ref": "#/components/schemas/Spec"}]},
                        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                    },
                },
                "Spec": {
                    "type": "object",
                    "properties": {
                        "replicas": {"type": "integer"},
                        "paused": {"type": "boolean"},
                        "args": {"type": "array", "items": {"type": "string"}},
                        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                        "selector": {
                            "type": "object",
                            "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}},
                            "x-kubernetes-map-type": "atomic",
                        },
                        "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
                        "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                        "template": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "containers": {
                                            "type": "array",
                                            "items": {"$ref": "#/components/schemas/Container"},
                                            "x-kubernetes-list-type": "map",
                                            "x-kubernetes-list-map-keys": ["name"],
                                        },
                                    },
                                }
                            },
                        },
                    },
                },
                "Container": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "image": {"type": "string"},
                        "ports": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "containerPort": {"type": "integer"},
                                    "protocol": {"type": "string", "default": "TCP"},
                                },
                            },
                            "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                        },
                    },
                },
                **_builtin_definitions(),
            }
        }
    }
).type("Deployment")

NOW = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime.datetime:
        return self.now

    def tick(self) -> None:
        self.now += datetime.timedelta(seconds=1)


def manager(clock: Clock | None = None, **kw) -> FieldManager:
    return FieldManager(DEPLOYMENT, "apps/v1", "Deployment", clock=clock or Clock(), **kw)


def deployment(spec: str = "", metadata: str = "{name: nginx}") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": yaml.safe_load(metadata),
        **({"spec": yaml.safe_load(spec)} if spec else {}),
    }


def owned(obj: dict) -> dict:
    """manager name (with operation) -> fieldsV1, of an object's managedFields."""
    return {f"{e['manager']}/{e['operation']}": e["fieldsV1"] for e in obj["metadata"].get("managedFields", [])}


def stored(obj: dict, uid: str = "u1") -> dict:
    """The object as the store keeps it: with a uid."""
    obj = json.loads(json.dumps(obj))
    obj["metadata"]["uid"] = uid
    return obj


# The FieldsV1 encoding.


def test_fields_v1_of_an_applied_deployment_is_the_api_servers():
    obj = manager().apply(
        None, deployment("{replicas: 3, template: {spec: {containers: [{name: nginx, image: 'nginx:1'}]}}}"), "kubectl"
    )
    assert obj["metadata"]["managedFields"] == [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": "apps/v1",
            "time": "2024-05-06T07:08:09Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:spec": {
                    "f:replicas": {},
                    "f:template": {"f:spec": {"f:containers": {'k:{"name":"nginx"}': {".": {}, "f:image": {}, "f:name": {}}}}},
                }
            },
        }
    ]
    assert json.dumps(obj["metadata"]["managedFields"][0]["fieldsV1"], separators=(",", ":")) == (
        '{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":'
        '{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}}}'
    )


FIELDS_V1_CASES = [
    ("fields", [(field("a"),), (field("b"), field("c"))], {"f:a": {}, "f:b": {"f:c": {}}}),
    ("member with children", [(field("a"),), (field("a"), field("b"))], {"f:a": {".": {}, "f:b": {}}}),
    ("keys sorted by name", [(field("l"), key({"protocol": "TCP", "containerPort": 80}))], {"f:l": {'k:{"containerPort":80,"protocol":"TCP"}': {}}}),
    ("set values", [(field("s"), value("b")), (field("s"), value(1)), (field("s"), value(True))], {"f:s": {"v:1": {}, 'v:"b"': {}, "v:true": {}}}),
    ("Go's HTML escapes in values", [(field("s"), value("<a&b>"))], {"f:s": {'v:"\\u003ca\\u0026b\\u003e"': {}}}),
    ("indexes", [(field("l"), index(2))], {"f:l": {"i:2": {}}}),
    ("element kinds in SMD order", [(field("x"), index(0)), (field("x"), value(1)), (field("x"), key({"k": 1})), (field("x"), field("f"))],
     {"f:x": {"f:f": {}, 'k:{"k":1}': {}, "v:1": {}, "i:0": {}}}),
]


@pytest.mark.parametrize("name,paths,fields", FIELDS_V1_CASES, ids=[c[0] for c in FIELDS_V1_CASES])
def test_fields_v1_encoding(name, paths, fields):
    encoded = FieldSet.of(*paths).to_fields_v1()
    assert encoded == fields
    assert list(json.dumps(encoded)) == list(json.dumps(fields))  # key order too
    assert FieldSet.from_fields_v1(encoded) == FieldSet.of(*paths)


def test_path_strings_are_smds():
    assert path_string((field("spec"), field("containers"), key({"name": "nginx"}), field("image"))) == '.spec.containers[name="nginx"].image'
    assert path_string((field("s"), value(1.5), field("x"))) == ".s[=1.5].x"
    assert path_string((field("p"), key({"containerPort": 80, "protocol": "TCP"}))) == '.p[containerPort=80,protocol="TCP"]'
    assert path_string((field("l"), index(3))) == ".l[3]"


def test_unknown_fields_v1_element_kinds_are_dropped():
    assert FieldSet.from_fields_v1({"f:a": {}, "x:b": {}}) == FieldSet.of((field("a"),))


# Apply.


def test_apply_creates_the_object():
    config = deployment("{replicas: 3, paused: false}", "{name: nginx, labels: {app: web}}")
    obj = manager().apply(None, config, "kubectl")
    assert obj["spec"] == {"replicas": 3, "paused": False}
    assert obj["metadata"]["labels"] == {"app": "web"}
    # name, apiVersion and kind are nobody's.
    # A non-empty applied map is not itself owned (no "."), unlike in an Update entry.
    assert owned(obj) == {"kubectl/Apply": {"f:metadata": {"f:labels": {"f:app": {}}}, "f:spec": {"f:paused": {}, "f:replicas": {}}}}


def test_appliers_share_a_field_they_set_to_the_same_value():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3}"), "a"))
    obj = fm.apply(obj, deployment("{replicas: 3}"), "b")
    assert owned(obj) == {"a/Apply": {"f:spec": {"f:replicas": {}}}, "b/Apply": {"f:spec": {"f:replicas": {}}}}


def test_conflict_with_another_applier():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3}"), "a"))
    with pytest.raises(APIError) as err:
        fm.apply(obj, deployment("{replicas: 4}"), "b")
    status = err.value.to_status()
    assert (status.code, status.reason, status.status) == (409, "Conflict", "Failure")
    assert status.message == 'Apply failed with 1 conflict: conflict with "a": .spec.replicas'
    assert [(c.reason, c.message, c.field) for c in status.details.causes] == [("FieldManagerConflict", 'conflict with "a"', ".spec.replicas")]


def test_conflicts_with_several_fields_and_managers():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3, paused: true}"), "a"))
    new = json.loads(json.dumps(obj))
    new["spec"]["args"] = ["x"]
    obj = fm.update(obj, new, "ctl")
    with pytest.raises(APIError) as err:
        fm.apply(obj, deployment("{replicas: 4, paused: false, args: [y]}"), "b")
    assert err.value.message == (
        'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.paused\n- .spec.replicas\n'
        'conflicts with "ctl" using apps/v1:\n- .spec.args'
    )
    assert [c.field for c in err.value.causes] == [".spec.paused", ".spec.replicas", ".spec.args"]


def test_force_takes_ownership():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3, paused: true}"), "a"))
    obj = fm.apply(obj, deployment("{replicas: 4}"), "b", force=True)
    assert obj["spec"] == {"replicas": 4, "paused": True}
    assert owned(obj) == {"a/Apply": {"f:spec": {"f:paused": {}}}, "b/Apply": {"f:spec": {"f:replicas": {}}}}


def test_update_after_apply_takes_the_field_and_apply_conflicts_with_it():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3, paused: true}"), "kubectl"))
    new = json.loads(json.dumps(obj))
    new["spec"]["replicas"] = 5
    obj = fm.update(obj, new, "kube-controller-manager")
    assert owned(obj) == {
        "kubectl/Apply": {"f:spec": {"f:paused": {}}},
        "kube-controller-manager/Update": {"f:spec": {"f:replicas": {}}},
    }
    with pytest.raises(APIError) as err:
        fm.apply(obj, deployment("{replicas: 3, paused: true}"), "kubectl-2")
    assert err.value.message == 'Apply failed with 1 conflict: conflict with "kube-controller-manager" using apps/v1: .spec.replicas'


def test_a_field_no_longer_applied_is_removed():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3, paused: true, nodeSelector: {a: x, b: y}}"), "a"))
    obj = fm.apply(obj, deployment("{replicas: 3, nodeSelector: {a: x}}"), "a")
    assert obj["spec"] == {"replicas": 3, "nodeSelector": {"a": "x"}}
    assert owned(obj) == {"a/Apply": {"f:spec": {"f:nodeSelector": {"f:a": {}}, "f:replicas": {}}}}


def test_a_field_no_longer_applied_stays_when_another_manager_owns_it():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3, paused: true}"), "a"))
    obj = fm.apply(obj, deployment("{paused: true}"), "b")
    obj = fm.apply(obj, deployment("{replicas: 3}"), "a")
    assert obj["spec"] == {"replicas": 3, "paused": True}
    assert owned(obj) == {"a/Apply": {"f:spec": {"f:replicas": {}}}, "b/Apply": {"f:spec": {"f:paused": {}}}}


LIST_AND_MAP_CASES = [
    # (first applier's spec, second applier's spec, resulting spec)
    ("atomic lists are replaced whole", "{args: [a, b]}", "{args: [c]}", None),
    ("set lists are the union of appliers' items", "{tags: [a, b]}", "{tags: [b, c]}", {"tags": ["a", "b", "c"]}),
    (
        "map lists merge by key",
        "{template: {spec: {containers: [{name: a, image: x}]}}}",
        "{template: {spec: {containers: [{name: b, image: y}]}}}",
        {"template": {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}},
    ),
    ("granular maps merge by key", "{nodeSelector: {a: x}}", "{nodeSelector: {b: y}}", {"nodeSelector": {"a": "x", "b": "y"}}),
    ("atomic maps are replaced whole", "{selector: {matchLabels: {a: x}}}", "{selector: {matchLabels: {b: y}}}", None),
    ("preserve-unknown-fields objects merge by key", "{config: {a: {b: 1}}}", "{config: {a: {c: 2}}}", {"config": {"a": {"b": 1, "c": 2}}}),
]


@pytest.mark.parametrize("name,first,second,merged", LIST_AND_MAP_CASES, ids=[c[0] for c in LIST_AND_MAP_CASES])
def test_list_and_map_types(name, first, second, merged):
    fm = manager()
    obj = stored(fm.apply(None, deployment(first), "a"))
    if merged is None:  # atomic: the second applier conflicts, and takes it all with force
        with pytest.raises(APIError) as err:
            fm.apply(obj, deployment(second), "b")
        assert err.value.code == 409
        obj = fm.apply(obj, deployment(second), "b", force=True)
        assert obj["spec"] == yaml.safe_load(second)
        assert list(owned(obj)) == ["b/Apply"]
    else:
        obj = fm.apply(obj, deployment(second), "b")
        assert obj["spec"] == merged


def test_set_and_map_list_items_owned_per_item():
    fm = manager()
    obj = fm.apply(None, deployment("{tags: [a], template: {spec: {containers: [{name: c, ports: [{containerPort: 80}]}]}}}"), "a")
    assert owned(obj)["a/Apply"] == {
        "f:spec": {
            "f:tags": {'v:"a"': {}},
            "f:template": {
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"c"}': {
                            ".": {},
                            "f:name": {},
                            # The defaulted key field protocol is part of the key.
                            "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}},
                        }
                    }
                }
            },
        }
    }


def test_removing_an_applied_list_item():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{tags: [a, b], template: {spec: {containers: [{name: x}, {name: y}]}}}"), "a"))
    obj = fm.apply(obj, deployment("{tags: [b], template: {spec: {containers: [{name: y}]}}}"), "a")
    assert obj["spec"] == {"tags": ["b"], "template": {"spec": {"containers": [{"name": "y"}]}}}


def test_no_op_apply_keeps_the_time():
    clock = Clock()
    fm = manager(clock)
    obj = stored(fm.apply(None, deployment("{replicas: 3}"), "a"))
    clock.tick()
    again = fm.apply(obj, deployment("{replicas: 3}"), "a")
    assert again["metadata"]["managedFields"][0]["time"] == "2024-05-06T07:08:09Z"
    clock.tick()
    changed = fm.apply(obj, deployment("{replicas: 4}"), "a")
    assert changed["metadata"]["managedFields"][0]["time"] == "2024-05-06T07:08:11Z"


def test_apply_errors():
    fm = manager()
    cases = [
        ({"apiVersion": "apps/v1", "kind": "Pod"}, 400, "BadRequest", "invalid object type: apps/v1, Kind=Pod"),
        ({"kind": "Deployment"}, 400, "BadRequest", "invalid object type: /, Kind=Deployment"),
        ({**deployment(), "metadata": {"name": "x", "managedFields": []}}, 400, "BadRequest", "metadata.managedFields must be nil"),
        (
            deployment("{replicas: 1, bogus: 2}"),
            500,
            "",
            "failed to create typed patch object (/nginx; apps/v1, Kind=Deployment): .spec.bogus: field not declared in schema",
        ),
        (
            deployment("{tags: [a, a]}"),
            500,
            "",
            'failed to create typed patch object (/nginx; apps/v1, Kind=Deployment): .spec.tags: duplicate entries for key [="a"]',
        ),
        (
            deployment("{replicas: x}"),
            500,
            "",
            "failed to create typed patch object (/nginx; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string",
        ),
    ]
    for config, code, reason, message in cases:
        with pytest.raises(APIError) as err:
            fm.apply(None, config, "a")
        assert (err.value.code, err.value.reason, err.value.message) == (code, reason, message)


def test_kubectl_takes_over_fields_of_its_client_side_apply():
    fm = manager()
    last = json.dumps(deployment("{replicas: 3}"))
    created = deployment("{replicas: 3, paused: true}", json.dumps({"name": "nginx", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": last}}))
    obj = stored(fm.update(None, created, "kubectl-client-side-apply"))
    # replicas is in the last-applied configuration: kubectl takes it without a conflict ...
    obj2 = fm.apply(obj, deployment("{replicas: 4}"), "kubectl")
    assert obj2["spec"]["replicas"] == 4
    annotation = obj2["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert annotation == '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx"},"spec":{"replicas":4}}\n'
    # ... but paused is not, and another manager would conflict on both.
    with pytest.raises(APIError) as err:
        fm.apply(obj, deployment("{replicas: 4, paused: false}"), "kubectl")
    assert [c.field for c in err.value.causes] == [".spec.paused"]


# Updates.


def test_create_records_an_update_manager_as_for_a_custom_resource():
    obj = manager().update(None, deployment("{replicas: 1, template: {spec: {containers: [{name: a}]}}}", "{name: x, labels: {app: a}}"), "kubectl-create")
    assert obj["metadata"]["managedFields"] == [
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "time": "2024-05-06T07:08:09Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {
                    ".": {},
                    "f:replicas": {},
                    "f:template": {".": {}, "f:spec": {".": {}, "f:containers": {".": {}, 'k:{"name":"a"}': {".": {}, "f:name": {}}}}},
                },
            },
        }
    ]


def test_an_update_owns_what_it_changed_and_removed_fields_leave_every_manager():
    clock = Clock()
    fm = manager(clock)
    obj = stored(fm.apply(None, deployment("{replicas: 3, paused: true}"), "a"))
    clock.tick()
    new = json.loads(json.dumps(obj))
    del new["spec"]["paused"]
    new["spec"]["args"] = ["x"]
    obj = fm.update(obj, new, "b")
    assert obj["metadata"]["managedFields"] == [
        {"manager": "a", "operation": "Apply", "apiVersion": "apps/v1", "time": "2024-05-06T07:08:09Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        {"manager": "b", "operation": "Update", "apiVersion": "apps/v1", "time": "2024-05-06T07:08:10Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:args": {}}}},
    ]


def test_an_update_that_changes_nothing_keeps_the_managers_and_times():
    clock = Clock()
    fm = manager(clock)
    obj = stored(fm.update(None, deployment("{replicas: 1}"), "a"))
    clock.tick()
    again = fm.update(obj, json.loads(json.dumps(obj)), "b")
    assert again["metadata"]["managedFields"] == obj["metadata"]["managedFields"]


def test_updates_of_an_untracked_object_are_not_tracked_until_the_first_apply():
    fm = manager()
    obj = stored({**deployment("{replicas: 1, paused: true}")})
    new = json.loads(json.dumps(obj))
    new["spec"]["replicas"] = 2
    updated = fm.update(obj, new, "ctl")
    assert "managedFields" not in updated["metadata"]
    applied = fm.apply(updated, deployment("{replicas: 2}"), "a")
    assert owned(applied) == {
        "a/Apply": {"f:spec": {"f:replicas": {}}},
        "before-first-apply/Update": {"f:spec": {".": {}, "f:paused": {}, "f:replicas": {}}},
    }


def test_an_empty_managed_fields_list_resets_them():
    fm = manager()
    obj = stored(fm.apply(None, deployment("{replicas: 3}"), "a"))
    new = json.loads(json.dumps(obj))
    new["metadata"]["managedFields"] = []
    assert "managedFields" not in fm.update(obj, new, "b")["metadata"]


def test_update_managers_are_capped():
    clock = Clock()
    fm = manager(clock, max_update_managers=2)
    obj = stored(fm.update(None, deployment("{replicas: 1}"), "m0"))
    for i, name in enumerate(["m1", "m2", "m3"]):
        clock.tick()
        new = json.loads(json.dumps(obj))
        new["spec"]["args"] = [str(i)] if name == "m1" else new["spec"].get("args")
        new["spec"][{"m1": "args", "m2": "paused", "m3": "tags"}[name]] = {"m1": [str(i)], "m2": True, "m3": ["t"]}[name]
        obj = fm.update(obj, new, name)
    names = [e["manager"] for e in obj["metadata"]["managedFields"]]
    assert names == ["ancient-changes", "m3"]
    assert obj["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"].keys() >= {"f:replicas", "f:args", "f:paused"}


def test_status_subresource_owns_only_status():
    main = manager(reset_fields=[("status",)])
    status = manager(subresource="status", reset_fields=[("spec",)])
    obj = stored(main.apply(None, {**deployment("{replicas: 1}"), "status": {"replicas": 9}}, "a"))
    assert owned(obj) == {"a/Apply": {"f:spec": {"f:replicas": {}}}}
    new = json.loads(json.dumps(obj))
    new["status"] = {"replicas": 1}
    obj = status.update(obj, new, "ctl")
    entries = obj["metadata"]["managedFields"]
    assert entries[1] == {
        "manager": "ctl",
        "operation": "Update",
        "apiVersion": "apps/v1",
        "time": "2024-05-06T07:08:09Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:replicas": {}}},
        "subresource": "status",
    }


def test_manager_or_user_agent():
    assert manager_or_user_agent("", "kubectl/v1.30.0 (linux/amd64) kubernetes/abc") == "kubectl"
    assert manager_or_user_agent("mine", "kubectl/v1.30.0") == "mine"


# structured-merge-diff's own tables (merge/set_test.go, multiple_appliers_test.go).

_SET = Schema({"t": {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}}}}).type("t")
_KEYED = Schema(
    {
        "t": {
            "type": "object",
            "properties": {
                "list": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "integer"}}},
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                }
            },
        }
    }
).type("t")


def _run(tr, ops):
    updater = Updater(SameTypeConverter(tr))
    live, managers = Typed({}, tr), {}
    for op, who, obj in ops:
        if op == "apply":
            new, managers = updater.apply(live, Typed(obj, tr), "v1", managers, who, False)
            live = new or live
        else:
            managers = updater.update(live, Typed(obj, tr), "v1", managers, who)
            live = Typed(obj, tr)
    return live.value, {m: sorted(path_string(p) for p in s.set.paths()) for m, s in managers.items()}


def test_smd_apply_update_apply_no_overlap():
    obj, managers = _run(
        _SET,
        [("apply", "default", {"list": ["a", "c"]}), ("update", "controller", {"list": ["a", "b", "c", "d"]}), ("apply", "default", {"list": ["a", "aprime", "c", "cprime"]})],
    )
    assert obj == {"list": ["a", "b", "aprime", "c", "d", "cprime"]}
    assert managers == {
        "default": ['.list[="a"]', '.list[="aprime"]', '.list[="c"]', '.list[="cprime"]'],
        "controller": ['.list[="b"]', '.list[="d"]'],
    }


def test_smd_multiple_appliers_remove_one():
    obj, managers = _run(
        _KEYED,
        [("apply", "apply-one", {"list": [{"name": "a"}, {"name": "b"}]}), ("apply", "apply-two", {"list": [{"name": "c"}]}), ("apply", "apply-one", {"list": [{"name": "a"}]})],
    )
    assert obj == {"list": [{"name": "a"}, {"name": "c"}]}
    assert managers == {
        "apply-one": ['.list[name="a"]', '.list[name="a"].name'],
        "apply-two": ['.list[name="c"]', '.list[name="c"].name'],
    }


def test_smd_change_value_conflicts():
    updater = Updater(SameTypeConverter(_KEYED))
    live, managers = updater.apply(Typed({}, _KEYED), Typed({"list": [{"name": "a", "value": 0}]}, _KEYED), "v1", {}, "apply-one", False)
    with pytest.raises(Conflicts) as err:
        updater.apply(live, Typed({"list": [{"name": "a", "value": 1}]}, _KEYED), "v1", managers, "apply-two", False)
    assert [(c.manager, path_string(c.path)) for c in err.value.conflicts] == [("apply-one", '.list[name="a"].value')]


# Schemas from kgen's generated documents.


def test_schema_of_the_example_api():
    with open("generated/openapi/v3/apis/example.kgen.dev/v1.json") as f:
        frobber = Schema.from_openapi_v3(json.load(f)).for_kind("example.kgen.dev", "v1", "Frobber")
    assert frobber.at(["spec", "ports"]).list_type == "map"
    assert frobber.at(["spec", "ports"]).list_map_keys == ("name",)
    assert frobber.field("spec").type.field("ports").patch_strategies == ("merge",)
    assert frobber.at(["spec", "params"]).list_type == "atomic"
    assert frobber.at(["spec", "selector"]).is_atomic_struct
    assert frobber.at(["spec", "resources"]).map_type == "granular"
    assert frobber.at(["metadata", "finalizers"]).list_type == "set"
    assert frobber.at(["metadata", "ownerReferences", 0]).is_atomic_struct
    assert frobber.at(["spec", "maxUnavailable"]).kind == "any"  # int-or-string
    assert frobber.at(["spec", "config"]).map_type == "atomic"  # RawExtension
    assert frobber.at(["spec", "nope"]) is None


def test_schema_of_a_crd():
    with open("generated/crds/example.kgen.dev_frobbers.yaml") as f:
        crd = next(d for d in yaml.safe_load_all(f) if d)
    frobber = Schema.from_crd(crd, "v1").root
    assert frobber.at(["spec", "ports"]).list_type == "map"
    assert frobber.at(["metadata", "labels"]).map_type == "granular"  # ObjectMeta, not `type: object`
    assert frobber.at(["metadata", "managedFields"]).list_type == "atomic"
    assert frobber.at(["spec", "config"]).child("anything").deduced  # preserve-unknown-fields
    assert frobber.at(["spec", "config", "a", "b"]).deduced
    lists = Schema.from_crd_schema({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}}}}).root
    assert lists.field("l").type.list_type == "atomic"  # a CRD list without a list type


def test_apply_to_the_example_api():
    with open("generated/openapi/v3/apis/example.kgen.dev/v1.json") as f:
        frobber = Schema.from_openapi_v3(json.load(f)).for_kind("example.kgen.dev", "v1", "Frobber")
    fm = FieldManager(frobber, "example.kgen.dev/v1", "Frobber", reset_fields=[("status",)], clock=Clock())
    config = {
        "apiVersion": "example.kgen.dev/v1",
        "kind": "Frobber",
        "metadata": {"name": "f", "namespace": "default", "labels": {"a": "b"}},
        "spec": {"replicas": 2, "ports": [{"name": "http", "port": 80}], "maxUnavailable": "25%", "config": {"x": {"y": 1}}},
    }
    obj = fm.apply(None, config, "ci")
    assert owned(obj) == {
        "ci/Apply": {
            "f:metadata": {"f:labels": {"f:a": {}}},
            "f:spec": {"f:config": {}, "f:maxUnavailable": {}, "f:ports": {'k:{"name":"http"}': {".": {}, "f:name": {}, "f:port": {}}}, "f:replicas": {}},
        }
    }


def test_apply_of_a_10kb_object_is_fast():
    containers = [{"name": f"c{i}", "image": f"registry.example/image-{i}:v1", "ports": [{"containerPort": 8000 + i}]} for i in range(110)]
    config = deployment(json.dumps({"replicas": 3, "tags": [f"t{i}" for i in range(40)], "template": {"spec": {"containers": containers}}}))
    assert len(json.dumps(config)) > 10000
    fm = manager()
    obj = stored(fm.apply(None, config, "a"))
    config["spec"]["replicas"] = 4
    start = time.perf_counter()
    fm.apply(obj, config, "a")
    assert time.perf_counter() - start < 0.5  # a generous bound for slow CI machines
