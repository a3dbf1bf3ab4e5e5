"""The provider choice and the editor plugin in a kernel: editor-backed when the client
applies edits, local otherwise; the per-turn save when ``saveAfterTurn`` is on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio

from dsh_lsp.fs_tools import FS, LiteralEdit
from dsh_lsp.fs_tools.local import LocalFileSystem
from dsh_lsp.kernel import Context, Kernel
from dsh_lsp.llm import SessionId
from dsh_lsp.server.editor_fs.file_system import EditorFileSystem
from dsh_lsp.server.editor_fs.plugin import EDITOR, EditorSetup, load_file_system
from dsh_lsp.session import SESSION_EVENT, Session, SessionEvent, SessionEventNotice, SessionHeader
from dsh_lsp.tools import ToolsPlugin
from tests.server.scripted_editor import VSCODE, ScriptedEditor


async def _loaded(ctx: Context, tmp_path: Path, setup: EditorSetup | None) -> object:
    await ctx.plugin(ToolsPlugin)
    if setup is not None:
        ctx.provide(EDITOR, setup)
    await load_file_system(ctx, (str(tmp_path),))
    return ctx.require(FS)


async def test_the_editor_provider_is_chosen_when_the_client_applies_edits(
    tmp_path: Path,
) -> None:
    async with Kernel() as kernel:
        fs = await _loaded(kernel.context, tmp_path, EditorSetup(connection=ScriptedEditor()))
        assert isinstance(fs, EditorFileSystem)


async def test_the_local_provider_serves_clients_without_apply_edit(tmp_path: Path) -> None:
    async with Kernel() as kernel:
        assert isinstance(await _loaded(kernel.context, tmp_path, None), LocalFileSystem)
    editor = ScriptedEditor(replace(VSCODE, apply_edit=False))
    async with Kernel() as kernel:
        fs = await _loaded(kernel.context, tmp_path, EditorSetup(connection=editor))
        assert isinstance(fs, LocalFileSystem)


async def test_edits_are_saved_after_the_turn_when_asked(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    editor = ScriptedEditor(replace(VSCODE, save_documents=True))
    uri = editor.open(tmp_path / "a.txt")
    save = [False]
    setup = EditorSetup(connection=editor, save_after_turn=lambda: save[0])
    session = Session(SessionHeader(id=SessionId("s"), created_at=0))
    turn_end = SessionEvent(type="turn/end", seq=0, time=0, data={"turn": 1})
    async with Kernel() as kernel:
        ctx = kernel.context
        fs = await _loaded(ctx, tmp_path, setup)
        assert isinstance(fs, EditorFileSystem)
        target = await fs.resolve("a.txt")
        await fs.edit_text(target, [LiteralEdit(old_string="one", new_string="1")])
        ctx.emit(SESSION_EVENT, SessionEventNotice(session=session, event=turn_end))
        await anyio.wait_all_tasks_blocked()
        assert editor.save_requests == [], "saving after the turn is off"
        save[0] = True
        ctx.emit(SESSION_EVENT, SessionEventNotice(session=session, event=turn_end))
        await anyio.wait_all_tasks_blocked()
        assert editor.save_requests == [[uri]]
        assert (tmp_path / "a.txt").read_text() == "1\n"
        assert fs.disk_sync.unsaved() == ()
