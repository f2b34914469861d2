"""Names and values as apimachinery checks them: validation-gen's `api/validate/content`
(lengths in bytes) and the older `util/validation` (the same checks, lengths worded in
characters, and a few more).

Go measures strings in bytes and its `^...$` never matches across a newline, so lengths
here are UTF-8 byte counts and patterns match whole strings. Each check returns the
messages apimachinery returns, empty when the value is fine. The patterns are fixed,
ASCII and linear (no repetition can match the same text two ways), so Python's `re` reads
them as Go does, in linear time; the one that ignores case runs on RE2.
"""

from __future__ import annotations

import re

from kgen.runtime.validation import regexp
from kgen.runtime.validation.field import empty_error, inclusive_range_error, regex_error

# -- messages ---------------------------------------------------------------------------------


def max_len_error(length: int, unit: str = "bytes") -> str:
    return f"must be no more than {length} {unit}"


def _size(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def _matches(pattern: re.Pattern[str], value: str) -> bool:
    return pattern.fullmatch(value) is not None


# -- DNS names ------------------------------------------------------------------------------------

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character"
)
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_CASELESS_ERR = (
    "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an "
    "alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX = 253
DNS1123_LABEL_UNDERSCORE_FMT = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_UNDERSCORE_FMT = DNS1123_LABEL_UNDERSCORE_FMT + "(\\." + DNS1123_LABEL_UNDERSCORE_FMT + ")*"
DNS1123_SUBDOMAIN_UNDERSCORE_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and "
    "must start and end with an alphanumeric character"
)
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character"
)
DNS1035_LABEL_MAX = 63
WILDCARD_DNS1123_SUBDOMAIN_FMT = "\\*\\." + DNS1123_SUBDOMAIN_FMT
WILDCARD_DNS1123_SUBDOMAIN_ERR = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist "
    "of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
)

_DNS1123_LABEL = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN = re.compile(DNS1123_SUBDOMAIN_FMT)
# Go's (?i) folds case as Unicode's simple folding does (K matches the Kelvin sign), and not as
# Python's re does (which also lets [a-z] match the Turkish dotless and dotted i): RE2 here.
_DNS1123_SUBDOMAIN_CASELESS = regexp.Pattern("^(?i:" + DNS1123_SUBDOMAIN_FMT + ")$")
_DNS1123_SUBDOMAIN_UNDERSCORE = re.compile(DNS1123_SUBDOMAIN_UNDERSCORE_FMT)
_DNS1035_LABEL = re.compile(DNS1035_LABEL_FMT)
_WILDCARD_DNS1123_SUBDOMAIN = re.compile(WILDCARD_DNS1123_SUBDOMAIN_FMT)


def is_dns1123_label(value: str, unit: str = "bytes") -> list[str]:
    """A lowercase RFC 1123 label (`k8s-short-name`)."""
    errors = []
    if _size(value) > DNS1123_LABEL_MAX:
        errors.append(max_len_error(DNS1123_LABEL_MAX, unit))
    if not _matches(_DNS1123_LABEL, value):
        if _matches(_DNS1123_SUBDOMAIN, value):
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_dns1123_subdomain(value: str, unit: str = "bytes") -> list[str]:
    """A lowercase RFC 1123 subdomain (`k8s-long-name`)."""
    errors = []
    if _size(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX, unit))
    if not _matches(_DNS1123_SUBDOMAIN, value):
        errors.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_dns1123_subdomain_caseless(value: str) -> list[str]:
    """An RFC 1123 subdomain of any case (`k8s-long-name-caseless`)."""
    errors = []
    if _size(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_CASELESS.search(value):
        errors.append(regex_error(DNS1123_SUBDOMAIN_CASELESS_ERR, DNS1123_SUBDOMAIN_FMT, "Example.com"))
    return errors


def is_dns1123_subdomain_with_underscore(value: str) -> list[str]:
    errors = []
    if _size(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX, "characters"))
    if not _matches(_DNS1123_SUBDOMAIN_UNDERSCORE, value):
        errors.append(regex_error(DNS1123_SUBDOMAIN_UNDERSCORE_ERR, DNS1123_SUBDOMAIN_UNDERSCORE_FMT, "example.com"))
    return errors


