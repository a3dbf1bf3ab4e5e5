"""Sessions: new (cwd defaults to the workspace folder), list (newest first, across server
processes), resume (full replay, then the answer; the session is live again)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from dsh_lsp.llm import TextBlock, UserSource
from dsh_lsp.session import (
    JsonlPersistence,
    SessionEvent,
    SessionHeader,
    end_reason,
    message_trigger,
    turn_end_data,
    turn_start_data,
    user_message_data,
)
from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.support import DshClient, ModelScript, Rig, open_document, running_server

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_a_new_session_starts_in_the_first_workspace_folder(
    rig: Rig, client: DshClient
) -> None:
    session = await client.new_session()
    listed = (await client.request("dsh/session/list", {}))["sessions"]
    entry = next(e for e in listed if e["sessionId"] == session)
    assert entry["cwd"] == str(rig.workspace)
    assert isinstance(entry["createdAt"], int)
    assert entry["updatedAt"] >= entry["createdAt"]


async def test_an_explicit_cwd_is_kept(rig: Rig, client: DshClient) -> None:
    sub = rig.workspace / "sub"
    sub.mkdir(exist_ok=True)
    session = await client.new_session(str(sub))
    listed = (await client.request("dsh/session/list", {}))["sessions"]
    assert next(e for e in listed if e["sessionId"] == session)["cwd"] == str(sub)


async def test_the_list_is_newest_first(rig: Rig, client: DshClient) -> None:
    rig.model.enqueue(completion(text="a"), completion(text="b"))
    first = await client.new_session()
    second = await client.new_session()
    await client.prompt(second, "older activity")
    await client.prompt(first, "newer activity")
    listed = (await client.request("dsh/session/list", {}))["sessions"]
    stamps = {e["sessionId"]: e["updatedAt"] for e in listed}
    assert stamps[first] >= stamps[second]
    assert [e["updatedAt"] for e in listed] == sorted(stamps.values(), reverse=True)


async def test_the_first_prompt_titles_the_session(rig: Rig, client: DshClient) -> None:
    long_line = "Refactor the parser " + "so that every token keeps its span " * 4
    rig.model.enqueue(completion(text="a"), completion(text="b"), completion(text="c"))
    titled = await client.new_session()
    cut = await client.new_session()
    untitled = await client.new_session()
    unprompted = await client.new_session()
    (rig.workspace / "only.txt").write_text("x\n", encoding="utf-8")
    await client.prompt(titled, "  Fix the flaky test\nIt fails on CI about once a day.")
    await client.prompt(cut, long_line)
    await client.request(
        "dsh/prompt",
        {
            "sessionId": untitled,
            "prompt": [{"type": "resource_link", "uri": rig.uri("only.txt")}],
        },
    )
    listed = {e["sessionId"]: e for e in (await client.request("dsh/session/list", {}))["sessions"]}
    assert listed[titled]["title"] == "Fix the flaky test"
    assert len(listed[cut]["title"]) == 80
    assert listed[cut]["title"] == long_line[:79] + "…"
    assert "title" not in listed[untitled]
    assert "title" not in listed[unprompted]
    assert listed[unprompted]["createdAt"] == listed[unprompted]["updatedAt"]
    stored = {str(e.header.id): e.header for e in await JsonlPersistence(rig.sessions).list()}
    assert stored[titled].title == "Fix the flaky test"
    assert unprompted not in stored


async def test_resume_of_an_open_session_replays_it_then_answers(
    rig: Rig, client: DshClient
) -> None:
    (rig.workspace / "r.txt").write_text("content\n", encoding="utf-8")
    rig.model.enqueue(
        completion(
            tool_calls=[ToolCallSpec(id="t1", name="read", arguments='{"file_path":"r.txt"}')]
        ),
        completion(text="I read it."),
    )
    session = await client.new_session()
    await client.prompt(session, "read r.txt")
    live = list(client.updates[session])
    result = await client.request("dsh/session/resume", {"sessionId": session})
    assert result == {"sessionId": session}
    replayed = client.updates[session][len(live) :]
    assert [u["kind"] for u in replayed][:2] == ["state_update", "user_message"]
    assert replayed[1]["content"] == [{"type": "text", "text": "read r.txt"}]
    assert (
        "".join(u["text"] for u in replayed if u["kind"] == "agent_message_chunk") == "I read it."
    )
    cards = [u["toolCall"] for u in replayed if u["kind"] == "tool_call"]
    assert cards[-1]["toolCallId"] == "t1"
    assert cards[-1]["status"] == "completed"
    assert replayed[-1] == {"kind": "state_update", "state": "idle", "stopReason": "end_turn"}


async def test_attachments_come_back_as_the_resource_links_the_user_sent(
    rig: Rig, client: DshClient
) -> None:
    (rig.workspace / "att.md").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (rig.workspace / "closed.txt").write_text("on disk\n", encoding="utf-8")
    uri = rig.uri("att.md")
    open_document(client, uri, "one\ntwo\nthree\n")
    text = {"type": "text", "text": "look at these"}
    whole = {"type": "resource_link", "uri": uri}
    ranged = {
        "type": "resource_link",
        "uri": uri,
        "range": {"start": {"line": 1, "character": 1}, "end": {"line": 2, "character": 3}},
    }
    closed = {"type": "resource_link", "uri": rig.uri("closed.txt")}
    rig.model.enqueue(completion(text="seen"))
    session = await client.new_session()
    await client.prompt(session, "look at these", whole, ranged, closed)
    live = [u for u in client.updates[session] if u["kind"] == "user_message"]
    assert live[-1]["content"] == [text, whole, ranged, closed]
    count = len(client.updates[session])
    await client.request("dsh/session/resume", {"sessionId": session})
    replayed = [u for u in client.updates[session][count:] if u["kind"] == "user_message"]
    assert replayed == [{"kind": "user_message", "content": [text, whole, ranged, closed]}]


async def test_resume_of_an_unknown_session_is_invalid_params(client: DshClient) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await client.request("dsh/session/resume", {"sessionId": "never-was"})
    assert caught.value.code == -32602
    assert "unknown session 'never-was'" in caught.value.message


async def test_sessions_outlive_the_server_process(
    rig: Rig, model: ModelScript, tmp_path: Path
) -> None:
    root = tmp_path
    model.enqueue(completion(text="first answer"))
    async with running_server(rig.spec, model, root) as first:
        session = await first.client.new_session()
        await first.client.prompt(session, "remember this")
    model.enqueue(completion(text="second answer"))
    async with running_server(rig.spec, model, root) as second:
        listed = (await second.client.request("dsh/session/list", {}))["sessions"]
        assert [e["sessionId"] for e in listed] == [session]
        assert listed[0]["cwd"] == str(root / "workspace")
        assert listed[0]["title"] == "remember this"
        await second.client.request("dsh/session/resume", {"sessionId": session})
        replayed = second.client.updates[session]
        assert replayed[1]["content"] == [{"type": "text", "text": "remember this"}]
        assert second.client.text(session) == "first answer"
        assert (await second.client.prompt(session, "still there?"))["stopReason"] == "end_turn"
        history = model.requests()[-1]["messages"]
        assert [m["role"] for m in history[-3:]] == ["user", "assistant", "user"]
        assert second.client.text(session) == "first answer" + "second answer"


async def test_a_plan_in_the_log_replays_as_plan_update_and_an_untitled_log_gets_a_title(
    rig: Rig, tmp_path: Path
) -> None:
    store = JsonlPersistence(rig.sessions)
    header = SessionHeader(id="with-plan", created_at=1, cwd=str(rig.workspace))  # type: ignore[arg-type]  # SessionId is a str
    todos = [
        {"content": "write tests", "status": "completed"},
        {"content": "ship", "status": "pending"},
    ]
    user = user_message_data((TextBlock(text="plan it"),), UserSource())
    events = [
        SessionEvent(
            type="turn/start", seq=0, time=1, data=turn_start_data(1, message_trigger(UserSource()))
        ),
        SessionEvent(type="user/message", seq=1, time=1, data=user, surface_op="append"),
        SessionEvent(type="todo/write", seq=2, time=1, data={"todos": todos}),
        SessionEvent(
            type="turn/end", seq=3, time=2, data=turn_end_data(1, end_reason("completed"))
        ),
    ]
    await store.create(header)
    await store.append(header.id, events)
    client = rig.client
    await client.request("dsh/session/resume", {"sessionId": "with-plan"})
    listed = (await client.request("dsh/session/list", {}))["sessions"]
    assert next(e for e in listed if e["sessionId"] == "with-plan")["title"] == "plan it"
    plans = [u for u in client.updates["with-plan"] if u["kind"] == "plan_update"]
    assert plans == [
        {
            "kind": "plan_update",
            "entries": [
                {"content": "write tests", "status": "completed", "priority": "medium"},
                {"content": "ship", "status": "pending", "priority": "medium"},
            ],
        }
    ]


async def test_a_dsh_client_is_not_offered_the_plugin_less_commands(
    rig: Rig, client: DshClient
) -> None:
    """vscode-languageclient registers every advertised command; the extension owns
    ``dsh.newSession`` itself, so advertising it would stop the extension from starting."""
    capabilities = rig.extra["initialize"].capabilities
    assert capabilities.execute_command_provider is None
    assert capabilities.code_action_provider is None
    assert capabilities.experimental["dsh"]["version"] == 1
    session = await client.new_session()
    assert isinstance(session, str)
