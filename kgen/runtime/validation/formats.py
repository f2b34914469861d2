"""String formats: the checks of apimachinery's `util/validation` and the OpenAPI formats.

Every check returns the list of what is wrong (empty when the value is fine), worded as
apimachinery words it, so that `field.invalid(path, value, message)` reads exactly as the
API server's error does. `FORMATS` maps each `+k8s:format` / `Format` name to its check.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit

from kgen.runtime.timeutil import parse_go_duration, parse_rfc3339
from kgen.runtime.validation.field import empty_error, max_len_error, regex_error

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX = 63
C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
C_IDENTIFIER_ERR = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'"

_DNS1123_LABEL = re.compile(f"^{DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN = re.compile(f"^{DNS1123_SUBDOMAIN_FMT}$")
_DNS1123_SUBDOMAIN_CASELESS = re.compile(f"^{DNS1123_SUBDOMAIN_FMT}$", re.IGNORECASE)
_QUALIFIED_NAME = re.compile(f"^{QUALIFIED_NAME_FMT}$")
_LABEL_VALUE = re.compile(f"^{LABEL_VALUE_FMT}$")
_C_IDENTIFIER = re.compile(f"^{C_IDENTIFIER_FMT}$")
_HOSTNAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\.?$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def is_dns1123_label(value: str) -> list[str]:
    """A DNS label (RFC 1123): a `k8s-short-name`."""
    errors = []
    if len(value) > DNS1123_LABEL_MAX:
        errors.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1123_LABEL.match(value):
        errors.append(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_dns1123_subdomain(value: str) -> list[str]:
    """A DNS subdomain (RFC 1123): a `k8s-long-name`."""
    errors = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN.match(value):
        errors.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_dns1123_subdomain_caseless(value: str) -> list[str]:
    errors = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_CASELESS.match(value):
        errors.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_qualified_name(value: str) -> list[str]:
    """A label key: an optional DNS subdomain prefix and `/`, then a name of up to 63 characters."""
    errors = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part " + empty_error())
        else:
            errors.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name "
            + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part " + empty_error())
    elif len(name) > QUALIFIED_NAME_MAX:
        errors.append("name part " + max_len_error(QUALIFIED_NAME_MAX))
    if not _QUALIFIED_NAME.match(name):
        errors.append("name part " + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"))
    return errors


def is_prefixed_qualified_name(value: str) -> list[str]:
    """A label key whose prefix is required (`example.com/name`)."""
    errors = is_qualified_name(value)
    if not errors and "/" not in value:
        errors.append("must have a prefix (e.g. 'example.com/name')")
    return errors


def is_valid_label_value(value: str) -> list[str]:
    errors = []
    if len(value) > LABEL_VALUE_MAX:
        errors.append(max_len_error(LABEL_VALUE_MAX))
    if not _LABEL_VALUE.match(value):
        errors.append(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def is_path_segment_name(value: str) -> list[str]:
    """A name that is safe as one segment of a URL path."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    errors = []
    for illegal in ("/", "%"):
        if illegal in value:
            errors.append(f"may not contain '{illegal}'")
    return errors


def is_ip(value: str) -> list[str]:
    """An IPv4 or IPv6 address (IPv4 octets may have leading zeros, as Go's legacy parser allows)."""
    candidate = value
    if "." in value and ":" not in value:
        octets = value.split(".")
        if len(octets) == 4 and all(o.isdigit() and len(o) <= 3 for o in octets):
            candidate = ".".join(str(int(o)) for o in octets)
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
    return []


def is_ipv4(value: str) -> list[str]:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return ["must be a valid IPv4 address"]
    return []


def is_ipv6(value: str) -> list[str]:
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return ["must be a valid IPv6 address"]
    return []


def is_cidr(value: str) -> list[str]:
    if "/" not in value:
        return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]
    return []


def is_uuid(value: str) -> list[str]:
    if not _UUID.match(value):
        return ["must be a lowercase UUID in 8-4-4-4-12 format"] if value.lower() != value else ["must be a valid UUID in RFC 4122 format"]
    try:
        uuid.UUID(value)
    except ValueError:
        return ["must be a valid UUID in RFC 4122 format"]
    return []


def is_resource_fully_qualified_name(value: str) -> list[str]:
    """`prefix/name`: a DNS subdomain prefix and a C identifier of at most 32 characters."""
    prefix, slash, name = value.partition("/")
    if not slash or not prefix or not name:
        return ["a fully qualified resource name must be a DNS subdomain prefix and a name, separated by '/' (e.g. 'example.com/my_name')"]
    errors = ["prefix part " + m for m in is_dns1123_subdomain(prefix)]
    if len(name) > 32:
        errors.append("name part " + max_len_error(32))
    if not _C_IDENTIFIER.match(name):
        errors.append("name part " + regex_error(C_IDENTIFIER_ERR, C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName"))
    return errors


def is_resource_pool_name(value: str) -> list[str]:
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        return [max_len_error(DNS1123_SUBDOMAIN_MAX)]
    errors = []
    for part in value.split("/"):
        errors.extend(is_dns1123_subdomain(part))
    return errors


def is_extended_resource_name(value: str) -> list[str]:
    errors = is_qualified_name("requests." + value)
    if "/" not in value:
        errors.append("must be a domain-prefixed name (such as 'example.com/my-resource')")
    elif value.split("/", 1)[0].endswith("kubernetes.io"):
        errors.append("must not be in the kubernetes.io domain")
    return errors


def is_hostname(value: str) -> list[str]:
    if len(value) > 255 or not _HOSTNAME.match(value):
        return ["must be a valid hostname (RFC 1034)"]
    return []


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
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$"
)


def is_email(value: str) -> list[str]:
    """An address as `user@example.com` (the addr-spec of RFC 5322, without comments)."""
    return [] if _EMAIL.match(value) else ["must be a valid email address"]


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


FORMATS: dict[str, Callable[[str], list[str]]] = {
    "k8s-short-name": is_dns1123_label,
    "k8s-long-name": is_dns1123_subdomain,
    "k8s-long-name-caseless": is_dns1123_subdomain_caseless,
    "k8s-label-key": is_qualified_name,
    "k8s-prefixed-label-key": is_prefixed_qualified_name,
    "k8s-label-value": is_valid_label_value,
    "k8s-path-segment-name": is_path_segment_name,
    "k8s-ip": is_ip,
    "k8s-cidr": is_cidr,
    "k8s-uuid": is_uuid,
    "k8s-resource-fully-qualified-name": is_resource_fully_qualified_name,
    "k8s-resource-pool-name": is_resource_pool_name,
    "k8s-extended-resource-name": is_extended_resource_name,
    "date-time": is_date_time,
    "uri": is_uri,
    "email": is_email,
    "hostname": is_hostname,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
    "cidr": is_cidr,
    "byte": is_byte,
    "duration": is_duration,
    "uuid": is_uuid,
}
"""Every format kgen validates, by the name markers use."""
