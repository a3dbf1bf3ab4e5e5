"""A writer process killed with SIGKILL mid-append loses nothing it had flushed."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dsh_lsp.session import (
    TURN_END,
    JsonlPersistence,
    LoadedSession,
    Session,
    SqlitePersistence,
    encode_event,
)

from .crash_writer import SESSION_ID, expected_session
from .scenarios import unanswered_calls

WRITER = Path(__file__).with_name("crash_writer.py")


def _storage_state(storage: Path) -> list[tuple[int, int]]:
    """Size and mtime of each file of the backend's storage (JSONL tree, or database + WAL)."""
    paths = (
        sorted(storage.rglob("*"))
        if storage.is_dir()
        else [storage, storage.with_name(storage.name + "-wal")]
    )
    states: list[tuple[int, int]] = []
    for path in paths:
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        states.append((stat.st_size, stat.st_mtime_ns))
    return states


def _run_until_killed(kind: str, storage: Path, kill_at_append: int) -> int:
    """Start the writer; SIGKILL it once append number ``kill_at_append`` is writing.

    The child says ``appending`` just before a backend append; the parent then watches the
    storage until a file changes (the write is under way) and kills. Returns how many events
    the writer had confirmed as flushed.
    """
    child = subprocess.Popen(
        [sys.executable, str(WRITER), kind, str(storage)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    flushed = appends = 0
    state: list[tuple[int, int]] = []
    try:
        for line in child.stdout:
            word, number = line.split()
            if word == "flushed":
                flushed = int(number)
                state = _storage_state(storage)
            elif word == "appending":
                appends += 1
                if appends == kill_at_append:
                    while _storage_state(storage) == state and child.poll() is None:
                        pass
                    child.send_signal(signal.SIGKILL)
                    break
    finally:
        child.stdout.close()
        child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    return flushed


async def _load(kind: str, storage: Path) -> LoadedSession:
    if kind == "jsonl":
        return await JsonlPersistence(storage).load(SESSION_ID)
    backend = SqlitePersistence(storage)
    try:
        return await backend.load(SESSION_ID)
    finally:
        await backend.aclose()


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
@pytest.mark.parametrize("kill_at_append", [4, 5, 6])
async def test_a_killed_writer_loses_nothing_it_flushed(
    tmp_path: Path, kind: str, kill_at_append: int
) -> None:
    storage = tmp_path / ("sessions" if kind == "jsonl" else "sessions.sqlite3")
    flushed = _run_until_killed(kind, storage, kill_at_append)
    assert flushed > 0
    loaded = await _load(kind, storage)
    written = expected_session(2 * (len(loaded.events) // 8 + 1))
    lines = [encode_event(event) for event in loaded.events]
    kept = 0
    while kept < len(lines) and lines[kept] == encode_event(written.events[kept]):
        kept += 1
    assert kept >= flushed
    # Whatever follows the surviving prefix is the repair that closes the interrupted turn.
    repair = loaded.events[kept:]
    if repair:
        assert loaded.repaired
        assert repair[-1].type == TURN_END
        assert repair[-1].data["reason"] == {"kind": "interrupted"}
    resumed = Session(loaded.header, seed=loaded.events)
    assert resumed.open_turn() is None
    assert resumed.pending_tool_calls() == ()
    assert unanswered_calls(resumed.derive_messages()) == set()
    again = await _load(kind, storage)
    assert [encode_event(event) for event in again.events] == lines
    assert not again.repaired
