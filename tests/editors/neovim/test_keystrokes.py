"""A user typing in real Neovim (a UI attached, as a terminal would be) while the agent edits
and asks: no keystroke may be lost, and the diff preview must be on screen when a picker opens.

Neovim runs ``--embed`` (``nvim_rpc``) with a 100x30 UI attached, the plugin and the real
``dsh-lsp`` server, and the scripted model on 127.0.0.1. Keys go in through ``nvim_input``
exactly as typed keys do. Item 1 of the editors issue: Neovim 0.12 announced every annotated
edit with a "Press ENTER" prompt that ate the next space; item 3: the stock ``vim.ui.select``
took the keys meant for the buffer; item 4: the preview was not drawn before the picker.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.testing import ScriptedServer, ToolCallSpec, completion

from .nvim_rpc import EmbeddedNvim
from .nvim_runner import PLUGIN, isolated_env

pytestmark = pytest.mark.e2e

SETUP = """
local server_cmd, model_url, sessions, ws, prompt = ...
require('dsh').setup({
  cmd = server_cmd,
  model = { name = 'scripted', base_url = model_url },
  session_dir = sessions,
  root_markers = { '.git' },
  permissions = { edit = 'ask', prompt = prompt },
})
vim.cmd.cd(vim.fn.fnameescape(ws))
vim.cmd.edit('notes.txt')
_G.dsh_notes = vim.api.nvim_get_current_buf()
vim.cmd.edit('draft.txt')
_G.dsh_draft = vim.api.nvim_get_current_buf()
"""

STATE = """
local client = vim.lsp.get_clients({ name = 'dsh', bufnr = _G.dsh_notes })[1]
return {
  ready = client ~= nil and client.initialized,
  pending = #require('dsh.permission').pending,
  done = _G.dsh_done ~= nil,
  mode = vim.api.nvim_get_mode().mode,
}
"""


@pytest.fixture
def workspace(workspace: Path) -> Path:
    """The editors' shared workspace, plus the empty ``draft.txt`` the user types into."""
    (workspace / "draft.txt").write_text("", encoding="utf-8")
    return workspace


@contextmanager
def _editing(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer, prompt: str
) -> Iterator[EmbeddedNvim]:
    """Neovim with a UI attached and the plugin set up (permission prompt ``prompt``), the
    model scripted to read, edit and answer (``_script``); closed when the block ends."""
    _script(model)
    env = isolated_env(tmp_path / "home", {"DEEPSEEK_API_KEY": "scripted-key"})
    # --embed without --headless: Neovim starts once the UI attached, as in a terminal
    argv = [nvim, "--embed", "--clean", "--cmd", f"set rtp^={PLUGIN}"]
    argv += ["--cmd", "set noswapfile shadafile=NONE", "-c", "runtime plugin/dsh.lua"]
    editor = EmbeddedNvim(argv, env, str(tmp_path))
    try:
        editor.request("nvim_ui_attach", 100, 30, {"rgb": True, "ext_linegrid": True})
        server_cmd = [sys.executable, "-m", "dsh_lsp", "--log-file", str(tmp_path / "server.log")]
        editor.lua(
            SETUP, server_cmd, model.base_url, str(tmp_path / "sessions"), str(workspace), prompt
        )
        yield editor
    finally:
        editor.close()


def _state(editor: EmbeddedNvim) -> dict[str, Any]:  # Any: the Lua table as JSON
    """The plugin's state; fails when Neovim waits in a prompt (a hit-enter or a picker
    would take the next keys; ``nvim_get_mode`` is answered even then)."""
    mode = editor.request("nvim_get_mode")
    if mode["blocking"]:
        pytest.fail(f"Neovim is blocked in a prompt that takes the next keys: {mode}")
    state: dict[str, Any] = editor.lua(STATE)
    return state


def _script(model: ScriptedServer) -> None:
    read = json.dumps({"file_path": "notes.txt"})
    edit = json.dumps({"file_path": "notes.txt", "old_string": "beta", "new_string": "beta OK"})
    model.enqueue(
        completion(tool_calls=[ToolCallSpec(id="c1", name="read", arguments=read)]),
        completion(tool_calls=[ToolCallSpec(id="c2", name="edit", arguments=edit)]),
        completion(text="Done."),
    )


def _lines(editor: EmbeddedNvim, buffer: str) -> list[str]:
    lines: list[str] = editor.lua(f"return vim.api.nvim_buf_get_lines(_G.{buffer}, 0, -1, false)")
    return lines


def test_typing_through_an_approval_and_an_edit_loses_no_keystroke(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    with _editing(nvim, tmp_path, workspace, model, "float") as editor:
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
        editor.lua(
            "require('dsh').ask('Fix notes.txt', {on_done = function(r) _G.dsh_done = r end})"
        )
        editor.input("i")
        while state["pending"] == 0 and not state["done"]:
            state = type_word()
        assert state["pending"] == 1, "the agent should be waiting for the approval"
        for _ in range(30):  # the question waits; the keyboard stays with the buffer
            state = type_word()
            assert state["mode"] == "i", state
        editor.input("<C-o>:DshAnswer 1<CR>")
        while not state["done"]:
            state = type_word()
        for _ in range(30):  # after the edit landed: no "Press ENTER" prompt eats a key
            state = type_word()
        editor.input("<Esc>")
        assert _lines(editor, "dsh_draft") == [" ".join(typed) + " "]
        assert _lines(editor, "dsh_notes") == ["alpha", "beta OK", "gamma"]
        tool_results = [
            m["content"] for m in model.requests[-1].json()["messages"] if m["role"] == "tool"
        ]
        assert "Error" not in tool_results[-1], tool_results[-1]


def test_the_diff_preview_is_on_screen_when_the_picker_opens(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    with _editing(nvim, tmp_path, workspace, model, "select") as editor:
        editor.lua(
            """
            vim.ui.select = function(items, _, on_choice)
              local rows = {}
              for row = 1, vim.o.lines do
                local cells = {}
                for col = 1, vim.o.columns do
                  cells[#cells + 1] = vim.fn.screenstring(row, col)
                end
                rows[#rows + 1] = table.concat(cells)
              end
              _G.dsh_screen = rows
              vim.schedule(function() on_choice(items[1]) end)
            end
            """
        )
        while not _state(editor)["ready"]:
            pass
        editor.lua(
            "require('dsh').ask('Fix notes.txt', {on_done = function(r) _G.dsh_done = r end})"
        )
        while not _state(editor)["done"]:
            pass
        screen: list[str] = editor.lua("return _G.dsh_screen")
        shown = "\n".join(screen)
        assert "@@ -1,3 +1,3 @@" in shown, shown
        assert "+beta OK" in shown, shown
        assert "No newline" not in shown, shown
        assert _lines(editor, "dsh_notes") == ["alpha", "beta OK", "gamma"]
