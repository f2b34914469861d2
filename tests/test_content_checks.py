"""Names, addresses and formats checked as apimachinery checks them, and errors worded as
the API server words them. Tables in the style of apimachinery's own tests."""

from __future__ import annotations

import pytest

from kgen.runtime.validation import content, formats, network
from kgen.runtime.validation.field import ErrorType, Path, format_value, go_quote, invalid
from kgen.runtime.validation.meta import mask_trailing_dash

LABEL_REGEX = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"


def test_regex_errors_keep_apimachinery_s_double_space():
    message = content.is_dns1123_label("Not_A_Label")[0]
    assert message.endswith(f"(e.g. 'my-name',  or '123-abc', regex used for validation is '{LABEL_REGEX}')")


@pytest.mark.parametrize(
    "check, value, wanted",
    [
        # validation-gen's content package counts and words lengths in bytes
        (content.is_dns1123_label, "a" * 64, "must be no more than 63 bytes"),
        (content.is_dns1123_subdomain, "a" * 254, "must be no more than 253 bytes"),
        (content.is_label_value, "a" * 64, "must be no more than 63 bytes"),
        # a 2-byte character: 32 of them are 64 bytes
        (content.is_dns1123_label, "é" * 32, "must be no more than 63 bytes"),
        # util/validation's DNS checks (object names, CEL's format library) say characters
        (formats.is_dns1123_label, "a" * 64, "must be no more than 63 characters"),
        (formats.is_dns1123_subdomain, "a" * 254, "must be no more than 253 characters"),
        (formats.is_dns1035_label, "a" * 64, "must be no more than 63 characters"),
    ],
)
def test_length_limits_are_bytes_and_worded_as_upstream(check, value, wanted):
    assert check(value)[0] == wanted


@pytest.mark.parametrize(
    "check, good, bad",
    [
        (content.is_dns1123_label, ["a", "1-a", "a" * 63], ["", "a.b", "-a", "a-", "A", "a\n", "a_b"]),
        (content.is_dns1035_label, ["a", "a-1"], ["1a", "a.b", "", "a-"]),
        (content.is_dns1123_subdomain, ["a.b.c", "1.2.3"], ["a..b", ".a", "a.", "A.b"]),
        (content.is_label_key, ["a", "a.b/C_d", "x/" + "a" * 63], ["", "/a", "a/", "a/b/c", "-a", "a/" + "a" * 64]),
        (content.is_label_value, ["", "a", "A-b_c.d"], ["-a", "a-", "a b", "a" * 64]),
        (content.is_c_identifier, ["_a", "A1"], ["1a", "a-b", ""]),
        (content.is_decimal_integer, ["0", "-1", "10"], ["", "01", "-0", "+1", "1.0", " 1"]),
        (content.is_valid_percent, ["0%", "100%"], ["%", "1", "1.5%"]),
        (content.is_valid_port_name, ["http", "h-2"], ["", "-http", "http-", "h--p", "123", "a" * 16, "HTTP"]),
        (content.is_env_var_name, ["A_B", "a.b-c"], ["1A", "..a", ".", "a=b"]),
        (content.is_config_map_key, ["a.b", "_x"], ["a/b", "..", "a b"]),
        (content.is_wildcard_dns1123_subdomain, ["*.a.b"], ["*", "a.b", "*.*.a"]),
        (formats.is_prefixed_qualified_name, ["a.io/b"], ["b", "a.io/", "/b"]),
        (formats.is_k8s_uuid, ["123e4567-e89b-12d3-a456-426614174000"],
         ["123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000", ""]),
    ],
)  # fmt: skip
def test_good_and_bad_values(check, good, bad):
    for value in good:
        assert check(value) == [], value
    for value in bad:
        assert check(value) != [], value


