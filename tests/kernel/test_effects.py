"""Effects: disposer/generator bodies, LIFO sequential unwinding, rollback midway."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterator

import anyio
import anyio.lowlevel
import pytest

from dsh_lsp.kernel import (
    Context,
    EffectError,
    Kernel,
    KernelClosedError,
    PluginFailedError,
    Teardown,
)

from .support import plugin


def note(log: list[str], text: str) -> Callable[[], None]:
    return lambda: log.append(text)


def anote(log: list[str], text: str) -> Callable[[], object]:
    """An async disposer that records its start and end around a checkpoint."""

    async def undo() -> None:
        log.append(f"{text} start")
        await anyio.lowlevel.checkpoint()
        log.append(f"{text} end")

    return undo


async def test_a_body_returning_a_sync_or_async_disposer() -> None:
    log: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        sync = ctx.effect(lambda: note(log, "sync"))
        async_ = ctx.effect(lambda: anote(log, "async"))
        await sync()
        await async_()
        assert log == ["sync", "async start", "async end"]


async def test_generator_steps_unwind_newest_first() -> None:
    log: list[str] = []

    def body() -> Iterator[Teardown]:
        log.append("do 1")
        yield note(log, "undo 1")
        log.append("do 2")
        yield anote(log, "undo 2")
        log.append("do 3")
        yield note(log, "undo 3")

    async with Kernel() as kernel:
        disposer = kernel.context.effect(body)
        assert log == ["do 1", "do 2", "do 3"]
        await disposer()
    assert log[3:] == ["undo 3", "undo 2 start", "undo 2 end", "undo 1"]


async def test_a_generator_failing_midway_rolls_back_the_steps_taken_then_raises() -> None:
    log: list[str] = []

    def body() -> Iterator[Teardown]:
        yield note(log, "undo 1")
        yield note(log, "undo 2")
        raise ValueError("step 3 failed")

    async with Kernel() as kernel:
        with pytest.raises(ValueError, match="step 3 failed"):
            kernel.context.effect(body)
        assert log == ["undo 2", "undo 1"]
    assert log == ["undo 2", "undo 1"]  # nothing was adopted, so nothing runs again at exit


async def test_an_async_generator_failing_midway_awaits_each_rollback_in_turn() -> None:
    log: list[str] = []

    async def body() -> AsyncIterator[Teardown]:
        yield anote(log, "undo 1")
        await anyio.lowlevel.checkpoint()
        yield anote(log, "undo 2")
        raise ValueError("step 3 failed")

    async with Kernel() as kernel:
        with pytest.raises(ValueError, match="step 3 failed"):
            await kernel.context.aeffect(body)
    assert log == ["undo 2 start", "undo 2 end", "undo 1 start", "undo 1 end"]


async def test_an_async_generator_effect_unwinds_newest_first() -> None:
    log: list[str] = []

    async def body() -> AsyncIterator[Teardown]:
        await anyio.lowlevel.checkpoint()
        yield anote(log, "undo 1")
        yield note(log, "undo 2")

    async with Kernel() as kernel:
        disposer = await kernel.context.aeffect(body)
        assert log == []
        await disposer()
    assert log == ["undo 2", "undo 1 start", "undo 1 end"]


async def test_aeffect_awaits_the_rollback_of_a_sync_generator() -> None:
    log: list[str] = []

    def body() -> Iterator[Teardown]:
        yield anote(log, "undo 1")
        raise ValueError("late")

    async with Kernel() as kernel:
        with pytest.raises(ValueError, match="late"):
            await kernel.context.aeffect(body)
        assert log == ["undo 1 start", "undo 1 end"]


async def test_a_sync_effect_finishes_an_async_rollback_before_its_fiber_settles() -> None:
    log: list[str] = []

    def body() -> Iterator[Teardown]:
        yield anote(log, "async undo")
        yield note(log, "sync undo")
        raise ValueError("midway")

    async def apply(ctx: Context) -> None:
        ctx.effect(body)

    async with Kernel() as kernel:
        with pytest.raises(PluginFailedError):
            await kernel.context.plugin(plugin("p", apply))
        assert log == ["sync undo", "async undo start", "async undo end"]


async def test_aeffect_accepts_a_coroutine_body_returning_a_disposer() -> None:
    log: list[str] = []

    async def body() -> Teardown:
        await anyio.lowlevel.checkpoint()
        log.append("do")
        return anote(log, "undo")

    async with Kernel() as kernel:
        disposer = await kernel.context.aeffect(body)
        await disposer()
    assert log == ["do", "undo start", "undo end"]


async def test_effect_rejects_async_bodies_and_non_callable_results() -> None:
    log: list[str] = []

    async def coroutine_body() -> Teardown:
        return note(log, "never")

    def yields_garbage() -> Iterator[object]:
        yield note(log, "undo 1")
        yield 42

    async with Kernel() as kernel:
        ctx = kernel.context
        # Each call below is also a type error; these check the runtime guards behind them.
        with pytest.raises(EffectError, match="aeffect"):
            ctx.effect(coroutine_body)  # type: ignore[arg-type]
        with pytest.raises(EffectError, match="aeffect"):
            ctx.effect(lambda: coroutine_body())  # type: ignore[arg-type, return-value]
        with pytest.raises(EffectError, match="expected a disposer") as caught:
            ctx.effect(lambda: "not callable")  # type: ignore[arg-type, return-value]
        assert caught.value.code == "EFFECT_INVALID"
        with pytest.raises(EffectError, match="'int'"):
            ctx.effect(yields_garbage)  # type: ignore[arg-type]
        assert log == ["undo 1"]


async def test_sibling_effects_of_a_fiber_unwind_newest_first_one_at_a_time() -> None:
    log: list[str] = []

    def body(index: int) -> Callable[[], Teardown]:
        return lambda: anote(log, f"effect {index}")

    async def apply(ctx: Context) -> None:
        for index in (1, 2, 3):
            ctx.effect(body(index))

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("p", apply))
        await fiber.dispose()
    assert log == [
        "effect 3 start",
        "effect 3 end",
        "effect 2 start",
        "effect 2 end",
        "effect 1 start",
        "effect 1 end",
    ]


async def test_a_failing_disposer_is_logged_and_the_others_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log: list[str] = []

    def explode() -> None:
        raise RuntimeError("teardown broke")

    async def apply(ctx: Context) -> None:
        ctx.effect(lambda: note(log, "first"))
        ctx.effect(lambda: explode)
        ctx.effect(lambda: note(log, "third"))

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("p", apply))
        with caplog.at_level(logging.ERROR):
            await fiber.dispose()
    assert log == ["third", "first"]
    assert any("teardown broke" in (r.exc_text or "") or r.exc_info for r in caplog.records)
    assert any("plugin 'p'" in r.getMessage() for r in caplog.records)


async def test_one_effect_runs_all_its_steps_then_raises_the_first_failure() -> None:
    log: list[str] = []

    def fail(text: str) -> Callable[[], None]:
        def undo() -> None:
            log.append(text)
            raise RuntimeError(text)

        return undo

    def body() -> Iterator[Teardown]:
        yield note(log, "undo 1")
        yield fail("undo 2")
        yield fail("undo 3")

    async with Kernel() as kernel:
        disposer = kernel.context.effect(body)
        with pytest.raises(RuntimeError, match="undo 3"):
            await disposer()
    assert log == ["undo 3", "undo 2", "undo 1"]


async def test_aeffect_undoes_its_body_when_the_context_closes_while_it_runs() -> None:
    log: list[str] = []
    kept: list[Context] = []
    entered = anyio.Event()
    proceed = anyio.Event()

    async def apply(ctx: Context) -> None:
        kept.append(ctx)

    async def body() -> Teardown:
        entered.set()
        await proceed.wait()
        return note(log, "undone")

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("p", apply))
        outcome: list[BaseException] = []

        async def register() -> None:
            try:
                await kept[0].aeffect(body)
            except KernelClosedError as exc:
                outcome.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(register)
            await entered.wait()
            await fiber.dispose()
            proceed.set()
        assert log == ["undone"]
        assert len(outcome) == 1
