"""The shell through the real server: approval with command, folder and description;
prefix rules remembered per workspace, listed and revoked; compound commands always ask;
live output on the tool card; no secret reaches the command."""

from __future__ import annotations

import json

import pytest

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.support import API_KEY, DshClient, Json, Rig

pytestmark = pytest.mark.asyncio(loop_scope="module")


def bash(call_id: str, command: str, description: str = "run it") -> ToolCallSpec:
    arguments = {"command": command, "description": description}
    return ToolCallSpec(id=call_id, name="bash", arguments=json.dumps(arguments))


def answering(client: DshClient, option: str, prefix: str | None = None) -> list[Json]:
    asked: list[Json] = []

    async def answer(params: Json) -> Json:
        asked.append(params)
        outcome: dict[str, Json] = {"outcome": "selected", "optionId": option}
        if prefix is not None:
            outcome["prefix"] = prefix
        return {"outcome": outcome}

    client.answer_permission = answer
    return asked


def result_text(client: DshClient, session: str, call_id: str) -> str:
    cards = [c for c in client.tool_calls(session) if c["toolCallId"] == call_id]
    final = cards[-1]
    assert final["status"] == "completed", final
    return "".join(item.get("text", "") for item in final["content"])


async def test_a_command_asks_with_its_command_folder_and_description(
    rig: Rig, client: DshClient
) -> None:
    asked = answering(client, "allow_once")
    rig.model.enqueue(
        completion(tool_calls=[bash("s1", "echo hello; exit 4", "Say hello")]),
        completion(text="ok"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "greet"))["stopReason"] == "end_turn"
    assert len(asked) == 1
    reason = asked[0]["reason"]
    assert "`echo hello; exit 4`" in reason
    assert str(rig.workspace) in reason
    assert "Say hello" in reason
    names = [o["optionId"] for o in asked[0]["options"]]
    assert "allow_always" not in names, "a compound command is offered no prefix rule"
    text = result_text(client, session, "s1")
    assert "hello" in text
    assert "[exit code: 4]" in text


async def test_always_allow_remembers_a_prefix_that_never_covers_a_chain(
    rig: Rig, client: DshClient
) -> None:
    asked = answering(client, "allow_always", prefix="python3 -c")
    rig.model.enqueue(
        completion(tool_calls=[bash("p1", "python3 -c 'print(1)'")]),
        completion(tool_calls=[bash("p2", "python3 -c 'print(2)'")]),
        completion(tool_calls=[bash("p3", "python3 -c 'print(3)' && echo chained")]),
        completion(text="done"),
    )
    session = await client.new_session()
    assert (await client.prompt(session, "run"))["stopReason"] == "end_turn"
    assert [a["toolCall"]["toolCallId"] for a in asked] == ["p1", "p3"]
    assert asked[0]["prefix"] == "python3"
    listed = await client.request("dsh/shell/allowedPrefixes", {})
    assert listed == {"prefixes": [{"prefix": "python3 -c", "source": "remembered"}]}
    assert "2" in result_text(client, session, "p2")
    revoked = await client.request("dsh/shell/revokePrefix", {"prefix": "python3 -c"})
    assert revoked == {"revoked": True}
    assert await client.request("dsh/shell/allowedPrefixes", {}) == {"prefixes": []}


async def test_live_output_reaches_the_card_and_no_secret_reaches_the_command(
    rig: Rig, client: DshClient
) -> None:
    answering(client, "allow_once")
    command = "for i in 1 2 3 4; do echo tick $i; sleep 0.3; done; env"
    rig.model.enqueue(completion(tool_calls=[bash("l1", command)]), completion(text="ok"))
    session = await client.new_session()
    assert (await client.prompt(session, "tick"))["stopReason"] == "end_turn"
    cards = [c for c in client.tool_calls(session) if c["toolCallId"] == "l1"]
    live = [c for c in cards if "terminal" in c]
    assert live, "the running command's output was shown"
    assert live[0]["status"] == "in_progress"
    assert "tick 1" in live[0]["content"][0]["text"]
    text = result_text(client, session, "l1")
    assert "tick 4" in text
    assert API_KEY not in text
    assert "DEEPSEEK_API_KEY" not in text
