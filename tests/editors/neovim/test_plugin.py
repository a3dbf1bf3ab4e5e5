"""The plugin against an in-process fake server speaking the ``dsh/*`` contract (real Neovim).

These pin the plugin's side of the contract on their own: options, capabilities sent at
``initialize``, prompt blocks, cancellation, permission prompts, the ``workspace/applyEdit``
wrapper and undo grouping, ``dsh/saveDocuments``, the session picker and ``:checkhealth dsh``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .nvim_runner import PLUGIN, run_spec

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
    "a tool card lists its locations; <CR> on one jumps there",
    "works without setup: runtimepath + vim.lsp.enable",
]


@pytest.mark.parametrize("case", CASES)
def test_plugin(case: str, tmp_path: Path, nvim: str) -> None:
    run_spec("plugin_spec.lua", case, tmp_path, nvim=nvim).assert_passed()


def test_help_tags_are_shipped_and_fresh(tmp_path: Path, nvim: str) -> None:
    """``:help dsh`` finds the plugin's help without a plugin manager running ``:helptags``
    (it opened Neovim's own credits before ``doc/tags`` was shipped)."""
    fresh = tmp_path / "doc"
    shutil.copytree(PLUGIN / "doc", fresh)
    (fresh / "tags").unlink()
    subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"helptags {fresh}", "-c", "qa!"],
        check=True,
        timeout=30,
        capture_output=True,
    )
    shipped = (PLUGIN / "doc" / "tags").read_text(encoding="utf-8")
    assert (fresh / "tags").read_text(encoding="utf-8") == shipped, (
        "doc/tags is stale: run nvim --headless -c 'helptags editors/neovim/doc' -c q"
    )
    opened = subprocess.run(
        [nvim, "--headless", "--clean", "--cmd", f"set rtp^={PLUGIN}", "-c", "help dsh"]
        + ["-c", "lua io.stdout:write(vim.fn.expand('%:t'))", "-c", "qa!"],
        check=True,
        timeout=30,
        capture_output=True,
        text=True,
    )
    assert opened.stdout.strip() == "dsh.txt", opened
