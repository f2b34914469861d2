"""A backend on etcd v3 through its JSON gRPC gateway (`/v3/kv/*`, `/v3/watch`), with httpx.

etcd is the MVCC store the other backends imitate, so most operations map one to one:
create is a transaction comparing the key's create_revision with 0, update one comparing
its mod_revision, the change feed a `/v3/watch` stream with `prev_kv`. Keys and values
travel base64-encoded; 64-bit integers as decimal strings.

etcd does not report its compacted revision, so `compact()` first records the revision in
the key `compact_rev_key` (the key and the value format kube-apiserver's compactor uses)
and `compacted_revision()` reads it back. That write makes one revision of its own.
"""

from __future__ import annotations

import base64
import json
import queue
import socket
import threading
from typing import Any

import httpx

from kgen.runtime.store.backend import (
    Backend,
    BackendError,
    BackendWatch,
    CompactedError,
    Event,
    EventType,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RangeResult,
    RevisionMismatchError,
    UnavailableError,
    WatchBatch,
    prefix_end,
)

COMPACT_REVISION_KEY = "compact_rev_key"

_COMPACTED = "required revision has been compacted"
_FUTURE = "required revision is a future revision"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes:
    return base64.b64decode(text) if text else b""


def _kv(raw: dict[str, Any]) -> KeyValue:
    return KeyValue(
        _unb64(raw.get("key")).decode(),
        _unb64(raw.get("value")),
        int(raw.get("create_revision", 0)),
        int(raw.get("mod_revision", 0)),
    )


