"""Benchmark: the kernel's dispatch cost next to plain Python calls, in one run.

Prints µs per call for a plain function call, a plain awaited coroutine call, one ``emit``
with one listener, and ``waterfall`` dispatches with no listener and with five pass-through
listeners, then the per-listener waterfall cost (target: under 5 µs per listener).

Run: ``.venv/bin/python bench/kernel.py [iterations]``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable

import anyio

from dsh_lsp.kernel import EmitEvent, Kernel, WaterfallEvent

TICK: EmitEvent[int] = EmitEvent("bench/tick")
WRAP: WaterfallEvent[int, int] = WaterfallEvent("bench/wrap")
EMPTY: WaterfallEvent[int, int] = WaterfallEvent("bench/empty")
TARGET_US_PER_LISTENER = 5.0


def plain(payload: int) -> None:
    """The emit listener, and the plain-call baseline."""


async def plain_async(payload: int) -> int:
    """The awaited-coroutine baseline."""
    return payload


async def inner() -> int:
    return 1


async def pass_through(payload: int, next: Callable[[], Awaitable[int]]) -> int:
    return await next()


def best_of(runs: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(runs))


async def main(iterations: int) -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(TICK, plain)
        for _ in range(5):
            ctx.on(WRAP, pass_through)

        def time_sync(fn: Callable[[], None]) -> float:
            start = time.perf_counter_ns()
            for _ in range(iterations):
                fn()
            return (time.perf_counter_ns() - start) / iterations / 1000

        async def time_async(fn: Callable[[], Awaitable[object]]) -> float:
            start = time.perf_counter_ns()
            for _ in range(iterations):
                await fn()
            return (time.perf_counter_ns() - start) / iterations / 1000

        async def best_async(fn: Callable[[], Awaitable[object]]) -> float:
            return min([await time_async(fn) for _ in range(5)])

        call = best_of(5, lambda: time_sync(lambda: plain(1)))
        awaited = await best_async(lambda: plain_async(1))
        emit = best_of(5, lambda: time_sync(lambda: ctx.emit(TICK, 1)))
        empty = await best_async(lambda: ctx.waterfall(EMPTY, 1, inner))
        five = await best_async(lambda: ctx.waterfall(WRAP, 1, inner))

    per_listener = (five - empty) / 5
    rows = [
        ("plain function call", call),
        ("plain awaited coroutine call", awaited),
        ("emit, 1 listener", emit),
        ("waterfall, 0 listeners (await inner)", empty),
        ("waterfall, 5 listeners", five),
        ("waterfall cost per listener", per_listener),
        ("  of which kernel overhead (minus one awaited call)", per_listener - awaited),
    ]
    print(f"kernel dispatch benchmark ({iterations} iterations, best of 5)")
    for label, micros in rows:
        print(f"  {label:<52} {micros:8.3f} µs")
    verdict = "ok" if per_listener < TARGET_US_PER_LISTENER else "OVER TARGET"
    print(f"  per-listener target < {TARGET_US_PER_LISTENER} µs: {verdict}")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    anyio.run(main, count, backend="asyncio")
