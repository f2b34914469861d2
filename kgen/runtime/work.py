"""The work one request does: its deadline, whether it may go on, and which worker threads run it.

A server gives each request a `Work` (`with Work(...).current():`); the store and the patch,
list and conversion steps call `checkpoint()` between their pieces, so that work for a client
that has gone, or whose deadline has passed, stops at the next piece instead of keeping a
core busy for nobody. The answer is then 504 Timeout, as the API server gives when a
request's context is done.

Blocking work (a store call, a patch) runs in a worker thread of the request's lane
(`await run(...)`): single-object reads and writes in `Lane.OBJECT`; lists, collection
deletes and requests with large bodies in `Lane.BULK`. The two lanes have their own threads, so a
dozen clients listing thousands of objects wait for each other and never for the thread a
GET of one object needs, as the API server's priority and fairness keeps cheap requests
apart from costly ones. Outside a request (a fake client, a script), work runs in asyncio's
default threads and checkpoints pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import enum
import functools
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from kgen.runtime.errors import APIError

T = TypeVar("T")

TIMEOUT_MESSAGE = "Timeout: request did not complete within requested timeout - context deadline exceeded"
"""kube-apiserver's message when a request's deadline passes."""


class Lane(enum.Enum):
    """Which worker threads run a request's blocking work."""

    OBJECT = "object"
    BULK = "bulk"


_THREADS = {Lane.OBJECT: 4, Lane.BULK: 1}
"""One thread for bulk work: under the interpreter lock a second would add no speed, only
more contention for the object lane's threads."""
_executors: dict[Lane, ThreadPoolExecutor] = {}
_executors_lock = threading.Lock()


def _executor(lane: Lane) -> ThreadPoolExecutor:
    with _executors_lock:
        if lane not in _executors:
            _executors[lane] = ThreadPoolExecutor(_THREADS[lane], thread_name_prefix=f"kgen-{lane.value}")
        return _executors[lane]


class Work:
    """One request's work: `deadline` (time.monotonic) or None, and `cancel()` to stop it."""

    def __init__(self, deadline: float | None = None, lane: Lane = Lane.OBJECT):
        self.deadline = deadline
        self.lane = lane
        self.reason = ""

    def cancel(self, reason: str) -> None:
        """Stop the work at its next checkpoint (the first reason given is kept)."""
        self.reason = self.reason or reason

    @property
    def done(self) -> bool:
        """Whether the work should stop: cancelled, or past its deadline."""
        if not self.reason and self.deadline is not None and time.monotonic() >= self.deadline:
            self.reason = "deadline"
        return bool(self.reason)

    @contextlib.contextmanager
    def current(self) -> Iterator[Work]:
        """Make this the work of the code (and the worker threads) that runs inside."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)


_current: contextvars.ContextVar[Work | None] = contextvars.ContextVar("kgen_work", default=None)


def current() -> Work | None:
    """The work of the request being served, if any."""
    return _current.get()


def checkpoint() -> None:
    """504 Timeout when the current request's work should stop; nothing otherwise."""
    work = _current.get()
    if work is not None and work.done:
        raise APIError(504, "Timeout", TIMEOUT_MESSAGE)


def use_lane(lane: Lane) -> None:
    """Run the current request's blocking work from here on in `lane`."""
    work = _current.get()
    if work is not None:
        work.lane = lane


async def run(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`function(*args, **kwargs)` in a worker thread of the current request's lane (asyncio's
    default threads outside a request), with the caller's context; checkpoints before."""
    work = _current.get()
    if work is None:
        return await asyncio.to_thread(function, *args, **kwargs)
    checkpoint()
    context = contextvars.copy_context()
    call = functools.partial(context.run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_executor(work.lane), call)
