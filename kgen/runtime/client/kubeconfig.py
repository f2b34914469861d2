"""Kubeconfig files, read and merged as kubectl reads them (client-go's `clientcmd`).

The files are those of `KUBECONFIG` (separated by `os.pathsep`, duplicates dropped, missing
ones skipped) or else `~/.kube/config`. When several are given, the first file to define a
cluster, user or context name wins the whole entry, and the first non-empty
`current-context` wins. Relative paths (`certificate-authority`, `client-certificate`,
`client-key`, `tokenFile`, an exec `command` with a slash) are relative to the directory of
the file that defined the entry.

A context gives the cluster (server, CA file or data, `insecure-skip-tls-verify`,
`tls-server-name`, `proxy-url`), the user (client certificate and key, `token`, `tokenFile`,
`username`/`password`, an `exec` credential plugin, impersonation) and the default
namespace. The checks are clientcmd's (`validation.go`), collected into one `ConfigError`
that names the file and the entry, never a secret.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from kgen.runtime.client.config import (
    SERVICE_ACCOUNT_DIR,
    ClientConfig,
    Impersonation,
    TLSConfig,
    load_incluster_config,
)
from kgen.runtime.client.credentials import (
    CredentialProvider,
    ExecConfig,
    ExecCredentials,
    StaticCredentials,
    TokenFileCredentials,
    exec_cluster_info,
)
from kgen.runtime.client.errors import ConfigError

__all__ = ["Kubeconfig", "Entry", "configured", "kubeconfig_paths", "load_config", "read_kubeconfig", "load_kubeconfig"]

#: The cluster extension whose value an exec plugin gets as `spec.cluster.config`.
EXEC_EXTENSION = "client.authentication.k8s.io/exec"
_SECTIONS = (("clusters", "cluster"), ("users", "user"), ("contexts", "context"))


@dataclass(frozen=True)
class Entry:
    """A cluster, user or context of a kubeconfig, and the file that defined it."""

    name: str
    data: Mapping[str, Any] = field(repr=False)
    origin: Path


@dataclass(frozen=True)
class Kubeconfig:
    """The merged content of kubeconfig files."""

    clusters: Mapping[str, Entry]
    users: Mapping[str, Entry]
    contexts: Mapping[str, Entry]
    current_context: str
    files: tuple[Path, ...]
    """The files that were read, in precedence order."""

    def client_config(self, context: str | None = None, namespace: str | None = None) -> ClientConfig:
        """The configuration of a context (the current one by default), checked as clientcmd
        checks it; `namespace` overrides the context's."""
        return _client_config(self, context, namespace)


