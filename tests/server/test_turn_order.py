"""Turn ordering on the wire: every ``dsh/session/update`` of a turn goes out before that
turn's ``dsh/prompt`` answer — completed, failed and cancelled — so the next prompt never
receives the previous turn's tail."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_lsp.testing import ScriptedResponse, completion, error, wire_usage

from .support import Json, ModelScript, RawServer, raw_server, stalled

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _request(server: RawServer, msg_id: str, method: str, params: Json) -> None:
    await server.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


async def _until_answer(server: RawServer, msg_id: str) -> tuple[list[Json], Json]:
    """The messages the server sent before its answer to ``msg_id``, in order, and the
    answer."""
    before: list[Json] = []
    while True:
        message = await server.receive()
        if message.get("id") == msg_id and "method" not in message:
            return before, message
        before.append(message)


def _updates(messages: list[Json], session: str) -> list[Json]:
    return [
        m["params"]["update"]
        for m in messages
        if m.get("method") == "dsh/session/update" and m["params"]["sessionId"] == session
    ]


async def _prompt(server: RawServer, msg_id: str, session: str, text: str) -> None:
    params = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
    await _request(server, msg_id, "dsh/prompt", params)


@pytest.mark.parametrize("ending", ["completed", "failed", "cancelled", "request-cancelled"])
async def test_every_update_of_a_turn_precedes_its_prompt_answer(
    model: ModelScript, tmp_path: Path, ending: str
) -> None:
    usage = wire_usage(prompt=50, completion=5)
    answers: dict[str, ScriptedResponse] = {
        "completed": completion(text="all done", usage=usage),
        "failed": error(401, "Authentication Fails"),
        "cancelled": stalled(),
        "request-cancelled": stalled(),
    }
    first = answers[ending]
    model.enqueue(first, completion(text="second turn", usage=usage))
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        await _request(server, "new", "dsh/session/new", {})
        session = (await server.response("new"))["result"]["sessionId"]
        await _prompt(server, "one", session, "first")
        if ending.endswith("cancelled"):
            seen: list[Json] = []
            while "working on it" not in [u.get("text") for u in _updates(seen, session)]:
                seen.append(await server.receive())
            method, params = (
                ("dsh/cancel", {"sessionId": session})
                if ending == "cancelled"
                else ("$/cancelRequest", {"id": "one"})
            )
            await server.send({"jsonrpc": "2.0", "method": method, "params": params})
        before, answer = await _until_answer(server, "one")
        tail = _updates(before, session)[-1]
        assert tail["kind"] == "state_update"
        assert tail["state"] == "idle"
        match ending:
            case "completed":
                assert answer["result"]["stopReason"] == "end_turn"
                assert _updates(before, session)[-2]["kind"] == "usage_update"
            case "failed":
                assert answer["error"]["data"]["code"] == "AUTH"
                assert tail["error"]["code"] == "AUTH"
            case _:
                assert answer["result"] == {"stopReason": "cancelled"}
                assert tail["stopReason"] == "cancelled"
        # The next prompt, sent at once, sees only its own turn's updates.
        await _prompt(server, "two", session, "second")
        between, second = await _until_answer(server, "two")
        assert second["result"]["stopReason"] == "end_turn"
        updates = _updates(between, session)
        assert updates[0] == {"kind": "state_update", "state": "running"}
        assert updates[1]["kind"] == "user_message"
        assert updates[-1] == {"kind": "state_update", "state": "idle", "stopReason": "end_turn"}
        await _request(server, "bye", "shutdown", None)
        after, _ = await _until_answer(server, "bye")
        assert _updates(after, session) == []
