"""A runtime that cannot be knocked over: patterns and CEL regexes run on RE2 as the API server
runs them (linear time, Go's syntax), and CEL rules are bounded as the API server bounds them,
by an estimated cost when a CRD is generated and by a cost budget when an object is validated.

Timings are asserted as ratios to an ordinary call, never as absolute wall-clock times."""

from __future__ import annotations

import glob
import os
import re
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from kgen.diagnostics import InputError
from kgen.runtime import validation as v
from kgen.runtime.validation import celcost, content, crdcost, network, regexp
from kgen.runtime.validation.cel import Rule, compile_error
from kgen.runtime.validation.celtypes import SchemaDecl

CHECKOUTS = Path(os.environ.get("KGEN_CHECKOUTS", "/work/checkouts"))
"""Checkouts of gateway-api, cluster-api, prometheus-operator and cert-manager, when there are."""


def fastest(call, repeat: int = 5, number: int = 20) -> float:
    """The best time of `number` calls, over `repeat` tries (noise only ever adds time)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            call()
        best = min(best, time.perf_counter() - start)
    return best / number


# -- patterns on RE2 -----------------------------------------------------------------------------


def test_a_pattern_python_backtracks_on_for_seconds_runs_in_linear_time():
    # Python's re took 17.7 s for this one on 28 letters and a "!".
    pattern = v.pattern("^([a-z0-9]+-?)*[a-z0-9]$")
    normal = fastest(lambda: pattern.search("my-name-1"))
    evil = fastest(lambda: pattern.search("a" * 28 + "!"))
    long_evil = fastest(lambda: pattern.search("a" * 10_000 + "!"), number=3)
    assert pattern.search("my-name-1") and not pattern.search("a" * 28 + "!")
    assert evil / normal < 20
    assert long_evil / normal < 20_000  # linear: 10,000 characters, not 2**10,000 steps


@pytest.mark.parametrize(
    ("expression", "text", "matches"),
    [
        (r"^\d+$", "123", True),
        (r"^\d+$", "\u0661\u0662", False),  # Go's \d is ASCII; Python's re reads Arabic-Indic digits
        (r"^a$", "a\n", False),  # Go's $ is the end of the text, not before a final newline
        (r"x\b", "xé", True),  # Go's \b is ASCII: é is no word character (to Python's re it is)
        (r"^[[:alpha:]]+$", "abc", True),  # POSIX classes, which Python's re does not read
        (r"\pL", "é", True),
        (r"a.c", "a\nc", False),
        ("x", "\ud800x", True),  # a lone surrogate (JSON allows one) does not break matching
    ],
)
def test_patterns_mean_what_they_mean_to_go(expression, text, matches):
    assert v.pattern(expression).search(text) is matches


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        (r"a\Z", r"invalid escape sequence: \Z"),
        ("(?=x)", "invalid perl operator: (?="),
        (r"(a)\1", r"invalid escape sequence: \1"),
        ("a++", "bad repetition operator: ++"),
        (r"\C", r"invalid escape sequence: \C"),  # RE2 reads it; Go does not
        ("(?#note)", "invalid perl operator: (?#"),
    ],
)
def test_what_go_does_not_compile_is_a_problem(expression, problem):
    assert regexp.syntax_problem(expression) == problem


@pytest.mark.parametrize(("expression"), [r"a\z", "(?P<n>a)", "(?<n>a)", r"\Qa.b\E", "(?i)abc", r"\x{41}"])
def test_what_go_compiles_compiles(expression):
    assert regexp.syntax_problem(expression) is None


@pytest.mark.parametrize(
    ("check", "value", "valid"),
    [
        (lambda value: network.ip_errors(value, False), "1.2.3.4", True),
        (lambda value: network.ip_errors(value, False), "1.2.3.4\n", False),  # Python's $ matched before the newline
        (lambda value: network.ip_errors(value, False), "\u0661.2.3.4", False),  # and its \d an Arabic-Indic digit
        (lambda value: network.cidr_errors(value, False), "10.0.0.0/8\n", False),
        (lambda value: network.cidr_errors(value, False), "10.0.0.0/\u0668", False),
        (content.is_dns1123_subdomain_caseless, "\u212a.example.com", True),  # Go's (?i)k matches the Kelvin sign
        (content.is_dns1123_subdomain_caseless, "\u0131.example.com", False),  # not the dotless i (Python's re does)
    ],
)
def test_kgens_own_checks_read_values_as_go_does(check, value, valid):
    assert (check(value) == []) is valid


def test_kgens_own_patterns_are_linear():
    # Each fixed pattern of content, network and the CEL library on 100,000 characters that
    # almost match: a linear pattern takes about as long per character as on a short input.
    checks = [
        (content.is_dns1123_subdomain, "a." * 50_000 + "-"),
        (content.is_label_value, "a-_." * 25_000 + "-"),
        (lambda value: network.cidr_errors(value, False), "1" * 100_000 + "/1x"),
    ]
    for check, evil in checks:
        short = fastest(lambda: check(evil[:100] + "-"))
        long = fastest(lambda: check(evil), number=2)
        assert long / short < 5_000, check  # 1,000 times the input: linear, with room for noise


DOC = "// +groupName=widgets.example.com\npackage v1\n"


def widget(fields: str, type_markers: str = "", items: str = "", item_markers: str = "") -> dict[str, str]:
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

            {item_markers}
            type Item struct {{
                {items or 'Name string `json:"name"`'}
            }}
            """,
    }


