"""Turn-level containment: every failure ends its turn with error{step, message, code} and the
agent keeps working; flush failures are reported but never logged."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from dsh_lsp.agent import (
    AGENT_ERROR,
    AGENT_PRE_STEP,
    AGENT_PROMPT_SUBMIT,
    AGENT_REQUEST,
    AGENT_STEP_RESULT,
    AGENT_TURN_CONTINUATION,
    AgentFailure,
    RequestPayload,
)
from dsh_lsp.kernel import Context
from dsh_lsp.llm import JsonObject, LlmRequest
from dsh_lsp.session import SESSION_EVENT, SESSION_FLUSH, Session, SessionEventNotice
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import Fail, finish_error_reply, text_reply, tool_reply
from dsh_lsp.tools import ToolExecution

from .harness import loop_harness, of_type, reasons


def _errors(session: Session) -> list[JsonObject]:
    out: list[JsonObject] = []
    for data in of_type(session, "turn/end"):
        reason = data["reason"]
        assert isinstance(reason, dict)
        if reason["kind"] == "error":
            out.append(reason)
    return out


async def test_a_failing_model_call_fails_the_turn_and_the_agent_goes_on() -> None:
    async with loop_harness(
        Fail(message="upstream broke", code="SERVER"), text_reply("recovered")
    ) as h:
        failures: list[AgentFailure] = []
        h.ctx.on(AGENT_ERROR, failures.append)
        agent, _ = await h.create()
        agent.send("one")
        await agent.when_idle()
        assert _errors(agent.session) == [
            {"kind": "error", "step": 1, "message": "upstream broke", "code": "SERVER"}
        ]
        assert [(f.turn, f.step, str(f.error)) for f in failures] == [(1, 1, "upstream broke")]
        agent.send("two")
        await agent.when_idle()
        assert reasons(agent.session) == ["error", "completed"]
        assert agent.status == "idle"


async def test_an_in_band_finish_error_carries_the_provider_code() -> None:
    async with loop_harness(finish_error_reply("filtered", "CONTENT_FILTER", text="par")) as h:
        agent, _ = await h.create()
        agent.send("x")
        await agent.when_idle()
        (error,) = _errors(agent.session)
        assert error["code"] == "CONTENT_FILTER"
        assert error["step"] == 1
        assert "assistant/message" not in [e.type for e in agent.session.events]


async def _raise(*_: Any) -> Any:
    # Any: stands in for listeners of several payload and result types.
    raise RuntimeError("listener broke")


def _on_prompt(ctx: Context) -> None:
    ctx.on(AGENT_PROMPT_SUBMIT, _raise)


def _on_pre_step(ctx: Context) -> None:
    ctx.on(AGENT_PRE_STEP, _raise)


def _on_request(ctx: Context) -> None:
    ctx.on(AGENT_REQUEST, _raise)


def _on_step_result(ctx: Context) -> None:
    ctx.on(AGENT_STEP_RESULT, _raise)


def _on_continuation(ctx: Context) -> None:
    ctx.on(AGENT_TURN_CONTINUATION, _raise)


def _on_step_end(ctx: Context) -> None:
    def listener(notice: SessionEventNotice) -> None:
        if notice.event.type == "step/end":
            raise RuntimeError("listener broke")

    ctx.on(SESSION_EVENT, listener)


@pytest.mark.parametrize(
    ("install", "step"),
    [
        (_on_prompt, 0),
        (_on_pre_step, 1),
        (_on_request, 1),
        (_on_step_result, 1),
        (_on_step_end, 1),
        (_on_continuation, 1),
    ],
    ids=["prompt-submit", "pre-step", "request", "step-result", "step/end", "continuation"],
)
async def test_a_raising_seam_listener_fails_only_its_turn(
    install: Callable[[Context], None], step: int
) -> None:
    async with loop_harness(text_reply("a"), text_reply("b")) as h:
        agent, handle = await h.create()
        install(h.ctx)
        agent.send("x")
        await agent.when_idle()
        assert _errors(agent.session) == [
            {"kind": "error", "step": step, "message": "listener broke", "code": "UNKNOWN"}
        ]
        assert agent.session.open_turn() is None
        await handle.dispose()


async def test_a_request_without_a_model_fails_with_no_model() -> None:
    async def no_model(
        payload: RequestPayload, proceed: Callable[[], Awaitable[LlmRequest]]
    ) -> LlmRequest:
        return dataclasses.replace(await proceed(), model="")

    async with loop_harness() as h:
        h.ctx.on(AGENT_REQUEST, no_model)
        agent, _ = await h.create()
        agent.send("x")
        await agent.when_idle()
        (error,) = _errors(agent.session)
        assert error["code"] == "NO_MODEL"
        assert h.model.requests == []


async def test_a_failing_tool_is_an_error_result_not_a_failed_turn() -> None:
    async def broken(args: JsonObject, call: ToolExecution) -> str:
        raise OSError("disk on fire")

    async with loop_harness(
        tool_reply(ToolCallSpec(id="c", name="broken", arguments="{}")), text_reply("noted")
    ) as h:
        h.tool("broken", broken)
        agent, _ = await h.create()
        agent.send("x")
        await agent.when_idle()
        (result,) = of_type(agent.session, "tool/result")
        assert result["isError"] is True
        assert reasons(agent.session) == ["completed"]


async def test_a_failure_while_logging_results_answers_every_remaining_call() -> None:
    async def ok(args: JsonObject, call: ToolExecution) -> str:
        return "fine"

    specs = [ToolCallSpec(id=f"c{i}", name="ok", arguments="{}") for i in range(3)]
    async with loop_harness(tool_reply(*specs)) as h:
        h.tool("ok", ok)
        failed_once = False

        def listener(notice: SessionEventNotice) -> None:
            nonlocal failed_once
            if notice.event.type == "tool/result" and not failed_once:
                failed_once = True
                raise RuntimeError("recorder broke")

        h.ctx.on(SESSION_EVENT, listener)
        agent, _ = await h.create()
        agent.send("x")
        await agent.when_idle()
        results = of_type(agent.session, "tool/result")
        assert [r["callId"] for r in results] == ["c0", "c1", "c2"]
        assert results[0]["isError"] is False
        for skipped in results[1:]:
            assert skipped["isError"] is True
            assert skipped["error"] == {"name": "ToolCallSkipped", "code": "TURN_FAILED"}
        assert reasons(agent.session) == ["error"]


async def test_a_flush_failure_fails_the_turn_before_the_model_is_asked() -> None:
    async def failing_flush(session: Session) -> None:
        raise OSError("disk full")

    async with loop_harness() as h:
        failures: list[AgentFailure] = []
        h.ctx.on(AGENT_ERROR, failures.append)
        h.ctx.on(SESSION_FLUSH, failing_flush)
        agent, _ = await h.create()
        agent.send("x")
        await agent.when_idle()
        assert reasons(agent.session) == ["error"]
        assert of_type(agent.session, "turn/end")[0]["reason"] == {
            "kind": "error",
            "step": 0,
            "message": "disk full",
            "code": "UNKNOWN",
        }
        # the turn's own failure, then the last flush after turn/end (not logged: no place)
        assert [(f.turn, f.step, str(f.error)) for f in failures] == [(1, 0, "disk full")] * 2
        assert [e.type for e in agent.session.events] == ["turn/start", "user/message", "turn/end"]
