"""Benchmark: a 20,000-chunk turn end to end, next to a raw socket reader of the same stream.

Everything is real and shared with ``bench/server.py`` (its scripted model server child
process, one SSE event per chunk with coalesced writes, behind its timestamping proxy; its
``python -m dsh_lsp`` over stdio with a pygls client). Figures, best of ``--rounds`` warm
turns, each interleaved with a baseline read of the same response:

- chunks/s from the first SSE byte (as the proxy saw it) to the ``dsh/prompt`` answer,
  against a raw socket reader (one HTTP/1.1 request written by hand, bytes read until
  ``data: [DONE]``, nothing parsed) through the same proxy; the ratio is ours / raw;
- the server's CPU per chunk over the turn (all threads, ``/proc``);
- first SSE byte → first ``agent_message_chunk`` update at the client;
- a bare httpx reader of the same stream (``aiter_lines``, as ``bench/server.py``);
- warm overhead per model request of a 10-step tool turn (``bench/server.py``'s
  ``ten_steps``: the turn minus the model's time, per request) against bare httpx.

    .venv/bin/python bench/stream.py [--rounds 3] [--chunks 20000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import (
    OURS,
    Proxy,
    environment,
    model_server,
    ms,
    raw_stream,
    ten_steps,
    text_answer,
)

from dsh_lsp.server.wire import FrameDecoder, encode_frame

REQUEST = (
    b"POST /chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
)


async def raw_read(port: int) -> float:
    """Seconds from the first SSE byte to ``data: [DONE]`` for one bare socket reader."""
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(REQUEST)
        first = 0.0
        tail = b""
        while True:
            data = await stream.receive(1 << 16)
            if not first and b"data:" in data:
                first = time.perf_counter()
            if b"data: [DONE]" in tail[-16:] + data:
                return time.perf_counter() - first
            tail = data


def cpu(pid: int) -> float:
    """CPU seconds of every thread of ``pid`` so far."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


Json = Any  # Any: decoded JSON payloads


class LightClient:
    """A minimal LSP client on the server's pipes: it decodes only responses (and the first
    ``agent_message_chunk`` update's arrival time), so the client is not the bottleneck of
    a 20,000-update turn the way a full pygls client would be."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.pid = process.pid
        self._waiting: dict[int, tuple[anyio.Event, list[Json]]] = {}
        self._next = 0
        self.first_update: float | None = None

    async def read(self) -> None:
        assert self.process.stdout is not None
        decoder = FrameDecoder()
        async for data in self.process.stdout:
            for frame in decoder.feed(data):
                assert isinstance(frame, bytes)
                if b'"method"' in frame:
                    if self.first_update is None and b"agent_message_chunk" in frame:
                        self.first_update = time.perf_counter()
                    if b'"id"' in frame and b"session/update" not in frame:
                        message = json.loads(frame)
                        await self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                    continue
                message = json.loads(frame)
                event, box = self._waiting.pop(message["id"])
                box.append(message)
                event.set()

    async def send(self, message: Json) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(encode_frame(json.dumps(message).encode()))

    async def call(self, method: str, params: Json) -> Json:
        self._next += 1
        event, box = anyio.Event(), list[Json]()
        self._waiting[self._next] = (event, box)
        await self.send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        await event.wait()
        answer = box[0]
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]


@asynccontextmanager
async def light_server(root: Path, proxy: Proxy) -> AsyncIterator[LightClient]:
    env = environment(root, proxy.port)
    process = await anyio.open_process(list(OURS), env=env, stderr=subprocess.DEVNULL)
    client = LightClient(process)
    async with process, anyio.create_task_group() as group:
        group.start_soon(client.read)
        workspace = Path(env["BENCH_WORKSPACE"]).as_uri()
        capabilities = {"experimental": {"dsh": {"version": 1, "sessionUpdates": True}}}
        await client.call(
            "initialize",
            {"processId": None, "rootUri": workspace, "capabilities": capabilities},
        )
        await client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        await client.call("dsh/status", {})  # the start-up finished
        try:
            yield client
        finally:
            await client.call("shutdown", None)
            await client.send({"jsonrpc": "2.0", "method": "exit"})
            await process.wait()
            group.cancel_scope.cancel()


async def one_turn(lsp: LightClient, proxy: Proxy, chunks: int) -> tuple[float, float, float]:
    """(chunks/s, CPU seconds, first SSE byte → first update) of one warm turn."""
    session = (await lsp.call("dsh/session/new", {}))["sessionId"]
    mark = len(proxy.first_sse)
    lsp.first_update = None
    before = cpu(lsp.pid)
    prompt = [{"type": "text", "text": "go"}]
    result = await lsp.call("dsh/prompt", {"sessionId": session, "prompt": prompt})
    done = time.perf_counter()
    used = cpu(lsp.pid) - before
    assert result["stopReason"] == "end_turn", result
    first_byte = proxy.first_sse[mark]
    assert lsp.first_update is not None
    return chunks / (done - first_byte), used, lsp.first_update - first_byte


async def main(rounds: int, chunks: int) -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-stream-") as tmp:
        root = Path(tmp)
        print(f"{chunks:,}-chunk turn end to end, best of {rounds} warm turns (interleaved)")
        answer = [text_answer(chunks)]
        async with model_server(answer, root) as proxy, light_server(root, proxy) as lsp:
            await one_turn(lsp, proxy, chunks)  # warm-up
            ours, raws, httpxs = [], [], []
            for _ in range(rounds):
                ours.append(await one_turn(lsp, proxy, chunks))
                raws.append(chunks / await raw_read(proxy.port))
                httpxs.append(chunks / await raw_stream(f"http://127.0.0.1:{proxy.port}"))
        rate = max(r for r, _, _ in ours)
        raw = max(raws)
        used = min(c for _, c, _ in ours)
        latency = min(lat for _, _, lat in ours)
        print(f"  end-to-end rate        {rate:>10,.0f} chunks/s   raw socket reader {raw:>10,.0f}")
        print(f"    ratio ours/raw       {rate / raw:10.3f}x")
        print(f"  bare httpx aiter_lines {max(httpxs):>10,.0f} chunks/s   ratio ours/httpx", end="")
        print(f" {rate / max(httpxs):.2f}x")
        print(f"  server CPU per chunk   {used / chunks * 1e6:10.1f} µs   turn CPU {ms(used)}")
        print(f"  first SSE byte → first update {ms(latency, 2)}")
        await ten_steps(root)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="warm turns")
    parser.add_argument("--chunks", type=int, default=20000, help="text deltas per turn")
    arguments = parser.parse_args()
    anyio.run(main, arguments.rounds, arguments.chunks, backend="asyncio")