def line_of(files: dict[str, str], text: str) -> int:
    """The line of the types file (as the project fixture writes it) that holds `text`."""
    lines = textwrap.dedent(files["widgets/v1/types.go"]).lstrip().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def diagnostics_of(generate_project, files) -> list[str]:
    try:
        _, result = generate_project(files)
        return [str(d) for d in result.diagnostics.sorted()]
    except InputError as err:
        return [str(d) for d in err.diagnostics]


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        (r"^a\Z", r"invalid escape sequence: \Z"),
        (r"^(a)\1$", r"invalid escape sequence: \1"),
        (r"^\C$", r"invalid escape sequence: \C"),
    ],
)
def test_a_pattern_go_cannot_compile_is_an_error_at_its_marker(generate_project, expression, problem):
    files = widget(f"    // +kubebuilder:validation:Pattern=`{expression}`\n    A string `json:\"a\"`")
    found = diagnostics_of(generate_project, files)
    expected = f"error: field WidgetSpec.A: invalid regular expression {expression!r}: {problem}"
    at = rf"\S*widgets/v1/types\.go:{line_of(files, 'Pattern')}:\d+: "
    assert any(re.match(at + re.escape(expected), line) for line in found), found


def test_a_cel_regex_literal_go_cannot_compile_is_an_error():
    assert "invalid regular expression '(?=x)'" in compile_error("self.matches('(?=x)')")
    assert "invalid regular expression" in compile_error("self.find('a(') == ''")
    assert compile_error("self.matches('^[a-z]+$') && self.findAll('[0-9]+').size() < 3") is None


# -- CEL's regexes on RE2 --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "value", "valid"),
    [
        ("self.matches('^\\\\d+$')", "\u0661\u0662", False),  # RE2's \d, not the engine's Unicode one
        ("self.matches('^\\\\d+$')", "12", True),
        ("matches(self, '^a$')", "a\n", False),
        ("self.find('[0-9]+') == '12'", "ab12cd34", True),
        ("self.findAll('a*') == ['', 'aaa', '']", "baaac", True),  # Go's FindAllString: no empty match after a match
    ],
)
def test_cel_regex_functions_run_on_re2(rule, value, valid):
    errors: list = []
    Rule(rule, json_type="string").check(value, None, None, errors)
    assert (errors == []) is valid, errors


def test_a_catastrophic_cel_regex_is_linear():
    catastrophic = Rule("self.find('(a+)+b') == '' && !self.matches('(a+)+b')", json_type="string")
    normal = fastest(lambda: catastrophic.check("aaab", None, None, []))
    evil = fastest(lambda: catastrophic.check("a" * 28, None, None, []))
    assert evil / normal < 20


# -- the estimated cost of rules (what the API server computes when a CRD is created) -----------


def string(max_length=None, **more):
    return {"type": "string", **({"maxLength": max_length} if max_length is not None else {}), **more}


def array(items, max_items=None):
    return {"type": "array", "items": items, **({"maxItems": max_items} if max_items is not None else {})}


def mapping(values, max_properties=None):
    return {"type": "object", "additionalProperties": values,
            **({"maxProperties": max_properties} if max_properties is not None else {})}  # fmt: skip


def obj(**properties):
    return {"type": "object", "properties": properties}


