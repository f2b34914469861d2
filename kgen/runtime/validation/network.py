"""IP addresses and CIDRs as apimachinery's `util/validation` (ip.go) checks them.

Go's parsers decide what is valid, so they are followed here rather than Python's:
`netutils.ParseIPSloppy` (the legacy parser: IPv4 octets may have leading zeros, read as
decimal; IPv4-mapped IPv6 addresses accepted), `netip.ParseAddr` and `ParsePrefix` (the
strict ones: no leading zeros), and `net.IP.String()` for the canonical form (an
IPv4-mapped IPv6 address prints as IPv4; IPv6 as RFC 5952). Each check returns the
messages (the `Detail` of apimachinery's field errors), empty when the value is fine.
"""

from __future__ import annotations

import ipaddress
import re

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

# Go's parsers read ASCII digits only, and nothing after the address (Python's `\d` is any
# script's digit and its `$` matches before a final newline: hence [0-9] and fullmatch).
_IPV4_SLOPPY = re.compile(r"([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})")


def parse_ip_sloppy(value: str) -> IP | None:
    """Go's netutils.ParseIPSloppy: None when Go's legacy parser rejects the text."""
    match = _IPV4_SLOPPY.fullmatch(value)
    if match:
        octets = [int(o) for o in match.groups()]
        return ipaddress.IPv4Address(".".join(map(str, octets))) if all(o <= 255 for o in octets) else None
    if "%" in value or ":" not in value:
        return None
    try:
        return ipaddress.IPv6Address(value)
    except ValueError:
        return None


def go_string(address: IP) -> str:
    """net.IP.String(): an IPv4-mapped IPv6 address as IPv4, IPv6 in RFC 5952 form."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def parse_ip_strict(value: str) -> IP | None:
    """netip.ParseAddr: no leading zeros in IPv4 octets, no zones."""
    if "%" in value:
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def _is_4in6(address: IP | None) -> bool:
    return isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None


def ip_errors(value: str, strict: bool) -> list[str]:
    """apimachinery's parseIP: the legacy parse, and with `strict` what netip rejects."""
    if parse_ip_sloppy(value) is None:
        return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
    if not strict:
        return []
    errors = []
    strict_address = parse_ip_strict(value)
    if strict_address is None:
        errors.append("must not have leading 0s")
    if _is_4in6(strict_address):
        errors.append("must not be an IPv4-mapped IPv6 address")
    return errors


def is_valid_ip(value: str) -> list[str]:
    """IsValidIP: a valid IP address in canonical form (what new API fields take)."""
    errors = ip_errors(value, strict=True)
    if errors:
        return errors
    canonical = go_string(parse_ip_sloppy(value))  # type: ignore[arg-type]
    return [] if value == canonical else [f'must be in canonical form ("{canonical}")']


def is_valid_ip_for_legacy_field(value: str, strict: bool, valid_old: tuple[str, ...] = ()) -> list[str]:
    """IsValidIPForLegacyField: fields that took any IP Go's old parser read; `strict` when
    the StrictIPCIDRValidation gate is on; an unchanged old value stays valid."""
    if value in valid_old:
        return []
    return ip_errors(value, strict)


_CIDR_SLOPPY = re.compile(r"([^/]+)/([0-9]{1,3})")


def parse_cidr_sloppy(value: str) -> tuple[IP, ipaddress.IPv4Network | ipaddress.IPv6Network] | None:
    """netutils.ParseCIDRSloppy: (the address as written, its network), or None."""
    match = _CIDR_SLOPPY.fullmatch(value)
    if not match:
        return None
    address = parse_ip_sloppy(match.group(1))
    if address is None:
        return None
    length = int(match.group(2))
    bits = 32 if isinstance(address, ipaddress.IPv4Address) else 128
    if length > bits:
        return None
    network = ipaddress.ip_network(f"{address}/{length}", strict=False)
    return address, network


def cidr_go_string(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> str:
    """net.IPNet.String(): a network of IPv4-mapped addresses prints as IPv4."""
    address = network.network_address
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None and network.prefixlen >= 96:
        return f"{address.ipv4_mapped}/{network.prefixlen - 96}"
    return str(network)


def cidr_errors(value: str, strict: bool) -> list[str]:
    """apimachinery's parseCIDR: the legacy parse, and with `strict` what netip rejects."""
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]
    if not strict:
        return []
    text, _, length = value.partition("/")
    address = parse_ip_strict(text)
    if address is None or (len(length) > 1 and length.startswith("0")):
        return ["must not have leading 0s in IP or prefix length"]
    if _is_4in6(address):
        return ["must not have an IPv4-mapped IPv6 address"]
    if address != parsed[1].network_address:
        return ["must not have bits set beyond the prefix length"]
    return []


def is_valid_cidr(value: str) -> list[str]:
    """IsValidCIDR: a valid CIDR in canonical form."""
    errors = cidr_errors(value, strict=True)
    if errors:
        return errors
    canonical = cidr_go_string(parse_cidr_sloppy(value)[1])  # type: ignore[index]
    return [] if value == canonical else [f'must be in canonical form ("{canonical}")']


def is_valid_cidr_for_legacy_field(value: str, strict: bool, valid_old: tuple[str, ...] = ()) -> list[str]:
    """IsValidCIDRForLegacyField (see is_valid_ip_for_legacy_field)."""
    if value in valid_old:
        return []
    return cidr_errors(value, strict)


def is_valid_interface_address(value: str) -> list[str]:
    """IsValidInterfaceAddress: an address with its prefix length (`10.9.8.7/24`), canonical."""
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return ["must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"]
    address, network = parsed
    length = network.prefixlen
    if _is_4in6(address) and length >= 96:
        length -= 96
    canonical = f"{go_string(address)}/{length}"
    return [] if value == canonical else [f'must be in canonical form ("{canonical}")']


def warnings_for_ip(path: str, value: str) -> list[str]:
    """GetWarningsForIP: what to tell a client about a legacy IP value."""
    address = parse_ip_sloppy(value)
    if address is None:
        return []
    strict = parse_ip_strict(value)
    if strict is None or _is_4in6(strict):
        return [f'{path}: non-standard IP address "{value}" is invalid: use "{go_string(address)}"']
    if isinstance(strict, ipaddress.IPv6Address) and str(strict) != value:
        return [f'{path}: IPv6 address "{value}" should be in RFC 5952 canonical format ("{strict}")']
    return []
