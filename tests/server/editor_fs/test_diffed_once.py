"""Each change is diffed once: the ``edit`` and ``write`` tools through the editor-backed
provider (open and closed files) and through the local provider call ``diff_texts`` exactly
once per tool call, and the one diff serves both the editor's ``applyEdit`` and the result."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin, TextDiff, diff_texts
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.fs_tools.tool_support import diffs_from_meta
from dsh_lsp.kernel import Context, Kernel
from dsh_lsp.llm import CallId, JsonObject, SessionId
from dsh_lsp.server.editor_fs import EditorFileSystemPlugin, EditorSetup
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import TOOLS, ToolExecution, ToolResult, ToolsPlugin
from tests.server.scripted_editor import ScriptedEditor


@pytest.fixture
def diff_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every ``diff_texts`` call, wherever a module holds the one entry point."""
    calls: list[tuple[str, str]] = []

    def counting(before: str, after: str, **options: int) -> TextDiff:
        calls.append((before, after))
        return diff_texts(before, after, **options)

    for name, module in list(sys.modules.items()):
        if name.startswith("dsh_lsp") and getattr(module, "diff_texts", None) is diff_texts:
            monkeypatch.setattr(module, "diff_texts", counting)
    return calls


async def _call(ctx: Context, session: Session, name: str, args: JsonObject) -> ToolResult:
    execution = ToolExecution(call_id=CallId("c"), name=name, arguments=args, session=session)
    result = (await ctx.require(TOOLS).execute(execution)).result
    assert not result.is_error, result.content
    return result


async def _load(ctx: Context, tmp_path: Path, editor: ScriptedEditor | None) -> None:
    await ctx.plugin(ToolsPlugin)
    if editor is None:
        await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(tmp_path)]})
    else:
        plugin = EditorFileSystemPlugin(EditorSetup(connection=editor))
        await ctx.plugin(plugin, {"roots": [str(tmp_path)]})
    await ctx.plugin(LocalSearchPlugin)
    await ctx.plugin(FsPolicyPlugin)
    await ctx.plugin(FsToolsPlugin)


@pytest.mark.parametrize("where", ["open", "closed", "local"])
async def test_an_edit_and_a_write_are_each_diffed_once(
    tmp_path: Path, where: str, diff_calls: list[tuple[str, str]]
) -> None:
    path = tmp_path / "a.py"
    path.write_text("".join(f"line {i}\n" for i in range(50)))
    editor = None if where == "local" else ScriptedEditor()
    if editor is not None and where == "open":
        editor.open(path)
    session = Session(SessionHeader(id=SessionId("s"), created_at=0, cwd=str(tmp_path)))
    async with Kernel() as kernel:
        ctx = kernel.context
        await _load(ctx, tmp_path, editor)
        await _call(ctx, session, "read", {"file_path": "a.py"})
        assert diff_calls == []
        edit = {"file_path": "a.py", "old_string": "line 7\n", "new_string": "LINE 7\n"}
        result = await _call(ctx, session, "edit", edit)
        assert len(diff_calls) == 1, "one diff for the editor and the result"
        (hunk,) = diffs_from_meta(result.meta)
        assert hunk.old_text is not None
        assert "line 7\n" in hunk.old_text
        assert "LINE 7\n" in hunk.new_text
        if editor is not None:
            (params,) = editor.model.received
            assert str(params["edit"]).count("newText") == 1, "one minimal replacement"
        result = await _call(ctx, session, "write", {"file_path": "a.py", "content": "short\n"})
        assert len(diff_calls) == 2, "one diff for the write"
        assert result.meta is not None
        assert result.meta["hunks"]
