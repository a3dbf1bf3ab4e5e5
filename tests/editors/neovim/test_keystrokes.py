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
from .test_editor_tools import language_servers

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
def _neovim(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer, setup: str, *args: str
) -> Iterator[EmbeddedNvim]:
    """Neovim with a UI attached, after the Lua ``setup`` ran with the server command, the
    model URL, the session folder, the workspace and ``args``; closed when the block ends."""
    env = isolated_env(tmp_path / "home", {"DEEPSEEK_API_KEY": "scripted-key"})
    # --embed without --headless: Neovim starts once the UI attached, as in a terminal
    argv = [nvim, "--embed", "--clean", "--cmd", f"set rtp^={PLUGIN}"]
    argv += ["--cmd", "set noswapfile shadafile=NONE", "-c", "runtime plugin/dsh.lua"]
    editor = EmbeddedNvim(argv, env, str(tmp_path))
    try:
        editor.request("nvim_ui_attach", 100, 30, {"rgb": True, "ext_linegrid": True})
        server_cmd = [sys.executable, "-m", "dsh_lsp", "--log-file", str(tmp_path / "server.log")]
        editor.lua(
            setup, server_cmd, model.base_url, str(tmp_path / "sessions"), str(workspace), *args
        )
        yield editor
    finally:
        editor.close()


@contextmanager
def _editing(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer, prompt: str
) -> Iterator[EmbeddedNvim]:
    """``_neovim`` with the plugin set up (permission prompt ``prompt``) and the model
    scripted to read, edit and answer (``_script``)."""
    _script(model)
    with _neovim(nvim, tmp_path, workspace, model, SETUP, prompt) as editor:
        yield editor


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


SETUP_PYTHON = """
local server_cmd, model_url, sessions, ws, ruff_cmd, jedi_cmd = ...
require('dsh').setup({
  cmd = server_cmd,
  model = { name = 'scripted', base_url = model_url },
  session_dir = sessions,
  root_markers = { '.git' },
})
for name, cmd in pairs({ ruff = ruff_cmd, jedi = jedi_cmd }) do
  local config = { cmd = vim.json.decode(cmd), filetypes = { 'python' }, root_markers = { '.git' } }
  vim.lsp.config(name, config)
end
vim.lsp.enable({ 'ruff', 'jedi' })
vim.cmd.cd(vim.fn.fnameescape(ws))
vim.cmd.edit('a.py')
_G.dsh_a = vim.api.nvim_get_current_buf()
vim.cmd.edit('draft.txt')
_G.dsh_draft = vim.api.nvim_get_current_buf()
"""

READY_PYTHON = """
for _, name in ipairs({ 'dsh', 'ruff', 'jedi' }) do
  local client = vim.lsp.get_clients({ name = name, bufnr = _G.dsh_a })[1]
  if not (client and client.initialized) then
    return false
  end
end
return true
"""


def test_typing_while_the_agent_edits_python_with_language_servers_loses_no_keystroke(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    """ruff and jedi attached to the (hidden) file the agent breaks and fixes: the edit
    results wait for their diagnostics while the user types in another buffer; no key is
    lost and Neovim is never blocked in a prompt."""
    line = 't = "é😀" + helper("x")'
    broken = 't = "é😀" + missing + helper("x")'
    (workspace / "a.py").write_text(f"from b import helper\n\n{line}\n", encoding="utf-8")
    (workspace / "b.py").write_text("def helper(text):\n    return text\n", encoding="utf-8")

    def call(call_id: str, name: str, **args: str) -> None:
        spec = ToolCallSpec(id=call_id, name=name, arguments=json.dumps(args))
        model.enqueue(completion(tool_calls=[spec]))

    call("c1", "read", file_path="a.py")
    call("c2", "edit", file_path="a.py", old_string=line, new_string=broken)
    call("c3", "edit", file_path="a.py", old_string=broken, new_string=line)
    model.enqueue(completion(text="Done."))
    servers = language_servers()
    ruff, jedi = servers["DSH_RUFF_CMD"], servers["DSH_JEDI_CMD"]
    with _neovim(nvim, tmp_path, workspace, model, SETUP_PYTHON, ruff, jedi) as editor:
        while not editor.lua(READY_PYTHON):
            _state(editor)
        editor.lua(
            "require('dsh').ask('Break and fix a.py', {on_done = function(r) _G.dsh_done = r end})"
        )
        editor.input("i")
        words = (f"w{i}" for i in itertools.count())
        typed: list[str] = []

        def type_word() -> dict[str, Any]:  # Any: see _state
            word = next(words)
            typed.append(word)
            editor.input(word + " ")
            return _state(editor)

        state = type_word()
        while not state["done"]:
            state = type_word()
        for _ in range(20):
            type_word()
        editor.input("<Esc>")
        assert _lines(editor, "dsh_draft") == [" ".join(typed) + " "]
        assert _lines(editor, "dsh_a") == ["from b import helper", "", line]
        results = [
            m["content"] for m in model.requests[-1].json()["messages"] if m["role"] == "tool"
        ]
        assert "Undefined name `missing`" in results[-2], results[-2]
        assert "No new problems." in results[-1], results[-1]
