"""Capability negotiation and dsh/prompt end to end: streaming, tool cards, attachments,
stop reasons, usage, errors."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from dsh_lsp.server.errors import MODEL_HINT
from dsh_lsp.testing import completion, error, wire_usage

from .support import (
    DshClient,
    Rig,
    change_document,
    edit_call,
    last_user_text,
    open_workspace_file,
    read_call,
    stalled,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

STORY = "The quick brown fox jumps over the lazy dog; " * 8


async def test_a_turn_streams_text_and_answers_end_turn_with_usage(
    rig: Rig, client: DshClient
) -> None:
    rig.model.enqueue(
        completion(
            reasoning="thinking it over",
            text=STORY,
            usage=wire_usage(prompt=120, completion=30, cached=20, reasoning=7),
            piece_size=3,
        )
    )
    session = await client.new_session()
    result = await client.prompt(session, "tell me a story")
    assert result == {
        "stopReason": "end_turn",
        "usage": {
            "inputTokens": 100,
            "outputTokens": 30,
            "cacheReadTokens": 20,
            "reasoningTokens": 7,
        },
    }
    assert client.text(session) == STORY
    assert client.text(session, "agent_thought_chunk") == "thinking it over"
    kinds = client.kinds(session)
    assert kinds[:2] == ["state_update", "user_message"]
    assert kinds[-2:] == ["usage_update", "state_update"]
    assert client.states(session) == [
        {"kind": "state_update", "state": "running"},
        {"kind": "state_update", "state": "idle", "stopReason": "end_turn"},
    ]
    user = client.updates[session][1]
    assert user["content"] == [{"type": "text", "text": "tell me a story"}]
    assert client.messages == []


async def test_tool_calls_are_upserted_with_the_tools_presentation(
    rig: Rig, client: DshClient
) -> None:
    (rig.workspace / "notes.md").write_text("alpha\nbeta\n", encoding="utf-8")
    rig.model.enqueue(
        completion(tool_calls=[read_call("notes.md")]),
        completion(tool_calls=[edit_call("notes.md", "beta", "gamma")]),
        completion(text="edited"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "edit it"))["stopReason"] == "end_turn"
    read_path = str(rig.workspace / "notes.md")
    calls = client.tool_calls(session)
    # the first update of a card creates it whole: while the call streams (pending), or
    # folded with the states that went out with it in one delivery
    first = calls[0]
    assert (first["toolCallId"], first["name"]) == ("r1", "read")
    assert first["status"] in ("pending", "in_progress", "completed")
    lifecycle = ["pending", "in_progress", "completed"]
    for call_id in ("r1", "e1"):
        seen = client.statuses(session, call_id)
        assert seen == sorted(set(seen), key=lifecycle.index), seen  # in order, none twice
        assert seen[-1] == "completed"
    cards = client.cards(session)
    read = cards["r1"]
    assert (read["title"], read["kind"], read["status"]) == ("Read notes.md", "read", "completed")
    assert read["rawInput"] == {"file_path": "notes.md"}
    assert read["locations"][0]["path"] == read_path
    assert "alpha" in read["content"][-1]["text"]
    assert cards["e1"]["kind"] == "edit"
    diff = {"type": "diff", "path": read_path, "oldText": "beta", "newText": "gamma"}
    shown = [item for c in calls if c["toolCallId"] == "e1" for item in c.get("content", [])]
    assert diff in shown
    assert any(item.get("type") == "diff" for item in cards["e1"]["content"])
    assert (rig.workspace / "notes.md").read_text(encoding="utf-8") == "alpha\ngamma\n"


async def test_an_attached_open_document_is_read_from_the_unsaved_buffer(
    rig: Rig, client: DshClient
) -> None:
    uri = open_workspace_file(rig, client, "draft.md", "saved text\n")
    change_document(client, uri, "unsaved text in the editor\nsecond line\n", version=2)
    rig.model.enqueue(completion(text="seen"))
    session = await client.new_session()
    link = {"type": "resource_link", "uri": uri}
    ranged = {
        "type": "resource_link",
        "uri": uri,
        "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 6}},
    }
    assert (await client.prompt(session, "look", link, ranged))["stopReason"] == "end_turn"
    sent = last_user_text(rig.model.requests()[-1])
    assert "unsaved text in the editor" in sent
    assert 'source="editor"' in sent
    assert 'lines="2-2"' in sent
    assert "second</attachment>" not in sent
    assert "\nsecond\n" in sent
    assert "saved text\n" not in sent.replace("unsaved text", "")


async def test_an_unopened_attachment_is_read_from_disk(rig: Rig, client: DshClient) -> None:
    (rig.workspace / "disk.txt").write_text("from the disk\n", encoding="utf-8")
    rig.model.enqueue(completion(text="ok"))
    session = await client.new_session()
    link = {"type": "resource_link", "uri": rig.uri("disk.txt")}
    await client.prompt(session, "read this", link)
    sent = last_user_text(rig.model.requests()[-1])
    assert "from the disk" in sent
    assert 'source="disk"' in sent


async def test_a_missing_attachment_is_invalid_params_naming_the_block(
    rig: Rig, client: DshClient
) -> None:
    session = await client.new_session()
    link = {"type": "resource_link", "uri": rig.uri("nope.txt")}
    with pytest.raises(JsonRpcException) as caught:
        await client.prompt(session, "read this", link)
    assert caught.value.code == -32602
    assert "params.prompt[1].uri" in caught.value.message


async def test_a_model_auth_failure_is_an_error_with_the_code_and_advice(
    rig: Rig, client: DshClient
) -> None:
    rig.model.enqueue(error(401, "Authentication Fails (no such user)"))
    session = await client.new_session()
    with pytest.raises(JsonRpcException) as caught:
        await client.prompt(session, "hello")
    assert caught.value.code == -32803
    assert (caught.value.data or {})["code"] == "AUTH"
    assert "DEEPSEEK_API_KEY" in caught.value.message
    states = client.states(session)
    assert states[-1]["state"] == "idle"
    assert states[-1]["error"]["code"] == "AUTH"
    rig.model.enqueue(completion(text="recovered"))
    assert (await client.prompt(session, "again"))["stopReason"] == "end_turn"
    assert client.messages == []


async def test_a_wrong_model_name_says_which_setting_fixes_it(rig: Rig, client: DshClient) -> None:
    rig.model.enqueue(error(400, "Model Not Exist"))
    session = await client.new_session()
    with pytest.raises(JsonRpcException) as caught:
        await client.prompt(session, "hello")
    assert "Model Not Exist" in caught.value.message
    assert MODEL_HINT in caught.value.message
    error_state = client.states(session)[-1]["error"]
    assert "Model Not Exist" in error_state["message"]
    assert MODEL_HINT in error_state["message"], "the chats show the same fix as the prompt"


async def test_a_truncated_answer_stops_with_max_tokens(rig: Rig, client: DshClient) -> None:
    rig.model.enqueue(completion(text="cut", finish_reason="length"))
    session = await client.new_session()
    assert (await client.prompt(session, "long"))["stopReason"] == "max_tokens"


async def test_a_second_prompt_while_a_turn_runs_is_rejected(rig: Rig, client: DshClient) -> None:
    rig.model.enqueue(stalled())
    session = await client.new_session()
    async with client.prompting(session, "one") as first:
        await client.until(lambda: client.text(session) == "working on it")
        with pytest.raises(JsonRpcException) as caught:
            await client.prompt(session, "two")
        assert caught.value.code == -32803
        assert caught.value.data == {"code": "TURN_RUNNING"}
        assert "dsh/cancel" in caught.value.message
        client.protocol.notify("dsh/cancel", {"sessionId": session})
    assert first["result"]["stopReason"] == "cancelled"
    await client.until(lambda: client.states(session)[-1].get("state") == "idle")


async def test_a_prompt_for_an_unknown_session_is_invalid_params(client: DshClient) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await client.prompt("no-such-session", "hi")
    assert caught.value.code == -32602
    assert "unknown session 'no-such-session'" in caught.value.message


async def test_the_server_advertises_the_dsh_protocol(rig: Rig) -> None:
    result = rig.extra["initialize"]
    dsh = result.capabilities.experimental["dsh"]
    assert dsh["version"] == 1
    assert dsh["sessionUpdates"] is True
    assert dsh["permissions"] is True
    assert dsh["sessions"] == {"new": True, "list": True, "resume": True}
    assert result.server_info.name == "dsh-lsp"
    assert result.capabilities.text_document_sync is not None


async def test_stdout_carries_nothing_but_protocol_frames(rig: Rig, client: DshClient) -> None:
    rig.model.enqueue(completion(text="framed"))
    session = await client.new_session()
    await client.prompt(session, "hi")
    assert client.error is None  # pytest-lsp fails the client on any unparseable output
