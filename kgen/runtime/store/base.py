"""What every operation of a resource store shares: keys, encoding, errors, selectors.

`StoreBase` is the common part of `ResourceStore` (engine.py, the reads and watch) and
`WriteOperations` (writes.py): how an object's storage key is made, how objects are
stored (JSON without resourceVersion, which is the key's revision), how backend failures
become API errors, and how selectors become a predicate.
"""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from kgen.runtime.errors import APIError
from kgen.runtime.store import errors
from kgen.runtime.store.backend import (
    BackendError,
    CompactedError,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RevisionMismatchError,
    UnavailableError,
)
from kgen.runtime.store.resource import ResourceInfo, Strategy, decode_object
from kgen.runtime.store.selectors import SelectorError, parse_field_selector, parse_label_selector
from kgen.runtime.validation.content import is_path_segment_name

MAX_OBJECT_BYTES = 1536 * 1024 - 4096
"""The largest object stored: etcd's default request limit (--max-request-bytes, 1.5 MiB)
less room for the key and the request's own fields."""

if TYPE_CHECKING:
    from kgen.runtime.store.engine import Engine

#: etcd3 store's maxLimit: the largest chunk read when a selector thins a page.
MAX_CHUNK = 10_000


def now(clock: Callable[[], float]) -> str:
    """A metav1.Time as JSON: RFC 3339, UTC, to the second."""
    return datetime.datetime.fromtimestamp(int(clock()), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class StoreBase:
    """The helpers of one resource's store; see `ResourceStore` for the operations."""

    def __init__(self, engine: Engine, info: ResourceInfo, strategy: Strategy):
        self.engine = engine
        self.info = info
        self.strategy = strategy
        self._backend = engine.backend
        stored_group, stored_resource = info.stored_as or (info.group, info.resource)
        group = f"{stored_group}/" if stored_group else ""
        self._base = f"{engine.prefix}{group}{stored_resource}/"

    # -- keys and encoding -------------------------------------------------------------------

    @property
    def prefix(self) -> str:
        """The key prefix every object of the resource is stored under."""
        return self._base

    def key(self, name: str, namespace: str = "") -> str:
        """The storage key of an object: `<prefix><group>/<resource>/<namespace>/<name>`."""
        if not name:
            raise errors.bad_request("Name parameter required.")
        problems = is_path_segment_name(name)
        if problems:
            raise errors.bad_request(f'Name parameter invalid: "{name}": {";".join(problems)}')
        if not self.info.namespaced:
            return self._base + name
        if not namespace:
            raise errors.bad_request("Namespace parameter required.")
        problems = is_path_segment_name(namespace)
        if problems:
            raise errors.bad_request(f'Namespace parameter invalid: "{namespace}": {";".join(problems)}')
        return f"{self._base}{namespace}/{name}"

    def _prefix(self, namespace: str) -> str:
        return f"{self._base}{namespace}/" if self.info.namespaced and namespace else self._base

    @staticmethod
    def _encode(obj: dict[str, Any]) -> bytes:
        """The object as stored; etcd's "request is too large" above `MAX_OBJECT_BYTES` on
        every backend (etcd refuses a larger request; the others must not keep what it would not)."""
        # The resourceVersion is the key's revision, never stored (PrepareObjectForStorage).
        metadata = {k: v for k, v in obj["metadata"].items() if k not in ("resourceVersion", "selfLink")}
        data = json.dumps({**obj, "metadata": metadata}, separators=(",", ":"), ensure_ascii=False).encode()
        if len(data) > MAX_OBJECT_BYTES:
            raise errors.too_large()
        return data

    @staticmethod
    def _decode(kv: KeyValue, revision: int | None = None) -> dict[str, Any]:
        return decode_object(kv.value, revision or kv.mod_revision)

    def _not_found(self, name: str) -> APIError:
        return errors.not_found(self.info.group, self.info.resource, name)

    def _conflict(self, name: str, detail: str = errors.OPTIMISTIC_LOCK) -> APIError:
        return errors.conflict(self.info.group, self.info.resource, name, detail)

    @contextmanager
    def _storage(self, operation: str) -> Iterator[None]:
        """Backend failures as the API server reports them."""
        try:
            yield
        except UnavailableError:
            raise errors.server_timeout(self.info.group, self.info.resource, operation) from None
        except (KeyExistsError, KeyNotFoundError, RevisionMismatchError, CompactedError, FutureRevisionError):
            raise
        except BackendError as error:
            raise errors.internal_error(str(error)) from None

    def _wait_for_revision(self, minimum: int) -> int:
        """Wait (up to the engine's fresh_timeout) until the store reaches `minimum`; 504."""
        deadline = time.monotonic() + self.engine.fresh_timeout
        while True:
            current = self._backend.current_revision()
            if current >= minimum:
                return current
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise errors.too_large_resource_version(minimum, current)
            time.sleep(min(0.02, remaining))

    def _selection(self, label_selector: str, field_selector: str) -> Callable[[dict[str, Any]], bool] | None:
        """A predicate for the selectors (None: select everything); 400 on a bad selector."""
        try:
            labels = parse_label_selector(label_selector)
            fields = parse_field_selector(field_selector)
        except SelectorError as error:
            raise errors.bad_request(str(error)) from None
        for field in fields.fields:
            if field not in self.info.field_labels:
                raise errors.bad_request(self.info.unsupported_field_label(field))
        if labels.empty and fields.empty:
            return None
        field_values = self.info.field_values

        def matches(obj: dict[str, Any]) -> bool:
            metadata = obj.get("metadata") or {}
            return labels.matches(metadata.get("labels")) and (fields.empty or fields.matches(field_values(obj)))

        return matches
