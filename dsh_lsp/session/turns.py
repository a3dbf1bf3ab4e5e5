"""Turn and step state derived from the log: the only source of turn numbers (session layer).

``TurnTracker`` folds events one by one and answers, in constant time, what the log says:
the last turn number, the open turn, the open step and the tool calls of the open turn that
still lack a result. Nothing keeps a separate counter: idle injections open turns too, so
``last_turn() + 1`` read from the log is the only correct next turn number.
"""

from __future__ import annotations

from collections.abc import Sequence

from .event import SessionEvent
from .events import ASSISTANT_CHUNK, TURN_END
from .payloads import (
    StepEndPayload,
    StepStartPayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnEndPayload,
    TurnStartPayload,
)


class TurnTracker:
    """Incremental turn/step/tool-call state of one log; feed every event to ``fold`` in order."""

    __slots__ = ("_last_turn", "_last_turn_end", "_open_step", "_open_turn", "_pending")

    def __init__(self) -> None:
        self._last_turn = 0
        self._last_turn_end = -1
        self._open_turn: int | None = None
        self._open_step: tuple[int, int] | None = None
        self._pending: dict[str, SessionEvent] = {}

    def fold(self, event: SessionEvent) -> None:
        """Account for ``event`` (an admitted one: its payload decodes)."""
        if event.type == ASSISTANT_CHUNK:
            return  # the hot path: one per streamed chunk, never turn state
        match event.payload:
            case ToolCallPayload(call_id=call_id):
                if self._open_turn is not None:
                    self._pending[call_id] = event
            case ToolResultPayload(call_id=call_id):
                self._pending.pop(call_id, None)
            case TurnStartPayload(turn=turn):
                self._last_turn = turn
                self._open_turn = turn
                self._open_step = None
                self._pending.clear()
            case TurnEndPayload(turn=turn):
                self._last_turn_end = event.seq
                if turn == self._open_turn:
                    self._open_turn = None
                    self._open_step = None
                    self._pending.clear()
            case StepStartPayload(turn=turn, step=step):
                self._open_step = (turn, step)
            case StepEndPayload(turn=turn, step=step) if self._open_step == (turn, step):
                self._open_step = None
            case _:
                pass  # every other type, plugin payloads included, leaves turn state alone

    @property
    def last_turn(self) -> int:
        """The turn number of the last ``turn/start`` (0 before the first)."""
        return self._last_turn

    @property
    def last_turn_end(self) -> int:
        """The seq of the last ``turn/end`` (-1 when there is none)."""
        return self._last_turn_end

    @property
    def open_turn(self) -> int | None:
        """The turn whose ``turn/start`` has no ``turn/end`` yet."""
        return self._open_turn

    @property
    def open_step(self) -> tuple[int, int] | None:
        """``(turn, step)`` of a ``step/start`` without its ``step/end``."""
        return self._open_step

    def pending_tool_calls(self) -> tuple[SessionEvent, ...]:
        """``tool/call`` events of the open turn without a ``tool/result``, in call order."""
        return tuple(self._pending.values())


def completed_prefix(events: Sequence[SessionEvent]) -> tuple[SessionEvent, ...]:
    """The events up to and including the last ``turn/end``: a balanced log to fork from.

    The in-flight turn is cut off (it may hold a call without a result). Empty when no turn
    has ended.
    """
    for index in range(len(events) - 1, -1, -1):
        if events[index].type == TURN_END:
            return tuple(events[: index + 1])
    return ()
