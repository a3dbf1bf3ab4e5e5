"""``dsh-lsp demo``: the offline demo runs three real processes and exits 0."""

from __future__ import annotations

import subprocess
import sys


def test_the_demo_streams_a_turn_and_prints_the_diff() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dsh_lsp", "demo"],
        capture_output=True,
        text=True,
        timeout=55,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "thinking:  The user wants" in out
    assert "tool:      Read notes.md [read] — completed" not in out  # result lines omit the kind
    assert "tool:      Read notes.md — completed" in out
    assert "tool:      Grep 'TODO' in . — completed" in out
    assert "tool:      Edit notes.md — completed" in out
    assert '"stopReason": "end_turn"' in out
    assert "-- [ ] TODO: write the release notes" in out
    assert "+- [x] write the release notes" in out
    assert out.rstrip().endswith("demo finished: ok")
