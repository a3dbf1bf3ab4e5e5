"""The API key never leaves the process (issue 16): a full fault matrix against a live
server whose model endpoint echoes the key — in an in-stream error, in a chunk that is not
JSON, in an HTTP error body, after a broken transport, in tool-call arguments — and the key
appears in no LSP message, no session file and no log line (at debug level)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh_lsp.testing import (
    Disconnect,
    Event,
    ScriptedResponse,
    StreamResponse,
    ToolCallSpec,
    completion,
    delta_payload,
    error,
)
from tests.server.support import API_KEY, ModelScript, raw_server

pytestmark = pytest.mark.asyncio(loop_scope="module")

HALF = Event(data=delta_payload({"content": "partial "}))
"""A first chunk, so the fault that follows is not retried."""


def fault_matrix() -> list[ScriptedResponse]:
    in_stream = json.dumps({"error": {"message": f"bad credentials {API_KEY}", "code": 500}})
    return [
        StreamResponse(steps=(HALF, Event(data=in_stream))),
        StreamResponse(steps=(HALF, Event(data=f'{{"not json {API_KEY}'))),
        error(400, f"invalid key Bearer {API_KEY} for this model"),
        StreamResponse(steps=(HALF, Disconnect())),
        StreamResponse(steps=(Event(data=in_stream),)),
    ]


async def test_the_key_reaches_no_message_file_or_log_in_a_fault_matrix(
    model: ModelScript, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    faults = fault_matrix()
    echo_args = json.dumps({"file_path": f"{API_KEY}.txt"})
    model.enqueue(
        *faults[:4],
        completion(tool_calls=[ToolCallSpec(id="t1", name="read", arguments=echo_args)]),
        completion(text=f"the key is {API_KEY}"),
    )
    seen: list[str] = []
    args = ["--log-file", str(log), "--log-level", "debug"]
    async with raw_server(model, tmp_path, args) as server:
        await server.initialize(tmp_path)
        await server.send({"jsonrpc": "2.0", "id": "new", "method": "dsh/session/new"})
        session = (await server.response("new"))["result"]["sessionId"]
        for turn in range(5):
            params = {"sessionId": session, "prompt": [{"type": "text", "text": f"go {turn}"}]}
            await server.send(
                {"jsonrpc": "2.0", "id": turn, "method": "dsh/prompt", "params": params}
            )
            while True:
                message = await server.receive()
                seen.append(json.dumps(message))
                if message.get("id") == turn and "method" not in message:
                    break
        await server.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        seen.append(json.dumps(await server.response("bye")))
        await server.send({"jsonrpc": "2.0", "method": "exit"})
        await server.process.wait()
    traffic = "\n".join(seen)
    assert "bad credentials ***" in traffic  # the faults did reach the client, redacted
    assert "***" in traffic
    assert API_KEY not in traffic
    files = [p for p in (tmp_path / "sessions").rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert API_KEY.encode() not in path.read_bytes(), path
    text = log.read_text(encoding="utf-8")
    assert "bad credentials" in text
    assert API_KEY not in text
