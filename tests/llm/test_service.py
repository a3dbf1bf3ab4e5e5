"""LlmService: the adapter registry and the llm/stream waterfall, inside a real kernel."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from dsh_lsp.kernel import Context, Plugin, PluginFailedError, ServiceConflictError
from dsh_lsp.llm import (
    LLM,
    LLM_STREAM,
    FinishChunk,
    FinishStop,
    LlmCode,
    LlmError,
    LlmPlugin,
    LlmRequest,
    LlmService,
    StreamChunk,
    TextDelta,
    assemble,
)
from tests.llm.kernel_support import llm_kernel


class ScriptedAdapter:
    """A model stand-in that answers every call with one text delta naming itself."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.calls: list[LlmRequest] = []

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.calls.append(request)
        yield TextDelta(index=0, text=self.label)
        yield FinishChunk(reason=FinishStop())


def request(model: str) -> LlmRequest:
    return LlmRequest(model=model, messages=())


async def text_of(stream: AsyncIterator[StreamChunk]) -> str:
    result = await assemble(stream)
    return "".join(getattr(block, "text", "") for block in result.message.content)


async def test_llm_plugin_provides_the_service() -> None:
    async with llm_kernel() as (ctx, llm):
        assert ctx.require(LLM) is llm
        assert isinstance(llm, LlmService)
        with pytest.raises(PluginFailedError) as caught:
            await ctx.plugin(LlmPlugin())
        assert isinstance(caught.value.__cause__, ServiceConflictError)


async def test_requests_route_to_the_adapter_of_their_model() -> None:
    async with llm_kernel() as (ctx, llm):
        flash, pro = ScriptedAdapter("flash"), ScriptedAdapter("pro")
        llm.register_adapter(ctx, ["m-flash", "m-flash-2"], flash)
        llm.register_adapter(ctx, ["m-pro"], pro)
        assert llm.models() == ("m-flash", "m-flash-2", "m-pro")
        assert await text_of(llm.stream(request("m-pro"))) == "pro"
        assert await text_of(llm.stream(request("m-flash-2"))) == "flash"
        assert [r.model for r in flash.calls] == ["m-flash-2"]


async def test_unknown_model_fails_lazily_with_no_adapter() -> None:
    async with llm_kernel() as (ctx, llm):
        llm.register_adapter(ctx, ["known"], ScriptedAdapter("k"))
        stream = llm.stream(request("unknown"))  # nothing runs yet
        with pytest.raises(LlmError) as caught:
            await anext(stream)
        assert caught.value.code == LlmCode.NO_ADAPTER
        assert "'unknown'" in str(caught.value)
        assert "known" in str(caught.value)


async def test_duplicate_models_are_rejected_atomically() -> None:
    async with llm_kernel() as (ctx, llm):
        llm.register_adapter(ctx, ["a"], ScriptedAdapter("first"))
        with pytest.raises(LlmError) as caught:
            llm.register_adapter(ctx, ["b", "a"], ScriptedAdapter("second"))
        assert caught.value.code == LlmCode.DUPLICATE_ADAPTER
        assert "'a'" in str(caught.value)
        with pytest.raises(LlmError, match="'c'"):
            llm.register_adapter(ctx, ["c", "c"], ScriptedAdapter("third"))
        assert llm.models() == ("a",)


async def test_registration_is_undone_by_its_disposer_and_with_its_plugin() -> None:
    adapter = ScriptedAdapter("x")

    class AdapterPlugin(Plugin[None]):
        name = "adapter"
        inject = (LLM,)

        async def apply(self, ctx: Context, config: None) -> None:
            ctx.require(LLM).register_adapter(ctx, ["plugged"], adapter)

    async with llm_kernel() as (ctx, llm):
        dispose = llm.register_adapter(ctx, ["direct"], adapter)
        fiber = await ctx.plugin(AdapterPlugin())
        assert llm.models() == ("direct", "plugged")
        await dispose()
        await fiber.dispose()
        assert llm.models() == ()
        llm.register_adapter(ctx, ["plugged"], ScriptedAdapter("again"))


async def test_stream_listeners_wrap_and_short_circuit() -> None:
    async with llm_kernel() as (ctx, llm):
        adapter = ScriptedAdapter("model")
        llm.register_adapter(ctx, ["m"], adapter)

        async def shout(
            payload: LlmRequest, next: Callable[[], AsyncIterator[StreamChunk]]
        ) -> AsyncIterator[StreamChunk]:
            async for chunk in next():
                if isinstance(chunk, TextDelta):
                    chunk = TextDelta(index=chunk.index, text=chunk.text.upper())
                yield chunk

        dispose = ctx.on(LLM_STREAM, shout)
        assert await text_of(llm.stream(request("m"))) == "MODEL"
        await dispose()

        async def replay(
            payload: LlmRequest, next: Callable[[], AsyncIterator[StreamChunk]]
        ) -> AsyncIterator[StreamChunk]:
            yield TextDelta(index=0, text=f"recorded for {payload.model}")
            yield FinishChunk(reason=FinishStop())

        ctx.on(LLM_STREAM, replay)
        assert await text_of(llm.stream(request("no-adapter-needed"))) == (
            "recorded for no-adapter-needed"
        )
        assert len(adapter.calls) == 1


async def test_a_retry_listener_can_open_the_downstream_again() -> None:
    async with llm_kernel() as (ctx, llm):
        attempts: list[int] = []

        class Flaky:
            async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
                attempts.append(1)
                if len(attempts) == 1:
                    raise LlmError("blip", code=LlmCode.SERVER)
                yield TextDelta(index=0, text="second")

        llm.register_adapter(ctx, ["m"], Flaky())

        async def retry_once(
            payload: LlmRequest, next: Callable[[], AsyncIterator[StreamChunk]]
        ) -> AsyncIterator[StreamChunk]:
            try:
                async for chunk in next():
                    yield chunk
            except LlmError:
                async for chunk in next():
                    yield chunk

        ctx.on(LLM_STREAM, retry_once)
        assert await text_of(llm.stream(request("m"))) == "second"
        assert len(attempts) == 2
