"""The Scheme: decoding with field validation and defaults, conversion, encoding, Status errors
(on the example's pydantic models and on its msgspec structs)."""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import pytest

from conftest import REPO
from kgen.diagnostics import InputError
from kgen.runtime.quantity import Quantity
from kgen.runtime.scheme import SCHEME, APIError, GroupVersion, GroupVersionKind, Scheme
from kgen.runtime.semantic import semantic_diff, semantic_equal
from kgen.runtime.timeutil import Time

sys.path.insert(0, str(REPO))
import generated.example  # noqa: E402,F401  (registers the internal version)
import generated.example.v1  # noqa: E402,F401
import generated.example.v1beta1  # noqa: E402,F401
from generated.example import register as internal_register  # noqa: E402
from generated.example.v1 import register as v1_register  # noqa: E402

V1 = "example.kgen.dev/v1"
BETA = "example.kgen.dev/v1beta1"


@dataclass(frozen=True)
class Example:
    """The example API's kinds on one model backend, in a scheme."""

    models: str
    scheme: Scheme
    package: str


@pytest.fixture(scope="module", params=["pydantic", "msgspec"])
def example(request) -> Example:
    """The process-wide SCHEME of the repository's pydantic package, or a Scheme of the
    msgspec package's own."""
    if request.param == "pydantic":
        return Example("pydantic", SCHEME, "generated")
    package = request.getfixturevalue("msgspec_example").package
    scheme = Scheme()
    for version in ("", ".v1", ".v1beta1"):
        importlib.import_module(f"{package}.example{version}.register").add_to_scheme(scheme)
    return Example("msgspec", scheme, package)


def frobber(api_version: str, spec: str) -> bytes:
    return f'{{"apiVersion":"{api_version}","kind":"Frobber","metadata":{{"name":"f"}},"spec":{spec}}}'.encode()


def test_decode_picks_the_kind_and_applies_defaults(example):
    result = example.scheme.decode(frobber(BETA, '{"param":"x"}'))
    assert result.gvk == GroupVersionKind("example.kgen.dev", "v1beta1", "Frobber")
    assert type(result.object).__module__ == f"{example.package}.example.v1beta1.models"
    assert (result.object.spec.params, result.object.spec.replicas, result.object.spec.mode) == (["x"], 1, "Gentle")
    assert example.scheme.decode(frobber(BETA, "{}"), default=False).object.spec.replicas is None


STRICT_INPUT = frobber(V1, '{"bogus":1,"replicas":1,"replicas":2,"ports":[{"name":"a","port":1,"nope":true}],"extraArgs":{"k":["v"]}}')
PROBLEMS = ['duplicate field "spec.replicas"', 'unknown field "spec.bogus"', 'unknown field "spec.ports[0].nope"']


def test_strict_lists_every_unknown_and_duplicate_field(example):
    with pytest.raises(APIError) as caught:
        example.scheme.decode(STRICT_INPUT)
    error = caught.value
    assert (error.code, error.reason) == (400, "BadRequest")
    # As the create handler words it (endpoints/handlers/rest.go transformDecodeError).
    assert error.message == 'Frobber in version "v1" cannot be handled as a Frobber: strict decoding error: ' + ", ".join(PROBLEMS)
    assert [c.message for c in error.causes] == PROBLEMS


def test_warn_returns_warnings_and_ignore_is_silent(example):
    assert example.scheme.decode(STRICT_INPUT, field_validation="Warn").warnings == PROBLEMS
    result = example.scheme.decode(STRICT_INPUT, field_validation="Ignore")
    assert result.warnings == [] and result.object.spec.replicas == 2  # the last duplicate wins, as in Go


def test_opaque_fields_are_not_checked(example):
    result = example.scheme.decode(frobber(V1, '{"config":{"anything":{"goes":[1]}}}'))
    assert result.object.spec.config.raw == {"anything": {"goes": [1]}}


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"kind":"Frobber"}', "Object 'apiVersion' is missing in '{\"kind\":\"Frobber\"}'"),
        (b'{"apiVersion":"example.kgen.dev/v1"}', "Object 'Kind' is missing in '{\"apiVersion\":\"example.kgen.dev/v1\"}'"),
        (frobber("example.kgen.dev/v9", "{}"), 'no kind "Frobber" is registered for version "example.kgen.dev/v9" in the scheme'),
        (b"[1]", "the object must be a JSON object"),
        (b"{", "invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        (
            frobber(V1, '{"replicas":"x"}'),
            # the decoders word a wrong value's problem each their own way, after the same path
            {
                "pydantic": 'Frobber in version "v1" cannot be handled as a Frobber: spec.replicas: Input should be a valid integer',
                "msgspec": 'Frobber in version "v1" cannot be handled as a Frobber: spec.replicas: Expected `int | null`, got `str`',
            },
        ),
    ],
)
def test_decode_errors_are_bad_requests(example, data, message):
    with pytest.raises(APIError) as caught:
        example.scheme.decode(data)
    assert caught.value.code == 400 and caught.value.message == (message[example.models] if isinstance(message, dict) else message)


@pytest.mark.parametrize(
    "spec, fields",
    [
        ('{"replicas":"x","ports":[{"name":"a","port":"b"}]}', ["spec.replicas", "spec.ports[0].port"]),
        ('{"ports":[{"name":"a"},{"name":"b","port":"c"}]}', ["spec.ports[1].port"]),
        ('{"resources":{"cpu":"1","memory":"lots"}}', ["spec.resources.memory"]),
        ('{"extraArgs":{"a":["x"],"b":[1]}}', ["spec.extraArgs.b[0]"]),
        ('{"params":{"a":1}}', ["spec.params"]),
        ("[]", ["spec"]),
    ],
)
def test_errors_become_status_objects_naming_the_fields(example, spec, fields):
    with pytest.raises(APIError) as caught:
        example.scheme.decode(frobber(V1, spec))
    status = caught.value.to_status()
    document = status.to_dict()
    assert (document["kind"], document["apiVersion"], document["status"], document["code"]) == ("Status", "v1", "Failure", 400)
    assert document["reason"] == "BadRequest"
    causes = [(c["field"], c["reason"]) for c in document["details"]["causes"]]
    # pydantic lists every wrong value; msgspec stops at the first, as Go's decoder reports one.
    assert causes == [(field, "FieldValueInvalid") for field in (fields if example.models == "pydantic" else fields[:1])]


