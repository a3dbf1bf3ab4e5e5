"""todo_write: whole-list replace logged as todo/write, validation, and the plan update."""

from __future__ import annotations

from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import CallId, JsonValue, SessionId, TextBlock
from dsh_lsp.server.sessions import UpdateTranslator
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.todo import TODO_WRITE, TodoPlugin
from dsh_lsp.tools import TOOLS, ToolExecution, ToolResult, ToolsPlugin


async def _write(session: Session, todos: JsonValue) -> ToolResult:
    async with Kernel() as kernel:
        await kernel.context.plugin(ToolsPlugin)
        await kernel.context.plugin(TodoPlugin)
        registry = kernel.context.require(TOOLS)
        execution = ToolExecution(
            call_id=CallId("t1"), name="todo_write", arguments={"todos": todos}, session=session
        )
        return (await registry.execute(execution)).result


def _session() -> Session:
    return Session(SessionHeader(id=SessionId("s1"), created_at=0, cwd="/w"))


def _text(result: ToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextBlock))


async def test_a_plan_is_logged_and_rendered_as_a_plan_update() -> None:
    session = _session()
    todos: JsonValue = [
        {"content": "Run the tests", "status": "completed"},
        {"content": "Fix the failure", "status": "in_progress"},
        {"content": "Rerun", "status": "pending"},
    ]
    result = await _write(session, todos)
    assert not result.is_error
    assert _text(result) == ("Plan (1/3 done):\n[x] Run the tests\n[~] Fix the failure\n[ ] Rerun")
    logged = [e for e in session.events if e.type == TODO_WRITE]
    assert len(logged) == 1
    assert logged[0].data == {"todos": todos}
    updates = UpdateTranslator(None, "/w").translate(logged[0])
    assert updates == [
        {
            "kind": "plan_update",
            "entries": [
                {"content": "Run the tests", "status": "completed", "priority": "medium"},
                {"content": "Fix the failure", "status": "in_progress", "priority": "medium"},
                {"content": "Rerun", "status": "pending", "priority": "medium"},
            ],
        }
    ]


async def test_bad_lists_are_refused_and_not_logged() -> None:
    session = _session()
    two_running: JsonValue = [
        {"content": "a", "status": "in_progress"},
        {"content": "b", "status": "in_progress"},
    ]
    duplicate: JsonValue = [
        {"content": "a", "status": "pending"},
        {"content": " A ", "status": "pending"},
    ]
    empty: JsonValue = [{"content": "  ", "status": "pending"}]
    bad_status: JsonValue = [{"content": "a", "status": "done"}]
    for todos, needle in (
        (two_running, "at most one item"),
        (duplicate, "repeats an earlier item"),
        (empty, "must not be empty"),
        (bad_status, "status"),
    ):
        result = await _write(session, todos)
        assert result.is_error
        assert needle in _text(result)
    assert not [e for e in session.events if e.type == TODO_WRITE]


async def test_an_empty_list_clears_the_plan() -> None:
    session = _session()
    result = await _write(session, [])
    assert _text(result) == "The plan is empty."
    assert [e.data for e in session.events if e.type == TODO_WRITE] == [{"todos": []}]
