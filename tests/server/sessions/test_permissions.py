"""Permissions: edit policy ``ask`` → dsh/requestPermission (rich clients) or
window/showMessageRequest (plain clients); "always" is remembered; cancel withdraws."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import pytest
import pytest_asyncio

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.support import CLIENTS, DshClient, Json, ModelScript, Rig, running_server

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPTION_NAMES = {
    "allow_once": "Allow",
    "allow_always": "Always allow",
    "reject_once": "Reject",
    "reject_always": "Always reject",
}


@pytest_asyncio.fixture(
    scope="module",
    loop_scope="module",
    params=[(spec, rich) for spec in CLIENTS for rich in (True, False)],
    ids=lambda p: f"{p[0]}-{'dsh' if p[1] else 'plain'}",
)
async def rig(
    request: pytest.FixtureRequest, model: ModelScript, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Rig]:
    """A server whose edit policy is ``ask``, for a rich and for a plain client."""
    spec, rich = request.param
    root = tmp_path_factory.mktemp("perm")
    options = {"permissions": {"edit": "ask"}}
    async with running_server(spec, model, root, rich=rich, init_options=options) as started:
        started.extra["rich"] = rich
        yield started


def answer_with(client: DshClient, option: str) -> None:
    """Answer every permission question with ``option`` (in whichever form it comes)."""

    async def rich(params: Json) -> Json:
        return {"outcome": {"outcome": "selected", "optionId": option}}

    async def plain(params: Json) -> Json:
        return OPTION_NAMES[option]

    client.answer_permission = rich
    client.answer_message = plain


def questions(rig: Rig) -> int:
    client = rig.client
    return len(client.permission_requests if rig.extra["rich"] else client.message_requests)


def write_call(call_id: str, path: str, content: str) -> ToolCallSpec:
    return ToolCallSpec(
        id=call_id, name="write", arguments=json.dumps({"file_path": path, "content": content})
    )


async def test_an_edit_asks_and_allow_once_runs_it(rig: Rig, client: DshClient) -> None:
    answer_with(client, "allow_once")
    before = questions(rig)
    sent: list[Json] = []

    async def record(raw: Json) -> None:
        sent.append(raw)

    client.before_apply = record
    rig.model.enqueue(
        completion(tool_calls=[write_call("a1", "new.txt", "hi\n")]), completion(text="ok")
    )
    session = await client.new_session()
    assert (await client.prompt(session, "write"))["stopReason"] == "end_turn"
    assert questions(rig) == before + 1
    assert (rig.workspace / "new.txt").read_text(encoding="utf-8") == "hi\n"
    client.before_apply = None
    annotations = [a for raw in sent for a in (raw["edit"].get("changeAnnotations") or {}).values()]
    if rig.extra["rich"]:  # approved in the plugin's own card: no second preview in the editor
        assert sent
        assert not any(a.get("needsConfirmation") for a in annotations)
    if rig.extra["rich"]:
        asked = client.permission_requests[-1]
        assert asked["sessionId"] == session
        assert asked["toolCall"]["toolCallId"] == "a1"
        assert asked["toolCall"]["kind"] == "edit"
        assert asked["toolCall"]["rawInput"] == {"file_path": "new.txt", "content": "hi\n"}
        assert [o["kind"] for o in asked["options"]] == list(OPTION_NAMES)
        assert [o["optionId"] for o in asked["options"]] == list(OPTION_NAMES)
        states = [s["state"] for s in client.states(session)]
        assert states == ["running", "requires_action", "running", "idle"]
        statuses = [c.get("status") for c in client.tool_calls(session)]
        assert statuses == ["pending", "in_progress", "pending", "in_progress", "completed"]
    else:
        assert client.message_requests[-1]["actions"] == list(OPTION_NAMES.values())
        assert "new.txt" in client.message_requests[-1]["message"]
        assert client.updates[session] == []  # no dsh/session/update without the capability
    assert client.messages == []


async def test_a_rejected_edit_leaves_the_file_alone(rig: Rig, client: DshClient) -> None:
    (rig.workspace / "keep.txt").write_text("original\n", encoding="utf-8")
    answer_with(client, "reject_once")
    rig.model.enqueue(
        completion(
            tool_calls=[ToolCallSpec(id="r", name="read", arguments='{"file_path":"keep.txt"}')]
        ),
        completion(tool_calls=[write_call("b1", "keep.txt", "changed\n")]),
        completion(text="understood"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "change it"))["stopReason"] == "end_turn"
    assert (rig.workspace / "keep.txt").read_text(encoding="utf-8") == "original\n"
    if rig.extra["rich"]:
        final = [c for c in client.tool_calls(session) if c["toolCallId"] == "b1"][-1]
        assert final["status"] == "failed"
    tool_message = rig.model.requests()[-1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "declined" in tool_message["content"]


async def test_always_allow_is_remembered_for_the_session(rig: Rig, client: DshClient) -> None:
    answer_with(client, "allow_always")
    before = questions(rig)
    rig.model.enqueue(
        completion(tool_calls=[write_call("c1", "one.txt", "1\n")]),
        completion(tool_calls=[write_call("c2", "two.txt", "2\n")]),
        completion(text="both"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "write two"))["stopReason"] == "end_turn"
    assert questions(rig) == before + 1
    assert (rig.workspace / "two.txt").read_text(encoding="utf-8") == "2\n"
    rig.model.enqueue(
        completion(tool_calls=[write_call("c3", "three.txt", "3\n")]), completion(text="k")
    )
    other = await client.new_session()
    await client.prompt(other, "another session asks again")
    assert questions(rig) == before + 2


async def test_cancel_withdraws_the_question_and_answers_every_call(
    rig: Rig, client: DshClient
) -> None:
    (rig.workspace / "plan.txt").write_text("one\n", encoding="utf-8")
    asked = anyio.Event()

    async def never(params: Json) -> Json:
        asked.set()
        await anyio.sleep_forever()

    client.answer_permission = never
    client.answer_message = never
    rig.model.enqueue(completion(tool_calls=[write_call("d1", "plan.txt", "two\n")]))
    session = await client.new_session()
    async with client.prompting(session, "rewrite the plan") as first:
        with anyio.fail_after(20):
            await asked.wait()
        client.protocol.notify("dsh/cancel", {"sessionId": session})
    assert first == {"result": {"stopReason": "cancelled"}}
    if rig.extra["rich"]:
        await client.until(lambda: "d1" in client.withdrawn)
        await client.until(lambda: client.states(session)[-1].get("stopReason") == "cancelled")
        final = [c for c in client.tool_calls(session) if c["toolCallId"] == "d1"][-1]
        assert final["status"] == "cancelled"
    assert (rig.workspace / "plan.txt").read_text(encoding="utf-8") == "one\n"
    answer_with(client, "allow_once")
    rig.model.enqueue(completion(text="ready"))
    assert (await client.prompt(session, "and now?"))["stopReason"] == "end_turn"
    history = rig.model.requests()[-1]["messages"]
    assert [m.get("tool_call_id") for m in history if m["role"] == "tool"] == ["d1"]
    assert client.messages == []