def test_convert_goes_through_the_internal_version(example):
    scheme = example.scheme
    beta = scheme.decode(frobber(BETA, '{"param":"x","height":7}')).object
    v1 = scheme.convert(beta, V1)
    assert (v1.api_version, v1.spec.params, v1.spec.height_in_inches) == (V1, ["x"], 7)
    internal = scheme.convert(beta, "example.kgen.dev/__internal")
    assert type(internal).__module__ == f"{example.package}.example.models"
    back = scheme.convert(v1, BETA)
    assert back.to_dict() == beta.to_dict()
    assert scheme.convert(v1, V1) == v1 and scheme.convert(v1, V1) is not v1


def test_encode_in_any_served_version(example):
    scheme = example.scheme
    internal = scheme.to_internal(scheme.decode(frobber(V1, '{"params":["a"]}')).object)
    assert scheme.encode(internal, BETA).startswith(b'{"kind":"Frobber","apiVersion":"example.kgen.dev/v1beta1"')
    with pytest.raises(APIError, match="Frobber is internal: encode it in a served version"):
        scheme.encode(internal)
    with pytest.raises(APIError, match="a different group"):
        scheme.convert(internal, "other.example.com/v1")


def test_storage_version_and_served_versions(example):
    scheme = example.scheme
    assert scheme.storage_version("example.kgen.dev", "Frobber") == GroupVersion("example.kgen.dev", "v1")
    assert scheme.storage_version("example.kgen.dev", "FrobberClass") == GroupVersion("example.kgen.dev", "v1")
    assert [gv.version for gv in scheme.served_versions("example.kgen.dev", "Frobber")] == ["v1", "v1beta1"]


def test_a_scheme_of_ones_own():
    scheme = Scheme()
    for module in (internal_register, v1_register):
        module.add_to_scheme(scheme)
    assert scheme.decode(frobber(V1, "{}")).object.spec.replicas == 1
    with pytest.raises(APIError, match="no kind"):
        scheme.decode(frobber(BETA, "{}"))


# -- storage version diagnostics --------------------------------------------------------------

KIND = (
    "package {v}\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n{marker}"
    "type Gadget struct {{\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n}}\n"
)


def _group(alpha_marker: str, beta_marker: str) -> dict[str, str]:
    return {
        "gadgets/v1alpha1/doc.go": "// +groupName=gadgets.example.com\npackage v1alpha1\n",
        "gadgets/v1alpha1/types.go": KIND.format(v="v1alpha1", marker=alpha_marker),
        "gadgets/v1beta1/doc.go": "// +groupName=gadgets.example.com\npackage v1beta1\n",
        "gadgets/v1beta1/types.go": KIND.format(v="v1beta1", marker=beta_marker),
    }


@pytest.mark.parametrize(
    "alpha, beta, message",
    [
        (
            "", "",
            "Gadget of group gadgets.example.com is served in versions v1alpha1, v1beta1 but none is its storage "
            "version: mark the kind in one version with +kubebuilder:storageversion",
        ),
        (
            "// +kgen:storageVersion\n",
            "// +kubebuilder:storageversion\n",
            "Gadget of group gadgets.example.com is marked as stored in more than one version (v1beta1, v1alpha1)",
        ),
    ],
)
def test_storage_version_problems(generate_project, alpha, beta, message):
    with pytest.raises(InputError) as caught:
        generate_project(_group(alpha, beta))
    assert any(message in str(d) for d in caught.value.diagnostics), [str(d) for d in caught.value.diagnostics]


def test_one_storage_version_is_fine(generate_project):
    module, _ = generate_project(_group("", "// +kgen:storageVersion\n"))
    assert module("gadgets.v1beta1.register").STORAGE == ("Gadget",)
    assert module("gadgets.v1alpha1.register").STORAGE == ()


# -- semantic equality ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, equal",
    [
        (Quantity("1Gi"), Quantity("1024Mi"), True),
        (Quantity("1"), Quantity("1000m"), True),
        (Quantity("1"), Quantity("2"), False),
        (
            Time.from_datetime(datetime(2024, 1, 1, 12, tzinfo=timezone.utc)),
            Time.from_datetime(datetime(2024, 1, 1, 14, tzinfo=timezone(timedelta(hours=2)))),
            True,
        ),
        (None, [], True),
        ({}, None, True),
        ([], {}, True),
        ([1], [], False),
        ({"a": Quantity("1k")}, {"a": Quantity("1000")}, True),
    ],
)
def test_semantic_equal(a, b, equal):
    assert semantic_equal(a, b) is equal


def test_semantic_equal_on_objects_and_diffs(example):
    a = example.scheme.decode(frobber(V1, '{"resources":{"memory":"1Gi"},"params":[]}')).object
    b = example.scheme.decode(frobber(V1, '{"resources":{"memory":"1024Mi"}}')).object
    assert semantic_equal(a, b)
    if example.models == "pydantic":  # a struct records no presence: `"params": []` and none are equal
        assert a != b
    b.spec.replicas = 5
    assert semantic_diff(a, b) == ["spec.replicas: 1 != 5"]
