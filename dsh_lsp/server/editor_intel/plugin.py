"""EditorIntelPlugin: the editor's language servers as agent tools (server layer).

Loaded by start-up when the client answers at least one ``dsh/editor/*`` method. Registers
the tool (and its prompt section) of each method the client answers, and no other: the
model never sees a tool it cannot use. When the client answers ``dsh/editor/diagnostics``
it also adds the new problems to the results of edits made through the editor and of
commands that changed open files (``after_edit``), as long as
``dsh.editor.diagnosticsAfterEdit`` is on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import ClassVar

from dsh_lsp.fs_tools import FS
from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import TextBlock
from dsh_lsp.server.buffers import OpenDocuments
from dsh_lsp.server.editor_fs import EDITOR_EDIT, EditorEdit
from dsh_lsp.shell import SHELL_BEFORE_RUN, ShellRunIntent
from dsh_lsp.tools import (
    SYSTEM_PROMPT,
    TOOLS,
    TOOLS_POST_EXECUTE,
    TOOLS_PRE_EXECUTE,
    Accept,
    PostExecutePayload,
    PostToolDecision,
    PreToolDecision,
    PromptSection,
    ToolExecution,
)

from .after_edit import CURRENT_CALL, AfterEdit, CallRecord, WrittenEdit
from .capabilities import EditorMethod
from .client import EditorIntel
from .tools import TOOL_FACTORIES, IntelDeps

_log = logging.getLogger(__name__)

SECTIONS: dict[EditorMethod, str] = {
    "diagnostics": "Problems: after each of your edits the result lists the new errors and "
    "warnings the editor's language servers report in the lines you changed, for exactly "
    "that version (or says there are none). `diagnostics` lists the problems of a file or "
    "of the workspace at any time: prefer it to running a type checker or linter.",
    "definition": "Definitions: `definition` asks the editor's language servers where a "
    "symbol is defined. Give the file, the 1-based line the symbol appears on and its name "
    "as written there; prefer it to grep for finding code.",
    "references": "References: `references` lists every use of a symbol (give the file, the "
    "1-based line it appears on and its name); use it before renaming or changing a "
    "signature.",
    "symbols": "Symbols: `symbols` finds classes, functions and other symbols by name "
    "across the workspace.",
    "hover": "Hover: `hover` gives a symbol's type, signature and documentation (give the "
    "file, the 1-based line it appears on and its name).",
}
"""Prompt sections by the method whose tool they describe."""


class EditorIntelPlugin(Plugin[None]):
    """The ``dsh/editor/*`` tools and the post-edit diagnostics; see the module docstring."""

    name: ClassVar[str] = "editor-intel"
    inject = (TOOLS, SYSTEM_PROMPT, FS)

    def __init__(
        self,
        intel: EditorIntel,
        documents: OpenDocuments,
        *,
        request_seconds: Callable[[], float],
        after_edit: Callable[[], bool],
        timeout_ms: Callable[[], int],
    ) -> None:
        self._intel = intel
        self._documents = documents
        self._seconds = request_seconds
        self._after = AfterEdit(intel, documents, enabled=after_edit, timeout_ms=timeout_ms)

    async def apply(self, ctx: Context, config: None) -> None:
        """Register the tools, sections and listeners (they leave with the plugin).

        Raises ToolError (``DUPLICATE_TOOL`` / ``DUPLICATE_SECTION``) on a name clash."""
        methods = self._intel.methods
        deps = IntelDeps(
            intel=self._intel, documents=self._documents, fs=ctx.require(FS), seconds=self._seconds
        )
        registry = ctx.require(TOOLS)
        prompt = ctx.require(SYSTEM_PROMPT)
        for order, (method, make) in enumerate(TOOL_FACTORIES.items()):
            if method in methods:
                registry.register(make(deps), ctx=ctx)
                section = PromptSection(
                    name=f"tool:{method}", order=130 + order, text=SECTIONS[method]
                )
                prompt.section(section, ctx=ctx)
        if "diagnostics" not in methods:
            return
        ctx.on(TOOLS_PRE_EXECUTE, self._open_record)
        ctx.on(TOOLS_POST_EXECUTE, self._add_problems)
        ctx.on(EDITOR_EDIT, self._around_edit)
        ctx.on(SHELL_BEFORE_RUN, self._before_command)

    async def _open_record(
        self, execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        CURRENT_CALL.set(CallRecord())
        return await proceed()

    async def _around_edit(self, edit: EditorEdit, send: Callable[[], Awaitable[str]]) -> str:
        record = CURRENT_CALL.get()
        if record is None or not self._after.active:
            return await send()
        earlier = await self._after.before(edit.uri)
        token = await send()
        record.edits.append(
            WrittenEdit(
                uri=edit.uri,
                before=edit.before,
                after=edit.after,
                token=token,
                earlier=next((p for p in earlier if p.uri == edit.uri), None),
                hunks=edit.hunks,
            )
        )
        return token

    async def _before_command(
        self, intent: ShellRunIntent, proceed: Callable[[], Awaitable[tuple[str, ...]]]
    ) -> tuple[str, ...]:
        notes = await proceed()
        record = CURRENT_CALL.get()
        if record is not None and self._after.active and len(self._documents):
            record.open_files = self._after.open_files()
            record.earlier = await self._after.before(None)
        return notes

    async def _add_problems(
        self, payload: PostExecutePayload, proceed: Callable[[], Awaitable[PostToolDecision]]
    ) -> PostToolDecision:
        record = CURRENT_CALL.get()
        CURRENT_CALL.set(None)
        decision = await proceed()
        result = payload.result
        if record is None or result.is_error or not isinstance(decision, Accept):
            return decision
        if not record.edits and not record.open_files:
            return decision
        session = payload.exec.session
        cwd = None if session is None else session.header.cwd
        texts = [await self._after.report(edit, cwd) for edit in record.edits]
        if record.open_files:
            texts.extend(await self._after.after_command(record.open_files, record.earlier, cwd))
        if not texts:
            return decision
        content = decision.content if decision.content is not None else result.content
        # a block of its own, set off from the tool's text (blocks reach the model joined as is)
        report = TextBlock(text="\n\n" + "\n".join(texts))
        return replace(decision, content=(*content, report))
