"""Configuration as kubectl loads it, checked against loopback API servers: each kind of
credential (token, token file rotation, basic, client certificate, exec plugin with caching
and re-run on 401), CA data and files with hostname verification, insecure-skip-tls-verify,
tls-server-name, proxies, merged KUBECONFIG files, contexts, in-cluster configuration, and
credentials kept out of every message and repr."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import ssl
import stat
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.runtime.client import (
    AsyncTransport,
    ClientConfig,
    ConfigError,
    Credentials,
    ExecConfig,
    ExecCredentials,
    TokenFileCredentials,
    Transport,
    TransportError,
    Unauthorized,
    load_config,
    load_incluster_config,
    load_kubeconfig,
    read_kubeconfig,
)
from test_client_transport import FakeAPI, Recorded, Reply, serve  # noqa: F401  (serve is a fixture)

# -- certificates ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PKI:
    """A CA and certificates it signed, as PEM files."""

    directory: Path

    def path(self, name: str) -> Path:
        return self.directory / name

    def pem(self, name: str) -> bytes:
        return self.path(name).read_bytes()

    def server_context(self, cert: str = "server", require_client: bool = False) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.path(f"{cert}.crt"), self.path(f"{cert}.key"))
        if require_client:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(self.path("ca.crt"))
        return context


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_pki(directory: Path) -> PKI:
    """A CA; `server` for localhost and 127.0.0.1; `other` for kubernetes.default.svc only;
    `alice` a client certificate; `rogue-ca` a CA nobody trusts and `rogue` a server cert of it."""
    directory.mkdir(parents=True, exist_ok=True)
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    for ca in ("ca", "rogue-ca"):
        _openssl("req", "-x509", *ec, "-keyout", f"{ca}.key", "-out", f"{ca}.crt", "-days", "2", "-subj", f"/CN={ca}",
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                 cwd=directory)  # fmt: skip
    leaves = {
        "server": ("ca", "/CN=server", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
        "other": ("ca", "/CN=other", "subjectAltName=DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth"),
        "rogue": ("rogue-ca", "/CN=rogue", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
        "alice": ("ca", "/CN=alice/O=devs", "extendedKeyUsage=clientAuth"),
        "bob": ("ca", "/CN=bob", "extendedKeyUsage=clientAuth"),
    }
    for name, (ca, subject, extensions) in leaves.items():
        (directory / f"{name}.ext").write_text(
            extensions + "\nbasicConstraints=CA:FALSE\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
        )
        _openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, cwd=directory)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key", "-CAcreateserial",
                 "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext", cwd=directory)  # fmt: skip
    return PKI(directory)


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> PKI:
    return make_pki(tmp_path_factory.mktemp("pki"))


SECRET = "s3cret-T0KEN-value"
PASSWORD = "hunter2-PASSWORD"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def write_kubeconfig(
    path: Path,
    clusters: dict[str, dict[str, Any]],
    users: dict[str, dict[str, Any]] | None = None,
    contexts: dict[str, dict[str, Any]] | None = None,
    current: str | None = None,
) -> Path:
    """A kubeconfig file; by default one context `main` of the first cluster and user."""
    users = users if users is not None else {}
    if contexts is None:
        contexts = {"main": {"cluster": next(iter(clusters)), "user": next(iter(users), "")}}
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": n, "cluster": c} for n, c in clusters.items()],
        "users": [{"name": n, "user": u} for n, u in users.items()],
        "contexts": [{"name": n, "context": c} for n, c in contexts.items()],
    }
    if current is not None or contexts:
        document["current-context"] = current if current is not None else next(iter(contexts))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document))
    return path


def ok(request: Recorded) -> Reply:
    return Reply(200, {"kind": "NodeList", "apiVersion": "v1", "items": []})


def get(config: ClientConfig) -> Any:
    with Transport(config, rate_limiter=None, warning_handler=lambda w: None) as transport:
        return transport.request("GET", "/api/v1/nodes")


def tls_cluster(fake: FakeAPI, pki: PKI, host: str = "127.0.0.1", **extra: Any) -> dict[str, Any]:
    return {"server": f"https://{host}:{fake.port}", "certificate-authority-data": b64(pki.pem("ca.crt")), **extra}


# -- TLS ------------------------------------------------------------------------------------------


def test_a_token_over_tls_with_the_ca_data_and_hostname_verification(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context())
    for host in ("127.0.0.1", "localhost"):
        path = write_kubeconfig(
            tmp_path / f"{host}.yaml", {"c": tls_cluster(fake, pki, host)}, {"u": {"token": SECRET}}
        )
        assert get(load_kubeconfig(path))["kind"] == "NodeList"
    assert [r.headers["Authorization"] for r in fake.requests] == [f"Bearer {SECRET}"] * 2


def test_a_server_certificate_of_another_ca_or_name_is_refused(serve, pki, tmp_path):
    for cert, problem in (("rogue", "certificate verify failed"), ("other", "match")):
        fake = serve(ok, pki.server_context(cert))
        path = write_kubeconfig(tmp_path / f"{cert}.yaml", {"c": tls_cluster(fake, pki)}, {"u": {"token": SECRET}})
        with pytest.raises(TransportError, match=problem) as caught:
            get(load_kubeconfig(path))
        assert SECRET not in str(caught.value) and not fake.requests


def test_the_ca_file_is_relative_to_the_kubeconfig(serve, pki, tmp_path, monkeypatch):
    fake = serve(ok, pki.server_context())
    (tmp_path / "conf" / "certs").mkdir(parents=True)
    (tmp_path / "conf" / "certs" / "ca.crt").write_bytes(pki.pem("ca.crt"))
    cluster = {"server": f"https://localhost:{fake.port}", "certificate-authority": "certs/ca.crt"}
    path = write_kubeconfig(tmp_path / "conf" / "config", {"c": cluster})
    monkeypatch.chdir(tmp_path)
    config = load_kubeconfig(path)
    assert config.tls.ca_file == str(tmp_path / "conf" / "certs" / "ca.crt")
    assert get(config)["items"] == []


def test_insecure_skip_tls_verify_accepts_any_certificate(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context("rogue"))
    cluster = {"server": f"https://127.0.0.1:{fake.port}", "insecure-skip-tls-verify": True}
    assert get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": cluster})))["items"] == []


def test_tls_server_name_is_the_name_checked(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context("other"))  # valid for kubernetes.default.svc only
    cluster = tls_cluster(fake, pki, **{"tls-server-name": "kubernetes.default.svc"})
    assert get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": cluster})))["items"] == []


def test_a_client_certificate_from_files_or_data(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context(require_client=True))
    (tmp_path / "alice.crt").write_bytes(pki.pem("alice.crt"))
    (tmp_path / "alice.key").write_bytes(pki.pem("alice.key"))
    users = {
        "files": {"client-certificate": "alice.crt", "client-key": "alice.key"},
        "data": {"client-certificate-data": b64(pki.pem("bob.crt")), "client-key-data": b64(pki.pem("bob.key"))},
    }
    contexts = {name: {"cluster": "c", "user": name} for name in users}
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, users, contexts)
    for name in users:
        config = load_kubeconfig(path, context=name)
        get(config)
        assert "BEGIN" not in repr(config) and "client_certificate=<redacted>" in repr(config)
    assert [r.client_cn for r in fake.requests] == ["alice", "bob"]


# -- credentials ----------------------------------------------------------------------------------


def test_basic_auth(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context())
    users = {"u": {"username": "admin", "password": PASSWORD}}
    get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, users)))
    assert fake.requests[0].headers["Authorization"] == "Basic " + b64(f"admin:{PASSWORD}".encode())


def test_a_token_file_is_read_again_when_it_changes(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context())
    token = tmp_path / "token"
    token.write_text("first-token\n")
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": {"tokenFile": "token"}})
    with Transport(load_kubeconfig(path), rate_limiter=None) as transport:
        transport.request("GET", "/api/v1/nodes")
        token.write_text("second-token-rotated\n")
        transport.request("GET", "/api/v1/nodes")
    assert [r.headers["Authorization"] for r in fake.requests] == ["Bearer first-token", "Bearer second-token-rotated"]


def test_a_token_file_is_read_again_after_a_minute_and_after_a_401(tmp_path):
    token = tmp_path / "token"
    token.write_text("aaaa")
    now = [0.0]
    credentials = TokenFileCredentials(token, clock=lambda: now[0])
    assert credentials.get().token == "aaaa"
    stamp = token.stat()

    def rewrite(text: str) -> None:  # same inode, size and times: only the clock or a 401 tells
        token.write_text(text)
        os.utime(token, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))

    rewrite("bbbb")
    assert credentials.get().token == "aaaa"
    assert credentials.refresh(Credentials(token="aaaa")) is True
    assert credentials.get().token == "bbbb"
    rewrite("cccc")
    assert credentials.get().token == "bbbb"
    now[0] = 61.0
    assert credentials.get().token == "cccc"


def test_a_token_file_that_goes_away_keeps_the_last_token_and_a_missing_one_is_a_config_error(tmp_path):
    token = tmp_path / "token"
    token.write_text("kept")
    credentials = TokenFileCredentials(token)
    credentials.get()
    token.unlink()
    assert credentials.get().token == "kept"
    with pytest.raises(ConfigError, match="cannot read the bearer token file .*token"):
        TokenFileCredentials(tmp_path / "missing").get()


def test_credentials_are_sent_only_over_tls(serve, tmp_path):
    fake = serve(ok)
    config = load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": {"server": fake.url}}, {"u": {"token": SECRET}}))
    get(config)
    assert config.credentials is None and "Authorization" not in fake.requests[0].headers


def test_impersonation_headers(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context())
    user = {"token": SECRET, "as": "jane", "as-groups": ["devs", "ops"], "as-user-extra": {"scopes": ["view"]}}
    get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": user})))
    headers = fake.requests[0].headers
    assert headers["Impersonate-User"] == "jane" and headers["Impersonate-Extra-scopes"] == "view"


def test_a_proxy_url_carries_the_requests(serve, tmp_path):
    proxy = serve(ok)
    cluster = {"server": "http://kubernetes.invalid:6443", "proxy-url": proxy.url}
    get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": cluster})))
    assert proxy.requests[0].path == "/api/v1/nodes" and proxy.requests[0].headers["Host"] == "kubernetes.invalid:6443"


# -- exec credential plugins -----------------------------------------------------------------------

PLUGIN = """\
#!{python}
import json, os, sys
from datetime import datetime, timedelta, timezone
state = sys.argv[1]
runs = int(open(state + "/runs").read()) + 1 if os.path.exists(state + "/runs") else 1
open(state + "/runs", "w").write(str(runs))
info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
open(state + f"/info-{{runs}}.json", "w").write(json.dumps({{"info": info, "argv": sys.argv[2:], "env": os.environ.get("PLUGIN_MODE")}}))
mode = os.environ.get("PLUGIN_MODE", "token")
status = {{}}
if mode == "token":
    status["token"] = f"token-{{runs}}"
