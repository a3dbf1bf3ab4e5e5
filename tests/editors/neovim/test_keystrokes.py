"""A user typing in real Neovim (a UI attached, as a terminal would be) while the agent edits
and asks: no keystroke may be lost, and the diff preview must be on screen when a picker opens.

Neovim runs ``--embed`` (``nvim_rpc``) with a 100x30 UI attached, the plugin and the real
``dsh-lsp`` server, and the scripted model on 127.0.0.1. Keys go in through ``nvim_input``
exactly as typed keys do. Item 1 of the editors issue: Neovim 0.12 announced every annotated
edit with a "Press ENTER" prompt that ate the next space; item 3: the stock ``vim.ui.select``
took the keys meant for the buffer; item 4: the preview was not drawn before the picker.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.testing import ScriptedServer, ToolCallSpec, completion

from .nvim_rpc import EmbeddedNvim
from .nvim_ui import (
    OPEN_NOTES_AND_DRAFT,
    SCREEN_ROWS,
    plugin_setup,
    Typist,
    buffer_lines,
    plugin_neovim,
    script_read_and_edit,
    tool_results,
    unblocked,
)
from .test_editor_tools import language_servers

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("draft")]

SETUP = (
    plugin_setup("  permissions = { edit = 'ask', prompt = prompt },\n", ", prompt")
    + OPEN_NOTES_AND_DRAFT
)

STATE = """
local client = vim.lsp.get_clients({ name = 'dsh', bufnr = _G.dsh_notes })[1]
return {
  ready = client ~= nil and client.initialized,
  pending = #require('dsh.permission').pending,
  done = _G.dsh_done ~= nil,
  mode = vim.api.nvim_get_mode().mode,
}
"""


@contextmanager
def _editing(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer, prompt: str
) -> Iterator[EmbeddedNvim]:
    """``plugin_neovim`` with the plugin set up (permission prompt ``prompt``) and the model
    scripted to read, edit and answer (``script_read_and_edit``)."""
    script_read_and_edit(model)
    with plugin_neovim(nvim, tmp_path, workspace, model, SETUP, prompt) as editor:
        yield editor


def _state(editor: EmbeddedNvim) -> dict[str, Any]:  # Any: the Lua table as JSON
    """The plugin's state (``STATE``); fails when Neovim waits in a prompt."""
    return unblocked(editor, STATE)


def test_typing_through_an_approval_and_an_edit_loses_no_keystroke(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    with _editing(nvim, tmp_path, workspace, model, "float") as editor:
        typist = Typist(editor, STATE)
        state = _state(editor)
        while not state["ready"]:
            state = _state(editor)
        editor.lua(
            "require('dsh').ask('Fix notes.txt', {on_done = function(r) _G.dsh_done = r end})"
        )
        editor.input("i")
        while state["pending"] == 0 and not state["done"]:
            state = typist.word()
        assert state["pending"] == 1, "the agent should be waiting for the approval"
        for _ in range(30):  # the question waits; the keyboard stays with the buffer
            state = typist.word()
            assert state["mode"] == "i", state
        editor.input("<C-o>:DshAnswer 1<CR>")
        while not state["done"]:
            state = typist.word()
        for _ in range(30):  # after the edit landed: no "Press ENTER" prompt eats a key
            state = typist.word()
        editor.input("<Esc>")
        assert buffer_lines(editor, "dsh_draft") == [typist.text()]
        assert buffer_lines(editor, "dsh_notes") == ["alpha", "beta OK", "gamma"]
        results = tool_results(model)
        assert "Error" not in results[-1], results[-1]


def test_the_diff_preview_is_on_screen_when_the_picker_opens(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    with _editing(nvim, tmp_path, workspace, model, "select") as editor:
        editor.lua(
            "vim.ui.select = function(items, _, on_choice)\n"
            f"  _G.dsh_screen = {SCREEN_ROWS}\n"
            "  vim.schedule(function() on_choice(items[1]) end)\n"
            "end"
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
        assert buffer_lines(editor, "dsh_notes") == ["alpha", "beta OK", "gamma"]


SETUP_PYTHON = plugin_setup(params=", ruff_cmd, jedi_cmd") + """
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
    with plugin_neovim(nvim, tmp_path, workspace, model, SETUP_PYTHON, ruff, jedi) as editor:
        while not editor.lua(READY_PYTHON):
            _state(editor)
        editor.lua(
            "require('dsh').ask('Break and fix a.py', {on_done = function(r) _G.dsh_done = r end})"
        )
        editor.input("i")
        typist = Typist(editor, STATE)
        state = typist.word()
        while not state["done"]:
            state = typist.word()
        for _ in range(20):
            typist.word()
        editor.input("<Esc>")
        assert buffer_lines(editor, "dsh_draft") == [typist.text()]
        assert buffer_lines(editor, "dsh_a") == ["from b import helper", "", line]
        results = tool_results(model)
        assert "Undefined name `missing`" in results[-2], results[-2]
        assert "No new problems." in results[-1], results[-1]
