"""Run kgen's work on a thread with a deep stack.

kgen walks type graphs recursively (a struct reaches the structs its fields hold, and so
on): a legal API whose types reach each other hundreds of levels deep must not stop on
Python's default limit of 1,000 frames. The work runs on its own thread, whose stack is
large enough for `RECURSION_LIMIT` frames; an input deeper than even that is reported as
an input error by the caller (`RecursionError`), never as a crash of the interpreter.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

RECURSION_LIMIT = 40_000
"""Python frames the worker thread allows (Python's default is 1,000)."""
STACK_BYTES = 768 * 1024 * 1024
"""The worker thread's stack: virtual memory, touched only as deep as a run goes."""


def run(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """`function(*args, **kwargs)` on a deep-stack thread; its result, or its exception
    (SystemExit included) raised again here."""
    if getattr(_local, "inside", False):
        return function(*args, **kwargs)
    outcome: dict[str, Any] = {}

    def work() -> None:
        _local.inside = True
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as err:  # noqa: BLE001 - carried to the calling thread
            outcome["error"] = err

    previous_limit = sys.getrecursionlimit()
    previous_stack = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
        worker = threading.Thread(target=work, name="kgen", daemon=True)
    finally:
        threading.stack_size(previous_stack)
    sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
    try:
        worker.start()
        worker.join()
    finally:
        sys.setrecursionlimit(previous_limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


_local = threading.local()
