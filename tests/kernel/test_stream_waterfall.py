"""stream_waterfall: listeners wrap, transform, retry, replay or replace a lazy stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from dsh_lsp.kernel import Kernel, StreamWaterfallEvent

StreamNext = Callable[[], AsyncIterator[str]]
STREAM: StreamWaterfallEvent[str, str] = StreamWaterfallEvent("test/stream")


class Source:
    """The innermost stream: counts how often it is opened; can fail its first openings."""

    def __init__(self, chunks: list[str], *, failures: int = 0) -> None:
        self.chunks = chunks
        self.failures = failures
        self.opened = 0

    async def stream(self) -> AsyncIterator[str]:
        self.opened += 1
        if self.opened <= self.failures:
            raise ConnectionError(f"attempt {self.opened} failed")
        for chunk in self.chunks:
            yield chunk


async def collect(stream: AsyncIterator[str]) -> list[str]:
    return [chunk async for chunk in stream]


async def drain_into(stream: AsyncIterator[str], seen: list[str]) -> None:
    async for chunk in stream:
        seen.append(chunk)


async def upper(prompt: str, next: StreamNext) -> AsyncIterator[str]:
    async for chunk in next():
        yield chunk.upper()


async def numbered(prompt: str, next: StreamNext) -> AsyncIterator[str]:
    index = 0
    async for chunk in next():
        index += 1
        yield f"{index}:{chunk}"


async def test_without_listeners_the_inner_stream_is_returned() -> None:
    source = Source(["a", "b"])
    async with Kernel() as kernel:
        assert await collect(kernel.context.stream_waterfall(STREAM, "p", source.stream)) == [
            "a",
            "b",
        ]


async def test_transforming_listeners_compose_outermost_first() -> None:
    source = Source(["a", "b"])
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(STREAM, numbered)
        ctx.on(STREAM, upper)
        assert await collect(ctx.stream_waterfall(STREAM, "p", source.stream)) == ["1:A", "2:B"]


async def test_nothing_runs_until_the_stream_is_iterated() -> None:
    source = Source(["a"])
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(STREAM, upper)
        stream = ctx.stream_waterfall(STREAM, "p", source.stream)
        assert source.opened == 0
        assert await collect(stream) == ["A"]
        assert source.opened == 1


async def test_a_retry_listener_reopens_the_downstream_before_the_first_chunk() -> None:
    async def retry(prompt: str, next: StreamNext) -> AsyncIterator[str]:
        for attempt in range(3):
            produced = False
            try:
                async for chunk in next():
                    produced = True
                    yield chunk
                return
            except ConnectionError:
                if produced or attempt == 2:
                    raise

    source = Source(["a", "b"], failures=2)
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(STREAM, retry)
        ctx.on(STREAM, upper)  # downstream of the retry: re-run on every attempt
        assert await collect(ctx.stream_waterfall(STREAM, "p", source.stream)) == ["A", "B"]
    assert source.opened == 3


async def test_a_replay_listener_serves_a_recorded_stream_without_calling_next() -> None:
    cache: dict[str, list[str]] = {}

    async def replay(prompt: str, next: StreamNext) -> AsyncIterator[str]:
        if prompt in cache:
            for chunk in cache[prompt]:
                yield chunk
            return
        recorded: list[str] = []
        async for chunk in next():
            recorded.append(chunk)
            yield chunk
        cache[prompt] = recorded

    source = Source(["a", "b"])
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(STREAM, replay)
        first = await collect(ctx.stream_waterfall(STREAM, "p", source.stream))
        second = await collect(ctx.stream_waterfall(STREAM, "p", source.stream))
    assert first == second == ["a", "b"]
    assert source.opened == 1


async def test_a_failing_listener_surfaces_from_iteration() -> None:
    async def broken(prompt: str, next: StreamNext) -> AsyncIterator[str]:
        async for chunk in next():
            yield chunk
            raise ValueError("listener broke after one chunk")

    source = Source(["a", "b"])
    seen: list[str] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        ctx.on(STREAM, broken)
        with pytest.raises(ValueError, match="after one chunk"):
            await drain_into(ctx.stream_waterfall(STREAM, "p", source.stream), seen)
    assert seen == ["a"]


async def test_the_listener_list_is_snapshotted_when_the_stream_is_made() -> None:
    source = Source(["a"])
    async with Kernel() as kernel:
        ctx = kernel.context
        stream = ctx.stream_waterfall(STREAM, "p", source.stream)
        ctx.on(STREAM, upper)
        assert await collect(stream) == ["a"]
        assert await collect(ctx.stream_waterfall(STREAM, "p", source.stream)) == ["A"]
