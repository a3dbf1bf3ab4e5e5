"""UpdateTranslator: session events to dsh/session/update payloads (pure)."""

from __future__ import annotations

from typing import Any

from dsh_lsp.server.errors import user_message
from dsh_lsp.server.sessions import UpdateTranslator
from dsh_lsp.session import SessionEvent

Json = Any  # Any: updates are JSON the tests index into


def run(translator: UpdateTranslator, type: str, data: Json) -> list[Json]:
    if type.startswith(("tool/", "assistant/", "step/")):
        data = {"turn": 1, "step": 1, **data}
    if type.startswith(("tool/result", "assistant/message", "user/", "context/", "prompt/")):
        data = {"content": [], **data}
    if type.startswith(("user/", "context/", "prompt/")):
        data = {"source": {"kind": "user"}, **data}
    if type == "prompt/blocked":
        data = {"reason": "no", **data}
    return list(translator.translate(SessionEvent(type=type, seq=0, time=0, data=data)))


def test_a_failed_turn_ends_idle_with_the_error() -> None:
    reason = {"kind": "error", "step": 2, "message": "boom", "code": "SERVER"}
    updates = run(UpdateTranslator(None, None), "turn/end", {"turn": 1, "reason": reason})
    assert updates == [
        {"kind": "state_update", "state": "idle", "error": {"code": "SERVER", "message": "boom"}}
    ]


def test_a_turn_closed_by_crash_repair_ends_idle_cancelled_and_interrupted() -> None:
    reason = {"kind": "interrupted"}
    updates = run(UpdateTranslator(None, None), "turn/end", {"turn": 1, "reason": reason})
    assert updates == [
        {"kind": "state_update", "state": "idle", "stopReason": "cancelled", "interrupted": True}
    ]


def test_results_of_cut_off_calls_are_cancelled_and_others_failed() -> None:
    translator = UpdateTranslator(None, "/w")
    run(translator, "tool/call", {"callId": "a", "name": "x", "arguments": "{}"})
    cut = {"callId": "a", "content": [], "isError": True, "error": {"name": "S", "code": "ABORTED"}}
    failed = {"callId": "a", "content": [{"type": "text", "text": "Error: no"}], "isError": True}
    (first,) = run(translator, "tool/result", cut)
    (second,) = run(translator, "tool/result", failed)
    assert first["toolCall"]["status"] == "cancelled"
    assert second["toolCall"]["status"] == "failed"
    assert second["toolCall"]["content"] == [{"type": "text", "text": "Error: no"}]


def test_unparseable_arguments_still_render_a_card() -> None:
    call = {"callId": "b", "name": "read", "arguments": "{broken"}
    (update,) = run(UpdateTranslator(None, None), "tool/call", call)
    card = update["toolCall"]
    assert (card["title"], card["kind"], card["status"]) == ("read", "other", "in_progress")
    assert "rawInput" not in card


def test_a_long_result_is_clipped_on_the_card() -> None:
    result = {"callId": "c", "content": [{"type": "text", "text": "x" * 30_000}]}
    (update,) = run(UpdateTranslator(None, None), "tool/result", result)
    shown = update["toolCall"]["content"][-1]["text"]
    assert shown.startswith("x" * 20_000)
    assert shown.endswith("(10000 more characters)")


def test_events_without_a_rendering_produce_nothing() -> None:
    translator = UpdateTranslator(None, None)
    for kind in ("step/start", "step/end", "context/message", "prompt/blocked", "x/unknown"):
        assert run(translator, kind, {}) == []
    assert run(translator, "assistant/message", {"content": []}) == []
    chunk = {"chunk": {"type": "tool-call-delta", "index": 0, "argumentsDelta": "{"}}
    assert run(translator, "assistant/chunk", chunk) == []


def test_a_card_the_turn_never_answered_is_cancelled_when_the_turn_ends() -> None:
    translator = UpdateTranslator(None, None)
    delta = {
        "type": "tool-call-delta",
        "index": 0,
        "id": "c9",
        "name": "edit",
        "argumentsDelta": "{",
    }
    (pending,) = run(translator, "assistant/chunk", {"chunk": delta})
    assert pending["toolCall"]["status"] == "pending"
    run(translator, "tool/call", {"callId": "c1", "name": "x", "arguments": "{}"})
    run(translator, "tool/result", {"callId": "c1", "content": [], "isError": False})
    closing = run(translator, "turn/end", {"turn": 1, "reason": {"kind": "interrupted"}})
    assert [u["kind"] for u in closing] == ["tool_call", "state_update"]
    assert closing[0]["toolCall"] == {"toolCallId": "c9", "status": "cancelled"}
    assert run(translator, "turn/end", {"turn": 2, "reason": {"kind": "completed"}}) == [
        {"kind": "state_update", "state": "idle", "stopReason": "end_turn"}
    ]


def test_a_failed_turn_carries_the_fix_like_a_failed_prompt() -> None:
    reason = {
        "kind": "error",
        "step": 1,
        "message": "the API key variable K is not set",
        "code": "AUTH",
    }
    (update,) = run(UpdateTranslator(None, None), "turn/end", {"turn": 1, "reason": reason})
    assert update["error"]["code"] == "AUTH"
    assert update["error"]["message"] == user_message(str(reason["message"]), "AUTH")
    assert "apiKeyEnv" in update["error"]["message"]