# Facts from Kubernetes' own tables (apiextensions-apiserver's TestCostEstimation and
# apiserver's library cost tests, 1.36): the rule, the schema of `self`, and the maximum
# cost cel-go estimates.
ESTIMATES = [
    ("self.all(x, true)", array({"type": "number"}), 4718591),
    ("self.all(x, true)", array({"type": "number"}, 10), 32),
    ("self.all(x, true)", array(string()), 3145727),
    ("self.all(x, true)", array(string(), 20), 62),
    ("self.all(x, true)", mapping({"type": "number"}), 1348169),
    ("self.all(x, self.all(y, true))", array({"type": "number"}, 10), 352),
    ("self.all(x, self.all(y, self.all(z, true)))", array({"type": "number"}, 10), 3552),
    ("self.contains('test')", string(), 314574),
    ("self.contains('test')", string(10), 5),
    ("self.startsWith('test')", string(), 2),
    ('size(self + "hello") > size("hello")', string(4), 7),
    ("self[1] == self[1]", array(string()), 314577),
    ('self.matches("x")', string(), 314574),
    ('self.matches("x")', string(50), 22),
    ('"".matches("(((((((((())))))))))[0-9]")', string(), 7),
    ("self.all(x, x.contains(self[x]))", mapping(string()), 2752507),
    ("self.all(x, x == 0.0)", array({"type": "number"}, 3 * 1024 * 2048), 25165826),
    ("self[0] == 5", array({"x-kubernetes-int-or-string": True}), 3),
    ("self.all(x, true)", array(string(format="date-time")), 428963),
    ("self.find('[0-9]+') == ''", string(), 629147),
    ("self.join(' ') == 'aa bb'", array(string(10), 10), 43),
    ("self.isSorted() == true", array(string()), 329854432052),
    ("self.str.replace(self.before, self.after) == 'does not matter'",
     obj(str=string(), before=string(2), after=string(4)), 629154),
    ("self.str.split(self.separator) == []", obj(str=string(10), separator=string(10)), 22),
    ("self.lowerAscii() == 'lower!'", string(), 314575),
    ("oldSelf.size() == self.size()", mapping({"type": "integer"}), 5),
    ("self.contains('A')", string(enum=["A", "B", "C", "LongValue"]), 2),
    ("isQuantity(self)", {"x-kubernetes-int-or-string": True, "maxLength": 20}, 9),
    # the library's own (literal) cases
    ("sets.contains([1, 2, 3, 4], [2, 3])", obj(), 29),
    ("[1, 2, 3, 4, 5].sum()", obj(), 15),
    ("url('https:://kubernetes.io/').getHost()", obj(), 4),
    ("'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", obj(), 9),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "schema", "cost"), ESTIMATES)
def test_the_estimate_is_cel_gos(rule, schema, cost):
    assert celcost.estimate(rule, SchemaDecl.of(schema))[1] == cost


def test_real_world_rules_are_well_within_the_limits():
    # gateway-api's hostnames: at most 16, of at most 253 characters.
    hostnames = array(string(253), 16)
    assert celcost.estimate("self.all(h, !isIP(h))", SchemaDecl.of(hostnames))[1] < 10_000
    # prometheus-operator's and cert-manager's kind of rule: a field and its oldSelf.
    assert celcost.estimate("self == oldSelf", SchemaDecl.of(string(63)))[1] < 100


def crd(spec: dict) -> dict:
    return {"type": "object", "properties": {"spec": spec}}


def test_a_rule_over_the_per_rule_limit_is_forbidden_with_the_api_servers_words():
    unbounded = crd(obj(items={**array(obj(name=string())),
                               "x-kubernetes-validations": [{"rule": "self.all(x, self.exists_one(y, y.name == x.name))"}]}))  # fmt: skip
    problems = crdcost.problems(unbounded)
    assert [(p.path, p.message) for p in problems] == [
        ("openAPIV3Schema.properties[spec].properties[items].x-kubernetes-validations[0].rule",
         "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding "
         "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"),
        ("openAPIV3Schema.properties[spec].properties[items].x-kubernetes-validations[0].rule",
         "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"),
        ("openAPIV3Schema",
         "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by "
         "factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
         "arrays, maps, and strings are declared)"),
    ]  # fmt: skip
    bounded = crd(obj(items={**array(obj(name=string(63)), 32),
                             "x-kubernetes-validations": [{"rule": "self.all(x, self.exists_one(y, y.name == x.name))"}]}))  # fmt: skip
    assert crdcost.problems(bounded) == []


