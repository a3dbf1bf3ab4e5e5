"""LogRules: a well-formed log passes; each structural break is reported once, by seq."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_lsp.agent import LogRules
from dsh_lsp.session import SessionEvent


def _log(*entries: tuple[str, dict[str, Any]]) -> list[SessionEvent]:
    # Any: test data mirrors free-form event data.
    return [
        SessionEvent(type=kind, seq=seq, time=0, data=data)
        for seq, (kind, data) in enumerate(entries)
    ]


def _violations(events: list[SessionEvent]) -> list[str]:
    rules = LogRules()
    out: list[str] = []
    for event in events:
        out.extend(rules.check(event))
    return out


TRIGGER = {"kind": "injection"}
SOURCE = {"kind": "user"}
CHUNK = {"type": "text-delta", "index": 0, "text": "x"}
COMPLETED = {"kind": "completed"}
RESULT = {"content": [], "isError": False}
CALL = {"name": "t", "arguments": "{}"}

GOOD: tuple[tuple[str, dict[str, Any]], ...] = (
    ("turn/start", {"turn": 1, "trigger": {"kind": "message", "source": SOURCE}}),
    ("user/message", {"content": [], "source": SOURCE}),
    ("step/start", {"turn": 1, "step": 1}),
    ("assistant/chunk", {"turn": 1, "step": 1, "chunk": CHUNK}),
    ("assistant/message", {"turn": 1, "step": 1, "content": []}),
    ("tool/call", {"turn": 1, "step": 1, "callId": "c1", "name": "t", "arguments": "{}"}),
    ("tool/result", {"turn": 1, "step": 1, "callId": "c1", "content": [], "isError": False}),
    ("step/end", {"turn": 1, "step": 1}),
    ("steering/message", {"turn": 1, "content": [], "source": SOURCE}),
    ("step/start", {"turn": 1, "step": 2}),
    ("step/end", {"turn": 1, "step": 2}),
    ("turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
    ("turn/start", {"turn": 2, "trigger": {"kind": "injection"}}),
    ("context/message", {"content": [], "source": SOURCE}),
    ("turn/end", {"turn": 2, "reason": {"kind": "completed"}}),
)


def test_a_well_formed_log_passes() -> None:
    assert _violations(_log(*GOOD)) == []


def test_seq_must_be_contiguous() -> None:
    events = _log(*GOOD[:3])
    gap = SessionEvent(type="step/end", seq=5, time=0, data={"turn": 1, "step": 1})
    assert _violations([*events, gap]) == ["seq 5 (step/end): expected seq 3"]


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (
            [("user/message", {"content": [], "source": SOURCE})],
            "seq 0 (user/message): outside any turn",
        ),
        (
            [("turn/start", {"turn": 2, "trigger": TRIGGER})],
            "seq 0 (turn/start): turn 2 does not follow turn 0",
        ),
        (
            [
                ("turn/start", {"turn": 1, "trigger": TRIGGER}),
                ("turn/start", {"turn": 2, "trigger": TRIGGER}),
            ],
            "seq 1 (turn/start): turn 1 is still open",
        ),
        (
            [
                ("turn/start", {"turn": 1, "trigger": TRIGGER}),
                ("step/start", {"turn": 1, "step": 2}),
            ],
            "seq 1 (step/start): step 2 does not follow step 0",
        ),
        (
            [
                ("turn/start", {"turn": 1, "trigger": TRIGGER}),
                ("assistant/chunk", {"turn": 1, "step": 1, "chunk": CHUNK}),
            ],
            "seq 1 (assistant/chunk): outside any step",
        ),
        (
            [
                ("turn/start", {"turn": 1, "trigger": TRIGGER}),
                ("step/start", {"turn": 1, "step": 1}),
                ("assistant/message", {"turn": 1, "step": 2, "content": []}),
            ],
            "seq 2 (assistant/message): names step 2 inside step 1",
        ),
        (
            [
                ("turn/start", {"turn": 1, "trigger": TRIGGER}),
                ("steering/message", {"turn": 3, "content": [], "source": SOURCE}),
            ],
            "seq 1 (steering/message): names turn 3 inside turn 1",
        ),
        (
            [
                ("turn/start", {"turn": 1, "trigger": TRIGGER}),
                ("step/start", {"turn": 1, "step": 1}),
                ("tool/result", {"turn": 1, "step": 1, "callId": "x", **RESULT}),
            ],
            "seq 2 (tool/result): no earlier tool/call 'x' in this turn",
        ),
        (
            [
                ("turn/start", {"turn": 1, "trigger": TRIGGER}),
                ("step/start", {"turn": 1, "step": 1}),
                ("turn/end", {"turn": 1, "reason": COMPLETED}),
            ],
            "seq 2 (turn/end): step 1 is still open",
        ),
        (
            [("turn/start", {"turn": 1, "trigger": TRIGGER}), ("step/end", {"turn": 1, "step": 1})],
            "seq 1 (step/end): step 1.1 is not the open step",
        ),
    ],
)
def test_each_break_is_reported(entries: list[tuple[str, dict[str, Any]]], expected: str) -> None:
    assert _violations(_log(*entries)) == [expected]


def test_calls_are_answered_once_and_before_the_turn_ends() -> None:
    call = {"turn": 1, "step": 1, "callId": "c", "name": "t", "arguments": "{}"}
    result = {"turn": 1, "step": 1, "callId": "c", "content": [], "isError": False}
    events = _log(
        ("turn/start", {"turn": 1, "trigger": TRIGGER}),
        ("step/start", {"turn": 1, "step": 1}),
        ("tool/call", call),
        ("tool/call", call),
        ("tool/call", {**call, "callId": "d"}),
        ("tool/result", result),
        ("tool/result", result),
        ("step/end", {"turn": 1, "step": 1}),
        ("turn/end", {"turn": 1, "reason": COMPLETED}),
    )
    assert _violations(events) == [
        "seq 3 (tool/call): tool call id 'c' is missing or repeated",
        "seq 6 (tool/result): tool call 'c' already has a result",
        "seq 8 (turn/end): tool calls without a result: d",
    ]