@pytest.mark.parametrize(
    "value, strict, legacy",
    [
        ("1.2.3.4", [], []),
        ("2001:db8::1", [], []),
        ("010.1.2.3", ["must not have leading 0s"], []),
        ("::ffff:1.2.3.4", ["must not be an IPv4-mapped IPv6 address"], []),
        ("1.2.3", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"],
         ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ],
)  # fmt: skip
def test_ip_addresses_strict_and_legacy(value, strict, legacy):
    assert network.is_valid_ip(value) == strict
    assert network.is_valid_ip_for_legacy_field(value, strict=False) == legacy
    # a legacy field in strict mode is as strict as a new one, unless the old value was the same
    assert network.is_valid_ip_for_legacy_field(value, strict=True) == strict
    assert network.is_valid_ip_for_legacy_field(value, strict=True, valid_old=(value,)) == []


@pytest.mark.parametrize(
    "value, strict, legacy",
    [
        ("10.0.0.0/8", [], []),
        ("10.0.0.1/8", ["must not have bits set beyond the prefix length"], []),
        ("010.0.0.0/8", ["must not have leading 0s in IP or prefix length"], []),
        ("10.0.0.0", ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"],
         ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]),
    ],
)  # fmt: skip
def test_cidrs_strict_and_legacy(value, strict, legacy):
    assert network.is_valid_cidr(value) == strict
    assert network.is_valid_cidr_for_legacy_field(value, strict=False) == legacy


def test_an_interface_address_may_have_host_bits():
    assert network.is_valid_interface_address("10.0.0.1/8") == []
    assert network.is_valid_interface_address("10.0.0.1") != []


def _render(errors):
    return [(e.type, str(e), e.origin) for e in errors]


def test_format_validators_report_as_strfmt_does():
    path = Path.root("spec", "pool")
    assert _render(formats.VALIDATORS["k8s-resource-pool-name"](path, "a//B")) == [
        (ErrorType.INVALID, 'spec.pool: Invalid value: "a//B": segment 1: must not be empty', "format=k8s-resource-pool-name"),
        (ErrorType.INVALID, 'spec.pool: Invalid value: "B": segment 2: '
         + content.is_dns1123_subdomain("B")[0], "format=k8s-resource-pool-name"),
    ]  # fmt: skip
    name = formats.VALIDATORS["k8s-resource-fully-qualified-name"](path, "example.com/" + "a" * 33)
    assert _render(name) == [
        (ErrorType.TOO_LONG, "spec.pool: Too long: may not be more than 32 bytes", "format=k8s-resource-fully-qualified-name")
    ]
    extended = formats.VALIDATORS["k8s-extended-resource-name"](path, "kubernetes.io/gpu")
    assert [str(e) for e in extended] == ['spec.pool: Invalid value: "kubernetes.io/gpu": must not have "kubernetes.io/" domain']
    assert [str(e) for e in formats.VALIDATORS["k8s-short-name"](path, "a.b")] == [
        'spec.pool: Invalid value: "a.b": must not contain dots'
    ]


def test_an_openapi_format_fails_as_the_api_server_reports_a_custom_resource():
    errors = formats.VALIDATORS["uuid"](Path.root("spec", "id"), "nope")
    assert [(e.type, str(e)) for e in errors] == [
        (ErrorType.TYPE_INVALID, 'spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"')
    ]
    # kube-openapi's uuid is any case, dashes optional; validation-gen's k8s-uuid is not
    assert formats.VALIDATORS["uuid"](None, "123E4567E89B12D3A456426614174000") == []
    assert formats.VALIDATORS["k8s-uuid"](None, "123E4567-E89B-12D3-A456-426614174000") != []


def test_every_format_has_a_message_check_and_a_validator():
    assert set(formats.FORMATS) == set(formats.VALIDATORS)


@pytest.mark.parametrize(
    "value, printed",
    [
        ("a\"b\\c", '"a\\"b\\\\c"'),
        ("tab\there\x00", '"tab\\there\\x00"'),
        ("\u00a0é", '"\\u00a0é"'),  # a no-break space is not printable to Go
        (12, "12"),
        (1.5e-7, "1.5e-07"),
        (True, "true"),
        ({"b": 1, "a": {"z": "<", "c": None}}, '{"a":{"c":null,"z":"\\u003c"},"b":1}'),
        (["x", 2], '["x",2]'),
    ],
)
def test_bad_values_are_printed_as_go_prints_them(value, printed):
    assert format_value(value) == printed


def test_go_quote_matches_strconv_quote():
    assert go_quote("plain") == '"plain"'
    assert go_quote("\x7f\U0001f600\n") == '"\\x7f\U0001f600\\n"'
    assert str(invalid(Path.root("x"), "\n", "bad")) == 'x: Invalid value: "\\n": bad'


def test_generate_name_prefixes_are_masked_as_apimachinery_masks_them():
    # maskTrailingDash replaces the dash and the character before it with "a"
    assert mask_trailing_dash("abc-") == "aba"
    assert mask_trailing_dash("-") == "-"
    assert mask_trailing_dash("ab") == "ab"
