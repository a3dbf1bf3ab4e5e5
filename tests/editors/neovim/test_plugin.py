"""The plugin against an in-process fake server speaking the ``dsh/*`` contract (real Neovim).

These pin the plugin's side of the contract on their own: options, capabilities sent at
``initialize``, prompt blocks, cancellation, permission prompts, the ``workspace/applyEdit``
wrapper and undo grouping, ``dsh/saveDocuments``, the session picker and ``:checkhealth dsh``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .nvim_runner import run_spec

pytestmark = pytest.mark.e2e

CASES = [
    "setup validates options",
    "vim.lsp.enable starts the server with the dsh capabilities",
    "ask streams a turn into the chat and reports to callbacks",
    "range and diagnostics attach context",
    "cancel from the chat with <C-c>",
    "permission request with diff preview through vim.ui.select",
    "permission question waits in a float that does not take the keyboard",
    "applyEdit: stale refused, one undo step per tool call, DshChanges",
    "saveDocuments writes the listed buffers and answers the uris saved",
    "sessions picker resumes and replays history",
    "toggle opens and closes the chat window; float layout",
    "checkhealth dsh reports",
    "help documents every command, option and highlight group",
    "chat keys: <C-s> sends the input, <CR> jumps to a tool location",
    "works without setup: runtimepath + vim.lsp.enable",
]


@pytest.mark.parametrize("case", CASES)
def test_plugin(case: str, tmp_path: Path, nvim: str) -> None:
    run_spec("plugin_spec.lua", case, tmp_path, nvim=nvim).assert_passed()
