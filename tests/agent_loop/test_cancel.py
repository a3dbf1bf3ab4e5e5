"""Cancellation at every window of the turn: the turn ends aborted (or never starts), every
tool call is answered, and the agent takes the next message normally."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from dsh_lsp.agent import (
    AGENT_PRE_STEP,
    AGENT_PROMPT_SUBMIT,
    AGENT_STATUS,
    AGENT_TURN_CONTINUATION,
    Agent,
    ContinuationDecision,
    PreStep,
    PromptDecision,
    PromptSubmit,
    StatusChange,
    TurnContinuation,
)
from dsh_lsp.llm import JsonObject, TextBlock
from dsh_lsp.session import SESSION_EVENT, SessionEventNotice
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import Hang, text_reply, tool_reply
from dsh_lsp.tools import SYSTEM_PROMPT_ASSEMBLE, PromptAssembly, ToolExecution

from .harness import loop_harness, of_type, reasons, types


def _aborted(agent: Agent) -> JsonObject:
    (end,) = of_type(agent.session, "turn/end")
    reason = end["reason"]
    assert isinstance(reason, dict)
    assert reason["kind"] == "aborted"
    return reason


async def test_cancel_before_the_driver_wakes_drops_the_message() -> None:
    async with loop_harness(text_reply("never")) as h:
        statuses: list[str] = []
        h.ctx.on(AGENT_STATUS, lambda change: statuses.append(change.status))
        agent, _ = await h.create()
        agent.send("hi")
        agent.cancel()
        await agent.when_idle()
        await anyio.wait_all_tasks_blocked()
        assert list(agent.session.events) == []
        assert statuses == []
        assert h.model.requests == []
        agent.send("again")
        await agent.when_idle()
        assert reasons(agent.session) == ["completed"]


async def test_cancel_from_the_running_status_listener_goes_back_to_idle() -> None:
    async with loop_harness(text_reply("later")) as h:
        agent, _ = await h.create()
        statuses: list[tuple[str, str]] = []
        cancel_next = True

        def on_status(change: StatusChange) -> None:
            nonlocal cancel_next
            statuses.append((change.previous, change.status))
            if change.status == "running" and cancel_next:
                cancel_next = False
                agent.cancel()

        h.ctx.on(AGENT_STATUS, on_status)
        agent.send("hi")
        await agent.when_idle()
        assert list(agent.session.events) == []
        assert statuses == [("idle", "running"), ("running", "idle")]
        agent.send("again")
        await agent.when_idle()
        assert reasons(agent.session) == ["completed"]


async def test_cancel_during_prompt_submit_aborts_before_any_step() -> None:
    async with loop_harness() as h:
        agent, _ = await h.create()
        entered = anyio.Event()

        async def slow_hook(
            payload: PromptSubmit, proceed: Callable[[], Awaitable[PromptDecision]]
        ) -> PromptDecision:
            entered.set()
            await anyio.sleep_forever()
            raise AssertionError("unreachable")

        h.ctx.on(AGENT_PROMPT_SUBMIT, slow_hook)
        agent.send("hi")
        await entered.wait()
        agent.cancel("user pressed stop")
        await agent.when_idle()
        assert types(agent.session) == ["turn/start", "turn/end"]
        assert _aborted(agent) == {"kind": "aborted", "reason": "user pressed stop"}


async def test_cancel_during_prompt_assembly_stops_before_step_start() -> None:
    async with loop_harness() as h:
        agent, _ = await h.create()

        async def cancelling(
            assembly: PromptAssembly, proceed: Callable[[], Awaitable[PromptAssembly]]
        ) -> PromptAssembly:
            agent.cancel()
            return await proceed()

        h.ctx.on(SYSTEM_PROMPT_ASSEMBLE, cancelling)
        agent.send("hi")
        await agent.when_idle()
        assert types(agent.session) == ["turn/start", "user/message", "turn/end"]
        _aborted(agent)


async def test_cancel_in_pre_step_stops_before_step_start() -> None:
    async with loop_harness() as h:
        agent, _ = await h.create()

        async def cancelling(payload: PreStep) -> None:
            payload.agent.cancel()

        h.ctx.on(AGENT_PRE_STEP, cancelling)
        agent.send("hi")
        await agent.when_idle()
        assert "step/start" not in types(agent.session)
        _aborted(agent)
        assert h.model.requests == []


async def test_cancel_at_step_start_closes_the_step_without_a_request() -> None:
    async with loop_harness() as h:
        agent, _ = await h.create()

        def on_event(notice: SessionEventNotice) -> None:
            if notice.event.type == "step/start":
                agent.cancel()

        h.ctx.on(SESSION_EVENT, on_event)
        agent.send("hi")
        await agent.when_idle()
        assert types(agent.session) == [
            "turn/start",
            "user/message",
            "step/start",
            "step/end",
            "turn/end",
        ]
        _aborted(agent)
        assert h.model.requests == []


async def test_cancel_mid_stream_keeps_the_chunks_and_logs_no_message() -> None:
    hang = Hang(chunks=text_reply("partial answer").chunks[:3])
    async with loop_harness(hang, text_reply("fresh")) as h:
        agent, _ = await h.create()
        agent.send("hi")
        await hang.reached.wait()
        agent.cancel()
        await agent.when_idle()
        log = types(agent.session)
        assert log.count("assistant/chunk") == 3
        assert "assistant/message" not in log
        assert log[-2:] == ["step/end", "turn/end"]
        _aborted(agent)
        agent.send("again")
        await agent.when_idle()
        assert [m.role for m in h.model.requests[1].messages] == ["user", "user"]


async def test_cancel_during_a_tool_answers_it_and_the_rest_as_aborted() -> None:
    started = anyio.Event()
    polled: list[bool] = []

    async def stuck(args: JsonObject, call: ToolExecution) -> str:
        assert call.cancel is not None
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            polled.append(call.cancel.is_set())
        raise AssertionError("unreachable")

    specs = [ToolCallSpec(id=f"c{i}", name="stuck", arguments="{}") for i in range(2)]
    async with loop_harness(tool_reply(*specs)) as h:
        h.tool("stuck", stuck)
        agent, _ = await h.create()
        agent.send("hi")
        await started.wait()
        agent.cancel()
        await agent.when_idle()
        results = of_type(agent.session, "tool/result")
        assert [r["callId"] for r in results] == ["c0", "c1"]
        assert all(r["error"] == {"name": "ToolCallSkipped", "code": "ABORTED"} for r in results)
        assert polled == [True]
        _aborted(agent)


async def test_cancel_between_tool_calls_skips_the_rest_and_keeps_a_valid_transcript() -> None:
    ran: list[str] = []
    holder: list[Agent] = []

    async def first_cancels(args: JsonObject, call: ToolExecution) -> str:
        ran.append(call.call_id)
        if call.call_id == "c0":
            holder[0].cancel()
        return f"ran {call.call_id}"

    specs = [ToolCallSpec(id=f"c{i}", name="step", arguments="{}") for i in range(3)]
    async with loop_harness(tool_reply(*specs), text_reply("ok")) as h:
        h.tool("step", first_cancels)
        agent, _ = await h.create()
        holder.append(agent)
        agent.send("hi")
        await agent.when_idle()
        assert ran == ["c0"]
        results = of_type(agent.session, "tool/result")
        assert [(r["callId"], r["isError"]) for r in results] == [
            ("c0", False),
            ("c1", True),
            ("c2", True),
        ]
        _aborted(agent)
        agent.send("again")
        await agent.when_idle()
        history = h.model.requests[1].messages
        assert [m.role for m in history] == ["user", "assistant", "user", "user", "user", "user"]
        assert history[-1].content == (TextBlock(text="again"),)


async def test_cancel_at_the_continuation_ends_the_turn_aborted() -> None:
    async def noop(args: JsonObject, call: ToolExecution) -> str:
        return "ok"

    async with loop_harness(
        tool_reply(ToolCallSpec(id="c", name="noop", arguments="{}")), text_reply("never")
    ) as h:
        h.tool("noop", noop)
        agent, _ = await h.create()

        async def cancelling(
            payload: TurnContinuation, proceed: Callable[[], Awaitable[ContinuationDecision]]
        ) -> ContinuationDecision:
            agent.cancel()
            return await proceed()

        h.ctx.on(AGENT_TURN_CONTINUATION, cancelling)
        agent.send("hi")
        await agent.when_idle()
        assert len(h.model.requests) == 1
        assert types(agent.session)[-2:] == ["step/end", "turn/end"]
        _aborted(agent)


async def test_cancel_drops_queued_and_steering_messages() -> None:
    hang = Hang()
    async with loop_harness(hang, text_reply("after")) as h:
        agent, _ = await h.create()
        agent.send("first")
        await hang.reached.wait()
        agent.send("queued meanwhile")
        agent.steer("steer meanwhile")
        agent.cancel()
        await agent.when_idle()
        assert reasons(agent.session) == ["aborted"]
        assert len(of_type(agent.session, "user/message")) == 1
        assert "steering/message" not in types(agent.session)


async def test_cancel_without_work_is_a_no_op() -> None:
    async with loop_harness(text_reply("fine")) as h:
        agent, _ = await h.create()
        agent.cancel()
        agent.send("hi")
        await agent.when_idle()
        assert reasons(agent.session) == ["completed"]
