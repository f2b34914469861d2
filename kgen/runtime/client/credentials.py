"""Who the client is: bearer tokens, token files, basic auth and exec credential plugins.

A `CredentialProvider` gives the transport the `Credentials` to send with each request and,
after a 401, a chance to get new ones (`refresh`): a token file is read again, an exec plugin
run again, as client-go's exec authenticator does. Secrets never appear in a repr or in an
error message: errors name the file or the command and say what to do.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from kgen.runtime.client.errors import ConfigError

__all__ = [
    "Credentials",
    "CredentialProvider",
    "StaticCredentials",
    "TokenFileCredentials",
    "ExecConfig",
    "ExecCredentials",
    "EXEC_API_VERSIONS",
]

#: The ExecCredential versions kgen speaks with credential plugins.
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")


@dataclass(frozen=True, repr=False)
class Credentials:
    """What one request authenticates with."""

    token: str = ""
    """A bearer token."""
    username: str = ""
    """The user of basic authentication."""
    password: str = ""
    """The password of basic authentication."""
    client_certificate: bytes = b""
    """A PEM client certificate an exec plugin returned (static ones are part of the TLS setup)."""
    client_key: bytes = b""
    """The PEM key of that certificate."""

    def authorization(self) -> str | None:
        """The `Authorization` header value, or None (a client certificate needs none)."""
        if self.token:
            return f"Bearer {self.token}"
        if self.username or self.password:
            pair = f"{self.username}:{self.password}".encode()
            return f"Basic {base64.b64encode(pair).decode('ascii')}"
        return None

    def __repr__(self) -> str:
        kinds = [
            name
            for name, present in (
                ("token", self.token),
                ("basic", self.username or self.password),
                ("client-certificate", self.client_certificate),
            )
            if present
        ]
        return f"Credentials({', '.join(kinds) or 'anonymous'}; values redacted)"


class CredentialProvider(Protocol):
    """Where the transport gets credentials from."""

    #: True when `get` or `refresh` may block for long (run a program): async transports
    #: call them in a worker thread.
    blocking: bool

    def get(self) -> Credentials:
        """The credentials for the next request."""
        ...

    def refresh(self, rejected: Credentials) -> bool:
        """The server answered 401 to `rejected`: get new credentials if there are any.
        True when `get` now returns different credentials, worth one more try."""
        ...


class StaticCredentials:
    """A fixed bearer token or user and password."""

    blocking = False

    def __init__(self, token: str = "", username: str = "", password: str = "") -> None:
        self._credentials = Credentials(token=token, username=username, password=password)

    def get(self) -> Credentials:
        """The fixed credentials."""
        return self._credentials

    def refresh(self, rejected: Credentials) -> bool:
        """Fixed credentials cannot change: False."""
        return False

    def __repr__(self) -> str:
        return f"StaticCredentials({self._credentials!r})"


class TokenFileCredentials:
    """A bearer token read from a file and read again when the file changes (a projected
    service account token is rotated by the kubelet), at the latest every `max_age` seconds
    (client-go's cached file token source re-reads every minute), and after a 401.

    While the file cannot be read (or is empty) the last token read is used, then `fallback`
    (a kubeconfig's `token` next to its `tokenFile`)."""

    blocking = False

    def __init__(
        self,
        path: str | os.PathLike[str],
        fallback: str = "",
        max_age: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self._fallback = fallback
        self._max_age = max_age
        self._clock = clock
        self._lock = threading.Lock()
        self._token = ""
        self._stamp: tuple[int, int, int] | None = None
        self._read_at = 0.0

    def get(self) -> Credentials:
        """The token of the file, read again if it changed."""
        with self._lock:
            return Credentials(token=self._current(force=False))

    def refresh(self, rejected: Credentials) -> bool:
        """Read the file again; True when the token differs from the rejected one."""
        with self._lock:
            return self._current(force=True) != rejected.token

    def _current(self, force: bool) -> str:
        try:
            stat = self.path.stat()
            stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
            stale = force or stamp != self._stamp or self._clock() - self._read_at >= self._max_age
            if stale:
                token = self.path.read_text(encoding="utf-8").strip()
                if not token:
                    raise OSError("the file is empty")
                self._token, self._stamp, self._read_at = token, stamp, self._clock()
        except (OSError, UnicodeDecodeError) as err:
            if self._token or self._fallback:
                return self._token or self._fallback
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise ConfigError(
                f"cannot read the bearer token file {self.path}: {reason}; "
                "check that it exists and is readable (a service account token is mounted by the kubelet)"
            ) from None
        return self._token

    def __repr__(self) -> str:
        return f"TokenFileCredentials(path={str(self.path)!r})"


@dataclass(frozen=True)
class ExecConfig:
    """A kubeconfig user's `exec` section: a credential plugin to run."""

    command: str
    """The program (resolved against the kubeconfig's directory when it has a slash)."""
    args: tuple[str, ...] = ()
    """Its arguments."""
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """Variables added to the environment it runs in (may hold secrets: not shown)."""
    api_version: str = "client.authentication.k8s.io/v1"
    """The ExecCredential version it speaks."""
    install_hint: str = ""
    """What to tell a user who does not have the program."""
    provide_cluster_info: bool = False
    """Whether the plugin gets the cluster's details in `KUBERNETES_EXEC_INFO`."""
    interactive_mode: str = "IfAvailable"
    """Never, IfAvailable or Always; kgen never gives a plugin a terminal."""
    cluster: Mapping[str, Any] | None = field(default=None, repr=False)
    """The ExecCredential `spec.cluster` sent when `provide_cluster_info` is set."""


class ExecCredentials:
    """Credentials from an exec plugin (client.authentication.k8s.io v1 or v1beta1).

    The plugin runs with the configured `env` and `args` and `KUBERNETES_EXEC_INFO` set to an
    ExecCredential whose spec says `interactive: false` (and gives the cluster when
    `provideClusterInfo` is set); it prints an ExecCredential whose status has a token or a
    client certificate and key. They are used until `expirationTimestamp` and fetched again
    after a 401, as client-go's exec authenticator does."""

    blocking = True

    def __init__(
        self,
        config: ExecConfig,
        now: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if config.api_version not in EXEC_API_VERSIONS:
            raise ConfigError(
                f"exec plugin {config.command}: apiVersion {config.api_version!r} is not supported; "
                f"use one of {', '.join(EXEC_API_VERSIONS)}"
            )
        if config.interactive_mode == "Always":
            raise ConfigError(
                f"exec plugin {config.command} has interactiveMode Always, but kgen runs plugins without a terminal; "
                "log in with the plugin beforehand or set interactiveMode to IfAvailable"
            )
        self.config = config
        self._now = now
        self._environ = environ
        self._lock = threading.Lock()
        self._cached: Credentials | None = None
        self._expiry: datetime | None = None
        self.runs = 0
        """How many times the plugin has run (for diagnostics and tests)."""

    def get(self) -> Credentials:
        """The cached credentials, or the plugin's new ones when there are none or they expired."""
        with self._lock:
            if self._cached is None or (self._expiry is not None and self._now() > self._expiry):
                self._cached = self._run()
            return self._cached

    def refresh(self, rejected: Credentials) -> bool:
        """Run the plugin again, unless the credentials changed since `rejected` was sent."""
        with self._lock:
            if self._cached is not rejected:
                return self._cached is not None
            self._cached = self._run()
            return self._cached != rejected

    def _exec_info(self) -> str:
        spec: dict[str, Any] = {"interactive": False}
        if self.config.provide_cluster_info and self.config.cluster is not None:
            spec["cluster"] = dict(self.config.cluster)
        info = {"kind": "ExecCredential", "apiVersion": self.config.api_version, "spec": spec}
        return json.dumps(info, separators=(",", ":"))

    def _run(self) -> Credentials:
        command = self.config.command
        env = dict(os.environ if self._environ is None else self._environ)
        env.update(dict(self.config.env))
        env["KUBERNETES_EXEC_INFO"] = self._exec_info()
        self.runs += 1
        try:
            # stderr stays the caller's (the plugin may explain itself there); stdout holds secrets.
            done = subprocess.run(
                [command, *self.config.args], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, check=False
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError):
            hint = f"\n\n{self.config.install_hint}" if self.config.install_hint else ""
            raise ConfigError(
                f"exec: executable {command} not found; install the credential plugin the kubeconfig names "
                f"(see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins){hint}"
            ) from None
        except OSError as err:
            raise ConfigError(f"exec: executable {command} could not run: {err.strerror}") from None
        if done.returncode != 0:
            raise ConfigError(f"exec: executable {command} failed with exit code {done.returncode}")
        return self._parse(done.stdout)

    def _parse(self, stdout: bytes) -> Credentials:
        command = self.config.command
        try:
            credential = json.loads(stdout)
        except ValueError as err:
            # The message of json's error gives the position, never the text.
            raise ConfigError(
                f"exec plugin {command}: decoding stdout: {type(err).__name__} at {_position(err)}"
            ) from None
        if not isinstance(credential, dict):
            raise ConfigError(f"exec plugin {command}: stdout is not an ExecCredential object")
        version = credential.get("apiVersion")
        if version != self.config.api_version:
            raise ConfigError(
                f"exec plugin is configured to use API version {self.config.api_version}, plugin returned version {version}"
            )
        if credential.get("kind") != "ExecCredential":
            raise ConfigError(f"exec plugin {command}: stdout is a {credential.get('kind')!r}, not an ExecCredential")
        status = credential.get("status")
        if not isinstance(status, dict):
            raise ConfigError("exec plugin didn't return a status field")
        token, cert, key = (
            _string(status, name, command) for name in ("token", "clientCertificateData", "clientKeyData")
        )
        if not token and not cert and not key:
            raise ConfigError("exec plugin didn't return a token or cert/key pair")
        if bool(cert) != bool(key):
            raise ConfigError("exec plugin returned only certificate or key, not both")
        self._expiry = _expiry(status.get("expirationTimestamp"), command)
        return Credentials(token=token, client_certificate=cert.encode(), client_key=key.encode())

    def __repr__(self) -> str:
        return f"ExecCredentials(command={self.config.command!r}, api_version={self.config.api_version!r})"


def _position(err: ValueError) -> str:
    line, column = getattr(err, "lineno", None), getattr(err, "colno", None)
    return f"line {line} column {column}" if line is not None else "an unknown position"


def _string(status: Mapping[str, Any], name: str, command: str) -> str:
    value = status.get(name) or ""
    if not isinstance(value, str):
        raise ConfigError(f"exec plugin {command}: status.{name} is not a string")
    return value


def _expiry(value: Any, command: str) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise ConfigError(f"exec plugin {command}: expirationTimestamp {value!r} is not an RFC 3339 time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def exec_cluster_info(
    server: str,
    tls_server_name: str = "",
    insecure_skip_tls_verify: bool = False,
    certificate_authority_data: bytes = b"",
    proxy_url: str = "",
    disable_compression: bool = False,
    config: Any = None,
) -> dict[str, Any]:
    """The ExecCredential `spec.cluster` of a cluster (its CA as base64, as Go writes []byte)."""
    cluster: dict[str, Any] = {"server": server}
    if tls_server_name:
        cluster["tls-server-name"] = tls_server_name
    if insecure_skip_tls_verify:
        cluster["insecure-skip-tls-verify"] = True
    if certificate_authority_data:
        cluster["certificate-authority-data"] = base64.b64encode(certificate_authority_data).decode("ascii")
    if proxy_url:
        cluster["proxy-url"] = proxy_url
    if disable_compression:
        cluster["disable-compression"] = True
    if config is not None:
        cluster["config"] = config
    return cluster
