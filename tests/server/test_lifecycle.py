"""Transport and lifecycle: capability negotiation, stdio (``--stdio`` accepted), one TCP
client, log files, and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from dsh_lsp.server import FrameDecoder, encode_frame
from dsh_lsp.server.demo import announced_port

from .support import Json, ModelScript, server_env


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
