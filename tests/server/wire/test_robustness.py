"""Robustness with raw bytes: malformed input, unknown methods, bad params on custom and
standard methods, requests before initialize, a client that dies mid-turn, shutdown during a
turn. Nothing crashes or hangs, every request gets an answer, and no session data is lost."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.server.support import Json, ModelScript, RawServer, raw_server, stalled

pytestmark = pytest.mark.asyncio(loop_scope="module")


def log_events(sessions: Path) -> list[Json]:
    """Every event of the single session log under ``sessions``."""
    (log,) = sessions.rglob("*.jsonl")
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()[1:]]


async def test_malformed_input_gets_answers_and_the_server_goes_on(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        await server.send_bytes(b"Content-Length: 9\r\n\r\n{not json")
        parse = await server.receive()
        assert parse["id"] is None
        assert parse["error"]["code"] == -32700
        await server.send_bytes(b"Content-Length: 2\r\n\r\n[]")
        assert (await server.receive())["error"]["code"] == -32600
        await server.send({"id": 7, "method": "no jsonrpc field"})
        invalid = await server.receive()
        assert (invalid["id"], invalid["error"]["code"]) == (7, -32600)
        await server.send_bytes(b"X-Garbage: yes\r\n\r\n")
        await server.send({"jsonrpc": "2.0", "method": "no/suchNotification", "params": {}})
        await server.send({"jsonrpc": "2.0", "id": 8, "method": "no/suchMethod", "params": {}})
        unknown = await server.response(8)
        assert unknown["error"]["code"] == -32601
        await server.send({"jsonrpc": "2.0", "id": 9, "method": "dsh/session/list", "params": {}})
        assert (await server.response(9))["result"] == {"sessions": []}
        await server.send({"jsonrpc": "2.0", "id": 10, "method": "shutdown"})
        assert (await server.response(10))["result"] is None
        await server.send({"jsonrpc": "2.0", "method": "exit"})
        with anyio.fail_after(20):
            assert await server.process.wait() == 0


async def test_bad_params_are_invalid_params_naming_the_field(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        cases: list[tuple[str, Json, str]] = [
            ("textDocument/hover", {"textDocument": {"uri": "file:///x"}}, "$.params.position"),
            (
                "textDocument/hover",
                {"textDocument": {"uri": "file:///x"}, "position": {"line": "a", "character": 0}},
                "$.params.position.line",
            ),
            ("dsh/prompt", {"sessionId": "s"}, "params.prompt: Field required"),
            (
                "dsh/prompt",
                {"sessionId": "s", "prompt": [{"type": "text"}]},
                "params.prompt[0].text",
            ),
            ("dsh/prompt", {"sessionId": "s", "prompt": [{"type": "image"}]}, "params.prompt[0]"),
            ("dsh/session/resume", {"sessionId": 5}, "params.sessionId"),
            ("dsh/session/new", {"cwd": "/x", "extra": 1}, "params.extra: unknown field"),
        ]
        for index, (method, params, field) in enumerate(cases):
            await server.send({"jsonrpc": "2.0", "id": index, "method": method, "params": params})
            answer = await server.response(index)
            assert answer["error"]["code"] == -32602, (method, answer)
            assert field in answer["error"]["message"], (method, answer)
        await server.send({"jsonrpc": "2.0", "id": "after", "method": "shutdown"})
        assert "result" in await server.response("after")


async def test_requests_before_initialize_are_refused(model: ModelScript, tmp_path: Path) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.send({"jsonrpc": "2.0", "id": 1, "method": "dsh/session/list", "params": {}})
        early = await server.response(1)
        assert early["error"]["code"] == -32002
        assert "initialize" in early["error"]["message"]
        await server.send({"jsonrpc": "2.0", "method": "dsh/cancel", "params": {"sessionId": "x"}})
        await server.initialize(tmp_path)
        await server.send(
            {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}}
        )
        assert (await server.response(2))["error"]["code"] == -32600
        await server.send({"jsonrpc": "2.0", "id": 3, "method": "dsh/session/list", "params": {}})
        assert "result" in await server.response(3)


async def test_a_client_that_dies_mid_turn_leaves_a_flushed_log_and_exit_0(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await _turn_in_flight(server, model, tmp_path, "half an answer")
        await server.close_input()
        with anyio.fail_after(20):
            assert await server.process.wait() == 0
    events = log_events(tmp_path / "sessions")
    types = [e["type"] for e in events]
    assert types[0] == "turn/start"
    assert types[-1] == "turn/end"
    assert events[-1]["data"]["reason"]["kind"] in ("aborted", "disposed")
    chunks = [e["data"]["chunk"] for e in events if e["type"] == "assistant/chunk"]
    assert "half an answer" in "".join(c.get("text") or "" for c in chunks)


async def test_shutdown_during_a_turn_answers_everything_and_flushes(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await _turn_in_flight(server, model, tmp_path, "still going")
        await server.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        prompt_answer = await server.response("p1")
        assert prompt_answer.get("result") == {"stopReason": "cancelled"} or (
            prompt_answer["error"]["code"] == -32800
        )
        assert (await server.response("bye"))["result"] is None
        await server.send({"jsonrpc": "2.0", "id": "late", "method": "dsh/session/list"})
        assert (await server.response("late"))["error"]["code"] == -32600
        await server.send({"jsonrpc": "2.0", "method": "exit"})
        with anyio.fail_after(20):
            assert await server.process.wait() == 0
    events = log_events(tmp_path / "sessions")
    assert events[-1]["type"] == "turn/end"


async def test_exit_without_shutdown_exits_1(model: ModelScript, tmp_path: Path) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        await server.send({"jsonrpc": "2.0", "method": "exit"})
        with anyio.fail_after(20):
            assert await server.process.wait() == 1


async def _turn_in_flight(server: RawServer, model: ModelScript, root: Path, text: str) -> None:
    """Initialize, open a session and send prompt ``p1`` whose model answer streams ``text``
    and stalls; return once ``text`` arrived as an update."""
    model.enqueue(stalled(text))
    await server.initialize(root)
    await server.send({"jsonrpc": "2.0", "id": "new", "method": "dsh/session/new", "params": {}})
    session = (await server.response("new"))["result"]["sessionId"]
    params = {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
    await server.send({"jsonrpc": "2.0", "id": "p1", "method": "dsh/prompt", "params": params})
    while True:
        update = (await server.receive()).get("params", {}).get("update", {})
        if update.get("kind") == "agent_message_chunk" and text in update.get("text", ""):
            return
