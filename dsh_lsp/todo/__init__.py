"""Todo: the plan the user sees — ``todo_write`` logging ``todo/write`` session events."""

from __future__ import annotations

from .events import TODO_WRITE as TODO_WRITE
from .events import PlanEntry as PlanEntry
from .events import TodoWritePayload as TodoWritePayload
from .plugin import TODO_SECTION as TODO_SECTION
from .plugin import TodoPlugin as TodoPlugin
from .tool import check_todos as check_todos
from .tool import checklist as checklist
from .tool import todo_write_tool as todo_write_tool

__all__ = (
    "TODO_SECTION",
    "TODO_WRITE",
    "PlanEntry",
    "TodoPlugin",
    "TodoWritePayload",
    "check_todos",
    "checklist",
    "todo_write_tool",
)
