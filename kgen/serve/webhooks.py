"""Calling webhooks as kube-apiserver calls them: where a `clientConfig` points, over HTTPS
with its `caBundle`, within a timeout, and what a failed call looks like.

A `clientConfig` names a `url`, or a `service` (`namespace`, `name`, `path`, `port` 443) that
a cluster reaches at `https://<name>.<namespace>.svc:<port><path>`. This machine has no
cluster DNS, so `kgen serve --webhook NAMESPACE/NAME=HOST:PORT` says where a Service's
webhook listens here; the certificate is still checked for the service's DNS name, as the
API server checks it. A `FakeCluster` may instead give the webhook application itself
(ASGI), which is then called in process, with the same request and the same checks of its
answer.

Errors are worded as the API server's HTTP client words them (`Post "https://...?timeout=10s":
dial tcp 127.0.0.1:9443: connect: connection refused`), because that is what a user sees in
the Status of a request whose webhook failed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

__all__ = ["WebhookCaller", "WebhookError", "Target"]


class WebhookError(Exception):
    """A webhook call that failed: the reason, as the API server's client reports it."""


@dataclass(frozen=True)
class Target:
    """Where one call goes."""

    url: str
    """The address as the API server names it (the service's DNS name for a service)."""
    connect: str
    """The address connected to (a mapped service's host and port)."""
    server_name: str
    """The name the webhook's certificate must be valid for."""
    ca_bundle: bytes | None
    app: Any = None
    """An ASGI application called in process instead of connecting."""


