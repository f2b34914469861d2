"""The resource rules: kinds, versions, storage, scope and names of two snapshots, and the
schema of every version both have (`kgen.compat.schemas`).

Versions follow the API change guide's levels: a stable version is never removed, a beta
one only once it was deprecated (a warning then: the deprecation policy's period cannot be
seen in the types), an alpha one at any time (a warning). Storage rules apply to custom
resources, whose CRDs name their storage version; Kubernetes' own groups store where the
API server's storage factory says, which their types do not tell.
"""

from __future__ import annotations

from typing import Any

from kgen.compat import schemas
from kgen.compat.changes import Change
from kgen.compat.rules import ERROR, WARNING, stability
from kgen.compat.snapshot import Resource, Snapshot, Steps, display_path
from kgen.runtime.scheme import version_priority


def compare(old: Snapshot, new: Snapshot) -> list[Change]:
    """Every change of the resources of `old` in `new` (new resources are compatible)."""
    out: list[Change] = []
    for key, before in sorted(old.resources.items()):
        after = new.resources.get(key)
        if after is None:
            out.append(_removed_kind(before))
            continue
        out += _resource(before, after)
    return out


def _ordered(versions: Any) -> list[str]:
    return sorted(versions, key=version_priority)


def _removed_kind(before: Resource) -> Change:
    served = [v for v in _ordered(before.versions) if before.versions[v].served]
    levels = {stability(v) for v in served}
    severity = ERROR
    if levels <= {"alpha"} or all(before.versions[v].deprecated for v in served):
        severity = WARNING
    what = f"no longer served (it was served in {', '.join(served) or 'no version'})"
    if before.custom and before.storage:
        what += f"; its objects are stored in {before.storage}"
    return Change("kind-removed", what, resource=(before.group, before.kind), severity=severity,
                  position=before.position)  # fmt: skip


def _resource(before: Resource, after: Resource) -> list[Change]:
    key = (before.group, before.kind)
    out: list[Change] = []
    if before.scope != after.scope:
        out.append(Change("scope-changed", f"scope changed from {before.scope} to {after.scope}", resource=key,
                          position=after.position))  # fmt: skip
    if before.custom and after.custom and before.plural != after.plural:
        out.append(Change("plural-changed", f"resource name changed from {before.plural} to {after.plural}",
                          resource=key, position=after.position))  # fmt: skip
    for name in _ordered(before.versions):
        version = before.versions[name]
        now = after.versions.get(name)
        if not version.served or (now is not None and now.served):
            continue
        level = stability(name)
        severity = ERROR
        if level == "alpha" or (level == "beta" and version.deprecated):
            severity = WARNING
        what = "removed" if now is None else "no longer served"
        if level == "beta" and version.deprecated:
            what += " (deprecated before)"
        out.append(Change("version-removed", what, resource=key, version=name, severity=severity,
                          position=after.position))  # fmt: skip
    if before.custom and after.custom:
        stored = before.storage
        if stored is not None and stored not in after.versions:
            out.append(Change("stored-version-removed", "removed while its objects are stored in it",
                              resource=key, version=stored, position=after.position))  # fmt: skip
        storing = after.storage
        if storing is not None and storing not in before.versions:
            out.append(Change("storage-version-new", "added as the storage version in the same change",
                              resource=key, version=storing, position=after.position))  # fmt: skip
    for name in _ordered(before.versions):
        if name not in after.versions:
            continue
        for change in schemas.compare(before.versions[name].schema, after.versions[name].schema):
            change.resource, change.version = key, name
            out.append(change)
    out += _version_defaults(before, after)
    return out


def _defaults(schema: dict[str, Any], steps: Steps = (), out: dict[Steps, str] | None = None) -> dict[Steps, str]:
    """Every path of a schema to its default (as JSON text; "" for none)."""
    found: dict[Steps, str] = {} if out is None else out
    found[steps] = schemas.shown(schema["default"]) if schema.get("default") is not None else ""
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict):
            _defaults(sub, steps + (("properties", name),), found)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _defaults(schema[key], steps + ((key,),), found)
    return found


def _version_defaults(before: Resource, after: Resource) -> list[Change]:
    """A default the change makes differ between versions (the guide: a field defaulted in
    one version has an equivalent default in every version)."""
    names = [n for n in _ordered(after.versions) if after.versions[n].served]
    if len(names) < 2:
        return []
    if all(n in before.versions and before.versions[n].schema == after.versions[n].schema for n in names):
        return []
    now = {n: _defaults(after.versions[n].schema) for n in names}
    was = {n: _defaults(before.versions[n].schema) for n in names if n in before.versions}
    out: list[Change] = []
    paths = sorted({p for table in now.values() for p in table}, key=display_path)
    for steps in paths:
        having = [n for n in names if steps in now[n]]
        values = {now[n][steps] for n in having}
        if len(having) < 2 or len(values) < 2:
            continue
        earlier = {was[n][steps] for n in having if n in was and steps in was[n]}
        if len(earlier) > 1:
            continue  # they differed before this change too
        changed = [n for n in having if n not in was or steps not in was[n] or was[n][steps] != now[n][steps]]
        if not changed:
            continue
        listing = ", ".join(f"{n}: {now[n][steps] or 'none'}" for n in having)
        out.append(Change("default-differs-between-versions", f"defaults now differ between versions ({listing})",
                          steps, resource=(after.group, after.kind), version=changed[0]))  # fmt: skip
    return out
