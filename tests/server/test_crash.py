"""The kill -9 suite, quick and seeded: SIGKILL the real server at random protocol points.

Each backend gets ``KILLS`` trials (``crash_kit``): a real ``dsh-lsp`` over stdio runs two
scripted multi-step prompts (write, read and edit a file, each change asked for and granted,
streamed text) and is killed right after the client received a message drawn by a seeded
RNG; a checker server then lists, resumes and prompts the session. Every figure that must be
zero is zero. ``bench/crash.py --kills 200`` runs the long version and prints the figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .crash_kit import Store, Zygote, run

KILLS = 10
"""Trials per backend (two backends: 20 kills in all)."""
SEED = 15


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    """One fork server for the module (it imports dsh-lsp once)."""
    forks = Zygote()
    yield forks
    forks.close()


@pytest.mark.parametrize("store", ["jsonl", "sqlite"])
async def test_nothing_the_client_was_shown_is_lost_after_kill_9(
    store: Store, tmp_path: Path, zygote: Zygote
) -> None:
    figures = await run(tmp_path, store, KILLS, SEED, zygote=zygote)
    assert figures.kills == KILLS
    assert figures.sessions_seen > 0
    assert figures.events_seen > 0
    assert figures.problems == []
    assert figures.clean
