"""Real Neovim with a UI attached, as a terminal would attach one, for the tests where the
user types while the agent works: ``--embed`` without ``--headless`` (Neovim starts once the
UI attached), the keys going in through ``nvim_input`` exactly as typed keys do.

Shared by the keystroke, plain-client, reasoning-fold and shell-prefix tests."""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dsh_lsp.testing import ScriptedServer, ToolCallSpec, completion

from .nvim_rpc import EmbeddedNvim
from .nvim_runner import PLUGIN, isolated_env


OPEN_NOTES_AND_DRAFT = """
vim.cmd.cd(vim.fn.fnameescape(ws))
vim.cmd.edit('notes.txt')
_G.dsh_notes = vim.api.nvim_get_current_buf()
vim.cmd.edit('draft.txt')
_G.dsh_draft = vim.api.nvim_get_current_buf()
"""
"""Lua: in the workspace ``ws``, open ``notes.txt`` and then ``draft.txt`` (the current
buffer), their numbers in ``_G.dsh_notes`` and ``_G.dsh_draft``."""

SCREEN_ROWS = """(function()
  local rows = {}
  for row = 1, vim.o.lines do
    local cells = {}
    for col = 1, vim.o.columns do
      cells[#cells + 1] = vim.fn.screenstring(row, col)
    end
    rows[#rows + 1] = table.concat(cells)
  end
  return rows
end)()"""
"""A Lua expression: the screen as last drawn, one string a row."""


def plugin_setup(options: str = "", params: str = "") -> str:
    """Lua that sets the plugin up for the scripted model, its arguments (those
    ``plugin_neovim`` passes) ``server_cmd, model_url, sessions, ws`` and then the names
    *params* (``", prompt"``); *options* are more fields of ``setup`` (each line ending
    in a comma)."""
    return f"""
local server_cmd, model_url, sessions, ws{params} = ...
require('dsh').setup({{
  cmd = server_cmd,
  model = {{ name = 'scripted', base_url = model_url }},
  session_dir = sessions,
  root_markers = {{ '.git' }},
{options}}})
"""


def plugin_argv(nvim: str) -> list[str]:
    """``nvim --embed --clean`` with the plugin on the runtime path and loaded."""
    argv = [nvim, "--embed", "--clean", "--cmd", f"set rtp^={PLUGIN}"]
    argv += ["--cmd", "set noswapfile shadafile=NONE", "-c", "runtime plugin/dsh.lua"]
    return argv


@contextmanager
def ui_neovim(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> Iterator[EmbeddedNvim]:
    """Neovim started by ``argv`` with a 100x30 UI attached; closed when the block ends."""
    editor = EmbeddedNvim(argv, env, str(cwd))
    try:
        editor.request("nvim_ui_attach", 100, 30, {"rgb": True, "ext_linegrid": True})
        yield editor
    finally:
        editor.close()


@contextmanager
def plugin_neovim(
    nvim: str, tmp_path: Path, workspace: Path, model: ScriptedServer, setup: str, *args: str
) -> Iterator[EmbeddedNvim]:
    """Neovim with the plugin and a UI attached, after the Lua ``setup`` ran with the server
    command, the model URL, the session folder, the workspace and ``args``."""
    env = isolated_env(tmp_path / "home", {"DEEPSEEK_API_KEY": "scripted-key"})
    with ui_neovim(plugin_argv(nvim), env, tmp_path) as editor:
        server_cmd = [sys.executable, "-m", "dsh_lsp", "--log-file", str(tmp_path / "server.log")]
        editor.lua(
            setup, server_cmd, model.base_url, str(tmp_path / "sessions"), str(workspace), *args
        )
        yield editor


def unblocked(editor: EmbeddedNvim, lua: str) -> dict[str, Any]:  # Any: the Lua table as JSON
    """What the Lua ``lua`` returns; fails when Neovim waits in a prompt (a hit-enter or a
    picker would take the next keys; ``nvim_get_mode`` is answered even then)."""
    mode = editor.request("nvim_get_mode")
    if mode["blocking"]:
        pytest.fail(f"Neovim is blocked in a prompt that takes the next keys: {mode}")
    state: dict[str, Any] = editor.lua(lua)
    return state


def buffer_lines(editor: EmbeddedNvim, buffer: str) -> list[str]:
    """The lines of the buffer whose number the Lua global ``buffer`` holds."""
    lines: list[str] = editor.lua(f"return vim.api.nvim_buf_get_lines(_G.{buffer}, 0, -1, false)")
    return lines


def tool_results(model: ScriptedServer) -> list[str]:
    """The tool results the model was sent in its last request."""
    messages = model.requests[-1].json()["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


def script_read_and_edit(model: ScriptedServer) -> None:
    """The model reads ``notes.txt``, edits ``beta`` to ``beta OK`` and answers ``Done.``."""
    read = json.dumps({"file_path": "notes.txt"})
    edit = json.dumps({"file_path": "notes.txt", "old_string": "beta", "new_string": "beta OK"})
    model.enqueue(
        completion(tool_calls=[ToolCallSpec(id="c1", name="read", arguments=read)]),
        completion(tool_calls=[ToolCallSpec(id="c2", name="edit", arguments=edit)]),
        completion(text="Done."),
    )


class Typist:
    """The user typing words ``w0 w1 …`` (each followed by a space) into Neovim."""

    def __init__(self, editor: EmbeddedNvim, state: str) -> None:
        self._editor = editor
        self._state = state
        self._words = (f"w{i}" for i in itertools.count())
        self.typed: list[str] = []

    def word(self) -> dict[str, Any]:  # Any: see unblocked
        """Types the next word; returns the Lua ``state`` (see ``unblocked``) after it."""
        word = next(self._words)
        self.typed.append(word)
        self._editor.input(word + " ")
        return unblocked(self._editor, self._state)

    def text(self) -> str:
        """What has been typed so far."""
        return " ".join(self.typed) + " "
