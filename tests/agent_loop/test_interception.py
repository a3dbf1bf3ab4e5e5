"""The agent's interception seams: prompt-submit, pre-step, request, step-result,
turn-continuation, and post-execute context."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from dsh_lsp.agent import (
    AGENT_PRE_STEP,
    AGENT_PROMPT_SUBMIT,
    AGENT_REQUEST,
    AGENT_STEP_RESULT,
    AGENT_TURN_CONTINUATION,
    ContinuationDecision,
    PreStep,
    PromptAllow,
    PromptBlock,
    PromptDecision,
    PromptSubmit,
    RequestPayload,
    StepResult,
    TurnContinuation,
    TurnContinue,
    TurnStop,
)
from dsh_lsp.llm import CallId, JsonObject, LlmRequest, Message, TextBlock, ToolCallBlock
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import (
    Reply,
    ScriptedModel,
    ScriptedModelPlugin,
    text_reply,
    tool_reply,
)
from dsh_lsp.tools import (
    SYSTEM_PROMPT,
    TOOLS_POST_EXECUTE,
    Accept,
    PostExecutePayload,
    PostToolDecision,
    PromptSection,
    ToolExecution,
)

from .harness import loop_harness, of_type, reasons, texts, types


def _gate(blocked_word: str) -> Callable[..., Awaitable[PromptDecision]]:
    async def gate(
        payload: PromptSubmit, proceed: Callable[[], Awaitable[PromptDecision]]
    ) -> PromptDecision:
        text = "".join(b.text for b in payload.content if isinstance(b, TextBlock))
        if blocked_word in text:
            return PromptBlock(reason=f"no {blocked_word}")
        return await proceed()

    return gate


async def test_a_fully_blocked_batch_is_a_rejected_turn_without_steps() -> None:
    async with loop_harness() as h:
        h.ctx.on(AGENT_PROMPT_SUBMIT, _gate("secret"))
        agent, _ = await h.create()
        agent.send("the secret is 42")
        await agent.when_idle()
        assert types(agent.session) == ["turn/start", "prompt/blocked", "turn/end"]
        (end,) = of_type(agent.session, "turn/end")
        assert end["reason"] == {"kind": "rejected", "reason": "no secret"}
        assert h.model.requests == []


async def test_allowed_messages_may_be_rewritten_and_bring_context() -> None:
    async def rewrite(
        payload: PromptSubmit, proceed: Callable[[], Awaitable[PromptDecision]]
    ) -> PromptDecision:
        return PromptAllow(
            content=(TextBlock(text="rewritten"),),
            additional_context=(TextBlock(text="hook context"),),
        )

    async with loop_harness(text_reply("ok")) as h:
        h.ctx.on(AGENT_PROMPT_SUBMIT, rewrite)
        agent, _ = await h.create()
        agent.send("original")
        await agent.when_idle()
        log = types(agent.session)
        assert log[:3] == ["turn/start", "user/message", "context/message"]
        (user,) = of_type(agent.session, "user/message")
        assert texts(user["content"]) == ["rewritten"]
        (context,) = of_type(agent.session, "context/message")
        assert context["source"] == {"kind": "plugin", "plugin": "agent/prompt-submit"}
        assert h.model.requests[0].messages[0].content == (TextBlock(text="rewritten"),)


async def test_a_batch_with_one_blocked_message_still_runs() -> None:
    async with loop_harness(text_reply("ok")) as h:
        h.ctx.on(AGENT_PROMPT_SUBMIT, _gate("secret"))
        agent, _ = await h.create()
        agent.send("the secret")
        agent.send("a question")
        await agent.when_idle()
        assert len(of_type(agent.session, "turn/start")) == 1
        assert [t for t in types(agent.session) if t in ("prompt/blocked", "user/message")] == [
            "prompt/blocked",
            "user/message",
        ]
        assert reasons(agent.session) == ["completed"]


async def test_pre_step_sees_the_rendered_system_prompt() -> None:
    async with loop_harness(text_reply("ok")) as h:
        h.ctx.require(SYSTEM_PROMPT).section(PromptSection(name="rules", order=1, text="Rules."))
        seen: list[tuple[int, int, str]] = []

        async def record(payload: PreStep) -> None:
            seen.append((payload.turn, payload.step, payload.system_prompt))

        h.ctx.on(AGENT_PRE_STEP, record)
        agent, _ = await h.create(system_prompt="Agent prompt.")
        agent.send("go")
        await agent.when_idle()
        assert seen == [(1, 1, "Rules.\n\nAgent prompt.")]
        assert h.model.requests[0].system == "Rules.\n\nAgent prompt."


async def test_the_request_waterfall_can_switch_models() -> None:
    other = ScriptedModel(text_reply("from the other model"))

    async def switch(
        payload: RequestPayload, proceed: Callable[[], Awaitable[LlmRequest]]
    ) -> LlmRequest:
        return dataclasses.replace(await proceed(), model="other")

    async with loop_harness() as h:
        await h.ctx.plugin(ScriptedModelPlugin(other, models=("other",)))
        h.ctx.on(AGENT_REQUEST, switch)
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        assert h.model.requests == []
        assert [r.model for r in other.requests] == ["other"]
        assert reasons(agent.session) == ["completed"]


async def test_step_result_rewrites_what_is_logged_and_dispatched() -> None:
    ran: list[str] = []

    async def work(args: JsonObject, call: ToolExecution) -> str:
        ran.append(str(args.get("path")))
        return "ok"

    async def redirect(payload: StepResult, proceed: Callable[[], Awaitable[Message]]) -> Message:
        message = await proceed()
        content = tuple(
            ToolCallBlock(id=CallId("swapped"), name=b.name, arguments='{"path": "safe"}')
            if isinstance(b, ToolCallBlock)
            else b
            for b in message.content
        )
        return dataclasses.replace(message, content=content)

    spec = ToolCallSpec(id="orig", name="work", arguments='{"path": "danger"}')
    async with loop_harness(tool_reply(spec), text_reply("done")) as h:
        h.tool("work", work)
        h.ctx.on(AGENT_STEP_RESULT, redirect)
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        assert ran == ["safe"]
        (call,) = of_type(agent.session, "tool/call")
        assert (call["callId"], call["arguments"]) == ("swapped", '{"path": "safe"}')
        history = h.model.requests[1].messages
        assert history[1].content == (
            ToolCallBlock(id=CallId("swapped"), name="work", arguments='{"path": "safe"}'),
        )


async def test_continuation_can_force_a_stop_or_continue_with_a_reason() -> None:
    async def work(args: JsonObject, call: ToolExecution) -> str:
        return "ok"

    decisions: list[ContinuationDecision] = [
        TurnContinue(reason=(TextBlock(text="keep going"),)),
        TurnStop(),
    ]

    async def scripted(
        payload: TurnContinuation, proceed: Callable[[], Awaitable[ContinuationDecision]]
    ) -> ContinuationDecision:
        return decisions.pop(0)

    async with loop_harness(text_reply("first"), _tool("c"), text_reply("unused")) as h:
        h.tool("work", work)
        h.ctx.on(AGENT_TURN_CONTINUATION, scripted)
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        assert len(h.model.requests) == 2
        (steering,) = of_type(agent.session, "steering/message")
        assert steering["source"] == {"kind": "plugin", "plugin": "agent/turn-continuation"}
        assert reasons(agent.session) == ["completed"]
        assert h.model.remaining == 1


def _tool(call_id: str) -> Reply:
    return tool_reply(ToolCallSpec(id=call_id, name="work", arguments="{}"))


async def test_post_execute_context_follows_all_results_of_the_step() -> None:
    async def work(args: JsonObject, call: ToolExecution) -> str:
        return "ok"

    async def annotate(
        payload: PostExecutePayload, proceed: Callable[[], Awaitable[PostToolDecision]]
    ) -> PostToolDecision:
        await proceed()
        note = TextBlock(text=f"note for {payload.exec.call_id}")
        return Accept(additional_context=(note,))

    specs = [ToolCallSpec(id=f"c{i}", name="work", arguments="{}") for i in range(2)]
    async with loop_harness(tool_reply(*specs), text_reply("done")) as h:
        h.tool("work", work)
        h.ctx.on(TOOLS_POST_EXECUTE, annotate)
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        log = types(agent.session)
        assert log[log.index("tool/result") : log.index("step/end")] == [
            "tool/result",
            "tool/result",
            "context/message",
            "context/message",
        ]
        contexts = of_type(agent.session, "context/message")
        assert [texts(c["content"]) for c in contexts] == [["note for c0"], ["note for c1"]]
        assert contexts[0]["source"] == {"kind": "plugin", "plugin": "tools"}
