"""The webhook settings of `[tool.kgen]`: `[tool.kgen.webhook]` (the admission webhooks of the
custom resources) and `[tool.kgen.crd.conversion]` (the CRDs' conversion webhook), checked
and normalised for the generators.

Both name where the API server reaches the webhook: a Service (`service-name`,
`service-namespace`, `port`, and for conversion `path`) or an HTTPS URL, as the API server
accepts them (apiserver pkg/util/webhook/validation.go `ValidateWebhookURL`: https only,
no user, query or fragment; `ValidateWebhookService`: a path starting with `/`). A CA
bundle is read here from `ca-bundle-file` (so that a changed file changes the run's
options, and its output), or left to cert-manager's CA injector (`cert-manager =
"<namespace>/<certificate>"`, the `cert-manager.io/inject-ca-from` annotation).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CONVERSION_SETTINGS = frozenset(
    {"service-name", "service-namespace", "path", "port", "url", "ca-bundle-file", "cert-manager", "review-versions"}
)
"""`[tool.kgen.crd.conversion]`."""

WEBHOOK_SETTINGS = frozenset({
    "service-name", "service-namespace", "port", "base-url", "failure-policy", "timeout-seconds",
    "admission-review-versions", "reinvocation-policy", "mutating", "validating", "ca-bundle-file", "cert-manager",
    "name-prefix", "namespace-selector", "object-selector", "output",
})  # fmt: skip
"""`[tool.kgen.webhook]`."""

REVIEW_VERSIONS = ("v1", "v1beta1")
"""The review versions kgen's webhook answers (ConversionReview and AdmissionReview alike)."""


class SettingsError(ValueError):
    """A webhook setting that cannot work (the message names the table and key)."""


def conversion_settings(table: Any, base: Path) -> dict[str, Any]:
    """`[tool.kgen.crd.conversion]`, checked; `ca-bundle-file` read into `ca-bundle` (base64)."""
    where = "[tool.kgen.crd.conversion]"
    if not isinstance(table, dict) or set(table) - CONVERSION_SETTINGS:
        raise SettingsError(
            f"{where} takes {', '.join(sorted(CONVERSION_SETTINGS))} (the webhook that converts between versions)"
        )
    if not table:
        return {}
    out = _endpoint(table, where, "url")
    if "path" in table:
        if "url" in table:
            raise SettingsError(f"{where} path belongs to the Service; a url already has its path")
        out["path"] = _path(table["path"], where)
    if "review-versions" in table:
        out["review-versions"] = _versions(table["review-versions"], where, "review-versions")
    out.update(_ca(table, where, base))
    return out


def webhook_settings(table: Any, base: Path) -> dict[str, Any]:
    """`[tool.kgen.webhook]`, checked; `ca-bundle-file` read into `ca-bundle` (base64).
    `output` (where the manifests go) is the run's `webhook_output`, not a generator's setting."""
    where = "[tool.kgen.webhook]"
    if not isinstance(table, dict) or set(table) - WEBHOOK_SETTINGS:
        unknown = sorted(set(table) - WEBHOOK_SETTINGS) if isinstance(table, dict) else []
        raise SettingsError(
            f"{where}: unknown settings {', '.join(unknown)} (known: {', '.join(sorted(WEBHOOK_SETTINGS))})"
            if unknown
            else f"{where} must be a table"
        )
    if not table:
        return {}
    out = _endpoint(table, where, "base-url")
    choices = {"failure-policy": ("Fail", "Ignore"), "reinvocation-policy": ("Never", "IfNeeded")}
    for key, allowed in choices.items():
        if key in table:
            if table[key] not in allowed:
                raise SettingsError(f"{where} {key} must be one of {', '.join(allowed)}, got {table[key]!r}")
            out[key] = table[key]
    if "timeout-seconds" in table:
        value = table["timeout-seconds"]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 30:
            # admissionregistration validation: timeoutSeconds must be between 1 and 30 seconds
            raise SettingsError(
                f"{where} timeout-seconds must be a whole number of seconds from 1 to 30, got {value!r}"
            )
        out["timeout-seconds"] = value
    if "admission-review-versions" in table:
        out["admission-review-versions"] = _versions(
            table["admission-review-versions"], where, "admission-review-versions"
        )
    for key in ("mutating", "validating"):
        if key in table:
            if not isinstance(table[key], bool):
                raise SettingsError(f"{where} {key} must be true or false")
            out[key] = table[key]
    if "name-prefix" in table:
        if not isinstance(table["name-prefix"], str):
            raise SettingsError(f"{where} name-prefix must be a string")
        out["name-prefix"] = table["name-prefix"]
    for key in ("namespace-selector", "object-selector"):
        if key in table:
            out[key] = _selector(table[key], where, key)
    if "output" in table and (not isinstance(table["output"], str) or not table["output"]):
        raise SettingsError(f"{where} output must be a directory path")
    out.update(_ca(table, where, base))
    return out


