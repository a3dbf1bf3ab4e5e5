"""Hostile JSON-RPC on a live server (issue 16): framing that resynchronises, envelopes that
break JSON-RPC rules answered -32600, nothing non-finite echoed, nested objects never taken for
messages, server request ids the client cannot cancel or collide with, and malformed replies
to server requests that fail the request instead of wedging the turn."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from dsh_lsp.testing import ToolCallSpec, completion
from tests.server.support import RICH, Json, ModelScript, RawServer, raw_server

pytestmark = pytest.mark.asyncio(loop_scope="module")

EDITOR = {
    "experimental": RICH,
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create"]},
    },
}


async def server_request(server: RawServer, method: str) -> Json:
    """The next request ``method`` from the server (other messages are dropped)."""
    while True:
        message = await server.receive()
        if message.get("method") == method and "id" in message:
            return message


async def prompt(server: RawServer, text: str) -> None:
    await server.send({"jsonrpc": "2.0", "id": "new", "method": "dsh/session/new", "params": {}})
    session = (await server.response("new"))["result"]["sessionId"]
    params = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
    await server.send({"jsonrpc": "2.0", "id": "p1", "method": "dsh/prompt", "params": params})


def write_call(path: str) -> ToolCallSpec:
    arguments = json.dumps({"file_path": path, "content": "hi\n"})
    return ToolCallSpec(id="w1", name="write", arguments=arguments)


@asynccontextmanager
async def asked_to_write(model: ModelScript, root: Path) -> AsyncIterator[tuple[RawServer, Json]]:
    """A server (edits ``ask``) whose turn waits on the permission request to write
    ``new.txt``, and that request; the model answers ``ok`` after the write."""
    model.enqueue(completion(tool_calls=[write_call("new.txt")]), completion(text="ok"))
    async with raw_server(model, root) as server:
        await server.initialize(root, {"experimental": RICH}, {"permissions": {"edit": "ask"}})
        await prompt(server, "write")
        yield server, await server_request(server, "dsh/requestPermission")


async def test_a_bad_header_costs_one_message_and_the_decoder_resynchronises(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        lost = b'{"jsonrpc":"2.0","id":"lost","method":"dsh/session/list","params":{}}'
        await server.send_bytes(b"Content-Length: abc\r\n\r\n" + lost)
        assert (await server.receive())["error"]["code"] == -32700
        await server.send({"jsonrpc": "2.0", "id": 1, "method": "dsh/session/list", "params": {}})
        assert (await server.response(1))["result"] == {"sessions": []}


async def test_envelopes_that_break_json_rpc_are_invalid_requests(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        await server.send_bytes(
            b'Content-Length: 53\r\n\r\n{"jsonrpc":"2.0","id":1e400,"method":"shutdown"}     '
        )
        infinite = await server.receive()
        assert (infinite["id"], infinite["error"]["code"]) == (None, -32700)
        bad: list[tuple[Json, Json]] = [
            ({"jsonrpc": "1.0", "id": 2, "method": "dsh/session/list"}, 2),
            ({"jsonrpc": "2.0", "id": 3, "method": 5}, 3),
            ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "dsh/session/list"}, None),
            ({"jsonrpc": "2.0", "id": [1], "method": "dsh/session/list"}, None),
        ]
        for message, answer_id in bad:
            await server.send(message)
            answer = await server.receive()
            assert (answer["id"], answer["error"]["code"]) == (answer_id, -32600), message
            assert "Traceback" not in json.dumps(answer)
        inner = {"jsonrpc": "2.0", "id": 99, "method": "dsh/session/list", "params": {}}
        await server.send(
            {"jsonrpc": "2.0", "id": "outer", "method": "no/such", "params": {"x": inner}}
        )
        await server.send({"jsonrpc": "2.0", "id": "after", "method": "dsh/session/list"})
        seen = [await server.receive(), await server.receive()]
        assert [m["id"] for m in seen] == ["outer", "after"]
        assert seen[0]["error"]["code"] == -32601


async def test_before_initialize_unfit_params_are_still_not_initialized(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.send({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}})
        assert (await server.response(1))["error"]["code"] == -32002


async def test_the_client_cannot_cancel_or_collide_with_a_server_request(
    model: ModelScript, tmp_path: Path
) -> None:
    async with asked_to_write(model, tmp_path) as (server, asked):
        await server.send(
            {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": asked["id"]}}
        )
        await server.send({"jsonrpc": "2.0", "id": asked["id"], "method": "dsh/session/list"})
        assert "result" in await server.response(asked["id"])
        choice = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
        await server.send({"jsonrpc": "2.0", "id": asked["id"], "result": choice})
        assert (await server.response("p1"))["result"]["stopReason"] == "end_turn"
    assert (tmp_path / "new.txt").read_text(encoding="utf-8") == "hi\n"


async def test_a_malformed_permission_reply_is_a_refusal_not_a_wedge(
    model: ModelScript, tmp_path: Path
) -> None:
    async with asked_to_write(model, tmp_path) as (server, asked):
        choice = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
        await server.send({"jsonrpc": "2.0", "id": asked["id"], "result": choice, "extra": 1})
        assert (await server.response("p1"))["result"]["stopReason"] == "end_turn"
    assert not (tmp_path / "new.txt").exists()


@pytest.mark.parametrize("reply", [5, {}])
async def test_a_malformed_apply_edit_reply_fails_the_edit_not_the_turn(
    model: ModelScript, tmp_path: Path, reply: Json
) -> None:
    model.enqueue(completion(tool_calls=[write_call("new.txt")]), completion(text="ok"))
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path, EDITOR)
        await prompt(server, "write")
        asked = await server_request(server, "workspace/applyEdit")
        await server.send({"jsonrpc": "2.0", "id": asked["id"], "result": reply})
        assert (await server.response("p1"))["result"]["stopReason"] == "end_turn"
    last = model.requests()[-1]["messages"][-1]
    assert last["role"] == "tool"
    # the error answer counts as the editor's refusal, with the reason it gave
    assert "the editor did not apply the edit" in last["content"]
    assert "malformed reply" in last["content"]


async def test_a_message_over_the_set_maximum_is_skipped_and_the_next_answered(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path, ["--max-message-bytes", "4096"]) as server:
        await server.initialize(tmp_path)
        big = {"jsonrpc": "2.0", "id": "big", "method": "dsh/session/list", "params": {}}
        big["params"] = {"pad": "x" * 10_000}
        await server.send(big)
        await server.send({"jsonrpc": "2.0", "id": "small", "method": "dsh/session/list"})
        assert (await server.receive())["id"] == "small"
