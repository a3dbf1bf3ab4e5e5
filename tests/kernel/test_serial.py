"""serial: listeners awaited in order; the first result that is not None wins."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from dsh_lsp.kernel import Disposer, Kernel, SerialEvent

DECIDE: SerialEvent[list[str], object] = SerialEvent("test/decide")


def answering(tag: str, answer: object) -> Callable[[list[str]], Awaitable[object]]:
    async def listener(trail: list[str]) -> object:
        trail.append(tag)
        return answer

    return listener


async def test_without_listeners_the_result_is_none() -> None:
    async with Kernel() as kernel:
        assert await kernel.context.serial(DECIDE, []) is None


async def test_the_first_non_none_result_bails_and_skips_the_rest() -> None:
    trail: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(DECIDE, answering("a", None))
        ctx.on(DECIDE, answering("b", "from b"))
        ctx.on(DECIDE, answering("c", "from c"))
        ctx.on(DECIDE, answering("first", None), prepend=True)
        assert await ctx.serial(DECIDE, trail) == "from b"
    assert trail == ["first", "a", "b"]


@pytest.mark.parametrize("falsy", [0, False, "", []])
async def test_falsy_results_other_than_none_bail_too(falsy: object) -> None:
    trail: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(DECIDE, answering("a", falsy))
        ctx.on(DECIDE, answering("b", "never"))
        assert await ctx.serial(DECIDE, trail) == falsy
    assert trail == ["a"]


async def test_all_none_returns_none_after_every_listener_ran() -> None:
    trail: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(DECIDE, answering("a", None))
        ctx.on(DECIDE, answering("b", None))
        assert await ctx.serial(DECIDE, trail) is None
    assert trail == ["a", "b"]


async def test_a_failing_listener_propagates_and_skips_the_rest() -> None:
    async def broken(trail: list[str]) -> object:
        raise ValueError("listener broke")

    trail: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(DECIDE, broken)
        ctx.on(DECIDE, answering("after", None))
        with pytest.raises(ValueError, match="listener broke"):
            await ctx.serial(DECIDE, trail)
    assert trail == []


async def test_listeners_added_or_removed_during_dispatch_take_effect_next_time() -> None:
    removable: list[Disposer] = []
    trail: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context

        async def churn(trail: list[str]) -> object:
            trail.append("churn")
            if removable:
                await removable.pop()()
                ctx.on(DECIDE, answering("added", None))
            return None

        ctx.on(DECIDE, churn)
        removable.append(ctx.on(DECIDE, answering("removed", None)))
        await ctx.serial(DECIDE, trail)
        await ctx.serial(DECIDE, trail)
    assert trail == ["churn", "removed", "churn", "added"]
