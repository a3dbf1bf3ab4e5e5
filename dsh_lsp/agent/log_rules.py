"""LogRules: the structural rules every session log obeys, checked one event at a time (agent).

A pure state machine over ``SessionEvent``s of one session; ``check`` returns the rules the
event breaks (empty when it fits) and advances the state either way:

* ``seq`` is contiguous from 0;
* every event lies inside a turn; turns do not nest and are numbered 1, 2, 3… in log order;
* steps lie inside their turn, do not nest and are numbered 1, 2, 3… within it;
* ``assistant/chunk``, ``assistant/message`` and ``tool/call`` lie inside the open step and
  name it; ``steering/message`` and ``tool/result`` name the open turn; a plugin payload
  names the open turn if its class has an integer ``turn``;
* a ``tool/result`` answers an earlier, unanswered ``tool/call`` of the same turn;
* a turn ends with no step open and every tool call answered.
"""

from __future__ import annotations

from dsh_lsp.session import (
    AssistantChunkPayload,
    AssistantMessagePayload,
    EventPayload,
    SessionEvent,
    SteeringMessagePayload,
    StepEndPayload,
    StepStartPayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnEndPayload,
    TurnStartPayload,
)


class LogRules:
    """The rule state of one session's log."""

    __slots__ = ("_answered", "_calls", "_last_step", "_last_turn", "_next_seq", "_step", "_turn")

    def __init__(self) -> None:
        self._next_seq = 0
        self._turn: int | None = None
        self._last_turn = 0
        self._step: int | None = None
        self._last_step = 0
        self._calls: set[str] = set()
        self._answered: set[str] = set()

    def check(self, event: SessionEvent) -> list[str]:
        """The rules ``event`` (an admitted one: its payload decodes) breaks, as readable
        sentences naming its seq and type."""
        payload = event.payload
        if (  # the hot case (one event per streamed chunk): a chunk that fits the open step
            type(payload) is AssistantChunkPayload
            and event.seq == self._next_seq
            and self._step is not None
            and payload.turn == self._turn
            and payload.step == self._step
        ):
            self._next_seq += 1
            return []
        broken: list[str] = []
        where = f"seq {event.seq} ({event.type})"
        if event.seq != self._next_seq:
            broken.append(f"{where}: expected seq {self._next_seq}")
        self._next_seq = event.seq + 1
        match payload:
            case TurnStartPayload(turn=turn):
                broken.extend(self._turn_start(where, turn))
            case TurnEndPayload(turn=turn):
                broken.extend(self._turn_end(where, turn))
            case StepStartPayload(turn=turn, step=step):
                broken.extend(self._step_start(where, turn, step))
            case StepEndPayload(turn=turn, step=step):
                broken.extend(self._step_end(where, turn, step))
            case ToolResultPayload(turn=turn, call_id=call_id):
                broken.extend(self._enclosed(where, turn, None))
                broken.extend(self._result(where, call_id))
            case ToolCallPayload(turn=turn, step=step, call_id=call_id):
                broken.extend(self._enclosed(where, turn, step))
                broken.extend(self._call(where, call_id))
            case AssistantChunkPayload(turn=turn, step=step):
                broken.extend(self._enclosed(where, turn, step))
            case AssistantMessagePayload(turn=turn, step=step):
                broken.extend(self._enclosed(where, turn, step))
            case SteeringMessagePayload(turn=turn):
                broken.extend(self._enclosed(where, turn, None))
            case _:
                broken.extend(self._enclosed(where, _plugin_turn(payload), None))
        return broken

    def _turn_start(self, where: str, turn: int | None) -> list[str]:
        broken = []
        if self._turn is not None:
            broken.append(f"{where}: turn {self._turn} is still open")
        if turn != self._last_turn + 1:
            broken.append(f"{where}: turn {turn} does not follow turn {self._last_turn}")
        self._turn = turn
        self._last_turn = turn if turn is not None else self._last_turn + 1
        self._step = None
        self._last_step = 0
        self._calls = set()
        self._answered = set()
        return broken

    def _turn_end(self, where: str, turn: int | None) -> list[str]:
        broken = []
        if self._turn is None or turn != self._turn:
            broken.append(f"{where}: turn {turn} is not the open turn ({self._turn})")
        if self._step is not None:
            broken.append(f"{where}: step {self._step} is still open")
        unanswered = sorted(self._calls - self._answered)
        if unanswered:
            broken.append(f"{where}: tool calls without a result: {', '.join(unanswered)}")
        self._turn = None
        self._step = None
        return broken

    def _step_start(self, where: str, turn: int | None, step: int | None) -> list[str]:
        broken = []
        if self._turn is None or turn != self._turn:
            broken.append(f"{where}: turn {turn} is not the open turn ({self._turn})")
        if self._step is not None:
            broken.append(f"{where}: step {self._step} is still open")
        if step != self._last_step + 1:
            broken.append(f"{where}: step {step} does not follow step {self._last_step}")
        self._step = step
        self._last_step = step if step is not None else self._last_step + 1
        return broken

    def _step_end(self, where: str, turn: int | None, step: int | None) -> list[str]:
        broken = []
        if self._step is None or (turn, step) != (self._turn, self._step):
            broken.append(f"{where}: step {turn}.{step} is not the open step")
        self._step = None
        return broken

    def _result(self, where: str, call_id: str) -> list[str]:
        if call_id not in self._calls:
            return [f"{where}: no earlier tool/call {call_id!r} in this turn"]
        if call_id in self._answered:
            return [f"{where}: tool call {call_id!r} already has a result"]
        self._answered.add(call_id)
        return []

    def _call(self, where: str, call_id: str) -> list[str]:
        if call_id in self._calls:
            return [f"{where}: tool call id {call_id!r} is missing or repeated"]
        self._calls.add(call_id)
        return []

    def _enclosed(self, where: str, turn: int | None, step: int | None) -> list[str]:
        """Inside the open turn (and, when ``step`` is given, the open step), naming them."""
        broken = []
        if self._turn is None:
            broken.append(f"{where}: outside any turn")
        elif turn is not None and turn != self._turn:
            broken.append(f"{where}: names turn {turn} inside turn {self._turn}")
        if step is not None:
            if self._step is None:
                broken.append(f"{where}: outside any step")
            elif step != self._step:
                broken.append(f"{where}: names step {step} inside step {self._step}")
        return broken


def _plugin_turn(payload: EventPayload) -> int | None:
    """The turn a payload without a core class names: a plugin class's integer ``turn``
    attribute, if it has one (the documented default: plugin types need only lie in a turn)."""
    turn = getattr(payload, "turn", None)
    return turn if type(turn) is int else None
