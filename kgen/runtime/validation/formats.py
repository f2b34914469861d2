"""String formats: the checks of apimachinery's `util/validation`, validation-gen's
`+k8s:format` names and the OpenAPI formats.

Two kinds of check live here. The `is_*` functions return the list of what is wrong
(empty when the value is fine), worded as apimachinery words it, for callers that build
their own error (object metadata, the CEL `format` library). `VALIDATORS` maps each format
name to a function `(path, value) -> [FieldError]` that reports as the API server does,
with the error types, details and origins of apimachinery's `api/validate` (strfmt.go).
`FORMATS` maps each name to its message check, for callers that only need the messages.

Lengths are counted as Go counts them, in UTF-8 bytes; util/validation's DNS checks word
their limit in characters, validation-gen's (`api/validate/content`) in bytes.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from urllib.parse import urlsplit

from kgen.runtime.timeutil import parse_go_duration, parse_rfc3339
from kgen.runtime.validation import content, network
from kgen.runtime.validation.field import FieldError, PathNode, go_quote, invalid, path_string, too_long, type_invalid

# -- util/validation: DNS limits worded in characters, label keys and values in bytes -----------


def is_dns1123_label(value: str) -> list[str]:
    """util/validation's IsDNS1123Label (a Namespace or a DNS label name)."""
    return content.is_dns1123_label(value, "characters")


def is_dns1123_subdomain(value: str) -> list[str]:
    """util/validation's IsDNS1123Subdomain (most object names)."""
    return content.is_dns1123_subdomain(value, "characters")


def is_dns1035_label(value: str) -> list[str]:
    """util/validation's IsDNS1035Label (Service names)."""
    return content.is_dns1035_label(value, "characters")


is_dns1123_subdomain_caseless = content.is_dns1123_subdomain_caseless
is_qualified_name = content.is_label_key
is_valid_label_value = content.is_label_value
is_path_segment_name = content.is_path_segment_name


def is_prefixed_qualified_name(value: str) -> list[str]:
    """A label key whose prefix is required (`example.com/name`): content.IsPrefixedLabelKey."""
    errors = content.is_label_key(value)
    if errors:
        return errors
    if len(value.split("/")) != 2:
        return ["must include a prefix (e.g. 'example.com/key')"]
    return []


# -- validation-gen's k8s formats (api/validate/strfmt.go) ---------------------------------------

UUID_ERROR = "must be a lowercase UUID in 8-4-4-4-12 format"
_K8S_UUID = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
RESOURCE_DEVICE_MAX_LENGTH = 32


def is_k8s_uuid(value: str) -> list[str]:
    """A lowercase UUID in its 36-character form (`k8s-uuid`)."""
    return [] if _K8S_UUID.fullmatch(value) else [UUID_ERROR]


def is_ip(value: str) -> list[str]:
    """An IP address as IsValidIP accepts it: no leading zeros, no IPv4-mapped IPv6 zone."""
    return network.is_valid_ip(value)


def is_cidr(value: str) -> list[str]:
    """A CIDR as IsValidCIDR accepts it: canonical prefix, no leading zeros."""
    return network.is_valid_cidr(value)


def _each(check: Callable[[str], list[str]], origin: str) -> Callable[[PathNode, str], list[FieldError]]:
    """A validator reporting each message of `check` as Invalid, as strfmt.go's simple formats."""

    def validate(path: PathNode, value: str) -> list[FieldError]:
        return [invalid(path, value, message, origin) for message in check(value)]

    return validate


