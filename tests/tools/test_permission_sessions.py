"""Standing permission answers are kept per session: another session is asked afresh."""

from __future__ import annotations

from dsh_lsp.llm import CallId, SessionId
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import PERMISSIONS, TOOLS_PRE_EXECUTE, ToolExecution

from .permission_support import ScriptedPermissions, ask
from .support import text_tool, tools_kernel


def in_session(session: Session, name: str = "bash") -> ToolExecution:
    return ToolExecution(call_id=CallId("c"), name=name, arguments={}, session=session)


async def test_allow_always_holds_for_its_session_only() -> None:
    first = Session(SessionHeader(id=SessionId("s1"), created_at=0))
    second = Session(SessionHeader(id=SessionId("s2"), created_at=0))
    service = ScriptedPermissions(answers=["allow_always", "reject_always"])
    async with tools_kernel() as h:
        h.registry.register(text_tool("bash"))
        h.ctx.provide(PERMISSIONS, service)
        h.ctx.on(TOOLS_PRE_EXECUTE, ask())
        assert not (await h.registry.execute(in_session(first))).result.is_error
        assert (await h.registry.execute(in_session(second))).result.is_error
        assert not (await h.registry.execute(in_session(first))).result.is_error
        assert (await h.registry.execute(in_session(second))).result.is_error
    assert [request.execution.session for request in service.requests] == [first, second]
