"""Checking manifests against the published OpenAPI of Kubernetes' own types, offline.

The schema is read at run time from a swagger document a checkout carries (for example
kubernetes-client/python's `kubernetes/swagger.json.unprocessed`, named by the
`KGEN_K8S_SWAGGER` environment variable); nothing of it is kept in this repository.

- `schema_errors(document, definitions)` checks a manifest as the API server's strict
  decoding would: types and formats, required fields, and no field the schema lacks.
- `DiscoveryServer` serves what `kubectl apply --dry-run=client --validate=strict` reads
  (discovery, and the OpenAPI v2 document in the protobuf form kubectl asks for, gnostic's
  OpenAPIv2 `Document`), and 404 for every object, so that kubectl validates manifests
  against the published schemas with no cluster. It serves no OpenAPI v3: kubectl then
  takes the server for one that does not validate fields itself and validates on the
  client (cli-runtime's query param verifier falls back to v2).
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SWAGGER_VARIABLE = "KGEN_K8S_SWAGGER"


def swagger_path() -> Path | None:
    """The swagger document named by KGEN_K8S_SWAGGER, when there is one."""
    value = os.environ.get(SWAGGER_VARIABLE)
    path = Path(value) if value else None
    return path if path is not None and path.is_file() else None


def definitions_by_kind(swagger: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    """(group, version, kind) -> definition name, from x-kubernetes-group-version-kind."""
    found = {}
    for name, schema in swagger["definitions"].items():
        for gvk in schema.get("x-kubernetes-group-version-kind", ()):
            found[(gvk["group"], gvk["version"], gvk["kind"])] = name
    return found


def schema_errors(value: Any, schema: dict[str, Any], definitions: dict[str, Any], path: str = "") -> list[str]:
    """Where a JSON value does not fit an OpenAPI v2 schema (refs resolved), as `path: problem`."""
    where = path or "<root>"
    if "$ref" in schema:
        return schema_errors(value, definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions, path)
    kind, form = schema.get("type"), schema.get("format")
    if form == "int-or-string":
        return (
            []
            if isinstance(value, (int, str)) and not isinstance(value, bool)
            else [f"{where}: not an int or a string"]
        )
    if kind is None:
        return []  # any value (JSON, RawExtension, JSONSchemaPropsOrArray)
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
    }
    if not checks[kind](value):
        return [f"{where}: must be of type {kind}, not {type(value).__name__}"]
    errors: list[str] = []
    if form == "byte":
        try:
            base64.b64decode(value, validate=True)
        except ValueError:
            errors.append(f"{where}: is not base64 (format byte)")
    if form == "int32" and not -(2**31) <= value < 2**31:
        errors.append(f"{where}: out of the int32 range")
    if kind == "array":
        for index, item in enumerate(value):
            errors += schema_errors(item, schema.get("items", {}), definitions, f"{path}[{index}]")
    if kind == "object":
        properties = schema.get("properties")
        for name in schema.get("required", ()):
            if name not in value:
                errors.append(f"{where}: {name}: Required value")
        for key, item in value.items():
            child = f"{path}.{key}" if path else key
            if properties is not None and key in properties:
                errors += schema_errors(item, properties[key], definitions, child)
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += schema_errors(item, schema["additionalProperties"], definitions, child)
            elif properties is not None:
                errors.append(f'{where}: unknown field "{key}"')
    return errors


# -- gnostic's OpenAPIv2 Document in protobuf (the field numbers of openapiv2/OpenAPIv2.proto) -----


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        out.append(byte | (0x80 if number else 0))
        if not number:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2): strings and messages."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _string(number: int, text: str) -> bytes:
    return _field(number, text.encode())


def _schema(schema: dict[str, Any]) -> bytes:
    """A gnostic Schema message: `_ref` 1, format 2, required 19, additionalProperties 21,
    type 22, items 23, allOf 24, properties 25, vendor extensions 31."""
    out = b""
    if "$ref" in schema:
        out += _string(1, schema["$ref"])
    if "format" in schema:
        out += _string(2, schema["format"])
    for name in schema.get("required", ()):
        out += _string(19, name)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        out += _field(21, _field(1, _schema(extra)))
    if "type" in schema:
        out += _field(22, _string(1, schema["type"]))
    if isinstance(schema.get("items"), dict):
        out += _field(23, _field(1, _schema(schema["items"])))
    for part in schema.get("allOf", ()):
        out += _field(24, _schema(part))
    if "properties" in schema:
        named = b"".join(_field(1, _string(1, k) + _field(2, _schema(v))) for k, v in schema["properties"].items())
        out += _field(25, named)
    for key, value in schema.items():
        if key.startswith("x-kubernetes-"):  # NamedAny{name 1, value 2: Any{yaml 2}}: JSON is YAML
            out += _field(31, _string(1, key) + _field(2, _string(2, json.dumps(value))))
    return out


def openapi_v2_protobuf(swagger: dict[str, Any]) -> bytes:
    """The document as gnostic's `Document`: swagger 1, info 2 (title 1, version 2), definitions 9."""
    info = _string(1, swagger.get("info", {}).get("title", "Kubernetes")) + _string(2, "unversioned")
    definitions = b"".join(
        _field(1, _string(1, name) + _field(2, _schema(schema))) for name, schema in swagger["definitions"].items()
    )
    return _string(1, "2.0") + _field(2, info) + _field(9, definitions)


