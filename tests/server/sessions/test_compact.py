"""dsh/session/compact through the real server: the compaction and the context meter."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from dsh_lsp.testing import ToolCallSpec, completion, wire_usage
from tests.server.support import DshClient, Json, Rig, stalled

pytestmark = pytest.mark.asyncio(loop_scope="module")

USAGE = wire_usage(prompt=5000, completion=100)
"""The usage each scripted step reports: a context meter of 5100 used."""


async def test_compact_now_shows_the_compaction_and_the_meter(rig: Rig, client: DshClient) -> None:
    rig.model.enqueue(
        completion(text="first " * 200, usage=USAGE),
        completion(text="second " * 200, usage=USAGE),
        completion(text="third", usage=USAGE),
        completion(text="CHECKPOINT: the user is testing compaction"),
    )
    session = await client.new_session()
    for text in ("one", "two", "three"):
        assert (await client.prompt(session, text))["stopReason"] == "end_turn"
    meters = [u for u in client.updates[session] if u["kind"] == "usage_update"]
    assert meters[-1]["window"] == 128_000
    assert meters[-1]["used"] == 5100
    result = await client.request("dsh/session/compact", {"sessionId": session})
    assert result["tokensAfter"] < result["tokensBefore"]
    updates = client.updates[session]
    states = [u["state"] for u in updates if u["kind"] == "compaction_update"]
    assert states == ["started", "completed"]
    last_meter = [u for u in updates if u["kind"] == "usage_update"][-1]
    assert last_meter["used"] == result["tokensAfter"]
    assert last_meter["window"] == 128_000
    assert not any(
        "CHECKPOINT" in str(u.get("content")) for u in updates if u["kind"] == "user_message"
    )


def bash(call_id: str, command: str) -> ToolCallSpec:
    arguments = json.dumps({"command": command, "description": "run it"})
    return ToolCallSpec(id=call_id, name="bash", arguments=arguments)


async def test_compact_during_a_prompt_runs_at_the_next_step_boundary(
    rig: Rig, client: DshClient
) -> None:
    rig.model.enqueue(
        completion(text="first " * 200, usage=USAGE),
        completion(tool_calls=[bash("q1", "echo between-steps")], usage=USAGE),
        completion(text="CHECKPOINT: compacted between two steps"),
        completion(text="after the compaction"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "one"))["stopReason"] == "end_turn"
    release = anyio.Event()

    async def answer(params: Json) -> Json:
        await release.wait()
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    client.answer_permission = answer
    start = len(rig.model.requests())
    async with client.prompting(session, "two") as prompted:
        await client.until(lambda: len(client.permission_requests) >= 1)
        async with _compact_queued(client, session) as compacted:
            assert compacted == {}, "the step in flight is not compacted under it"
            release.set()
    assert prompted["result"]["stopReason"] == "end_turn"
    _assert_compacted_once_queued(client, session, compacted)
    _, summary, next_step = rig.model.requests()[start:]
    assert "You are compacting the history" in json.dumps(summary)
    assert "first first" in json.dumps(summary), "the earlier turn is summarized"
    users = [m for m in next_step["messages"] if m["role"] == "user"]
    assert "CHECKPOINT: compacted between two steps" in str(users[0]["content"])
    assert "first first" not in json.dumps(next_step), "the summarized turn is gone"
    assert "between-steps" in json.dumps(next_step), "the step's call and result are kept"


async def test_compact_during_a_turn_that_ends_without_another_step_runs_after_it(
    rig: Rig, client: DshClient
) -> None:
    rig.model.enqueue(
        completion(text="first " * 200, usage=USAGE),
        stalled("streaming"),
        completion(text="CHECKPOINT: compacted after the turn"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "one"))["stopReason"] == "end_turn"
    start = len(rig.model.requests())
    async with client.prompting(session, "two") as prompted:
        await client.until(lambda: "streaming" in client.text(session))
        async with _compact_queued(client, session) as compacted:
            await client.request("dsh/cancel", {"sessionId": session})
    assert prompted["result"]["stopReason"] == "cancelled"
    _assert_compacted_once_queued(client, session, compacted)
    _, summary = rig.model.requests()[start:]
    assert "You are compacting the history" in json.dumps(summary)


def compaction_states(client: DshClient, session: str) -> list[str]:
    return [u["state"] for u in client.updates[session] if u["kind"] == "compaction_update"]


@asynccontextmanager
async def _compact_queued(client: DshClient, session: str) -> AsyncIterator[dict[str, Json]]:
    """Asks ``dsh/session/compact`` of *session* during its turn; the block runs once the
    compaction is queued, and the answer fills the dict once the block and the request end."""
    compacted: dict[str, Json] = {}

    async def compact() -> None:
        compacted.update(await client.request("dsh/session/compact", {"sessionId": session}))
        client.touched()

    async with anyio.create_task_group() as group:
        group.start_soon(compact)
        await client.until(lambda: "queued" in compaction_states(client, session))
        yield compacted


def _assert_compacted_once_queued(
    client: DshClient, session: str, compacted: dict[str, Json]
) -> None:
    assert compacted["queued"] is True
    assert compacted["tokensAfter"] < compacted["tokensBefore"]
    assert compaction_states(client, session) == ["queued", "started", "completed"]
