"""DeepSeekAdapter keep-alive: the body is drained after [DONE] so calls share one connection."""

from __future__ import annotations

import anyio
import anyio.to_thread
import pytest

from dsh_lsp.llm import FinishChunk, FinishStop, FinishToolCalls, StreamChunk, TextDelta
from dsh_lsp.llm.deepseek import DrainBudget
from dsh_lsp.testing import (
    Disconnect,
    Raw,
    ScriptedServer,
    Stall,
    StreamResponse,
    ToolCallSpec,
    completion,
    error,
    wire_usage,
)
from tests.llm.deepseek.fakes import REQUEST, FakeClock, MakeAdapter, collect

SILENCE = completion(text="then silence")


def text(chunks: list[StreamChunk]) -> str:
    return "".join(chunk.text for chunk in chunks if isinstance(chunk, TextDelta))


STALL_AFTER_DONE = StreamResponse(steps=(*SILENCE.steps, Stall()))
"""A whole answer, [DONE] included, whose body then never ends."""
FINISH_KINDS = ("block-end", "usage", "finish")
"""The chunks ``translator.finish()`` yields once the stream is complete."""


def clients(server: ScriptedServer) -> list[tuple[str, int]]:
    return [request.client for request in server.requests]


@pytest.mark.parametrize(
    "answer",
    [
        completion(text="plain text"),
        completion(
            reasoning="think",
            tool_calls=[ToolCallSpec(id="c", name="read", arguments='{"path":"a"}')],
            usage=wire_usage(prompt=10, completion=5, cached=2),
            usage_in_trailing_chunk=True,
        ),
        StreamResponse(steps=(*completion(text="a comment follows").steps, Raw(text=": bye\n\n"))),
    ],
    ids=["text", "tool-call-trailing-usage", "comment-after-done"],
)
async def test_sequential_calls_share_one_connection(
    server: ScriptedServer, make_adapter: MakeAdapter, answer: StreamResponse
) -> None:
    server.enqueue(answer, answer, answer)
    adapter = make_adapter()
    finishes = [(await collect(adapter))[-1] for _ in range(3)]
    assert all(isinstance(finish, FinishChunk) for finish in finishes)
    first, second, third = clients(server)
    assert first == second == third
    assert server.disconnects == 0


async def test_a_retried_error_response_keeps_the_connection(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    server.enqueue(error(503, "busy"), completion(text="ok"), completion(text="again"))
    adapter = make_adapter()
    await collect(adapter)
    await collect(adapter)
    assert len(clock.sleeps) == 1
    assert len(set(clients(server))) == 1


async def test_a_stall_after_done_is_bounded_and_the_next_call_works(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    server.enqueue(STALL_AFTER_DONE, completion(text="next"), completion(text="and next"))
    adapter = make_adapter(drain=DrainBudget(seconds=0.05))
    with anyio.fail_after(10):
        chunks = await collect(adapter)
    assert chunks[-1] == FinishChunk(reason=FinishStop())
    assert await anyio.to_thread.run_sync(server.wait_for_disconnect, 10.0)
    await collect(adapter)
    await collect(adapter)
    stalled, fresh, reused = clients(server)
    assert stalled != fresh == reused


async def test_a_body_that_keeps_coming_after_done_is_dropped_at_the_byte_cap(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    answer = completion(text="then noise")
    noise = Raw(text=": " + "x" * 64 * 1024 + "\n\n")
    server.enqueue(StreamResponse(steps=(*answer.steps, noise, Stall())), completion(text="ok"))
    # The deadline is far away: only the byte cap can end this drain within fail_after.
    adapter = make_adapter(drain=DrainBudget(max_bytes=1024, seconds=60))
    with anyio.fail_after(10):
        chunks = await collect(adapter)
    assert chunks[-1] == FinishChunk(reason=FinishStop())
    assert await anyio.to_thread.run_sync(server.wait_for_disconnect, 10.0)
    await collect(adapter)
    assert len(set(clients(server))) == 2


async def test_a_connection_cut_after_done_still_completes_the_call(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    call = ToolCallSpec(id="c", name="ls", arguments="{}")
    answer = completion(tool_calls=[call])
    server.enqueue(StreamResponse(steps=(*answer.steps, Disconnect())), completion(text="ok"))
    adapter = make_adapter()
    chunks = await collect(adapter)
    assert chunks[-1] == FinishChunk(reason=FinishToolCalls())
    assert clock.sleeps == []
    await collect(adapter)
    assert len(set(clients(server))) == 2


async def test_cancelling_while_draining_is_prompt_and_closes_the_connection(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    server.enqueue(SILENCE, STALL_AFTER_DONE)
    adapter = make_adapter(drain=DrainBudget(seconds=60))
    await collect(adapter)
    received: list[StreamChunk] = []
    last_delta = anyio.Event()

    async def consume(scope: anyio.CancelScope) -> None:
        with scope:
            async for chunk in adapter.stream(REQUEST):
                received.append(chunk)
                if text(received) == "then silence":  # however the reads cut the deltas
                    last_delta.set()

    scope = anyio.CancelScope()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(consume, scope)
            await last_delta.wait()
            await anyio.wait_all_tasks_blocked()  # the stream now waits in the drain
            scope.cancel()
    assert scope.cancelled_caught
    assert not [chunk for chunk in received if chunk.kind in FINISH_KINDS]
    assert await anyio.to_thread.run_sync(server.wait_for_disconnect, 10.0)
