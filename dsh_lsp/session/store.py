"""SessionStore: the live sessions of one kernel, and the SESSIONS service key (session layer).

The store creates sessions (fresh or seeded for a fork), resumes stored ones through the
persistence service, and announces each with ``SESSION_CREATED``. Every session it makes
emits ``SESSION_EVENT`` after each append. Closing forgets a session; it does not flush
(the agent loop flushes within every turn; see the durable-turns RFC).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

from dsh_lsp.kernel import Context, ServiceKey
from dsh_lsp.llm import SessionId

from .clock import Clock, wall_clock_ms
from .errors import EXISTS, INVALID_EVENT, NO_PERSISTENCE, SessionError
from .event import SessionEvent
from .header import SessionHeader
from .json_check import storable
from .kernel_events import SESSION_CREATED, SESSION_EVENT, SessionEventNotice
from .persistence import SESSION_PERSISTENCE
from .session import Session


def new_session_id() -> SessionId:
    """A fresh random session id (a UUID4 string)."""
    return SessionId(str(uuid.uuid4()))


class SessionStore:
    """Creates, resumes and tracks the live sessions; provided as ``SESSIONS``.

    ``clock`` stamps headers and events (milliseconds); ``new_id`` makes ids for ``create``.
    """

    def __init__(
        self,
        ctx: Context,
        *,
        clock: Clock | None = None,
        new_id: Callable[[], SessionId] | None = None,
    ) -> None:
        self._ctx = ctx
        self._clock = clock or wall_clock_ms
        self._new_id = new_id or new_session_id
        self._live: dict[SessionId, Session] = {}

    def create(
        self,
        *,
        session_id: SessionId | None = None,
        cwd: str | None = None,
        seed: Sequence[SessionEvent] = (),
        parent_session: SessionId | None = None,
        title: str | None = None,
    ) -> Session:
        """Create and register a session, then emit ``SESSION_CREATED``.

        ``seed`` (a fork's ``completed_prefix``) becomes the first events and is recorded as
        ``seed_length``. A ``title`` is stored with its unpaired surrogates replaced by U+FFFD.
        Raises ``SessionError``: ``SESSION_EXISTS`` for a live id, ``SESSION_INVALID_EVENT``
        for a ``cwd`` holding an unpaired surrogate, ``SESSION_INVALID_SEED`` for a bad seed.
        A raising listener propagates; the session stays registered.
        """
        sid = session_id if session_id is not None else self._new_id()
        self._check_free(sid)
        if cwd is not None and storable(cwd) is not cwd:
            raise SessionError(
                "the session's cwd holds an unpaired surrogate, so it cannot be stored",
                code=INVALID_EVENT,
            )
        header = SessionHeader(
            id=sid,
            created_at=self._clock(),
            cwd=cwd,
            parent_session=parent_session,
            seed_length=len(seed) if seed else None,
            title=None if title is None else storable(title),
        )
        return self._register(Session(header, seed=seed, clock=self._clock, notify=self._notify))

    async def resume(self, session_id: SessionId) -> Session:
        """Load a stored session (repairing a crash) and register it, header kept.

        Raises ``SessionError``: ``SESSION_NO_PERSISTENCE`` without a persistence service,
        ``SESSION_EXISTS`` when the id is live, or whatever the backend's ``load`` raises
        (``SESSION_NOT_FOUND``, ``SESSION_CORRUPT``, ...).
        """
        self._check_free(session_id)
        persistence = self._ctx.get(SESSION_PERSISTENCE)
        if persistence is None:
            raise SessionError(
                f"cannot resume session {session_id!r}: no session persistence is configured",
                code=NO_PERSISTENCE,
            )
        loaded = await persistence.load(session_id)
        self._check_free(session_id)
        return self._register(Session.restore(loaded, clock=self._clock, notify=self._notify))

    def get(self, session_id: SessionId) -> Session | None:
        """The live session with that id, if any."""
        return self._live.get(session_id)

    def sessions(self) -> tuple[Session, ...]:
        """Every live session, in creation order."""
        return tuple(self._live.values())

    def close(self, session_id: SessionId) -> None:
        """Forget a live session (no-op for unknown ids). Flush it first to keep its tail."""
        self._live.pop(session_id, None)

    def _check_free(self, session_id: SessionId) -> None:
        if session_id in self._live:
            raise SessionError(f"session {session_id!r} is already open", code=EXISTS)

    def _register(self, session: Session) -> Session:
        self._live[session.id] = session
        self._ctx.emit(SESSION_CREATED, session)
        return session

    def _notify(self, session: Session, event: SessionEvent) -> None:
        self._ctx.emit(SESSION_EVENT, SessionEventNotice(session=session, event=event))


SESSIONS: ServiceKey[SessionStore] = ServiceKey("sessions")
"""The session store; provided by ``SessionPlugin``."""
