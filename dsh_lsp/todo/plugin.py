"""TodoPlugin: registers ``todo_write`` and its prompt section (todo layer)."""

from __future__ import annotations

from typing import ClassVar

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.session import EVENT_PAYLOADS
from dsh_lsp.tools import SYSTEM_PROMPT, TOOLS, PromptSection

from .events import TodoWritePayload
from .tool import todo_write_tool

TODO_TEXT = """\
Planning: for a task with several steps, write a short plan with `todo_write` first and \
keep it current as you go: exactly one item `in_progress`, items `completed` as soon as \
they are done, new items when you discover work. The user watches this list. Skip it for \
a single quick step."""

TODO_SECTION = PromptSection(name="tool:todo_write", order=120, text=TODO_TEXT)
"""How the model is taught to plan."""


class TodoPlugin(Plugin[None]):
    """Registers ``todo_write`` and ``TODO_SECTION``; injects ``TOOLS`` and ``SYSTEM_PROMPT``."""

    name: ClassVar[str] = "todo"
    inject = (TOOLS, SYSTEM_PROMPT)

    async def apply(self, ctx: Context, config: None) -> None:
        """Register the tool, its section and ``TodoWritePayload`` (they leave with the
        plugin).

        Raises ToolError (``DUPLICATE_TOOL`` / ``DUPLICATE_SECTION``) on a name clash.
        """
        ctx.effect(lambda: EVENT_PAYLOADS.register(TodoWritePayload))
        ctx.require(TOOLS).register(todo_write_tool(), ctx=ctx)
        ctx.require(SYSTEM_PROMPT).section(TODO_SECTION, ctx=ctx)