def test_a_rule_on_list_items_is_counted_once_per_item_it_can_run_on():
    item_rule = {**obj(name=string()), "x-kubernetes-validations": [{"rule": "self.name.startsWith('a')"}]}
    # 3 each (self, .name, startsWith one character); unbounded: as many items as fit in a
    # request (3 MiB over the smallest item, `{}`, and a comma)
    (cost,) = crdcost.rule_costs(crd(obj(items=array(item_rule))))
    assert cost.cost == 3 * ((3 * 1024 * 1024) // 3)
    (cost,) = crdcost.rule_costs(crd(obj(items=array(item_rule, 100))))
    assert cost.cost == 3 * 100
    # over the per-rule limit only because of how many times it can run
    (problem,) = crdcost.problems(crd(obj(items=array(item_rule, 3_500_000))))
    assert "estimated rule cost exceeds budget by factor of 1.050000x" in problem.message
    (problem,) = crdcost.problems(crd(obj(items=array(array(item_rule, 3000), 2000))))
    assert "estimated rule cost exceeds budget by factor of 1.8x" in problem.message


def test_the_total_of_a_crd_is_limited_and_names_the_costliest_rules():
    rule = {"rule": "self.all(x, x.size() < 64 && x != 'a')"}  # 8,388,602 each on an unbounded list of strings
    spec = obj(**{f"list{i}": {**array(string()), "x-kubernetes-validations": [rule]} for i in range(13)})
    problems = crdcost.problems(crd(spec))
    assert [p.path for p in problems] == [
        *(f"openAPIV3Schema.properties[spec].properties[list{i}].x-kubernetes-validations[0].rule" for i in range(4)),
        "openAPIV3Schema",
    ]
    assert problems[-1].message.startswith(
        "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor "
        "of 1.090518x"
    )


def nested_maps(key: dict, outer: int | None = None, inner: int | None = None) -> dict:
    values = {"type": "object", "required": ["key"], "properties": {"key": key}}
    items = {**mapping(values, inner)}
    return {**array(items, outer), "x-kubernetes-validations": [{"rule": "self.all(x, x.all(y, x[y].key == x[y].key))"}]}


def contains_keyword(values: dict) -> dict:
    return {**values, "x-kubernetes-validations": [{"rule": "self.contains('keyword')"}]}


RULE = "x-kubernetes-validations[0].rule"
MESSAGE = "x-kubernetes-validations[0].messageExpression"

# Facts from Kubernetes' own CRD validation tests (apiextensions-apiserver's validation_test.go,
# 1.36): a CRD schema, and where the API server forbids its rules.
CRD_VERDICTS = [
    ("double-nested rule, no limit", obj(value=nested_maps(string())),
     [f"properties[value].{RULE}", f"properties[value].{RULE}", ""]),
    ("double-nested rule, one limit", obj(value=nested_maps(string(10))),
     [f"properties[value].{RULE}", f"properties[value].{RULE}", ""]),
    ("double-nested rule, three limits", obj(value=nested_maps(string(10), 10, 10)), []),
    ("double-nested rule, a limit on the outermost list", obj(value=nested_maps({"type": "number"}, 4)), []),
    ("a rule on a field of the root", obj(value={"type": "integer", "x-kubernetes-validations": [{"rule": "self < 1024"}]}), []),
    ("the total over the CRD limit",
     obj(list=array(contains_keyword(string(5000)), 100000), map=mapping(contains_keyword(string(5000)), 1000),
         field={"type": "integer", "x-kubernetes-validations": [{"rule": "self > 50 && self < 100"}]}),
     [f"properties[list].items.{RULE}", f"properties[list].items.{RULE}", f"properties[map].additionalProperties.{RULE}", ""]),
    ("a message expression over the rule limit",
     obj(f={**array(string()), "x-kubernetes-validations": [
         {"rule": "true", "messageExpression": "self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + self[7]"}]}),
     [f"properties[f].{MESSAGE}"]),
    ("lowerAscii in a quadratic rule on a short list",
     obj(f={**array(string(5), 5), "x-kubernetes-validations": [
         {"rule": "self.all(x, self.exists_one(y, x.lowerAscii() == y.lowerAscii()))"}]}), []),
    ("a message expression of string() conversions (no size known)",
     obj(f={**array(string()), "x-kubernetes-validations": [
         {"rule": "true", "messageExpression": "string(self[0]) + string(self[1]) + string(self[2])"}]}),
     [f"properties[f].{MESSAGE}", f"properties[f].{MESSAGE}", ""]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "schema", "forbidden"), CRD_VERDICTS, ids=[c[0] for c in CRD_VERDICTS])
def test_the_api_server_forbids_these_rules_and_no_others(name, schema, forbidden):
    found = sorted(p.path.removeprefix("openAPIV3Schema").lstrip(".") for p in crdcost.problems(schema))
    assert found == sorted(forbidden)


def test_an_expensive_rule_is_an_error_at_its_marker_when_the_crd_is_generated(generate_project):
    rule = 'self.all(x, self.exists_one(y, y.name == x.name))'
    files = widget(f'    // +kubebuilder:validation:XValidation:rule="{rule}"\n    Items []Item `json:"items"`')
    found = diagnostics_of(generate_project, files)
    expected = (f"error: CRD Widget v1: rule '{rule}' at openAPIV3Schema.properties[spec].properties[items]"
                ".x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than "
                "100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, "
                "and strings are declared); the API server rejects the CRD")  # fmt: skip
    at = rf"\S*widgets/v1/types\.go:{line_of(files, 'XValidation')}:\d+: "
    assert any(re.match(at + re.escape(expected), line) for line in found), found
    # and the total of the CRD, at the kind
    kind = rf"\S*widgets/v1/types\.go:{line_of(files, 'type Widget struct')}:\d+: "
    assert any(re.match(kind + r"error: CRD Widget v1: at openAPIV3Schema: Forbidden: "
                        r"x-kubernetes-validations estimated rule cost total", line) for line in found), found
    assert len([line for line in found if "error" in line]) == 2, found


def test_a_rule_of_an_item_type_is_reported_at_the_types_marker(generate_project):
    rule = "self.name.matches('^[a-z]+$')"
    files = widget('    Items []Item `json:"items"`', item_markers=f'// +kubebuilder:validation:XValidation:rule="{rule}"')
    found = [line for line in diagnostics_of(generate_project, files) if "error" in line]
    pattern = (rf"\S*widgets/v1/types\.go:{line_of(files, 'XValidation')}:\d+: error: CRD Widget v1: rule " + re.escape(repr(rule)) +
               r" at openAPIV3Schema\.properties\[spec\]\.properties\[items\]\.items\.x-kubernetes-validations\[0\]\.rule: "
               r"Forbidden: estimated rule cost exceeds budget by factor of more than 100x")  # fmt: skip
    assert any(re.match(pattern, line) for line in found), found


def test_the_same_rule_with_bounds_generates(generate_project):
    rule = 'self.all(x, self.exists_one(y, y.name == x.name))'
    files = widget(
        f'    // +kubebuilder:validation:XValidation:rule="{rule}"\n    // +kubebuilder:validation:MaxItems=32\n'
        '    Items []Item `json:"items"`',
        items='// +kubebuilder:validation:MaxLength=63\n    Name string `json:"name"`',
    )
    found = diagnostics_of(generate_project, files)
    assert not [line for line in found if "error" in line], found


def upstream_crds() -> list[Path]:
    patterns = ["gateway-api/config/crd/*/*.yaml", "cluster-api/**/config/crd/bases/*.yaml",
                "prometheus-operator/example/prometheus-operator-crd-full/*.yaml", "cert-manager/deploy/crds/*.yaml"]  # fmt: skip
    return sorted({Path(p) for pattern in patterns for p in glob.glob(str(CHECKOUTS / pattern), recursive=True)})


@pytest.mark.skipif(not upstream_crds(), reason="no checkouts of gateway-api, cluster-api, prometheus-operator, cert-manager")
def test_every_rule_the_api_server_accepts_upstream_is_accepted():
    class Loader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):
        pass

    Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))
    rules = 0
    for path in upstream_crds():
        for document in yaml.load_all(path.read_text(), Loader=Loader):
            if not document or document.get("kind") != "CustomResourceDefinition":
                continue
            for version in document["spec"]["versions"]:
                schema = version.get("schema", {}).get("openAPIV3Schema") or {}
                rules += sum(1 for c in crdcost.rule_costs(schema) if c.part == "rule")
                assert crdcost.problems(schema) == [], (path, version["name"])
    assert rules > 500


