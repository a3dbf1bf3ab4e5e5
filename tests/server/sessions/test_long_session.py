"""A 200-turn session through the real server, compacted twice on the threshold, then
resumed after a restart: the next model request carries the last summary and the turns
after it, and nothing older (asserted on what the scripted model receives)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_lsp.testing import completion, wire_usage
from tests.server.support import Json, ModelScript, running_server

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(240)]

TURNS = 200
FULL = (70, 140)
"""Turns whose answer reports a nearly full window: the next turn compacts first."""
WINDOW = 100_000
SUMMARIES = ("CHECKPOINT-ONE: early turns done", "CHECKPOINT-TWO: middle turns done")


def is_summary_request(body: Json) -> bool:
    return any("You are compacting the history" in str(m["content"]) for m in body["messages"])


def text_of(body: Json) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"])


def conversation(body: Json) -> list[tuple[str, str]]:
    """The request's messages after the system prompt, as (role, text)."""
    return [(m["role"], str(m["content"])) for m in body["messages"] if m["role"] != "system"]


def summary(index: int) -> tuple[str, str]:
    return ("user", f"<compacted-summary>\n{SUMMARIES[index]}\n</compacted-summary>")


def script(model: ModelScript) -> None:
    """Every answer of the 200 turns, a summary before each turn after a full one."""
    summaries = iter(SUMMARIES)
    for turn in range(1, TURNS + 1):
        if turn - 1 in FULL:
            model.enqueue(completion(text=next(summaries)))
        prompt = 90_000 if turn in FULL else 1_000
        model.enqueue(
            completion(text=f"answer {turn}", usage=wire_usage(prompt=prompt, completion=10))
        )


async def test_two_hundred_turns_compact_twice_and_resume_with_summary_and_tail(
    model: ModelScript, tmp_path: Path
) -> None:
    options = {
        "sessionDir": str(tmp_path / "sessions"),
        "model": {"contextWindow": WINDOW},
        "compaction": {"threshold": 0.8},
    }
    spec = "neovim@v0.11"
    start = len(model.requests())
    script(model)
    async with running_server(spec, model, tmp_path, init_options=options) as rig:
        client = rig.client
        session = await client.new_session()
        for turn in range(1, TURNS + 1):
            result = await client.prompt(session, f"prompt {turn}")
            assert result["stopReason"] == "end_turn", (turn, result)
        states = [u["state"] for u in client.updates[session] if u["kind"] == "compaction_update"]
        assert states == ["started", "completed", "started", "completed"]
    bodies = model.requests()[start:]
    assert len(bodies) == TURNS + 2
    summary_at = [i for i, body in enumerate(bodies) if is_summary_request(body)]
    assert summary_at == [FULL[0], FULL[1] + 1], "each summary was asked right after a full turn"
    first, second = (text_of(bodies[i]) for i in summary_at)
    assert "USER: prompt 1\n" in first
    assert "ASSISTANT: answer 70" in first
    assert SUMMARIES[0] in second, "the second summary covers the first"
    assert "USER: prompt 71\n" in second
    assert "ASSISTANT: answer 140" in second
    assert conversation(bodies[FULL[0] + 1]) == [summary(0), ("user", "prompt 71")]
    assert conversation(bodies[FULL[1] + 2]) == [summary(1), ("user", "prompt 141")]

    start = len(model.requests())
    model.enqueue(completion(text="answer after restart"))
    async with running_server(spec, model, tmp_path, init_options=options) as rig:
        client = rig.client
        resumed = await client.request("dsh/session/resume", {"sessionId": session})
        assert resumed["sessionId"] == session
        result = await client.prompt(session, "prompt after restart")
        assert result["stopReason"] == "end_turn"
    [body] = model.requests()[start:]
    tail = [
        pair
        for turn in range(FULL[1] + 1, TURNS + 1)
        for pair in (("user", f"prompt {turn}"), ("assistant", f"answer {turn}"))
    ]
    assert conversation(body) == [summary(1), *tail, ("user", "prompt after restart")]
