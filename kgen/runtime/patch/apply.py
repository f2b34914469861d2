"""Server-side apply and managedFields, as the API server's field manager does them.

`FieldManager` is what one endpoint (a kind, in one API version, on the main resource or a
subresource) holds. The storage engine calls:

- `apply(live, applied, manager, force=...)` for an apply patch (`live` is None when the
  object does not exist: apply creates it). It returns the new object with
  `metadata.managedFields` written, or raises `APIError`: 409 Conflict listing the fields
  other managers own, 400 for a wrong kind or version or for managedFields in the
  configuration, 500 for a configuration that does not fit the schema (as the API server).
- `update(live, new, manager)` after every create, update and non-apply patch (`live`
  None for a create). It never fails: like the API server's UpdateNoErrors it keeps the
  live managedFields when it cannot compute new ones.

What the API server's field manager wraps around structured-merge-diff is here too: manager
identities (one Apply entry per manager and subresource, one Update entry per manager, API
version and subresource), timestamps that move only when a manager changed something, the
`before-first-apply` manager that takes the fields of an object first applied to after it
was made without tracking, metadata fields nobody owns (name, uid, resourceVersion, ...),
at most ten Update entries (older ones merged into `ancient-changes`), clearing
managedFields with `[]`, and kubectl's upgrade from client-side apply (its
last-applied-configuration annotation).

After an apply the server still defaults the object, as it does after any decode.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias, cast

from kgen.runtime import gojson
from kgen.runtime.patch.errors import apply_conflict, bad_request, server_error
from kgen.runtime.patch.fieldpath import FieldSet, FieldsV1Error, path_string
from kgen.runtime.patch.schema import TypeRef
from kgen.runtime.patch.typed import ValidationError, compare, to_field_set, validate
from kgen.runtime.patch.updater import (
    Conflict,
    Conflicts,
    Converter,
    Managers,
    SameTypeConverter,
    Typed,
    Updater,
    VersionedSet,
)
from kgen.runtime.rawjson import copy_json
from kgen.runtime.errors import APIError, StatusCause

__all__ = [
    "FieldManager",
    "ManagerId",
    "conflict_error",
    "decode_managed_fields",
    "encode_managed_fields",
    "manager_or_user_agent",
    "LAST_APPLIED",
]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_MAX_ANNOTATIONS_SIZE = 256 * 1024
_BEFORE_FIRST_APPLY = "before-first-apply"
_CURRENT_OPERATION = "current-operation"
_ANCIENT_CHANGES = "ancient-changes"
FIELD_MANAGER_MAX_LENGTH = 128

#: Fields no manager owns (the API server's stripMeta).
_STRIPPED = FieldSet.of(
    *[
        ((0, "apiVersion"),),
        ((0, "kind"),),
        ((0, "metadata"),),
        ((0, "metadata"), (0, "name")),
        ((0, "metadata"), (0, "namespace")),
        ((0, "metadata"), (0, "creationTimestamp")),
        ((0, "metadata"), (0, "selfLink")),
        ((0, "metadata"), (0, "uid")),
        ((0, "metadata"), (0, "clusterName")),
        ((0, "metadata"), (0, "generation")),
        ((0, "metadata"), (0, "managedFields")),
        ((0, "metadata"), (0, "resourceVersion")),
    ]
)

ManagerId: TypeAlias = tuple[str, str, str, str]
"""(manager, operation, apiVersion ("" for Apply), subresource): one managedFields entry."""


def manager_or_user_agent(manager: str, user_agent: str) -> str:
    """The manager of a request: its fieldManager, else its User-Agent up to the first "/",
    printable characters only, at most 128 bytes (the API server's rule)."""
    if manager:
        return manager
    out, size = [], 0
    for ch in user_agent.split("/")[0]:
        if not ch.isprintable():
            continue
        size += len(ch.encode())
        if size > FIELD_MANAGER_MAX_LENGTH:
            break
        out.append(ch)
    return "".join(out)


def _identifier_json(ident: Hashable) -> str:
    """The API server's manager identifier (a JSON ManagedFieldsEntry without fields and
    time), used to order managers in conflict messages."""
    if not isinstance(ident, tuple):
        return str(ident)
    manager, operation, api_version, subresource = ident
    entry = {"manager": manager, "operation": operation, "apiVersion": api_version, "subresource": subresource}
    return gojson.marshal({k: v for k, v in entry.items() if v}).decode()


def _print_manager(ident: Hashable) -> str:
    if not isinstance(ident, tuple):
        return gojson.marshal(str(ident)).decode()
    manager, operation, api_version, subresource = ident
    out = gojson.marshal(manager).decode()
    if subresource:
        out += f' with subresource "{subresource}"'
    if operation == "Update":
        out += f" using {api_version}"
    return out


def conflict_error(conflicts: list[Conflict]) -> APIError:
    """The 409 of an apply with conflicts (the API server's NewConflictError)."""
    ordered = sorted(conflicts, key=lambda c: _identifier_json(c.manager))
    causes = [
        StatusCause("FieldManagerConflict", f"conflict with {_print_manager(c.manager)}", path_string(c.path))
        for c in ordered
    ]
    if len(ordered) == 1:
        c = ordered[0]
        return apply_conflict(
            f"Apply failed with 1 conflict: conflict with {_print_manager(c.manager)}: {path_string(c.path)}", causes
        )
    lines = []
    for ident in sorted({c.manager for c in ordered}, key=_identifier_json):
        lines.append(f"conflicts with {_print_manager(ident)}:")
        lines += [f"- {path_string(c.path)}" for c in ordered if c.manager == ident]
    return apply_conflict(f"Apply failed with {len(ordered)} conflicts: " + "\n".join(lines), causes)


class _Managed:
    """Managers' field sets and the times of their last changes, keyed by `ManagerId`."""

    __slots__ = ("fields", "times")

    def __init__(self, fields: Managers | None = None, times: dict[Hashable, Any] | None = None):
        self.fields: Managers = fields if fields is not None else {}
        self.times: dict[Hashable, Any] = times if times is not None else {}


def decode_managed_fields(entries: Any) -> _Managed:
    """Parse `metadata.managedFields`; ValueError with the API server's words if invalid."""
    managed = _Managed()
    for i, entry in enumerate(entries or ()):
        if not isinstance(entry, Mapping):
            raise ValueError(f"managed fields entry {i} is not an object")
        operation = entry.get("operation")
        if operation not in ("Apply", "Update"):
            raise ValueError("operation must be `Apply` or `Update`")
        api_version = entry.get("apiVersion") or ""
        if not api_version:
            raise ValueError("apiVersion must not be empty")
        fields_type = entry.get("fieldsType") or ""
        if fields_type == "":
            raise ValueError(f"missing fieldsType in managed fields entry {i}")
        if fields_type != "FieldsV1":
            raise ValueError(f'invalid fieldsType "{fields_type}" in managed fields entry {i}')
        ident = (
            entry.get("manager") or "",
            operation,
            "" if operation == "Apply" else api_version,
            entry.get("subresource") or "",
        )
        try:
            fields = FieldSet.from_fields_v1(entry.get("fieldsV1") or {})
        except FieldsV1Error as err:
            raise ValueError(f"error decoding versioned set from {dict(entry)}: error decoding set: {err}") from None
        managed.fields[ident] = VersionedSet(fields, api_version, operation == "Apply")
        managed.times[ident] = entry.get("time")
    return managed


def _seconds(time: Any) -> int:
    if not time:
        return 0
    try:
        return int(_dt.datetime.fromisoformat(str(time).replace("Z", "+00:00")).timestamp())
    except ValueError:
        return 0


def encode_managed_fields(managed: _Managed) -> list[dict[str, Any]] | None:
    """`metadata.managedFields` for these managers, in the API server's order (Apply
    before Update, then by time, manager, apiVersion, subresource); None when empty."""
    if not managed.fields:
        return None
    entries: list[dict[str, Any]] = []
    for ident, owned in managed.fields.items():
        manager, operation, _, subresource = cast(ManagerId, ident)
        entry: dict[str, Any] = {}
        if manager:
            entry["manager"] = manager
        entry["operation"] = "Apply" if owned.applied else operation
        entry["apiVersion"] = owned.api_version
        time = managed.times.get(ident)
        if time:
            entry["time"] = time
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = owned.set.to_fields_v1()
        if subresource:
            entry["subresource"] = subresource
        entries.append(entry)
    entries.sort(
        key=lambda e: (
            e["operation"],
            _seconds(e.get("time")),
            e.get("manager", ""),
            e["apiVersion"],
            e.get("subresource", ""),
        )
    )
    return entries


def _metadata(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def _set_managed_fields(obj: dict[str, Any], entries: list[Any] | None) -> None:
    meta = obj.get("metadata")
    if entries is None:
        if isinstance(meta, dict):
            meta.pop("managedFields", None)
        return
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    meta["managedFields"] = entries


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        obj = dict(obj)
        obj["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return obj


def _group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def _gvk_string(obj: Mapping[str, Any]) -> str:
    group, version = _group_version(str(obj.get("apiVersion") or ""))
    return f"{group}/{version}, Kind={obj.get('kind') or ''}"


def _gvknn(obj: Mapping[str, Any]) -> str:
    meta = _metadata(obj)
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {_gvk_string(obj)}"


def _utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


class FieldManager:
    """Server-side apply and managedFields for one kind in one API version, on the main
    resource or a subresource (the API server's FieldManager with its default wrappers)."""

    def __init__(
        self,
        type: TypeRef,
        api_version: str,
        kind: str,
        *,
        subresource: str = "",
        reset_fields: Iterable[Sequence[str]] = (),
        converter: Converter | None = None,
        max_update_managers: int = 10,
        clock: Callable[[], _dt.datetime] = _utc_now,
        drop_nulls: bool = True,
    ):
        """`type` is the kind's schema (`Schema.for_kind(...)`, or `Schema.root` of a CRD);
        `reset_fields` are the top-level fields the endpoint wipes, which no manager owns:
        ("status",) on a resource with a status subresource, ("spec",) on /status.
        `converter` compares managers of other API versions (`SameTypeConverter` by default:
        the versions share this schema). `drop_nulls`: an applied object loses the nulls
        merging left in fields that are not nullable, as decoding into a Go struct drops them;
        a custom resource keeps them (and fails validation), as on a cluster."""
        self.type = type
        self.drop_nulls = drop_nulls
        self.api_version = api_version
        self.kind = kind
        self.subresource = subresource
        self.max_update_managers = max_update_managers
        self.clock = clock
        ignored = FieldSet.of(*(tuple((0, name) for name in path) for path in reset_fields))
        self._updater = Updater(
            converter or SameTypeConverter(type), {api_version: ignored} if not ignored.empty() else None
        )

    def _now(self) -> str:
        return self.clock().astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    def _empty(self) -> dict[str, Any]:
        return {"apiVersion": self.api_version, "kind": self.kind}

    # Updates.

    def update(self, live: Mapping[str, Any] | None, new: Mapping[str, Any], manager: str) -> dict[str, Any]:
        """`new` (a copy) with the managedFields of `manager`'s create, update or patch of
        `live` (None for a create)."""
        result: dict[str, Any] = copy_json(dict(new))
        live_obj: dict[str, Any] = copy_json(dict(live)) if live is not None else self._empty()
        managed = self._decode_live_or_new(live_obj, result)
        _set_managed_fields(result, None)
        try:
            managed = self._update_chain(_without_managed_fields(live_obj), result, managed, manager)
        except Exception:  # noqa: BLE001 - UpdateNoErrors: keep what the live object had
            live_entries = _metadata(live_obj).get("managedFields")
            _set_managed_fields(result, copy_json(live_entries) if live_entries is not None else None)
            return result
        _set_managed_fields(result, encode_managed_fields(managed))
        return result

    def _decode_live_or_new(self, live: Mapping[str, Any], new: Mapping[str, Any]) -> _Managed:
        def from_live() -> _Managed:
            try:
                return decode_managed_fields(_metadata(live).get("managedFields"))
            except ValueError:
                return _Managed()

        if self.subresource:
            return from_live()
        entries = _metadata(new).get("managedFields", None)
        if isinstance(entries, list) and (not entries or (len(entries) == 1 and entries[0] == {})):
            return _Managed()  # the request resets managedFields
        try:
            managed = decode_managed_fields(entries if isinstance(entries, list) else None)
        except ValueError:
            return from_live()
        return managed if managed.fields else from_live()

    def _update_chain(self, live: dict[str, Any], new: dict[str, Any], managed: _Managed, manager: str) -> _Managed:
        """skipNonApplied, capManagers, buildManagerInfo, managedFieldsUpdater, stripMeta
        and the structured merge of an update."""
        if not managed.fields and _metadata(live).get("uid"):
            return managed  # not tracked until the first apply
        return self._tracked_update(live, new, managed, manager)

    def _tracked_update(self, live: dict[str, Any], new: dict[str, Any], managed: _Managed, manager: str) -> _Managed:
        ident = (manager or "unknown", "Update", self.api_version, self.subresource)
        fields = self._updater.update(
            Typed(live, self.type), Typed(new, self.type), self.api_version, managed.fields, _CURRENT_OPERATION
        )
        _strip(fields, _CURRENT_OPERATION)
        times = dict(managed.times)
        current = fields.pop(_CURRENT_OPERATION, None)
        if current is not None:
            previous = fields.get(ident)
            owned = current.set.union(previous.set) if previous is not None else current.set
            fields[ident] = VersionedSet(owned, current.api_version, current.applied)
            times[ident] = self._now()
        return self._cap(_Managed(fields, times))

    def _cap(self, managed: _Managed) -> _Managed:
        """Merge the oldest Update entries into per-version `ancient-changes` entries."""
        updaters = [m for m, owned in managed.fields.items() if not owned.applied]
        if len(updaters) <= self.max_update_managers:
            return managed
        updaters.sort(key=lambda m: (_seconds(managed.times.get(m)), _identifier_json(m)))
        first_by_version: dict[str, Hashable] = {}
        length = len(updaters)
        for ident in updaters:
            if length <= self.max_update_managers:
                break
            owned = managed.fields[ident]
            version = owned.api_version
            bucket = (_ANCIENT_CHANGES, "Update", version, "")
            first = first_by_version.get(version)
            if first is None:
                first_by_version[version] = ident
                continue
            if bucket not in managed.fields:
                managed.fields[bucket] = managed.fields.pop(first)
            managed.fields[bucket] = VersionedSet(owned.set.union(managed.fields[bucket].set), version, owned.applied)
            del managed.fields[ident]
            length -= 1
            managed.times[bucket] = managed.times.get(ident)
        return managed

    # Apply.

    def apply(
        self, live: Mapping[str, Any] | None, applied: Mapping[str, Any], manager: str, *, force: bool = False
    ) -> dict[str, Any]:
        """The object after `manager` applies `applied` to `live` (None: create it), with
        managedFields. Raises APIError (409 on conflicts unless `force`)."""
        live_obj: dict[str, Any] = copy_json(dict(live)) if live is not None else self._empty()
        applied_obj: dict[str, Any] = copy_json(dict(applied))
        try:
            managed = decode_managed_fields(_metadata(live_obj).get("managedFields"))
        except ValueError as err:
            raise server_error(f"failed to decode managed fields: {err}") from None
        if (applied_obj.get("apiVersion"), applied_obj.get("kind")) != (self.api_version, self.kind):
            raise bad_request(f"invalid object type: {_gvk_string(applied_obj)}")
        try:
            obj, managed = self._apply_chain(live_obj, applied_obj, managed, manager, force)
        except Conflicts as conflicts:
            if manager != "kubectl":
                raise conflict_error(conflicts.conflicts) from None
            allowed = self._allowed_by_last_applied(live_obj)
            if allowed is None:
                raise conflict_error(conflicts.conflicts) from None
            rest = [c for c in conflicts.conflicts if not allowed.has(c.path)]
            if rest:
                raise conflict_error(rest) from None
            obj, managed = self._apply_chain(live_obj, applied_obj, managed, manager, True)
        if manager == "kubectl" and _metadata(obj).get("annotations", {}).get(LAST_APPLIED):
            _set_last_applied(obj, applied_obj)
        _set_managed_fields(obj, encode_managed_fields(managed))
        return obj

    def _apply_chain(
        self, live: dict[str, Any], applied: dict[str, Any], managed: _Managed, manager: str, force: bool
    ) -> tuple[dict[str, Any], _Managed]:
        live = _without_managed_fields(live)
        if not managed.fields:
            managed = self._tracked_update(self._empty(), live, managed, _BEFORE_FIRST_APPLY)
        ident = (manager or "unknown", "Apply", "", self.subresource)
        obj, fields = self._structured_apply(live, applied, dict(managed.fields), ident, force)
        _strip(fields, ident)
        times = dict(managed.times)
        if obj is not None:
            times[ident] = self._now()
        else:
            obj = copy_json(live)
        return obj, _Managed(fields, times)

    def _structured_apply(
        self, live: dict[str, Any], applied: dict[str, Any], fields: Managers, ident: ManagerId, force: bool
    ) -> tuple[dict[str, Any] | None, Managers]:
        if str(applied.get("apiVersion") or "") != self.api_version:
            group, version = _group_version(str(applied.get("apiVersion") or ""))
            raise bad_request(
                "Incorrect version specified in apply patch. "
                f"Specified patch version: {group + '/' if group else ''}{version}, expected: {self.api_version}"
            )
        if isinstance(_metadata(applied).get("managedFields"), list):
            raise bad_request("metadata.managedFields must be nil")
        try:
            validate(applied, self.type)
        except ValidationError as err:
            raise server_error(f"failed to create typed patch object ({_gvknn(applied)}): {err}") from None
        try:
            validate(live, self.type, allow_duplicates=True)
        except ValidationError as err:
            raise server_error(f"failed to create typed live object ({_gvknn(live)}): {err}") from None
        new, fields = self._updater.apply(
            Typed(live, self.type), Typed(applied, self.type), self.api_version, fields, ident, force
        )
        if new is None:
            return None, fields
        obj = new.value if isinstance(new.value, dict) else {}
        if self.drop_nulls:
            _drop_nulls(obj, self.type)
        return obj, fields

    def _allowed_by_last_applied(self, live: Mapping[str, Any]) -> FieldSet | None:
        """The fields kubectl's last-applied-configuration still describes: conflicts on
        them are taken over when kubectl first applies server-side."""
        text = _metadata(live).get("annotations", {}).get(LAST_APPLIED)
        if not text:
            return None
        try:
            last = json.loads(text)
        except ValueError:
            return None
        if not isinstance(last, dict) or last.get("apiVersion") != self.api_version:
            return None
        try:
            validate(last, self.type)
            validate(live, self.type)
        except ValidationError:
            return None
        owned = to_field_set(last, self.type)
        changed = compare(last, _without_managed_fields(dict(live)), self.type)
        return owned.difference(changed.modified).difference(changed.added).difference(changed.removed)


def _strip(fields: Managers, manager: Hashable) -> None:
    owned = fields.get(manager)
    if owned is None:
        return
    rest = owned.set.difference(_STRIPPED)
    if rest.empty():
        del fields[manager]
    else:
        fields[manager] = owned.with_set(rest)


def _set_last_applied(obj: dict[str, Any], applied: Mapping[str, Any]) -> None:
    """kubectl's annotation from a server-side apply by "kubectl" (lastAppliedUpdater)."""
    last = copy_json(dict(applied))
    meta = last.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        meta["annotations"].pop(LAST_APPLIED, None)
    value = gojson.marshal(_sorted(last)).decode() + "\n"
    annotations = obj.setdefault("metadata", {}).setdefault("annotations", {})
    annotations[LAST_APPLIED] = value
    if sum(len(k) + len(v) for k, v in annotations.items() if isinstance(v, str)) > _MAX_ANNOTATIONS_SIZE:
        del annotations[LAST_APPLIED]


def _sorted(value: Any) -> Any:
    """Go's encoding of unstructured data writes map keys sorted."""
    if type(value) is dict:
        return {k: _sorted(value[k]) for k in sorted(value)}
    if type(value) is list:
        return [_sorted(v) for v in value]
    return value


def _drop_nulls(obj: Any, tr: TypeRef) -> None:
    """Remove declared, non-nullable fields that merging left null (as the API server's
    decoding into a typed object, or its pruning of a custom resource, does)."""
    if type(obj) is dict:
        map_spec = tr.atom.map
        if map_spec is None or map_spec.relationship == "atomic":
            return
        for name in list(obj):
            declared = map_spec.fields.get(name)
            if declared is None:
                continue
            if obj[name] is None:
                if not declared.nullable:
                    del obj[name]
            else:
                _drop_nulls(obj[name], declared.type)
    elif type(obj) is list:
        list_spec = tr.atom.list
        if list_spec is not None and list_spec.relationship != "atomic":
            for item in obj:
                _drop_nulls(item, list_spec.element)
