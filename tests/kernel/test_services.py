"""Services: typed lookup, conflicts naming both owners, removal cascading to dependents."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from dsh_lsp.kernel import (
    Context,
    FiberState,
    Kernel,
    ServiceConflictError,
    ServiceKey,
    ServiceMissingError,
)

from .support import K, M, plugin, state


async def test_provide_get_and_require() -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        assert ctx.get(K) is None
        with pytest.raises(ServiceMissingError, match="'k'") as caught:
            ctx.require(K)
        assert caught.value.code == "SERVICE_MISSING"
        disposer = ctx.provide(K, "value")
        assert ctx.get(K) == "value"
        assert ctx.require(K) == "value"
        assert kernel.service_keys() == {"k"}
        await disposer()
        assert ctx.get(K) is None
        assert kernel.service_keys() == frozenset()


async def test_keys_with_the_same_name_address_the_same_slot() -> None:
    other: ServiceKey[str] = ServiceKey("k")
    async with Kernel() as kernel:
        kernel.context.provide(K, "value")
        assert kernel.context.get(other) == "value"


async def test_a_second_provider_is_rejected_naming_the_key_and_both_owners() -> None:
    async def provide(ctx: Context) -> None:
        ctx.provide(K, "from plugin")

    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(plugin("first", provide))
        with pytest.raises(ServiceConflictError) as caught:
            ctx.provide(K, "from root")
        message = str(caught.value)
        assert "'k'" in message
        assert "plugin 'first'" in message
        assert "the kernel" in message
        assert caught.value.code == "SERVICE_CONFLICT"
        assert ctx.require(K) == "from plugin"


async def test_replacement_is_dispose_then_provide() -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        first = ctx.provide(K, "old")
        await first()
        ctx.provide(K, "new")
        assert ctx.require(K) == "new"


async def test_disposing_a_fiber_withdraws_the_services_it_provides() -> None:
    async def provide(ctx: Context) -> None:
        ctx.provide(K, "value")

    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(plugin("provider", provide))
        assert kernel.service_keys() == {"k"}
        await fiber.dispose()
        assert kernel.service_keys() == frozenset()


async def test_withdrawing_a_service_unloads_its_dependents_first_and_awaits_them() -> None:
    seen_during_unload: list[str | None] = []

    async def dependent(ctx: Context) -> None:
        async def undo() -> None:
            await anyio.lowlevel.checkpoint()
            seen_during_unload.append(ctx.get(K))

        ctx.effect(lambda: undo)

    async with Kernel() as kernel:
        ctx = kernel.context
        withdraw = ctx.provide(K, "value")
        fiber = await ctx.plugin(plugin("dependent", dependent, inject=(K,)))
        assert fiber.state is FiberState.ACTIVE
        await withdraw()
        assert seen_during_unload == ["value"]  # still there while dependents unload
        assert state(fiber) is FiberState.PENDING
        assert kernel.service_keys() == frozenset()


async def test_removal_cascades_through_a_chain_of_dependents_innermost_first() -> None:
    order: list[str] = []

    async def middle(ctx: Context) -> None:
        ctx.effect(lambda: lambda: order.append("middle unloaded"))
        ctx.provide(M, "m")  # newer than the effect: withdrawn (unloading leaf) before it runs

    async def leaf(ctx: Context) -> None:
        ctx.effect(lambda: lambda: order.append("leaf unloaded"))

    async with Kernel() as kernel:
        ctx = kernel.context
        withdraw = ctx.provide(K, "k")
        mid = await ctx.plugin(plugin("middle", middle, inject=(K,)))
        end = await ctx.plugin(plugin("leaf", leaf, inject=(M,)))
        assert (mid.state, end.state) == (FiberState.ACTIVE, FiberState.ACTIVE)
        await withdraw()
        assert order == ["leaf unloaded", "middle unloaded"]
        assert (state(mid), state(end)) == (FiberState.PENDING, FiberState.PENDING)
        assert kernel.service_keys() == frozenset()

        ctx.provide(K, "k again")
        await kernel.wait_settled()
        assert (mid.state, end.state) == (FiberState.ACTIVE, FiberState.ACTIVE)
