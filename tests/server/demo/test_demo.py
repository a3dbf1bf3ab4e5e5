"""``dsh-lsp demo``: the offline demo runs three real processes and exits 0; a failure in
the demo client ends it with a non-zero exit and a message instead of a hang."""

from __future__ import annotations

import io
import os
import re

import anyio
import pytest

from dsh_lsp.cli.demo import demo_plan
from dsh_lsp.server.demo import run_demo
from tests.cli_process import run_dsh


def test_the_demo_streams_a_turn_and_prints_the_diff() -> None:
    result = run_dsh(["demo"], os.environ, timeout=55)  # inside the 60 s a test may take
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "thinking:  The user wants" in out
    assert "you:       Mark the release-notes TODO in notes.md as done. (+1 attachment)" in out
    # a card whose states went out together is one line with its kind (fold_cards)
    for title, kind in (
        ("Read notes.md", "read"),
        ("Grep 'TODO' in .", "search"),
        ("Edit notes.md", "edit"),
    ):
        assert re.search(rf"tool:      {re.escape(title)}( \[{kind}\])? — completed\n", out), out
    assert '"stopReason": "end_turn"' in out
    assert "-- [ ] TODO: write the release notes" in out
    assert "+- [x] write the release notes" in out
    assert out.rstrip().endswith("demo finished: ok")


class ClosedPipe(io.StringIO):
    """Standard output whose reader went away (``dsh-lsp demo | head``): every write fails
    from the first update on (in the client's notification handler)."""

    broken = False

    def write(self, text: str) -> int:
        self.broken = self.broken or "state:" in text or "you:" in text
        if self.broken:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


@pytest.mark.asyncio
async def test_a_failing_client_handler_ends_the_demo_with_a_message() -> None:
    err = io.StringIO()
    with anyio.fail_after(50):
        code = await run_demo(demo_plan(), ClosedPipe(), err=err)
    assert code == 1
    message = err.getvalue()
    assert message.startswith("dsh-lsp demo: failed: ")
    assert "BrokenPipeError" in message
