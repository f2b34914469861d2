"""Who may talk to the server: loopback without credentials, anything else over TLS with a token.

`kgen serve` binds 127.0.0.1 by default and then needs nothing. Any other address (or
`--tls`) serves HTTPS with a self-signed certificate made at startup (for the bound
address, 127.0.0.1, ::1, localhost and the host's name) and requires
`Authorization: Bearer <token>`; the kubeconfig the server writes carries the
certificate as its authority and the token. `/healthz`, `/livez`, `/readyz` and
`/version` answer without a token, as the API server lets anyone read them.
"""

from __future__ import annotations

import datetime
import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from kgen.serve.respond import encode_json

PUBLIC_PATHS = ("/healthz", "/livez", "/readyz", "/version")


def is_loopback(address: str) -> bool:
    """Whether binding `address` reaches this machine only."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


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


class BearerTokenAuth:
    """ASGI middleware: every request but the public paths needs the bearer token (401)."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        given = next((value for name, value in scope["headers"] if name == b"authorization"), b"")
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(_UNAUTHORIZED)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": _UNAUTHORIZED})