def is_dns1035_label(value: str, unit: str = "characters") -> list[str]:
    """An RFC 1035 label: a lowercase name starting with a letter (Service names)."""
    errors = []
    if _size(value) > DNS1035_LABEL_MAX:
        errors.append(max_len_error(DNS1035_LABEL_MAX, unit))
    if not _matches(_DNS1035_LABEL, value):
        errors.append(regex_error(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errors


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    errors = []
    if _size(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX, "characters"))
    if not _matches(_WILDCARD_DNS1123_SUBDOMAIN, value):
        errors.append(regex_error(WILDCARD_DNS1123_SUBDOMAIN_ERR, WILDCARD_DNS1123_SUBDOMAIN_FMT, "*.example.com"))
    return errors


# -- labels, keys, identifiers ------------------------------------------------------------------

LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_KEY_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_KEY_MAX = 63
LABEL_VALUE_FMT = "(" + LABEL_KEY_FMT + ")?"
LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character"
)
LABEL_VALUE_MAX = 63
C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
C_IDENTIFIER_ERR = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_'"
)

_LABEL_KEY = re.compile(LABEL_KEY_FMT)
_LABEL_VALUE = re.compile(LABEL_VALUE_FMT)
_C_IDENTIFIER = re.compile(C_IDENTIFIER_FMT)


def is_label_key(value: str, unit: str = "bytes") -> list[str]:
    """A label key or qualified name: `name` or `prefix/name` (`k8s-label-key`)."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part " + empty_error())
        else:
            errors += ["prefix part " + m for m in is_dns1123_subdomain(prefix, unit)]
    else:
        return [
            "a valid label key "
            + regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part " + empty_error())
    elif _size(name) > LABEL_KEY_MAX:
        errors.append("name part " + max_len_error(LABEL_KEY_MAX, unit))
    if not _matches(_LABEL_KEY, name):
        errors.append("name part " + regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errors


def is_label_value(value: str, unit: str = "bytes") -> list[str]:
    """A label value: empty, or a qualified-name-like string (`k8s-label-value`)."""
    errors = []
    if _size(value) > LABEL_VALUE_MAX:
        errors.append(max_len_error(LABEL_VALUE_MAX, unit))
    if not _matches(_LABEL_VALUE, value):
        errors.append(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def is_c_identifier(value: str) -> list[str]:
    """A C identifier (`my_name`)."""
    if not _matches(_C_IDENTIFIER, value):
        return [regex_error(C_IDENTIFIER_ERR, C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]
    return []


def is_decimal_integer(value: str) -> list[str]:
    """A decimal integer in canonical form: no sign but `-`, no leading zeros, `-0` not allowed."""
    if not value:
        return [empty_error()]
    body = value[1:] if value.startswith("-") else value
    if body == "0" and value == "0":
        return []
    if not body or not body.isascii() or not body.isdigit() or body[0] == "0":
        return ["must be a valid decimal integer in canonical form"]
    return []


def is_path_segment_name(value: str) -> list[str]:
    """A name that can be a path segment: not `.` or `..`, no `/` or `%`."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def is_domain_prefixed_key(value: str) -> list[str]:
    """A key with a domain prefix (`acme.io/foo`)."""
    if not value:
        return ["Required value"]
    errors = is_label_key(value, "characters")
    if errors:
        return errors
    if len(value.split("/")) != 2:
        return ['must be a domain-prefixed key (such as "acme.io/foo")']
    return []


# -- util/validation's other checks ----------------------------------------------------------

PERCENT_FMT = "[0-9]+%"
HTTP_HEADER_NAME_FMT = "[-A-Za-z0-9]+"
CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"
ENV_VAR_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*"
HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_PERCENT = re.compile(PERCENT_FMT)
_HTTP_HEADER_NAME = re.compile(HTTP_HEADER_NAME_FMT)
_CONFIG_MAP_KEY = re.compile(CONFIG_MAP_KEY_FMT)
_ENV_VAR_NAME = re.compile(ENV_VAR_NAME_FMT)
_HTTP_PATH = re.compile(HTTP_PATH_FMT)
_PORT_NAME = re.compile("[-a-z0-9]+")


