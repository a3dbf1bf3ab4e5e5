"""Plugins and fibers: config validation, inject gating, reactivation, failure, quiescence."""

from __future__ import annotations

import logging

import anyio
import anyio.lowlevel
import pydantic
import pytest

from dsh_lsp.kernel import (
    Context,
    EmitEvent,
    Fiber,
    FiberState,
    Kernel,
    KernelClosedError,
    Plugin,
    PluginConfigError,
    PluginFailedError,
)

from .support import K, M, nothing, plugin, state

PING: EmitEvent[str] = EmitEvent("test/ping")


class Endpoint(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    url: str = "http://localhost"
    timeout: float = 30.0


class LlmConfig(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    api_key: str
    endpoint: Endpoint = Endpoint()


class LlmPlugin(Plugin[LlmConfig]):
    name = "llm"
    config_model = LlmConfig

    def __init__(self) -> None:
        self.seen: list[LlmConfig] = []

    async def apply(self, ctx: Context, config: LlmConfig) -> None:
        self.seen.append(config)


async def test_config_is_validated_by_the_model_and_handed_to_apply() -> None:
    llm = LlmPlugin()
    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(llm, {"api_key": "k", "endpoint": {"timeout": 5}})
        assert fiber.state is FiberState.ACTIVE
    assert llm.seen == [LlmConfig(api_key="k", endpoint=Endpoint(timeout=5))]


async def test_invalid_config_names_plugin_and_fields_and_never_the_values() -> None:
    secret = "sk-very-secret"
    async with Kernel() as kernel:
        with pytest.raises(PluginConfigError) as caught:
            await kernel.context.plugin(
                LlmPlugin(), {"api_key": 42, "endpoint": {"timeout": secret}}
            )
        err = caught.value
        assert err.code == "PLUGIN_CONFIG"
        assert err.plugin == "llm"
        assert err.fields == ("api_key", "endpoint.timeout")
        assert "'llm'" in str(err)
        assert "'endpoint.timeout'" in str(err)
        assert secret not in str(err)
        assert err.__cause__ is None
        assert err.__suppress_context__
        assert kernel.fiber_count() == 0


async def test_a_missing_config_validates_as_empty() -> None:
    async with Kernel() as kernel:
        with pytest.raises(PluginConfigError) as caught:
            await kernel.context.plugin(LlmPlugin())
        assert caught.value.fields == ("api_key",)


async def test_a_plugin_without_config_model_rejects_a_config() -> None:
    async with Kernel() as kernel:
        with pytest.raises(PluginConfigError, match="takes no config"):
            await kernel.context.plugin(plugin("bare", nothing), {"x": 1})


class HandRolled:
    """A validator that is not pydantic: raises a plain error without ``errors()``."""

    @classmethod
    def model_validate(cls, obj: object) -> HandRolled:
        raise ValueError("nope")


class HandRolledPlugin(Plugin[HandRolled]):
    config_model = HandRolled

    async def apply(self, ctx: Context, config: HandRolled) -> None:
        raise AssertionError("never applied")


async def test_an_unstructured_validator_error_is_chained() -> None:
    async with Kernel() as kernel:
        with pytest.raises(PluginConfigError, match="HandRolledPlugin") as caught:
            await kernel.context.plugin(HandRolledPlugin)
        assert caught.value.fields == ()
        assert isinstance(caught.value.__cause__, ValueError)


async def test_a_plugin_waits_for_its_injected_services_then_applies() -> None:
    seen: list[str] = []

    async def apply(ctx: Context) -> None:
        seen.append(ctx.require(K) + ctx.require(M))

    async with Kernel() as kernel:
        ctx = kernel.context
        fiber = await ctx.plugin(plugin("gated", apply, inject=(K, M)))
        assert fiber.state is FiberState.PENDING
        ctx.provide(K, "k")
        await kernel.wait_settled()
        assert fiber.state is FiberState.PENDING
        ctx.provide(M, "m")
        assert await fiber.wait_settled() is FiberState.ACTIVE
        assert seen == ["km"]


async def test_a_fiber_unloads_when_a_service_goes_and_reapplies_when_it_returns() -> None:
    contexts: list[Context] = []
    heard: list[str] = []

    async def apply(ctx: Context) -> None:
        contexts.append(ctx)
        ctx.on(PING, heard.append)

    async with Kernel() as kernel:
        root = kernel.context
        withdraw = root.provide(K, "k")
        fiber = await root.plugin(plugin("dependent", apply, inject=(K,)))
        await withdraw()
        assert fiber.state is FiberState.PENDING
        assert kernel.listener_count(PING) == 0
        assert contexts[0].closed
        root.provide(K, "back")
        assert await fiber.wait_settled() is FiberState.ACTIVE
        assert len(contexts) == 2
        assert not contexts[1].closed
        root.emit(PING, "hello")
        assert heard == ["hello"]


async def test_a_failing_apply_is_reported_to_its_awaiter_only_and_undone() -> None:
    heard: list[str] = []

    async def sibling(ctx: Context) -> None:
        ctx.on(PING, heard.append)

    async def broken(ctx: Context) -> None:
        ctx.provide(K, "half")
        ctx.on(PING, heard.append)
        raise RuntimeError("apply broke")

    async with Kernel() as kernel:
        ctx = kernel.context
        before = await ctx.plugin(plugin("before", sibling))
        with pytest.raises(PluginFailedError) as caught:
            await ctx.plugin(plugin("broken", broken))
        after = await ctx.plugin(plugin("after", sibling))
        err = caught.value
        assert err.code == "PLUGIN_FAILED"
        assert isinstance(err.__cause__, RuntimeError)
        assert err.plugin == "broken"
        assert err.fiber.state is FiberState.FAILED
        assert err.fiber.error is err.__cause__
        assert kernel.service_keys() == frozenset()
        assert (before.state, after.state) == (FiberState.ACTIVE, FiberState.ACTIVE)
        ctx.emit(PING, "x")
        assert heard == ["x", "x"]
        await err.fiber.dispose()
        assert state(err.fiber) is FiberState.DISPOSED


async def test_a_deferred_apply_failure_is_logged_not_raised_to_the_provider(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(ctx: Context) -> None:
        raise RuntimeError("late failure")

    async with Kernel() as kernel:
        ctx = kernel.context
        bad = await ctx.plugin(plugin("bad", broken, inject=(K,)))
        good = await ctx.plugin(plugin("good", nothing, inject=(K,)))
        with caplog.at_level(logging.ERROR):
            ctx.provide(K, "k")
            await kernel.wait_settled()
        assert bad.state is FiberState.FAILED
        assert isinstance(bad.error, RuntimeError)
        assert good.state is FiberState.ACTIVE
        assert any("plugin 'bad'" in record.getMessage() for record in caplog.records)


async def test_a_failed_fiber_retries_when_its_service_comes_back() -> None:
    attempts: list[str] = []

    async def flaky(ctx: Context) -> None:
        attempts.append(ctx.require(K))
        if len(attempts) == 1:
            raise RuntimeError("first attempt fails")

    async with Kernel() as kernel:
        ctx = kernel.context
        withdraw = ctx.provide(K, "one")
        with pytest.raises(PluginFailedError):
            await ctx.plugin(plugin("flaky", flaky, inject=(K,)))
        await withdraw()
        ctx.provide(K, "two")
        await kernel.wait_settled()
        assert attempts == ["one", "two"]


async def test_dispose_returns_only_after_background_tasks_finished() -> None:
    running = anyio.Event()
    stopped: list[str] = []

    async def worker() -> None:
        running.set()
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.lowlevel.checkpoint()  # cleanup that takes a while
                stopped.append("stopped")

    async def apply(ctx: Context) -> None:
        ctx.start_soon(worker)

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("worker", apply))
        await running.wait()
        assert kernel.task_count() == 1
        await fiber.dispose()
        assert stopped == ["stopped"]
        assert kernel.task_count() == 0


async def test_a_failing_background_task_is_logged_and_harms_nobody(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def crash() -> None:
        raise RuntimeError("task crashed")

    async def apply(ctx: Context) -> None:
        ctx.start_soon(crash, name="crasher")

    async with Kernel() as kernel:
        with caplog.at_level(logging.ERROR):
            fiber = await kernel.context.plugin(plugin("p", apply))
            while kernel.task_count():
                await anyio.lowlevel.checkpoint()
        assert fiber.state is FiberState.ACTIVE
        assert any("crasher" in record.getMessage() for record in caplog.records)


async def test_child_fibers_are_disposed_with_their_parent() -> None:
    children: list[object] = []

    async def parent(ctx: Context) -> None:
        children.append(await ctx.plugin(plugin("child", nothing)))

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("parent", parent))
        assert kernel.fiber_count() == 2
        await fiber.dispose()
        assert kernel.fiber_count() == 0
        assert repr(children[0]) == "<Fiber 'child' disposed>"


async def test_a_disposed_pending_fiber_never_applies() -> None:
    applied: list[str] = []

    async def apply(ctx: Context) -> None:
        applied.append("applied")

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("late", apply, inject=(K,)))
        await fiber.dispose()
        kernel.context.provide(K, "k")
        await kernel.wait_settled()
        assert fiber.state is FiberState.DISPOSED
        assert applied == []


async def test_disposing_cancels_a_deferred_apply_that_is_still_running() -> None:
    entered = anyio.Event()
    heard: list[str] = []

    async def slow(ctx: Context) -> None:
        ctx.on(PING, heard.append)
        entered.set()
        await anyio.sleep_forever()

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("slow", slow, inject=(K,)))
        kernel.context.provide(K, "k")
        await entered.wait()
        assert fiber.state is FiberState.LOADING
        await fiber.dispose()
        assert state(fiber) is FiberState.DISPOSED
        assert kernel.listener_count(PING) == 0


