"""WATCH: a streamed response of watch events, one per change.

JSON streams are one `{"type": ..., "object": ...}` document per line; protobuf streams
are length-prefixed `metav1.WatchEvent` messages whose objects are protobuf envelopes
(`application/vnd.kubernetes.protobuf;stream=watch`). With `as=Table` each object is a
Table of one row, column definitions only in the first (what `kubectl get -w` asks for).
Events carry objects in the request's version; a BOOKMARK carries only the
resourceVersion; a watch that cannot go on ends with an ERROR event holding a Status
(410 Expired for history that was compacted).

The JSON of a change is computed once per version however many watchers receive it.
Watches end at `timeoutSeconds`, else after a random 30-60 minutes (the API server's
min-request-timeout), and at shutdown.
"""

from __future__ import annotations

import asyncio
import collections
import random
import struct
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import Response, StreamingResponse

from kgen.runtime.errors import APIError
from kgen.runtime.store import Watch, WatchEvent
from kgen.serve import params, table
from kgen.serve.handlers import Call
from kgen.serve.negotiation import JSON, PROTOBUF, TABLE, negotiate
from kgen.serve.respond import encode_json, status_protobuf, warning_header

#: The API server's --min-request-timeout: watches without timeoutSeconds last 1-2 times this.
MIN_REQUEST_TIMEOUT = 1800.0
_CACHE_SIZE = 512


class WatchRegistry:
    """The open watches of a server, so that shutdown can end them, and the encoded events
    they share."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watches: set[Watch] = set()
        self._closed = False
        self._encoded: collections.OrderedDict[tuple[int, str], tuple[dict[str, Any], bytes]] = (
            collections.OrderedDict()
        )

    def add(self, watch: Watch) -> None:
        """Track an open watch (closed at once after shutdown began)."""
        with self._lock:
            if self._closed:
                watch.close()
            self._watches.add(watch)

    def discard(self, watch: Watch) -> None:
        """Forget a watch that ended."""
        with self._lock:
            self._watches.discard(watch)

    def __len__(self) -> int:
        return len(self._watches)

    def close_all(self) -> None:
        """End every watch (at shutdown); later watches end at once."""
        with self._lock:
            self._closed = True
            watches = list(self._watches)
        for watch in watches:
            watch.close()

    def encoded(self, obj: dict[str, Any], key: str, encode: Callable[[dict[str, Any]], bytes]) -> bytes:
        """`encode(obj)`, computed once per shared event object and `key`."""
        cache_key = (id(obj), key)
        with self._lock:
            hit = self._encoded.get(cache_key)
            if hit is not None and hit[0] is obj:
                cached: bytes = hit[1]
                return cached
        data = encode(obj)
        with self._lock:
            self._encoded[cache_key] = (obj, data)  # holding obj keeps its id from being reused
            while len(self._encoded) > _CACHE_SIZE:
                self._encoded.popitem(last=False)
        return data


def _watch_options(call: Call) -> dict[str, Any]:
    query = call.query
    timeout = params.integer(query, "timeoutSeconds") or MIN_REQUEST_TIMEOUT * (1 + random.random())
    return {
        "label_selector": query.get("labelSelector", ""),
        "field_selector": query.get("fieldSelector", ""),
        "resource_version": query.get("resourceVersion", ""),
        "resource_version_match": query.get("resourceVersionMatch", ""),
        "send_initial_events": params.boolean(query, "sendInitialEvents"),
        "allow_watch_bookmarks": bool(params.boolean(query, "allowWatchBookmarks")),
        "timeout_seconds": float(timeout),
    }


async def watch(call: Call, registry: WatchRegistry) -> Response:
    """GET with watch=true: the event stream."""
    representation = negotiate(call.request.headers.get("accept", ""), targets=(TABLE,), allowed=(JSON, PROTOBUF))
    opened = await call.endpoint.async_store().watch(call.namespace, **_watch_options(call))
    registry.add(opened)
    call.deprecation()
    if representation.media_type == PROTOBUF:
        frames = _protobuf_events(call, opened, registry)
        media_type = f"{PROTOBUF};stream=watch"
    else:
        frames = _json_events(call, opened, registry, representation.target == TABLE, representation.target_version)
        media_type = representation.content_type
    headers = {"Cache-Control": "no-cache, private"}
    response = StreamingResponse(frames, media_type=media_type, headers=headers)
    for warning in call.warnings:
        response.headers.append("Warning", warning_header(warning))
    return response


def _event_object(call: Call, event: WatchEvent) -> dict[str, Any]:
    """The event's object in the request's version (a Status for ERROR)."""
    if event.type == "ERROR":
        return event.object
    if event.type == "BOOKMARK":
        return {**event.object, "apiVersion": call.endpoint.api_version}
    converted: dict[str, Any] = call.endpoint.flow.from_storage(event.object, call.version)
    return converted


async def _json_events(
    call: Call, opened: Watch, registry: WatchRegistry, as_table: bool, table_version: str
) -> AsyncIterator[bytes]:
    headers = True
    columns = table.columns_of(call.endpoint.printer_columns)
    include = call.query.get("includeObject", "") or "Metadata"
    version = call.version
    remote = getattr(call.endpoint.flow, "remote_conversion", False)
    try:
        async for event in opened:
            if remote and event.type in ("ADDED", "MODIFIED", "DELETED") and not as_table:
                # Through a conversion webhook: a call per watcher, off the event loop.
                converted = await asyncio.to_thread(_event_object, call, event)
                yield encode_json({"type": event.type, "object": converted})
            elif as_table and event.type in ("ADDED", "MODIFIED", "DELETED"):
                obj = table.table(
                    [_event_object(call, event)],
                    columns,
                    include_object=include,
                    headers=headers,
                    version=table_version,
                )
                headers = False
                yield encode_json({"type": event.type, "object": obj})
            elif as_table and event.type == "BOOKMARK":
                metadata = {"resourceVersion": event.object["metadata"]["resourceVersion"]}
                bookmark = {
                    "kind": "Table",
                    "apiVersion": f"meta.k8s.io/{table_version}",
                    "metadata": metadata,
                    "rows": [],
                }
                yield encode_json({"type": event.type, "object": bookmark})
            elif event.type in ("ADDED", "MODIFIED", "DELETED"):
                kind = event.type
                yield registry.encoded(
                    event.object,
                    f"{version}/{kind}",
                    lambda obj: encode_json({"type": kind, "object": _event_object(call, event)}),
                )
            else:
                yield encode_json({"type": event.type, "object": _event_object(call, event)})
    finally:
        opened.close()
        registry.discard(opened)


async def _protobuf_events(call: Call, opened: Watch, registry: WatchRegistry) -> AsyncIterator[bytes]:
    from kgen.runtime.apimachinery.meta.v1 import generated_pb2

    flow, version = call.endpoint.flow, call.version
    try:
        async for event in opened:
            obj = _event_object(call, event)
            if event.type == "ERROR":
                error = event.error if event.error is not None else APIError(500, "InternalError", "watch failed")
                raw = status_protobuf(error)
            else:
                raw = flow.encode_protobuf(obj, version)
            message = generated_pb2.WatchEvent(type=event.type)
            message.object.raw = raw
            data = message.SerializeToString()
            yield struct.pack(">I", len(data)) + data
    finally:
        opened.close()
        registry.discard(opened)
