"""The JSONL persistence backend and its plugin (session layer).

One file per session under ``<directory>/<cwd bucket>/<encoded id>.jsonl`` (see
``jsonl_layout``): a header line, then one compact event record per line. The first append
publishes header and events atomically (``durable_files.publish``); later appends are fsynced
and rolled back on failure. Blocking file work runs in worker threads, all but the one ``stat``
with which ``create`` looks for an existing log. Callers serialize calls per session (the
coordinator does); different sessions may run in parallel.
"""

from __future__ import annotations

import builtins
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from pydantic import BaseModel, ConfigDict

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import SessionId, dumps_compact

from . import durable_files
from .batch import encode_batch
from .clock import Clock, wall_clock_ms
from .errors import CORRUPT, EXISTS, NOT_FOUND, SessionError
from .event import SessionEvent
from .header import SessionHeader, header_to_json
from .jsonl_layout import SUFFIX, encode_id, log_path
from .jsonl_log import encode_lines, io_error, list_logs, read_log
from .persistence import SESSION_PERSISTENCE, LoadedSession, StoredSession
from .state_dir import default_sessions_dir

_log = logging.getLogger(__name__)


@dataclass(slots=True, kw_only=True, eq=False)
class _Stored:
    path: Path
    count: int


class JsonlPersistence:
    """``SessionPersistence`` over JSONL files below ``directory`` (the user's state dir
    by default). ``clock`` stamps each write as the file's modification time, which ``list``
    reports as ``updated_at``; a stamp that fails is logged and the file keeps the time the
    system gave it.
    """

    def __init__(self, directory: Path | str | None = None, *, clock: Clock | None = None) -> None:
        self._root = Path(directory) if directory is not None else default_sessions_dir()
        self._clock = clock or wall_clock_ms
        self._pending: dict[SessionId, SessionHeader] = {}
        self._stored: dict[SessionId, _Stored] = {}

    @property
    def directory(self) -> Path:
        """The root directory of the logs."""
        return self._root

    def path_of(self, header: SessionHeader) -> Path:
        """Where the log of the session with ``header`` lives."""
        return log_path(self._root, header.id, header.cwd)

    async def create(self, header: SessionHeader) -> None:
        """Register a new session; nothing is written until its first ``append``.

        Raises ``SessionError`` (``SESSION_EXISTS``) when the id is known, or stored where
        this header's log would go (one ``stat`` on the event loop); a log of the id under
        another workspace's folder is found by the first ``append``, in the worker thread
        that publishes the file, so a new session costs one hand-off to a thread, not two.
        """
        self._check_new(header)
        self._pending[header.id] = header

    async def append(self, session_id: SessionId, events: Sequence[SessionEvent]) -> None:
        """Store ``events`` durably, all or nothing (see ``SessionPersistence``).

        A stored session this instance has not seen yet is loaded (and repaired) first.
        """
        header = self._pending.get(session_id)
        if header is not None:
            records = encode_batch(session_id, events, 0)
            if records:
                path = self.path_of(header)
                data = encode_lines([dumps_compact(header_to_json(header)), *records])
                await anyio.to_thread.run_sync(self._publish, session_id, path, data)
                del self._pending[session_id]
                self._stored[session_id] = _Stored(path=path, count=len(records))
            return
        stored = self._stored.get(session_id)
        if stored is None:
            await self.load(session_id)
            stored = self._stored[session_id]
        records = encode_batch(session_id, events, stored.count)
        if records:
            await anyio.to_thread.run_sync(self._append, stored.path, encode_lines(records))
            stored.count += len(records)

    async def load(self, session_id: SessionId) -> LoadedSession:
        """Read a stored session, repairing a crash durably first.

        Raises ``SessionError``: ``SESSION_NOT_FOUND``, ``SESSION_CORRUPT`` (file and line),
        ``SESSION_UNSUPPORTED_VERSION`` or ``SESSION_IO``.
        """
        path = await anyio.to_thread.run_sync(self._locate, session_id)
        if path is None:
            raise SessionError(f"no stored session {session_id!r} in {self._root}", code=NOT_FOUND)
        loaded = await anyio.to_thread.run_sync(read_log, path)
        if loaded.header.id != session_id:
            raise SessionError(
                f"{path} line 1: the header names session {loaded.header.id!r}",
                code=CORRUPT,
            )
        self._stored[session_id] = _Stored(path=path, count=len(loaded.events))
        return loaded

    async def list(self) -> builtins.list[StoredSession]:
        """Every stored session (header lines only), most recently written first."""
        return await anyio.to_thread.run_sync(list_logs, self._root)

    async def delete(self, session_id: SessionId) -> Path:
        """Remove a stored session's log; returns the path it had (``dsh-lsp sessions
        delete``). A live session must not be deleted under its writer.

        Raises ``SessionError``: ``SESSION_NOT_FOUND`` or ``SESSION_IO``.
        """
        path = await anyio.to_thread.run_sync(self._locate, session_id)
        if path is None:
            raise SessionError(f"no stored session {session_id!r} in {self._root}", code=NOT_FOUND)
        try:
            await anyio.to_thread.run_sync(path.unlink)
        except OSError as exc:
            raise io_error("delete", path, exc) from exc
        self._stored.pop(session_id, None)
        return path

    def _check_new(self, header: SessionHeader) -> None:
        """Raise ``SESSION_EXISTS`` when ``header``'s id is known, or has a log where this
        header's would go (a small ``stat``, made on the event loop)."""
        sid = header.id
        if sid in self._pending or sid in self._stored:
            raise SessionError(f"session {sid!r} already exists", code=EXISTS)
        path = self.path_of(header)
        if os.path.lexists(path):
            raise SessionError(f"session {sid!r} already exists at {path}", code=EXISTS)

    def _locate(self, session_id: SessionId) -> Path | None:
        known = self._stored.get(session_id)
        if known is not None:
            return known.path
        name = encode_id(session_id) + SUFFIX
        try:
            buckets = [entry for entry in self._root.iterdir() if entry.is_dir()]
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise io_error("list", self._root, exc) from exc
        for bucket in buckets:
            if (bucket / name).is_file():
                return bucket / name
        return None

    def _publish(self, session_id: SessionId, path: Path, data: bytes) -> None:
        found = self._locate(session_id)
        if found is not None:
            raise SessionError(f"session {session_id!r} already exists at {found}", code=EXISTS)
        try:
            durable_files.publish(path, data)
        except FileExistsError as exc:
            raise SessionError(f"a session log already exists at {path}", code=EXISTS) from exc
        except OSError as exc:
            raise io_error("create", path, exc) from exc
        self._touch(path)

    def _append(self, path: Path, data: bytes) -> None:
        try:
            durable_files.append(path, data)
        except OSError as exc:
            raise io_error("append to", path, exc) from exc
        self._touch(path)

    def _touch(self, path: Path) -> None:
        """Stamp ``path`` with the clock, best effort: the write it follows is already
        durable, so a failure is logged and never reported as a failed append (a caller
        would retry and store the events twice)."""
        stamp = self._clock() * 1_000_000
        try:
            os.utime(path, ns=(stamp, stamp))
        except OSError as exc:
            _log.warning("could not stamp %s: %s", path, exc)


class JsonlPersistenceConfig(BaseModel):
    """Config of ``JsonlPersistencePlugin``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    directory: Path | None = None
    """Root of the session logs; default ``$XDG_STATE_HOME/dsh-lsp/sessions``."""


class JsonlPersistencePlugin(Plugin[JsonlPersistenceConfig]):
    """Provides ``SESSION_PERSISTENCE`` backed by JSONL files.

    Load ``PersistenceCoordinatorPlugin`` too, so sessions are written at each flush.
    """

    name = "session-persistence-jsonl"
    config_model = JsonlPersistenceConfig

    def __init__(self, *, clock: Clock | None = None) -> None:
        self._clock = clock

    async def apply(self, ctx: Context, config: JsonlPersistenceConfig) -> None:
        """Provide the backend, owned by this plugin's fiber."""
        ctx.provide(SESSION_PERSISTENCE, JsonlPersistence(config.directory, clock=self._clock))
