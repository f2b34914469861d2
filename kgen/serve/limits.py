"""The API server's in-flight limits: too many requests at once are 429 TooManyRequests.

Like kube-apiserver's `--max-requests-inflight` and `--max-mutating-requests-inflight`,
read-only and mutating requests are counted apart; watches are long-running and not
counted. A refused request gets a `Status` with `Retry-After: 1`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kgen.runtime import work
from kgen.runtime.scheme import MAX_REQUEST_BODY_BYTES
from kgen.serve.respond import encode_json

_MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_TOO_MANY = encode_json({
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": "Too many requests, please try again later.", "reason": "TooManyRequests",
    "details": {"retryAfterSeconds": 1}, "code": 429,
})  # fmt: skip
_TIMEOUT = encode_json({
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": work.TIMEOUT_MESSAGE,
    "reason": "Timeout", "details": {}, "code": 504,
})  # fmt: skip
"""kube-apiserver's answer past --request-timeout (its timeout filter)."""


def is_long_running(scope: Scope) -> bool:
    """Watches (and the old /watch/ paths) run for long: they are not counted."""
    if "/watch/" in scope["path"]:
        return True
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("watch", [""])[0].lower() in ("true", "1")


class InflightLimit:
    """ASGI middleware: the in-flight limits (0 means none) and the request timeout.

    A request that is not long-running must finish within `request_timeout` seconds
    (kube-apiserver's `--request-timeout`, one minute by default), its body included, or it
    gets 504 Timeout. A request's body is read before the request takes a slot, so clients
    that send their bodies a byte at a time hold no slot from honest writers. The request's
    `kgen.runtime.work.Work` is cancelled when its deadline passes or its client disconnects,
    so what it runs in worker threads stops at the next checkpoint."""

    def __init__(
        self, app: ASGIApp, max_requests: int = 400, max_mutating: int = 200, request_timeout: float | None = 60.0
    ):
        self.app = app
        self.limits = {False: max_requests, True: max_mutating}
        self.inflight = {False: 0, True: 0}
        self.request_timeout = request_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_long_running(scope):
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = None if not self.request_timeout else time.monotonic() + self.request_timeout
        mutating = scope["method"] in _MUTATING
        messages: list[Message] = []
        if not _declared_too_large(scope):  # (that one the handler refuses unread)
            try:
                read = await asyncio.wait_for(_body_messages(receive), _remaining(deadline))
            except asyncio.TimeoutError:
                await _answer(send, 504, _TIMEOUT)
                return
            if read is None:
                return  # the client went away while sending
            messages = read
        limit = self.limits[mutating]
        if limit and self.inflight[mutating] >= limit:
            await _answer(send, 429, _TOO_MANY, [(b"retry-after", b"1")])
            return
        self.inflight[mutating] += 1
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        request_work = work.Work(deadline)
        gone = asyncio.Event()
        with request_work.current():  # the tasks take the context they are created in
            answering = loop.create_task(self.app(scope, _replay(messages, receive, gone), tracking))
        waiting, listening = [answering], []
        if not _cut(messages):  # the whole body is in: the connection says nothing more but goodbye
            listening = [loop.create_task(_listen_for_disconnect(receive, gone))]
            waiting.append(loop.create_task(gone.wait()))
        try:
            finished, _ = await asyncio.wait(waiting, timeout=_remaining(deadline), return_when=asyncio.FIRST_COMPLETED)
            if answering in finished:
                answering.result()
                return
            request_work.cancel("client disconnected" if gone.is_set() else "deadline")
            answering.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await answering
            if not started and not gone.is_set():
                await _answer(send, 504, _TIMEOUT)
        finally:
            self.inflight[mutating] -= 1
            for task in waiting + listening:
                task.cancel()


def _declared_too_large(scope: Scope) -> bool:
    declared = next((value for name, value in scope["headers"] if name == b"content-length"), b"")
    return declared.isdigit() and int(declared) > MAX_REQUEST_BODY_BYTES


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _cut(messages: list[Message]) -> bool:
    """Whether the body was cut at the size limit (the rest of it is still on the wire)."""
    return bool(messages) and messages[-1].get("more_body", False)


async def _listen_for_disconnect(receive: Receive, gone: asyncio.Event) -> None:
    """Set `gone` when the client disconnects: with the body read, the next message the
    server gives is the disconnect (or, after the response, its end)."""
    if (await receive())["type"] == "http.disconnect":
        gone.set()


async def _body_messages(receive: Receive) -> list[Message] | None:
    """The request's body messages, read to the end (at most one message past the request
    body limit: the handler refuses the body as too large); None when the client left."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        messages.append(message)
        size += len(message.get("body", b""))
        if not message.get("more_body", False) or size > MAX_REQUEST_BODY_BYTES:
            return messages


def _replay(messages: list[Message], receive: Receive, gone: asyncio.Event) -> Receive:
    """A `receive` that gives the body read ahead, then what the connection says next (the
    disconnect the listener saw, when it listens)."""
    pending = list(messages)
    cut = _cut(pending)
    if cut:
        pending[-1] = {**pending[-1], "more_body": False}  # past the limit: the handler refuses it

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        if cut or not messages:
            return await receive()
        await gone.wait()
        return {"type": "http.disconnect"}

    return replay


async def _answer(send: Send, code: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": code, "headers": headers})
    await send({"type": "http.response.body", "body": body})
