"""The API server's in-flight limits: too many requests at once are 429 TooManyRequests.

Like kube-apiserver's `--max-requests-inflight` and `--max-mutating-requests-inflight`,
read-only and mutating requests are counted apart; watches are long-running and not
counted. A refused request gets a `Status` with `Retry-After: 1`.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from kgen.serve.respond import encode_json

_MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_TOO_MANY = encode_json({
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": "Too many requests, please try again later.", "reason": "TooManyRequests",
    "details": {"retryAfterSeconds": 1}, "code": 429,
})  # fmt: skip


def is_long_running(scope: Scope) -> bool:
    """Watches (and the old /watch/ paths) run for long: they are not counted."""
    if "/watch/" in scope["path"]:
        return True
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("watch", [""])[0].lower() in ("true", "1")


class InflightLimit:
    """ASGI middleware counting requests in flight (a limit of 0 means none)."""

    def __init__(self, app: ASGIApp, max_requests: int = 400, max_mutating: int = 200):
        self.app = app
        self.limits = {False: max_requests, True: max_mutating}
        self.inflight = {False: 0, True: 0}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_long_running(scope):
            await self.app(scope, receive, send)
            return
        mutating = scope["method"] in _MUTATING
        limit = self.limits[mutating]
        if limit and self.inflight[mutating] >= limit:
            headers = [
                (b"content-type", b"application/json"),
                (b"retry-after", b"1"),
                (b"content-length", str(len(_TOO_MANY)).encode()),
            ]
            await send({"type": "http.response.start", "status": 429, "headers": headers})
            await send({"type": "http.response.body", "body": _TOO_MANY})
            return
        self.inflight[mutating] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.inflight[mutating] -= 1
