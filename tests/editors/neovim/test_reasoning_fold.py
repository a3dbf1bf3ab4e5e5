"""Reasoning folds while it streams, in real Neovim with a UI attached (editors issue, item 10).

The scripted model streams reasoning, then the start of its answer, and then holds the stream
open (``Stall``), so the turn is still running while the test looks: the chat window must show
the reasoning as a closed fold from its first line on, the fold must grow with the reasoning
and stay closed while the answer streams below it, and the user typing meanwhile (in the
chat's input area, or in a file) keeps the cursor and every keystroke.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.testing import Event, ScriptedServer, Stall, StreamResponse, delta_payload

from .nvim_rpc import EmbeddedNvim
from .nvim_runner import isolated_env
from .nvim_ui import plugin_argv, plugin_neovim, plugin_setup, ui_neovim, unblocked

pytestmark = pytest.mark.e2e

SETUP = plugin_setup() + """
vim.cmd.cd(vim.fn.fnameescape(ws))
vim.cmd.edit('notes.txt')
_G.dsh_notes = vim.api.nvim_get_current_buf()
"""

FOLD = """
local chat = require('dsh.chat')
local buf, win = chat.state.buf, chat.state.win
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local header = vim.fn.index(lines, require('dsh.render').reasoning_header) + 1
local closed, closed_end = -1, -1
if header > 0 then
  vim.api.nvim_win_call(win, function()
    closed, closed_end = vim.fn.foldclosed(header), vim.fn.foldclosedend(header)
  end)
end
local client = vim.lsp.get_clients({ name = 'dsh', bufnr = _G.dsh_notes })[1]
return {
  ready = client ~= nil and client.initialized,
  lines = lines,
  header = header,
  closed = closed,
  closed_end = closed_end,
  cursor = vim.api.nvim_win_get_cursor(win),
  current = vim.api.nvim_get_current_win() == win,
  input = chat.renderer():input_lines(),
  notes = vim.api.nvim_buf_get_lines(_G.dsh_notes, 0, 1, false)[1],
  boundary = chat.renderer():boundary_row(),
  mode = vim.api.nvim_get_mode().mode,
  done = _G.dsh_done ~= nil,
}
"""

THOUGHTS = ["Let me think", " about notes.txt.\nIt has three", " lines.\nThe second", " is beta."]
ANSWER = ["It holds", " three lines", ": alpha, beta", " and gamma."]


def _fold(editor: EmbeddedNvim) -> dict[str, Any]:  # Any: the Lua table as JSON
    return unblocked(editor, FOLD)


@pytest.mark.parametrize("typing_in", ["chat", "file"])
def test_reasoning_is_folded_while_it_streams(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer, typing_in: str
) -> None:
    """The user types the next prompt in the chat's input, or code in another window."""
    opening = {"role": "assistant", "content": None, "reasoning_content": ""}
    steps = [Event(data=delta_payload(opening))]
    steps += [
        Event(data=delta_payload({"content": None, "reasoning_content": piece}))
        for piece in THOUGHTS
    ]
    steps += [Event(data=delta_payload({"content": piece})) for piece in ANSWER]
    model.enqueue(StreamResponse(steps=(*steps, Stall(seconds=None))))
    with plugin_neovim(nvim, tmp_path, workspace, model, SETUP) as editor:
        editor.request("nvim_command", "Dsh")
        if typing_in == "file":
            editor.request("nvim_command", "wincmd p")
        state = _fold(editor)
        while not state["ready"]:
            state = _fold(editor)
        editor.lua(
            "require('dsh').ask('What is in notes.txt?',"
            " {on_done = function(r) _G.dsh_done = r end})"
        )
        editor.input("i")  # the user starts typing the next prompt in the input area
        typed = ""
        seen_partial = False
        while "and gamma." not in "\n".join(state["lines"]):  # reasoning, then the answer
            if state["header"] > 0:
                seen_partial = True
                # folded from its first line on, and only the reasoning is in the fold
                assert state["closed"] == state["header"], state
                assert state["closed_end"] <= state["boundary"], state
            char = "abcdefghij"[len(typed) % 10]
            editor.input(char)
            typed += char
            state = _fold(editor)
        assert seen_partial or state["header"] > 0
        for char in "xyz":  # keep typing after the last chunk, while the model still thinks
            editor.input(char)
            typed += char
        state = _fold(editor)
        header = state["header"]
        assert state["closed"] == header, state
        assert state["lines"][state["closed_end"] - 1].endswith("is beta."), state
        answer = state["lines"][state["closed_end"] : state["boundary"]]
        assert answer == ["It holds three lines: alpha, beta and gamma."], state
        assert state["mode"] == "i", state
        if typing_in == "chat":
            assert state["current"], state
            assert state["cursor"][0] - 1 >= state["boundary"], state  # still in the input
            assert state["input"] == [typed], state
        else:
            assert not state["current"], state
            assert state["notes"] == typed + "alpha", state
        editor.lua("require('dsh').cancel()")
        while not state["done"]:
            state = _fold(editor)
        assert state["closed"] == state["header"], state  # still folded once it ended


OPENED = """
local chat, render = require('dsh.chat'), require('dsh.render')
local lines = vim.api.nvim_buf_get_lines(chat.state.buf, 0, -1, false)
local out = {}
for lnum, line in ipairs(lines) do
  if line == render.reasoning_header then
    out[#out + 1] = vim.api.nvim_win_call(chat.state.win, function()
      return vim.fn.foldclosed(lnum)
    end)
  end
end
return out
"""


def test_a_reasoning_block_the_user_opened_stays_open(nvim: str, tmp_path: Path) -> None:
    """Folding the new reasoning while the user types does not close the one they opened."""
    update = "require('dsh.chat').update(...)"
    with ui_neovim(plugin_argv(nvim), isolated_env(tmp_path / "home"), tmp_path) as editor:
        editor.lua("require('dsh').setup({}); require('dsh.chat').open()")
        editor.lua("require('dsh.chat').user({ { type = 'text', text = 'one' } })")
        editor.lua(update, {"kind": "agent_thought_chunk", "text": "first\nthought"})
        editor.lua(update, {"kind": "agent_message_chunk", "text": "answer one"})
        editor.lua("require('dsh.chat').finish({ stopReason = 'end_turn' })")
        [first] = editor.lua(OPENED)
        assert first > 0, "the finished reasoning is folded"
        editor.lua(
            "local l = ...; vim.api.nvim_win_call(require('dsh.chat').state.win,"
            " function() vim.cmd(l .. 'foldopen') end)",
            first,
        )
        editor.input("i")  # the user types the next prompt
        editor.lua("require('dsh.chat').user({ { type = 'text', text = 'two' } })")
        for piece in ("second", " thought\nmore", "\nand more"):
            editor.lua(update, {"kind": "agent_thought_chunk", "text": piece})
            editor.input("x")
            opened, streaming = editor.lua(OPENED)
            assert opened == -1, "the block the user opened stays open"
            assert streaming > 0, "the streaming block is folded"
        assert editor.request("nvim_get_mode")["mode"] == "i"
