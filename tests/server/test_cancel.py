"""Cancellation: dsh/cancel and $/cancelRequest answer cancelled, withdraw permission
requests, keep the log a valid transcript, and leave the session usable."""

from __future__ import annotations

import anyio
import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from dsh_lsp.testing import completion

from .support import DshClient, Json, Rig, stalled

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_dsh_cancel_answers_cancelled_and_the_next_prompt_works(
    rig: Rig, client: DshClient
) -> None:
    rig.model.enqueue(stalled())
    session = await client.new_session()
    async with client.prompting(session, "wait forever") as first:
        await client.until(lambda: client.text(session) == "working on it")
        client.protocol.notify("dsh/cancel", {"sessionId": session})
    assert first == {"result": {"stopReason": "cancelled"}}
    await client.until(lambda: client.states(session)[-1].get("stopReason") == "cancelled")
    rig.model.enqueue(completion(text="back again"))
    assert (await client.prompt(session, "hello"))["stopReason"] == "end_turn"
    assert client.text(session).endswith("back again")
    assert client.messages == []


async def test_cancel_request_on_the_prompt_stops_the_turn(rig: Rig, client: DshClient) -> None:
    rig.model.enqueue(stalled())
    session = await client.new_session()
    outcome: dict[str, Json] = {}

    async def prompt() -> None:
        try:
            outcome["result"] = await client.request(
                "dsh/prompt",
                {"sessionId": session, "prompt": [{"type": "text", "text": "x"}]},
                msg_id="prompt-to-cancel",
            )
        except JsonRpcException as exc:
            outcome["error"] = exc.code

    async with anyio.create_task_group() as group:
        group.start_soon(prompt)
        await client.until(lambda: client.text(session) == "working on it")
        client.cancel_request(types.CancelParams(id="prompt-to-cancel"))
    assert outcome in ({"result": {"stopReason": "cancelled"}}, {"error": -32800})
    await client.until(lambda: client.states(session)[-1].get("stopReason") == "cancelled")
    rig.model.enqueue(completion(text="fine"))
    assert (await client.prompt(session, "again"))["stopReason"] == "end_turn"
