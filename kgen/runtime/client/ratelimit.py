"""The client-side rate limiter: a token bucket, as client-go's `flowcontrol.NewTokenBucketRateLimiter`.

The bucket holds up to `burst` tokens and gains `qps` a second; it starts full. Each request
takes a token; when none is left it reserves the next one and waits until it is due, as
`golang.org/x/time/rate`'s `Limiter.Wait` does. `reserve()` only computes the wait, so the
sync and async transports share the bucket and each sleeps its own way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["TokenBucket", "DEFAULT_QPS", "DEFAULT_BURST"]

#: kubectl's rate (50 requests a second, bursts of 300): client-go's library default (5 and
#: 10) makes paging through a few objects take seconds, which no one expects of a client.
DEFAULT_QPS = 50.0
DEFAULT_BURST = 300


class TokenBucket:
    """Allows `qps` requests a second on average and bursts of `burst` requests."""

    def __init__(
        self, qps: float = DEFAULT_QPS, burst: int = DEFAULT_BURST, clock: Callable[[], float] = time.monotonic
    ):
        if qps <= 0:
            raise ValueError(f"a token bucket needs qps > 0, not {qps}; pass no rate limiter to disable limiting")
        if burst < 1:
            raise ValueError(f"a token bucket needs burst >= 1, not {burst}")
        self.qps = qps
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take a token and return the seconds to wait before using it (0 when one was there)."""
        with self._lock:
            now = self._clock()
            elapsed = max(0.0, now - self._last)
            self._tokens = min(float(self.burst), self._tokens + elapsed * self.qps)
            self._last = now
            self._tokens -= 1.0
            if self._tokens >= 0:
                return 0.0
            return -self._tokens / self.qps

    def __repr__(self) -> str:
        return f"TokenBucket(qps={self.qps}, burst={self.burst})"
