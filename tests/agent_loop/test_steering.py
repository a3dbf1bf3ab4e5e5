"""Steering, injected context and the max-steps cap."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from dsh_lsp.agent import (
    AGENT_PRE_STEP,
    AGENT_QUEUED,
    AGENT_TURN_CONTINUATION,
    Agent,
    ContinuationDecision,
    PreStep,
    Queued,
    TurnContinuation,
)
from dsh_lsp.llm import JsonObject, LlmRequest, PluginSource, TextBlock
from dsh_lsp.session import SESSION_FLUSH, Session
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import Reply, Respond, text_reply, tool_reply
from dsh_lsp.tools import ToolExecution

from .harness import loop_harness, of_type, reasons, texts, types


def _call(call_id: str) -> Reply:
    return tool_reply(ToolCallSpec(id=call_id, name="work", arguments="{}"))


async def test_steering_during_a_step_is_logged_after_its_results_and_continues() -> None:
    holder: list[Agent] = []

    async def work(args: JsonObject, call: ToolExecution) -> str:
        holder[0].steer("also check the tests")
        return "worked"

    async with loop_harness(_call("c"), text_reply("done")) as h:
        h.tool("work", work)
        agent, _ = await h.create()
        holder.append(agent)
        queued: list[Queued] = []
        h.ctx.on(AGENT_QUEUED, queued.append)
        agent.send("start")
        await agent.when_idle()
        log = types(agent.session)
        first_step = log[: log.index("step/end") + 1]
        assert first_step[-3:] == ["tool/result", "steering/message", "step/end"]
        (steering,) = of_type(agent.session, "steering/message")
        assert steering["turn"] == 1
        assert texts(steering["content"]) == ["also check the tests"]
        assert [q.steering for q in queued] == [False, True]
        last = h.model.requests[1].messages[-1]
        assert last.role == "user"
        assert "also check the tests" in [b.text for b in last.content if isinstance(b, TextBlock)]
        assert reasons(agent.session) == ["completed"]


async def test_steer_while_idle_is_a_send() -> None:
    async with loop_harness(text_reply("ok")) as h:
        agent, _ = await h.create()
        queued: list[Queued] = []
        h.ctx.on(AGENT_QUEUED, queued.append)
        agent.steer("hello")
        await agent.when_idle()
        assert [q.steering for q in queued] == [False]
        assert len(of_type(agent.session, "user/message")) == 1
        assert "steering/message" not in types(agent.session)


async def test_steering_left_after_a_stop_forces_another_step() -> None:
    async with loop_harness(text_reply("first"), text_reply("second")) as h:
        agent, _ = await h.create()
        steered = False

        async def steer_once(
            payload: TurnContinuation, proceed: Callable[[], Awaitable[ContinuationDecision]]
        ) -> ContinuationDecision:
            nonlocal steered
            if not steered:
                steered = True
                payload.agent.steer("one more thing")
            return await proceed()

        h.ctx.on(AGENT_TURN_CONTINUATION, steer_once)
        agent.send("go")
        await agent.when_idle()
        assert len(of_type(agent.session, "step/start")) == 2
        log = types(agent.session)
        second = log.index("step/start", log.index("step/end"))
        assert log[second - 1] == "steering/message"
        assert reasons(agent.session) == ["completed"]


async def test_inject_while_idle_is_its_own_turn_and_never_calls_the_model() -> None:
    async with loop_harness(text_reply("ok")) as h:
        agent, _ = await h.create()
        flushed: list[Session] = []

        async def on_flush(session: Session) -> None:
            flushed.append(session)

        h.ctx.on(SESSION_FLUSH, on_flush)
        agent.inject("build is green", source=PluginSource(plugin="ci"))
        assert types(agent.session) == ["turn/start", "context/message", "turn/end"]
        (start,) = of_type(agent.session, "turn/start")
        assert start["trigger"] == {"kind": "injection"}
        assert reasons(agent.session) == ["completed"]
        await agent.when_idle()
        agent.send("what now?")
        await agent.when_idle()
        assert len(h.model.requests) == 1
        first = h.model.requests[0].messages[0]
        assert first.role == "user"
        assert isinstance(first.content[0], TextBlock)
        assert first.content[0].text.startswith("<context")
        assert [e["turn"] for e in of_type(agent.session, "turn/start")] == [1, 2]
        assert flushed.count(agent.session) == 3  # the injection turn; the prompt opens, ends


async def test_context_injected_during_a_step_lands_after_the_step_results() -> None:
    holder: list[Agent] = []

    async def work(args: JsonObject, call: ToolExecution) -> str:
        holder[0].inject("side note")
        return "worked"

    specs = [ToolCallSpec(id=f"c{i}", name="work", arguments="{}") for i in range(2)]
    async with loop_harness(tool_reply(*specs), text_reply("done")) as h:
        h.tool("work", work)
        agent, _ = await h.create()
        holder.append(agent)
        agent.send("go")
        await agent.when_idle()
        log = types(agent.session)
        assert log[log.index("tool/call") : log.index("step/end")] == [
            "tool/call",
            "tool/call",
            "tool/result",
            "tool/result",
            "context/message",
            "context/message",
        ]


async def test_context_injected_between_steps_is_logged_at_once() -> None:
    async with loop_harness(text_reply("ok")) as h:
        agent, _ = await h.create()

        async def inject(payload: PreStep) -> None:
            payload.agent.inject("fresh context")

        h.ctx.on(AGENT_PRE_STEP, inject)
        agent.send("go")
        await agent.when_idle()
        log = types(agent.session)
        assert log[: log.index("step/start") + 1] == [
            "turn/start",
            "user/message",
            "context/message",
            "step/start",
        ]
        assert h.model.requests[0].messages[-1].role == "user"
        assert len(h.model.requests[0].messages) == 2


async def test_max_steps_ends_the_turn() -> None:
    async def work(args: JsonObject, call: ToolExecution) -> str:
        return "again"

    def always_call(request: LlmRequest) -> Reply:
        return _call(f"c{len(request.messages)}")

    async with loop_harness(*[Respond(fn=always_call)] * 5) as h:
        h.tool("work", work)
        agent, _ = await h.create(max_steps=3)
        agent.send("loop forever")
        await agent.when_idle()
        assert len(h.model.requests) == 3
        assert [e["step"] for e in of_type(agent.session, "step/start")] == [1, 2, 3]
        assert reasons(agent.session) == ["max-steps"]
        assert agent.session.open_turn() is None
