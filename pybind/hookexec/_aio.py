"""Running a host's ``async def`` callbacks from the library's threads.

Host-evaluated hooks (prompt, and the other types a host evaluates) call the host's
evaluator on a library thread and wait for its answer. An evaluator may be a coroutine
function: its coroutine runs on the event loop that was running when it was registered
(where the host's async clients live), or, without one, on a fresh loop in the library
thread. The loop must be free to run it: firing synchronously from that loop's own thread
would wait for itself, so then the fresh loop is used instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
from typing import Any, Awaitable, Callable, Optional, TypeVar

__all__ = ["syncify", "running_loop"]

T = TypeVar("T")

# How often a library thread waiting for a coroutine checks that its loop still runs.
_POLL = 0.25


def running_loop() -> Optional[asyncio.AbstractEventLoop]:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def syncify(fn: Callable[..., Any], loop: Optional[asyncio.AbstractEventLoop], loop_blocked: Callable[[], bool]) -> Callable[..., Any]:
    """A plain function calling ``fn`` and, when it returns an awaitable, running that to
    completion (on ``loop`` unless ``loop_blocked()``) and returning its result."""

    def call(*args: Any) -> Any:
        got = fn(*args)
        if not inspect.isawaitable(got):
            return got
        return _run(got, loop, loop_blocked)

    return call


async def _await(aw: Awaitable[T]) -> T:
    return await aw


def _run(aw: Awaitable[T], loop: Optional[asyncio.AbstractEventLoop], loop_blocked: Callable[[], bool]) -> T:
    if loop is None or loop.is_closed() or not loop.is_running() or loop_blocked():
        return asyncio.run(_await(aw))
    fut = asyncio.run_coroutine_threadsafe(_await(aw), loop)
    while True:
        try:
            return fut.result(timeout=_POLL)
        except concurrent.futures.TimeoutError:
            if loop.is_closed() or not loop.is_running():
                fut.cancel()
                raise RuntimeError("hookexec: the event loop running the async evaluator stopped") from None
