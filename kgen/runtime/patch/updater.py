"""structured-merge-diff's Updater: who owns which fields after an update or an apply.

`Updater.update(live, new, version, managers, manager)` records an update: the manager
takes the fields it added or changed, and removed fields leave every manager.
`Updater.apply(live, config, version, managers, manager, force)` merges an applied
configuration, prunes what the applier applied last time and no longer does (unless
another manager owns it), and raises `Conflicts` when the applier would change a field
another manager owns, unless `force`.

Managers are keys of a dict (any hashable; the API server's field manager uses the
identity of a managedFields entry) mapped to `VersionedSet`s. Objects of other API
versions are compared through a `Converter`; `SameTypeConverter` serves versions that
share one schema.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, Protocol, TypeAlias

from kgen.runtime.patch.fieldpath import FieldSet, Path, path_string
from kgen.runtime.patch.schema import TypeRef
from kgen.runtime.patch.typed import (
    MISSING,
    Comparison,
    compare,
    ensure_named_fields_are_members,
    json_equal,
    merge,
    reconcile_field_set,
    remove_items,
    to_field_set,
)

__all__ = [
    "Typed",
    "VersionedSet",
    "Managers",
    "Conflict",
    "Conflicts",
    "MissingVersionError",
    "Converter",
    "SameTypeConverter",
    "Updater",
]


class Typed:
    """A JSON value with its type."""

    __slots__ = ("value", "type")

    def __init__(self, value: Any, type: TypeRef):
        self.value = value
        self.type = type


class VersionedSet:
    """The fields a manager owns, the API version they were recorded in, and whether they
    came from an apply."""

    __slots__ = ("set", "api_version", "applied")

    def __init__(self, fields: FieldSet, api_version: str, applied: bool):
        self.set = fields
        self.api_version = api_version
        self.applied = applied

    def with_set(self, fields: FieldSet) -> VersionedSet:
        """The same entry owning `fields`."""
        return VersionedSet(fields, self.api_version, self.applied)

    def __repr__(self) -> str:
        return f"VersionedSet({self.set!r}, {self.api_version!r}, applied={self.applied})"


Managers: TypeAlias = dict[Hashable, VersionedSet]
"""Each manager's fields, by the manager's key."""


class Conflict:
    """A field the applier would change that `manager` owns."""

    __slots__ = ("manager", "path")

    def __init__(self, manager: Hashable, path: Path):
        self.manager = manager
        self.path = path

    def __str__(self) -> str:
        return f"conflict with {self.manager!r}: {path_string(self.path)}"

    def __repr__(self) -> str:
        return f"Conflict({self.manager!r}, {path_string(self.path)!r})"


class Conflicts(Exception):
    """An apply that would change fields other managers own."""

    def __init__(self, conflicts: list[Conflict]):
        self.conflicts = conflicts
        super().__init__("; ".join(str(c) for c in conflicts))

    def paths(self) -> FieldSet:
        """Every conflicting path."""
        return FieldSet.of(*(c.path for c in self.conflicts))


class MissingVersionError(LookupError):
    """The converter does not know this API version (managers of it are dropped)."""


class Converter(Protocol):
    """What the Updater compares objects of other API versions through."""

    def convert(self, obj: Typed, version: str) -> Typed:
        """`obj` in `version`; MissingVersionError when the version is unknown."""


class SameTypeConverter:
    """A converter for API versions that share a schema: values are not changed. With a
    mapping, each version has its own type and an unknown version is missing."""

    def __init__(self, types: TypeRef | Mapping[str, TypeRef]):
        self._types = types

    def convert(self, obj: Typed, version: str) -> Typed:
        """`obj` in `version`."""
        if isinstance(self._types, TypeRef):
            return obj
        target = self._types.get(version)
        if target is None:
            raise MissingVersionError(version)
        return obj if target is obj.type else Typed(obj.value, target)


class Updater:
    """SMD's merge.Updater."""

    def __init__(self, converter: Converter, ignored: Mapping[str, FieldSet] | None = None):
        self.converter = converter
        """Has `convert(typed, version) -> Typed`, raising MissingVersionError."""
        self.ignored = dict(ignored or {})
        """Per API version, fields no manager ever owns (the API server's reset fields:
        status on the main resource, spec on /status)."""

    def _convert(self, obj: Typed, version: str) -> Typed:
        return self.converter.convert(obj, version)

    def _compare(self, old: Typed, new: Typed, version: str) -> Comparison:
        return compare(old.value, new.value, old.type).exclude(self.ignored.get(version))

    def _filter(self, fields: FieldSet, version: str) -> FieldSet:
        ignored = self.ignored.get(version)
        return fields.recursive_difference(ignored) if ignored is not None else fields

    def _update(
        self, old: Typed, new: Typed, version: str, managers: Managers, workflow: Hashable, force: bool
    ) -> tuple[Managers, Comparison]:
        conflicts: dict[Hashable, FieldSet] = {}
        removed: dict[Hashable, FieldSet] = {}
        comparison = self._compare(old, new, version)
        versions = {version: comparison}
        for manager, owned in list(managers.items()):
            if manager == workflow:
                continue
            cmp = versions.get(owned.api_version)
            if cmp is None:
                try:
                    old_v = self._convert(old, owned.api_version)
                    new_v = self._convert(new, owned.api_version)
                except MissingVersionError:
                    del managers[manager]
                    continue
                cmp = versions[owned.api_version] = self._compare(old_v, new_v, owned.api_version)
            conflict = owned.set.intersection(cmp.modified.union(cmp.added))
            if not conflict.empty():
                conflicts[manager] = conflict
            if not cmp.removed.empty():
                removed[manager] = cmp.removed
        if not force and conflicts:
            raise Conflicts([Conflict(m, p) for m, fields in conflicts.items() for p in fields.paths()])
        for manager, fields in conflicts.items():
            managers[manager] = managers[manager].with_set(managers[manager].set.difference(fields))
        for manager, fields in removed.items():
            managers[manager] = managers[manager].with_set(managers[manager].set.difference(fields))
        for manager in [m for m, owned in managers.items() if owned.set.empty()]:
            del managers[manager]
        return managers, comparison

    def update(
        self, live: Typed, new: Typed, version: str, managers: Mapping[Hashable, VersionedSet], manager: Hashable
    ) -> Managers:
        """The managers after `manager` turned `live` into `new` by an update (create,
        update, or a patch other than apply); `new` is what will be stored."""
        managers = self._reconcile(live, managers)
        managers, comparison = self._update(live, new, version, managers, manager, True)
        previous = managers.get(manager)
        owned = previous.set if previous is not None else FieldSet()
        owned = owned.difference(comparison.removed).union(comparison.modified).union(comparison.added)
        owned = self._filter(owned, version)
        if owned.empty():
            managers.pop(manager, None)
        else:
            managers[manager] = VersionedSet(owned, version, False)
        return managers

    def apply(
        self,
        live: Typed,
        config: Typed,
        version: str,
        managers: Mapping[Hashable, VersionedSet],
        manager: Hashable,
        force: bool,
    ) -> tuple[Typed | None, Managers]:
        """Merge `config` into `live` for `manager`: (the new object, or None when the
        apply changes nothing, and the managers). Raises `Conflicts` unless `force`."""
        managers = self._reconcile(live, managers)
        merged = merge(live.value, config.value, live.type)
        new = Typed({} if merged is MISSING else merged, live.type)
        last = managers.get(manager)
        managers[manager] = VersionedSet(self._filter(to_field_set(config.value, config.type), version), version, True)
        new = self._prune(new, managers, manager, last)
        managers, _ = self._update(live, new, version, managers, manager, force)
        if json_equal(live.value, new.value):
            return None, managers
        return new, managers

    def _prune(self, merged: Typed, managers: Managers, applying: Hashable, last: VersionedSet | None) -> Typed:
        """Remove what `applying` applied last time and no longer applies, unless another
        manager (or its new configuration) owns it."""
        if last is None or last.set.empty():
            return merged
        if last.api_version == managers[applying].api_version and last.set.difference(managers[applying].set).empty():
            # Everything applied last time is applied again: what pruning removes, the
            # applier's new set adds back, so the merged object is the result.
            return merged
        version = last.api_version
        try:
            converted = self._convert(merged, version)
        except MissingVersionError:
            return merged
        tr = converted.type
        pruned = Typed(remove_items(converted.value, ensure_named_fields_are_members(last.set, tr), tr), tr)
        pruned = self._add_back_owned(converted, pruned, version, managers)
        pruned = self._add_back_dangling(converted, pruned, last)
        return self._convert(pruned, managers[applying].api_version)

    def _add_back_owned(self, merged: Typed, pruned: Typed, pruned_version: str, managers: Managers) -> Typed:
        by_version: dict[str, FieldSet] = {}
        for owned in managers.values():
            by_version[owned.api_version] = by_version.get(owned.api_version, FieldSet()).union(owned.set)
        order = [pruned_version] if pruned_version in by_version else []
        order += [v for v in by_version if v != pruned_version]
        for version in order:
            try:
                merged = self._convert(merged, version)
                pruned = self._convert(pruned, version)
            except MissingVersionError:
                continue
            tr = merged.type
            merged_set = ensure_named_fields_are_members(to_field_set(merged.value, tr), tr)
            pruned_set = ensure_named_fields_are_members(to_field_set(pruned.value, tr), tr)
            managed = ensure_named_fields_are_members(by_version[version], tr)
            keep_out = merged_set.difference(pruned_set.union(managed))
            pruned = Typed(remove_items(merged.value, keep_out, tr), tr)
        return pruned

    def _add_back_dangling(self, merged: Typed, pruned: Typed, last: VersionedSet) -> Typed:
        try:
            pruned = self._convert(pruned, last.api_version)
        except MissingVersionError:
            return merged
        tr = merged.type
        pruned_set = ensure_named_fields_are_members(to_field_set(pruned.value, tr), tr)
        merged_set = ensure_named_fields_are_members(to_field_set(merged.value, tr), tr)
        last_set = ensure_named_fields_are_members(last.set, tr)
        return Typed(remove_items(merged.value, merged_set.difference(pruned_set).intersection(last_set), tr), tr)

    def _reconcile(self, live: Typed, managers: Mapping[Hashable, VersionedSet]) -> Managers:
        """Managers' sets fixed for schema changes (granular made atomic) since recorded."""
        out: Managers = {}
        for manager, owned in managers.items():
            try:
                converted = self._convert(live, owned.api_version)
            except MissingVersionError:
                continue
            fixed = reconcile_field_set(owned.set, converted.type)
            out[manager] = owned if fixed is None else owned.with_set(fixed)
        return out
