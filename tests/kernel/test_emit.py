"""emit and emit_contained: synchronous, ordered, propagating or contained, snapshotted."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import pytest

from dsh_lsp.kernel import Context, EmitEvent, Kernel, ListenerError

from .support import plugin

SAID: EmitEvent[str] = EmitEvent("test/said")


async def test_listeners_run_in_registration_order_with_prepend_first() -> None:
    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(SAID, lambda p: log.append(f"a:{p}"))
        ctx.on(SAID, lambda p: log.append(f"b:{p}"))
        ctx.on(SAID, lambda p: log.append(f"first:{p}"), prepend=True)
        ctx.emit(SAID, "x")
    assert log == ["first:x", "a:x", "b:x"]


async def test_return_values_are_ignored() -> None:
    counts: dict[str, int] = {}
    async with Kernel() as kernel:
        ctx = kernel.context
        # A listener that returns a value is a type error, but the bus must still ignore it.
        ctx.on(SAID, lambda p: counts.setdefault(p, 1))  # type: ignore[arg-type]
        ctx.emit(SAID, "x")
    assert counts == {"x": 1}


class AsyncCallable:
    async def __call__(self, payload: str) -> None:
        """An object whose call is a coroutine."""


async def test_coroutine_listeners_are_rejected_at_registration() -> None:
    async def coroutine(payload: str) -> None:
        """Never registered."""

    async with Kernel() as kernel:
        ctx = kernel.context
        # Both registrations are type errors too; these check the runtime guard behind them.
        with pytest.raises(ListenerError, match="coroutine") as caught:
            ctx.on(SAID, coroutine)  # type: ignore[arg-type]
        assert caught.value.code == "LISTENER_INVALID"
        with pytest.raises(ListenerError):
            ctx.on(SAID, AsyncCallable())  # type: ignore[arg-type]
        assert kernel.listener_count(SAID) == 0


async def test_a_listener_returning_an_awaitable_is_rejected_without_leaking_it() -> None:
    async def coroutine(payload: str) -> None:
        """Would be left un-awaited if the bus did not close it."""

    sneaky: Callable[[str], Awaitable[None]] = lambda p: coroutine(p)  # noqa: E731
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(SAID, sneaky)  # type: ignore[arg-type]  # deliberately wrong, for the runtime check
        with pytest.raises(ListenerError, match="awaitable"):
            ctx.emit(SAID, "x")


async def test_a_failing_listener_propagates_and_skips_the_rest() -> None:
    log: list[str] = []

    def fail(payload: str) -> None:
        raise ValueError("listener broke")

    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(SAID, log.append)
        ctx.on(SAID, fail)
        ctx.on(SAID, lambda p: log.append("after"))
        with pytest.raises(ValueError, match="listener broke"):
            ctx.emit(SAID, "x")
    assert log == ["x"]


async def test_emit_contained_logs_each_failure_and_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log: list[str] = []

    def fail(payload: str) -> None:
        raise ValueError("listener broke")

    async def apply(ctx: Context) -> None:
        ctx.on(SAID, fail)

    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(SAID, log.append)
        await ctx.plugin(plugin("faulty", apply))
        ctx.on(SAID, lambda p: log.append("after"))
        with caplog.at_level(logging.ERROR):
            ctx.emit_contained(SAID, "x")
    assert log == ["x", "after"]
    (record,) = caplog.records
    assert "plugin 'faulty'" in record.getMessage()
    assert "'test/said'" in record.getMessage()
    assert record.exc_info is not None


async def test_a_listener_added_during_dispatch_runs_from_the_next_dispatch() -> None:
    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context

        def add_another(payload: str) -> None:
            log.append(f"adder:{payload}")
            if payload == "first":
                ctx.on(SAID, lambda p: log.append(f"added:{p}"))

        ctx.on(SAID, add_another)
        ctx.emit(SAID, "first")
        ctx.emit(SAID, "second")
    assert log == ["adder:first", "adder:second", "added:second"]


async def test_a_disposed_listener_is_no_longer_called() -> None:
    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        disposer = ctx.on(SAID, log.append)
        assert kernel.listener_count(SAID) == 1
        await disposer()
        ctx.emit(SAID, "x")
        assert kernel.listener_count(SAID) == 0
    assert log == []


async def test_the_same_function_registered_twice_is_removed_one_registration_at_a_time() -> None:
    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        first = ctx.on(SAID, log.append)
        ctx.on(SAID, log.append)
        await first()
        ctx.emit(SAID, "x")
    assert log == ["x"]
