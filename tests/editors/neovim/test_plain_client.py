"""Neovim without the dsh plugin, set up exactly as the README says, in real Neovim 0.11/0.12.

The README's Lua block (the fence opening with ``-- Neovim without the dsh plugin``) is
sourced into ``nvim --embed --clean`` with a UI attached; the plugin is not on the runtime
path. The real ``dsh-lsp`` (found as ``dsh-lsp`` on ``PATH``) and the scripted model run the
agent; permission questions reach this client as ``window/showMessageRequest``. The user types
in another buffer the whole time: the question must show on screen (a float) without taking
a key, ``:DshAnswer 1`` approves it, and the edit lands (editors issue 18).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.testing import ScriptedServer, ToolCallSpec, completion

from .nvim_rpc import EmbeddedNvim
from .nvim_runner import REPO, isolated_env

pytestmark = pytest.mark.e2e

README = REPO / "README.md"
FENCE = "```lua\n-- Neovim without the dsh plugin (tested)"

OPEN = """
local ws = ...
vim.cmd.cd(vim.fn.fnameescape(ws))
vim.cmd.edit('notes.txt')
_G.dsh_notes = vim.api.nvim_get_current_buf()
vim.cmd.edit('draft.txt')
_G.dsh_draft = vim.api.nvim_get_current_buf()
"""

STATE = """
local client = vim.lsp.get_clients({ name = 'dsh', bufnr = _G.dsh_notes })[1]
vim.cmd('redraw') -- what the user sees now (a busy input stream defers Neovim's own redraw)
local rows = {}
for row = 1, vim.o.lines do
  local cells = {}
  for col = 1, vim.o.columns do
    cells[#cells + 1] = vim.fn.screenstring(row, col)
  end
  rows[#rows + 1] = table.concat(cells)
end
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


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    (root / "draft.txt").write_text("", encoding="utf-8")
    return root


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        read = json.dumps({"file_path": "notes.txt"})
        edit = json.dumps({"file_path": "notes.txt", "old_string": "beta", "new_string": "beta OK"})
        server.enqueue(
            completion(tool_calls=[ToolCallSpec(id="c1", name="read", arguments=read)]),
            completion(tool_calls=[ToolCallSpec(id="c2", name="edit", arguments=edit)]),
            completion(text="Done."),
        )
        yield server


def _editor(nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer) -> EmbeddedNvim:
    setup = tmp_path / "readme_setup.lua"
    setup.write_text(readme_block(), encoding="utf-8")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    env = isolated_env(
        tmp_path / "home",
        {"DEEPSEEK_API_KEY": "scripted-key", "DEEPSEEK_BASE_URL": model.base_url, "PATH": path},
    )
    argv = [nvim, "--embed", "--clean", "--cmd", "set noswapfile shadafile=NONE"]
    editor = EmbeddedNvim(argv, env, str(tmp_path))
    editor.request("nvim_ui_attach", 100, 30, {"rgb": True, "ext_linegrid": True})
    editor.request("nvim_command", f"luafile {setup}")
    editor.lua(OPEN, str(workspace))
    return editor


def _state(editor: EmbeddedNvim) -> dict[str, Any]:  # Any: the Lua table as JSON
    mode = editor.request("nvim_get_mode")
    if mode["blocking"]:
        pytest.fail(f"Neovim is blocked in a prompt that takes the next keys: {mode}")
    state: dict[str, Any] = editor.lua(STATE)
    return state


def _lines(editor: EmbeddedNvim, buffer: str) -> list[str]:
    lines: list[str] = editor.lua(f"return vim.api.nvim_buf_get_lines(_G.{buffer}, 0, -1, false)")
    return lines


def test_the_readme_setup_asks_without_taking_a_keystroke(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    editor = _editor(nvim, tmp_path, workspace, model)
    try:
        words = (f"w{i}" for i in itertools.count())
        typed: list[str] = []

        def type_word() -> dict[str, Any]:  # Any: see _state
            word = next(words)
            typed.append(word)
            editor.input(word + " ")
            return _state(editor)

        state = _state(editor)
        while not state["ready"]:
            state = _state(editor)
        editor.request("nvim_command", "DshPrompt Change beta to 'beta OK' in notes.txt")
        editor.input("i")
        while "(:DshAnswer N)" not in state["screen"]:  # the question, on screen
            state = type_word()
        assert "Allow it?" in state["screen"], state["screen"]
        for _ in range(30):  # the question waits; the keys stay with the buffer
            state = type_word()
            assert state["mode"] == "i", state
        assert state["notes"] == ["alpha", "beta", "gamma"], state
        editor.input("<C-o>:DshAnswer 1<CR>")
        while state["notes"] != ["alpha", "beta OK", "gamma"]:
            state = type_word()
        for _ in range(30):  # after the edit landed: no prompt eats a key
            state = type_word()
        assert "(:DshAnswer N)" not in state["screen"], "the answered question closes"
        editor.input("<Esc>")
        assert _lines(editor, "dsh_draft") == [" ".join(typed) + " "]
        tool_results = [
            m["content"] for m in model.requests[-1].json()["messages"] if m["role"] == "tool"
        ]
        assert "Error" not in tool_results[-1], tool_results[-1]
    finally:
        editor.close()
