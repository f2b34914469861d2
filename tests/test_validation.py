"""Validation: field errors as the API conventions word them, generated validators for every
marker family of the example API, update rules and ratcheting, metadata, hooks, diagnostics."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated.example.v1 import validation as v1_validation
from generated.example.v1.models import Frobber, FrobberClass
from kgen.diagnostics import InputError
from kgen.runtime import validation as v
from kgen.runtime.scheme import SCHEME, APIError
from kgen.runtime.validation import formats

# -- field errors ------------------------------------------------------------------------------


def test_paths_use_the_conventions_javascript_syntax():
    path = v.Path.root("spec").child("ports").index(1).child("name")
    assert str(path) == "spec.ports[1].name"
    assert str(v.as_path(v.key(v.child(v.child(None, "metadata"), "labels"), "app.kubernetes.io/name"))) == (
        "metadata.labels[app.kubernetes.io/name]"
    )
    # A path under construction (plain tuples) may start from a Path and reads the same.
    under = v.index(v.child(v.Path.root("spec"), "ports"), 1)
    assert str(v.invalid(under, 0, "bad")) == "spec.ports[1]: Invalid value: 0: bad"
    assert v.as_path(under) == v.Path.root("spec").child("ports").index(1)


def test_rules_see_only_the_fields_they_read_and_give_the_same_verdicts():
    rule = v.Rule(rule="!has(self.b) || self.b > self.a", message_expression="'b ' + string(self.b)")
    assert rule.reads == ("b", "a")
    for value, failed in [({"a": 1, "b": 2, "c": [1]}, False), ({"a": 3, "b": 2, "c": {}}, True), ({"a": 3}, False)]:
        errors: list = []
        rule.check(value, None, None, errors)
        assert [e.body() for e in errors] == (['Invalid value: b 2'] if failed else [])
    # Rules that use the whole value get all of it.
    assert v.Rule(rule="size(self) < 3").reads is None
    assert v.Rule(rule="self.startsWith('a')", json_type="string").reads is None
    assert v.Rule(rule="self == oldSelf").old_reads is None
    errors = []
    v.Rule(rule="size(self) < 3").check({"a": 1, "b": 2, "c": 3}, None, None, errors)
    assert [e.body() for e in errors] == ['Invalid value: failed rule: size(self) < 3']


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (v.invalid(v.Path.root("spec", "replicas"), -1, "must be greater than or equal to 0"),
         "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
        (v.not_supported(v.Path.root("spec", "restartPolicy"), "Sometimes", ["Always", "Never"]),
         'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never"'),
        (v.required(v.Path.root("spec", "name")), "spec.name: Required value"),
        (v.required(v.Path.root("metadata", "name"), "name or generateName is required"),
         "metadata.name: Required value: name or generateName is required"),
        (v.forbidden(v.Path.root("spec", "turbo"), "may not be set"), "spec.turbo: Forbidden: may not be set"),
        (v.too_long(v.Path.root("spec", "data"), "x" * 70, 63, "characters"),
         "spec.data: Too long: may not be more than 63 characters"),
        (v.too_many(v.Path.root("spec", "params"), 20, 16), "spec.params: Too many: 20: must have at most 16 items"),
        (v.duplicate(v.Path.root("spec", "ports").index(2), "http"), 'spec.ports[2]: Duplicate value: "http"'),
        (v.invalid(v.Path.root("spec", "ratio"), 0.5, "must be at least 1"), "spec.ratio: Invalid value: 0.5: must be at least 1"),
        (v.invalid(v.Path.root("spec", "on"), True, "must be false"), "spec.on: Invalid value: true: must be false"),
        (v.invalid(v.Path.root("spec"), {"a": 1}, "bad"), 'spec: Invalid value: {"a":1}: bad'),
    ],
)  # fmt: skip
def test_error_messages_read_as_apimachinery_writes_them(error, text):
    assert str(error) == text


def test_an_error_list_becomes_a_422_invalid_status_with_one_cause_per_error():
    errors = [
        v.invalid(v.Path.root("spec", "replicas"), -1, "must be greater than or equal to 0"),
        v.required(v.Path.root("spec", "ports").index(0).child("name")),
    ]
    status = v.invalid_error("example.kgen.dev", "Frobber", "demo", errors).to_status()
    assert (status.code, status.reason, status.status) == (422, "Invalid", "Failure")
    assert status.message == (
        'Frobber.example.kgen.dev "demo" is invalid: [spec.replicas: Invalid value: -1: must be greater than '
        "or equal to 0, spec.ports[0].name: Required value]"
    )
    assert (status.details.group, status.details.kind, status.details.name) == ("example.kgen.dev", "Frobber", "demo")
    assert [(c.reason, c.field, c.message) for c in status.details.causes] == [
        ("FieldValueInvalid", "spec.replicas", "Invalid value: -1: must be greater than or equal to 0"),
        ("FieldValueRequired", "spec.ports[0].name", "Required value"),
    ]


# -- formats -------------------------------------------------------------------------------------


def test_dns_label_errors_are_apimachinerys():
    assert formats.is_dns1123_label("my-name") == []
    assert formats.is_dns1123_label("My_Name") == [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
        "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    ]
    assert formats.is_dns1123_label("a" * 64)[0] == "must be no more than 63 characters"


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("k8s-long-name", "example.com", "Example.com"),
        ("k8s-label-key", "app.kubernetes.io/name", "a/b/c"),
        ("k8s-prefixed-label-key", "example.com/x", "x"),
        ("k8s-label-value", "", "-x"),
        ("k8s-path-segment-name", "abc", "a/b"),
        ("k8s-ip", "10.1.2.3", "010.1.2.3"),
        ("k8s-uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
        ("k8s-resource-fully-qualified-name", "example.com/my_name", "my_name"),
        ("date-time", "2024-01-02T03:04:05Z", "yesterday"),
        ("uri", "https://example.com/x", "not a uri"),
        ("email", "a@example.com", "nope"),
        ("hostname", "example.com", "-bad-"),
        ("ipv4", "10.0.0.1", "::1"),
        ("ipv6", "::1", "10.0.0.1"),
        ("cidr", "10.0.0.0/8", "10.0.0.0"),
        ("byte", "aGVsbG8=", "not base64!"),
        ("duration", "1h30m", "forever"),
    ],
)
def test_every_format_accepts_good_and_rejects_bad_values(name, good, bad):
    assert formats.FORMATS[name](good) == []
    assert formats.FORMATS[name](bad)


# -- the example API: one table per marker family ------------------------------------------------

VALID = {
    "apiVersion": "example.kgen.dev/v1",
    "kind": "Frobber",
    "metadata": {"name": "demo", "namespace": "default", "labels": {"app.kubernetes.io/name": "demo"}},
    "spec": {
        "description": "frobs widgets",
        "priority": 5,
        "replicas": 3,
        "mode": "Gentle",
        "params": ["a", "b"],
        "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
        "selector": {"matchLabels": {"app": "demo"}},
        "source": {"type": "Git", "git": {"url": "https://example.com/repo.git", "revision": "main"}},
        "extraArgs": {"widget": ["--fast"]},
        "schedule": {
            "trigger": "Cron",
            "cron": "0 * * * *",
            "startHour": 8,
            "endHour": 18,
            "weekdays": ["Mon", "Tue"],
            "timeZone": "Europe/Paris",
            "owner": "ops@example.com",
            "window": "90m",
            "widgetLabels": {"example.com/frobbed": "yes"},
        },
    },
    "status": {"observedGeneration": 2, "readyReplicas": 1},
}


def frobber(**changes) -> Frobber:
    """The valid Frobber with dotted-path changes (`spec.replicas=-1`; None deletes)."""
    data = json.loads(json.dumps(VALID))
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        target = data
        for part in parents:
            target = target.setdefault(part, {})
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return Frobber.from_dict(data)


def errors_of(obj, old=None, gates=None) -> list[tuple[str, str, str]]:
    options = v.Options(feature_gates=gates or {})
    return [(e.type.name, e.field, e.body()) for e in v1_validation.validate_Frobber(obj, None, old, options)]


def test_the_valid_frobber_has_no_errors():
    assert errors_of(frobber()) == []


CASES = {
    # Requiredness: +required/+k8s:required (zero is missing), +optional (zero skips the rest), +k8s:forbidden.
    "required": (
        {"spec__ports": [{"name": "", "port": 0}]},
        [("REQUIRED", "spec.ports[0].name", "Required value"), ("REQUIRED", "spec.ports[0].port", "Required value")],
    ),
    "optional-unset-skips-rules": ({"spec__replicas": None, "spec__mode": None, "spec__description": None}, []),
    "forbidden-while-gate-off": ({"spec__turbo": True}, [("FORBIDDEN", "spec.turbo", "Forbidden")]),
    # Limits.
    "minimum": (
        {"spec__replicas": -1},
        [("INVALID", "spec.replicas", "Invalid value: -1: must be greater than or equal to 0")],
    ),
    "maximum-and-range": (
        {"spec__priority": 101, "spec__ports": [{"name": "http", "port": 70000}]},
        [
            ("INVALID", "spec.priority", "Invalid value: 101: must be less than or equal to 100"),
            ("INVALID", "spec.ports[0].port", "Invalid value: 70000: must be less than or equal to 65535"),
        ],
    ),
    "exclusive-minimum-and-multiple-of": (
        {"spec__schedule__endHour": 0, "spec__schedule__startHour": 0, "spec__schedule__trigger": "Interval",
         "spec__schedule__cron": None, "spec__schedule__intervalMinutes": 7},
        [
            ("INVALID", "spec.schedule.intervalMinutes", "Invalid value: 7: must be a multiple of 5"),
            ("INVALID", "spec.schedule.endHour", "Invalid value: 0: must be greater than 0"),
            ("INVALID", "spec.schedule.endHour", 'Invalid value: endHour (0) must be after startHour (0)'),
        ],
    ),
    "max-length-characters-and-bytes": (
        {"spec__description": "é" * 257, "spec__source": {"type": "Inline", "inline": {"instructions": "é" * 32769}}},
        [
            ("TOO_LONG", "spec.description", "Too long: may not be more than 256 characters"),
            ("TOO_LONG", "spec.source.inline.instructions", "Too long: may not be more than 65536 bytes"),
        ],
    ),
    "min-length-max-length-pattern": (
        {"spec__schedule__timeZone": "X"},
        [
            ("INVALID", "spec.schedule.timeZone", 'Invalid value: "X": must be at least 3 characters'),
        ],
    ),
    "pattern": (
        {"spec__schedule__cron": "* *"},
        [("INVALID", "spec.schedule.cron", "Invalid value: \"* *\": must match the regular expression '^(\\S+\\s+){4}\\S+$'")],
    ),
    "max-items-and-each-val": (
        {"spec__params": ["p"] * 16 + ["x" * 65], "spec__ports": [{"name": f"p{i}", "port": 80 + i} for i in range(9)]},
        [
            ("TOO_MANY", "spec.params", "Too many: 17: must have at most 16 items"),
            ("TOO_LONG", "spec.params[16]", "Too long: may not be more than 64 characters"),
            ("TOO_MANY", "spec.ports", "Too many: 9: must have at most 8 items"),
        ],
    ),
    "max-properties-each-key-each-val": (
        {"spec__extraArgs": {"Bad": ["a"] * 9}, "spec__schedule__widgetLabels": {f"k{i}": "-bad-" for i in range(9)}},
        [
            ("INVALID", "spec.extraArgs", 'Invalid value: "Bad": ' + formats.is_dns1123_label("Bad")[0]),
            ("TOO_MANY", "spec.extraArgs[Bad]", "Too many: 9: must have at most 8 items"),
            ("TOO_MANY", "spec.schedule.widgetLabels", "Too many: 9: must have at most 8 items"),
            *[
                ("INVALID", f"spec.schedule.widgetLabels[k{i}]", 'Invalid value: "-bad-": ' + formats.is_valid_label_value("-bad-")[0])
                for i in range(9)
            ],
        ],
    ),
    # Formats.
    "formats": (
        {"spec__ports": [{"name": "HTTP", "port": 80}], "spec__schedule__owner": "nobody", "spec__schedule__window": "1 hour",
         "spec__source": {"type": "Git", "git": {"url": "not a url"}}},
        [
            ("INVALID", "spec.ports[0].name", 'Invalid value: "HTTP": ' + formats.is_dns1123_label("HTTP")[0]),
            # OpenAPI formats fail as kube-openapi reports them to the API server
            ("TYPE_INVALID", "spec.source.git.url",
             'Invalid value: "not a url": spec.source.git.url in body must be of type uri: "not a url"'),
            ("TYPE_INVALID", "spec.schedule.owner",
             'Invalid value: "nobody": spec.schedule.owner in body must be of type email: "nobody"'),
            ("TYPE_INVALID", "spec.schedule.window",
             'Invalid value: "1 hour": spec.schedule.window in body must be of type duration: "1 hour"'),
        ],
    ),
    # Enums: +enum / +k8s:enum from constants, kubebuilder Enum on items, gated exclusion.
    "enums": (
        {"spec__mode": "Sometimes", "spec__schedule__weekdays": ["Mon", "Funday"], "spec__schedule__trigger": "Never"},
        [
            ("NOT_SUPPORTED", "spec.mode", 'Unsupported value: "Sometimes": supported values: "Gentle", "Vigorous"'),
            ("NOT_SUPPORTED", "spec.schedule.trigger", 'Unsupported value: "Never": supported values: "Cron", "Interval"'),
            ("NOT_SUPPORTED", "spec.schedule.weekdays[1]",
             'Unsupported value: "Funday": supported values: "Fri", "Mon", "Sat", "Sun", "Thu", "Tue", "Wed"'),
            ("INVALID", "spec.schedule.cron", 'Invalid value: "": may only be specified when `trigger` is "Cron"'),
        ],
    ),
    # Lists: map keys and set members are unique; +k8s:unique on an atomic list.
    "lists": (
        {"spec__ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}],
         "spec__schedule__weekdays": None, "spec__schedule__days": [1, 15, 1, 32]},
        [
            ("DUPLICATE", "spec.ports[1]", 'Duplicate value: "http"'),
            ("DUPLICATE", "spec.schedule.days[2]", "Duplicate value: 1"),
            ("INVALID", "spec.schedule.days[3]", "Invalid value: 32: must be less than or equal to 31"),
        ],
    ),
    # Unions: +union with a discriminator, +k8s:unionMember, +k8s:zeroOrOneOfMember, kubebuilder AtMostOneOf.
    "unions": (
        {"spec__source": {"type": "Git", "inline": {"instructions": "x"}, "git": {"url": "https://x", "revision": "a", "tag": "b"}},
         "spec__schedule__days": [1]},
        [
            ("INVALID", "spec.source.git", 'Invalid value: "object": at most one of the fields in [revision tag] may be set'),
            ("INVALID", "spec.source.inline", 'Invalid value: "": may only be specified when `type` is "Inline"'),
            ("INVALID", "spec.schedule", 'Invalid value: "{weekdays, days}": must specify at most one of: `weekdays`, `days`'),
        ],
    ),
    "union-member-missing": (
        {"spec__source": {"type": "Inline"}},
        [("INVALID", "spec.source.inline", 'Invalid value: "": must be specified when `type` is "Inline"')],
    ),
    # CEL: a field rule with a message, a type rule with messageExpression and fieldPath.
    "cel": (
        {"spec__schedule__timeZone": "Local", "spec__schedule__endHour": 7},
        [
            ("INVALID", "spec.schedule.timeZone", 'Invalid value: "Local": must name a zone, not Local'),
            ("INVALID", "spec.schedule.endHour", 'Invalid value: endHour (7) must be after startHour (8)'),
        ],
    ),
    # Metadata, as the API server checks it.
    "metadata": (
        {"metadata": {"name": "Bad_Name", "labels": {"a/b/c": "ok", "k": "-x-"},
                      "annotations": {"big": "x" * 262144}, "generateName": "ok-"}},
        [
            ("INVALID", "metadata.name", 'Invalid value: "Bad_Name": ' + formats.is_dns1123_subdomain("Bad_Name")[0]),
            ("REQUIRED", "metadata.namespace", "Required value"),
            ("INVALID", "metadata.labels", 'Invalid value: "a/b/c": ' + formats.is_qualified_name("a/b/c")[0]),
            ("INVALID", "metadata.labels", 'Invalid value: "-x-": ' + formats.is_valid_label_value("-x-")[0]),
            ("TOO_LONG", "metadata.annotations", "Too long: may not be more than 262144 bytes"),
        ],
    ),
    # A hand-written hook from apis/example/v1/validation.py.
    "hook": (
        {"spec__mode": "Vigorous", "spec__replicas": 11},
        [("INVALID", "spec.replicas", "Invalid value: 11: must be less than or equal to 10 when `mode` is 'Vigorous'")],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_marker_family_reports_exactly_these_errors(case):
    changes, expected = CASES[case]
    assert errors_of(frobber(**changes)) == expected


def test_a_feature_gated_enum_value_needs_its_gate_or_an_old_object_that_used_it():
    frantic = frobber(spec__mode="Frantic")
    assert errors_of(frantic) == [
        ("NOT_SUPPORTED", "spec.mode", 'Unsupported value: "Frantic": supported values: "Gentle", "Vigorous"')
    ]
    assert errors_of(frantic, gates={"FrobberFrantic": True}) == []
    # The gate was turned off after the object was stored with the value: updates keep working.
    assert errors_of(frobber(spec__mode="Frantic", spec__replicas=4), old=frantic) == []
    # But a gate that is off still rejects moving to the value.
    assert errors_of(frantic, old=frobber())[0][0] == "NOT_SUPPORTED"


def test_update_rules_immutable_no_modify_monotonic_and_a_transition_rule():
    old = frobber(spec__source={"type": "Git", "git": {"url": "https://x", "tag": "v1"}})
    new = frobber(
        spec__selector={"matchLabels": {"app": "other"}},
        spec__source={"type": "Git", "git": {"url": "https://x", "tag": "v2"}},
        status__observedGeneration=1,
        spec__schedule__trigger="Interval", spec__schedule__cron=None, spec__schedule__intervalMinutes=10,
    )  # fmt: skip
    assert errors_of(new, old=old) == [
        ("INVALID", "spec.selector", 'Invalid value: {"matchLabels":{"app":"other"}}: field is immutable'),
        ("FORBIDDEN", "spec.source.git.tag", "Forbidden: may not be modified once set"),
        ("FORBIDDEN", "spec.schedule", "Forbidden: trigger may not change; create a new schedule"),
        ("INVALID", "status.observedGeneration", "Invalid value: 1: may not be decreased"),
    ]
    # Setting a NoModify field the first time is fine; so is an unchanged immutable one.
    unset = frobber(spec__source={"type": "Git", "git": {"url": "https://x"}})
    assert errors_of(old, old=unset) == []


def test_ratcheting_an_unchanged_invalid_value_is_not_validated_again():
    stored = frobber(spec__params=["p"] * 20)  # stored before maxItems was tightened
    assert errors_of(stored)[0][:2] == ("TOO_MANY", "spec.params")
    assert errors_of(frobber(spec__params=["p"] * 20, spec__replicas=5), old=stored) == []
    assert errors_of(frobber(spec__params=["p"] * 21), old=stored)[0][:2] == ("TOO_MANY", "spec.params")
    # List-map items are matched by key: only the changed item is validated again.
    old = frobber(spec__ports=[{"name": "a", "port": 0}, {"name": "b", "port": 80}])
    new = frobber(spec__ports=[{"name": "b", "port": 0}, {"name": "a", "port": 0}])
    assert errors_of(new, old=old) == [("REQUIRED", "spec.ports[0].port", "Required value")]


def test_metadata_of_an_update_may_not_change_name_and_cluster_scoped_kinds_have_no_namespace():
    old = frobber()
    renamed = frobber(metadata={"name": "other", "namespace": "default"})
    assert ("INVALID", "metadata.name", 'Invalid value: "other": field is immutable') in errors_of(renamed, old=old)
    cls = FrobberClass.from_dict(
        {"metadata": {"name": "fast.class", "namespace": "default"}, "controller": "example.com/frobber"}
    )
    assert [(e.type.name, e.field, e.body()) for e in v1_validation.validate_FrobberClass(cls)] == [
        ("INVALID", "metadata.name", 'Invalid value: "fast.class": ' + formats.is_dns1123_label("fast.class")[0]),
        ("FORBIDDEN", "metadata.namespace", "Forbidden: not allowed on this type"),
    ]
    changed = FrobberClass.from_dict({"metadata": {"name": "fast"}, "controller": "example.com/other"})
    original = FrobberClass.from_dict({"metadata": {"name": "fast"}, "controller": "example.com/frobber"})
    assert [str(e) for e in v1_validation.validate_FrobberClass_update(changed, original)] == [
        'controller: Invalid value: "example.com/other": field is immutable'
    ]


def test_the_update_hook_runs_only_on_update():
    old = frobber(spec__priority=9)
    assert errors_of(frobber(spec__priority=1), old=old) == [
        ("FORBIDDEN", "spec.priority", "Forbidden: may not be lowered while workers are ready (was 9)")
    ]
    assert errors_of(frobber(spec__priority=1)) == []


def test_the_scheme_rejects_an_invalid_object_with_a_422_status():
    obj = frobber(spec__replicas=-2)
    assert [str(e) for e in SCHEME.validate(obj)] == ["spec.replicas: Invalid value: -2: must be greater than or equal to 0"]
    with pytest.raises(APIError) as caught:
        SCHEME.check_valid(obj)
    assert caught.value.code == 422
    assert caught.value.to_status().message == (
        'Frobber.example.kgen.dev "demo" is invalid: spec.replicas: Invalid value: -2: must be greater than or equal to 0'
    )
    assert SCHEME.check_valid(frobber()) is not None


def test_malformed_values_are_errors_never_exceptions():
    obj = frobber()
    obj.spec.__dict__["replicas"] = "three"  # what model_construct or careless code can leave behind
    obj.spec.__dict__["ports"] = 5
    obj.spec.__dict__["schedule"] = "soon"
    found = errors_of(obj)
    assert ("TYPE_INVALID", "spec.replicas", 'Invalid value: "three": must be of type int32') in found
    assert ("TYPE_INVALID", "spec.ports", "Invalid value: 5: must be of type list") in found
    assert any(field.startswith("spec.schedule") for _, field, _ in found)


# -- property tests ----------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_validators_never_raise_on_random_objects(data):
    from generated.example.v1 import strategies

    obj = data.draw(strategies.frobber_strategy())
    old = data.draw(st.none() | strategies.frobber_strategy())
    gates = data.draw(st.dictionaries(st.sampled_from(["FrobberTurbo", "FrobberFrantic"]), st.booleans()))
    result = v1_validation.validate_Frobber(obj, None, old, v.Options(gates))
    assert all(isinstance(e, v.FieldError) and str(e) for e in result)
    cls = data.draw(strategies.frobber_class_strategy())
    assert all(isinstance(e, v.FieldError) for e in v1_validation.validate_FrobberClass(cls))


_label = st.from_regex(r"\A[a-z]([-a-z0-9]{0,10}[a-z0-9])?\Z")


@st.composite
def valid_frobbers(draw):
    """Frobbers valid by construction: every value is drawn inside its markers' limits."""
    ports = draw(st.lists(_label, max_size=8, unique=True))
    trigger = draw(st.sampled_from(["Cron", "Interval"]))
    schedule = {"trigger": trigger, "startHour": draw(st.integers(0, 22))}
    schedule["endHour"] = draw(st.integers(schedule["startHour"] + 1, 24))
    if trigger == "Cron":
        schedule["cron"] = draw(st.sampled_from(["0 * * * *", "*/5 1 2 3 4"]))
    else:
        schedule["intervalMinutes"] = 5 * draw(st.integers(1, 100))
    if draw(st.booleans()):
        schedule["weekdays"] = draw(st.lists(st.sampled_from(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]), unique=True, max_size=7))
    else:
        schedule["days"] = draw(st.lists(st.integers(1, 31), unique=True, max_size=31))
    source = draw(
        st.sampled_from(
            [{"type": "Git", "git": {"url": "https://example.com/r.git", "tag": "v1"}}, {"type": "Inline", "inline": {"instructions": "frob"}}]
        )
    )
    mode = draw(st.sampled_from(["Gentle", "Vigorous"]))
    spec = {
        "description": draw(st.text(max_size=256).filter(lambda s: s != "TODO")),
        "priority": draw(st.integers(-100, 100)),
        "replicas": draw(st.integers(0, 10 if mode == "Vigorous" else 2**31 - 1)),
        "mode": mode,
        "params": draw(st.lists(st.text(max_size=64), max_size=16)),
        "ports": [{"name": name, "port": draw(st.integers(1, 65535))} for name in ports],
        "source": source,
        "extraArgs": draw(st.dictionaries(_label, st.lists(st.text(), max_size=8), max_size=3)),
        "schedule": schedule,
    }
    metadata = {"name": draw(_label), "namespace": draw(_label), "labels": draw(st.dictionaries(_label, _label, max_size=3))}
    return Frobber.from_dict({"metadata": metadata, "spec": spec, "status": {"readyReplicas": draw(st.integers(0, 5))}})


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(valid_frobbers())
def test_valid_by_construction_objects_have_no_errors(obj):
    assert errors_of(obj) == []
    assert errors_of(obj, old=obj) == []


