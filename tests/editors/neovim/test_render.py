"""The chat renderer (update → buffer), fed recorded update sequences in a real Neovim."""

from __future__ import annotations

from pathlib import Path

import pytest

from .nvim_runner import run_spec

pytestmark = pytest.mark.e2e

CASES = [
    "full turn renders text, reasoning, tool lines and usage",
    "reasoning folds closed in a chat window",
    "cancelled and error footers, no double footer",
    "replay renders user messages and plans",
    "compaction and instructions notices render",
    "typing in the input area survives streaming",
    "late updates of a cancelled turn stay out of the next turn",
]


@pytest.mark.parametrize("case", CASES)
def test_render(case: str, tmp_path: Path, nvim: str) -> None:
    run_spec("render_spec.lua", case, tmp_path, nvim=nvim).assert_passed()


def test_5000_chunk_answer_renders_incrementally_and_fast(tmp_path: Path) -> None:
    run = run_spec("render_spec.lua", "5000-chunk answer renders incrementally and fast", tmp_path)
    run.assert_passed()
    assert run.result["data"]["render_5000_ms"] < 1000
