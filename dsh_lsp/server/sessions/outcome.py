"""How a ``dsh/prompt`` settles: the owning turn, its stop reason and usage (server layer).

A ``PendingPrompt`` is installed when the prompt arrives (so a second prompt is refused) and
started (``begin``) just before its message is sent, with the log length at that moment as
its watermark; until then it ignores the log. It claims the first *message-triggered*
``turn/start`` logged after the watermark (injection turns are never a prompt's) and
settles, exactly once, on that turn's ``turn/end``: a result with ``stopReason`` and the
turn's summed usage, or a ``TurnFailedError`` for an ``error`` end. A cancel does not settle
it: ``request_cancel`` only wakes ``until_ended_or_cancelling``, so the owner can wait for
the cancelled turn to land its ``turn/end`` (and its updates) before it answers.
``reconcile`` settles from the log once the agent is idle (``cancelled`` when the log holds
no finished turn of this prompt: a cancel can drop the message before its turn starts), and
``cancel`` settles at once with ``cancelled`` (a prompt that never sent its message).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

import anyio

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.errors import TurnFailedError
from dsh_lsp.session import SessionEvent

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "cancelled", "refusal"]

_STOP_REASONS: Final[dict[str, StopReason]] = {
    "completed": "end_turn",
    "max-tokens": "max_tokens",
    "max-steps": "max_turn_requests",
    "aborted": "cancelled",
    "disposed": "cancelled",
    "interrupted": "cancelled",
    "rejected": "refusal",
}

USAGE_FIELDS: Final = ("inputTokens", "outputTokens", "cacheReadTokens", "reasoningTokens")


def stop_reason(turn_end_kind: str) -> StopReason | None:
    """The ``stopReason`` of a turn that ended with ``turn_end_kind``; None for ``error``."""
    return _STOP_REASONS.get(turn_end_kind)


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptResult:
    """What a settled prompt answers (``usage`` summed over the turn's model requests)."""

    stop_reason: StopReason
    usage: JsonObject | None = None

    def to_json(self) -> JsonObject:
        """The ``dsh/prompt`` result object."""
        out: dict[str, JsonValue] = {"stopReason": self.stop_reason}
        if self.usage is not None:
            out["usage"] = self.usage
        return out


Settlement = PromptResult | TurnFailedError


class PendingPrompt:
    """One prompt waiting for its turn; see the module docstring."""

    __slots__ = ("_cancelling", "_done", "_usage", "_woken", "outcome", "turn", "watermark")

    def __init__(self, watermark: int | None = None) -> None:
        self.watermark = watermark
        self.turn: int | None = None
        self.outcome: Settlement | None = None
        self._usage: dict[str, int] = {}
        self._done = anyio.Event()
        self._woken = anyio.Event()
        self._cancelling = False

    @property
    def settled(self) -> bool:
        """True once an outcome is fixed."""
        return self.outcome is not None

    @property
    def started(self) -> bool:
        """True once ``begin`` fixed the watermark."""
        return self.watermark is not None

    @property
    def cancelling(self) -> bool:
        """True once ``request_cancel`` was called."""
        return self._cancelling

    def request_cancel(self) -> None:
        """Record that the turn is being cancelled and wake ``until_ended_or_cancelling``;
        the prompt still settles from its turn's end (or ``reconcile``)."""
        self._cancelling = True
        self._woken.set()

    async def until_ended_or_cancelling(self) -> None:
        """Return once the prompt settled or a cancel was requested."""
        await self._woken.wait()

    def begin(self, watermark: int) -> None:
        """Start watching the log from seq ``watermark`` (the message is about to be sent)."""
        self.watermark = watermark

    def observe(self, event: SessionEvent) -> bool:
        """Fold one logged event in; True when it settled the prompt just now. Events before
        the watermark, or before ``begin``, are ignored."""
        if self.outcome is not None or self.watermark is None or event.seq < self.watermark:
            return False
        data = event.data
        if self.turn is None:
            if event.type == "turn/start" and _is_message_turn(data.get("trigger")):
                turn = data.get("turn")
                self.turn = turn if isinstance(turn, int) else None
            return False
        if data.get("turn") != self.turn:
            return False
        if event.type == "assistant/message":
            self._add_usage(data.get("usage"))
        elif event.type == "turn/end":
            self._settle(_outcome(data.get("reason"), self._summed_usage()))
            return True
        return False

    def reconcile(self, events: Iterable[SessionEvent]) -> None:
        """Settle from the log (events from the watermark on); ``cancelled`` when the log
        holds no finished turn of this prompt. A no-op before ``begin``."""
        if self.watermark is None:
            return
        for event in events:
            if self.observe(event):
                return
        self._settle(PromptResult(stop_reason="cancelled", usage=self._summed_usage()))

    def cancel(self) -> None:
        """Settle as ``cancelled`` unless already settled."""
        self._settle(PromptResult(stop_reason="cancelled", usage=self._summed_usage()))

    async def wait(self) -> PromptResult:
        """The result once settled. Raises TurnFailedError for a failed turn."""
        await self._done.wait()
        return self.result()

    def result(self) -> PromptResult:
        """The settled result. Raises TurnFailedError for a failed turn; call only once
        ``settled``."""
        outcome = self.outcome
        assert outcome is not None, "the prompt has not settled"
        if isinstance(outcome, TurnFailedError):
            raise outcome
        return outcome

    def _settle(self, outcome: Settlement) -> None:
        if self.outcome is None:
            self.outcome = outcome
            self._done.set()
            self._woken.set()

    def _add_usage(self, usage: JsonValue) -> None:
        if not isinstance(usage, dict):
            return
        for field in USAGE_FIELDS:
            value = usage.get(field)
            if isinstance(value, int) and not isinstance(value, bool):
                self._usage[field] = self._usage.get(field, 0) + value

    def _summed_usage(self) -> JsonObject | None:
        if not self._usage:
            return None
        return {field: self._usage.get(field, 0) for field in USAGE_FIELDS}


def _is_message_turn(trigger: JsonValue) -> bool:
    return isinstance(trigger, dict) and trigger.get("kind") == "message"


def _outcome(reason: JsonValue, usage: JsonObject | None) -> Settlement:
    kind = reason.get("kind") if isinstance(reason, dict) else None
    stop = stop_reason(str(kind))
    if stop is not None:
        return PromptResult(stop_reason=stop, usage=usage)
    detail = reason if isinstance(reason, dict) else {}
    message = detail.get("message")
    code = detail.get("code")
    step = detail.get("step")
    return TurnFailedError(
        str(message) if message else "the turn failed",
        code=str(code) if code else "UNKNOWN",
        step=step if isinstance(step, int) else None,
    )
