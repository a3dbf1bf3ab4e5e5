"""A shell command's "always allow" in real Neovim: the user confirms or edits the command
prefix before the server remembers it (issue 19, approvals that do not fatigue).

Neovim runs ``--embed`` with a UI attached, the plugin, the real ``dsh-lsp`` server with
``permissions.shell = "ask"`` and the scripted model. The question waits in its float; the user
answers ``:DshAnswer allow_always``, gets Neovim's input prompt prefilled with the offered
prefix (``echo hello``), edits it to ``echo`` and presses Enter. The server then lists ``echo``
as remembered and runs the next ``echo`` command without asking.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.testing import ScriptedServer, ToolCallSpec, completion

from .nvim_rpc import EmbeddedNvim
from .nvim_ui import plugin_neovim, plugin_setup, tool_results

pytestmark = pytest.mark.e2e

SETUP = plugin_setup("  permissions = { shell = 'ask' },\n") + """
vim.cmd.cd(vim.fn.fnameescape(ws))
vim.cmd.edit('notes.txt')
_G.dsh_notes = vim.api.nvim_get_current_buf()
_G.dsh_asked = {}
local permission = require('dsh.permission')
local handler = permission.handler
permission.handler = function(err, params)
  table.insert(_G.dsh_asked, params)
  return handler(err, params)
end
"""

STATE = """
local client = vim.lsp.get_clients({ name = 'dsh', bufnr = _G.dsh_notes })[1]
return {
  ready = client ~= nil and client.initialized,
  pending = #require('dsh.permission').pending,
  asked = #_G.dsh_asked,
  done = _G.dsh_done ~= nil,
}
"""

PREFIXES = """
local ws = ...
local client = vim.lsp.get_clients({ name = 'dsh', bufnr = _G.dsh_notes })[1]
local answer = client:request_sync('dsh/shell/allowedPrefixes', { cwd = ws }, 10000)
return answer and answer.result
"""


@pytest.fixture
def workspace(workspace: Path) -> Path:
    """The editors' shared workspace, its ``notes.txt`` one line long."""
    (workspace / "notes.txt").write_text("alpha\n", encoding="utf-8")
    return workspace


def _bash(call_id: str, command: str) -> Any:  # Any: a StreamResponse
    args = json.dumps({"command": command, "description": "Say something"})
    return completion(tool_calls=[ToolCallSpec(id=call_id, name="bash", arguments=args)])


def _state(editor: EmbeddedNvim) -> dict[str, Any]:  # Any: the Lua table as JSON
    state: dict[str, Any] = editor.lua(STATE)
    return state


def test_always_allow_lets_the_user_edit_the_prefix(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer
) -> None:
    model.enqueue(
        _bash("b1", "echo hello world"),
        completion(text="Said it."),
        _bash("b2", "echo again"),
        completion(text="Again."),
    )
    with plugin_neovim(nvim, tmp_path, workspace, model, SETUP) as editor:
        while not _state(editor)["ready"]:
            pass
        editor.lua("require('dsh').ask('Say hello', {on_done = function(r) _G.dsh_done = r end})")
        while _state(editor)["pending"] == 0:
            pass
        asked: dict[str, Any] = editor.lua("return _G.dsh_asked[1]")  # Any: the request params
        assert asked["prefix"] == "echo hello", asked
        float_text = editor.lua(
            """
            for _, win in ipairs(vim.api.nvim_list_wins()) do
              if vim.w[win].dsh_question then
                local buf = vim.api.nvim_win_get_buf(win)
                return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\\n')
              end
            end
            """
        )
        assert "echo hello" in float_text, float_text
        editor.input(":DshAnswer allow_always<CR>")
        # Neovim's own input prompt, prefilled with the offered prefix
        while editor.request("nvim_call_function", "getcmdtype", []) != "@":
            pass
        line = editor.request("nvim_call_function", "getcmdline", [])
        assert line == "echo hello", line
        editor.input("<C-u>echo<CR>")
        state = _state(editor)
        while not state["done"]:
            state = _state(editor)
        assert state["asked"] == 1
        prefixes = editor.lua(PREFIXES, str(workspace))
        assert prefixes == {"prefixes": [{"prefix": "echo", "source": "remembered"}]}, prefixes
        editor.lua(
            "_G.dsh_done = nil; require('dsh').ask('Again', {on_done = function(r)"
            " _G.dsh_done = r end})"
        )
        state = _state(editor)
        while not state["done"]:
            state = _state(editor)
        assert state["asked"] == 1, "the edited prefix `echo` approves `echo again`"
        results = tool_results(model)
        assert "again" in results[-1], results
