"""The SQLite persistence backend and its plugin (session layer; stdlib ``sqlite3``).

Same contract as the JSONL backend, one database for all sessions. Every operation is one
``BEGIN IMMEDIATE`` transaction run in a worker thread; a single-slot limiter keeps the one
connection to one thread at a time. Damage is reported by row: ``<db> session 'id' row
seq=N``.
"""

from __future__ import annotations

import builtins
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import anyio
from pydantic import BaseModel, ConfigDict

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import SessionId

from .batch import encode_batch
from .clock import Clock, wall_clock_ms
from .errors import EXISTS, IO_FAILED, NOT_FOUND, UNSUPPORTED_VERSION, SessionError
from .event import SessionEvent, encode_event
from .header import FORMAT_VERSION, SessionHeader
from .persistence import SESSION_PERSISTENCE, LoadedSession, StoredSession
from .recovery import interrupted_turn_closers, scan
from .sqlite_schema import connect
from .state_dir import default_sqlite_path

logger = logging.getLogger(__name__)
T = TypeVar("T")

_HEADER_COLUMNS = "id, version, created_at, cwd, parent_session, seed_length, title"


class SqlitePersistence:
    """``SessionPersistence`` in one SQLite database (``sessions.sqlite3`` in the user's state
    dir by default). ``clock`` stamps ``updated_at`` on every append. Call ``aclose`` (the
    plugin does) to close the connection.
    """

    def __init__(self, path: Path | str | None = None, *, clock: Clock | None = None) -> None:
        self._path = Path(path) if path is not None else default_sqlite_path()
        self._clock = clock or wall_clock_ms
        self._connection: sqlite3.Connection | None = None
        self._limiter = anyio.CapacityLimiter(1)
        self._pending: dict[SessionId, SessionHeader] = {}
        self._loaded: set[SessionId] = set()

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    async def aclose(self) -> None:
        """Close the connection (reopened on next use)."""
        if self._connection is not None:
            await self._run(self._close)

    async def create(self, header: SessionHeader) -> None:
        """Register a new session; nothing is written until its first ``append``.

        Raises ``SessionError`` (``SESSION_EXISTS``) when the id is known or stored.
        """
        sid = header.id
        if sid in self._pending or await self._run(lambda db: _header_row(db, sid)) is not None:
            raise SessionError(f"session {sid!r} already exists in {self._path}", code=EXISTS)
        self._pending[sid] = header

    async def append(self, session_id: SessionId, events: Sequence[SessionEvent]) -> None:
        """Store ``events`` in one transaction (see ``SessionPersistence``)."""
        header = self._pending.get(session_id)
        if header is None and session_id not in self._loaded:
            await self.load(session_id)
        batch = tuple(events)
        await self._run(lambda db: self._append(db, session_id, header, batch))
        if header is not None and batch:
            del self._pending[session_id]
            self._loaded.add(session_id)

    async def load(self, session_id: SessionId) -> LoadedSession:
        """Read a stored session, repairing a crash in the same transaction.

        Raises ``SessionError``: ``SESSION_NOT_FOUND``, ``SESSION_CORRUPT`` (naming the row),
        ``SESSION_UNSUPPORTED_VERSION`` or ``SESSION_IO``.
        """
        loaded = await self._run(lambda db: self._load(db, session_id))
        self._loaded.add(session_id)
        return loaded

    async def list(self) -> builtins.list[StoredSession]:
        """Every stored session, most recently written first."""
        return await self._run(self._list)

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        def call() -> T:
            try:
                if self._connection is None:
                    self._connection = connect(self._path)
                return work(self._connection)
            except sqlite3.Error as exc:
                raise SessionError(f"{self._path}: {exc}", code=IO_FAILED) from exc

        return await anyio.to_thread.run_sync(call, limiter=self._limiter)

    def _close(self, db: sqlite3.Connection) -> None:
        db.close()
        self._connection = None

    def _append(
        self,
        db: sqlite3.Connection,
        sid: SessionId,
        header: SessionHeader | None,
        events: tuple[SessionEvent, ...],
    ) -> None:
        with _transaction(db):
            if header is not None:
                records = encode_batch(sid, events, 0)
                if not records:
                    return
                if _header_row(db, sid) is not None:
                    raise SessionError(
                        f"session {sid!r} already exists in {self._path}", code=EXISTS
                    )
                db.execute(
                    f"INSERT INTO sessions ({_HEADER_COLUMNS}, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (*_header_values(header), self._clock()),
                )
            else:
                if _header_row(db, sid) is None:
                    raise SessionError(f"no stored session {sid!r} in {self._path}", code=NOT_FOUND)
                (count,) = db.execute(
                    "SELECT count(*) FROM events WHERE session_id = ?", (sid,)
                ).fetchone()
                records = encode_batch(sid, events, count)
                if not records:
                    return
                db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (self._clock(), sid))
            _insert(db, sid, events, records)

    def _load(self, db: sqlite3.Connection, sid: SessionId) -> LoadedSession:
        with _transaction(db):
            row = _header_row(db, sid)
            if row is None:
                raise SessionError(f"no stored session {sid!r} in {self._path}", code=NOT_FOUND)
            header = self._header(row)
            rows: list[tuple[int, str]] = db.execute(
                "SELECT seq, record FROM events WHERE session_id = ? ORDER BY seq", (sid,)
            ).fetchall()
            damaged = {
                index: f"row stored under seq {seq}"
                for index, (seq, _) in enumerate(rows)
                if seq != index
            }
            events = scan(
                [record for _, record in rows],
                lambda index: f"{self._where(sid)} row seq={rows[index][0]}",
                damaged=damaged,
            )
            repaired = len(events) < len(rows)
            if repaired:
                logger.warning(
                    "%s: dropping a torn tail from seq %d", self._where(sid), len(events)
                )
                db.execute(
                    "DELETE FROM events WHERE session_id = ? AND seq >= ?",
                    (sid, rows[len(events)][0]),
                )
            closers = interrupted_turn_closers(events)
            if closers:
                _insert(db, sid, closers, [encode_event(event) for event in closers])
        return LoadedSession(
            header=header, events=(*events, *closers), repaired=repaired or bool(closers)
        )

    def _list(self, db: sqlite3.Connection) -> builtins.list[StoredSession]:
        rows = db.execute(
            f"SELECT {_HEADER_COLUMNS}, updated_at FROM sessions"
            " ORDER BY updated_at DESC, created_at DESC, id DESC"
        ).fetchall()
        found: builtins.list[StoredSession] = []
        for row in rows:
            try:
                found.append(StoredSession(header=self._header(row[:7]), updated_at=row[7]))
            except SessionError as exc:
                logger.warning("skipping stored session %r: %s", row[0], exc)
        return found

    def _header(self, row: tuple[object, ...]) -> SessionHeader:
        sid, version, created_at, cwd, parent, seed_length, title = row
        if version != FORMAT_VERSION:
            raise SessionError(
                f"{self._where(str(sid))}: session format version {version} is not supported"
                f" (this build reads version {FORMAT_VERSION})",
                code=UNSUPPORTED_VERSION,
            )
        assert isinstance(sid, str)
        assert isinstance(created_at, int)
        return SessionHeader(
            id=SessionId(sid),
            created_at=created_at,
            cwd=cwd if isinstance(cwd, str) else None,
            parent_session=SessionId(parent) if isinstance(parent, str) else None,
            seed_length=seed_length if isinstance(seed_length, int) else None,
            title=title if isinstance(title, str) else None,
        )

    def _where(self, sid: str) -> str:
        return f"{self._path} session {sid!r}"


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _header_row(db: sqlite3.Connection, sid: str) -> tuple[object, ...] | None:
    row: tuple[object, ...] | None = db.execute(
        f"SELECT {_HEADER_COLUMNS} FROM sessions WHERE id = ?", (sid,)
    ).fetchone()
    return row


