"""Where and how to reach an API server: `ClientConfig` and in-cluster configuration.

`load_config()` (in `kgen.runtime.client.kubeconfig`, beside the kubeconfig reader; both
are exported by `kgen.runtime.client`) finds a configuration as controllers do, in this
order: the kubeconfig files of `KUBECONFIG`; the pod's
service account when running in a cluster (`KUBERNETES_SERVICE_HOST`/`_PORT`, the token,
CA and namespace under `/var/run/secrets/kubernetes.io/serviceaccount`); `~/.kube/config`.
Kubeconfig files are read by `kgen.runtime.client.kubeconfig`.

TLS verification is always on unless a kubeconfig says `insecure-skip-tls-verify`. A
config's repr shows where it came from and which kind of credentials it has, never their
values.
"""

from __future__ import annotations

import os
import platform
import ssl
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kgen.runtime.client.credentials import CredentialProvider, TokenFileCredentials
from kgen.runtime.client.errors import ConfigError
from kgen.runtime.client.ratelimit import DEFAULT_BURST, DEFAULT_QPS

__all__ = [
    "TLSConfig",
    "Impersonation",
    "ClientConfig",
    "SERVICE_ACCOUNT_DIR",
    "load_incluster_config",
    "default_user_agent",
    "build_ssl_context",
    "load_client_identity",
]

#: Where the kubelet mounts a pod's service account token, CA and namespace.
SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


@dataclass(frozen=True)
class TLSConfig:
    """How to check the server and which certificate the client shows."""

    ca_file: str = ""
    """A PEM file of the CAs to trust (instead of the system's)."""
    ca_data: bytes = b""
    """PEM CAs to trust (instead of the system's); wins over `ca_file`."""
    insecure: bool = False
    """Do not verify the server's certificate (`insecure-skip-tls-verify`)."""
    server_name: str = ""
    """The name to send as SNI and to check the certificate against (`tls-server-name`)."""
    cert_file: str = ""
    """A PEM client certificate file."""
    cert_data: bytes = field(default=b"", repr=False)
    """A PEM client certificate."""
    key_file: str = ""
    """The PEM key file of the client certificate."""
    key_data: bytes = field(default=b"", repr=False)
    """The PEM key of the client certificate."""

    @property
    def has_client_certificate(self) -> bool:
        """Whether the client authenticates with a certificate of its own."""
        return bool(self.cert_file or self.cert_data)


@dataclass(frozen=True)
class Impersonation:
    """Act as another user (`as`, `as-uid`, `as-groups`, `as-user-extra` of a kubeconfig user)."""

    user: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def headers(self) -> list[tuple[str, str]]:
        """The `Impersonate-*` request headers."""
        from urllib.parse import quote

        headers = [("Impersonate-User", self.user)]
        if self.uid:
            headers.append(("Impersonate-Uid", self.uid))
        headers.extend(("Impersonate-Group", group) for group in self.groups)
        for key, values in self.extra:
            headers.extend((f"Impersonate-Extra-{quote(key, safe='')}", value) for value in values)
        return headers


@dataclass(frozen=True)
class ClientConfig:
    """Everything a transport needs to talk to one API server as one user."""

    server: str
    """The server's URL, `https://host:port` (a path after it prefixes every request)."""
    tls: TLSConfig = TLSConfig()
    """How to check the server and the client certificate."""
    credentials: CredentialProvider | None = None
    """Where bearer tokens, basic auth or exec plugin credentials come from (None: anonymous)."""
    namespace: str = "default"
    """The namespace clients use when a call names none (the context's, or the pod's)."""
    proxy_url: str = ""
    """An http, https or socks5 proxy (`proxy-url`); empty uses HTTP(S)_PROXY from the environment."""
    disable_compression: bool = False
    """Ask for uncompressed responses (`disable-compression`)."""
    impersonate: Impersonation | None = None
    """The user to act as."""
    qps: float = DEFAULT_QPS
    """Requests a second the client allows itself on average (default 50, kubectl's; 0 is the
    default; < 0: no limit)."""
    burst: int = DEFAULT_BURST
    """Requests the client may send at once before the rate applies (default 300, kubectl's; 0
    is the default)."""
    timeout: float | None = None
    """Seconds one request (not a watch) may take; None: no limit, as client-go."""
    connect_timeout: float = 30.0
    """Seconds connecting (TCP and TLS) may take."""
    user_agent: str = ""
    """The User-Agent header; empty: `default_user_agent()`."""
    source: str = ""
    """Where this configuration came from, for messages (`kubeconfig ~/.kube/config, context kind`)."""

    def with_options(self, **changes: Any) -> ClientConfig:
        """A copy with some fields changed: `config.with_options(qps=50, burst=100)`."""
        return replace(self, **changes)

    def __repr__(self) -> str:
        shown = [f"server={self.server!r}", f"namespace={self.namespace!r}"]
        if self.credentials is not None:
            shown.append(f"credentials={self.credentials!r}")
        if self.tls.has_client_certificate:
            shown.append("client_certificate=<redacted>")
        if self.tls.insecure:
            shown.append("insecure=True")
        if self.source:
            shown.append(f"source={self.source!r}")
        return f"ClientConfig({', '.join(shown)})"