# -- generation-time diagnostics ---------------------------------------------------------------------

DOC = "// +groupName=widgets.example.com\npackage v1\n"


def widget(fields: str, type_markers: str = "") -> dict[str, str]:
    return {
        "widgets/v1/doc.go": DOC,
        "widgets/v1/types.go": f"""
            package v1

            import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

            // +genclient
            type Widget struct {{
                metav1.TypeMeta   `json:",inline"`
                metav1.ObjectMeta `json:"metadata,omitempty"`
                Spec WidgetSpec `json:"spec,omitempty"`
            }}

            {type_markers}
            type WidgetSpec struct {{
            {fields}
            }}

            type Item struct {{
                Name string `json:"name"`
            }}
            """,
    }


@pytest.mark.parametrize(
    ("fields", "type_markers", "expected"),
    [
        ('    // +kubebuilder:validation:Pattern=`a(`\n    A string `json:"a"`', "",
         "error: field WidgetSpec.A: invalid regular expression 'a(': missing ): a("),
        ('    // +kubebuilder:validation:Pattern=`(?=x)`\n    A string `json:"a"`', "",
         "error: field WidgetSpec.A: invalid regular expression '(?=x)': invalid perl operator: (?="),
        ('    // +kubebuilder:validation:XValidation:rule="self.a >",message="m"\n    A string `json:"a"`', "",
         "error: field WidgetSpec.A: CEL rule 'self.a >' does not compile"),
        ('    // +k8s:minimum=1\n    A string `json:"a"`', "",
         "error: field WidgetSpec.A is a string, but its minimum constraint applies only to a number"),
        ('    // +k8s:minimum=one\n    A int32 `json:"a"`', "",
         "error: invalid value for +k8s:minimum: must be an integer, got 'one'"),
        ('    // +k8s:minimun=1\n    A int32 `json:"a"`', "",
         "warning: unknown marker +k8s:minimun; did you mean +k8s:minimum?"),
        ('    // +listType=map\n    // +listMapKey=id\n    Items []Item `json:"items"`', "",
         "error: field WidgetSpec.Items: list-map key 'id' is not a field of Item (fields: name)"),
        ('    // +listType=map\n    // +listMapKey=Name\n    Items []Item `json:"items"`', "",
         "error: field WidgetSpec.Items: list-map key 'Name' is not a field of Item (fields: name); did you mean 'name'? "
         "Keys are JSON names and match case"),
        ('    A *string `json:"a"`\n    B *string `json:"b"`', "// +kubebuilder:validation:ExactlyOneOf=a;c",
         "error: union of WidgetSpec names 'c', which is not a field (fields: a, b)"),
        ('    // +kubebuilder:validation:XValidation:rule="self.x",reason=Bogus\n    A string `json:"a"`', "",
         "error: field WidgetSpec.A: reason 'Bogus' must be FieldValueInvalid"),
        # What the API server's CEL type check rejects: fields the type lacks, unknown functions.
        ('    A string `json:"a"`', '// +kubebuilder:validation:XValidation:rule="self.b > 0 || self.a == \'x.y\'"',
         "error: type WidgetSpec: CEL \"self.b > 0 || self.a == 'x.y'\" selects self.b, which is not a field of "
         "WidgetSpec (its fields: a)"),
        ('    A string `json:"a"`', '// +kubebuilder:validation:XValidation:rule="has(self.a.first)"',
         "error: type WidgetSpec: CEL 'has(self.a.first)' selects .first of self.a, which is a string and has no fields"),
        ('    // +kubebuilder:validation:XValidation:rule="self.getHour() < 12 && self.startsWith(\'x\')"\n    A string `json:"a"`', "",
         "error: field WidgetSpec.A: CEL \"self.getHour() < 12 && self.startsWith('x')\" calls getHour(), which is "
         "neither a CEL function nor one of the Kubernetes CEL functions kgen evaluates"),
    ],
)  # fmt: skip
def test_bad_validation_markers_are_diagnostics_with_file_and_line(generate_project, fields, type_markers, expected):
    try:
        _, result = generate_project(widget(fields, type_markers))
        found = [str(d) for d in result.diagnostics.sorted()]
    except InputError as err:
        found = [str(d) for d in err.diagnostics]
    assert any(re.match(r"\S*widgets/v1/types\.go:\d+:\d+: " + re.escape(expected), line) for line in found), found