# -- the stand-in -------------------------------------------------------------------------------------


_COLLECTION = re.compile(
    r"^/apis/(?P<group>[^/{}]+)/(?P<version>[^/{}]+)/(?P<namespaced>namespaces/\{namespace\}/)?(?P<plural>[^/{}]+)$"
)


def resources(swagger: dict[str, Any], groups: set[str]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The APIResources of some groups, from the document's paths (a collection's POST names its kind)."""
    found: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for path, item in swagger.get("paths", {}).items():
        match = _COLLECTION.match(path)
        post = item.get("post") if isinstance(item, dict) else None
        if match is None or match["group"] not in groups or not post:
            continue
        gvk = post.get("x-kubernetes-group-version-kind") or {}
        found.setdefault((match["group"], match["version"]), {})[match["plural"]] = {
            "name": match["plural"], "singularName": "", "namespaced": bool(match["namespaced"]), "kind": gvk.get("kind"),
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        }  # fmt: skip
    return {key: sorted(values.values(), key=lambda r: r["name"]) for key, values in found.items()}


class DiscoveryServer:
    """Discovery and OpenAPI v2 of some groups on 127.0.0.1, for kubectl (a context manager)."""

    def __init__(self, swagger: dict[str, Any], groups: set[str]):
        self.protobuf = openapi_v2_protobuf(swagger)
        self.resources = resources(swagger, groups)
        self.requests: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                owner.requests.append(self.path)
                code, content_type, body = owner.answer(self.path.split("?", 1)[0])
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str) -> tuple[int, str, bytes]:
        groups = sorted({g for g, _ in self.resources})
        if path == "/version":
            body: Any = {"major": "1", "minor": "32", "gitVersion": "v1.32.0"}
        elif path == "/api":
            body = {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        elif path == "/api/v1":
            body = {"kind": "APIResourceList", "groupVersion": "v1", "resources": []}
        elif path == "/apis":
            body = {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for gg, v in self.resources if gg == g],
                 "preferredVersion": {"groupVersion": f"{g}/v1", "version": "v1"}} for g in groups
            ]}  # fmt: skip
        elif path == "/openapi/v2":
            return 200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", self.protobuf
        elif (match := re.fullmatch(r"/apis/([^/]+)/([^/]+)", path)) and match.groups() in self.resources:
            group, version = match.groups()
            body = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}",
                    "resources": self.resources[(group, version)]}  # fmt: skip
        else:
            status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
                      "message": "the server could not find the requested resource"}  # fmt: skip
            return 404, "application/json", json.dumps(status).encode()
        return 200, "application/json", json.dumps(body).encode()

    def __enter__(self) -> DiscoveryServer:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
