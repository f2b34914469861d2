"""The API server's in-flight limits: too many requests at once are 429 TooManyRequests.

Like kube-apiserver's `--max-requests-inflight` and `--max-mutating-requests-inflight`,
read-only and mutating requests are counted apart; watches are long-running and not
counted. A refused request gets a `Status` with `Retry-After: 1`.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
    "message": "Timeout: request did not complete within requested timeout - context deadline exceeded",
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
    gets 504 Timeout. A mutating request's body is read before the request takes a write
    slot, so clients that send their bodies a byte at a time hold no slot from honest writers."""

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
        deadline = None if not self.request_timeout else loop.time() + self.request_timeout
        mutating = scope["method"] in _MUTATING
        if mutating and not _declared_too_large(scope):  # (that one the handler refuses unread)
            try:
                messages = await asyncio.wait_for(_body_messages(receive), _remaining(loop, deadline))
            except asyncio.TimeoutError:
                await _answer(send, 504, _TIMEOUT)
                return
            if messages is None:
                return  # the client went away while sending
            receive = _replay(messages, receive)
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

        try:
            await asyncio.wait_for(self.app(scope, receive, tracking), _remaining(loop, deadline))
        except asyncio.TimeoutError:
            if not started:
                await _answer(send, 504, _TIMEOUT)
        finally:
            self.inflight[mutating] -= 1


def _declared_too_large(scope: Scope) -> bool:
    declared = next((value for name, value in scope["headers"] if name == b"content-length"), b"")
    return declared.isdigit() and int(declared) > MAX_REQUEST_BODY_BYTES


def _remaining(loop: asyncio.AbstractEventLoop, deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - loop.time())


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


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A `receive` that gives the body read ahead, then what the connection says next."""
    pending = list(messages)
    if pending and pending[-1].get("more_body", False):
        pending[-1] = {**pending[-1], "more_body": False}  # cut past the limit: the handler refuses it

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


async def _answer(send: Send, code: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": code, "headers": headers})
    await send({"type": "http.response.body", "body": body})