# -- the run-time budget (what the API server counts when an object is validated) ---------------


UNIQUE = "self.all(x, self.exists_one(y, y == x))"


def test_a_quadratic_rule_on_a_huge_list_is_refused_before_it_runs():
    rule = Rule(UNIQUE, message="names must be unique", json_type="array")
    small = [f"name-{i}" for i in range(10)]
    huge = [f"name-{i}" for i in range(10_000)]  # took over 20 s to evaluate
    errors: list = []
    rule.check(huge, None, None, errors)
    assert [str(e) for e in errors] == [
        "<nil>: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation "
        "rules will be run due to call cost exceeds limit for rule: names must be unique"
    ]
    # refused in about the time it takes to look at 10,000 strings, not the 500,000 times
    # longer that running it takes
    assert fastest(lambda: rule.check(huge, None, None, []), number=3) / fastest(lambda: rule.check(small, None, None, [])) < 500
    fine: list = []
    rule.check(small, None, None, fine)
    assert fine == []


def test_a_regex_on_a_huge_string_is_refused():
    rule = Rule("self.matches('^[a-z]+(-[a-z]+)*$')", json_type="string")
    errors: list = []
    rule.check("a" * 3_000_000, None, None, errors)
    assert "call cost exceeds limit for rule: self.matches('^[a-z]+(-[a-z]+)*$')" in errors[0].detail