def kubeconfig_paths(
    environ: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> list[Path]:
    """The files kubectl reads: those of KUBECONFIG (without duplicates), else ~/.kube/config."""
    environ = os.environ if environ is None else environ
    listed = environ.get("KUBECONFIG", "")
    if listed:
        paths: list[Path] = []
        for part in listed.split(os.pathsep):
            if part and Path(part) not in paths:
                paths.append(Path(part))
        return paths
    base = Path(home) if home is not None else Path(environ.get("HOME") or Path.home())
    return [base / ".kube" / "config"]


def read_kubeconfig(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> Kubeconfig:
    """Read and merge kubeconfig files. `paths` is one file (which must exist) or several
    (missing ones skipped, as KUBECONFIG's); None: `kubeconfig_paths()`."""
    if isinstance(paths, (str, os.PathLike)):
        explicit = Path(paths)
        if not explicit.exists():
            raise ConfigError(f"kubeconfig {explicit} does not exist; pass an existing file or set KUBECONFIG")
        files = [explicit]
    else:
        files = [Path(p) for p in paths] if paths is not None else kubeconfig_paths(environ, home)
    read: list[tuple[Path, dict[str, Any]]] = []
    for path in files:
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as err:
            raise ConfigError(f'error loading config file "{path}": {err.strerror}') from None
        read.append((path, _parse(path, text)))
    if not read:
        looked = ", ".join(str(p) for p in files) or "nowhere (KUBECONFIG is empty)"
        raise ConfigError(
            f"no kubeconfig found (looked at {looked}); set KUBECONFIG, write ~/.kube/config, or run in a cluster"
        )
    merged: dict[str, dict[str, Entry]] = {section: {} for section, _ in _SECTIONS}
    current = ""
    for path, document in read:
        for section, key in _SECTIONS:
            for name, data in _named(document, section, key, path).items():
                merged[section].setdefault(name, Entry(name, data, path))
        if not current:
            current = _text(document.get("current-context"), "current-context", path)
    return Kubeconfig(
        clusters=merged["clusters"],
        users=merged["users"],
        contexts=merged["contexts"],
        current_context=current,
        files=tuple(path for path, _ in read),
    )


def load_kubeconfig(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    *,
    context: str | None = None,
    namespace: str | None = None,
    environ: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> ClientConfig:
    """The client configuration of a kubeconfig context, as kubectl loads it (see the module)."""
    return read_kubeconfig(paths, environ=environ, home=home).client_config(context, namespace)


# -- reading one file ---------------------------------------------------------------------------


def _parse(path: Path, text: bytes) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        raise ConfigError(
            f"{where}: the kubeconfig is not valid YAML ({getattr(err, 'problem', None) or 'syntax error'})"
        ) from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: a kubeconfig is a mapping with clusters, users and contexts")
    return document


def _named(document: Mapping[str, Any], section: str, key: str, path: Path) -> dict[str, Mapping[str, Any]]:
    items = document.get(section) or []
    if not isinstance(items, list):
        raise ConfigError(f"{path}: {section} must be a list of {{name, {key}}} entries")
    out: dict[str, Mapping[str, Any]] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name", ""), str):
            raise ConfigError(f"{path}: {section}[{index}] must be a mapping with a name and a {key}")
        name = item.get("name", "")
        if name in out:
            raise ConfigError(f'{path}: duplicate name "{name}" in {section}; each {key} needs its own name')
        data = item.get(key) or {}
        if not isinstance(data, dict):
            raise ConfigError(f'{path}: {section} "{name}": {key} must be a mapping')
        out[name] = data
    return out


def _text(value: Any, what: str, path: Path) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigError(f"{path}: {what} must be a string")
    return value


# -- one context --------------------------------------------------------------------------------


class _Problems:
    """The problems of one context, reported together as clientcmd's aggregate error."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def add(self, message: str) -> None:
        self.messages.append(message)

    def raise_any(self, kubeconfig: Kubeconfig, context: str) -> None:
        if self.messages:
            files = ", ".join(str(f) for f in kubeconfig.files)
            raise ConfigError(f"invalid configuration (context {context!r} of {files}): " + "; ".join(self.messages))


def _client_config(kubeconfig: Kubeconfig, context: str | None, namespace: str | None) -> ClientConfig:
    files = ", ".join(str(f) for f in kubeconfig.files)
    name = context if context is not None else kubeconfig.current_context
    if not name:
        raise ConfigError(
            f"no current-context in {files}; name a context (context=...) or set one with "
            "`kubectl config use-context NAME`"
            + (f" (contexts: {', '.join(sorted(kubeconfig.contexts))})" if kubeconfig.contexts else "")
        )
    entry = kubeconfig.contexts.get(name)
    if entry is None:
        known = ", ".join(sorted(kubeconfig.contexts)) or "none"
        raise ConfigError(f'context "{name}" does not exist in {files} (contexts: {known})')
    problems = _Problems()
    where = f"{entry.origin}: context {name!r}"
    cluster_name = _field(entry.data, "cluster", str, "", where, problems)
    user_name = _field(entry.data, "user", str, "", where, problems)
    context_namespace = _field(entry.data, "namespace", str, "", where, problems)
    cluster = kubeconfig.clusters.get(cluster_name)
    if cluster is None:
        raise ConfigError(
            f'invalid configuration: context "{name}" ({entry.origin}) names cluster "{cluster_name}", '
            f"which is not defined in {files}; add it to clusters or fix the context"
        )
    tls, server, cluster_info = _cluster(cluster, problems)
    user = kubeconfig.users.get(user_name)  # a user that is not defined is anonymous, as in kubectl
    credentials, tls, impersonate = _user(user, tls, cluster_info, problems) if user is not None else (None, tls, None)
    problems.raise_any(kubeconfig, name)
    if server.startswith("http://"):
        credentials = None  # client-go sends credentials only over TLS
    return ClientConfig(
        server=server,
        tls=tls,
        credentials=credentials,
        namespace=namespace or context_namespace or "default",
        proxy_url=cluster_info.get("proxy-url", ""),
        disable_compression=bool(cluster_info.get("disable-compression", False)),
        impersonate=impersonate,
        source=f"kubeconfig {entry.origin}, context {name}",
    )


def _field(data: Mapping[str, Any], key: str, kind: type, default: Any, where: str, problems: _Problems) -> Any:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, kind):
        problems.add(f"{where}: {key} must be a {'string' if kind is str else kind.__name__}")
        return default
    return value


def _bytes(data: Mapping[str, Any], key: str, where: str, problems: _Problems) -> bytes:
    """A `[]byte` field: base64 in the file, as Go's JSON writes bytes."""
    value = _field(data, key, str, "", where, problems)
    if not value:
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        problems.add(f"{where}: {key} is not base64; encode the PEM text with `base64 -w0`")
        return b""


def _resolve(path: str, origin: Path) -> str:
    if not path or os.path.isabs(path):
        return path
    return str((origin.parent / path).absolute())


def _cluster(entry: Entry, problems: _Problems) -> tuple[TLSConfig, str, dict[str, Any]]:
    data, where = entry.data, f"{entry.origin}: cluster {entry.name!r}"
    server = _field(data, "server", str, "", where, problems)
    ca_file = _resolve(_field(data, "certificate-authority", str, "", where, problems), entry.origin)
    ca_data = _bytes(data, "certificate-authority-data", where, problems)
    insecure = _field(data, "insecure-skip-tls-verify", bool, False, where, problems)
    server_name = _field(data, "tls-server-name", str, "", where, problems)
    proxy_url = _field(data, "proxy-url", str, "", where, problems)
    if not server:
        problems.add(f'no server found for cluster "{entry.name}"; set clusters[].cluster.server (https://host:port)')
    if proxy_url and urlsplit(proxy_url).scheme not in ("http", "https", "socks5"):
        problems.add(
            f"invalid 'proxy-url' for cluster \"{entry.name}\": unsupported scheme, must be http, https, or socks5"
        )
    if ca_file and ca_data:
        problems.add(
            f"certificate-authority-data and certificate-authority are both specified for {entry.name}; remove one"
        )
    if ca_file and not ca_data:
        try:
            ca_data_for_exec = Path(ca_file).read_bytes()
        except OSError as err:
            problems.add(f"unable to read certificate-authority {ca_file} for {entry.name} due to {err.strerror}")
            ca_data_for_exec = b""
    else:
        ca_data_for_exec = ca_data
    if insecure and (ca_file or ca_data):
        problems.add(
            f"specifying a root certificates file with the insecure flag is not allowed (cluster {entry.name}); "
            "remove certificate-authority(-data) or insecure-skip-tls-verify"
        )
    tls = TLSConfig(ca_file="" if ca_data else ca_file, ca_data=ca_data, insecure=insecure, server_name=server_name)
    info: dict[str, Any] = {"proxy-url": proxy_url, "disable-compression": bool(data.get("disable-compression", False))}
    exec_config = None
    for extension in data.get("extensions") or []:
        if isinstance(extension, dict) and extension.get("name") == EXEC_EXTENSION:
            exec_config = extension.get("extension")
    info["exec"] = exec_cluster_info(
        server, server_name, insecure, ca_data_for_exec, proxy_url, info["disable-compression"], exec_config
    )
    return tls, _server_url(server, tls), info


def _server_url(server: str, tls: TLSConfig) -> str:
    """A server without a scheme is https when TLS is configured, else http (DefaultServerURL)."""
    if not server or "://" in server:
        return server.rstrip("/")
    secure = bool(tls.ca_file or tls.ca_data or tls.insecure)
    return f"{'https' if secure else 'http'}://{server}".rstrip("/")


def _user(
    entry: Entry, tls: TLSConfig, cluster_info: Mapping[str, Any], problems: _Problems
) -> tuple[CredentialProvider | None, TLSConfig, Impersonation | None]:
    data, where, name = entry.data, f"{entry.origin}: user {entry.name!r}", entry.name
    token = _field(data, "token", str, "", where, problems)
    token_file = _resolve(_field(data, "tokenFile", str, "", where, problems), entry.origin)
    username = _field(data, "username", str, "", where, problems)
    password = _field(data, "password", str, "", where, problems)
    cert_file = _resolve(_field(data, "client-certificate", str, "", where, problems), entry.origin)
    key_file = _resolve(_field(data, "client-key", str, "", where, problems), entry.origin)
    cert_data = _bytes(data, "client-certificate-data", where, problems)
    key_data = _bytes(data, "client-key-data", where, problems)
    if data.get("auth-provider"):
        provider = data["auth-provider"].get("name", "?") if isinstance(data["auth-provider"], dict) else "?"
        problems.add(
            f"user {name} uses the auth-provider {provider!r}, which kgen does not support; "
            "use an exec credential plugin instead (for example gke-gcloud-auth-plugin or kubelogin)"
        )
    methods = [kind for kind, present in (("token", token), ("basicAuth", username or password)) if present]
    if len(methods) > 1:
        problems.add(f"more than one authentication method found for {name}; found {methods}, only one is allowed")
    has_cert = bool(cert_file or cert_data)
    if has_cert:
        if cert_file and cert_data:
            problems.add(f"client-cert-data and client-cert are both specified for {name}; remove one")
        if key_file and key_data:
            problems.add(f"client-key-data and client-key are both specified for {name}; remove one")
        if not key_file and not key_data:
            problems.add(
                f"client-key-data or client-key must be specified for {name} to use the clientCert authentication method"
            )
        for path, data_given, what in ((cert_file, cert_data, "client-cert"), (key_file, key_data, "client-key")):
            if path and not data_given and not os.access(path, os.R_OK):
                problems.add(f"unable to read {what} {path} for {name}; check that the file exists and is readable")
        tls = replace(
            tls,
            cert_file="" if cert_data else cert_file,
            cert_data=cert_data,
            key_file="" if key_data else key_file,
            key_data=key_data,
        )
    credentials: CredentialProvider | None = None
    if token_file:
        credentials = TokenFileCredentials(token_file, fallback=token)
        if not token:
            try:
                credentials.get()
            except ConfigError as err:
                problems.add(str(err))
    elif token or username or password:
        credentials = StaticCredentials(token=token, username=username, password=password)
    exec_data = data.get("exec")
    if exec_data is not None:
        exec_config = _exec(exec_data, entry, cluster_info, problems)
        # client-go ignores the plugin when the user has a token, basic auth or a certificate.
        if exec_config is not None and credentials is None and not has_cert:
            try:
                credentials = ExecCredentials(exec_config)
            except ConfigError as err:
                problems.add(str(err))
    return credentials, tls, _impersonation(data, where, problems)


def _exec(data: Any, entry: Entry, cluster_info: Mapping[str, Any], problems: _Problems) -> ExecConfig | None:
    where, name = f"{entry.origin}: user {entry.name!r} exec", entry.name
    if not isinstance(data, dict):
        problems.add(f"{where} must be a mapping")
        return None
    command = _field(data, "command", str, "", where, problems)
    api_version = _field(data, "apiVersion", str, "", where, problems)
    mode = _field(data, "interactiveMode", str, "", where, problems)
    if not mode and api_version.endswith(("/v1beta1", "/v1alpha1")):
        mode = "IfAvailable"  # clientcmd's default for the older versions; v1 must say
    if not command:
        problems.add(f"command must be specified for {name} to use exec authentication plugin")
    if not api_version:
        problems.add(f"apiVersion must be specified for {name} to use exec authentication plugin")
    if not mode:
        problems.add(f"interactiveMode must be specified for {name} to use exec authentication plugin")
    elif mode not in ("Never", "IfAvailable", "Always"):
        problems.add(f"invalid interactiveMode for {name}: {mode!r}")
    args = _field(data, "args", list, [], where, problems)
    env: list[tuple[str, str]] = []
    for variable in _field(data, "env", list, [], where, problems):
        if not isinstance(variable, dict) or not variable.get("name"):
            problems.add(f"env variable name must be specified for {name} to use exec authentication plugin")
            continue
        env.append((str(variable["name"]), str(variable.get("value", ""))))
    if problems.messages or not command:
        return None
    if os.sep in command:
        command = _resolve(command, entry.origin)
    return ExecConfig(
        command=command,
        args=tuple(str(a) for a in args),
        env=tuple(env),
        api_version=api_version,
        install_hint=_field(data, "installHint", str, "", where, problems),
        provide_cluster_info=bool(data.get("provideClusterInfo", False)),
        interactive_mode=mode,
        cluster=cluster_info.get("exec"),
    )


def _impersonation(data: Mapping[str, Any], where: str, problems: _Problems) -> Impersonation | None:
    user = _field(data, "as", str, "", where, problems)
    uid = _field(data, "as-uid", str, "", where, problems)
    groups = _field(data, "as-groups", list, [], where, problems)
    extra = _field(data, "as-user-extra", dict, {}, where, problems)
    if not user:
        if uid or groups or extra:
            problems.add(f"{where}: requesting uid, groups or user-extra without impersonating a user (set as)")
        return None
    pairs = tuple(
        (str(k), tuple(str(v) for v in (vs if isinstance(vs, list) else [vs]))) for k, vs in sorted(extra.items())
    )
    return Impersonation(user=user, uid=uid, groups=tuple(str(g) for g in groups), extra=pairs)


# -- choosing a configuration ----------------------------------------------------------


def configured(
    context: str | None = None, qps: float | None = None, burst: int | None = None, timeout: float | None = None
) -> ClientConfig:
    """`load_config(context=...)` with the request rate and timeout given here (None keeps
    the configuration's): what the generated clients' `from_config` uses."""
    config = load_config(context=context)
    changes = {k: v for k, v in (("qps", qps), ("burst", burst), ("timeout", timeout)) if v is not None}
    return config.with_options(**changes) if changes else config


def load_config(
    *,
    context: str | None = None,
    environ: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
    service_account_dir: str | os.PathLike[str] = SERVICE_ACCOUNT_DIR,
) -> ClientConfig:
    """The configuration a controller would use: `KUBECONFIG`'s files, else the pod's
    service account in a cluster, else `~/.kube/config` (controller-runtime's order).
    `context` picks a kubeconfig context other than the current one."""
    environ = os.environ if environ is None else environ
    if environ.get("KUBECONFIG"):
        return load_kubeconfig(context=context, environ=environ, home=home)
    if context is None and environ.get("KUBERNETES_SERVICE_HOST") and environ.get("KUBERNETES_SERVICE_PORT"):
        return load_incluster_config(environ=environ, service_account_dir=service_account_dir)
    return load_kubeconfig(context=context, environ=environ, home=home)
