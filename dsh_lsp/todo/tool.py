"""The ``todo_write`` tool: the plan the user sees, replaced whole on every call (todo layer).

Each call replaces the list. It must name each item once (content compared after trimming),
none empty, and at most one ``in_progress``. The accepted list is logged as a ``todo/write``
session event (``{"todos": [{content, status}]}``, last write wins), which front ends render
as the plan (``plan_update``), live and on resume. The model reads the list back as a
checklist.
"""

from __future__ import annotations

from typing import Final

from dsh_lsp.llm import JsonObject, JsonValue, TextBlock
from dsh_lsp.tools import (
    Prop,
    ToolArgsError,
    ToolCallView,
    ToolDefinition,
    ToolExecution,
    ToolOutcome,
    ToolResult,
    ToolResultView,
    define_tool,
)

from .events import PlanEntry, TodoWritePayload

STATUSES: Final = ("pending", "in_progress", "completed")
MARKS: Final = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
MAX_ITEMS: Final = 50
MAX_CONTENT: Final = 500

DESCRIPTION = (
    "Write your plan for the current task as a todo list the user sees. Each call replaces the "
    "whole list; keep exactly one item in_progress while you work and mark items completed as "
    "soon as they are done."
)


def check_todos(raw: JsonValue) -> tuple[tuple[str, str], ...]:
    """The (content, status) pairs of a valid list.

    Raises ToolArgsError naming each problem: empty or too long content, a duplicate, more
    than one ``in_progress``, too many items.
    """
    assert isinstance(raw, list)  # the schema said "array"
    problems: list[str] = []
    seen: set[str] = set()
    items: list[tuple[str, str]] = []
    for index, item in enumerate(raw):
        assert isinstance(item, dict)
        content = str(item.get("content", "")).strip()
        status = str(item.get("status", "pending"))
        if not content:
            problems.append(f'"todos[{index}].content" must not be empty')
        elif len(content) > MAX_CONTENT:
            problems.append(f'"todos[{index}].content" must be at most {MAX_CONTENT} characters')
        elif content.casefold() in seen:
            problems.append(f'"todos[{index}]" repeats an earlier item')
        seen.add(content.casefold())
        items.append((content, status))
    if len(items) > MAX_ITEMS:
        problems.append(f'"todos" must have at most {MAX_ITEMS} items')
    if sum(1 for _, status in items if status == "in_progress") > 1:
        problems.append('at most one item may be "in_progress"')
    if problems:
        raise ToolArgsError(problems)
    return tuple(items)


def checklist(items: tuple[tuple[str, str], ...]) -> str:
    """The list as the model reads it back."""
    if not items:
        return "The plan is empty."
    done = sum(1 for _, status in items if status == "completed")
    lines = [f"{MARKS[status]} {content}" for content, status in items]
    return f"Plan ({done}/{len(items)} done):\n" + "\n".join(lines)


def todo_write_tool() -> ToolDefinition:
    """The ``todo_write`` definition."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        items = check_todos(args.get("todos"))
        todos: list[JsonValue] = [
            {"content": content, "status": status} for content, status in items
        ]
        if execution.session is not None:
            entries = tuple(PlanEntry(content=c, status=s) for c, s in items)
            execution.session.write(TodoWritePayload(entries=entries))
        meta: dict[str, JsonValue] = {"todos": todos}
        return ToolOutcome(content=(TextBlock(text=checklist(items)),), meta=meta)

    def present_call(args: JsonObject) -> ToolCallView:
        return ToolCallView(title="Update the plan", kind="other")

    def present_result(args: JsonObject, result: ToolResult) -> ToolResultView:
        text = "".join(b.text for b in result.content if isinstance(b, TextBlock))
        return ToolResultView(title="Update the plan", summary=None if result.is_error else text)

    item = Prop(
        type="object",
        properties={
            "content": Prop(type="string", required=True, description="What to do, imperative"),
            "status": Prop(
                type="string", required=True, enum=STATUSES, description="Where it stands"
            ),
        },
    )
    return define_tool(
        "todo_write",
        DESCRIPTION,
        {"todos": Prop(type="array", required=True, items=item, description="The whole list")},
        execute,
        present_call=present_call,
        present_result=present_result,
    )
