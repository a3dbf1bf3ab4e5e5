"""The invariants plugin: records (and in strict mode raises) log and status violations."""

from __future__ import annotations

import pytest

from dsh_lsp.agent import (
    AGENT_STATUS,
    INVARIANTS,
    Agent,
    AgentId,
    AgentStatus,
    InvariantsPlugin,
    InvariantViolation,
    StatusChange,
)
from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import SessionId
from dsh_lsp.session import SESSIONS, SessionPlugin


async def test_a_log_break_is_recorded_and_raised_in_strict_mode() -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(InvariantsPlugin, {"strict": True})
        await ctx.plugin(SessionPlugin)
        session = ctx.require(SESSIONS).create(session_id=SessionId("s"))
        session.append("turn/start", {"turn": 1, "trigger": {"kind": "injection"}})
        with pytest.raises(InvariantViolation, match="outside any step"):
            session.append(
                "tool/call",
                {"turn": 1, "step": 1, "callId": "c", "name": "read", "arguments": "{}"},
            )
        assert len(session) == 2, "the event is logged before listeners run"
        checker = ctx.require(INVARIANTS)
        assert checker.violations == ["seq 1 (tool/call): outside any step"]
        with pytest.raises(InvariantViolation, match="without a result: c"):
            session.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})


async def test_a_resumed_log_is_folded_before_new_events_are_checked() -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin)
        store = ctx.require(SESSIONS)
        first = store.create(session_id=SessionId("a"))
        first.append("turn/start", {"turn": 1, "trigger": {"kind": "injection"}})
        first.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
        await ctx.plugin(InvariantsPlugin, {"strict": True})
        forked = store.create(session_id=SessionId("b"), seed=tuple(first.events))
        forked.append("turn/start", {"turn": 2, "trigger": {"kind": "injection"}})
        with pytest.raises(InvariantViolation, match="turn 2 does not follow turn 2"):
            forked.append("turn/start", {"turn": 2, "trigger": {"kind": "injection"}})


async def test_status_changes_must_be_legal_and_consistent() -> None:
    class Stub:
        id = AgentId("a")

    # The checker reads only ``id`` (and identity) from the agent.
    agent: Agent = Stub()  # type: ignore[assignment]
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(InvariantsPlugin)
        checker = ctx.require(INVARIANTS)
        steps: list[tuple[AgentStatus, AgentStatus]] = [
            ("idle", "running"),
            ("running", "idle"),
            ("idle", "disposed"),
        ]
        for previous, status in steps:
            ctx.emit(AGENT_STATUS, StatusChange(agent=agent, previous=previous, status=status))
        assert checker.violations == []
        ctx.emit(AGENT_STATUS, StatusChange(agent=agent, previous="disposed", status="running"))
        assert checker.violations == ["agent 'a': illegal status change 'disposed' → 'running'"]
        ctx.emit(AGENT_STATUS, StatusChange(agent=agent, previous="idle", status="running"))
        assert checker.violations[1:] == ["agent 'a': status change from 'idle', was 'running'"]
