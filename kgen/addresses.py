"""Which addresses a server may listen on without TLS or a token: those that reach only
this machine. `kgen serve` (its --no-auth and plain HTTP) and `kgen webhook` (its --no-tls)
ask the same question."""

from __future__ import annotations

import ipaddress


def is_loopback(address: str) -> bool:
    """Whether binding `address` reaches this machine only (`localhost`, 127.0.0.0/8, ::1)."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
