"""The Kubernetes CEL libraries, as functions for the `cel` engine.

The API server's CEL environment (k8s.io/apiserver/pkg/cel/environment at 1.36) adds to
standard CEL: lists (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`, and
cel-go's ext lists: `slice`, `flatten`, `distinct`, `reverse`, `sort`, `lists.range`),
strings (cel-go's ext strings: `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`,
`upperAscii`, `replace`, `split`, `substring`, `trim`, `join`, `reverse`, `strings.quote`,
`format`), regex (`find`, `findAll`), URLs, IP and CIDR, quantity, semver, format
(`format.dns1123Label().validate(s)`), sets (`sets.contains`, `sets.equivalent`,
`sets.intersects`) and optional types.

The engine calls Python for functions but carries only JSON-like values, so the library's
own types (an IP, a CIDR, a URL, a Quantity, a Semver, a format) travel as small tagged
maps holding their canonical form: two IPs are equal when their addresses are, as in
cel-go. Namespaces (`format`, `ip`, `sets`, `strings`, `lists`) are variables the member
functions recognise. A call on values of the wrong type raises, which the rule reports as
an evaluation error, as the API server reports "no such overload".
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Callable
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import TYPE_CHECKING, Any

from kgen.runtime.validation import regexp

if TYPE_CHECKING:
    from kgen.runtime.quantity import Quantity

TAG = "__kgen_cel__"


def _tagged(kind: str, value: Any) -> dict[str, Any]:
    return {TAG: kind, "v": value}


def _kind(value: Any) -> str | None:
    return value.get(TAG) if type(value) is dict else None


def _expect(value: Any, kind: str, function: str) -> Any:
    if _kind(value) != kind:
        raise TypeError(f"no such overload: {function}")
    return value["v"]


MATCHES = "__kgen_matches"
"""What rules' `matches` calls are renamed to, so that they run on RE2 (`cel.Rule`)."""

NAMESPACES = {name: _tagged(name + "lib", None) for name in ("format", "ip", "sets", "strings", "lists")}
"""Variables that stand for the libraries' namespaces (`format.dns1123Label()`)."""


def _namespace(value: Any) -> str | None:
    kind = _kind(value)
    return kind[:-3] if kind and kind.endswith("lib") else None


# -- IP and CIDR (library.IP, library.CIDR) ---------------------------------------------------


