"""Session: one agent's append-only event log and everything derived from it (session layer).

The log is the single source of truth. ``append`` validates an event, pushes it, and only then
notifies (so a failing listener leaves the event logged and "does this turn still owe a
``turn/end``?" is answered from the log). Turn numbers, the open turn and step, unanswered tool
calls and the model history (``derive_messages``) are all folds over the log, kept current as
events arrive. "Model-visible means logged": ``derive_messages`` reads nothing but the log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import overload

from dsh_lsp.llm import (
    JsonObject,
    LlmError,
    Message,
    ReasoningDelta,
    SessionId,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
)

from . import events as ev
from .admission import event_problem
from .clock import Clock, wall_clock_ms
from .errors import INVALID_EVENT, INVALID_SEED, SessionError
from .event import SessionEvent, SurfaceOp
from .header import SessionHeader
from .json_check import NotJsonError, clone_json, is_lossless_json
from .payloads import AssistantChunkPayload, EventPayload, RawPayload
from .persistence import LoadedSession
from .surface import Surface
from .turns import TurnTracker

AppendListener = Callable[["Session", SessionEvent], None]
"""Called after each append with the session and the logged event."""


class EventLog(Sequence[SessionEvent]):
    """A read-only view of a session's events; indexes are seqs. Slices are tuples."""

    __slots__ = ("_events",)

    def __init__(self, events: list[SessionEvent]) -> None:
        self._events = events

    @overload
    def __getitem__(self, index: int) -> SessionEvent: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[SessionEvent, ...]: ...
    def __getitem__(self, index: int | slice) -> SessionEvent | tuple[SessionEvent, ...]:
        if isinstance(index, slice):
            return tuple(self._events[index])
        return self._events[index]

    def __len__(self) -> int:
        return len(self._events)

    def __repr__(self) -> str:
        return f"EventLog(<{len(self._events)} events>)"


