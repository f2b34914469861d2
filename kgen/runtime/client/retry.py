"""When the transport repeats a request, and `retry_on_conflict` for read-modify-write loops.

The rules are client-go's (`rest/with_retry.go`, `rest/request.go`):

- A response 429 or 5xx is repeated only when it carries `Retry-After` as whole seconds
  (`checkWait`), whatever the verb: the server says it did not take the request. Without
  the header, or with an HTTP date, it is the caller's error.
- A connection that broke (reset, closed before the response, an HTTP/2 GOAWAY) is repeated
  for GET only, after one second; writes are not repeated, they may have been applied.
  A watch also repeats a connection that timed out. A failed connect is not repeated.
- At most `max_retries` times (client-go: 10); a retry waits for the client's rate limiter too.

kgen waits `max(Retry-After, backoff)` times a jitter factor in `[1, 1 + jitter)`: never
sooner than the server asked, the exponential backoff only matters when it asks for 0s.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

import httpx

from kgen.runtime.client.errors import is_conflict

__all__ = [
    "RetryPolicy",
    "Backoff",
    "DEFAULT_RETRY",
    "DEFAULT_BACKOFF",
    "retry_after_seconds",
    "retry_delay",
    "retry_on_conflict",
    "retry_on_conflict_async",
    "on_error",
    "on_error_async",
]

T = TypeVar("T")

#: How a request is sent: `request` reads a whole response, `watch` opens a watch stream
#: (client-go repeats broken connections differently for them).
Mode = Literal["request", "watch"]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long the transport waits before repeating a request."""

    max_retries: int = 10
    """Repeats after the first attempt (client-go's default, 10); 0 never repeats."""
    backoff_base: float = 0.1
    """The wait before the first repeat when the server asks for none; doubled each time."""
    backoff_max: float = 1.0
    """The most the exponential backoff grows to (a longer Retry-After is still honoured)."""
    jitter: float = 0.1
    """Each wait is multiplied by a random factor in [1, 1 + jitter)."""
    max_wait: float | None = None
    """A cap on any single wait, Retry-After included (None: wait as long as the server asks)."""

    def backoff(self, attempt: int) -> float:
        """The exponential part of the wait before repeat number `attempt` (1-based)."""
        if self.backoff_base <= 0:
            return 0.0
        return min(self.backoff_max, self.backoff_base * 2.0 ** (attempt - 1))


def retry_after_seconds(headers: Mapping[str, str]) -> int | None:
    """The `Retry-After` header as whole seconds, None when absent or not a number
    (client-go's `retryAfterSeconds` reads it with strconv.Atoi: no HTTP dates)."""
    value = headers.get("retry-after")
    if not value:
        return None
    text = value[1:] if value[:1] in "+-" else value
    if not (text.isascii() and text.isdigit()):
        return None
    return int(value)