def _byte_len(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def _c_identifier(path: PathNode, value: str, limit: int) -> list[FieldError]:
    errors = []
    if _byte_len(value) > limit:
        errors.append(too_long(path, value, limit))
    errors.extend(invalid(path, value, m) for m in content.is_c_identifier(value))
    return errors


def _with_origin(errors: list[FieldError], origin: str) -> list[FieldError]:
    for error in errors:
        error.origin = origin
    return errors


def _prefixed(errors: list[FieldError], prefix: str) -> list[FieldError]:
    for error in errors:
        error.detail = prefix + error.detail
    return errors


def validate_resource_pool_name(path: PathNode, value: str) -> list[FieldError]:
    """One or more DNS subdomains separated by '/', 253 bytes at most (`k8s-resource-pool-name`)."""
    errors = []
    if _byte_len(value) > 253:
        errors.append(too_long(path, value, 253))
    for i, part in enumerate(value.split("/")):
        if not part:
            errors.append(invalid(path, value, f"segment {i}: must not be empty"))
            continue
        errors.extend(_prefixed(_each(content.is_dns1123_subdomain, "")(path, part), f"segment {i}: "))
    return _with_origin(errors, "format=k8s-resource-pool-name")


def validate_extended_resource_name(path: PathNode, value: str) -> list[FieldError]:
    """A domain-prefixed name outside kubernetes.io, valid as a quota name (`k8s-extended-resource-name`)."""
    errors = []
    if "/" not in value:
        errors.append(invalid(path, value, "a name must be a domain-prefixed path, such as 'example.com/my-prop'"))
    elif "kubernetes.io/" in value:
        errors.append(invalid(path, value, 'must not have "kubernetes.io/" domain'))
    if value.startswith("requests."):
        errors.append(invalid(path, value, 'must not have "requests." prefix'))
    errors.extend(invalid(path, value, m) for m in content.is_label_key("requests." + value))
    return _with_origin(errors, "format=k8s-extended-resource-name")


def validate_resource_fully_qualified_name(path: PathNode, value: str) -> list[FieldError]:
    """`domain/name`: a DNS subdomain and a C identifier of 32 bytes at most (`k8s-resource-fully-qualified-name`)."""
    errors: list[FieldError] = []
    parts = value.split("/")
    if len(parts) == 1:
        errors.extend(_c_identifier(path, parts[0], RESOURCE_DEVICE_MAX_LENGTH))
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append(invalid(path, "", "prefix must not be empty"))
        else:
            if _byte_len(prefix) > 63:
                errors.append(too_long(path, prefix, 63))
            errors.extend(_prefixed(_each(content.is_dns1123_subdomain, "")(path, prefix), "prefix: "))
        if not name:
            errors.append(invalid(path, "", "name must not be empty"))
        else:
            errors.extend(_c_identifier(path, name, RESOURCE_DEVICE_MAX_LENGTH))
    if "/" not in value:
        errors.append(invalid(path, value, "a fully qualified name must be a domain and a name separated by a slash"))
    return _with_origin(errors, "format=k8s-resource-fully-qualified-name")


# -- OpenAPI formats, as the API server checks a custom resource ---------------------------------


def is_hostname(value: str) -> list[str]:
    if len(value) > 255 or not _HOSTNAME.fullmatch(value):
        return ["must be a valid hostname (RFC 1034)"]
    return []


_HOSTNAME = re.compile(
    r"[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\.?"
)
_UUID = re.compile(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")


def is_uuid(value: str) -> list[str]:
    """A UUID as kube-openapi's strfmt accepts it: any case, dashes optional."""
    return [] if _UUID.fullmatch(value) else ["must be a valid UUID"]


def is_ipv4(value: str) -> list[str]:
    address = network.parse_ip_sloppy(value)
    return [] if address is not None and address.version == 4 and ":" not in value else ["must be a valid IPv4 address"]


def is_ipv6(value: str) -> list[str]:
    address = network.parse_ip_sloppy(value)
    return [] if address is not None and ":" in value else ["must be a valid IPv6 address"]


def is_openapi_cidr(value: str) -> list[str]:
    return [] if network.parse_cidr_sloppy(value) is not None else ["must be a valid CIDR"]


def is_uri(value: str) -> list[str]:
    """An absolute URI, as Go's `url.ParseRequestURI` accepts it."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return ["must be a valid URI"]
    if not parts.scheme or not (parts.netloc or parts.path) or " " in value:
        return ["must be a valid URI"]
    return []


_EMAIL = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*"
)


def is_email(value: str) -> list[str]:
    """An address as `user@example.com` (the addr-spec of RFC 5322, without comments)."""
    return [] if _EMAIL.fullmatch(value) else ["must be a valid email address"]


def is_date_time(value: str) -> list[str]:
    try:
        parse_rfc3339(value)
    except (ValueError, TypeError):
        return ["must be a valid date-time in RFC 3339 format (e.g. 2006-01-02T15:04:05Z)"]
    return []


def is_byte(value: str) -> list[str]:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return ["must be base64-encoded data"]
    return []


def is_duration(value: str) -> list[str]:
    try:
        parse_go_duration(value)
    except (ValueError, TypeError):
        return ["must be a duration (e.g. 1h30m or 90s)"]
    return []


def _openapi(name: str, check: Callable[[str], list[str]]) -> Callable[[PathNode, str], list[FieldError]]:
    """A custom resource's schema format: kube-openapi's type error, as the API server reports it."""
    origin = f"format={name}"

    def validate(path: PathNode, value: str) -> list[FieldError]:
        if not check(value):
            return []
        detail = f"{path_string(path)} in body must be of type {name}: {go_quote(value)}"
        return [type_invalid(path, value, detail, origin)]

    return validate


_K8S_FORMATS: dict[str, Callable[[str], list[str]]] = {
    "k8s-short-name": content.is_dns1123_label,
    "k8s-long-name": content.is_dns1123_subdomain,
    "k8s-long-name-caseless": content.is_dns1123_subdomain_caseless,
    "k8s-label-key": content.is_label_key,
    "k8s-prefixed-label-key": is_prefixed_qualified_name,
    "k8s-label-value": content.is_label_value,
    "k8s-path-segment-name": content.is_path_segment_name,
    "k8s-uuid": is_k8s_uuid,
    "k8s-ip": is_ip,
    "k8s-cidr": is_cidr,
}
_OPENAPI_FORMATS: dict[str, Callable[[str], list[str]]] = {
    "date-time": is_date_time,
    "uri": is_uri,
    "email": is_email,
    "hostname": is_hostname,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
    "cidr": is_openapi_cidr,
    "byte": is_byte,
    "duration": is_duration,
    "uuid": is_uuid,
}

VALIDATORS: dict[str, Callable[[PathNode, str], list[FieldError]]] = {
    **{name: _each(check, f"format={name}") for name, check in _K8S_FORMATS.items()},
    "k8s-resource-pool-name": validate_resource_pool_name,
    "k8s-extended-resource-name": validate_extended_resource_name,
    "k8s-resource-fully-qualified-name": validate_resource_fully_qualified_name,
    **{name: _openapi(name, check) for name, check in _OPENAPI_FORMATS.items()},
}
"""Every format kgen validates, by the name markers use: `(path, value) -> errors`."""


def _messages(name: str) -> Callable[[str], list[str]]:
    validate = VALIDATORS[name]
    return lambda value: [error.detail for error in validate(None, value)]


FORMATS: dict[str, Callable[[str], list[str]]] = {
    **_K8S_FORMATS,
    **{
        name: _messages(name)
        for name in ("k8s-resource-pool-name", "k8s-extended-resource-name", "k8s-resource-fully-qualified-name")
    },
    **_OPENAPI_FORMATS,
}
"""The same formats, as message checks (`value -> [message]`)."""