def test_rules_of_one_validation_share_the_budget_and_none_runs_after_it_is_spent():
    # Each costs about 0.85 million: eleven fit in the budget of ten million, the twelfth
    # does not. (The size check first makes each one quick to run.)
    rule = Rule("self.size() > 0 || self.all(x, x.matches('^[a-z]+$'))", json_type="array")
    value = ["abcdefghij"] * 100_000
    assert 800_000 < rule.cost(value) < 1_000_000
    errors: list = []
    for _ in range(20):
        rule.check(value, None, None, errors)
    assert [e.detail for e in errors] == [
        "validation failed due to running out of cost budget, no further validation rules will be run"
    ]
    other: list = []  # another validation has its own budget
    rule.check(value, None, None, other)
    assert other == []


def test_a_generated_validator_stops_at_the_budget(generate_project):
    rule = "self.all(x, x.name.matches('^[a-z]+[a-z0-9]*$'))"  # 15 per item
    files = widget(
        f'    // +kubebuilder:validation:XValidation:rule="{rule}",message="lowercase names"\n'
        '    // +kubebuilder:validation:MaxItems=100000\n    Items []Item `json:"items"`',
        items='// +kubebuilder:validation:MaxLength=10\n    Name string `json:"name"`',
    )
    load, _ = generate_project(files)
    models, validation = load("widgets.v1.models"), load("widgets.v1.validation")
    widget_of = lambda n: models.Widget.from_dict(  # noqa: E731
        {"metadata": {"name": "w", "namespace": "default"}, "spec": {"items": [{"name": "abcdefghij"}] * n}}
    )
    assert validation.validate_Widget(widget_of(10)) == []
    (error,) = validation.validate_Widget(widget_of(70_000))
    assert str(error).startswith("spec.items: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded'")


def test_an_expensive_message_expression_is_refused_with_its_own_words():
    rule = Rule("false", message_expression="self.map(x, x + x).join(', ')", json_type="array")
    errors: list = []
    rule.check(["abcdefghij"] * 100_000, None, None, errors)
    assert [e.detail for e in errors] == [
        'no further validation rules will be run due to call cost exceeds limit for messageExpression: '
        '"self.map(x, x + x).join(\', \')"'
    ]


def test_the_runtime_cost_is_never_below_what_cel_go_counts_and_is_cached_by_size_class():
    rule = Rule("self.all(h, !isIP(h))")
    assert rule.cost(["a.example.com", "b.example.com"]) == rule.cost(["c.example.com", "d.example.com"])
    assert rule.cost(["a.example.com"] * 100) > rule.cost(["a.example.com"] * 2)
    # cel-go charges 1 per select and identifier, ceil(0.1 per character) for an equality of strings
    assert Rule("self.trigger == oldSelf.trigger").cost({"trigger": "Cron"}, {"trigger": "Cron"}) == 5
