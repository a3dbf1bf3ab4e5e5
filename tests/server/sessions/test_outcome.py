"""PendingPrompt: settles exactly once, on its own message-triggered turn only."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm import JsonObject
from dsh_lsp.server import PendingPrompt, PromptResult, TurnFailedError, stop_reason
from dsh_lsp.session import SessionEvent


class Log:
    def __init__(self) -> None:
        self.events: list[SessionEvent] = []

    def add(self, type: str, data: JsonObject) -> SessionEvent:
        event = SessionEvent(type=type, seq=len(self.events), time=0, data=data)
        self.events.append(event)
        return event

    def turn(self, turn: int, *, trigger: str = "message", end: JsonObject | None = None) -> None:
        self.add("turn/start", {"turn": turn, "trigger": {"kind": trigger}})
        self.add(
            "assistant/message",
            {
                "turn": turn,
                "step": 1,
                "content": [],
                "usage": {"inputTokens": 3, "outputTokens": 2},
            },
        )
        self.add("turn/end", {"turn": turn, "reason": end or {"kind": "completed"}})


def test_an_injection_turn_before_the_message_turn_is_ignored() -> None:
    log = Log()
    pending = PendingPrompt(watermark=0)
    log.turn(1, trigger="injection")
    log.turn(2)
    settled = [pending.observe(event) for event in log.events]
    assert settled.count(True) == 1
    assert pending.turn == 2
    assert pending.outcome == PromptResult(
        stop_reason="end_turn",
        usage={"inputTokens": 3, "outputTokens": 2, "cacheReadTokens": 0, "reasoningTokens": 0},
    )


def test_events_before_the_watermark_are_not_this_prompts() -> None:
    log = Log()
    log.turn(1)
    pending = PendingPrompt(len(log.events))
    for event in log.events:
        pending.observe(event)
    assert not pending.settled


def test_an_error_end_settles_with_the_turns_code() -> None:
    log = Log()
    log.turn(1, end={"kind": "error", "step": 1, "message": "no key", "code": "AUTH"})
    pending = PendingPrompt(watermark=0)
    for event in log.events:
        pending.observe(event)
    assert isinstance(pending.outcome, TurnFailedError)
    assert (pending.outcome.code, pending.outcome.step, str(pending.outcome)) == (
        "AUTH",
        1,
        "no key",
    )


def test_reconcile_without_a_finished_turn_settles_cancelled() -> None:
    log = Log()
    log.add("turn/start", {"turn": 1, "trigger": {"kind": "message"}})
    pending = PendingPrompt(watermark=0)
    pending.reconcile(log.events)
    assert pending.outcome == PromptResult(stop_reason="cancelled")


@given(st.lists(st.sampled_from(["observe", "cancel", "reconcile"]), max_size=10))
def test_the_first_settlement_wins(actions: list[str]) -> None:
    log = Log()
    log.turn(1, end={"kind": "max-steps"})
    pending = PendingPrompt(watermark=0)
    first = None
    for action in actions:
        match action:
            case "observe":
                for event in log.events:
                    pending.observe(event)
            case "cancel":
                pending.cancel()
            case _:
                pending.reconcile(log.events)
        first = first or pending.outcome
    assert pending.outcome is first


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("completed", "end_turn"),
        ("max-tokens", "max_tokens"),
        ("max-steps", "max_turn_requests"),
        ("aborted", "cancelled"),
        ("disposed", "cancelled"),
        ("interrupted", "cancelled"),
        ("rejected", "refusal"),
        ("error", None),
    ],
)
def test_stop_reasons(kind: str, expected: str | None) -> None:
    assert stop_reason(kind) == expected


async def test_a_cancel_request_wakes_the_waiter_but_the_turns_end_settles() -> None:
    log = Log()
    pending = PendingPrompt(watermark=0)
    pending.request_cancel()
    await pending.until_ended_or_cancelling()
    assert pending.cancelling
    assert not pending.settled
    log.turn(1, end={"kind": "aborted"})
    pending.reconcile(log.events)
    assert pending.result().stop_reason == "cancelled"
    assert pending.result().usage is not None
