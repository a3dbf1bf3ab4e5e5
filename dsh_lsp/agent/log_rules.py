"""LogRules: the structural rules every session log obeys, checked one event at a time (agent).

A pure state machine over ``SessionEvent``s of one session; ``check`` returns the rules the
event breaks (empty when it fits) and advances the state either way:

* ``seq`` is contiguous from 0;
* every event lies inside a turn; turns do not nest and are numbered 1, 2, 3… in log order;
* steps lie inside their turn, do not nest and are numbered 1, 2, 3… within it;
* ``assistant/chunk``, ``assistant/message`` and ``tool/call`` lie inside the open step and
  name it; ``steering/message`` names the open turn;
* a ``tool/result`` answers an earlier, unanswered ``tool/call`` of the same turn;
* a turn ends with no step open and every tool call answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh_lsp.llm import JsonObject

if TYPE_CHECKING:
    from dsh_lsp.session import SessionEvent

_STEP_SCOPED = frozenset({"assistant/chunk", "assistant/message", "tool/call"})


def _int(data: JsonObject, key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


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
        """The rules ``event`` breaks, as readable sentences naming its seq and type."""
        data = event.data
        if (  # the hot case (one event per streamed chunk): a chunk that fits the open step
            event.type == "assistant/chunk"
            and event.seq == self._next_seq
            and self._step is not None
            and type(data.get("turn")) is int
            and data["turn"] == self._turn
            and type(data.get("step")) is int
            and data["step"] == self._step
        ):
            self._next_seq += 1
            return []
        broken: list[str] = []
        where = f"seq {event.seq} ({event.type})"
        if event.seq != self._next_seq:
            broken.append(f"{where}: expected seq {self._next_seq}")
        self._next_seq = event.seq + 1
        match event.type:
            case "turn/start":
                broken.extend(self._turn_start(where, _int(data, "turn")))
            case "turn/end":
                broken.extend(self._turn_end(where, _int(data, "turn")))
            case "step/start":
                broken.extend(self._step_start(where, _int(data, "turn"), _int(data, "step")))
            case "step/end":
                broken.extend(self._step_end(where, _int(data, "turn"), _int(data, "step")))
            case "tool/result":
                broken.extend(self._tool_result(where, data))
            case _:
                broken.extend(self._enclosed(where, event.type, data))
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

    def _tool_result(self, where: str, data: JsonObject) -> list[str]:
        broken = self._enclosed(where, "tool/result", data)
        call_id = data.get("callId")
        if not isinstance(call_id, str) or call_id not in self._calls:
            broken.append(f"{where}: no earlier tool/call {call_id!r} in this turn")
        elif call_id in self._answered:
            broken.append(f"{where}: tool call {call_id!r} already has a result")
        else:
            self._answered.add(call_id)
        return broken

    def _enclosed(self, where: str, kind: str, data: JsonObject) -> list[str]:
        broken = []
        if self._turn is None:
            broken.append(f"{where}: outside any turn")
        elif "turn" in data and _int(data, "turn") != self._turn:
            broken.append(f"{where}: names turn {data.get('turn')} inside turn {self._turn}")
        if kind in _STEP_SCOPED:
            if self._step is None:
                broken.append(f"{where}: outside any step")
            elif _int(data, "step") != self._step:
                broken.append(f"{where}: names step {data.get('step')} inside step {self._step}")
        if kind == "tool/call":
            call_id = data.get("callId")
            if not isinstance(call_id, str) or call_id in self._calls:
                broken.append(f"{where}: tool call id {call_id!r} is missing or repeated")
            else:
                self._calls.add(call_id)
        return broken