def test_kubebuilder_one_of_rules_package_default_and_required_lists(generate_project):
    files = widget(
        """
    A *string `json:"a,omitempty"`
    B *string `json:"b,omitempty"`
    // +kubebuilder:validation:MinItems=1
    // +kubebuilder:validation:items:MaxLength=3
    Names []string `json:"names"`
    // +k8s:unionMember
    // +optional
    X *int32 `json:"x,omitempty"`
    // +k8s:unionMember
    // +optional
    Y *int32 `json:"y,omitempty"`
    // +optional
    // +k8s:minProperties=2
    // +k8s:eachVal=+k8s:neq=0
    Counts map[string]int32 `json:"counts,omitempty"`
""",
        "// +kubebuilder:validation:ExactlyOneOf=a;b\n// +kubebuilder:validation:AtLeastOneOf=a;b",
    )
    files["widgets/v1/doc.go"] = "// +groupName=widgets.example.com\n// +kubebuilder:validation:Required\npackage v1\n"
    load, _ = generate_project(files)
    models, validation = load("widgets.v1.models"), load("widgets.v1.validation")
    spec = models.WidgetSpec(a="1", b="2", names=["abcd"], x=1, y=2, counts={"a": 0})
    assert [str(e) for e in validation.validate_WidgetSpec(spec, v.Path.root("spec"))] == [
        "spec.names[0]: Too long: may not be more than 3 characters",
        "spec.counts: Invalid value: 1: must have at least 2 items",
        "spec.counts[a]: Invalid value: 0: must not be equal to 0",
        'spec: Invalid value: "{x, y}": must specify exactly one of: `x`, `y`',
        'spec: Invalid value: "object": exactly one of the fields in [a b] must be set',
    ]
    empty = models.WidgetSpec()
    assert [str(e) for e in validation.validate_WidgetSpec(empty, v.Path.root("spec"))] == [
        "spec.a: Required value",
        "spec.b: Required value",
        "spec.names: Required value",
        "spec: Invalid value: \"\": must specify one of: `x`, `y`",
        'spec: Invalid value: "object": exactly one of the fields in [a b] must be set',
        'spec: Invalid value: "object": at least one of the fields in [a b] must be set',
    ]