def default_user_agent() -> str:
    """`kgen/<version> (<os>/<arch>) python/<version>`, shaped like client-go's
    `kubectl/v1.31.0 (linux/amd64) kubernetes/abc1234`."""
    from kgen import __version__

    system = {"win32": "windows", "cygwin": "windows"}.get(sys.platform, sys.platform)
    system = "linux" if system.startswith("linux") else system
    machine = platform.machine().lower()
    arch = {
        "x86_64": "amd64",
        "amd64": "amd64",
        "aarch64": "arm64",
        "arm64": "arm64",
        "i386": "386",
        "i686": "386",
    }.get(machine, machine or "unknown")
    return f"kgen/{__version__} ({system}/{arch}) python/{platform.python_version()}"


# -- in the cluster ---------------------------------------------------------------------------


def load_incluster_config(
    *, environ: Mapping[str, str] | None = None, service_account_dir: str | os.PathLike[str] = SERVICE_ACCOUNT_DIR
) -> ClientConfig:
    """The configuration of a pod: the API server of `KUBERNETES_SERVICE_HOST` and
    `KUBERNETES_SERVICE_PORT`, the service account's token (read again as the kubelet
    rotates it), its CA and its namespace (`POD_NAMESPACE` first), as client-go's
    `rest.InClusterConfig`."""
    environ = os.environ if environ is None else environ
    host, port = environ.get("KUBERNETES_SERVICE_HOST", ""), environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise ConfigError(
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
            "defined; outside a cluster use a kubeconfig (KUBECONFIG or ~/.kube/config)"
        )
    directory = Path(service_account_dir)
    credentials = TokenFileCredentials(directory / "token")
    credentials.get()  # an unreadable token is a configuration error now, not at the first request
    ca_file = directory / "ca.crt"
    tls = TLSConfig(ca_file=str(ca_file)) if _readable_pem(ca_file) else TLSConfig()
    namespace = environ.get("POD_NAMESPACE", "")
    if not namespace:
        try:
            namespace = (directory / "namespace").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            namespace = ""
    host_port = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return ClientConfig(
        server=f"https://{host_port}",
        tls=tls,
        credentials=credentials,
        namespace=namespace or "default",
        source=f"in-cluster ({directory})",
    )


def _readable_pem(path: Path) -> bool:
    try:
        return b"-----BEGIN CERTIFICATE-----" in path.read_bytes()
    except OSError:
        return False


# -- TLS -------------------------------------------------------------------------------------


def build_ssl_context(tls: TLSConfig, origin: str = "the configuration") -> ssl.SSLContext:
    """The SSL context of a TLS configuration: TLS 1.2 or later, the given CAs (or the
    system's), hostname verification on unless `insecure`, the client certificate loaded."""
    if tls.insecure and (tls.ca_file or tls.ca_data):
        raise ConfigError(
            f"{origin}: specifying a root certificates file with the insecure flag is not allowed; "
            "remove certificate-authority(-data) or insecure-skip-tls-verify"
        )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if tls.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif tls.ca_data:
        try:
            context.load_verify_locations(cadata=tls.ca_data.decode("ascii", errors="replace"))
        except (ssl.SSLError, ValueError) as err:
            raise ConfigError(
                f"{origin}: certificate-authority-data is not a PEM certificate ({_reason(err)})"
            ) from None
    elif tls.ca_file:
        try:
            context.load_verify_locations(cafile=tls.ca_file)
        except (OSError, ssl.SSLError) as err:
            raise ConfigError(f"{origin}: cannot use certificate-authority {tls.ca_file}: {_reason(err)}") from None
    else:
        context.load_default_certs()
        if not context.cert_store_stats().get("x509_ca"):
            import certifi  # httpx's dependency: the Mozilla CAs where the system has none

            context.load_verify_locations(cafile=certifi.where())
    if tls.has_client_certificate:
        cert = tls.cert_data or _read(tls.cert_file, "client-certificate", origin)
        key = tls.key_data or _read(tls.key_file, "client-key", origin)
        load_client_identity(context, cert, key, origin)
    return context


def _read(path: str, what: str, origin: str) -> bytes:
    if not path:
        raise ConfigError(
            f"{origin}: {what} is missing; a client certificate needs both client-certificate and client-key"
        )
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise ConfigError(f"{origin}: cannot read {what} {path}: {err.strerror}") from None


def load_client_identity(context: ssl.SSLContext, cert: bytes, key: bytes, origin: str = "the configuration") -> None:
    """Load a PEM certificate and key into an SSL context. `ssl` reads them only from files:
    they are written to a private temporary directory and removed at once."""
    with tempfile.TemporaryDirectory(prefix="kgen-tls-") as directory:
        cert_path, key_path = Path(directory) / "cert.pem", Path(directory) / "key.pem"
        for path, data in ((cert_path, cert), (key_path, key)):
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
        try:
            context.load_cert_chain(str(cert_path), str(key_path))
        except (ssl.SSLError, OSError) as err:
            raise ConfigError(
                f"{origin}: failed parsing client key/certificate ({_reason(err)}); "
                "they must be a PEM certificate and its unencrypted PEM key"
            ) from None


def _reason(err: BaseException) -> str:
    if isinstance(err, ssl.SSLError) and err.reason:
        return str(err.reason)
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return type(err).__name__
