"""Test harnesses for the persistence backends: one per backend, one shape for the contract.

A harness opens backend instances over one storage location (a fresh instance stands for a
new process) and damages the stored log the way a crash or a disk fault would.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Protocol

from dsh_lsp.llm import SessionId
from dsh_lsp.session import JsonlPersistence, SessionPersistence, SqlitePersistence

from .scenarios import FakeClock


class Harness(Protocol):
    """One backend's storage, plus ways to damage it."""

    name: str

    def open(self) -> SessionPersistence:
        """A new backend instance over the same storage."""
        ...

    async def close(self) -> None:
        """Release every instance opened."""
        ...

    def tear_tail(self, sid: SessionId, fragment: str) -> None:
        """Leave ``fragment`` as an unfinished record after the stored events."""
        ...

    def damage(self, sid: SessionId, seq: int) -> None:
        """Overwrite the stored record of ``seq`` with garbage."""
        ...

    def location(self, sid: SessionId, seq: int) -> str:
        """How a corruption error names the record of ``seq``."""
        ...

    def set_version(self, sid: SessionId, version: int) -> None:
        """Rewrite the stored header's format version."""
        ...


class JsonlHarness:
    name = "jsonl"

    def __init__(self, root: Path, clock: FakeClock) -> None:
        self.root = root / "sessions"
        self.clock = clock

    def open(self) -> SessionPersistence:
        return JsonlPersistence(self.root, clock=self.clock)

    async def close(self) -> None:
        return None

    def file(self, sid: SessionId) -> Path:
        (found,) = [p for p in self.root.glob("*/*.jsonl") if p.stem == sid]
        return found

    def tear_tail(self, sid: SessionId, fragment: str) -> None:
        with self.file(sid).open("ab") as handle:
            handle.write(fragment.encode())

    def damage(self, sid: SessionId, seq: int) -> None:
        path = self.file(sid)
        lines = path.read_bytes().split(b"\n")
        lines[seq + 1] = b'{"type":"turn/sta'
        path.write_bytes(b"\n".join(lines))

    def location(self, sid: SessionId, seq: int) -> str:
        return f"{self.file(sid)} line {seq + 2}"

    def set_version(self, sid: SessionId, version: int) -> None:
        path = self.file(sid)
        data = path.read_bytes().replace(b'"version":0', f'"version":{version}'.encode(), 1)
        path.write_bytes(data)


class SqliteHarness:
    name = "sqlite"

    def __init__(self, root: Path, clock: FakeClock) -> None:
        self.path = root / "sessions.sqlite3"
        self.clock = clock
        self.opened: list[SqlitePersistence] = []

    def open(self) -> SessionPersistence:
        backend = SqlitePersistence(self.path, clock=self.clock)
        self.opened.append(backend)
        return backend

    async def close(self) -> None:
        for backend in self.opened:
            await backend.aclose()

    def _execute(self, sql: str, params: tuple[object, ...]) -> None:
        connection = sqlite3.connect(self.path)
        try:
            with connection:
                connection.execute(sql, params)
        finally:
            connection.close()

    def tear_tail(self, sid: SessionId, fragment: str) -> None:
        connection = sqlite3.connect(self.path)
        try:
            (count,) = connection.execute(
                "SELECT count(*) FROM events WHERE session_id = ?", (sid,)
            ).fetchone()
        finally:
            connection.close()
        self._execute(
            "INSERT INTO events (session_id, seq, type, record) VALUES (?, ?, 'x', ?)",
            (sid, count, fragment),
        )

    def damage(self, sid: SessionId, seq: int) -> None:
        self._execute(
            'UPDATE events SET record = \'{"type":"turn/sta\' WHERE session_id = ? AND seq = ?',
            (sid, seq),
        )

    def location(self, sid: SessionId, seq: int) -> str:
        return f"{self.path} session {sid!r} row seq={seq}"

    def set_version(self, sid: SessionId, version: int) -> None:
        self._execute("UPDATE sessions SET version = ? WHERE id = ?", (version, sid))
