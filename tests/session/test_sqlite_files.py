"""The SQLite backend's files: private to the user, like the JSONL logs."""

from __future__ import annotations

import stat
from pathlib import Path

from dsh_lsp.session import Session, SqlitePersistence

from .scenarios import complete_turn, new_session


async def _store(path: Path, session_id: str) -> Session:
    """A one-turn session stored in the database at ``path`` (the backend closed after)."""
    backend = SqlitePersistence(path)
    try:
        session = new_session(session_id)
        complete_turn(session)
        await backend.create(session.header)
        await backend.append(session.id, session.events[:])
    finally:
        await backend.aclose()
    return session


def _modes(path: Path) -> dict[str, int]:
    """The permission bits of the database at ``path`` and of its side files."""
    return {
        p.name: stat.S_IMODE(p.stat().st_mode)
        for p in path.parent.iterdir()
        if p.name.startswith(path.name)
    }


async def test_the_database_and_its_side_files_are_private(tmp_path: Path) -> None:
    path = tmp_path / "state" / "sessions.sqlite3"
    backend = SqlitePersistence(path)
    try:
        session = new_session("private")
        complete_turn(session)
        await backend.create(session.header)
        await backend.append(session.id, session.events[:])
        assert _modes(path) == {
            "sessions.sqlite3": 0o600,
            "sessions.sqlite3-shm": 0o600,
            "sessions.sqlite3-wal": 0o600,
        }
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    finally:
        await backend.aclose()


async def test_an_existing_database_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    session = await _store(path, "kept")
    path.chmod(0o640)
    second = SqlitePersistence(path)
    try:
        loaded = await second.load(session.id)
    finally:
        await second.aclose()
    assert len(loaded.events) == len(session)
    assert _modes(path)["sessions.sqlite3"] == 0o640