def is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_in_range(value: int, low: int, high: int) -> list[str]:
    return [] if low <= value <= high else [inclusive_range_error(low, high)]


def is_valid_group_id(gid: int) -> list[str]:
    return [] if 0 <= gid <= 2**31 - 1 else [inclusive_range_error(0, 2**31 - 1)]


is_valid_user_id = is_valid_group_id


def is_valid_port_name(port: str) -> list[str]:
    """An IANA service name (a named container port)."""
    errors = []
    if _size(port) > 15:
        errors.append(max_len_error(15, "characters"))
    if not _matches(_PORT_NAME, port):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search("[a-z]", port):
        errors.append("must contain at least one letter (a-z)")
    if "--" in port:
        errors.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errors.append("must not begin or end with a hyphen")
    return errors


def is_valid_percent(value: str) -> list[str]:
    if not _matches(_PERCENT, value):
        return [
            regex_error(
                "a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, "1%", "93%"
            )
        ]
    return []


def is_http_header_name(value: str) -> list[str]:
    if not _matches(_HTTP_HEADER_NAME, value):
        return [
            regex_error(
                "a valid HTTP header must consist of alphanumeric characters or '-'",
                HTTP_HEADER_NAME_FMT,
                "X-Header-Name",
            )
        ]
    return []


def _chdir_prefix(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def is_env_var_name(value: str) -> list[str]:
    errors = []
    if not _matches(_ENV_VAR_NAME, value):
        errors.append(regex_error(
            "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', "
            "and must not start with a digit", ENV_VAR_NAME_FMT, "my.env-name", "MY_ENV.NAME", "MyEnvName1",
        ))  # fmt: skip
    return errors + _chdir_prefix(value)


def is_relaxed_env_var_name(value: str) -> list[str]:
    errors = []
    if not value:
        errors.append("environment variable name " + empty_error())
    if any(ord(c) > 127 or not c.isprintable() or c == "=" for c in value):
        errors.append(
            "a valid environment variable name must consist only of printable ASCII characters other than '='"
        )
    return errors


def is_config_map_key(value: str) -> list[str]:
    errors = []
    if _size(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX, "characters"))
    if not _matches(_CONFIG_MAP_KEY, value):
        errors.append(regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT,
            "key.name", "KEY_NAME", "key-name",
        ))  # fmt: skip
    return errors + _chdir_prefix(value)


def is_fully_qualified_name(value: str) -> list[str]:
    """A domain with at least three segments and no trailing dot (deprecated upstream)."""
    if not value:
        return ["Required value"]
    errors = is_dns1123_subdomain(value, "characters")
    if errors:
        return [",".join(errors)]
    if len(value.split(".")) < 3:
        return ["should be a domain with at least three segments separated by dots"]
    return []


def is_fully_qualified_domain_name(value: str) -> list[str]:
    """A domain with at least two segments; a trailing dot is allowed."""
    if not value:
        return ["Required value"]
    name = value[:-1] if value.endswith(".") else value
    errors = is_dns1123_subdomain(name, "characters")
    if errors:
        return [",".join(errors)]
    if len(name.split(".")) < 2:
        return ["should be a domain with at least two segments separated by dots"]
    for label in name.split("."):
        errors = is_dns1123_label(label, "characters")
        if errors:
            return [",".join(errors)]
    return []


def is_domain_prefixed_path(value: str) -> list[str]:
    """`acme.io/foo`: a DNS subdomain, a slash and an HTTP path."""
    if not value:
        return ["Required value"]
    host, slash, path = value.partition("/")
    if not slash or not host or not path:
        return ['must be a domain-prefixed path (such as "acme.io/foo")']
    errors = is_dns1123_subdomain(host, "characters")
    if not _matches(_HTTP_PATH, path):
        return errors + [regex_error("Invalid path", HTTP_PATH_FMT)]
    return errors
