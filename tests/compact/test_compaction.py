"""Compaction: balanced regions, summary + replace, fail-closed, automatic before a step,
twice in a long session, and resume after a restart with summary + tail."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path

import anyio
import pytest

from dsh_lsp.agent import Agent, AgentOptions, AgentSpec
from dsh_lsp.compact import (
    CHECKPOINT_PROMPT,
    COMPACT_END,
    COMPACT_START,
    COMPACTION,
    CompactionError,
    CompactionPlugin,
    balanced_prefixes,
)
from dsh_lsp.llm import LlmRequest, SessionId, TextBlock, TokenUsage, ToolResultBlock
from dsh_lsp.session import Session, SessionEvent
from dsh_lsp.testing.openai_chunks import ToolCallSpec
from dsh_lsp.testing.scripted_model import (
    Fail,
    Reply,
    Respond,
    ScriptEntry,
    max_tokens_reply,
    reply,
    text_reply,
)
from tests.agent_loop.harness import MODEL, Harness, loop_harness, of_type


def _event(seq: int, kind: str, data: dict[str, object]) -> SessionEvent:
    return SessionEvent(type=kind, seq=seq, time=0, data=data)  # type: ignore[arg-type]


def _compacting(*script: ScriptEntry, retain_tokens: int) -> AbstractAsyncContextManager[Harness]:
    """The loop harness with compaction keeping ``retain_tokens`` of the tail verbatim."""
    return loop_harness(*script, models=((CompactionPlugin(), {"retain_tokens": retain_tokens}),))


async def _converse(agent: Agent, *prompts: str) -> None:
    """Send each prompt in turn, waiting for the agent to go idle after each."""
    for prompt in prompts:
        agent.send(prompt)
        await agent.when_idle()


def test_a_call_and_its_result_are_never_split() -> None:
    call = {"type": "tool-call", "id": "c1", "name": "x", "arguments": "{}"}
    nodes = [
        _event(0, "user/message", {"content": [], "source": {"kind": "user"}}),
        _event(1, "assistant/message", {"turn": 1, "step": 1, "content": [call]}),
        _event(2, "tool/result", {"turn": 1, "step": 1, "callId": "c1", "content": []}),
        _event(3, "assistant/message", {"turn": 1, "step": 2, "content": []}),
    ]
    assert balanced_prefixes(nodes) == [1, 3, 4]


def _texts(session: Session) -> list[str]:
    return [
        block.text
        for message in session.derive_messages()
        for block in message.content
        if isinstance(block, TextBlock)
    ]


async def test_compact_now_replaces_the_oldest_region_with_a_summary() -> None:
    script = (
        text_reply("first answer " * 50),
        text_reply("second answer " * 50),
        text_reply("third answer"),
        text_reply("CHECKPOINT: goal is testing"),
    )
    async with _compacting(*script, retain_tokens=20) as h:
        agent, handle = await h.create()
        await _converse(agent, "one", "two", "three")
        before = len(agent.session.events)
        outcome = await h.ctx.require(COMPACTION).compact_now(agent)
        texts = _texts(agent.session)
        starts = of_type(agent.session, COMPACT_START)
        ends = of_type(agent.session, COMPACT_END)
        summary_request = h.model.requests[-1]
        await handle.dispose()
    assert outcome.tokens_after < outcome.tokens_before
    assert texts[0].startswith("<compacted-summary>\nCHECKPOINT: goal is testing")
    assert texts[-1] == "third answer", "the tail is kept verbatim"
    assert "one" not in texts
    assert len(starts) == 1
    assert ends == [
        {"ok": True, "tokensBefore": outcome.tokens_before, "tokensAfter": outcome.tokens_after}
    ]
    assert len(agent.session.events) > before, "the log keeps everything and grows"
    assert summary_request.system is not None
    assert "checkpoint" in summary_request.system


async def test_a_cut_off_summary_fails_closed() -> None:
    script = (text_reply("a " * 200), text_reply("b " * 200), max_tokens_reply("partial"))
    async with _compacting(*script, retain_tokens=10) as h:
        agent, handle = await h.create()
        await _converse(agent, "one", "two")
        surface = agent.session.surface_seqs()
        with pytest.raises(CompactionError, match="cut off"):
            await h.ctx.require(COMPACTION).compact_now(agent)
        assert agent.session.surface_seqs() == surface
        ends = of_type(agent.session, COMPACT_END)
        await handle.dispose()
    assert ends == [{"ok": False, "error": "the summary was cut off by the output limit"}]


def _responder(counter: list[int]) -> Respond:
    usage = TokenUsage(input_tokens=700, output_tokens=20)

    def answer(request: LlmRequest) -> Reply:
        counter[0] += 1
        if request.system == CHECKPOINT_PROMPT:
            return text_reply(f"CHECKPOINT {counter[0]}")
        last = request.messages[-1].content[0]
        if isinstance(last, ToolResultBlock):
            return text_reply(f"after the tool {counter[0]}", usage=usage)
        if counter[0] % 4 == 0:
            call = ToolCallSpec(id=f"t{counter[0]}", name="echo", arguments='{"path": "x"}')
            return reply(calls=(call,), usage=usage)
        return text_reply(f"answer {counter[0]}", usage=usage)

    return Respond(fn=answer)


async def _echo(args: object, call: object) -> str:
    return "echoed"


async def test_a_long_session_compacts_itself_and_resumes_with_summary_and_tail(
    tmp_path: Path,
) -> None:
    counter = [0]
    config = {"windows": {MODEL: 1000}, "threshold_ratio": 0.7, "retain_tokens": 30}
    async with loop_harness(
        *[_responder(counter) for _ in range(80)],
        directory=tmp_path,
        models=((CompactionPlugin(), config),),
    ) as h:
        h.tool("echo", _echo)
        handle = await h.agents.create(AgentSpec(options=AgentOptions(model=MODEL)))
        agent = handle.agent
        for i in range(12):
            agent.send(f"prompt {i} " + "padding " * 40)
            await agent.when_idle()
        compactions = [e for e in of_type(agent.session, COMPACT_END) if e["ok"] is True]
        errors = [
            e["reason"]
            for e in of_type(agent.session, "turn/end")
            if e["reason"] != {"kind": "completed"}
        ]
        session_id = agent.session.id
        tail = _texts(agent.session)[-1]
        await handle.dispose()
    assert errors == []
    assert len(compactions) >= 2
    async with loop_harness(directory=tmp_path) as h2:
        resumed = await h2.agents.resume(SessionId(session_id), options=AgentOptions(model=MODEL))
        texts = _texts(resumed.agent.session)
        await resumed.dispose()
    assert texts[0].startswith("<compacted-summary>")
    assert texts[-1] == tail
    assert not any(t.startswith("prompt 0 ") for t in texts)


async def test_a_context_overflow_compacts_once_and_retries_the_step() -> None:
    script = (
        text_reply("first " * 100),
        text_reply("second " * 100),
        Fail(message="maximum context length exceeded", code="CONTEXT_WINDOW_EXCEEDED"),
        text_reply("CHECKPOINT overflow"),
        text_reply("answered after compaction"),
    )
    async with _compacting(*script, retain_tokens=10) as h:
        agent, handle = await h.create()
        await _converse(agent, "one", "two", "three")
        ends = of_type(agent.session, "turn/end")
        texts = _texts(agent.session)
        retried = h.model.requests[-1]
        await handle.dispose()
    assert ends[-1]["reason"] == {"kind": "completed"}
    assert texts[-1] == "answered after compaction"
    assert texts[0].startswith("<compacted-summary>\nCHECKPOINT overflow")
    first = retried.messages[0].content[0]
    assert isinstance(first, TextBlock)
    assert first.text.startswith("<compacted-summary>")


async def test_a_step_request_is_served_once_and_a_withdrawn_one_never() -> None:
    script = (
        text_reply("first answer " * 50),
        text_reply("second answer " * 50),
        text_reply("CHECKPOINT: asked at a step"),
        text_reply("third answer"),
        text_reply("fourth answer"),
    )
    plugin = (CompactionPlugin(), {"retain_tokens": 20, "enabled": False})
    async with loop_harness(*script, models=(plugin,)) as h:
        agent, handle = await h.create()
        await _converse(agent, "one", "two")
        compaction = h.ctx.require(COMPACTION)
        with anyio.move_on_after(0):  # withdrawn before any step
            await compaction.compact_at_next_step(agent)
        async with anyio.create_task_group() as group:
            outcomes = []

            async def ask() -> None:
                outcomes.append(await compaction.compact_at_next_step(agent))

            group.start_soon(ask)
            group.start_soon(ask)
            await anyio.wait_all_tasks_blocked()
            agent.send("three")
        await _converse(agent, "four")
        starts = of_type(agent.session, COMPACT_START)
        await handle.dispose()
    assert len(outcomes) == 2
    assert outcomes[0] is outcomes[1], "two callers share one compaction"
    assert [s["reason"] for s in starts] == ["request"], "served once, automatic is off"
    assert h.model.requests[2].system == CHECKPOINT_PROMPT
