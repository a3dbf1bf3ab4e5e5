"""The basic turn flow: text answers, tool round trips, parallel calls, max-tokens, reasoning."""

from __future__ import annotations

import json

import anyio

from dsh_lsp.agent import AGENT_STATUS, StatusChange
from dsh_lsp.llm import (
    JsonObject,
    ReasoningBlock,
    TextBlock,
    TokenUsage,
    ToolCallBlock,
    ToolResultBlock,
)
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import max_tokens_reply, reply, text_reply, tool_reply
from dsh_lsp.tools import ToolExecution

from .harness import block_types, loop_harness, of_type, reasons, texts, types


async def test_a_text_answer_is_one_turn_of_one_step() -> None:
    usage = TokenUsage(input_tokens=3, output_tokens=2)
    async with loop_harness(text_reply("hello there", usage=usage)) as h:
        statuses: list[tuple[str, str]] = []

        def on_status(change: StatusChange) -> None:
            statuses.append((change.previous, change.status))

        h.ctx.on(AGENT_STATUS, on_status)
        agent, _ = await h.create(system_prompt="be brief")
        agent.send("hi")
        await agent.when_idle()
        session = agent.session
        chunks = types(session).count("assistant/chunk")
        assert types(session) == [
            "turn/start",
            "user/message",
            "step/start",
            *["assistant/chunk"] * chunks,
            "assistant/message",
            "step/end",
            "turn/end",
        ]
        (message,) = of_type(session, "assistant/message")
        assert texts(message["content"]) == ["hello there"]
        assert message["usage"] == {"inputTokens": 3, "outputTokens": 2}
        assistant = next(e for e in session.events if e.type == "assistant/message")
        chunk_seqs = tuple(e.seq for e in session.events if e.type == "assistant/chunk")
        assert assistant.source_event_seqs == chunk_seqs
        assert reasons(session) == ["completed"]
        assert statuses == [("idle", "running"), ("running", "idle")]
        (request,) = h.model.requests
        assert request.system == "be brief"
        assert request.session_id == session.id
        assert [m.role for m in request.messages] == ["user"]


async def test_tool_call_with_split_arguments_round_trips() -> None:
    calls: list[tuple[JsonObject, str]] = []

    async def read(args: JsonObject, call: ToolExecution) -> str:
        calls.append((args, call.call_id))
        return f"contents of {args['path']}"

    arguments = json.dumps({"path": "notes/todo.txt"})
    async with loop_harness(
        tool_reply(ToolCallSpec(id="call_1", name="read", arguments=arguments), fragment_size=2),
        text_reply("done"),
    ) as h:
        h.tool("read", read, read_only=True)
        agent, _ = await h.create()
        agent.send("read it")
        await agent.when_idle()
        session = agent.session
        assert calls == [({"path": "notes/todo.txt"}, "call_1")]
        (call,) = of_type(session, "tool/call")
        assert call == {
            "turn": 1,
            "step": 1,
            "callId": "call_1",
            "name": "read",
            "arguments": arguments,
        }
        result_event = next(e for e in session.events if e.type == "tool/result")
        call_event = next(e for e in session.events if e.type == "tool/call")
        assert result_event.source_event_seqs == (call_event.seq,)
        assert result_event.data["isError"] is False
        assert texts(result_event.data["content"]) == ["contents of notes/todo.txt"]
        assert reasons(session) == ["completed"]
        assert [e["step"] for e in of_type(session, "step/start")] == [1, 2]
        second = h.model.requests[1]
        assert [m.role for m in second.messages] == ["user", "assistant", "user"]
        assert isinstance(second.messages[1].content[0], ToolCallBlock)
        result = second.messages[2].content[0]
        assert isinstance(result, ToolResultBlock)
        assert result.tool_call_id == "call_1"
        assert [s.name for s in second.tools] == ["read"]