class Session:
    """One agent's log. Create through ``SessionStore`` in a kernel; directly in unit code.

    ``seed`` events (a fork's completed prefix, or a resumed log) must be contiguous from seq 0
    and are validated like appends; they are copied in and not announced. ``clock`` stamps
    appended events (milliseconds). ``notify`` is called after every append. ``stored_length``
    says how many leading events a persistence backend already holds (a resumed session).
    Raises ``SessionError`` (``SESSION_INVALID_SEED``) for a bad seed.
    """

    __slots__ = (
        "__weakref__",
        "_clock",
        "_events",
        "_header",
        "_notify",
        "_stored_length",
        "_surface",
        "_tracker",
        "_view",
    )

    def __init__(
        self,
        header: SessionHeader,
        *,
        seed: Iterable[SessionEvent] = (),
        clock: Clock | None = None,
        notify: AppendListener | None = None,
        stored_length: int = 0,
    ) -> None:
        self._header = header
        self._clock = clock or wall_clock_ms
        self._notify = notify
        self._events: list[SessionEvent] = []
        self._view = EventLog(self._events)
        self._surface = Surface()
        self._tracker = TurnTracker()
        for index, event in enumerate(seed):
            if event.seq != index:
                raise SessionError(
                    f"seed event {index} has seq {event.seq}; seeds run 0, 1, 2, ...",
                    code=INVALID_SEED,
                )
            try:
                data = clone_json(event.data)
            except NotJsonError as exc:
                raise SessionError(
                    f"seed event {index} ({event.type}) data is not lossless JSON: {exc}",
                    code=INVALID_SEED,
                ) from exc
            self._admit(
                SessionEvent(
                    type=event.type,
                    seq=index,
                    time=event.time,
                    data=data,  # type: ignore[arg-type]  # _admit rejects non-objects
                    source_event_seqs=event.source_event_seqs,
                    surface_op=event.surface_op,
                    _payload=event._payload,  # immutable, so a fork shares the decoded payload
                ),
                INVALID_SEED,
            )
        if not 0 <= stored_length <= len(self._events):
            raise SessionError(f"stored_length {stored_length} exceeds the seed", code=INVALID_SEED)
        self._stored_length = stored_length

    @classmethod
    def restore(
        cls,
        loaded: LoadedSession,
        *,
        clock: Clock | None = None,
        notify: AppendListener | None = None,
    ) -> Session:
        """The bulk loader: a session continuing a stored log, ``stored_length`` = its size.

        Trusts what a backend's ``load`` returns (freshly decoded data held by nobody else,
        each event already checked by the crash-recovery scan), so it skips the JSON copy
        and the per-event admission checks; seqs are checked, and the surface and turn state
        are folded as usual. Raises ``SessionError`` (``SESSION_INVALID_SEED``) when an event
        cannot join the surface or a seq is out of place.
        """
        session = cls(loaded.header, clock=clock, notify=notify)
        events, surface, tracker = session._events, session._surface, session._tracker
        for index, event in enumerate(loaded.events):
            if event.seq != index:
                raise SessionError(f"stored event {index} has seq {event.seq}", code=INVALID_SEED)
            if event.surface_op is not None:
                try:
                    surface.fold(event)
                except (LlmError, ValueError) as exc:
                    raise SessionError(
                        f"stored event {index} ({event.type}) cannot join the surface: {exc}",
                        code=INVALID_SEED,
                    ) from exc
            events.append(event)
            tracker.fold(event)
        session._stored_length = len(events)
        return session

    def __repr__(self) -> str:
        return f"Session({self._header.id!r}, {len(self._events)} events)"

    def __len__(self) -> int:
        return len(self._events)

    @property
    def header(self) -> SessionHeader:
        """The session's header (id, creation time, cwd, fork origin)."""
        return self._header

    @property
    def id(self) -> SessionId:
        """The session's id."""
        return self._header.id

    @property
    def events(self) -> EventLog:
        """Every logged event, seq order (a live read-only view)."""
        return self._view

    @property
    def stored_length(self) -> int:
        """How many leading events were already stored when this session was built."""
        return self._stored_length

    def append(
        self,
        type: str,
        data: JsonObject,
        *,
        source_event_seqs: Sequence[int] | None = None,
        surface_op: SurfaceOp | None = None,
    ) -> SessionEvent:
        """Log one event given as JSON and return it; then call the append listener.

        The JSON door, for plugins that log a type without a payload class (typed writers
        use ``write``). ``data`` must be lossless JSON (see ``json_check``) and is deep-copied
        in, then decoded once by ``type`` into the event's ``payload`` (a core or registered
        class, else a ``RawPayload``); ``seq`` is the next index and ``time`` comes from the
        clock. Surface-eligible types require a ``surface_op`` (a replace must name live
        surface nodes, in order); other types may not carry one. Raises ``SessionError``
        (``SESSION_INVALID_EVENT``) with the log unchanged, also for data that does not
        decode. An exception from the listener propagates, with the event already logged.
        """
        return self._log(type, data, None, source_event_seqs, surface_op)

    def write(
        self,
        payload: EventPayload,
        *,
        source_event_seqs: Sequence[int] | None = None,
        surface_op: SurfaceOp | None = None,
    ) -> SessionEvent:
        """Log one typed event (type ``payload.kind``) and return it; see ``append``.

        The payload is encoded once (``to_json``) and kept as the event's ``payload``, so
        nothing is decoded; a ``RawPayload`` goes through ``append`` and is decoded by type.
        Raises ``SessionError`` (``SESSION_INVALID_EVENT``) with the log unchanged.
        """
        if type(payload) is RawPayload:  # not isinstance: an ABC check on the hot path
            return self.append(
                payload.kind,
                payload.record,
                source_event_seqs=source_event_seqs,
                surface_op=surface_op,
            )
        data = payload.to_json()
        # A streamed delta's record is built afresh from its strings and counts: when the
        # strings are lossless it needs no deep copy (most of a turn's events are these).
        fresh = type(payload) is AssistantChunkPayload and _lossless_delta(payload.chunk)
        return self._log(payload.kind, data, payload, source_event_seqs, surface_op, fresh=fresh)

    def _log(
        self,
        kind: str,
        data: JsonObject,
        payload: EventPayload | None,
        source_event_seqs: Sequence[int] | None,
        surface_op: SurfaceOp | None,
        *,
        fresh: bool = False,
    ) -> SessionEvent:
        """Copy ``data`` in (``fresh``: it is lossless JSON nobody else holds), admit the
        event (decoding it unless ``payload`` is given), notify."""
        try:
            copied = data if fresh else clone_json(data)
        except NotJsonError as exc:
            raise SessionError(
                f"{kind} data is not lossless JSON: {exc}", code=INVALID_EVENT
            ) from exc
        event = SessionEvent(
            type=kind,
            seq=len(self._events),
            time=self._clock(),
            data=copied,  # type: ignore[arg-type]  # _admit rejects non-objects
            source_event_seqs=None if source_event_seqs is None else tuple(source_event_seqs),
            surface_op=surface_op,
            _payload=payload,
        )
        self._admit(event, INVALID_EVENT)
        object.__setattr__(event, "_logged", True)
        if self._notify is not None:
            self._notify(self, event)
        return event

    def derive_messages(self) -> tuple[Message, ...]:
        """The model history the surface holds now (incremental: only new nodes are rendered).

        Messages and blocks are immutable, so the result cannot rewrite history.
        """
        return self._surface.messages()

    def surface_seqs(self) -> tuple[int, ...]:
        """Seqs of the events currently on the surface, in surface order."""
        return self._surface.seqs()

    def last_turn(self) -> int:
        """The turn number of the last ``turn/start`` in the log (0 when there is none)."""
        return self._tracker.last_turn

    def open_turn(self) -> int | None:
        """The turn whose ``turn/start`` has no ``turn/end`` yet, if any."""
        return self._tracker.open_turn

    def open_step(self) -> tuple[int, int] | None:
        """``(turn, step)`` of the step started and not yet ended, if any."""
        return self._tracker.open_step

    def pending_tool_calls(self) -> tuple[SessionEvent, ...]:
        """The open turn's ``tool/call`` events that have no ``tool/result``, in call order."""
        return self._tracker.pending_tool_calls()

    def _admit(self, event: SessionEvent, code: str) -> None:
        problem = event_problem(event)
        if problem is None and event.type in ev.SURFACE_EVENT_TYPES:
            try:
                self._surface.fold(event)
            except (LlmError, ValueError) as exc:
                problem = f"{event.type} cannot join the surface: {exc}"
        if problem is not None:
            where = f"seed event {event.seq}" if code == INVALID_SEED else "append refused"
            raise SessionError(f"{where}: {problem}", code=code)
        self._events.append(event)
        self._tracker.fold(event)


_DELTAS = (TextDelta, ReasoningDelta)


def _lossless_delta(chunk: StreamChunk) -> bool:
    """Whether ``chunk`` is a text, reasoning or tool-call delta whose strings are lossless
    (``chunk_to_json`` builds its record from them alone)."""
    kind = type(chunk)
    if kind in _DELTAS:
        text = chunk.text  # type: ignore[union-attr]  # narrowed by the type check
        return text.isascii() or is_lossless_json(text)
    if kind is ToolCallDelta:
        assert isinstance(chunk, ToolCallDelta)
        return all(
            part is None or part.isascii() or is_lossless_json(part)
            for part in (chunk.arguments_delta, chunk.id, chunk.name)
        )
    return False