class EtcdBackend(Backend):
    """An etcd v3 server (3.4 or newer) at `endpoint`, e.g. `http://127.0.0.1:2379`."""

    def __init__(self, endpoint: str, *, timeout: float = 10.0, compact_key: str = COMPACT_REVISION_KEY):
        """Connect to `endpoint`; `timeout` bounds every unary request, in seconds."""
        self.endpoint = endpoint.rstrip("/")
        self.compact_key = compact_key
        self._timeout = timeout
        self._client = httpx.Client(base_url=self.endpoint, timeout=timeout)
        self._compacted = 0  # the highest compaction seen; etcd only ever raises it
        self._lock = threading.Lock()

    def _call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.post(path, json=body)
        except httpx.TransportError as error:
            raise UnavailableError(f"etcd at {self.endpoint}: {error}") from error
        try:
            data: dict[str, Any] = response.json()
        except ValueError:
            raise BackendError(f"etcd {path}: HTTP {response.status_code}: {response.text[:200]}") from None
        if response.status_code != 200 or "error" in data:
            message = data.get("message") or data.get("error") or response.text
            raise self._error(message, body)
        return data

    def _error(self, message: str, body: dict[str, Any]) -> BackendError:
        revision = int(body.get("revision", 0) or 0)
        if _COMPACTED in message:
            return CompactedError(revision, self._compacted)
        if _FUTURE in message:
            return FutureRevisionError(revision, self.current_revision())
        if "timed out" in message or "leader" in message:
            return UnavailableError(f"etcd at {self.endpoint}: {message}")
        return BackendError(f"etcd: {message}")

    @staticmethod
    def _revision(data: dict[str, Any]) -> int:
        return int(data.get("header", {}).get("revision", 0))

    # -- reads -------------------------------------------------------------------------------

    def get(self, key: str) -> tuple[KeyValue | None, int]:
        """See `Backend.get`."""
        data = self._call("/v3/kv/range", {"key": _b64(key.encode())})
        kvs = data.get("kvs") or []
        return (_kv(kvs[0]) if kvs else None), self._revision(data)

    def range(self, prefix: str, *, start: str | None = None, revision: int = 0, limit: int = 0) -> RangeResult:
        """See `Backend.range`."""
        body: dict[str, Any] = {
            "key": _b64(max(start or prefix, prefix).encode()),
            "range_end": _b64(prefix_end(prefix.encode())),
        }
        if limit:
            body["limit"] = limit
        if revision:
            body["revision"] = revision
        data = self._call("/v3/kv/range", body)
        kvs = [_kv(raw) for raw in data.get("kvs") or []]
        return RangeResult(kvs, revision or self._revision(data), int(data.get("count", 0)), bool(data.get("more")))

    # -- writes ------------------------------------------------------------------------------

    def _txn(self, key: str, compare: dict[str, Any], success: dict[str, Any]) -> dict[str, Any]:
        """One transaction: `success` when `compare` holds, else read the key back."""
        raw = _b64(key.encode())
        return self._call(
            "/v3/kv/txn",
            {
                "compare": [{"key": raw, **compare}],
                "success": [success],
                "failure": [{"request_range": {"key": raw}}],
            },
        )

    @staticmethod
    def _failed_current(data: dict[str, Any]) -> KeyValue | None:
        for response in data.get("responses") or []:
            kvs = response.get("response_range", {}).get("kvs") or []
            if kvs:
                return _kv(kvs[0])
        return None

    def create(self, key: str, value: bytes) -> KeyValue:
        """See `Backend.create`."""
        put = {"request_put": {"key": _b64(key.encode()), "value": _b64(value)}}
        data = self._txn(key, {"target": "CREATE", "result": "EQUAL", "create_revision": 0}, put)
        if not data.get("succeeded"):
            raise KeyExistsError(key)
        revision = self._revision(data)
        return KeyValue(key, value, revision, revision)

    def update(self, key: str, value: bytes, mod_revision: int) -> KeyValue:
        """See `Backend.update`."""
        put = {"request_put": {"key": _b64(key.encode()), "value": _b64(value), "prev_kv": True}}
        data = self._txn(key, {"target": "MOD", "result": "EQUAL", "mod_revision": mod_revision}, put)
        if not data.get("succeeded"):
            raise RevisionMismatchError(key, self._failed_current(data))
        previous = data["responses"][0]["response_put"].get("prev_kv") or {}
        revision = self._revision(data)
        return KeyValue(key, value, int(previous.get("create_revision", revision)), revision)

    def delete(self, key: str, mod_revision: int | None = None) -> tuple[KeyValue, int]:
        """See `Backend.delete`."""
        delete = {"request_delete_range": {"key": _b64(key.encode()), "prev_kv": True}}
        if mod_revision is None:
            compare = {"target": "CREATE", "result": "GREATER", "create_revision": 0}
        else:
            compare = {"target": "MOD", "result": "EQUAL", "mod_revision": mod_revision}
        data = self._txn(key, compare, delete)
        if not data.get("succeeded"):
            current = self._failed_current(data)
            if current is None:
                raise KeyNotFoundError(key)
            raise RevisionMismatchError(key, current)
        previous = data["responses"][0]["response_delete_range"].get("prev_kvs") or []
        if not previous:  # deleted by someone else between compare and delete: cannot happen in one txn
            raise KeyNotFoundError(key)
        return _kv(previous[0]), self._revision(data)

    # -- history -----------------------------------------------------------------------------

    def watch(self, prefix: str, start_revision: int) -> BackendWatch:
        """See `Backend.watch`."""
        compacted = self.compacted_revision()
        if start_revision <= compacted:
            raise CompactedError(start_revision, compacted)
        return _EtcdWatch(self, prefix, start_revision)

    def compact(self, revision: int) -> None:
        """See `Backend.compact`."""
        if revision <= self.compacted_revision():
            return
        current = self.current_revision()
        if revision > current:
            raise FutureRevisionError(revision, current)
        # Record first: a reader that sees the compaction then also sees the record.
        self._call(
            "/v3/kv/put",
            {"key": _b64(self.compact_key.encode()), "value": _b64(str(revision).encode())},
        )
        try:
            self._call("/v3/kv/compaction", {"revision": revision, "physical": True})
        except CompactedError:
            pass  # someone compacted further already
        with self._lock:
            self._compacted = max(self._compacted, revision)

    def current_revision(self) -> int:
        """See `Backend.current_revision`."""
        return self._revision(self._call("/v3/kv/range", {"key": _b64(self.compact_key.encode())}))

    def compacted_revision(self) -> int:
        """See `Backend.compacted_revision`."""
        kv, _ = self.get(self.compact_key)
        recorded = int(kv.value or b"0") if kv is not None else 0
        with self._lock:
            self._compacted = max(self._compacted, recorded)
            return self._compacted

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()


