"""dsh/session/compact through the real server: the compaction and the context meter."""

from __future__ import annotations

import pytest

from dsh_lsp.testing import completion, wire_usage
from tests.server.support import DshClient, Rig

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_compact_now_shows_the_compaction_and_the_meter(rig: Rig, client: DshClient) -> None:
    usage = wire_usage(prompt=5000, completion=100)
    rig.model.enqueue(
        completion(text="first " * 200, usage=usage),
        completion(text="second " * 200, usage=usage),
        completion(text="third", usage=usage),
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
