"""parallel: every listener runs to completion concurrently; then the first failure."""

from __future__ import annotations

import logging

import anyio
import anyio.lowlevel
import pytest

from dsh_lsp.kernel import Kernel, ParallelEvent

FLUSH: ParallelEvent[list[str]] = ParallelEvent("test/flush")


async def test_without_listeners_it_returns() -> None:
    async with Kernel() as kernel:
        await kernel.context.parallel(FLUSH, [])


async def test_listeners_run_concurrently() -> None:
    a_started = anyio.Event()
    b_started = anyio.Event()

    async def a(log: list[str]) -> None:
        a_started.set()
        await b_started.wait()  # would deadlock if b only started after a finished
        log.append("a")

    async def b(log: list[str]) -> None:
        b_started.set()
        await a_started.wait()
        log.append("b")

    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(FLUSH, a)
        ctx.on(FLUSH, b)
        with anyio.fail_after(10):
            await ctx.parallel(FLUSH, log)
    assert sorted(log) == ["a", "b"]


async def test_a_failing_listener_does_not_cancel_its_siblings() -> None:
    failed = anyio.Event()

    async def broken(log: list[str]) -> None:
        failed.set()
        raise OSError("backend one is down")

    async def slow(log: list[str]) -> None:
        await failed.wait()
        await anyio.lowlevel.checkpoint()
        log.append("slow finished")

    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(FLUSH, slow)
        ctx.on(FLUSH, broken)
        with pytest.raises(OSError, match="backend one is down"):
            await ctx.parallel(FLUSH, log)
    assert log == ["slow finished"]


async def test_the_first_failure_in_time_is_raised_and_later_ones_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    first_failed = anyio.Event()

    async def late(log: list[str]) -> None:
        await first_failed.wait()
        raise OSError("second")

    async def early(log: list[str]) -> None:
        first_failed.set()
        raise OSError("first")

    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(FLUSH, late)
        ctx.on(FLUSH, early)
        with caplog.at_level(logging.ERROR), pytest.raises(OSError, match="first"):
            await ctx.parallel(FLUSH, [])
    (record,) = caplog.records
    assert "'test/flush'" in record.getMessage()
    assert record.exc_info is not None
    assert "second" in str(record.exc_info[1])


async def test_the_listener_list_is_snapshotted_at_dispatch() -> None:
    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context

        async def adder(log: list[str]) -> None:
            log.append("adder")

            async def added(log: list[str]) -> None:
                log.append("added")

            ctx.on(FLUSH, added)

        disposer = ctx.on(FLUSH, adder)
        await ctx.parallel(FLUSH, log)
        await disposer()
        await ctx.parallel(FLUSH, log)
    assert log == ["adder", "added"]
