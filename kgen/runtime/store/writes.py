"""The writes of a resource store: create, update (and /status), delete, delete collection.

They follow kube-apiserver's generic registry (`registry/generic/registry/store.go`) over
its etcd3 storage: server-set metadata on create, optimistic concurrency and the
strategy's field rules on update, finalizers and preconditions on delete, every write a
compare-and-swap on the version read, retried when another writer won the race.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kgen.runtime.errors import APIError
from kgen.runtime.store import errors
from kgen.runtime.store.backend import KeyExistsError, KeyNotFoundError, KeyValue, RevisionMismatchError
from kgen.runtime.store.base import MAX_CHUNK, StoreBase, now
from kgen.runtime.store.options import (
    FINALIZER_FOREGROUND,
    FINALIZER_ORPHAN,
    FOREGROUND,
    ORPHAN,
    parse_resource_version,
    validate_delete_options,
)
from kgen.runtime.store.resource import json_copy
from kgen.runtime.validation.field import Path, forbidden, invalid, invalid_error, required
from kgen.runtime.work import checkpoint

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apiserver's names.SimpleNameGenerator
_GENERATE_NAME_ATTEMPTS = 8


@dataclass(frozen=True, slots=True)
class Preconditions:
    """Delete preconditions (metav1.Preconditions): the object must have this uid / this
    resourceVersion, else 409 Conflict."""

    uid: str | None = None
    resource_version: str | None = None


@dataclass(frozen=True, slots=True)
class UpdateResult:
    """What an update did."""

    object: dict[str, Any]
    created: bool = False
    """The object did not exist and the resource allows create on update (201)."""
    deleted: bool = False
    """The update removed the last finalizer of an object being deleted, which deleted it."""


@dataclass(frozen=True, slots=True)
class DeleteResult:
    """What a delete did."""

    object: dict[str, Any]
    """The deleted object (with the deletion's resourceVersion), or the object as it now is
    when finalizers keep it (deletionTimestamp set)."""
    deleted: bool
    """False when the object stays until its finalizers are removed."""
    status_code: int = 200
    """200, or 202 when the object stays and the request set orphanDependents=false, as
    kube-apiserver answers."""


class WriteOperations(StoreBase):
    """create, update, guaranteed_update, delete and delete_collection of `ResourceStore`."""

    # -- create ------------------------------------------------------------------------------

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """Store a new object and return it as stored (409 AlreadyExists when the name is
        taken). The server sets uid, creationTimestamp, generation and resourceVersion; a
        `metadata.generateName` without a name gets a random suffix, retried on conflict.
        With `dry_run` everything is checked and computed but nothing is stored (the result
        has no resourceVersion)."""
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict):
            metadata = {}
        if metadata.get("resourceVersion"):
            # storage.ErrResourceVersionSetOnCreate: not a Status, so the API server's 500.
            raise APIError(500, "", "resourceVersion should not be set on objects to be created")
        name, generate = metadata.get("name", ""), metadata.get("generateName", "")
        if not name and not generate:
            path = Path.root("metadata", "name")
            raise invalid_error(
                self.info.group, self.info.kind, "", [required(path, "name or generateName is required")]
            )
        attempts = _GENERATE_NAME_ATTEMPTS if generate and not name else 1
        for attempt in range(attempts):
            candidate: dict[str, Any] = json_copy(obj)
            candidate["metadata"] = meta = dict(candidate.get("metadata") or {})
            if not name:
                meta["name"] = generate + "".join(random.choice(_NAME_ALPHABET) for _ in range(5))
            if not self.info.namespaced:
                meta.pop("namespace", None)
            key = self.key(meta["name"], meta.get("namespace", ""))
            for system_field in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink", "resourceVersion"):
                meta.pop(system_field, None)
            meta["uid"] = str(uuid.uuid4())
            meta["creationTimestamp"] = now(self.engine.clock)
            self.strategy.prepare_for_create(candidate)
            self.strategy.validate_create(candidate)
            try:
                with self._storage("create"):
                    if dry_run:
                        if self._backend.get(key)[0] is not None:
                            raise KeyExistsError(key)
                        return candidate
                    kv = self._backend.create(key, self._encode(candidate))
            except KeyExistsError:
                if attempt + 1 < attempts:
                    continue
                raise self._exists_error(key, meta["name"], generated=not name) from None
            meta["resourceVersion"] = str(kv.mod_revision)
            return candidate
        raise AssertionError("unreachable")

    def _exists_error(self, key: str, name: str, generated: bool) -> APIError:
        if generated:
            return errors.generate_name_conflict(self.info.group, self.info.resource, name)
        error = errors.already_exists(self.info.group, self.info.resource, name)
        with self._storage("create"):
            existing, _ = self._backend.get(key)
        if existing is not None and json.loads(existing.value).get("metadata", {}).get("deletionTimestamp"):
            error.message = f"object is being deleted: {error.message}"
            error.args = (error.message,)
        return error

    # -- update ------------------------------------------------------------------------------

    def update(self, obj: dict[str, Any], *, subresource: str = "", dry_run: bool = False) -> UpdateResult:
        """Replace the object named by `obj`'s metadata (optimistic concurrency: a stale
        `metadata.resourceVersion` is 409 Conflict; none overwrites unconditionally when the
        resource allows it). `subresource="status"` updates through /status. Server fields
        (uid, creationTimestamp, deletion fields) are kept; the strategy keeps what this
        endpoint may not change and bumps generation. Removing the last finalizer of an
        object being deleted deletes it."""
        metadata = obj.get("metadata") or {}
        name, namespace = metadata.get("name", ""), metadata.get("namespace", "")
        desired = json_copy(obj)
        return self.guaranteed_update(
            name, namespace, lambda current: json_copy(desired), subresource=subresource, dry_run=dry_run
        )

    def guaranteed_update(
        self,
        name: str,
        namespace: str,
        transform: Callable[[dict[str, Any] | None], dict[str, Any]],
        *,
        subresource: str = "",
        dry_run: bool = False,
        force_allow_create: bool = False,
    ) -> UpdateResult:
        """Update by applying `transform` to the current object (a private copy) and storing
        what it returns, with the rules of `update()`: the base of patch and apply. When
        another writer wins the race, `transform` runs again on the newer object; it raises
        to abort (e.g. a patch that no longer applies). A returned object with a
        resourceVersion must match the current one (a patch that sets a stale one is 409).

        When the object is absent, `transform(None)` gives the object to create if the
        resource allows create on update or `force_allow_create` (server-side apply) is set;
        otherwise 404."""
        key = self.key(name, namespace)
        with self._storage("update"):
            kv, _ = self._backend.get(key)
        while True:
            if kv is None:
                if not (self.info.allow_create_on_update or force_allow_create) or subresource:
                    raise self._not_found(name)
                fresh = self._named(transform(None), name, namespace)
                fresh["metadata"].pop("resourceVersion", None)  # creating: no version to match
                try:
                    created = self.create(fresh, dry_run=dry_run)
                except APIError as error:
                    if error.reason != "AlreadyExists":
                        raise
                    with self._storage("update"):
                        kv, _ = self._backend.get(key)
                    continue
                return UpdateResult(created, created=True)
            old = self._decode(kv)
            new = self._named(transform(json_copy(old)), name, namespace)
            checkpoint()  # nothing is written for a request whose client has gone
            try:
                return self._store_update(key, kv, old, new, subresource, dry_run)
            except RevisionMismatchError as mismatch:
                kv = mismatch.current  # lost a race: do it again on the newer object

    def _named(self, obj: dict[str, Any], name: str, namespace: str) -> dict[str, Any]:
        metadata = obj.setdefault("metadata", {})
        if metadata.get("name", name) != name or (
            self.info.namespaced and metadata.get("namespace", namespace) != namespace
        ):
            raise errors.bad_request("the name and namespace of the object may not change")
        metadata["name"] = name
        if self.info.namespaced:
            metadata["namespace"] = namespace
        else:
            metadata.pop("namespace", None)
        return obj

    def _store_update(
        self, key: str, kv: KeyValue, old: dict[str, Any], new: dict[str, Any], subresource: str, dry_run: bool
    ) -> UpdateResult:
        name = old["metadata"]["name"]
        meta, old_meta = new["metadata"], old["metadata"]
        uid = meta.get("uid")
        if uid and uid != old_meta.get("uid"):
            detail = f"Precondition failed: UID in precondition: {uid}, UID in object meta: {old_meta.get('uid', '')}"
            raise self._conflict(name, detail)
        resource_version = meta.get("resourceVersion", "")
        if not resource_version:
            if not self.info.allow_unconditional_update:
                path = Path.root("metadata", "resourceVersion")
                problem = invalid(path, 0, "must be specified for an update")  # a uint64 in Go: json.Marshal writes 0
                raise invalid_error(self.info.group, self.info.resource, name, [problem])
            meta["resourceVersion"] = old_meta["resourceVersion"]
        elif parse_resource_version(resource_version) != kv.mod_revision:
            raise self._conflict(name)
        # BeforeUpdate: requests cannot set generation or the system fields.
        meta["generation"] = old_meta.get("generation", 0)
        if subresource == "status" and self.info.has_status:
            self.strategy.prepare_for_status_update(new, old)
        elif subresource:  # the API server has no such route
            raise APIError(404, "NotFound", "the server could not find the requested resource")
        else:
            self.strategy.prepare_for_update(new, old)
        meta = new["metadata"]
        meta.setdefault("uid", old_meta.get("uid"))
        for system_field in ("creationTimestamp", "deletionTimestamp"):
            if system_field in old_meta:
                meta[system_field] = old_meta[system_field]
            elif system_field == "creationTimestamp":
                meta.pop(system_field, None)
            elif meta.get(system_field):
                # Only a delete starts a deletion (ValidateObjectMetaUpdate: immutable).
                problem = invalid(Path.root("metadata", system_field), meta[system_field], "field is immutable")
                raise invalid_error(self.info.group, self.info.kind, name, [problem])
        if "deletionGracePeriodSeconds" in old_meta:
            meta.setdefault("deletionGracePeriodSeconds", old_meta["deletionGracePeriodSeconds"])
        if "deletionTimestamp" in old_meta:
            added = [f for f in meta.get("finalizers") or [] if f not in (old_meta.get("finalizers") or [])]
            if added:
                detail = f"no new finalizers can be added if the object is being deleted, found new finalizers {_go_strings(added)}"
                problem = forbidden(Path.root("metadata", "finalizers"), detail)
                raise invalid_error(self.info.group, self.info.kind, name, [problem])
        if subresource == "status" and self.info.has_status:
            self.strategy.validate_status_update(new, old)
        else:
            self.strategy.validate_update(new, old)
        if (
            not meta.get("finalizers")
            and "deletionTimestamp" in old_meta
            and not old_meta.get("deletionGracePeriodSeconds")
        ):
            # The last finalizer is gone: delete, conditioned on the version we read.
            if not dry_run:
                with self._storage("update"):
                    try:
                        self._backend.delete(key, kv.mod_revision)
                    except KeyNotFoundError:
                        pass  # someone else's update deleted it first
            return UpdateResult(new, deleted=True)
        if new == old:
            return UpdateResult(old)  # a no-op update writes nothing, as the API server
        if dry_run:
            return UpdateResult(new)
        with self._storage("update"):
            stored = self._backend.update(key, self._encode(new), kv.mod_revision)
        meta["resourceVersion"] = str(stored.mod_revision)
        return UpdateResult(new)

    # -- delete ------------------------------------------------------------------------------

    def delete(
        self,
        name: str,
        namespace: str = "",
        *,
        preconditions: Preconditions | None = None,
        propagation_policy: str | None = None,
        orphan_dependents: bool | None = None,
        dry_run: bool = False,
    ) -> DeleteResult:
        """Delete the object (404 NotFound; 409 Conflict when a precondition fails).

        An object with finalizers (after the propagation policy's own: `foregroundDeletion`
        for Foreground, `orphan` for Orphan, with garbage collection on) is not removed: it
        gets `deletionTimestamp` and `deletionGracePeriodSeconds: 0` (and a generation bump)
        and stays until an update removes its last finalizer. There is no graceful deletion
        (a resource with a grace period, like Pods, is out of scope).
        """
        validate_delete_options(propagation_policy, orphan_dependents)
        key = self.key(name, namespace)
        with self._storage("delete"):
            kv, _ = self._backend.get(key)
            while True:
                if kv is None:
                    raise self._not_found(name)
                old = self._decode(kv)
                self._check_preconditions(name, old, preconditions)
                self.strategy.validate_delete(old)
                deleting = json_copy(old)
                if "deletionTimestamp" not in old["metadata"]:
                    self.strategy.prepare_for_delete(deleting)
                finalizers = list(deleting["metadata"].get("finalizers") or [])
                updated = self._gc_finalizers(finalizers, propagation_policy, orphan_dependents)
                finalizers = finalizers if updated is None else updated
                try:
                    if finalizers:
                        return self._mark_deleting(key, kv, old, deleting, finalizers, orphan_dependents, dry_run)
                    if dry_run:
                        return DeleteResult(old, deleted=True)
                    previous, revision = self._backend.delete(key, kv.mod_revision)
                    return DeleteResult(self._decode(previous, revision), deleted=True)
                except RevisionMismatchError as mismatch:
                    kv = mismatch.current
                except KeyNotFoundError:
                    kv = None

    def _check_preconditions(self, name: str, obj: dict[str, Any], preconditions: Preconditions | None) -> None:
        """BeforeDelete's check of a delete's preconditions: 409 Conflict, qualified by the
        kind (registry/rest/delete.go)."""
        if preconditions is None:
            return
        metadata = obj["metadata"]
        if preconditions.uid is not None and preconditions.uid != metadata.get("uid", ""):
            detail = (
                f"the UID in the precondition ({preconditions.uid}) does not match the UID in record "
                f"({metadata.get('uid', '')}). The object might have been deleted and then recreated"
            )
            raise errors.conflict(self.info.group, self.info.kind, name, detail)
        if preconditions.resource_version is not None and preconditions.resource_version != metadata["resourceVersion"]:
            detail = (
                f"the ResourceVersion in the precondition ({preconditions.resource_version}) does not match the "
                f"ResourceVersion in record ({metadata['resourceVersion']}). The object might have been modified"
            )
            raise errors.conflict(self.info.group, self.info.kind, name, detail)

    def _gc_finalizers(
        self, finalizers: list[str], policy: str | None, orphan_dependents: bool | None
    ) -> list[str] | None:
        """deletionFinalizersForGarbageCollection: the finalizers after the policy's; None
        when unchanged."""
        if not self.engine.garbage_collection:
            return None
        from_finalizers = next((f for f in finalizers if f in (FINALIZER_ORPHAN, FINALIZER_FOREGROUND)), None)
        if orphan_dependents is not None:
            orphan, foreground = orphan_dependents, False
        elif policy is not None:
            orphan, foreground = policy == ORPHAN, policy == FOREGROUND
        else:
            orphan, foreground = from_finalizers == FINALIZER_ORPHAN, from_finalizers == FINALIZER_FOREGROUND
        updated = [f for f in finalizers if f not in (FINALIZER_ORPHAN, FINALIZER_FOREGROUND)]
        updated += [FINALIZER_ORPHAN] if orphan else []
        updated += [FINALIZER_FOREGROUND] if foreground else []
        return None if set(updated) == set(finalizers) else updated

    def _mark_deleting(
        self,
        key: str,
        kv: KeyValue,
        old: dict[str, Any],
        new: dict[str, Any],
        finalizers: list[str],
        orphan_dependents: bool | None,
        dry_run: bool,
    ) -> DeleteResult:
        """markAsDeleting: finalizers keep the object; record that its deletion started
        (`new` is the stored `old` as the strategy's prepare_for_delete left it)."""
        status = 202 if orphan_dependents is False else 200
        meta = new["metadata"]
        meta["finalizers"] = finalizers
        if "deletionTimestamp" not in meta:
            if meta.get("generation", 0) > 0:
                meta["generation"] += 1
            meta["deletionTimestamp"] = now(self.engine.clock)
        meta["deletionGracePeriodSeconds"] = 0
        if new == old or dry_run:
            return DeleteResult(new, deleted=False, status_code=status)
        stored = self._backend.update(key, self._encode(new), kv.mod_revision)
        meta["resourceVersion"] = str(stored.mod_revision)
        return DeleteResult(new, deleted=False, status_code=status)

    def delete_collection(
        self,
        namespace: str = "",
        *,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
        preconditions: Preconditions | None = None,
        propagation_policy: str | None = None,
        orphan_dependents: bool | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Delete every object the list options select, each as `delete()` does (objects
        gone meanwhile are skipped); returns the list of them as they were listed."""
        validate_delete_options(propagation_policy, orphan_dependents)
        listed = self.list(
            namespace,
            label_selector=label_selector,
            field_selector=field_selector,
            limit=limit or MAX_CHUNK,
            continue_token=continue_token,
            resource_version=resource_version,
            resource_version_match=resource_version_match,
        )
        items = list(listed["items"])
        while not limit and listed["metadata"].get("continue"):
            listed = self.list(
                namespace,
                label_selector=label_selector,
                field_selector=field_selector,
                limit=MAX_CHUNK,
                continue_token=listed["metadata"]["continue"],
            )
            items += listed["items"]
        for item in items:
            metadata = item["metadata"]
            try:
                self.delete(
                    metadata["name"],
                    metadata.get("namespace", ""),
                    preconditions=preconditions,
                    propagation_policy=propagation_policy,
                    orphan_dependents=orphan_dependents,
                    dry_run=dry_run,
                )
            except APIError as error:
                if error.code != 404:
                    raise
        result = dict(listed)
        result["items"] = items
        result["metadata"] = {k: v for k, v in listed["metadata"].items() if limit or k == "resourceVersion"}
        return result

    if TYPE_CHECKING:
        # ResourceStore's, which delete_collection calls. Declared last: in a class body a
        # method named `list` hides the builtin from the annotations that follow it.
        def list(
            self,
            namespace: str = "",
            *,
            label_selector: str = "",
            field_selector: str = "",
            limit: int = 0,
            continue_token: str = "",
            resource_version: str = "",
            resource_version_match: str = "",
        ) -> dict[str, Any]: ...


def _go_strings(values: list[str]) -> str:
    """A []string as Go's %#v prints it: []string{"a", "b"}."""
    return "[]string{" + ", ".join(json.dumps(v) for v in values) + "}"
