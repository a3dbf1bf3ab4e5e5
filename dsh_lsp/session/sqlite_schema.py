"""The SQLite backend's schema and connection setup (session layer; blocking calls).

``sessions`` holds one header per row; ``events`` one compact event record per row, keyed by
``(session_id, seq)``. WAL journaling with ``synchronous=FULL`` makes every commit durable.
The database and its side files are private to the user (mode 0600), like the JSONL logs.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Final

from .errors import UNSUPPORTED_VERSION, SessionError

_FILE_MODE: Final = 0o600
"""Mode of a database file this backend creates: readable by its owner only."""

SCHEMA_VERSION: Final = 1
"""``PRAGMA user_version`` of a database this build created."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    cwd TEXT,
    parent_session TEXT,
    seed_length INTEGER,
    title TEXT,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;
"""


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` with the schema in place.

    A new database file is created with mode 0600 first (SQLite gives its ``-wal`` and
    ``-shm`` files the database's mode); an existing one keeps its mode. The connection is in
    autocommit mode: callers open transactions with ``BEGIN IMMEDIATE``.
    It may be used from any thread, one at a time. Raises ``sqlite3.Error`` / ``OSError``, or
    ``SessionError`` (``SESSION_UNSUPPORTED_VERSION``) for a database of another schema version.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _create_private(path)
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("PRAGMA busy_timeout = 5000")
        (version,) = connection.execute("PRAGMA user_version").fetchone()
        if version == 0:
            connection.executescript(_SCHEMA)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version != SCHEMA_VERSION:
            raise SessionError(
                f"{path}: database schema version {version} is not supported (this build"
                f" uses version {SCHEMA_VERSION})",
                code=UNSUPPORTED_VERSION,
            )
    except BaseException:
        connection.close()
        raise
    return connection


def _create_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (SQLite reads an empty file as an
    empty database). Raises ``OSError``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)
