"""Durability at the protocol: unstorable text is refused or stored, and a store that cannot
write fails the prompt visibly (docs/protocol.md, "Durability")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from dsh_lsp.testing import ToolCallSpec, completion

from .support import DshClient, ModelScript, Rig, open_document, running_server

pytestmark = pytest.mark.asyncio(loop_scope="module")

LONE = "\ud83d"
"""The first half of an emoji: what a JavaScript client sends for a string cut inside it."""


async def test_a_prompt_with_an_unpaired_surrogate_is_refused_naming_the_field(
    rig: Rig, client: DshClient
) -> None:
    session = await client.new_session()
    with pytest.raises(JsonRpcException) as caught:
        await client.prompt(session, f"cut here {LONE}")
    assert caught.value.code == -32602
    assert "params.prompt[0].text: holds an unpaired UTF-16 surrogate" in caught.value.message
    assert client.updates[session] == []
    with pytest.raises(JsonRpcException) as cwd:
        await client.request("dsh/session/new", {"cwd": f"/tmp/{LONE}"})
    assert cwd.value.code == -32602
    assert "params.cwd" in cwd.value.message


async def test_a_buffer_with_an_unpaired_surrogate_is_read_and_stored_with_a_replacement(
    rig: Rig, client: DshClient
) -> None:
    uri = rig.uri("odd.md")
    (rig.workspace / "odd.md").write_text("on disk\n", encoding="utf-8")
    open_document(client, uri, f"half an emoji: {LONE}\n")
    read = ToolCallSpec(id="odd1", name="read", arguments='{"file_path": "odd.md"}')
    rig.model.enqueue(completion(tool_calls=[read]), completion(text="Read it."))
    session = await client.new_session()
    result = await client.prompt(session, "read odd.md")
    assert result["stopReason"] == "end_turn"
    (card,) = [c for c in client.tool_calls(session) if c.get("status") == "completed"]
    assert card["toolCallId"] == "odd1"
    sent = json.dumps(rig.model.requests()[-1]["messages"][-1], ensure_ascii=False)
    assert "half an emoji: \ufffd" in sent
    logs = [p for p in rig.sessions.rglob("*.jsonl") if session in p.read_text("utf-8")]
    (log,) = logs
    assert "half an emoji: \ufffd" in log.read_text("utf-8")


async def test_a_store_that_cannot_write_fails_the_prompt_and_is_listed(
    model: ModelScript, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the session directory should be\n", encoding="utf-8")
    options = {"sessionDir": str(blocked / "sessions")}
    async with running_server("neovim@v0.11", model, tmp_path, init_options=options) as rig:
        client = rig.client
        asked = len(model.server.requests)
        session = await client.new_session()
        with pytest.raises(JsonRpcException) as caught:
            await client.prompt(session, "remember this")
        assert caught.value.code == -32803
        assert caught.value.data == {"code": "SESSION_NOT_STORED"}
        assert "could not be stored" in caught.value.message
        assert "Not a directory" in caught.value.message
        # the model was never asked: the turn failed at its opening flush
        assert len(model.server.requests) == asked
        # what the client was shown is sent all the same, and ends the turn
        assert client.states(session)[-1]["state"] == "idle"
        listing = await client.request("dsh/session/list", {})
        (entry,) = [e for e in listing["sessions"] if e["sessionId"] == session]
        assert "Not a directory" in entry["storeError"]