async def test_withdrawing_a_service_aborts_an_apply_awaited_inline() -> None:
    entered = anyio.Event()
    heard: list[str] = []
    attempts: list[str] = []

    async def slow_once(ctx: Context) -> None:
        attempts.append(ctx.require(K))
        ctx.on(PING, heard.append)
        if len(attempts) == 1:
            entered.set()
            await anyio.sleep_forever()

    async with Kernel() as kernel:
        ctx = kernel.context
        withdraw = ctx.provide(K, "one")
        loaded: list[Fiber] = []

        async def load() -> None:
            loaded.append(await ctx.plugin(plugin("slow", slow_once, inject=(K,))))

        async with anyio.create_task_group() as tg:
            tg.start_soon(load)
            await entered.wait()
            await withdraw()
        (fiber,) = loaded
        assert fiber.state is FiberState.PENDING
        assert kernel.listener_count(PING) == 0
        ctx.provide(K, "two")
        assert await fiber.wait_settled() is FiberState.ACTIVE
        assert attempts == ["one", "two"]


async def test_dispose_is_single_shot_for_concurrent_callers() -> None:
    undone: list[str] = []

    async def apply(ctx: Context) -> None:
        ctx.effect(lambda: lambda: undone.append("undone"))

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("p", apply))
        async with anyio.create_task_group() as tg:
            tg.start_soon(fiber.dispose)
            tg.start_soon(fiber.dispose)
        await fiber.dispose()
        assert undone == ["undone"]


async def test_a_plugin_without_a_name_is_named_after_its_class() -> None:
    class Unnamed(Plugin[None]):
        async def apply(self, ctx: Context, config: None) -> None:
            assert ctx.owner == "plugin 'Unnamed'"
            assert ctx.fiber is not None
            assert ctx.fiber.name == "Unnamed"

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(Unnamed)
        assert fiber.state is FiberState.ACTIVE


async def test_registering_through_an_unloaded_context_raises() -> None:
    kept: list[Context] = []

    async def apply(ctx: Context) -> None:
        kept.append(ctx)

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("p", apply))
        await fiber.dispose()
        (ctx,) = kept
        assert ctx.closed
        with pytest.raises(KernelClosedError, match="plugin 'p'"):
            await ctx.plugin(plugin("q", nothing))
        with pytest.raises(KernelClosedError):
            ctx.provide(K, "k")
        with pytest.raises(KernelClosedError):
            ctx.start_soon(anyio.lowlevel.checkpoint)
        with pytest.raises(KernelClosedError):
            ctx.effect(lambda: lambda: None)
        with pytest.raises(KernelClosedError):
            await ctx.aeffect(lambda: lambda: None)