def _broken_connection(error: Exception) -> bool:
    """net.IsConnectionReset / IsProbableEOF / IsHTTP2ConnectionLost, in httpx's terms."""
    if isinstance(error, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return True
    return isinstance(error, httpx.ConnectError) and "reset by peer" in str(error).lower()


def retry_delay(
    policy: RetryPolicy,
    attempt: int,
    method: str,
    outcome: httpx.Response | Exception,
    mode: Mode = "request",
    rand: Callable[[], float] = random.random,
) -> float | None:
    """The seconds to wait before repeat number `attempt` (1-based) of a request that got
    `outcome` (a response, or the transport error), or None when it must not be repeated."""
    if attempt > policy.max_retries:
        return None
    if isinstance(outcome, Exception):
        retryable = _broken_connection(outcome)
        if mode == "watch":
            retryable = retryable or isinstance(outcome, httpx.TimeoutException)
        elif method.upper() != "GET":
            retryable = False
        if not retryable:
            return None
        asked = 1  # client-go answers a retryable error with a made-up `Retry-After: 1`
    else:
        if outcome.status_code != 429 and outcome.status_code < 500:
            return None
        seconds = retry_after_seconds(outcome.headers)
        if seconds is None:
            return None
        asked = max(seconds, 0)
    wait = max(float(asked), policy.backoff(attempt)) * (1.0 + policy.jitter * rand())
    return wait if policy.max_wait is None else min(wait, policy.max_wait)


# -- read-modify-write loops -----------------------------------------------------------------


@dataclass(frozen=True)
class Backoff:
    """apimachinery's `wait.Backoff`: `steps` tries at most, sleeping between them."""

    duration: float = 0.01
    """The first sleep, in seconds."""
    factor: float = 1.0
    """Each sleep is the previous one times the factor."""
    jitter: float = 0.1
    """Each sleep is lengthened by a random part of up to `jitter` times itself."""
    steps: int = 5
    """How many times the function runs at most."""
    cap: float = 0.0
    """The longest sleep (0: no limit); reaching it stops the growth."""

    def sleeps(self, rand: Callable[[], float] = random.random) -> Iterator[float]:
        """The sleeps between the tries, as `wait.ExponentialBackoff` takes them from
        `Backoff.Step`: `steps - 1` of them, fewer once the duration reaches the cap."""
        duration, steps = self.duration, self.steps
        while steps > 1:
            current = duration
            steps -= 1
            if self.factor != 0:
                duration = duration * self.factor
                if self.cap > 0 and duration > self.cap:
                    return  # Go sleeps once more here, then stops without another try
            yield current + rand() * self.jitter * current if self.jitter > 0 else current


#: client-go's `retry.DefaultRetry`: for a conflict with another writer of the same object.
DEFAULT_RETRY = Backoff(duration=0.01, factor=1.0, jitter=0.1, steps=5)
#: client-go's `retry.DefaultBackoff`: for an object a controller also writes.
DEFAULT_BACKOFF = Backoff(duration=0.01, factor=5.0, jitter=0.1, steps=4)


def on_error(
    fn: Callable[[], T],
    retriable: Callable[[Exception], bool],
    backoff: Backoff = DEFAULT_RETRY,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rand: Callable[[], float] = random.random,
) -> T:
    """Call `fn` until it returns, repeating (after the backoff's sleeps) while it raises an
    error `retriable` accepts; the last such error is raised when the steps run out
    (client-go's `retry.OnError`). Other errors are raised at once."""
    sleeps = backoff.sleeps(rand)
    while True:
        try:
            return fn()
        except Exception as err:
            if not retriable(err):
                raise
            delay = next(sleeps, None)
            if delay is None:
                raise
        sleep(delay)


async def on_error_async(
    fn: Callable[[], Awaitable[T]],
    retriable: Callable[[Exception], bool],
    backoff: Backoff = DEFAULT_RETRY,
    *,
    sleep: Callable[[float], Awaitable[object]] | None = None,
    rand: Callable[[], float] = random.random,
) -> T:
    """`on_error` for a coroutine function; sleeps with `anyio.sleep` unless given `sleep`."""
    if sleep is None:
        import anyio

        sleep = anyio.sleep
    sleeps = backoff.sleeps(rand)
    while True:
        try:
            return await fn()
        except Exception as err:
            if not retriable(err):
                raise
            delay = next(sleeps, None)
            if delay is None:
                raise
        await sleep(delay)


def retry_on_conflict(
    fn: Callable[[], T],
    backoff: Backoff = DEFAULT_RETRY,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rand: Callable[[], float] = random.random,
) -> T:
    """Run a read-modify-write function again while it fails with a Conflict (409, the object
    changed since it was read), as client-go's `retry.RetryOnConflict`: `fn` must read the
    object afresh each time and let the update's error propagate unchanged.

        def bump():
            frobber = frobbers.get("a")
            frobber.spec.replicas += 1
            return frobbers.update(frobber)

        retry_on_conflict(bump)
    """
    return on_error(fn, is_conflict, backoff, sleep=sleep, rand=rand)


async def retry_on_conflict_async(
    fn: Callable[[], Awaitable[T]],
    backoff: Backoff = DEFAULT_RETRY,
    *,
    sleep: Callable[[float], Awaitable[object]] | None = None,
    rand: Callable[[], float] = random.random,
) -> T:
    """`retry_on_conflict` for a coroutine function."""
    return await on_error_async(fn, is_conflict, backoff, sleep=sleep, rand=rand)
