"""The status of ValidatingAdmissionPolicies, as kube-controller-manager's
validatingadmissionpolicy-status controller writes it.

After a policy is created or its spec changes (its generation is newer than
`status.observedGeneration`), the controller type-checks its validations' expressions
against the kinds its resource rules name (at most ten, none through wildcards or
subresources; a kind whose schema is not known is skipped) and applies, as the field manager
`validatingadmissionpolicy-status`, a status of `observedGeneration` and `typeChecking`, with
a warning per expression whose problems it found (typechecking.go: `<group/version, Kind=K>:
<cel-go's errors>`).

kgen's type check finds what cel-go's finds most often: fields an expression selects that
the schema of `object`, `oldObject` or `params` does not have (`undefined field 'x'`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kgen.runtime import gotypes
from kgen.runtime.errors import APIError
from kgen.runtime.validation import celparse
from kgen.serve.builtins.types import OBJECT_META
from kgen.serve.policies import types
from kgen.serve.policies.expressions import OBJECT, OLD_OBJECT, PARAMS, _location
from kgen.serve.policies.resources import POLICIES

if TYPE_CHECKING:
    from kgen.serve.api import Endpoint, ServedAPI

MANAGER = "validatingadmissionpolicy-status"
MAX_TYPES = 10
_log = logging.getLogger("kgen.serve.policies")


# -- schemas -----------------------------------------------------------------------------------


_JSON_TYPES = {"string": "string", "bool": "boolean", "int32": "integer", "int64": "integer"}


def _shallow_schema(go_type: gotypes.GoType) -> dict[str, Any]:
    """The JSON type of a field of ObjectMeta (its lists' items left open)."""
    if isinstance(go_type, gotypes.Pointer):
        return _shallow_schema(go_type.elem)
    if isinstance(go_type, gotypes.Map):
        return {"type": "object", "additionalProperties": _shallow_schema(go_type.elem)}
    if isinstance(go_type, gotypes.Slice):
        return {"type": "array"}
    if isinstance(go_type, gotypes.Scalar):
        return {"type": _JSON_TYPES[go_type.kind]}
    if isinstance(go_type, gotypes.Timestamp):
        return {"type": "string"}
    return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def _object_meta_schema() -> dict[str, Any]:
    """ObjectMeta as a schema (the fields a CEL type of a resource's metadata has)."""
    return {
        "type": "object",
        "properties": {member.json: _shallow_schema(member.type) for member in OBJECT_META.fields},
    }


class _Resolver:
    """Schemas by reference, within one OpenAPI v3 document's components."""

    def __init__(self, components: Mapping[str, Any]):
        self.components = components

    def resolve(self, schema: Any) -> Any:
        for _ in range(64):
            if not isinstance(schema, Mapping):
                return schema
            reference = schema.get("$ref")
            if reference is None and len(schema.get("allOf") or []) == 1 and "properties" not in schema:
                reference = (schema["allOf"][0] or {}).get("$ref")
            if reference is None:
                return schema
            schema = self.components.get(reference.rsplit("/", 1)[-1], {})
        return schema


def _with_type_and_meta(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A resource's root schema with apiVersion, kind and metadata (WithTypeAndObjectMeta)."""
    root = dict(schema)
    properties = dict(root.get("properties") or {})
    properties.setdefault("apiVersion", {"type": "string"})
    properties.setdefault("kind", {"type": "string"})
    metadata = properties.get("metadata")
    if not isinstance(metadata, Mapping) or not metadata.get("properties"):
        properties["metadata"] = _object_meta_schema()
    root["properties"] = properties
    return root


def schema_of(endpoint: Endpoint) -> tuple[dict[str, Any], _Resolver] | None:
    """The schema of an endpoint's kind in its version, and how to resolve its references;
    None when kgen knows none (resolver.ErrSchemaNotFound: the kind is skipped)."""
    if endpoint.version.schema is not None:
        return _with_type_and_meta(endpoint.version.schema), _Resolver({})
    document = endpoint.openapi_v3
    if not document:
        return None
    components = document.get("components", {}).get("schemas", {})
    for schema in components.values():
        for gvk in schema.get("x-kubernetes-group-version-kind", ()):
            if (gvk.get("group", ""), gvk.get("version"), gvk.get("kind")) == (
                endpoint.group, endpoint.version.version, endpoint.kind,
            ):  # fmt: skip
                resolver = _Resolver(components)
                root = dict(schema)
                root["properties"] = {k: resolver.resolve(v) for k, v in (schema.get("properties") or {}).items()}
                return _with_type_and_meta(root), resolver
    return None


def _field(schema: Any, name: str, resolver: _Resolver) -> tuple[bool, Any]:
    """(whether the field is declared, its schema; None when anything goes below it)."""
    schema = resolver.resolve(schema)
    if not isinstance(schema, Mapping):
        return True, None
    properties = schema.get("properties")
    additional = schema.get("additionalProperties")
    if isinstance(properties, Mapping) and properties:
        if name in properties:
            return True, properties[name]
        return False, None
    if isinstance(additional, Mapping):
        return True, additional
    return True, None  # preserved unknown fields, or an object whose fields kgen does not know


# -- type checking --------------------------------------------------------------------------------


def _chain(node: celparse.Select) -> tuple[str, list[celparse.Select]] | None:
    """The variable a select chain starts from and its selects, root first."""
    selects: list[celparse.Select] = []
    current: Any = node
    while isinstance(current, celparse.Select):
        selects.append(current)
        current = current.operand
    if isinstance(current, celparse.Ident) and current.name in (OBJECT, OLD_OBJECT, PARAMS):
        return current.name, list(reversed(selects))
    return None


def undefined_fields(
    text: str, schema: tuple[dict[str, Any], _Resolver] | None, params: tuple[dict[str, Any], _Resolver] | None
) -> str:
    """cel-go's errors for the fields an expression selects that the schemas do not declare
    (`schema` for object and oldObject, `params` for params), or ""."""
    try:
        tree = celparse.parse(text)
    except celparse.CelSyntaxError:
        return ""
    problems: dict[int, str] = {}
    for node in celparse.walk(tree):
        if not isinstance(node, celparse.Select) or node.position < 0:
            continue
        found = _chain(node)
        if found is None:
            continue
        root, selects = found
        typed = params if root == PARAMS else schema
        if typed is None:
            continue
        current, resolver = typed
        for select in selects:
            declared, below = _field(current, select.field, resolver)
            if not declared:
                problems.setdefault(select.position, f"undefined field '{select.field}'")
                break
            if below is None:
                break
            current = below
    return "\n".join(_location(text, position, message) for position, message in sorted(problems.items()))


def _gvk(endpoint: Endpoint) -> str:
    return f"{endpoint.group}/{endpoint.version.version}, Kind={endpoint.kind}"


def kinds_to_check(api: ServedAPI, policy: Mapping[str, Any]) -> list[Endpoint]:
    """The kinds a policy's resource rules name (typesToCheck), sorted by group, version, kind."""
    rules = ((policy.get("spec") or {}).get("matchConstraints") or {}).get("resourceRules") or []
    found: dict[tuple[str, str, str], Endpoint] = {}
    count = 0
    for rule in rules:
        groups, versions = list(rule.get("apiGroups") or []), list(rule.get("apiVersions") or [])
        if not groups or any("*" in g for g in groups) or not versions or any("*" in v for v in versions):
            continue
        resources = [r for r in rule.get("resources") or [] if "*" not in r and "/" not in r]
        for group in sorted(groups):
            for version in sorted(versions):
                for resource in sorted(resources):
                    endpoint = api.endpoints.get((group, version, resource))
                    if endpoint is None:
                        continue
                    found[(group, version, endpoint.kind)] = endpoint
                    count += 1
                    if count == MAX_TYPES:
                        return [found[key] for key in sorted(found)]
    return [found[key] for key in sorted(found)]


def type_check(api: ServedAPI, policy: Mapping[str, Any]) -> list[dict[str, str]]:
    """The expression warnings of a policy (TypeChecker.Check)."""
    kinds = [(endpoint, schema_of(endpoint)) for endpoint in kinds_to_check(api, policy)]
    checked = [(endpoint, schema) for endpoint, schema in kinds if schema is not None]
    params = None
    kind = (policy.get("spec") or {}).get("paramKind")
    if kind is not None:
        endpoint = api.admission._param_endpoint(kind)
        params = schema_of(endpoint) if endpoint is not None else None
    warnings: list[dict[str, str]] = []
    for i, validation in enumerate((policy.get("spec") or {}).get("validations") or []):
        for name in ("expression", "messageExpression"):
            text = validation.get(name) or ""
            if not text:
                continue
            results = [
                f"{_gvk(endpoint)}: {issues}\n"
                for endpoint, schema in checked
                if (issues := undefined_fields(text, schema, params))
            ]
            if results:
                warnings.append({"fieldRef": f"spec.validations[{i}].{name}", "warning": "\n".join(results)})
    return warnings


# -- the controller -------------------------------------------------------------------------------


class StatusController:
    """Keeps every policy's status current (a thread following the store's changes)."""

    def __init__(self, api: ServedAPI):
        self.api = api
        self._thread = threading.Thread(target=self._run, name="kgen-policy-status", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _endpoint(self) -> Endpoint | None:
        return self.api.endpoints.get((POLICIES.group, POLICIES.storage_version, POLICIES.plural))

    def _run(self) -> None:
        from kgen.serve.policies.resources import PolicyFlow

        endpoint = self._endpoint()
        if endpoint is None or not isinstance(endpoint.flow, PolicyFlow):
            return  # the API serves the group itself
        cache = self.api.engine.watch_cache
        try:
            cache.start()
        except Exception:  # noqa: BLE001 - a store that cannot feed changes has no policies to follow
            _log.exception("the policy status controller cannot follow the store")
            return
        prefix = endpoint.store.prefix
        from kgen.runtime.store.watchcache import CacheClosed, TooOld

        while not self.api.stopping.is_set():
            revision = cache.revision
            try:
                for policy in endpoint.store.list()["items"]:
                    self.reconcile(policy)
                while not self.api.stopping.is_set():
                    cache.wait(revision, 0.5)
                    events, revision = cache.events_after(revision)
                    for event in events:
                        if event.key.startswith(prefix) and event.object is not None:
                            self.reconcile(event.object)
            except TooOld:
                continue
            except CacheClosed:
                return
            except Exception:  # noqa: BLE001 - a controller keeps going
                _log.exception("policy status reconciliation failed; starting over")
                self.api.stopping.wait(1.0)

    def reconcile(self, policy: Mapping[str, Any]) -> None:
        """Write the status of a policy whose generation is newer than its status says."""
        metadata = policy.get("metadata") or {}
        generation = metadata.get("generation") or 0
        if generation <= ((policy.get("status") or {}).get("observedGeneration") or 0):
            return
        endpoint = self._endpoint()
        assert endpoint is not None
        warnings = type_check(self.api, policy)
        applied = {
            "apiVersion": types.API_VERSION,
            "kind": POLICIES.kind,
            "metadata": {"name": metadata.get("name", "")},
            "status": {
                "observedGeneration": generation,
                "typeChecking": {"expressionWarnings": warnings} if warnings else {},
            },
        }
        manager = endpoint.field_manager("status")

        def transform(current: dict[str, Any] | None) -> dict[str, Any]:
            if current is None or (current.get("metadata") or {}).get("generation") != generation:
                raise _Stale()
            merged: dict[str, Any] = manager.apply(current, applied, MANAGER, force=True)
            status = merged.get("status") or {}
            if not status.get("typeChecking"):
                status["typeChecking"] = {}
            merged["status"] = status
            return merged

        try:
            endpoint.store.guaranteed_update(metadata.get("name", ""), "", transform, subresource="status")
        except (_Stale, APIError):
            pass  # changed again, or gone: the next event brings it back


class _Stale(Exception):
    """The policy changed after the event: its next event is reconciled instead."""