def _parse_ip(text: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if not isinstance(text, str):
        raise TypeError("no such overload: ip")
    if "%" in text:
        raise ValueError(f"IP Address {text!r} with zone value is not allowed")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise ValueError(f"IP Address {text!r} parse error during conversion from string") from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise ValueError(f"IPv4-mapped IPv6 address {text!r} is not allowed")
    return address


def _ip(*args: Any) -> dict[str, Any]:
    """ip(string), or cidr.ip(): the IP address of a string or the address of a prefix."""
    if len(args) == 1 and _kind(args[0]) == "cidr":
        return _tagged("ip", str(ipaddress.ip_interface(args[0]["v"]).ip))
    if len(args) != 1:
        raise TypeError("no such overload: ip")
    return _tagged("ip", str(_parse_ip(args[0])))


def _is_ip(*args: Any) -> bool:
    text = args[-1]
    try:
        _parse_ip(text)
    except ValueError:
        return False
    return True


def _is_canonical(*args: Any) -> bool:
    text: str = args[-1]
    return str(_parse_ip(text)) == text


def _address(value: Any, function: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(_expect(value, "ip", function))


def _parse_cidr(text: Any) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    if not isinstance(text, str):
        raise TypeError("no such overload: cidr")
    if "%" in text or "/" not in text:
        raise ValueError(f"network address parse error during conversion from string: invalid CIDR {text!r}")
    try:
        interface = ipaddress.ip_interface(text)
    except ValueError:
        raise ValueError(f"network address parse error during conversion from string: invalid CIDR {text!r}") from None
    if isinstance(interface, ipaddress.IPv6Interface) and interface.ip.ipv4_mapped is not None:
        raise ValueError(f"IPv4-mapped IPv6 address {text!r} is not allowed")
    return interface


def _cidr(text: Any) -> dict[str, Any]:
    return _tagged("cidr", str(_parse_cidr(text)))


def _is_cidr(text: Any) -> bool:
    try:
        _parse_cidr(text)
    except ValueError:
        return False
    return True


def _network(value: Any, function: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_interface(_expect(value, "cidr", function)).network


def _contains_ip(cidr: Any, ip: Any) -> bool:
    address = ipaddress.ip_address(ip["v"]) if _kind(ip) == "ip" else _parse_ip(ip)
    network = _network(cidr, "containsIP")
    return address.version == network.version and address in network


def _contains_cidr(cidr: Any, other: Any) -> bool:
    inner = ipaddress.ip_interface(other["v"]).network if _kind(other) == "cidr" else _parse_cidr(other).network
    network = _network(cidr, "containsCIDR")
    if isinstance(inner, ipaddress.IPv4Network) and isinstance(network, ipaddress.IPv4Network):
        return inner.subnet_of(network)
    if isinstance(inner, ipaddress.IPv6Network) and isinstance(network, ipaddress.IPv6Network):
        return inner.subnet_of(network)
    return False  # of different IP versions


def _masked(cidr: Any) -> dict[str, Any]:
    return _tagged("cidr", str(_network(cidr, "masked")))


def _prefix_length(cidr: Any) -> int:
    return _network(cidr, "prefixLength").prefixlen


def _family(value: Any) -> int:
    return _address(value, "family").version


# -- URLs (library.URLs) ------------------------------------------------------------------------


def _parse_url(text: Any) -> urllib.parse.SplitResult:
    if not isinstance(text, str):
        raise TypeError("no such overload: url")
    parts = urllib.parse.urlsplit(text)
    # Go's url.ParseRequestURI: an absolute URI or an absolute path, no fragment.
    if "#" in text or not (parts.scheme or text.startswith("/")) or any(c in text for c in " \t\n"):
        raise ValueError(f"URL parse error during conversion from string: {text!r}")
    return parts


def _url(text: Any) -> dict[str, Any]:
    _parse_url(text)
    return _tagged("url", text)


def _is_url(text: Any) -> bool:
    try:
        _parse_url(text)
    except ValueError:
        return False
    return True


def _url_parts(value: Any, function: str) -> urllib.parse.SplitResult:
    parts: urllib.parse.SplitResult = urllib.parse.urlsplit(_expect(value, "url", function))
    return parts


def _get_host(value: Any) -> str:
    return _url_parts(value, "getHost").netloc.rpartition("@")[2]


def _get_hostname(value: Any) -> str:
    host = _get_host(value)
    if host.startswith("["):
        return host[1 : host.index("]")]
    return host.rsplit(":", 1)[0] if ":" in host else host


def _get_port(value: Any) -> str:
    host = _get_host(value)
    if host.startswith("["):
        rest = host[host.index("]") + 1 :]
        return rest[1:] if rest.startswith(":") else ""
    return host.rsplit(":", 1)[1] if ":" in host else ""


def _get_query(value: Any) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(_url_parts(value, "getQuery").query, keep_blank_values=True)


# -- Quantity (library.Quantity) -----------------------------------------------------------------


def _q(value: Any, function: str) -> Quantity:
    from kgen.runtime.quantity import Quantity

    return Quantity(_expect(value, "quantity", function))


def _quantity(text: Any) -> dict[str, Any]:
    from kgen.runtime.quantity import Quantity

    if not isinstance(text, str):
        raise TypeError("no such overload: quantity")
    return _tagged("quantity", Quantity(text).to_json())


def _is_quantity(text: Any) -> bool:
    try:
        _quantity(text)
    except (ValueError, TypeError):
        return False
    return True


_QUANTITY_CONTEXT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)


def _quantity_value(value: Any, function: str) -> Decimal:
    if type(value) is int:
        return Decimal(value)
    return _q(value, function).value


def _quantity_result(value: Decimal, like: Any) -> dict[str, Any]:
    from kgen.runtime.quantity import Quantity

    fmt = _q(like, "add").format
    return _tagged("quantity", Quantity.from_decimal(value, fmt).to_json())


def _sign(value: Any) -> int:
    number = _q(value, "sign").value
    return (number > 0) - (number < 0)


def _is_integer(value: Any) -> bool:
    number = _q(value, "isInteger").value
    return number == number.to_integral_value() and abs(number) < 2**63


def _as_integer(value: Any) -> int:
    number = _q(value, "asInteger").value
    if number != number.to_integral_value() or abs(number) >= 2**63:
        raise ValueError("cannot convert value to integer")
    return int(number)


# -- Semver (library.SemverLib) ---------------------------------------------------------------

# Fixed, linear expressions (no nested repetition can match the same text two ways), read
# as ASCII and anchored at the very end, as Go's regexp reads them.
_SEMVER = re.compile(
    r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?",
    re.ASCII,
)


def _normalize_semver(text: str) -> str:
    """The semver library's normalization: a leading `v` dropped, missing minor and patch
    numbers as 0, leading zeros of the numbers dropped."""
    text = text.removeprefix("v")
    cut = min((i for i in (text.find("-"), text.find("+")) if i >= 0), default=len(text))
    core, rest = text[:cut], text[cut:]
    numbers = core.split(".")
    numbers += ["0"] * (3 - len(numbers))
    return ".".join(str(int(n)) if n.isascii() and n.isdigit() else n for n in numbers) + rest


def _semver(text: Any, normalize: bool = False) -> dict[str, Any]:
    if not isinstance(text, str):
        raise TypeError("no such overload: semver")
    candidate = _normalize_semver(text) if normalize else text
    if not _SEMVER.fullmatch(candidate):
        raise ValueError(f"error parsing semver {text!r}")
    return _tagged("semver", candidate)


def _is_semver(text: Any, normalize: bool = False) -> bool:
    try:
        _semver(text, normalize)
    except (ValueError, TypeError):
        return False
    return True


def _semver_key(value: Any, function: str) -> tuple[Any, ...]:
    match = _SEMVER.fullmatch(_expect(value, "semver", function))
    assert match is not None
    major, minor, patch, pre = int(match.group(1)), int(match.group(2)), int(match.group(3)), match.group(4)
    if pre is None:
        return (major, minor, patch, 1, ())
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (major, minor, patch, 0, parts)


# -- comparisons shared by Quantity and Semver ---------------------------------------------------


def _compare(a: Any, b: Any, function: str) -> int:
    if _kind(a) == "quantity":
        x, y = _q(a, function).value, _q(b, function).value
        return (x > y) - (x < y)
    v, w = _semver_key(a, function), _semver_key(b, function)
    return (v > w) - (v < w)


# -- format (library.Format) -----------------------------------------------------------------------


def _format_checks() -> dict[str, Callable[[str], list[str]]]:
    from kgen.runtime.validation import formats

    from kgen.runtime.validation.meta import mask_trailing_dash

    def prefix(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
        # A name prefix (generateName), as NameIsDNSLabel(value, prefix=true) checks it.
        return lambda value: check(mask_trailing_dash(value))

    dns1035 = formats.is_dns1035_label

    return {
        "dns1123Label": formats.is_dns1123_label,
        "dns1123Subdomain": formats.is_dns1123_subdomain,
        "dns1035Label": dns1035,
        "qualifiedName": formats.is_qualified_name,
        "dns1123LabelPrefix": prefix(formats.is_dns1123_label),
        "dns1123SubdomainPrefix": prefix(formats.is_dns1123_subdomain),
        "dns1035LabelPrefix": prefix(dns1035),
        "labelValue": formats.is_valid_label_value,
        "uri": lambda value: [] if _is_url(value) else ["an URI"],
        "uuid": formats.is_uuid,
        "byte": formats.is_byte,
        "date": lambda value: (
            [] if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value) and _valid_date(value) else ["an RFC3339 date"]
        ),
        "datetime": formats.is_date_time,
    }


def _valid_date(value: str) -> bool:
    import datetime

    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


_FORMATS: dict[str, Callable[[str], list[str]]] | None = None


def _format_names() -> dict[str, Callable[[str], list[str]]]:
    global _FORMATS
    if _FORMATS is None:
        _FORMATS = _format_checks()
    return _FORMATS


def _named(library: Any, name: Any) -> Any:
    import cel

    if _namespace(library) != "format":
        raise TypeError("no such overload: named")
    return cel.OptionalValue.of(_tagged("format", name)) if name in _format_names() else cel.OptionalValue.none()


def _validate(format_value: Any, text: Any) -> Any:
    import cel

    name = _expect(format_value, "format", "validate")
    if not isinstance(text, str):
        raise TypeError("no such overload: validate")
    errors = _format_names()[name](text)
    return cel.OptionalValue.of(list(errors)) if errors else cel.OptionalValue.none()


def _format_function(name: str) -> Callable[..., dict[str, Any]]:
    def function(library: Any) -> dict[str, Any]:
        if _namespace(library) != "format":
            raise TypeError(f"no such overload: {name}")
        return _tagged("format", name)

    return function


# -- strings (cel-go ext strings, version 2) and lists ---------------------------------------------


def _index_of(receiver: Any, item: Any, offset: int = 0) -> int:
    if isinstance(receiver, str):
        if offset < 0 or offset > len(receiver):
            raise ValueError(f"index out of range: {offset}")
        return receiver.find(item, offset)
    try:
        return list(receiver).index(item)
    except ValueError:
        return -1


def _last_index_of(receiver: Any, item: Any, offset: int | None = None) -> int:
    if isinstance(receiver, str):
        if offset is None:
            return receiver.rfind(item)
        if offset < 0 or offset > len(receiver):
            raise ValueError(f"index out of range: {offset}")
        return receiver.rfind(item, 0, offset + len(item))
    for i in range(len(receiver) - 1, -1, -1):
        if receiver[i] == item:
            return i
    return -1


def _substring(text: str, start: int, end: int | None = None) -> str:
    end = len(text) if end is None else end
    if start < 0 or start > len(text) or end < start or end > len(text):
        raise ValueError(
            f"index out of range: {start}" if start < 0 or start > len(text) else f"index out of range: {end}"
        )
    return text[start:end]


def _char_at(text: str, index: int) -> str:
    if index < 0 or index > len(text):
        raise ValueError(f"index out of range: {index}")
    return text[index] if index < len(text) else ""


def _replace(text: str, old: str, new: str, count: int = -1) -> str:
    return text.replace(old, new, count if count >= 0 else -1)


def _split(text: str, separator: str, count: int = -1) -> list[str]:
    """Go's strings.SplitN: at most `count` parts (all when negative, none when 0); an empty
    separator splits into characters."""
    if count == 0:
        return []
    if separator == "":
        parts = list(text)
        if 0 < count < len(parts):
            parts = parts[: count - 1] + ["".join(parts[count - 1 :])]
        return parts
    return text.split(separator, count - 1) if count > 0 else text.split(separator)


def _join(items: list[Any], separator: str = "") -> str:
    if not all(isinstance(i, str) for i in items):
        raise TypeError("no such overload: join")
    return separator.join(items)


def _quote(library: Any, text: str) -> str:
    if _namespace(library) != "strings":
        raise TypeError("no such overload: quote")
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    for ch, esc in (
        ("\a", "\\a"),
        ("\b", "\\b"),
        ("\f", "\\f"),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\t", "\\t"),
        ("\v", "\\v"),
    ):
        escaped = escaped.replace(ch, esc)
    return f'"{escaped}"'


def _reverse(value: Any) -> Any:
    if isinstance(value, str):
        return value[::-1]
    return list(reversed(value))


def _flatten(items: list[Any], depth: int = 1) -> list[Any]:
    if depth < 0:
        raise ValueError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if isinstance(item, list) and depth > 0:
            out.extend(_flatten(item, depth - 1))
        else:
            out.append(item)
    return out


def _distinct(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _slice(items: list[Any], start: int, end: int) -> list[Any]:
    if start < 0 or end < start or end > len(items):
        raise ValueError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return items[start:end]


def _sort(items: list[Any]) -> list[Any]:
    return sorted(items)


def _range(library: Any, n: int) -> list[int]:
    if _namespace(library) != "lists":
        raise TypeError("no such overload: range")
    return list(range(n))


def _format_string(text: str, args: list[Any]) -> str:
    """cel-go's string.format (`%s`, `%d`, `%f`, `%.Nf`, `%e`, `%b`, `%o`, `%x`, `%X`, `%%`)."""
    out: list[str] = []
    position = 0
    pattern = re.compile(r"%(?:\.([0-9]+))?([sdfeboxX%])")
    last = 0
    for match in pattern.finditer(text):
        out.append(text[last : match.start()])
        last = match.end()
        precision, verb = match.group(1), match.group(2)
        if verb == "%":
            out.append("%")
            continue
        if position >= len(args):
            raise ValueError(f"index {position} out of range")
        value = args[position]
        position += 1
        if verb == "s":
            out.append(_to_string(value))
        elif verb == "d":
            out.append(str(int(value)))
        elif verb in "fe":
            digits = int(precision) if precision is not None else 6
            out.append(f"{float(value):.{digits}{verb}}")
        elif verb == "b":
            out.append(format(int(value), "b"))
        elif verb == "o":
            out.append(format(int(value), "o"))
        elif isinstance(value, str):
            out.append(value.encode().hex())
        elif isinstance(value, bytes):
            out.append(value.hex())
        else:
            out.append(format(int(value), verb))
    out.append(text[last:])
    return "".join(out)


def _to_string(value: Any) -> str:
    """How CEL's string() writes a value (and `%s`); the library's types write their canonical form."""
    kind = _kind(value)
    if kind in ("ip", "cidr", "url", "quantity", "semver"):
        return str(value["v"])
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_to_string(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_to_string(k)}: {_to_string(v)}" for k, v in value.items()) + "}"
    return str(value)


def _sets(name: str, test: Callable[[list[Any], list[Any]], bool]) -> Callable[..., bool]:
    def function(library: Any, a: list[Any], b: list[Any]) -> bool:
        if _namespace(library) != "sets":
            raise TypeError(f"no such overload: {name}")
        return test(a, b)

    return function


def _regex_text(text: Any, function: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"no such overload: {function}")
    return text


def matches(text: Any, pattern: Any) -> bool:
    """CEL's `matches` on RE2, as cel-go runs it (the engine's own reads `\\d` as any digit of
    any script); rules call it as `MATCHES`."""
    return regexp.matches(_regex_text(text, "matches"), _regex_text(pattern, "matches"))


def _find(text: Any, pattern: Any) -> str:
    return regexp.find(_regex_text(text, "find"), _regex_text(pattern, "find"))


def _find_all(text: Any, pattern: Any, limit: int = -1) -> list[str]:
    return regexp.find_all(_regex_text(text, "findAll"), _regex_text(pattern, "findAll"), limit)


def _is_sorted(items: list[Any]) -> bool:
    return all(items[i] <= items[i + 1] for i in range(len(items) - 1))


def _min(items: list[Any]) -> Any:
    if not items:
        raise ValueError("min called on empty list")
    return min(items)


def _max(items: list[Any]) -> Any:
    if not items:
        raise ValueError("max called on empty list")
    return max(items)


def _string_method(value: Any) -> str:
    """`x.string()` of the library's types (their canonical form), and, since a function of
    this name replaces the engine's own, CEL's `string()` conversion as cel-go writes it."""
    if _kind(value) in ("ip", "cidr"):
        text: str = value["v"]
        return text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)) and _kind(value) is None:
        return str(value)
    if isinstance(value, float):
        return _go_shortest_g(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("invalid UTF-8 in bytes, cannot convert to string") from None
    import datetime

    if isinstance(value, datetime.datetime):
        moment = value.astimezone(datetime.timezone.utc) if value.tzinfo else value
        fraction = f".{moment.microsecond:06d}".rstrip("0") if moment.microsecond else ""
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"
    if isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
        return (str(int(seconds)) if seconds.is_integer() else repr(seconds)) + "s"
    raise TypeError("no such overload: string")


def _go_shortest_g(value: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64) (cel-go's string of a double): the shortest
    digits, in exponent form below 1e-4 and from 1e6."""
    import math

    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + int(exponent)  # the decimal point's place in the digits
    shown = point - 1
    prefix = "-" if sign else ""
    if shown < -4 or shown >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if shown < 0 else '+'}{abs(shown):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text}"
    if point >= len(text):
        return prefix + text + "0" * (point - len(text))
    return f"{prefix}{text[:point]}.{text[point:]}"


FUNCTIONS: dict[str, Callable[..., Any]] = {
    # lists
    "isSorted": _is_sorted,
    "sum": lambda items: sum(items),
    "min": _min,
    "max": _max,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "slice": _slice,
    "flatten": _flatten,
    "distinct": _distinct,
    "sort": _sort,
    "range": _range,
    "reverse": _reverse,
    # strings
    "charAt": _char_at,
    "lowerAscii": lambda s: "".join(c.lower() if c.isascii() else c for c in s),
    "upperAscii": lambda s: "".join(c.upper() if c.isascii() else c for c in s),
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda s: s.strip(" \t\n\r\v\f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"),
    "join": _join,
    "quote": _quote,
    "format": _format_string,
    # regex
    "find": _find,
    "findAll": _find_all,
    # URLs
    "url": _url,
    "isURL": _is_url,
    "getScheme": lambda u: _url_parts(u, "getScheme").scheme,
    "getHost": _get_host,
    "getHostname": _get_hostname,
    "getPort": _get_port,
    "getEscapedPath": lambda u: _url_parts(u, "getEscapedPath").path,
    "getQuery": _get_query,
    # IP and CIDR
    "ip": _ip,
    "isIP": _is_ip,
    "isCanonical": _is_canonical,
    "family": _family,
    "isUnspecified": lambda v: _address(v, "isUnspecified").is_unspecified,
    "isLoopback": lambda v: _address(v, "isLoopback").is_loopback,
    "isLinkLocalMulticast": lambda v: (a := _address(v, "isLinkLocalMulticast")).is_multicast
    and (a in ipaddress.ip_network("224.0.0.0/24") if a.version == 4 else a in ipaddress.ip_network("ff02::/16")),
    "isLinkLocalUnicast": lambda v: _address(v, "isLinkLocalUnicast").is_link_local
    and not _address(v, "isLinkLocalUnicast").is_multicast,
    "isGlobalUnicast": lambda v: not ((a := _address(v, "isGlobalUnicast")).is_unspecified or a.is_loopback
                                      or a.is_multicast or a.is_link_local
                                      or (a.version == 4 and a == ipaddress.ip_address("255.255.255.255"))),
    "cidr": _cidr,
    "isCIDR": _is_cidr,
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
    "masked": _masked,
    "prefixLength": _prefix_length,
    "string": _string_method,
    # quantity
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "sign": _sign,
    "isInteger": _is_integer,
    "asInteger": _as_integer,
    "asApproximateFloat": lambda q: float(_q(q, "asApproximateFloat").value),
    # in the quantity module's unbounded context: quantities may be as large as 1e999999999
    "add": lambda a, b: _quantity_result(_QUANTITY_CONTEXT.add(_quantity_value(a, "add"), _quantity_value(b, "add")), a),
    "sub": lambda a, b: _quantity_result(_QUANTITY_CONTEXT.subtract(_quantity_value(a, "sub"), _quantity_value(b, "sub")), a),
    # semver
    "semver": _semver,
    "isSemver": _is_semver,
    "major": lambda v: _semver_key(v, "major")[0],
    "minor": lambda v: _semver_key(v, "minor")[1],
    "patch": lambda v: _semver_key(v, "patch")[2],
    # comparisons of quantities and semvers
    "isGreaterThan": lambda a, b: _compare(a, b, "isGreaterThan") > 0,
    "isLessThan": lambda a, b: _compare(a, b, "isLessThan") < 0,
    "compareTo": lambda a, b: _compare(a, b, "compareTo"),
    # format
    "named": _named,
    "validate": _validate,
    **{name: _format_function(name) for name in (
        "dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
        "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime",
    )},
    # sets
    "contains": _sets("contains", lambda a, b: all(x in a for x in b)),
    "equivalent": _sets("equivalent", lambda a, b: all(x in a for x in b) and all(x in b for x in a)),
    "intersects": _sets("intersects", lambda a, b: any(x in a for x in b)),
}  # fmt: skip
"""Every function the Kubernetes libraries add, by the name rules call them with."""
