"""Watch streams, decoded without I/O: frames in, `WatchEvent`s out.

A JSON watch is newline-delimited `{"type": "ADDED", "object": {...}}` events; a protobuf
watch (`application/vnd.kubernetes.protobuf;stream=watch`) is frames of a 4-byte big-endian
length and a `metav1.WatchEvent` message whose `object.raw` is the object in the protobuf
envelope. `WatchDecoder.feed(chunk)` returns the events complete so far, so the sync and
async streams share it. An `ERROR` event raises the error of its Status (a `410 Expired`
tells a watcher to list again); an event that cannot be decoded raises the `InternalError`
client-go reports for it (cause `ClientWatchDecoding`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from kgen.runtime.client.codec import status_class, is_protobuf
from kgen.runtime.client.errors import APIStatusError, InternalError, error_from_status, generic_server_response

__all__ = ["WatchEvent", "WatchDecoder", "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]

T = TypeVar("T")

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"
BOOKMARK = "BOOKMARK"
ERROR = "ERROR"
_TYPES = frozenset({ADDED, MODIFIED, DELETED, BOOKMARK, ERROR})

#: The largest frame kgen buffers (the API server limits objects to far less).
MAX_FRAME = 256 * 1024 * 1024


@dataclass(frozen=True)
class WatchEvent(Generic[T]):
    """One change: `type` is ADDED, MODIFIED, DELETED or BOOKMARK (whose object carries only
    the resource version reached); `object` the object after it (before it, for DELETED)."""

    type: str
    object: T


class WatchDecoder(Generic[T]):
    """Turns the bytes of a watch response into events; `result_type` None gives JSON data."""

    def __init__(self, content_type: str, result_type: type[T] | None, method: str = "GET") -> None:
        self.protobuf = is_protobuf(content_type)
        self.result_type = result_type
        self._method = method
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[WatchEvent[T]]:
        """The events the bytes received so far complete."""
        self._buffer += chunk
        frames = self._protobuf_frames() if self.protobuf else self._lines()
        return [self._event(frame) for frame in frames]

    def finish(self) -> list[WatchEvent[T]]:
        """The end of the stream: a last JSON line without its newline; a cut protobuf frame
        is dropped, as client-go drops it."""
        rest, self._buffer = bytes(self._buffer), bytearray()
        if self.protobuf or not rest.strip():
            return []
        return [self._event(rest)]

    def _lines(self) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        while True:
            end = self._buffer.find(b"\n", start)
            if end < 0:
                break
            line = bytes(self._buffer[start:end])
            if line.strip():
                lines.append(line)
            start = end + 1
        del self._buffer[:start]
        if len(self._buffer) > MAX_FRAME:
            raise self._decoding_error(f"a watch event is longer than {MAX_FRAME} bytes")
        return lines

    def _protobuf_frames(self) -> list[bytes]:
        frames: list[bytes] = []
        while len(self._buffer) >= 4:
            size = int.from_bytes(self._buffer[:4], "big")
            if size > MAX_FRAME:
                raise self._decoding_error(f"a watch frame of {size} bytes is longer than {MAX_FRAME}")
            if len(self._buffer) < 4 + size:
                break
            frames.append(bytes(self._buffer[4 : 4 + size]))
            del self._buffer[: 4 + size]
        return frames

    def _event(self, frame: bytes) -> WatchEvent[T]:
        try:
            kind, obj = self._decode_protobuf(frame) if self.protobuf else self._decode_json(frame)
        except APIStatusError:
            raise
        except Exception as err:  # any decoding failure, reported as client-go reports it
            raise self._decoding_error(f"unable to decode an event from the watch stream: {err}") from err
        return WatchEvent(kind, obj)

    def _decode_json(self, line: bytes) -> tuple[str, Any]:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise ValueError("a watch event is a JSON object")
        kind = data.get("type")
        obj = data.get("object")
        self._check_type(kind)
        if kind == ERROR:
            status = status_class().from_dict(obj) if isinstance(obj, dict) else None
            raise self._watch_error(status, obj)
        if self.result_type is None:
            return str(kind), obj
        if not isinstance(obj, dict):
            raise ValueError(f"the object of a {kind} event is not a JSON object")
        decoded = self.result_type.from_dict(obj)  # type: ignore[attr-defined]
        return str(kind), decoded

    def _decode_protobuf(self, frame: bytes) -> tuple[str, Any]:
        from kgen.runtime import protobuf
        from kgen.runtime.apimachinery.meta.v1 import generated_pb2

        message = generated_pb2.WatchEvent()
        message.ParseFromString(frame)
        kind = message.type
        self._check_type(kind)
        raw = message.object.raw
        if kind == ERROR:
            from kgen.runtime.apimachinery.meta.v1 import protobuf as _meta_converters  # noqa: F401

            envelope = protobuf.decode_envelope(raw)
            status = protobuf.unmarshal(status_class(), envelope.raw) if envelope.kind == "Status" else None
            raise self._watch_error(status, envelope.kind)
        return kind, protobuf.decode(raw, self.result_type)

    def _check_type(self, kind: Any) -> None:
        if kind not in _TYPES:
            raise ValueError(f"got invalid watch event type: {kind}")

    def _watch_error(self, status: Any, obj: Any) -> APIStatusError:
        """An ERROR event: the error of its Status (an ERROR without one is an InternalError)."""
        if status is not None:
            return error_from_status(status)
        return self._decoding_error(f"an ERROR event without a Status: {str(obj)[:200]}")

    def _decoding_error(self, message: str) -> InternalError:
        """client-go's `NewClientErrorReporter(500, verb, "ClientWatchDecoding")`."""
        from kgen.runtime.apimachinery.meta.v1.models import StatusCause

        status = generic_server_response(500, self._method, None, message)
        assert status.details is not None
        status.details.causes = [
            *(status.details.causes or []),
            StatusCause(reason="ClientWatchDecoding", message=message),
        ]
        error = error_from_status(status)
        assert isinstance(error, InternalError)
        return error