def test_update_transitions_and_the_remaining_limits(generate_project):
    load, _ = generate_project(
        widget(
            """
    // +optional
    // +k8s:update=NoSet
    Late *string `json:"late,omitempty"`
    // +optional
    // +k8s:update=NoUnset
    Kept string `json:"kept,omitempty"`
    // +optional
    // +k8s:update=NoAddItem
    // +k8s:update=NoRemoveItem
    // +kubebuilder:validation:UniqueItems=true
    Fixed []string `json:"fixed,omitempty"`
    // +optional
    // +kubebuilder:validation:Maximum=10
    // +kubebuilder:validation:ExclusiveMaximum=true
    Below int32 `json:"below,omitempty"`
    // +optional
    // +k8s:minLength=2
    Word string `json:"word,omitempty"`
    // +optional
    // +kubebuilder:validation:MaxProperties=1
    Tags map[string]string `json:"tags,omitempty"`
"""
        )
    )
    models, validation = load("widgets.v1.models"), load("widgets.v1.validation")
    old = models.WidgetSpec(kept="k", fixed=["a", "b"])
    new = models.WidgetSpec(late="x", fixed=["a", "c", "c"], below=10, word="w", tags={"a": "1", "b": "2"})
    assert [str(e) for e in validation.validate_WidgetSpec(new, v.Path.root("spec"), old)] == [
        "spec.late: Forbidden: may not be set once the object exists",
        "spec.kept: Forbidden: may not be cleared once set",
        "spec.fixed: Forbidden: may not add items once the object exists",
        "spec.fixed: Forbidden: may not remove items once the object exists",
        'spec.fixed[2]: Duplicate value: "c"',
        "spec.below: Invalid value: 10: must be less than 10",
        'spec.word: Invalid value: "w": must be at least 2 characters',
        "spec.tags: Too many: 2: must have at most 1 item",
    ]
    # On create, update rules do not apply.
    assert [e.origin for e in validation.validate_WidgetSpec(new, v.Path.root("spec"))] == [
        "unique", "maximum", "minLength", "maxProperties",
    ]  # fmt: skip
    assert str(v.internal(v.Path.root("spec"), RuntimeError("boom"))) == "spec: Internal error: boom"


