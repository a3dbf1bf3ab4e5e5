"""Neovim without the dsh plugin, set up exactly as the README says, in real Neovim 0.11/0.12.

The README's Lua block (the fence opening with ``-- Neovim without the dsh plugin``) is
sourced into ``nvim --embed --clean`` with a UI attached; the plugin is not on the runtime
path. The real ``dsh-lsp`` (found as ``dsh-lsp`` on ``PATH``) and the scripted model run the
agent; permission questions reach this client as ``window/showMessageRequest``. The user types
in another buffer the whole time: the question must show on screen (a float) without taking
a key, ``:DshAnswer 1`` approves it, and the edit lands (editors issue 18).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dsh_lsp.testing import ScriptedServer

from .nvim_rpc import EmbeddedNvim
from .nvim_runner import REPO, isolated_env
from .nvim_ui import OPEN_NOTES_AND_DRAFT, SCREEN_ROWS, Typist, buffer_lines, script_read_and_edit, tool_results, ui_neovim, unblocked

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("draft")]

README = REPO / "README.md"
FENCE = "```lua\n-- Neovim without the dsh plugin (tested)"

OPEN = "local ws = ...\n" + OPEN_NOTES_AND_DRAFT

STATE = """
local client = vim.lsp.get_clients({ name = 'dsh', bufnr = _G.dsh_notes })[1]
vim.cmd('redraw') -- what the user sees now (a busy input stream defers Neovim's own redraw)
local rows = """ + SCREEN_ROWS + """
return {
  ready = client ~= nil and client.initialized,
  mode = vim.api.nvim_get_mode().mode,
  screen = table.concat(rows, '\\n'),
  notes = vim.api.nvim_buf_get_lines(_G.dsh_notes, 0, -1, false),
}
"""


def readme_block() -> str:
    """The README's plugin-less Neovim block."""
    text = README.read_text(encoding="utf-8")
    start = text.index(FENCE) + len("```lua\n")
    return text[start : text.index("```", start)]


@contextmanager
def _editor(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> Iterator[EmbeddedNvim]:
    """Neovim without the plugin, set up by the README's block, with ``notes.txt`` and
    ``draft.txt`` open and the model scripted to read, edit and answer."""
    script_read_and_edit(model)
    setup = tmp_path / "readme_setup.lua"
    setup.write_text(readme_block(), encoding="utf-8")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    env = isolated_env(
        tmp_path / "home",
        {"DEEPSEEK_API_KEY": "scripted-key", "DEEPSEEK_BASE_URL": model.base_url, "PATH": path},
    )
    argv = [nvim, "--embed", "--clean", "--cmd", "set noswapfile shadafile=NONE"]
    with ui_neovim(argv, env, tmp_path) as editor:
        editor.request("nvim_command", f"luafile {setup}")
        editor.lua(OPEN, str(workspace))
        yield editor


def test_the_readme_setup_asks_without_taking_a_keystroke(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    with _editor(nvim, tmp_path, workspace, model) as editor:
        typist = Typist(editor, STATE)
        state = unblocked(editor, STATE)
        while not state["ready"]:
            state = unblocked(editor, STATE)
        editor.request("nvim_command", "DshPrompt Change beta to 'beta OK' in notes.txt")
        editor.input("i")
        while "(:DshAnswer N)" not in state["screen"]:  # the question, on screen
            state = typist.word()
        assert "Allow it?" in state["screen"], state["screen"]
        for _ in range(30):  # the question waits; the keys stay with the buffer
            state = typist.word()
            assert state["mode"] == "i", state
        assert state["notes"] == ["alpha", "beta", "gamma"], state
        editor.input("<C-o>:DshAnswer 1<CR>")
        while state["notes"] != ["alpha", "beta OK", "gamma"]:
            state = typist.word()
        for _ in range(30):  # after the edit landed: no prompt eats a key
            state = typist.word()
        assert "(:DshAnswer N)" not in state["screen"], "the answered question closes"
        editor.input("<Esc>")
        assert buffer_lines(editor, "dsh_draft") == [typist.text()]
        results = tool_results(model)
        assert "Error" not in results[-1], results[-1]
