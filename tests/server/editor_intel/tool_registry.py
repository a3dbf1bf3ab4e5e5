"""In process: the tool registry with the editor-backed file system and the ``editor-intel``
plugin loaded over a scripted editor and a ``ClientChannel`` standing for its plugin. Shared
by the after-edit setting test and ``bench/editor_diagnostics.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalSearchPlugin
from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import CallId, JsonValue, SessionId, TextBlock
from dsh_lsp.server.editor_fs import EditorFileSystemPlugin, EditorSetup
from dsh_lsp.server.editor_intel import EditorIntel, EditorIntelPlugin, EditorMethod, EditorMethods
from dsh_lsp.server.wire import ClientChannel
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import TOOLS, ToolExecution, ToolsPlugin
from tests.server.scripted_editor import ScriptedEditor

ToolCall = Callable[[str, JsonValue], Awaitable[str]]
"""Runs one tool by name with its arguments; returns its text (raises ``RuntimeError``
with the text when the result is an error)."""


@asynccontextmanager
async def editor_tools(
    base: Path,
    editor: ScriptedEditor,
    channel: ClientChannel,
    methods: frozenset[EditorMethod],
    *,
    after_edit: Callable[[], bool],
    timeout_ms: int,
) -> AsyncIterator[ToolCall]:
    """A kernel whose tools work on *editor*'s files under *base*; ``editor-intel`` asks
    *channel* for *methods*, reading *after_edit* at every edit."""
    session = Session(SessionHeader(id=SessionId("s"), created_at=0, cwd=str(base)))
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        setup = EditorSetup(connection=editor)
        await ctx.plugin(EditorFileSystemPlugin(setup), {"roots": [str(base)]})
        await ctx.plugin(LocalSearchPlugin)
        await ctx.plugin(FsPolicyPlugin)
        await ctx.plugin(FsToolsPlugin)
        intel = EditorIntel(channel, EditorMethods(methods=methods))
        await ctx.plugin(
            EditorIntelPlugin(
                intel,
                editor.documents,
                request_seconds=lambda: 5.0,
                after_edit=after_edit,
                timeout_ms=lambda: timeout_ms,
            )
        )
        registry = ctx.require(TOOLS)

        async def call(name: str, args: JsonValue) -> str:
            execution = ToolExecution(
                call_id=CallId("c"), name=name, arguments=args, session=session
            )
            result = (await registry.execute(execution)).result
            text = "\n".join(b.text for b in result.content if isinstance(b, TextBlock))
            if result.is_error:
                raise RuntimeError(text)
            return text

        yield call