def test_object_property_counts_and_lengths_of_bytes_as_openapi_reads_them(generate_project):
    """cluster-api writes +kubebuilder:validation:MinProperties=1 on structs (at least one field
    set) and MinLength/MaxLength on []byte fields (the base64 text JSON holds)."""
    files = widget(
        """
    // +optional
    Endpoint *Endpoint `json:"endpoint,omitempty"`
    // +optional
    // +kubebuilder:validation:MinLength=1
    // +kubebuilder:validation:MaxLength=8
    CABundle []byte `json:"caBundle,omitempty"`
""",
        "",
    )
    files["widgets/v1/types.go"] += (
        "\n// +kubebuilder:validation:MinProperties=1\n// +kubebuilder:validation:MaxProperties=1\n"
        "type Endpoint struct {\n\t// +optional\n\tHost string `json:\"host,omitempty\"`\n"
        "\t// +optional\n\tPort int32 `json:\"port,omitempty\"`\n}\n"
    )
    load, _ = generate_project(files)
    models, validation = load("widgets.v1.models"), load("widgets.v1.validation")
    errors = lambda spec: [str(e) for e in validation.validate_WidgetSpec(spec, v.Path.root("spec"))]  # noqa: E731
    assert errors(models.WidgetSpec(endpoint=models.Endpoint(host="h"), ca_bundle=b"123456")) == []
    assert errors(models.WidgetSpec(endpoint=models.Endpoint(host="h", port=1), ca_bundle=b"1234567")) == [
        "spec.endpoint: Too many: 2: must have at most 1 item",
        'spec.caBundle: Too long: may not be more than 8 characters',
    ]
    assert errors(models.WidgetSpec(endpoint=models.Endpoint())) == [
        "spec.endpoint: Invalid value: 0: must have at least 1 item"
    ]


