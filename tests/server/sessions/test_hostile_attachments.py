"""Attachments that try to hang or flood the server (issue 16): ``/dev/zero``, a FIFO and an
oversized file are refused at once with -32602 naming the problem, memory stays bounded, and
shutdown + exit still end the process with 0."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from pygls.uris import from_fs_path

from tests.server.support import ModelScript, raw_server

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_devices_fifos_and_huge_files_are_refused_without_blocking(
    model: ModelScript, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.bin"
    with huge.open("wb") as handle:
        handle.truncate(1 << 31)  # sparse: 2 GiB that cost no disk
    cases = {
        "/dev/zero": "not a regular file",
        str(fifo): "not a regular file",
        str(huge): "an attachment is limited to",
    }
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        await server.send({"jsonrpc": "2.0", "id": "new", "method": "dsh/session/new"})
        session = (await server.response("new"))["result"]["sessionId"]
        for index, (path, problem) in enumerate(cases.items()):
            link = {"type": "resource_link", "uri": from_fs_path(path), "name": "x"}
            params = {"sessionId": session, "prompt": [link]}
            await server.send(
                {"jsonrpc": "2.0", "id": index, "method": "dsh/prompt", "params": params}
            )
            answer = await server.response(index)
            assert answer["error"]["code"] == -32602, answer
            assert problem in answer["error"]["message"], answer
        await server.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        await server.response("bye")
        await server.send({"jsonrpc": "2.0", "method": "exit"})
        with anyio.fail_after(20):
            assert await server.process.wait() == 0
