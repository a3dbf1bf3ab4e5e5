"""The write-behind coordinator between live sessions and the storage backend (session layer).

Appends cost no I/O: the coordinator only notes which sessions have unwritten events. At a
``SESSION_FLUSH`` it writes that session's unwritten tail, everything from its stored cursor
on, in one backend ``append``, serialized per session and shielded from cancellation (a write
that reached the backend always advances the cursor). A session is materialized by its first
flush that has something to write; one that never logs anything leaves no trace. Unloading
flushes every session with unwritten events.

The unwritten tail is read from the session's own log, which is immutable, so no copies are
buffered; the coordinator keeps a session alive only while it has unwritten events.

``SESSION_FLUSH_SOON`` starts the same flush as a background task of this plugin's fiber and
returns at once. The task first waits ``GATHER_SECONDS`` (group commit): requests that arrive
before it starts writing (in that window, or while an earlier write still holds the session's
lock) share it. A fast tool's call and result, and its step's end, so cost one write and one
``fsync`` rather than three, and a slow disk costs fewer, larger writes. Awaited flushes
(``SESSION_FLUSH``) never wait for the window.
After every write attempt the coordinator emits ``SESSION_STORED`` (contained) with the
durable count or the error, which is how the server knows when an update may be shown or a
prompt answered.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio

from dsh_lsp.kernel import Context, Plugin, ServiceKey

from .kernel_events import (
    SESSION_CREATED,
    SESSION_EVENT,
    SESSION_FLUSH,
    SESSION_FLUSH_SOON,
    SESSION_STORED,
    SessionEventNotice,
    SessionStored,
)
from .persistence import SESSION_PERSISTENCE, SessionPersistence
from .session import Session

logger = logging.getLogger(__name__)

GATHER_SECONDS = 0.002
"""How long a background flush waits for more events before it writes: short enough that
an update held for its write shows no later than a person can tell, long enough to take in
a fast tool's result with its call."""