def _header_values(header: SessionHeader) -> tuple[object, ...]:
    return (
        header.id,
        header.version,
        header.created_at,
        header.cwd,
        header.parent_session,
        header.seed_length,
        header.title,
    )


def _insert(
    db: sqlite3.Connection, sid: str, events: Sequence[SessionEvent], records: Sequence[str]
) -> None:
    db.executemany(
        "INSERT INTO events (session_id, seq, type, record) VALUES (?, ?, ?, ?)",
        [
            (sid, event.seq, event.type, record)
            for event, record in zip(events, records, strict=True)
        ],
    )


class SqlitePersistenceConfig(BaseModel):
    """Config of ``SqlitePersistencePlugin``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path | None = None
    """The database file; default ``$XDG_STATE_HOME/dsh-lsp/sessions.sqlite3``."""


class SqlitePersistencePlugin(Plugin[SqlitePersistenceConfig]):
    """Provides ``SESSION_PERSISTENCE`` backed by SQLite; closes the database on unload.

    Load ``PersistenceCoordinatorPlugin`` too, so sessions are written at each flush.
    """

    name = "session-persistence-sqlite"
    config_model = SqlitePersistenceConfig

    def __init__(self, *, clock: Clock | None = None) -> None:
        self._clock = clock

    async def apply(self, ctx: Context, config: SqlitePersistenceConfig) -> None:
        """Provide the backend; its connection closes when the fiber unloads."""
        backend = SqlitePersistence(config.path, clock=self._clock)
        ctx.effect(lambda: backend.aclose)
        ctx.provide(SESSION_PERSISTENCE, backend)