def test_discriminated_rules_dependent_fields_and_custom_uniqueness(generate_project):
    """validation-gen's modal rules (a discriminator's value chooses what the other fields must
    be), dependentRequired/Forbidden, and customUnique (uniqueness left to hand-written code)."""
    files = widget(
        """
    // +k8s:required
    // +k8s:discriminator
    Type string `json:"type"`
    // +optional
    // +k8s:member("Limited")=+k8s:required
    // +k8s:member("Exempt")=+k8s:forbidden
    Limited *Item `json:"limited,omitempty"`
    // +optional
    // +k8s:beta(since: "1.37")=+k8s:dependentRequired("multiplier")
    Key *string `json:"key,omitempty"`
    // +optional
    // +k8s:dependentForbidden("key")
    Other *string `json:"other,omitempty"`
    // +optional
    Multiplier *int32 `json:"multiplier,omitempty"`
    // +optional
    // +listType=map
    // +listMapKey=name
    // +k8s:customUnique
    Items []Item `json:"items,omitempty"`
""",
        "",
    )
    load, _ = generate_project(files)
    models, validation = load("widgets.v1.models"), load("widgets.v1.validation")
    errors = lambda spec: [str(e) for e in validation.validate_WidgetSpec(spec, v.Path.root("spec"))]  # noqa: E731
    assert errors(models.WidgetSpec(type="Limited")) == ["spec.limited: Required value"]
    assert errors(models.WidgetSpec(type="Exempt", limited=models.Item(name="x"))) == ["spec.limited: Forbidden"]
    assert errors(models.WidgetSpec(type="Other", limited=models.Item(name="x"))) == []
    assert errors(models.WidgetSpec(type="Other", key="k", other="o")) == [
        "spec.multiplier: Required value: must be specified when `key` is specified",
        "spec.key: Forbidden: may not be specified when `other` is specified",
    ]
    duplicates = [models.Item(name="a"), models.Item(name="a")]
    assert errors(models.WidgetSpec(type="Other", items=duplicates)) == []