@dataclass(slots=True, kw_only=True, eq=False)
class _Cursor:
    stored: int
    """How many leading events the backend holds."""
    created: bool
    """Whether the backend knows the session (``create`` done, or the log was loaded)."""
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class PersistenceCoordinator:
    """Tracks sessions and writes their new events to ``persistence`` at flush time."""

    def __init__(
        self,
        persistence: SessionPersistence,
        *,
        on_stored: Callable[[SessionStored], None] | None = None,
        spawn: Callable[[Callable[[], Awaitable[None]]], None] | None = None,
        gather: float = GATHER_SECONDS,
    ) -> None:
        """``on_stored`` hears every write attempt; ``spawn`` starts a background task
        (without it, ``flush_soon`` is a no-op and only ``flush`` writes); ``gather`` is the
        background flush's wait for more events (seconds, ``0`` for none)."""
        self._persistence = persistence
        self._gather = gather
        self._on_stored = on_stored
        self._spawn = spawn
        self._cursors: weakref.WeakKeyDictionary[Session, _Cursor] = weakref.WeakKeyDictionary()
        self._unwritten: set[Session] = set()
        self._scheduled: set[Session] = set()

    def track(self, session: Session) -> None:
        """Start tracking ``session`` (``SESSION_CREATED``); its stored prefix counts as written."""
        self._cursor(session)
        if len(session) > session.stored_length:
            self._unwritten.add(session)

    def note(self, notice: SessionEventNotice) -> None:
        """``SESSION_EVENT``: the session has an unwritten event."""
        session = notice.session
        if session not in self._unwritten:  # its cursor exists once it is in the set
            self._cursor(session)
            self._unwritten.add(session)

    async def flush(self, session: Session) -> None:
        """Write ``session``'s unwritten events (``SESSION_FLUSH``).

        Raises what the backend raises; the events stay unwritten and the next flush retries
        from the same cursor.
        """
        cursor = self._cursor(session)
        async with cursor.lock:
            await self._write(session, cursor)

    async def _write(self, session: Session, cursor: _Cursor) -> None:
        """Write the unwritten tail; the caller holds ``cursor.lock``."""
        with anyio.CancelScope(shield=True):
            pending = session.events[cursor.stored :]
            try:
                if pending:
                    if not cursor.created:
                        await self._persistence.create(session.header)
                        cursor.created = True
                    await self._persistence.append(session.id, pending)
                    cursor.stored = pending[-1].seq + 1
            except Exception as exc:
                self._report(SessionStored(session=session, stored=cursor.stored, error=exc))
                raise
            if cursor.stored == len(session):
                self._unwritten.discard(session)
            self._report(SessionStored(session=session, stored=cursor.stored))

    def stored(self, session: Session) -> int:
        """How many leading events of ``session`` are durable now. Never raises."""
        return self._cursor(session).stored

    def flush_soon(self, session: Session) -> None:
        """``SESSION_FLUSH_SOON``: flush ``session`` in a background task; a request made
        while one is waiting to start joins it. Never raises; a failure is reported on
        ``SESSION_STORED`` and logged."""
        if self._spawn is None or session in self._scheduled:
            return
        self._scheduled.add(session)

        async def write() -> None:
            if self._gather:
                await anyio.sleep(self._gather)  # outside the lock: awaited flushes go first
            cursor = self._cursor(session)
            async with cursor.lock:
                # Requests made until now (also while an earlier write held the lock) are
                # served by this write; later ones schedule the next.
                self._scheduled.discard(session)
                try:
                    await self._write(session, cursor)
                except Exception:
                    logger.warning("background flush of %r failed", session.id, exc_info=True)

        self._spawn(write)

    def _report(self, notice: SessionStored) -> None:
        if self._on_stored is not None:
            self._on_stored(notice)

    async def flush_all(self) -> None:
        """Flush every session with unwritten events; failures are logged, not raised."""
        with anyio.CancelScope(shield=True):
            for session in list(self._unwritten):
                try:
                    await self.flush(session)
                except Exception:
                    logger.exception("could not store the tail of session %r", session.id)

    def _cursor(self, session: Session) -> _Cursor:
        cursor = self._cursors.get(session)
        if cursor is None:
            stored = session.stored_length
            cursor = self._cursors[session] = _Cursor(stored=stored, created=stored > 0)
        return cursor


PERSISTENCE_COORDINATOR: ServiceKey[PersistenceCoordinator] = ServiceKey(
    "session-persistence-coordinator"
)
"""The coordinator; provided once, so two coordinators can never write the same logs."""


class PersistenceCoordinatorPlugin(Plugin[None]):
    """Writes sessions to the ``SESSION_PERSISTENCE`` backend at every ``SESSION_FLUSH``.

    Provides ``PERSISTENCE_COORDINATOR`` and serves ``SESSION_FLUSH_SOON`` with tasks of its
    fiber. Unloading (also when the backend goes away) first flushes every session with
    unwritten events.
    """

    name = "session-persistence-coordinator"
    inject = (SESSION_PERSISTENCE,)

    async def apply(self, ctx: Context, config: None) -> None:
        """Register the listeners and the final flush, owned by this plugin's fiber."""

        def spawn(work: Callable[[], Awaitable[None]]) -> None:
            if not ctx.closed:
                ctx.start_soon(work, name="session write-behind")

        coordinator = PersistenceCoordinator(
            ctx.require(SESSION_PERSISTENCE),
            on_stored=lambda notice: ctx.emit_contained(SESSION_STORED, notice),
            spawn=spawn,
        )
        ctx.provide(PERSISTENCE_COORDINATOR, coordinator)
        ctx.effect(lambda: coordinator.flush_all)
        ctx.on(SESSION_CREATED, coordinator.track)
        ctx.on(SESSION_EVENT, coordinator.note)
        ctx.on(SESSION_FLUSH, coordinator.flush)
        ctx.on(SESSION_FLUSH_SOON, coordinator.flush_soon)