elif mode == "cert":
    name = ["alice", "bob"][min(runs, 2) - 1]
    status["clientCertificateData"] = open(f"{{state}}/{{name}}.crt").read()
    status["clientKeyData"] = open(f"{{state}}/{{name}}.key").read()
elif mode == "fail":
    print("{secret}")
    sys.exit(3)
elif mode == "garbage":
    print("{secret} is not json")
    sys.exit(0)
if os.environ.get("PLUGIN_EXPIRES"):
    when = datetime.now(timezone.utc) + timedelta(seconds=int(os.environ["PLUGIN_EXPIRES"]))
    status["expirationTimestamp"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
print(json.dumps({{"kind": "ExecCredential", "apiVersion": info["apiVersion"], "status": status}}))
"""


@pytest.fixture
def plugin(tmp_path: Path, pki: PKI) -> Path:
    """An exec plugin script; its state directory (run count, KUBERNETES_EXEC_INFO seen) is its parent."""
    state = tmp_path / "plugin"
    state.mkdir()
    script = state / "plugin.py"
    script.write_text(PLUGIN.format(python=sys.executable, secret=SECRET))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    for name in ("alice", "bob"):
        (state / f"{name}.crt").write_bytes(pki.pem(f"{name}.crt"))
        (state / f"{name}.key").write_bytes(pki.pem(f"{name}.key"))
    return script


def exec_user(
    plugin: Path, mode: str = "token", api_version: str = "client.authentication.k8s.io/v1", **extra: Any
) -> dict[str, Any]:
    exec_config = {
        "apiVersion": api_version,
        "command": str(plugin),
        "args": [str(plugin.parent), "--flag"],
        "env": [{"name": "PLUGIN_MODE", "value": mode}],
        "interactiveMode": "Never",
        **extra,
    }
    return {"exec": exec_config}


def runs(plugin: Path) -> int:
    return int((plugin.parent / "runs").read_text())


def test_an_exec_plugin_token_is_cached_and_the_plugin_runs_again_after_a_401(serve, pki, tmp_path, plugin):
    fake = serve(
        lambda r: Reply(401, b"") if r.headers.get("Authorization") == "Bearer token-1" else ok(r), pki.server_context()
    )
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": exec_user(plugin)})
    with Transport(load_kubeconfig(path), rate_limiter=None) as transport:
        transport.request("GET", "/api/v1/nodes")  # token-1 is refused, token-2 accepted
        transport.request("GET", "/api/v1/nodes")  # token-2, cached
    assert [r.headers["Authorization"] for r in fake.requests] == ["Bearer token-1", "Bearer token-2", "Bearer token-2"]
    assert runs(plugin) == 2


def test_a_401_that_new_credentials_do_not_cure_is_raised(serve, pki, tmp_path, plugin):
    fake = serve(lambda r: Reply(401, b""), pki.server_context())
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": exec_user(plugin)})
    with pytest.raises(Unauthorized):
        get(load_kubeconfig(path))
    assert len(fake.requests) == 2 and runs(plugin) == 2


def test_the_plugin_gets_its_args_env_and_exec_info(serve, pki, tmp_path, plugin):
    fake = serve(ok, pki.server_context())
    cluster = tls_cluster(
        fake, pki, extensions=[{"name": "client.authentication.k8s.io/exec", "extension": {"audience": "x"}}]
    )
    user = exec_user(plugin, provideClusterInfo=True)
    get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": cluster}, {"u": user})))
    seen = json.loads((plugin.parent / "info-1.json").read_text())
    assert seen["argv"] == ["--flag"] and seen["env"] == "token"
    assert seen["info"]["kind"] == "ExecCredential" and seen["info"]["spec"]["interactive"] is False
    assert seen["info"]["spec"]["cluster"] == {
        "server": f"https://127.0.0.1:{fake.port}",
        "certificate-authority-data": b64(pki.pem("ca.crt")),
        "config": {"audience": "x"},
    }


def test_exec_credentials_are_used_until_they_expire(plugin):
    now = [datetime.now(timezone.utc)]
    config = ExecConfig(command=str(plugin), args=(str(plugin.parent),))
    credentials = ExecCredentials(config, now=lambda: now[0], environ={**os.environ, "PLUGIN_EXPIRES": "600"})
    assert credentials.get().token == "token-1"
    now[0] += timedelta(seconds=300)
    assert credentials.get().token == "token-1"
    now[0] += timedelta(seconds=600)
    assert credentials.get().token == "token-2" and credentials.runs == 2


def test_an_exec_plugin_client_certificate_and_its_rotation(serve, pki, tmp_path, plugin):
    fake = serve(
        lambda r: Reply(401, b"") if r.client_cn == "alice" else ok(r), pki.server_context(require_client=True)
    )
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": exec_user(plugin, "cert")})
    with Transport(load_kubeconfig(path), rate_limiter=None) as transport:
        transport.request("GET", "/api/v1/nodes")
    assert [r.client_cn for r in fake.requests] == ["alice", "bob"]


def test_a_v1beta1_plugin_defaults_to_interactive_if_available(serve, pki, tmp_path, plugin):
    fake = serve(ok, pki.server_context())
    user = exec_user(plugin, api_version="client.authentication.k8s.io/v1beta1")
    del user["exec"]["interactiveMode"]
    get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": user})))
    assert fake.requests[0].headers["Authorization"] == "Bearer token-1"


@pytest.mark.parametrize(
    "change,message",
    [
        ({"interactiveMode": None}, "interactiveMode must be specified for u"),
        ({"interactiveMode": "Always"}, "without a terminal"),
        (
            {"apiVersion": "client.authentication.k8s.io/v2"},
            "apiVersion 'client.authentication.k8s.io/v2' is not supported",
        ),
        ({"command": ""}, "command must be specified for u"),
    ],
)
def test_exec_configuration_errors(tmp_path, plugin, change, message):
    user = exec_user(plugin)
    user["exec"].update(change)
    user["exec"] = {k: v for k, v in user["exec"].items() if v is not None}
    with pytest.raises(ConfigError, match=message):
        load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": {"server": "https://127.0.0.1:1"}}, {"u": user}))


@pytest.mark.parametrize(
    "mode,message",
    [
        ("fail", "exec: executable .*plugin.py failed with exit code 3"),
        ("garbage", "decoding stdout"),
        ("empty", "didn't return a token"),
    ],
)
def test_exec_plugin_failures_say_so_without_its_output(serve, pki, tmp_path, plugin, mode, message):
    fake = serve(ok, pki.server_context())
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": exec_user(plugin, mode)})
    with pytest.raises(ConfigError, match=message) as caught:
        get(load_kubeconfig(path))
    assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)


def test_a_missing_plugin_gives_the_install_hint(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context())
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "kgen-no-such-plugin",
                     "interactiveMode": "Never", "installHint": "brew install kgen-no-such-plugin"}}  # fmt: skip
    with pytest.raises(ConfigError, match="(?s)executable kgen-no-such-plugin not found.*brew install"):
        get(load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": user})))


def test_a_relative_plugin_path_is_relative_to_the_kubeconfig(pki, tmp_path, plugin):
    user = exec_user(plugin)
    user["exec"]["command"] = "./plugin/plugin.py"
    config = load_kubeconfig(write_kubeconfig(tmp_path / "k", {"c": {"server": "https://127.0.0.1:1"}}, {"u": user}))
    assert isinstance(config.credentials, ExecCredentials)
    assert config.credentials.config.command == str(plugin)


def test_the_async_transport_runs_the_plugin_too(serve, pki, tmp_path, plugin):
    fake = serve(
        lambda r: Reply(401, b"") if r.headers.get("Authorization") == "Bearer token-1" else ok(r), pki.server_context()
    )
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, {"u": exec_user(plugin)})

    async def main() -> Any:
        async with AsyncTransport(load_kubeconfig(path), rate_limiter=None) as transport:
            return await transport.request("GET", "/api/v1/nodes")

    assert asyncio.run(main())["kind"] == "NodeList"
    assert [r.headers["Authorization"] for r in fake.requests] == ["Bearer token-1", "Bearer token-2"]


# -- files and contexts ---------------------------------------------------------------------------


def test_several_kubeconfig_files_merge_as_kubectl_merges_them(tmp_path):
    first = write_kubeconfig(
        tmp_path / "a" / "config",
        {"shared": {"server": "https://first:6443", "certificate-authority": "ca.crt"}},
        {"alice": {"token": "a"}},
        {"dev": {"cluster": "shared", "user": "alice", "namespace": "team-a"}},
        current="",
    )
    second = write_kubeconfig(
        tmp_path / "b" / "config",
        {
            "shared": {"server": "https://second:6443"},
            "other": {"server": "https://other:6443", "certificate-authority": "ca.crt"},
        },
        {"alice": {"token": "b"}, "bob": {"token": "b"}},
        {"dev": {"cluster": "other", "user": "bob"}, "prod": {"cluster": "other", "user": "bob"}},
        current="prod",
    )
    (tmp_path / "a" / "ca.crt").write_text("x")
    (tmp_path / "b" / "ca.crt").write_text("x")
    environ = {"KUBECONFIG": os.pathsep.join([str(tmp_path / "missing"), str(first), str(second), str(first)])}
    merged = read_kubeconfig(environ=environ)
    assert merged.files == (first, second)
    assert merged.current_context == "prod"  # the first file leaves it empty
    assert merged.clusters["shared"].data["server"] == "https://first:6443"  # the first definition wins whole
    assert merged.contexts["dev"].origin == first and set(merged.contexts) == {"dev", "prod"}
    dev = merged.client_config("dev")
    assert (dev.server, dev.namespace, dev.tls.ca_file) == (
        "https://first:6443",
        "team-a",
        str(tmp_path / "a" / "ca.crt"),
    )
    prod = load_kubeconfig(environ=environ)
    assert (prod.server, prod.namespace, prod.tls.ca_file) == (
        "https://other:6443",
        "default",
        str(tmp_path / "b" / "ca.crt"),
    )
    assert load_kubeconfig(environ=environ, context="dev", namespace="override").namespace == "override"


def test_home_kubeconfig_and_missing_files(tmp_path):
    write_kubeconfig(tmp_path / ".kube" / "config", {"c": {"server": "https://home:6443"}})
    assert load_kubeconfig(environ={}, home=tmp_path).server == "https://home:6443"
    with pytest.raises(ConfigError, match="no kubeconfig found \\(looked at .*nope\\); set KUBECONFIG"):
        load_kubeconfig(environ={"KUBECONFIG": str(tmp_path / "nope")}, home=tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_kubeconfig(tmp_path / "nope")


@pytest.mark.parametrize(
    "context,current,message",
    [
        ("nope", "main", 'context "nope" does not exist in .* \\(contexts: main\\)'),
        (None, "", "no current-context in .*kubectl config use-context"),
        (None, "gone", 'context "gone" does not exist'),
    ],
)
def test_context_errors_say_what_exists(tmp_path, context, current, message):
    path = write_kubeconfig(tmp_path / "k", {"c": {"server": "https://x:1"}}, current=current)
    with pytest.raises(ConfigError, match=message):
        load_kubeconfig(path, context=context)


@pytest.mark.parametrize(
    "cluster,user,message",
    [
        ({}, {}, 'no server found for cluster "c"'),
        ({"server": "https://x", "certificate-authority": "/nope", "certificate-authority-data": "eA=="}, {},
         "certificate-authority-data and certificate-authority are both specified"),
        ({"server": "https://x", "certificate-authority": "/nope/ca.crt"}, {}, "unable to read certificate-authority /nope/ca.crt"),
        ({"server": "https://x", "insecure-skip-tls-verify": True, "certificate-authority-data": "eA=="}, {},
         "root certificates file with the insecure flag is not allowed"),
        ({"server": "https://x", "certificate-authority-data": "not base64!"}, {}, "not base64"),
        ({"server": "https://x", "proxy-url": "ftp://proxy"}, {}, "unsupported scheme"),
        ({"server": "https://x"}, {"token": SECRET, "username": "u", "password": PASSWORD},
         "more than one authentication method found for u"),
        ({"server": "https://x"}, {"client-certificate-data": "eA=="}, "client-key-data or client-key must be specified"),
        ({"server": "https://x"}, {"auth-provider": {"name": "oidc", "config": {"id-token": SECRET}}}, "use an exec credential plugin"),
        ({"server": "https://x"}, {"tokenFile": "/nope/token"}, "cannot read the bearer token file /nope/token"),
    ],
)  # fmt: skip
def test_configuration_errors_are_clientcmds_and_hold_no_secret(tmp_path, cluster, user, message):
    path = write_kubeconfig(tmp_path / "k", {"c": cluster}, {"u": user})
    with pytest.raises(ConfigError, match=message) as caught:
        load_kubeconfig(path)
    assert str(path) in str(caught.value)
    assert SECRET not in str(caught.value) and PASSWORD not in str(caught.value)


def test_a_kubeconfig_that_is_not_yaml_names_the_place(tmp_path):
    path = tmp_path / "k"
    path.write_text("clusters: [\n  - {name: a\n")
    with pytest.raises(ConfigError, match=f"{path}:\\d+:\\d+: the kubeconfig is not valid YAML"):
        load_kubeconfig(path)


def test_a_server_without_scheme_is_https_when_tls_is_configured(tmp_path):
    path = write_kubeconfig(tmp_path / "k", {"c": {"server": "example:6443", "insecure-skip-tls-verify": True}})
    assert load_kubeconfig(path).server == "https://example:6443"
    path = write_kubeconfig(tmp_path / "k2", {"c": {"server": "example:8080"}})
    assert load_kubeconfig(path).server == "http://example:8080"


# -- in the cluster -------------------------------------------------------------------------------


def service_account(directory: Path, pki: PKI, token: str = "sa-token-1", namespace: str | None = "team-x") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "token").write_text(token)
    (directory / "ca.crt").write_bytes(pki.pem("ca.crt"))
    if namespace is not None:
        (directory / "namespace").write_text(namespace + "\n")
    return directory


def test_in_cluster_configuration_and_token_rotation(serve, pki, tmp_path):
    fake = serve(ok, pki.server_context())
    account = service_account(tmp_path / "sa", pki)
    environ = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(fake.port)}
    config = load_incluster_config(environ=environ, service_account_dir=account)
    assert (config.server, config.namespace, config.tls.ca_file) == (
        f"https://127.0.0.1:{fake.port}",
        "team-x",
        str(account / "ca.crt"),
    )
    with Transport(config, rate_limiter=None) as transport:
        transport.request("GET", "/api/v1/nodes")
        (account / "token").write_text("sa-token-2-rotated")
        transport.request("GET", "/api/v1/nodes")
    assert [r.headers["Authorization"] for r in fake.requests] == ["Bearer sa-token-1", "Bearer sa-token-2-rotated"]


def test_in_cluster_namespace_and_host_rules(pki, tmp_path):
    account = service_account(tmp_path / "sa", pki, namespace=None)
    environ = {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
    config = load_incluster_config(environ=environ, service_account_dir=account)
    assert (config.server, config.namespace) == ("https://[fd00::1]:443", "default")
    config = load_incluster_config(environ={**environ, "POD_NAMESPACE": "from-env"}, service_account_dir=account)
    assert config.namespace == "from-env"
    with pytest.raises(ConfigError, match="KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"):
        load_incluster_config(environ={}, service_account_dir=account)
    with pytest.raises(ConfigError, match="cannot read the bearer token file"):
        load_incluster_config(environ=environ, service_account_dir=tmp_path / "empty")


def test_load_config_prefers_kubeconfig_then_the_cluster_then_home(pki, tmp_path):
    account = service_account(tmp_path / "sa", pki)
    write_kubeconfig(tmp_path / "home" / ".kube" / "config", {"c": {"server": "https://home:6443"}})
    listed = write_kubeconfig(tmp_path / "listed", {"c": {"server": "https://listed:6443"}})
    in_cluster = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    options: dict[str, Any] = {"home": tmp_path / "home", "service_account_dir": account}
    assert load_config(environ={**in_cluster, "KUBECONFIG": str(listed)}, **options).server == "https://listed:6443"
    assert load_config(environ=in_cluster, **options).server == "https://10.0.0.1:443"
    assert load_config(environ={}, **options).server == "https://home:6443"


# -- secrets stay secret --------------------------------------------------------------------------


def test_no_repr_or_message_shows_a_credential(serve, pki, tmp_path):
    fake = serve(lambda r: Reply(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Unauthorized",
                                       "message": "Unauthorized", "code": 401}), pki.server_context())  # fmt: skip
    users = {
        "token": {"token": SECRET},
        "basic": {"username": "admin", "password": PASSWORD},
        "key": {"client-certificate-data": b64(pki.pem("alice.crt")), "client-key-data": b64(pki.pem("alice.key"))},
    }
    contexts = {name: {"cluster": "c", "user": name} for name in users}
    path = write_kubeconfig(tmp_path / "k", {"c": tls_cluster(fake, pki)}, users, contexts)
    key_text = pki.pem("alice.key").decode()
    for name in users:
        config = load_kubeconfig(path, context=name)
        with Transport(config, rate_limiter=None) as transport:
            with pytest.raises(Unauthorized) as caught:
                transport.request("GET", "/api/v1/nodes")
            shown = [repr(config), str(config), repr(config.credentials), repr(config.tls), repr(transport),
                     str(caught.value), repr(caught.value)]  # fmt: skip
        if config.credentials is not None:
            shown.append(repr(config.credentials.get()))
        for text in shown:
            assert SECRET not in text and PASSWORD not in text and key_text[40:80] not in text
    assert "values redacted" in repr(load_kubeconfig(path, context="token").credentials)


def test_a_kubeconfig_entry_repr_shows_no_data(tmp_path):
    path = write_kubeconfig(tmp_path / "k", {"c": {"server": "https://x"}}, {"u": {"token": SECRET}})
    assert SECRET not in repr(read_kubeconfig(path))


def test_exec_config_repr_hides_the_env(plugin):
    config = ExecConfig(command=str(plugin), env=(("API_KEY", SECRET),))
    assert SECRET not in repr(config) and SECRET not in repr(ExecCredentials(config))
