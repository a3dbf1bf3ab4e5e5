"""waterfall: around-middleware with next() bound to its position and callable at most once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from dsh_lsp.kernel import Context, Disposer, Kernel, WaterfallEvent, WaterfallMisuseError

from .support import plugin


@dataclass
class Request:
    text: str
    trail: list[str] = field(default_factory=list)


Next = Callable[[], Awaitable[str]]
REQUEST: WaterfallEvent[Request, str] = WaterfallEvent("test/request")


def inner_for(request: Request) -> Callable[[], Awaitable[str]]:
    async def inner() -> str:
        request.trail.append("inner")
        return f"answer to {request.text}"

    return inner


def wrapping(tag: str) -> Callable[[Request, Next], Awaitable[str]]:
    async def listener(request: Request, next: Next) -> str:
        request.trail.append(tag)
        return f"{tag}({await next()})"

    return listener


async def test_without_listeners_the_inner_result_is_returned() -> None:
    request = Request("q")
    async with Kernel() as kernel:
        assert await kernel.context.waterfall(REQUEST, request, inner_for(request)) == "answer to q"


async def test_values_flow_back_through_next_in_registration_order_prepend_outermost() -> None:
    request = Request("q")
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(REQUEST, wrapping("a"))
        ctx.on(REQUEST, wrapping("b"))
        ctx.on(REQUEST, wrapping("outer"), prepend=True)
        result = await ctx.waterfall(REQUEST, request, inner_for(request))
    assert result == "outer(a(b(answer to q)))"
    assert request.trail == ["outer", "a", "b", "inner"]


async def test_a_listener_mutates_the_payload_then_delegates() -> None:
    async def rewrite(request: Request, next: Next) -> str:
        request.text = request.text.upper()
        return await next()

    request = Request("q")
    async with Kernel() as kernel:
        kernel.context.on(REQUEST, rewrite)
        assert await kernel.context.waterfall(REQUEST, request, inner_for(request)) == "answer to Q"


async def test_returning_without_next_short_circuits_the_rest_and_inner() -> None:
    async def veto(request: Request, next: Next) -> str:
        request.trail.append("veto")
        return "vetoed"

    request = Request("q")
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(REQUEST, wrapping("a"))
        ctx.on(REQUEST, veto)
        ctx.on(REQUEST, wrapping("never"))
        result = await ctx.waterfall(REQUEST, request, inner_for(request))
    assert result == "a(vetoed)"
    assert request.trail == ["a", "veto"]


async def test_calling_next_twice_raises_misuse_naming_the_listener_owner() -> None:
    async def greedy(request: Request, next: Next) -> str:
        first = await next()
        return first + await next()

    async def apply(ctx: Context) -> None:
        ctx.on(REQUEST, greedy)

    request = Request("q")
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(plugin("greedy", apply))
        with pytest.raises(WaterfallMisuseError, match="plugin 'greedy'") as caught:
            await ctx.waterfall(REQUEST, request, inner_for(request))
        assert caught.value.code == "WATERFALL_MISUSE"
    assert request.trail == ["inner"]


async def test_a_failing_listener_propagates_to_the_dispatcher() -> None:
    async def broken(request: Request, next: Next) -> str:
        raise ValueError("listener broke")

    request = Request("q")
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(REQUEST, wrapping("a"))
        ctx.on(REQUEST, broken)
        with pytest.raises(ValueError, match="listener broke"):
            await ctx.waterfall(REQUEST, request, inner_for(request))
    assert request.trail == ["a"]


async def test_an_outer_listener_can_recover_from_a_downstream_failure() -> None:
    async def recover(request: Request, next: Next) -> str:
        try:
            return await next()
        except ValueError:
            return "fallback"

    async def failing_inner() -> str:
        raise ValueError("inner broke")

    async with Kernel() as kernel:
        kernel.context.on(REQUEST, recover)
        assert await kernel.context.waterfall(REQUEST, Request("q"), failing_inner) == "fallback"


async def test_listeners_added_or_removed_during_dispatch_take_effect_next_time() -> None:
    request = Request("q")
    removable: list[Disposer] = []
    async with Kernel() as kernel:
        ctx = kernel.context

        async def churn(request: Request, next: Next) -> str:
            request.trail.append("churn")
            if removable:
                await removable.pop()()
                ctx.on(REQUEST, wrapping("added"))
            return await next()

        ctx.on(REQUEST, churn)
        removable.append(ctx.on(REQUEST, wrapping("removed")))
        first = await ctx.waterfall(REQUEST, request, inner_for(request))
        second = await ctx.waterfall(REQUEST, request, inner_for(request))
    assert first == "removed(answer to q)"
    assert second == "added(answer to q)"
    assert request.trail == ["churn", "removed", "inner", "churn", "added", "inner"]
