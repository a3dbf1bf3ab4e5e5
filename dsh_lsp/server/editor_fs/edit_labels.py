"""Edit labels: which tool call an edit belongs to, for the editor's undo stack (server layer).

The ``FileSystem`` seam carries no call information, so a ``tools/pre-execute`` listener
records the running call's title (the title the UI shows for it, paths relative to the
session's cwd), whether edits must be confirmed (``dsh.permissions.edit`` is ``ask``) and
its session (``current_session``: whose edits wait for a save) in context variables;
``tools/post-execute`` clears them. The pipeline awaits both listeners and
the tool in one task, so the value is exactly the call the provider is working for; work
outside any call gets a title of the provider's choosing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from dsh_lsp.llm import SessionId
from dsh_lsp.server.sessions import relative_title
from dsh_lsp.tools import (
    PostExecutePayload,
    PostToolDecision,
    PreToolDecision,
    ToolExecution,
    ToolRegistry,
)

from .workspace_edits import EditLabel

_CURRENT: ContextVar[EditLabel | None] = ContextVar("dsh_edit_label", default=None)
_SESSION: ContextVar[SessionId | None] = ContextVar("dsh_edit_session", default=None)

PreListener = Callable[
    [ToolExecution, Callable[[], Awaitable[PreToolDecision]]], Awaitable[PreToolDecision]
]
PostListener = Callable[
    [PostExecutePayload, Callable[[], Awaitable[PostToolDecision]]], Awaitable[PostToolDecision]
]


def current_label(fallback_title: str) -> EditLabel:
    """The label of the running tool call, or ``fallback_title`` outside of one."""
    label = _CURRENT.get()
    return label if label is not None else EditLabel(title=fallback_title)


def current_session() -> SessionId | None:
    """The session of the running tool call, or None outside of one (or for a call
    without a session)."""
    return _SESSION.get()


def label_listeners(
    tools: ToolRegistry, confirm: Callable[[], bool]
) -> tuple[PreListener, PostListener]:
    """The pre- and post-execute listeners; ``confirm()`` says whether edits need the user's
    confirmation (read at each call)."""

    async def before(
        execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        decision = await proceed()
        title = execution.title or tools.present_call(execution.name, execution.arguments).title
        cwd = None if execution.session is None else execution.session.header.cwd
        _CURRENT.set(EditLabel(title=relative_title(title, cwd), confirm=confirm()))
        _SESSION.set(None if execution.session is None else execution.session.id)
        return decision

    async def after(
        payload: PostExecutePayload, proceed: Callable[[], Awaitable[PostToolDecision]]
    ) -> PostToolDecision:
        _CURRENT.set(None)
        _SESSION.set(None)
        return await proceed()

    return before, after