class _EtcdWatch(BackendWatch):
    """A `/v3/watch` stream read by a thread into a queue, so `next()` can time out."""

    def __init__(self, backend: EtcdBackend, prefix: str, start_revision: int):
        self._backend = backend
        self._queue: queue.Queue[WatchBatch | BaseException | None] = queue.Queue()
        self._closed = False
        self._client = httpx.Client(base_url=backend.endpoint, timeout=httpx.Timeout(backend._timeout, read=None))
        self._response: httpx.Response | None = None
        request = {
            "create_request": {
                "key": _b64(prefix.encode()),
                "range_end": _b64(prefix_end(prefix.encode())),
                "start_revision": start_revision,
                "prev_kv": True,
                "progress_notify": True,
            }
        }
        self._start = start_revision
        self._thread = threading.Thread(target=self._read, args=(request,), name="kgen-etcd-watch", daemon=True)
        self._thread.start()

    def _read(self, request: dict[str, Any]) -> None:
        try:
            with self._client.stream("POST", "/v3/watch", json=request) as response:
                self._response = response
                if self._closed:
                    return
                if response.status_code != 200:
                    raise BackendError(f"etcd watch: HTTP {response.status_code}")
                for line in response.iter_lines():
                    if self._closed:
                        return
                    if line.strip():
                        self._handle(json.loads(line))
        except BaseException as error:  # the reader thread hands every failure to next()
            if not self._closed:
                if isinstance(error, httpx.TransportError):
                    error = UnavailableError(f"etcd watch at {self._backend.endpoint}: {error}")
                self._queue.put(error)
        finally:
            self._queue.put(None)

    def _handle(self, message: dict[str, Any]) -> None:
        if "error" in message:
            raise BackendError(f"etcd watch: {message['error']}")
        result = message.get("result", {})
        compacted = int(result.get("compact_revision", 0))
        if compacted:
            raise CompactedError(self._start, compacted)
        if result.get("canceled"):
            raise BackendError(f"etcd watch canceled: {result.get('cancel_reason', '')}")
        events = []
        for raw in result.get("events") or []:
            kv = raw.get("kv", {})
            key = _unb64(kv.get("key")).decode()
            revision = int(kv.get("mod_revision", 0))
            prev = raw.get("prev_kv")
            prev_value = _unb64(prev.get("value")) if prev else None
            if raw.get("type") == "DELETE":
                events.append(Event(EventType.DELETE, key, revision, None, prev_value))
            else:
                created = int(kv.get("create_revision", 0))
                events.append(Event(EventType.PUT, key, revision, _unb64(kv.get("value")), prev_value, created))
        if events:
            self._queue.put(WatchBatch(events, events[-1].revision))
        elif not result.get("created"):
            # A progress notification: everything up to the header's revision was sent.
            self._queue.put(WatchBatch([], int(result.get("header", {}).get("revision", 0))))

    def next(self, timeout: float | None = None) -> WatchBatch | None:
        """See `BackendWatch.next`."""
        if self._closed:
            return None
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is None:
            self._closed = True
            return None
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self) -> None:
        """See `BackendWatch.close`."""
        self._closed = True
        response = self._response
        if response is not None:
            # Shut the socket down: closing alone does not wake a thread blocked reading it.
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            try:
                if sock is not None:
                    sock.shutdown(socket.SHUT_RDWR)
                response.close()
            except Exception:  # the reader may be closing it at the same moment; it ends anyway
                pass
        self._client.close()
        self._queue.put(None)
