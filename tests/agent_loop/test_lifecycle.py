"""Agent lifecycles: creation announcements, disposal order, resume, plugin unload."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from dsh_lsp.agent import (
    AGENT_CREATED,
    AGENT_DISPOSED,
    AGENT_SESSION_START,
    Agent,
    AgentCode,
    AgentError,
    AgentId,
    AgentOptions,
    AgentSpec,
    SessionStart,
)
from dsh_lsp.session import SESSION_FLUSH, Session
from dsh_lsp.testing.scripted_model import Hang, text_reply

from .harness import MODEL, loop_harness, of_type, reasons


async def test_creation_announces_then_starts_the_session() -> None:
    async with loop_harness(text_reply("ok")) as h:
        seen: list[str] = []
        h.ctx.on(AGENT_CREATED, lambda agent: seen.append(f"created {agent.id}"))

        def on_start(start: SessionStart) -> None:
            seen.append(f"start {start.reason} {len(start.agent.session.events)}")

        h.ctx.on(AGENT_SESSION_START, on_start)
        agent, _ = await h.create()
        assert seen == [f"created {agent.id}", "start startup 0"]
        assert str(agent.id) == str(agent.session.id)
        assert h.agents.get(agent.id) is agent
        assert agent.status == "idle"


async def test_disposal_closes_the_turn_and_flushes_before_the_session_detaches() -> None:
    hang = Hang()
    async with loop_harness(hang) as h:
        agent, handle = await h.create()
        order: list[str] = []

        async def on_flush(session: Session) -> None:
            attached = h.sessions.get(session.id) is session
            registered = h.agents.get(agent.id) is agent
            order.append(f"flush attached={attached} registered={registered}")

        h.ctx.on(SESSION_FLUSH, on_flush)
        h.ctx.on(AGENT_DISPOSED, lambda a: order.append("disposed"))
        agent.send("hi")
        await hang.reached.wait()
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(handle.dispose)
        # the turn's opening flush, then the one after its closing turn/end
        assert order == ["flush attached=True registered=True"] * 2 + ["disposed"]
        assert reasons(agent.session) == ["disposed"]
        assert agent.status == "disposed"
        assert h.agents.get(agent.id) is None
        assert h.sessions.get(agent.session.id) is None
        await agent.when_idle()
        with pytest.raises(AgentError) as caught:
            agent.send("too late")
        assert caught.value.code == AgentCode.AGENT_DISPOSED


async def test_when_idle_waiters_return_on_disposal() -> None:
    hang = Hang()
    async with loop_harness(hang) as h:
        agent, handle = await h.create()
        agent.send("hi")
        await hang.reached.wait()
        returned = anyio.Event()

        async def wait() -> None:
            await agent.when_idle()
            returned.set()

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.wait_all_tasks_blocked()
            assert not returned.is_set()
            await handle.dispose()
        assert returned.is_set()


async def test_unloading_the_kernel_disposes_running_agents() -> None:
    hang = Hang()
    agents: list[Agent] = []
    async with loop_harness(hang) as h:
        agent, _ = await h.create()
        agents.append(agent)
        agent.send("hi")
        await hang.reached.wait()
    assert reasons(agents[0].session) == ["disposed"]
    assert agents[0].status == "disposed"


async def test_duplicate_agent_ids_are_refused() -> None:
    async with loop_harness() as h:
        options = AgentOptions(model=MODEL)
        await h.agents.create(AgentSpec(options=options, agent_id=AgentId("a")))
        with pytest.raises(AgentError) as caught:
            await h.agents.create(AgentSpec(options=options, agent_id=AgentId("a")))
        assert caught.value.code == AgentCode.AGENT_EXISTS
        assert len(h.sessions.sessions()) == 1


async def test_resume_continues_the_turn_numbers_of_a_persisted_session(tmp_path: Path) -> None:
    async with loop_harness(text_reply("one"), directory=tmp_path) as h:
        agent, handle = await h.create(system_prompt="p")
        agent.send("first")
        await agent.when_idle()
        session_id = agent.session.id
        await handle.dispose()
    async with loop_harness(text_reply("two"), directory=tmp_path) as h:
        starts: list[str] = []
        h.ctx.on(AGENT_SESSION_START, lambda start: starts.append(start.reason))
        handle = await h.agents.resume(session_id, options=AgentOptions(model=MODEL))
        agent = handle.agent
        assert starts == ["resume"]
        assert agent.session.last_turn() == 1
        agent.send("second")
        await agent.when_idle()
        assert [e["turn"] for e in of_type(agent.session, "turn/start")] == [1, 2]
        (request,) = h.model.requests
        assert [m.role for m in request.messages] == ["user", "assistant", "user"]


async def test_an_agent_disposed_at_once_or_while_idle_exits_cleanly() -> None:
    async with loop_harness(text_reply("ok")) as h:
        fresh, fresh_handle = await h.create()
        await fresh_handle.dispose()
        assert fresh.status == "disposed"
        assert list(fresh.session.events) == []
        idle, idle_handle = await h.create()
        idle.send("hi")
        await idle.when_idle()
        await idle_handle.dispose()
        assert reasons(idle.session) == ["completed"]
        with pytest.raises(AgentError):
            idle.inject("late")
        assert h.agents.agents() == ()
