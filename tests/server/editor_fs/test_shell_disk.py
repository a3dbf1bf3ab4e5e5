"""Buffers vs disk around a shell command, with the editor-backed file system: the agent's
unsaved edits are saved first (exactly those), a user-dirty buffer never is, a client that
cannot save gets a note, and files a command rewrites become unread."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from itertools import count
from pathlib import Path

from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalSearchPlugin
from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import CallId, JsonValue, SessionId, TextBlock
from dsh_lsp.server.editor_fs import EDITOR, EditorSetup, load_file_system
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.shell import ShellPlugin
from dsh_lsp.tools import TOOLS, ToolExecution, ToolRegistry, ToolResult, ToolsPlugin
from tests.server.scripted_editor import VSCODE, ScriptedEditor, uri_of

_ids = count()


@dataclass(frozen=True, slots=True)
class Rig:
    registry: ToolRegistry
    editor: ScriptedEditor
    session: Session

    async def call(
        self, name: str, arguments: JsonValue, session: Session | None = None
    ) -> ToolResult:
        execution = ToolExecution(
            call_id=CallId(f"c{next(_ids)}"),
            name=name,
            arguments=arguments,
            session=self.session if session is None else session,
        )
        return (await self.registry.execute(execution)).result

    def other_session(self) -> Session:
        """A second session on the same connection, in the same workspace."""
        header = self.session.header
        return Session(SessionHeader(id=SessionId(f"s{next(_ids)}"), created_at=0, cwd=header.cwd))


@asynccontextmanager
async def rig(root: Path, *, can_save: bool = True) -> AsyncIterator[Rig]:
    editor = ScriptedEditor(replace(VSCODE, save_documents=can_save))
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        ctx.provide(EDITOR, EditorSetup(connection=editor))
        await load_file_system(ctx, (str(root),))
        await ctx.plugin(LocalSearchPlugin)
        await ctx.plugin(FsPolicyPlugin)
        await ctx.plugin(FsToolsPlugin)
        await ctx.plugin(ShellPlugin)
        header = SessionHeader(id=SessionId(f"s{next(_ids)}"), created_at=0, cwd=str(root))
        yield Rig(registry=ctx.require(TOOLS), editor=editor, session=Session(header))


def text(result: ToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextBlock))


PROJECT = {
    "calc.py": "def answer():\n    return 41\n",
    "test_calc.py": "from calc import answer\n\n\ndef test_answer():\n    assert answer() == 42\n",
}


def project(root: Path) -> None:
    for name, body in PROJECT.items():
        (root / name).write_text(body, encoding="utf-8")


def pytest_call() -> JsonValue:
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"
    return {"command": command, "description": "Run the tests"}


async def test_the_tests_see_the_agents_unsaved_edit_and_the_user_buffer_stays_dirty(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    (tmp_path / "notes.md").write_text("draft\n", encoding="utf-8")
    async with rig(tmp_path) as r:
        calc = r.editor.open(tmp_path / "calc.py")
        notes = r.editor.open(tmp_path / "notes.md")
        r.editor.type(notes, 0, 0, "user typing ")  # the user's own unsaved change
        failing = await r.call("bash", pytest_call())
        assert "1 failed" in text(failing)
        assert not failing.is_error
        await r.call("read", {"file_path": "calc.py"})
        edit = await r.call(
            "edit", {"file_path": "calc.py", "old_string": "41", "new_string": "42"}
        )
        assert not edit.is_error
        assert "return 41" in (tmp_path / "calc.py").read_text(), "the edit is only in the buffer"
        passing = await r.call("bash", pytest_call())
        assert "1 passed" in text(passing)
        assert "[exit code: 0]" in text(passing)
        assert r.editor.save_requests == [[calc]], "exactly the agent's document was saved"
        assert (tmp_path / "notes.md").read_text() == "draft\n", "the user's buffer is unsaved"
        assert r.editor.text(notes) == "user typing draft\n"


async def test_a_client_that_cannot_save_gets_the_files_named(tmp_path: Path) -> None:
    project(tmp_path)
    async with rig(tmp_path, can_save=False) as r:
        r.editor.open(tmp_path / "calc.py")
        await r.call("read", {"file_path": "calc.py"})
        await r.call("edit", {"file_path": "calc.py", "old_string": "41", "new_string": "42"})
        result = await r.call("bash", pytest_call())
    assert "1 failed" in text(result)
    assert "Not saved" in text(result)
    assert str(tmp_path / "calc.py") in text(result)


async def test_a_file_a_formatter_rewrites_must_be_read_again(tmp_path: Path) -> None:
    project(tmp_path)
    async with rig(tmp_path) as r:
        await r.call("read", {"file_path": "calc.py"})
        fmt = f"{sys.executable} -c \"import pathlib; p = pathlib.Path('calc.py'); "
        fmt += "p.write_text(p.read_text().replace('41', '40'))\""
        formatted = await r.call("bash", {"command": fmt, "description": "Format"})
        assert "Changed on disk" in text(formatted)
        assert "calc.py" in text(formatted)
        blind = await r.call(
            "edit", {"file_path": "calc.py", "old_string": "40", "new_string": "42"}
        )
        assert blind.error is not None
        assert blind.error.code == "FS_NOT_OBSERVED"
        await r.call("read", {"file_path": "calc.py"})
        fixed = await r.call(
            "edit", {"file_path": "calc.py", "old_string": "40", "new_string": "42"}
        )
        assert not fixed.is_error
        assert "return 42" in r.editor.text(uri_of(tmp_path / "calc.py"))


async def test_a_command_saves_its_own_sessions_edits_never_another_sessions(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    (tmp_path / "other.py").write_text("VALUE = 1\n", encoding="utf-8")
    async with rig(tmp_path) as r:
        calc = r.editor.open(tmp_path / "calc.py")
        other = r.editor.open(tmp_path / "other.py")
        second = r.other_session()
        await r.call("read", {"file_path": "calc.py"})
        await r.call("edit", {"file_path": "calc.py", "old_string": "41", "new_string": "42"})
        await r.call("read", {"file_path": "other.py"}, second)
        edit = {"file_path": "other.py", "old_string": "1", "new_string": "2"}
        await r.call("edit", edit, second)
        show = {"command": "cat other.py calc.py", "description": "Show"}
        seen = await r.call("bash", show, second)
        assert r.editor.save_requests == [[other]], "the second session saved its own edit"
        assert "VALUE = 2" in text(seen)
        assert "return 41" in text(seen), "the first session's edit stays unsaved"
        assert "Not saved" not in text(seen), "nothing of the second session's is left"
        assert "return 41" in (tmp_path / "calc.py").read_text()
        passing = await r.call("bash", pytest_call())
        assert "1 passed" in text(passing)
        assert r.editor.save_requests == [[other], [calc]]
