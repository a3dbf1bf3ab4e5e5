"""Transport and lifecycle: capability negotiation, stdio (``--stdio`` accepted), one TCP
client, log files, exit codes, and stop signals (SIGTERM/SIGINT end the server like the end
of its input: turns cancelled, logs flushed, exit 0)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from dsh_lsp.llm import SessionId
from dsh_lsp.server.demo import announced_port
from dsh_lsp.server.wire import FrameDecoder, encode_frame
from dsh_lsp.session import JsonlPersistence
from dsh_lsp.testing import completion

from .support import Json, ModelScript, RawServer, raw_server, server_env, stalled


@pytest.mark.asyncio(loop_scope="module")
async def test_one_tcp_client_is_served(model: ModelScript, tmp_path: Path) -> None:
    log = tmp_path / "tcp.log"
    process = await anyio.open_process(
        [sys.executable, "-m", "dsh_lsp", "--tcp", "127.0.0.1:0", "--log-file", str(log)],
        env=server_env(model.base_url, tmp_path / "state"),
        stdin=subprocess.DEVNULL,
    )
    try:
        port = await announced_port(process, b"dsh-lsp: listening on 127.0.0.1:")
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            decoder = FrameDecoder()

            async def call(message: Json) -> Json:
                await stream.send(encode_frame(json.dumps(message).encode()))
                with anyio.fail_after(20):
                    while True:
                        for frame in decoder.feed(await stream.receive()):
                            assert isinstance(frame, bytes)
                            reply = json.loads(frame)
                            if reply.get("id") == message.get("id"):
                                return reply

            init = {"capabilities": {}, "rootUri": tmp_path.as_uri()}
            result = await call({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
            assert result["result"]["capabilities"]["experimental"]["dsh"]["version"] == 1
            listed = await call({"jsonrpc": "2.0", "id": 2, "method": "dsh/session/list"})
            assert listed["result"] == {"sessions": []}
            assert (await call({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))["result"] is None
            await stream.send(encode_frame(b'{"jsonrpc":"2.0","method":"exit"}'))
        with anyio.fail_after(20):
            assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert log.exists()


def test_an_unusable_tcp_address_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dsh_lsp", "--tcp", "nowhere"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert "expected HOST:PORT" in result.stderr
    assert result.stdout == ""


async def _prompted(server: RawServer, root: Path, text: str) -> str:
    """Initialize, open a session and send ``text`` as the prompt with id ``p``; the
    session's id."""
    await server.initialize(root)
    await server.send({"jsonrpc": "2.0", "id": "new", "method": "dsh/session/new"})
    session: str = (await server.response("new"))["result"]["sessionId"]
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
    await server.send({"jsonrpc": "2.0", "id": "p", "method": "dsh/prompt", "params": prompt})
    return session


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT])
async def test_a_stop_signal_right_after_a_turn_keeps_the_session(
    model: ModelScript, tmp_path: Path, signal_number: signal.Signals
) -> None:
    model.enqueue(completion(text="remember me"))
    async with raw_server(model, tmp_path) as server:
        session = await _prompted(server, tmp_path, "keep this")
        assert (await server.response("p"))["result"]["stopReason"] == "end_turn"
        server.process.send_signal(signal_number)
        with anyio.fail_after(20):
            assert await server.process.wait() == 0
    loaded = await JsonlPersistence(tmp_path / "sessions").load(SessionId(session))
    types = [event.type for event in loaded.events]
    assert "user/message" in types
    assert types[-1] == "turn/end"
    assert not loaded.repaired


@pytest.mark.asyncio(loop_scope="module")
async def test_sigterm_during_a_turn_cancels_it_and_keeps_the_log(
    model: ModelScript, tmp_path: Path
) -> None:
    model.enqueue(stalled())
    async with raw_server(model, tmp_path) as server:
        session = await _prompted(server, tmp_path, "never ends")
        while True:
            message = await server.receive()
            if message.get("params", {}).get("update", {}).get("text") == "working on it":
                break
        server.process.send_signal(signal.SIGTERM)
        assert (await server.response("p"))["result"]["stopReason"] == "cancelled"
        with anyio.fail_after(20):
            assert await server.process.wait() == 0
    loaded = await JsonlPersistence(tmp_path / "sessions").load(SessionId(session))
    assert loaded.events[-1].type == "turn/end"
    assert loaded.events[-1].data["reason"] == {"kind": "disposed"}
    assert not loaded.repaired


@pytest.mark.asyncio(loop_scope="module")
async def test_initialize_is_answered_before_the_layers_below_the_server_load(
    model: ModelScript, tmp_path: Path
) -> None:
    imports = tmp_path / "imports.txt"
    with imports.open("wb") as err:
        started = raw_server(model, tmp_path, python=("-X", "importtime"), stderr=err)
        async with started as server:
            init: Json = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
            await server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
            assert "result" in await server.response(1)

            def loaded() -> set[str]:
                lines = imports.read_text(encoding="utf-8").splitlines()
                return {line.rsplit("|", 1)[-1].strip() for line in lines if "|" in line}

            # What loads before the answer is pinned by test_startup_imports (in log order:
            # the layers below start loading in a worker thread right after the answer).
            heavy = {"dsh_lsp.agent", "dsh_lsp.app", "dsh_lsp.session", "dsh_lsp.tools", "httpx"}
            # No ``initialized`` yet: a new session is answered early all the same, and the
            # first dsh/* request the server itself answers starts the start-up.
            await server.send({"jsonrpc": "2.0", "id": "new", "method": "dsh/session/new"})
            assert "result" in await server.response("new")
            await server.send({"jsonrpc": "2.0", "id": "list", "method": "dsh/session/list"})
            assert "result" in await server.response("list", seconds=60)
            assert heavy <= loaded()
