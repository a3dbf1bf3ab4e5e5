"""Several agents in one kernel, "model-visible means logged", and send bursts (property)."""

from __future__ import annotations

import anyio
import anyio.lowlevel
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_lsp.agent import Agent
from dsh_lsp.llm import JsonObject, LlmRequest, PluginSource, ToolResultBlock
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import Reply, Respond, text_reply, tool_reply
from dsh_lsp.tools import ToolExecution

from .harness import Harness, loop_harness, of_type, reasons, texts


def _visible_means_logged(h: Harness, seen: list[LlmRequest]) -> Respond:
    """An entry that checks the request against the log, then answers: a tool call unless the
    last message is a tool result."""

    def respond(request: LlmRequest) -> Reply:
        assert request.session_id is not None
        session = h.sessions.get(request.session_id)
        assert session is not None
        assert request.messages == session.derive_messages()
        seen.append(request)
        last = request.messages[-1].content[-1]
        if isinstance(last, ToolResultBlock):
            return text_reply(f"done after {last.tool_call_id}")
        call_id = f"{request.session_id[:8]}-{len(request.messages)}"
        return tool_reply(ToolCallSpec(id=call_id, name="meet", arguments="{}"))

    return Respond(fn=respond)


async def test_agents_run_concurrently_and_keep_their_logs_apart() -> None:
    count = 4
    arrived = 0
    everyone = anyio.Event()

    async def meet(args: JsonObject, call: ToolExecution) -> str:
        nonlocal arrived
        arrived += 1
        if arrived == count:
            everyone.set()
        await everyone.wait()
        return "met"

    seen: list[LlmRequest] = []
    async with loop_harness() as h:
        h.model.add(*[_visible_means_logged(h, seen)] * (2 * count))
        h.tool("meet", meet)
        agents: list[Agent] = []
        for _ in range(count):
            agent, _ = await h.create()
            agents.append(agent)
        for index, agent in enumerate(agents):
            agent.send(f"hello from {index}")
        async with anyio.create_task_group() as group:
            for agent in agents:
                group.start_soon(agent.when_idle)
        assert everyone.is_set(), "every agent was inside the tool at the same time"
        assert len(seen) == 2 * count
        for index, agent in enumerate(agents):
            (user,) = of_type(agent.session, "user/message")
            assert texts(user["content"]) == [f"hello from {index}"]
            (result,) = of_type(agent.session, "tool/result")
            assert str(result["callId"]).startswith(agent.session.id[:8])
            assert reasons(agent.session) == ["completed"]


async def test_every_request_is_exactly_the_derived_log() -> None:
    seen: list[LlmRequest] = []
    holder: list[Agent] = []

    async def meet(args: JsonObject, call: ToolExecution) -> str:
        if len(seen) == 1:
            holder[0].steer("a steer")
            holder[0].inject("a note", source=PluginSource(plugin="test"))
        return "met"

    async with loop_harness() as h:
        h.model.add(*[_visible_means_logged(h, seen)] * 6)
        h.tool("meet", meet)
        agent, _ = await h.create()
        holder.append(agent)
        agent.inject("before anything")
        agent.send("first")
        await agent.when_idle()
        agent.send("second")
        await agent.when_idle()
        assert len(seen) == 5
        assert reasons(agent.session) == ["completed", "completed", "completed"]
        assert h.model.remaining == 1


@st.composite
def _bursts(draw: st.DrawFn) -> list[tuple[int, int, bool]]:
    """Bursts of (sends, steers, wait-for-idle-after) — at least one send overall."""
    bursts = draw(
        st.lists(
            st.tuples(st.integers(0, 4), st.integers(0, 2), st.booleans()), min_size=1, max_size=6
        )
    )
    if not any(sends for sends, _, _ in bursts):
        bursts[0] = (1, bursts[0][1], bursts[0][2])
    return bursts


async def _run_bursts(bursts: list[tuple[int, int, bool]]) -> None:
    async with loop_harness() as h:
        h.model.add(*[Respond(fn=lambda request: text_reply("ok"))] * 64)
        agent, _ = await h.create()
        sent: list[str] = []
        for index, (sends, steers, wait) in enumerate(bursts):
            for n in range(sends):
                sent.append(f"m{index}.{n}")
                agent.send(sent[-1])
            for n in range(steers):
                sent.append(f"s{index}.{n}")
                agent.steer(sent[-1])
            if wait:
                await agent.when_idle()
            else:
                await anyio.lowlevel.checkpoint()
        await agent.when_idle()
        logged = [
            text
            for event in agent.session.events
            if event.type in ("user/message", "steering/message")
            for text in texts(event.data["content"])
        ]
        assert sorted(logged) == sorted(sent), "every message is logged exactly once"
        for kind in "ms":
            in_log = [text for text in logged if text.startswith(kind)]
            assert in_log == [text for text in sent if text.startswith(kind)], "FIFO order"
        turns = [e["turn"] for e in of_type(agent.session, "turn/start")]
        assert turns == list(range(1, len(turns) + 1))
        assert len(of_type(agent.session, "turn/end")) == len(turns)
        assert agent.session.open_turn() is None


@settings(max_examples=40, deadline=None)
@given(bursts=_bursts())
def test_bursts_of_sends_never_lose_a_message(bursts: list[tuple[int, int, bool]]) -> None:
    anyio.run(_run_bursts, bursts, backend="asyncio")
