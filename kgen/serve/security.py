"""Who may talk to the server: whoever holds its token, over TLS off loopback.

Every request needs `Authorization: Bearer <token>` (a random token unless one is given;
the kubeconfig the server writes carries it, so kubectl and the clients need nothing more),
websocket upgrades included. `--no-auth` turns that off, on loopback only. A loopback
server also refuses a Host header that is not one of its loopback names, which is what a
web page gets when an attacker resolves its own name to 127.0.0.1 (DNS rebinding). Any
other address (or `--tls`) serves HTTPS with a self-signed certificate made at startup
(for the bound address, 127.0.0.1, ::1, localhost and the host's name), whose key lives in
a 0700 directory under kgen's cache. `/healthz`, `/livez`, `/readyz` and `/version` answer
anyone, as the API server lets anyone read them.
"""

from __future__ import annotations

import datetime
import hmac
import ipaddress
import os
import secrets
import shutil
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from kgen.addresses import is_loopback as is_loopback
from kgen.serve.respond import encode_json

PUBLIC_PATHS = ("/healthz", "/livez", "/readyz", "/version")

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
"""The names a client of a loopback server reaches it by: any other Host header is a page of
another site that resolved its own name to 127.0.0.1 (DNS rebinding)."""


def private_directory() -> Path:
    """A new directory only this user may read (0700) for the TLS key, under kgen's cache
    (else the temp directory), with the directories of servers no longer running removed:
    a server killed with SIGKILL cannot remove its own."""
    from kgen.render import cache_root

    root = (cache_root() or Path(tempfile.gettempdir()) / "kgen") / "serve" / "tls"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    for stale in root.glob("pid-*"):
        pid = stale.name.removeprefix("pid-").split("-", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    directory = Path(tempfile.mkdtemp(prefix=f"pid-{os.getpid()}-", dir=root))
    directory.chmod(0o700)
    return directory


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def new_token() -> str:
    """A random bearer token (256 bits)."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Certificate:
    """A self-signed certificate and its key, PEM-encoded."""

    cert_pem: bytes
    key_pem: bytes


def self_signed_certificate(address: str, days: int = 365) -> Certificate:
    """A certificate for `address` (and loopback, localhost, this host's name), its own CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = [x509.DNSName("localhost")]
    addresses = {"127.0.0.1", "::1"}
    hostname = socket.gethostname()
    if hostname:
        names.append(x509.DNSName(hostname))
    try:
        addresses.add(str(ipaddress.ip_address(address)))
    except ValueError:
        if address not in ("localhost", hostname):
            names.append(x509.DNSName(address))
    if address in ("0.0.0.0", "::"):
        try:
            addresses.update(str(info[4][0]) for info in socket.getaddrinfo(hostname, None))
        except OSError:
            pass
    for text in sorted(addresses):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(text.split("%")[0])))
        except ValueError:
            continue
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kgen-serve")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_encipherment=False, content_commitment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )  # fmt: skip
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return Certificate(
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )


_UNAUTHORIZED = encode_json(
    {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }
)


def _status(code: int, reason: str, message: str) -> bytes:
    return encode_json(
        {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
         "reason": reason, "code": code}
    )  # fmt: skip


async def _refuse(scope: Scope, send: Send, code: int, body: bytes) -> None:
    if scope["type"] == "websocket":  # refused before the handshake completes: HTTP 403
        await send({"type": "websocket.close", "code": 1008})
        return
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": code, "headers": headers})
    await send({"type": "http.response.body", "body": body})


TOKEN_USER = {"username": "kgen", "groups": ["system:masters", "system:authenticated"]}
"""Who holds the token: the server's one user, who may do anything (what admission policies
see as `request.userInfo`). The API server puts every authenticated user in
`system:authenticated`; `system:masters` is the group a cluster's admin credentials carry."""


class BearerTokenAuth:
    """ASGI middleware: every request but the public paths needs the bearer token (401),
    websocket upgrades included. An authenticated request's scope names its user
    (`kgen.user`)."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        given = next((value for name, value in scope["headers"] if name == b"authorization"), b"")
        if hmac.compare_digest(given, self._expected):
            await self.app({**scope, "kgen.user": TOKEN_USER}, receive, send)
            return
        await _refuse(scope, send, 401, _UNAUTHORIZED)


class HostCheck:
    """ASGI middleware of a loopback server: a request whose Host header names anything but
    this machine's loopback names is refused (403), so that a web page whose own name an
    attacker resolves to 127.0.0.1 cannot reach the API from a browser."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str]):
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        host = next((value for name, value in scope["headers"] if name == b"host"), b"").decode("latin-1")
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") else host
        if name.lower() in self.allowed:
            await self.app(scope, receive, send)
            return
        message = f"host {host!r} is not this server's: a loopback server answers only 127.0.0.1, ::1 and localhost"
        await _refuse(scope, send, 403, _status(403, "Forbidden", message))