class WebhookCaller:
    """Posts reviews to webhooks; one per server (it keeps its HTTPS connections)."""

    def __init__(self, services: Mapping[str, str] | None = None, apps: Mapping[str, Any] | None = None):
        self.services = dict(services or {})
        """`namespace/name` of a Service -> `host:port` where its webhook listens here."""
        self.apps = dict(apps or {})
        """`namespace/name` of a Service, or a URL -> an ASGI application called in process."""
        self._clients: dict[bytes | None, httpx.Client] = {}
        self._lock = threading.Lock()

    def reachable(self, client_config: Mapping[str, Any]) -> bool:
        """Whether a call to `client_config` goes somewhere kgen was told of (a URL, a mapped
        service, an application in process), rather than to a cluster's DNS name."""
        service = client_config.get("service")
        if isinstance(service, Mapping):
            key = f"{service.get('namespace', '')}/{service.get('name', '')}"
            return key in self.services or key in self.apps
        return bool(client_config.get("url"))

    def target(self, client_config: Mapping[str, Any]) -> Target:
        """Where `client_config` points."""
        ca_bundle = _ca_bundle(client_config.get("caBundle"))
        service = client_config.get("service")
        if isinstance(service, Mapping):
            namespace, name = service.get("namespace", ""), service.get("name", "")
            port = int(service.get("port") or 443)
            path = service.get("path") or ""
            host = f"{name}.{namespace}.svc"
            url = f"https://{host}:{port}{path}"
            key = f"{namespace}/{name}"
            mapped = self.services.get(key)
            connect = f"https://{mapped}{path}" if mapped else url
            return Target(url, connect, host, ca_bundle, self.apps.get(key))
        url = client_config.get("url") or ""
        return Target(url, url, urlsplit(url).hostname or "", ca_bundle, self.apps.get(url))

    def post(self, client_config: Mapping[str, Any], body: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """POST `body` as JSON and return the JSON answer; WebhookError when the call fails."""
        target = self.target(client_config)
        shown = f"{target.url}{'&' if '?' in target.url else '?'}timeout={_go_duration(timeout)}"
        content = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json, */*"}
        try:
            if target.app is not None:
                response = _call_in_process(target.app, target.url, content, headers, timeout)
            else:
                client = self._client(target.ca_bundle)
                response = client.post(
                    target.connect,
                    content=content,
                    headers=headers,
                    timeout=timeout,
                    extensions={"sni_hostname": target.server_name},
                )
        except httpx.TimeoutException:
            raise WebhookError(f'Post "{shown}": context deadline exceeded') from None
        except httpx.HTTPError as error:
            raise WebhookError(f'Post "{shown}": {_transport_problem(error, target)}') from None
        if response.status_code >= 300:
            raise WebhookError(_status_problem(response))
        try:
            answer = json.loads(response.content)
        except ValueError as error:
            raise WebhookError(f"the webhook's answer is not JSON: {error}") from None
        if not isinstance(answer, dict):
            raise WebhookError("the webhook's answer is not a JSON object")
        return answer

    def _client(self, ca_bundle: bytes | None) -> httpx.Client:
        with self._lock:
            client = self._clients.get(ca_bundle)
            if client is None:
                context = ssl.create_default_context()
                if ca_bundle:
                    context = ssl.create_default_context(cadata=ca_bundle.decode("ascii", "replace"))
                client = self._clients[ca_bundle] = httpx.Client(verify=context, http2=False)
            return client

    def close(self) -> None:
        """Close the connections."""
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()


def _ca_bundle(value: Any) -> bytes | None:
    """A clientConfig's caBundle (base64 of PEM in JSON) as PEM bytes."""
    if not value:
        return None
    if isinstance(value, bytes):
        return value
    try:
        return base64.b64decode(value, validate=True)
    except (ValueError, TypeError):
        raise WebhookError("caBundle is not base64") from None


def _go_duration(seconds: float) -> str:
    """A timeout as Go prints a time.Duration (`10s`, `2.5s`, `500ms`)."""
    if seconds >= 1:
        return f"{seconds:g}s"
    return f"{seconds * 1000:g}ms"


def _transport_problem(error: httpx.HTTPError, target: Target) -> str:
    """What Go's client says of a connection that failed."""
    parts = urlsplit(target.connect)
    address = f"{parts.hostname}:{parts.port or 443}"
    text = str(error)
    cause = error.__context__ or error.__cause__
    while cause is not None and not isinstance(cause, ssl.SSLError):
        cause = cause.__context__ or cause.__cause__
    if isinstance(cause, ssl.SSLCertVerificationError):
        detail = cause.verify_message or str(cause)
        if "hostname" in detail.lower() or "match" in detail.lower():
            return f"tls: failed to verify certificate: x509: certificate is not valid for {target.server_name}"
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    if isinstance(cause, ssl.SSLError) or "SSL" in text:
        return f"remote error: tls: {text}"
    lowered = text.lower()
    if "refused" in lowered:
        return f"dial tcp {address}: connect: connection refused"
    if "name or service not known" in lowered or "nodename nor servname" in lowered or "temporary failure" in lowered:
        return f"dial tcp: lookup {parts.hostname}: no such host"
    return text or type(error).__name__


def _status_problem(response: httpx.Response) -> str:
    """What client-go says of an answer that is not a success: the Status's message when the
    body is one, else that the code came without more."""
    try:
        status = json.loads(response.content)
    except ValueError:
        status = None
    if isinstance(status, dict) and status.get("kind") == "Status" and status.get("message"):
        return str(status["message"])
    text = response.text.strip()
    if text:
        return f"an error on the server ({text[:200]!r}) has prevented the request from succeeding"
    return f"the server responded with the status code {response.status_code} but did not return more information"


def _call_in_process(app: Any, url: str, content: bytes, headers: dict[str, str], timeout: float) -> httpx.Response:
    """One POST to an ASGI application, from a thread with no event loop of its own."""

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://webhook.local") as client:
            path = urlsplit(url).path or "/"
            query = urlsplit(url).query
            return await asyncio.wait_for(
                client.post(path + (f"?{query}" if query else ""), content=content, headers=headers), timeout
            )

    try:
        return asyncio.run(call())
    except asyncio.TimeoutError:
        raise httpx.ReadTimeout("timed out") from None


# -- validation of a clientConfig (webhook configurations and CRD conversion) -----------------


def client_config_errors(config: Mapping[str, Any], path: Any) -> list[Any]:
    """The errors of a webhook `clientConfig`: exactly one of `url` (https, a host, no user
    information, query or fragment) and `service` (name, namespace, a valid port, a path of
    DNS-subdomain segments), as the API server checks one."""
    from kgen.runtime.validation import field

    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [field.required(path, "exactly one of url or service is required")]
    if url is not None:
        return url_errors(str(url), field.child(path, "url"))
    return service_errors(service if isinstance(service, Mapping) else {}, field.child(path, "service"))


def url_errors(url: str, path: Any) -> list[Any]:
    """A webhook URL: https, with a host, without user information, query or fragment."""
    from kgen.runtime.validation import field

    form = "; desired format: https://host[/path]"
    try:
        parts = urlsplit(url)
    except ValueError as error:
        return [field.required(path, f"url must be a valid URL: {error}{form}")]
    errors = []
    if parts.scheme != "https":
        errors.append(field.invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + form))
    if not parts.netloc.rpartition("@")[2]:
        errors.append(field.invalid(path, "", "host must be specified" + form))
    if "@" in parts.netloc:
        errors.append(
            field.invalid(path, parts.netloc.rpartition("@")[0], "user information is not permitted in the URL")
        )
    if parts.fragment:
        errors.append(field.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errors.append(field.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errors


def service_errors(service: Mapping[str, Any], path: Any) -> list[Any]:
    """A webhook service reference: name and namespace, a valid port (443 when absent), a
    path whose segments are DNS subdomains."""
    from kgen.runtime.validation import field
    from kgen.runtime.validation.content import is_dns1123_subdomain, is_valid_port_num

    errors = []
    if not service.get("name"):
        errors.append(field.required(field.child(path, "name"), ""))
    if not service.get("namespace"):
        errors.append(field.required(field.child(path, "namespace"), ""))
    port = service.get("port", 443)
    problems = is_valid_port_num(port) if isinstance(port, int) and not isinstance(port, bool) else ["must be a number"]
    if problems:
        errors.append(field.invalid(field.child(path, "port"), port, "port is not valid: " + ", ".join(problems)))
    url_path = service.get("path")
    if url_path is None or url_path in ("", "/"):
        return errors
    where = field.child(path, "path")
    if url_path == "//":
        return [*errors, field.invalid(where, url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errors.append(field.invalid(where, url_path, "must start with a '/'"))
    checked = url_path[1:]
    if checked.endswith("/"):
        checked = checked[:-1]
    for index, step in enumerate(checked.split("/")):
        if not step:
            errors.append(field.invalid(where, url_path, f"segment[{index}] may not be empty"))
            continue
        for failure in is_dns1123_subdomain(step):
            errors.append(field.invalid(where, url_path, f"segment[{index}]: {failure}"))
    return errors


def ca_bundle_errors(value: Any, path: Any) -> list[Any]:
    """A caBundle must hold at least one PEM certificate."""
    from kgen.runtime.validation import field

    if not value:
        return []
    try:
        pem = _ca_bundle(value) or b""
        ssl.create_default_context(cadata=pem.decode("ascii"))
    except (WebhookError, ssl.SSLError, ValueError, UnicodeDecodeError) as error:
        return [field.invalid(path, value, f"unable to load root certificates: {error}")]
    return []