async def test_parallel_read_only_calls_overlap_and_log_in_call_order() -> None:
    started: list[str] = []
    both_started = anyio.Event()
    finish_first = anyio.Event()

    async def slow(args: JsonObject, call: ToolExecution) -> str:
        started.append(call.call_id)
        if len(started) == 2:
            both_started.set()
        if call.call_id == "a":
            await finish_first.wait()
        else:
            await both_started.wait()
            finish_first.set()
        return f"result {call.call_id}"

    specs = [ToolCallSpec(id=i, name="look", arguments=json.dumps({"path": i})) for i in "ab"]
    async with loop_harness(tool_reply(*specs, interleave=True), text_reply("ok")) as h:
        h.tool("look", slow, read_only=True)
        agent, _ = await h.create()
        agent.send("look at both")
        await agent.when_idle()
        session = agent.session
        assert sorted(started) == ["a", "b"]
        tool_events = [e for e in types(session) if e.startswith("tool/")]
        assert tool_events == ["tool/call", "tool/call", "tool/result", "tool/result"]
        assert [r["callId"] for r in of_type(session, "tool/result")] == ["a", "b"]
        assert [c["arguments"] for c in of_type(session, "tool/call")] == [
            '{"path": "a"}',
            '{"path": "b"}',
        ]


async def test_calls_of_a_writing_tool_run_one_after_another() -> None:
    running = 0
    overlap = 0

    async def write(args: JsonObject, call: ToolExecution) -> str:
        nonlocal running, overlap
        running += 1
        overlap = max(overlap, running)
        await anyio.lowlevel.checkpoint()
        running -= 1
        return "written"

    specs = [ToolCallSpec(id=f"w{i}", name="write", arguments="{}") for i in range(3)]
    async with loop_harness(tool_reply(*specs), text_reply("ok")) as h:
        h.tool("write", write)
        agent, _ = await h.create()
        agent.send("write thrice")
        await agent.when_idle()
        assert overlap == 1
        assert [r["callId"] for r in of_type(agent.session, "tool/result")] == ["w0", "w1", "w2"]


async def test_max_tokens_drops_tool_calls_and_ends_the_turn_max_tokens() -> None:
    ran: list[str] = []

    async def read(args: JsonObject, call: ToolExecution) -> str:
        ran.append(call.call_id)
        return "x"

    cut = ToolCallSpec(id="c", name="read", arguments='{"path": "a')
    async with loop_harness(max_tokens_reply("partial", cut)) as h:
        h.tool("read", read)
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        session = agent.session
        assert ran == []
        assert "tool/call" not in types(session)
        (message,) = of_type(session, "assistant/message")
        assert block_types(message["content"]) == ["text"]
        assert reasons(session) == ["max-tokens"]


async def test_unknown_tools_and_bad_arguments_become_error_results() -> None:
    specs = [
        ToolCallSpec(id="u", name="nope", arguments="{}"),
        ToolCallSpec(id="b", name="read", arguments="{not json"),
    ]

    async def read(args: JsonObject, call: ToolExecution) -> str:
        raise AssertionError("must not run")

    async with loop_harness(tool_reply(*specs), text_reply("sorry")) as h:
        h.tool("read", read)
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        results = of_type(agent.session, "tool/result")
        assert [r["isError"] for r in results] == [True, True]
        assert reasons(agent.session) == ["completed"]


async def test_a_reasoning_only_answer_is_logged_and_sent_back() -> None:
    async with loop_harness(reply(reasoning="thinking hard"), text_reply("second")) as h:
        agent, _ = await h.create()
        agent.send("one")
        await agent.when_idle()
        (message,) = of_type(agent.session, "assistant/message")
        assert block_types(message["content"]) == ["reasoning"]
        agent.send("two")
        await agent.when_idle()
        history = h.model.requests[1].messages
        assert [m.role for m in history] == ["user", "assistant", "user"]
        assert history[1].content == (ReasoningBlock(text="thinking hard"),)
        assert reasons(agent.session) == ["completed", "completed"]


async def test_an_empty_answer_without_usage_is_not_logged() -> None:
    async with loop_harness(reply(), text_reply("later")) as h:
        agent, _ = await h.create()
        agent.send("one")
        await agent.when_idle()
        assert "assistant/message" not in types(agent.session)
        assert reasons(agent.session) == ["completed"]
        agent.send("two")
        await agent.when_idle()
        history = h.model.requests[1].messages
        assert [m.role for m in history] == ["user", "user"]
        assert history[1].content == (TextBlock(text="two"),)
