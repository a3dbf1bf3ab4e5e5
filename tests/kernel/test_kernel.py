"""Kernel: one task group; leaving it unwinds everything and awaits every task."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from dsh_lsp.kernel import Context, EmitEvent, Kernel, KernelClosedError, Plugin

from .support import K, plugin

PING: EmitEvent[str] = EmitEvent("test/ping")


class Worker:
    """A background task that records when it is cancelled."""

    def __init__(self, log: list[str], tag: str) -> None:
        self.log = log
        self.tag = tag
        self.running = anyio.Event()

    async def __call__(self) -> None:
        self.running.set()
        try:
            await anyio.sleep_forever()
        finally:
            self.log.append(f"{self.tag} stopped")


def working(tag: str, log: list[str], workers: list[Worker]) -> Plugin[None]:
    """A plugin that starts one worker and records its own unload."""

    async def apply(ctx: Context) -> None:
        ctx.effect(lambda: lambda: log.append(f"{tag} unloaded"))
        worker = Worker(log, f"{tag} task")
        workers.append(worker)
        ctx.start_soon(worker)

    return plugin(tag, apply)


async def test_leaving_the_kernel_unwinds_newest_first_and_awaits_every_task() -> None:
    log: list[str] = []
    workers: list[Worker] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        root_worker = Worker(log, "root task")
        ctx.start_soon(root_worker)
        await ctx.plugin(working("first", log, workers))
        await ctx.plugin(working("second", log, workers))
        for worker in [root_worker, *workers]:
            await worker.running.wait()
        assert kernel.task_count() == 3
    assert log == [
        "second task stopped",
        "second unloaded",
        "first task stopped",
        "first unloaded",
        "root task stopped",
    ]
    assert (kernel.task_count(), kernel.fiber_count()) == (0, 0)
    assert kernel.service_keys() == frozenset()


async def test_a_closed_kernel_refuses_registrations() -> None:
    async with Kernel() as kernel:
        root = kernel.context
        assert root.kernel is kernel
        assert root.fiber is None
        assert repr(root) == "<Context of the kernel>"
    with pytest.raises(KernelClosedError):
        _ = kernel.context
    with pytest.raises(KernelClosedError):
        root.on(PING, print)
    with pytest.raises(KernelClosedError):
        root.start_soon(anyio.lowlevel.checkpoint)
    with pytest.raises(KernelClosedError):
        root.provide(K, "k")
    assert kernel.listener_count(PING) == 0


async def test_a_kernel_is_entered_once_and_has_no_context_before() -> None:
    kernel = Kernel()
    with pytest.raises(KernelClosedError):
        _ = kernel.context
    with pytest.raises(KernelClosedError):
        kernel.service_keys()
    async with kernel:
        with pytest.raises(KernelClosedError):
            await kernel.__aenter__()


async def run_failing_body(log: list[str]) -> None:
    async with Kernel() as kernel:
        kernel.context.effect(lambda: lambda: log.append("unwound"))
        raise ValueError("body failed")


async def test_an_error_in_the_block_propagates_unwrapped_after_unwinding() -> None:
    log: list[str] = []
    with pytest.raises(ValueError, match="body failed"):
        await run_failing_body(log)
    assert log == ["unwound"]


async def test_leaving_cancels_a_deferred_activation_that_hangs() -> None:
    entered = anyio.Event()

    async def hang(ctx: Context) -> None:
        entered.set()
        await anyio.sleep_forever()

    async with Kernel() as kernel:
        await kernel.context.plugin(plugin("hang", hang, inject=(K,)))
        kernel.context.provide(K, "k")
        await entered.wait()
    assert kernel.fiber_count() == 0


async def test_an_outer_cancellation_still_unwinds_the_kernel() -> None:
    log: list[str] = []
    with anyio.CancelScope() as outer:
        async with Kernel() as kernel:
            kernel.context.effect(lambda: lambda: log.append("unwound"))
            outer.cancel()
            await anyio.sleep_forever()
    assert outer.cancelled_caught
    assert log == ["unwound"]
