"""Replay from a recorded session log: grouping, order, incomplete calls, the plugin."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from dsh_lsp.kernel import PluginFailedError
from dsh_lsp.llm import (
    FinishChunk,
    FinishStop,
    LlmCode,
    LlmError,
    LlmRequest,
    StreamChunk,
    TextBlock,
    TextDelta,
    assemble,
    chunk_to_json,
)
from dsh_lsp.testing.replay import (
    ReplayAdapter,
    ReplayCall,
    ReplayPlugin,
    read_session_log,
    session_log_lines,
)
from tests.llm.kernel_support import llm_kernel

REQUEST = LlmRequest(model="any-model", messages=())


def answer(text: str) -> tuple[StreamChunk, ...]:
    return (TextDelta(index=0, text=text), FinishChunk(reason=FinishStop()))


def event(kind: str, seq: int, data: object) -> str:
    return json.dumps({"type": kind, "seq": seq, "time": 1, "data": data})


def chunk_event(seq: int, turn: int, step: int, chunk: StreamChunk) -> str:
    data = {"turn": turn, "step": step, "chunk": chunk_to_json(chunk)}
    return event("assistant/chunk", seq, data)


def test_chunks_group_by_turn_and_step_in_first_seen_order() -> None:
    first, second = answer("one"), answer("two")
    lines = [
        '{"type":"session","version":0,"id":"s"}',
        event("turn/start", 0, {"turn": 1}),
        chunk_event(1, 1, 1, first[0]),
        event("tool/call", 2, {"turn": 1, "step": 1}),
        chunk_event(3, 1, 2, second[0]),
        chunk_event(4, 1, 1, first[1]),
        chunk_event(5, 1, 2, second[1]),
        "",
    ]
    assert read_session_log(lines) == (
        ReplayCall(turn=1, step=1, chunks=first),
        ReplayCall(turn=1, step=2, chunks=second),
    )


def test_session_log_lines_round_trip() -> None:
    calls = (
        ReplayCall(turn=1, step=1, chunks=answer("a")),
        ReplayCall(turn=2, step=1, chunks=answer("b")),
    )
    assert read_session_log(session_log_lines(calls)) == calls


@pytest.mark.parametrize(
    ("lines", "detail"),
    [
        ([], "no header"),
        (["not json"], "line 1: not JSON"),
        (["{}", "[1]"], "line 2: expected a JSON object"),
        (["{}", event("assistant/chunk", 0, {"turn": 1, "step": "1", "chunk": {}})], "step"),
        (
            ["{}", event("assistant/chunk", 0, {"turn": 1, "step": 1, "chunk": {"type": "x"}})],
            "line 2",
        ),
    ],
)
def test_malformed_logs_name_the_line(lines: list[str], detail: str) -> None:
    with pytest.raises(LlmError, match=detail) as caught:
        read_session_log(lines)
    assert caught.value.code == LlmCode.MALFORMED_RECORD


async def test_adapter_replays_calls_in_order_and_then_is_exhausted() -> None:
    adapter = ReplayAdapter([ReplayCall(turn=1, step=1, chunks=answer("first"))])
    result = await assemble(adapter.stream(REQUEST))
    assert result.message.content == (TextBlock(text="first"),)
    with pytest.raises(LlmError) as caught:
        await assemble(adapter.stream(REQUEST))
    assert caught.value.code == LlmCode.REPLAY_EXHAUSTED
    assert adapter.requests == [REQUEST, REQUEST]
    assert adapter.remaining == 0


async def test_incomplete_call_hangs_until_cancelled() -> None:
    partial = ReplayCall(turn=1, step=1, chunks=(TextDelta(index=0, text="cut"),))
    assert not partial.complete
    adapter = ReplayAdapter([partial])
    received: list[StreamChunk] = []
    with anyio.CancelScope() as scope:
        async for chunk in adapter.stream(REQUEST):
            received.append(chunk)
            scope.cancel()
    assert scope.cancelled_caught
    assert received == [partial.chunks[0]]


async def test_plugin_answers_without_any_adapter(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    calls = [ReplayCall(turn=1, step=1, chunks=answer("recorded"))]
    log.write_text("\n".join(session_log_lines(calls)) + "\n", encoding="utf-8")
    async with llm_kernel() as (ctx, llm):
        plugin = ReplayPlugin()
        await ctx.plugin(plugin, {"sessionLog": str(log)})
        assert llm.models() == ()
        result = await assemble(llm.stream(REQUEST))
        assert result.message.content == (TextBlock(text="recorded"),)
        assert plugin.adapter is not None
        assert plugin.adapter.remaining == 0


async def test_plugin_fails_on_a_missing_log(tmp_path: Path) -> None:
    async with llm_kernel() as (ctx, _llm):
        with pytest.raises(PluginFailedError) as caught:
            await ctx.plugin(ReplayPlugin(), {"sessionLog": str(tmp_path / "absent.jsonl")})
        assert isinstance(caught.value.__cause__, OSError)
