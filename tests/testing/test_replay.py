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
from dsh_lsp.session import Session
from dsh_lsp.testing.replay import (
    ReplayAdapter,
    ReplayCall,
    ReplayFailure,
    ReplayPlugin,
    read_session_log,
    session_log_lines,
)
from dsh_lsp.testing.scripted_model import Fail, text_reply
from tests.agent_loop.harness import loop_harness
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
        ReplayCall(turn=2, step=1, chunks=(), failure=ReplayFailure(message="down", code="SERVER")),
        ReplayCall(turn=3, step=1, chunks=answer("b")),
        ReplayCall(
            turn=3,
            step=2,
            chunks=(TextDelta(index=0, text="half"),),
            failure=ReplayFailure(message="reset", code="TRANSPORT"),
        ),
        ReplayCall(turn=4, step=1, chunks=(TextDelta(index=0, text="cut"),)),
    )
    assert read_session_log(session_log_lines(calls)) == calls


def turn_end(seq: int, turn: int, reason: dict[str, object]) -> str:
    return event("turn/end", seq, {"turn": turn, "reason": reason})


def error_reason(step: int, message: str, code: str) -> dict[str, object]:
    return {"kind": "error", "step": step, "message": message, "code": code}


def test_each_step_is_one_call_even_when_it_failed_before_its_first_chunk() -> None:
    lines = [
        '{"type":"session","version":0,"id":"s"}',
        event("turn/start", 0, {"turn": 1}),
        event("step/start", 1, {"turn": 1, "step": 1}),
        turn_end(2, 1, error_reason(1, "upstream broke", "SERVER")),
        event("turn/start", 3, {"turn": 2}),
        event("step/start", 4, {"turn": 2, "step": 1}),
        chunk_event(5, 2, 1, answer("recovered")[0]),
        chunk_event(6, 2, 1, answer("recovered")[1]),
        event("step/end", 7, {"turn": 2, "step": 1}),
        turn_end(8, 2, {"kind": "completed"}),
    ]
    assert read_session_log(lines) == (
        ReplayCall(
            turn=1,
            step=1,
            chunks=(),
            failure=ReplayFailure(message="upstream broke", code="SERVER"),
        ),
        ReplayCall(turn=2, step=1, chunks=answer("recovered")),
    )


@pytest.mark.parametrize(
    ("reason", "failure"),
    [
        (error_reason(1, "connection reset", "TRANSPORT"), ("connection reset", "TRANSPORT")),
        ({"kind": "aborted"}, None),
        ({"kind": "disposed"}, None),
        ({"kind": "interrupted"}, ("interrupted", "STREAM_CLOSED")),
        (None, ("no turn/end", "STREAM_CLOSED")),
    ],
)
def test_a_call_without_finish_fails_unless_cancellation_cut_it_off(
    reason: dict[str, object] | None, failure: tuple[str, str] | None
) -> None:
    lines = [
        '{"type":"session","version":0,"id":"s"}',
        event("turn/start", 0, {"turn": 1}),
        event("step/start", 1, {"turn": 1, "step": 1}),
        chunk_event(2, 1, 1, TextDelta(index=0, text="half")),
    ]
    if reason is not None:
        lines.append(turn_end(3, 1, reason))
    (call,) = read_session_log(lines)
    assert call.chunks == (TextDelta(index=0, text="half"),)
    if failure is None:
        assert call.failure is None
    else:
        assert call.failure is not None
        assert failure[0] in call.failure.message
        assert call.failure.code == failure[1]


async def test_failed_calls_replay_as_errors_and_later_calls_keep_their_answers() -> None:
    adapter = ReplayAdapter(
        [
            ReplayCall(
                turn=1, step=1, chunks=(), failure=ReplayFailure(message="down", code="SERVER")
            ),
            ReplayCall(
                turn=2,
                step=1,
                chunks=(TextDelta(index=0, text="half"),),
                failure=ReplayFailure(message="reset", code="TRANSPORT"),
            ),
            ReplayCall(turn=3, step=1, chunks=answer("third")),
        ]
    )
    with pytest.raises(LlmError) as caught:
        await assemble(adapter.stream(REQUEST))
    assert (caught.value.message, caught.value.code) == ("down", "SERVER")
    received: list[StreamChunk] = []

    async def drain() -> None:
        async for chunk in adapter.stream(REQUEST):
            received.append(chunk)

    with pytest.raises(LlmError) as caught:
        await drain()
    assert received == [TextDelta(index=0, text="half")]
    assert (caught.value.message, caught.value.code) == ("reset", "TRANSPORT")
    result = await assemble(adapter.stream(REQUEST))
    assert result.message.content == (TextBlock(text="third"),)


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


def _turn_ends(session: Session) -> list[object]:
    return [e.data["reason"] for e in session.events if e.type == "turn/end"]


async def test_a_recorded_session_replays_its_failed_calls_in_place(tmp_path: Path) -> None:
    half = tuple(c for c in text_reply("half").chunks if not isinstance(c, FinishChunk))
    prompts = ("one", "two", "three")
    async with loop_harness(
        Fail(message="upstream broke", code="SERVER"),
        Fail(message="connection reset", code="TRANSPORT", chunks=half),
        text_reply("fine"),
        directory=tmp_path / "recorded",
    ) as recording:
        agent, _ = await recording.create()
        for prompt in prompts:
            agent.send(prompt)
            await agent.when_idle()
        recorded = _turn_ends(agent.session)
        recorded_messages = agent.session.derive_messages()
    assert [r["kind"] for r in recorded] == ["error", "error", "completed"]  # type: ignore[index]
    (log,) = (tmp_path / "recorded").glob("*/*.jsonl")
    replay = ReplayPlugin()
    async with loop_harness(models=[(replay, {"sessionLog": str(log)})]) as replaying:
        agent, _ = await replaying.create()
        for prompt in prompts:
            agent.send(prompt)
            await agent.when_idle()
        assert _turn_ends(agent.session) == recorded
        assert agent.session.derive_messages() == recorded_messages
    assert replay.adapter is not None
    assert replay.adapter.remaining == 0
    assert replaying.model.requests == []