def _endpoint(table: dict[str, Any], where: str, url_key: str) -> dict[str, Any]:
    service = {k: table[k] for k in ("service-name", "service-namespace", "port") if k in table}
    if url_key in table and service:
        raise SettingsError(f"{where} names a Service (service-name, service-namespace, port) or {url_key}, not both")
    if url_key in table:
        return {url_key: _https_url(table[url_key], where, url_key)}
    if not {"service-name", "service-namespace"} <= set(service):
        raise SettingsError(f"{where} needs service-name and service-namespace (or {url_key})")
    for key in ("service-name", "service-namespace"):
        if not isinstance(service[key], str) or not service[key]:
            raise SettingsError(f"{where} {key} must be a non-empty string")
    if "port" in service:
        port = service["port"]
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            raise SettingsError(f"{where} port must be a port number, got {port!r}")
    return service


def _https_url(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise SettingsError(f"{where} {key} must be a URL")
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname:
        raise SettingsError(f"{where} {key} = {value!r}: 'https' is the only allowed URL scheme, and it needs a host")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise SettingsError(f"{where} {key} = {value!r}: a webhook URL may have no user, query or fragment")
    return value


def _path(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.startswith("/"):
        raise SettingsError(f"{where} path must start with '/', got {value!r}")
    return value


def _versions(value: Any, where: str, key: str) -> list[str]:
    if not isinstance(value, list) or not value or any(v not in REVIEW_VERSIONS for v in value):
        raise SettingsError(
            f"{where} {key} must list review versions kgen's webhook answers ({', '.join(REVIEW_VERSIONS)})"
        )
    return list(value)


def _selector(value: Any, where: str, key: str) -> dict[str, Any]:
    """A label selector table: `matchLabels` (strings) and `matchExpressions`."""
    if not isinstance(value, dict) or set(value) - {"matchLabels", "matchExpressions"}:
        raise SettingsError(f"{where} {key} is a label selector: a table of matchLabels and matchExpressions")
    labels = value.get("matchLabels", {})
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise SettingsError(f"{where} {key}.matchLabels maps label keys to strings")
    expressions = value.get("matchExpressions", [])
    operators = ("In", "NotIn", "Exists", "DoesNotExist")
    if not isinstance(expressions, list) or not all(
        isinstance(e, dict) and isinstance(e.get("key"), str) and e.get("operator") in operators for e in expressions
    ):
        raise SettingsError(
            f"{where} {key}.matchExpressions are tables with a key and an operator ({', '.join(operators)})"
        )
    return dict(value)


def _ca(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    if "ca-bundle-file" in table and "cert-manager" in table:
        raise SettingsError(
            f"{where} takes ca-bundle-file or cert-manager (whose CA injector fills the bundle), not both"
        )
    if "cert-manager" in table:
        value = table["cert-manager"]
        namespace, _, name = value.partition("/") if isinstance(value, str) else ("", "", "")
        if not namespace or not name or "/" in name:
            raise SettingsError(f'{where} cert-manager names the Certificate as "<namespace>/<name>", got {value!r}')
        return {"cert-manager": value}
    if "ca-bundle-file" in table:
        value = table["ca-bundle-file"]
        if not isinstance(value, str) or not value:
            raise SettingsError(f"{where} ca-bundle-file must be a file path")
        path = base / value
        try:
            data = path.read_bytes()
        except OSError as error:
            raise SettingsError(f"{where} ca-bundle-file = {value!r}: cannot read {path}: {error.strerror}") from None
        if b"-----BEGIN CERTIFICATE-----" not in data:
            raise SettingsError(f"{where} ca-bundle-file = {value!r} holds no PEM certificate")
        return {"ca-bundle": base64.b64encode(data).decode("ascii")}
    return {}
