"""Benchmark: the language server end to end, each figure next to a raw baseline of the run.

Everything is real: ``python -m dsh_lsp`` over stdio, driven by a pygls LSP client in this
process, and the scripted OpenAI-compatible server in a child process, reached through a
small TCP proxy here that timestamps the bytes (first SSE byte of each response, end of each
response, start of each request). Figures:

- cold start: spawn → ``initialize`` answered, against a bare pygls server; plus where the
  time goes (interpreter start, ``lsprotocol`` and pygls imports, the handlers and all
  layers, which load in a worker thread after the answer, and ``dsh-lsp --version``), the
  first ``dsh/session/new`` answer after ``initialize`` (given while the server loads) and
  the end of the start-up (``dsh/status`` answered: the layers imported, the plugins loaded);
- a 200-chunk turn: prompt → answer, and the harness's share (minus the model's time), next
  to reading the same stream with bare httpx;
- a 10-step turn (nine ``read`` tool steps, then text), first prompt of the process and
  warm: overhead per model request (the turn minus the model's time on its 10 requests as
  the proxy saw them, per request) and the step gap (``[DONE]`` of one response → first
  byte of the next request);
- a 5,000-chunk stream: chunks/s from the first SSE byte to the answer, against bare httpx,
  and the latency from the first SSE byte to the first ``agent_message_chunk`` update;
- peak RSS (``VmHWM``) of the server idle and after the 5,000-chunk turn, against a bare
  pygls server;
- 10 sessions prompting at once (500 chunks each): aggregate chunks/s against 10 concurrent
  bare httpx readers.

    .venv/bin/python bench/server.py [--rounds 5] [--only steps ...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
from anyio.abc import SocketStream
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from dsh_lsp.server.demo import SCRIPTED_PORT_LINE, announced_port
from dsh_lsp.server.wire import dict_params_converter
from dsh_lsp.testing import (
    ScriptedResponse,
    ToolCallSpec,
    completion,
    script_to_json,
    wire_usage,
)

Json = Any  # Any: decoded JSON payloads
BARE_SERVER = (
    "from pygls.lsp.server import LanguageServer\nLanguageServer('bare', '1').start_io()\n"
)
USAGE = wire_usage(prompt=100, completion=10)
STEPS = 10


def text_answer(chunks: int) -> ScriptedResponse:
    """An answer of ``chunks`` text deltas of 4 characters."""
    return completion(text="abcd" * chunks, piece_size=4, usage=USAGE)


def read_turn() -> list[ScriptedResponse]:
    """Nine ``read`` steps, then a short text answer."""
    steps = [
        completion(
            tool_calls=[ToolCallSpec(id=f"r{i}", name="read", arguments='{"file_path":"f.txt"}')],
            usage=USAGE,
        )
        for i in range(STEPS - 1)
    ]
    return [*steps, completion(text="done", usage=USAGE)]


class Proxy:
    """Forwards one port to the scripted server and timestamps the traffic."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.request_starts: list[float] = []
        self.first_sse: list[float] = []
        self.response_ends: list[float] = []
        self.port = 0

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        async with await anyio.create_tcp_listener(local_host="127.0.0.1") as listener:
            self.port = listener.extra(anyio.abc.SocketAttribute.local_port)
            task_status.started()
            await listener.serve(self._connection)

    async def _connection(self, client: SocketStream) -> None:
        # A side closing early (a reader that gives up draining) ends the other side too.
        with contextlib.suppress(
            OSError, anyio.BrokenResourceError, anyio.ClosedResourceError, ExceptionGroup
        ):
            await self._forward(client)

    async def _forward(self, client: SocketStream) -> None:
        async with client, await anyio.connect_tcp("127.0.0.1", self.upstream) as upstream:
            waiting = [True]  # a request may start (no response in flight)

            async def up() -> None:
                async for data in client:
                    if waiting[0]:
                        self.request_starts.append(time.perf_counter())
                        waiting[0] = False
                    await upstream.send(data)
                await upstream.send_eof()

            async def down() -> None:
                seen_sse = False
                async for data in upstream:
                    now = time.perf_counter()
                    if not seen_sse and b"data:" in data:
                        self.first_sse.append(now)
                        seen_sse = True
                    if b"data: [DONE]" in data:
                        self.response_ends.append(now)
                        seen_sse = False
                        waiting[0] = True
                    await client.send(data)

            async with anyio.create_task_group() as group:
                group.start_soon(up)
                group.start_soon(down)


@asynccontextmanager
async def model_server(responses: Sequence[ScriptedResponse], root: Path) -> AsyncIterator[Proxy]:
    """A scripted server child process (coalesced writes) behind a timestamping proxy."""
    script = root / f"script-{time.monotonic_ns()}.json"
    script.write_text(json.dumps(script_to_json(list(responses))), encoding="utf-8")
    command = [sys.executable, "-m", "dsh_lsp.testing.scripted_server", "--script", str(script)]
    process = await anyio.open_process(
        [*command, "--coalesce", "--cycle"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    try:
        proxy = Proxy(await announced_port(process, SCRIPTED_PORT_LINE))
        async with anyio.create_task_group() as group:
            await group.start(proxy.serve)
            yield proxy
            group.cancel_scope.cancel()
    finally:
        process.terminate()
        await process.wait()


class Lsp:
    """One ``python -m dsh_lsp`` process and a pygls client with timestamped updates."""

    def __init__(self) -> None:
        self.client = LanguageClient("bench", "1", converter_factory=dict_params_converter)
        self.updates: list[tuple[float, str, Json]] = []
        self.startup = 0.0

        @self.client.feature("dsh/session/update")  # type: ignore[untyped-decorator]  # pygls
        def on_update(ls: LanguageClient, params: Json) -> None:
            self.updates.append((time.perf_counter(), params["sessionId"], params["update"]))

    async def start(self, command: Sequence[str], env: dict[str, str]) -> float:
        """Spawn and initialize; returns seconds from spawn to the ``initialize`` answer."""
        started = time.perf_counter()
        await self.client.start_io(*command, env=env)
        caps = types.ClientCapabilities(
            experimental={"dsh": {"version": 1, "sessionUpdates": True, "permissions": True}}
        )
        folder = env["BENCH_WORKSPACE"]
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=caps,
                workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(folder), name="w")],
            )
        )
        elapsed = time.perf_counter() - started
        self.client.initialized(types.InitializedParams())
        return elapsed

    @property
    def pid(self) -> int:
        assert self.client._server is not None
        return self.client._server.pid

    async def call(self, method: str, params: Json) -> Json:
        return await self.client.protocol.send_request_async(method, params)

    async def new_session(self) -> str:
        return str((await self.call("dsh/session/new", {}))["sessionId"])

    async def started(self) -> None:
        """Until the start-up finished (``dsh/status`` waits for it; a first
        ``dsh/session/new`` is answered while the server still loads)."""
        await self.call("dsh/status", {})

    async def prompt(self, session: str) -> tuple[float, float, Json]:
        """(sent, answered, result)."""
        sent = time.perf_counter()
        result = await self.call(
            "dsh/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
        )
        return sent, time.perf_counter(), result

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()  # type: ignore[no-untyped-call]  # pygls


@asynccontextmanager
async def running(command: Sequence[str], root: Path, proxy: Proxy) -> AsyncIterator[Lsp]:
    """A started server (``command``) for the scope of the block; shut down after it."""
    lsp = Lsp()
    lsp.startup = await lsp.start(command, environment(root, proxy.port))
    try:
        yield lsp
    finally:
        await lsp.stop()


OURS = (sys.executable, "-m", "dsh_lsp")


def rss(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of ``pid`` in MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def environment(root: Path, proxy_port: int) -> dict[str, str]:
    workspace = root / "workspace"
    workspace.mkdir(exist_ok=True)
    (workspace / "f.txt").write_text("line one\nline two\n", encoding="utf-8")
    return dict(
        os.environ,
        DEEPSEEK_BASE_URL=f"http://127.0.0.1:{proxy_port}",
        DEEPSEEK_API_KEY="bench-key",
        XDG_STATE_HOME=str(root / "state"),
        BENCH_WORKSPACE=str(workspace),
    )


async def raw_stream(base_url: str, count: int = 1) -> float:
    """Seconds for ``count`` POSTs whose streams bare httpx reads in sequence, each up to
    ``[DONE]`` and then to the end of the body, as the adapter does, so that one kept-alive
    connection serves them all."""
    async with httpx.AsyncClient(timeout=60) as http:
        started = time.perf_counter()
        for _ in range(count):
            async with http.stream("POST", base_url + "/chat/completions", content=b"{}") as r:
                done = False
                async for text in r.aiter_lines():  # after [DONE]: drain what remains
                    done = done or text == "data: [DONE]"
                assert done, "the stream ended without [DONE]"
        return time.perf_counter() - started


def wall(command: Sequence[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def line(label: str, value: str, baseline: str) -> None:
    print(f"  {label:<44} {value:>14}   baseline {baseline}")


async def cold_start(root: Path, rounds: int) -> None:
    print(f"cold start (spawn → initialize answered), best of {rounds}")
    bare_server = (sys.executable, str(bare_file(root)))
    ours, bare, ready, booted = [], [], [], []
    async with model_server([text_answer(1)], root) as proxy:
        for _ in range(rounds):
            async with running(OURS, root, proxy) as lsp:
                ours.append(lsp.startup)
                started = time.perf_counter()
                await lsp.new_session()
                ready.append(time.perf_counter() - started)
                await lsp.started()
                booted.append(time.perf_counter() - started)
            async with running(bare_server, root, proxy) as lsp:
                bare.append(lsp.startup)
    line("dsh-lsp initialize answered", ms(min(ours)), f"bare pygls {ms(min(bare))}")
    py = sys.executable
    parts = {
        "python startup (-c pass)": [py, "-c", "pass"],
        "import lsprotocol.types": [py, "-c", "import lsprotocol.types"],
        "import pygls.lsp.server": [py, "-c", "import pygls.lsp.server"],
        "import dsh_lsp.server.handlers (after the answer)": [
            py,
            "-c",
            "import dsh_lsp.server.handlers",
        ],
        "import dsh_lsp.app (all layers, after the answer)": [py, "-c", "import dsh_lsp.app"],
        "dsh-lsp --version": [py, "-m", "dsh_lsp", "--version"],
    }
    for label, command in parts.items():
        best = min(wall(command) for _ in range(rounds))
        line(f"  of which {label}", ms(best), "(process wall time)")
    line("after initialize: first session answered", ms(min(ready)), "(while loading)")
    line("after initialize: start-up finished", ms(min(booted)), "(plugins loaded)")


def bare_file(root: Path) -> Path:
    path = root / "bare.py"
    path.write_text(BARE_SERVER, encoding="utf-8")
    return path


def ms(seconds: float, digits: int = 0) -> str:
    return f"{seconds * 1000:.{digits}f} ms"


def model_time(proxy: Proxy, first: int, count: int) -> float:
    """Seconds the model spent on requests ``first``..``first + count``: from each request's
    first byte to its ``[DONE]``, as the proxy saw them."""
    starts = proxy.request_starts[first : first + count]
    ends = proxy.response_ends[first : first + count]
    return sum(end - start for start, end in zip(starts, ends, strict=True))


async def turn_overhead(root: Path) -> None:
    print("200-chunk turn (prompt → answer), best of 5 warm turns")
    async with model_server([text_answer(200)], root) as proxy:
        async with running(OURS, root, proxy) as lsp:
            await lsp.prompt(await lsp.new_session())  # warm-up
            turns, overheads = [], []
            for _ in range(5):
                session = await lsp.new_session()
                mark = len(proxy.request_starts)
                sent, done, _ = await lsp.prompt(session)
                turns.append(done - sent)
                overheads.append(done - sent - model_time(proxy, mark, 1))
        raw = min([await raw_stream(f"http://127.0.0.1:{proxy.port}") for _ in range(5)])
    line("turn", ms(min(turns), 1), f"bare httpx stream {ms(raw, 1)}")
    line("harness overhead (turn minus model time)", ms(min(overheads), 1), "")


async def ten_steps(root: Path) -> None:
    print(f"{STEPS}-step read-tool turn (first prompt of the process, then 5 warm turns)")
    async with model_server(read_turn(), root) as proxy:
        raw = min([await raw_stream(f"http://127.0.0.1:{proxy.port}", STEPS) for _ in range(3)])
        overheads, gaps = [], []
        async with running(OURS, root, proxy) as lsp:
            await lsp.started()  # the first prompt of a started process, not the start-up
            for _ in range(6):
                session = await lsp.new_session()
                mark = len(proxy.request_starts)
                sent, done, result = await lsp.prompt(session)
                assert result["stopReason"] == "end_turn", result
                starts = proxy.request_starts[mark : mark + STEPS]
                ends = proxy.response_ends[mark : mark + STEPS]
                overheads.append((done - sent - model_time(proxy, mark, STEPS)) / STEPS)
                gaps.append(
                    statistics.median(b - a for a, b in zip(ends, starts[1:], strict=False))
                )
    line(
        "first: overhead per model request",
        ms(overheads[0], 2),
        f"bare httpx {ms(raw / STEPS, 2)}/response",
    )
    line("first: step gap (median)", ms(gaps[0], 2), "")
    warm, warm_gaps = overheads[1:], gaps[1:]
    line(
        "warm: overhead per model request (median)",
        ms(statistics.median(warm), 2),
        f"best {ms(min(warm), 2)}, {statistics.median(warm) / (raw / STEPS):.2f}x bare httpx",
    )
    line(
        "warm: step gap (median)",
        ms(statistics.median(warm_gaps), 2),
        f"best {ms(min(warm_gaps), 2)}",
    )


async def big_stream(root: Path) -> None:
    print("5,000-chunk stream, best of 3")
    async with model_server([text_answer(5000)], root) as proxy:
        async with running(OURS, root, proxy) as lsp:
            await lsp.new_session()
            await lsp.started()
            idle = rss(lsp.pid)
            rates, latencies = [], []
            for _ in range(3):
                session = await lsp.new_session()
                mark, count = len(proxy.first_sse), len(lsp.updates)
                _, done, _ = await lsp.prompt(session)
                first_byte = proxy.first_sse[mark]
                first_update = next(
                    t for t, _, u in lsp.updates[count:] if u["kind"] == "agent_message_chunk"
                )
                rates.append(5000 / (done - first_byte))
                latencies.append(first_update - first_byte)
            after = rss(lsp.pid)
        raw = min([await raw_stream(f"http://127.0.0.1:{proxy.port}") for _ in range(3)])
        async with running((sys.executable, str(bare_file(root))), root, proxy) as bare:
            bare_rss = rss(bare.pid)
    line("end-to-end rate", f"{max(rates):,.0f} chunks/s", f"bare httpx {5000 / raw:,.0f} chunks/s")
    line("first SSE byte → first update", ms(min(latencies), 2), "")
    print("peak RSS (VmHWM)")
    line(
        "idle (session open, plugins loaded)",
        f"{idle[1]:.1f} MiB",
        f"bare pygls {bare_rss[1]:.1f} MiB",
    )
    line(
        "after 3 x 5,000-chunk turns",
        f"{after[1]:.1f} MiB",
        f"+{after[1] - idle[1]:.1f} MiB over idle",
    )


async def concurrent(root: Path) -> None:
    print("10 concurrent sessions x 500 chunks")
    async with model_server([text_answer(500)], root) as proxy:
        async with running(OURS, root, proxy) as lsp:
            sessions = [await lsp.new_session() for _ in range(10)]
            await lsp.started()
            started = time.perf_counter()
            async with anyio.create_task_group() as group:
                for session in sessions:
                    group.start_soon(lsp.prompt, session)
            elapsed = time.perf_counter() - started
        raw_started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for _ in range(10):
                group.start_soon(raw_stream, f"http://127.0.0.1:{proxy.port}")
        raw = time.perf_counter() - raw_started
    line("all 10 turns", ms(elapsed), f"10 bare httpx streams {ms(raw)}")
    line("aggregate rate", f"{5000 / elapsed:,.0f} chunks/s", f"{5000 / raw:,.0f} chunks/s")


BLOCKS = {
    "cold": "cold start",
    "turn": "200-chunk turn",
    "steps": f"{STEPS}-step read-tool turn",
    "stream": "5,000-chunk stream and peak RSS",
    "concurrent": "10 concurrent sessions",
}


async def main(rounds: int, only: Sequence[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-bench-") as tmp:
        root = Path(tmp)
        chosen = set(only or BLOCKS)
        if "cold" in chosen:
            await cold_start(root, rounds)
        if "turn" in chosen:
            await turn_overhead(root)
        if "steps" in chosen:
            await ten_steps(root)
        if "stream" in chosen:
            await big_stream(root)
        if "concurrent" in chosen:
            await concurrent(root)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="cold-start repetitions")
    parser.add_argument(
        "--only",
        action="append",
        choices=tuple(BLOCKS),
        default=[],
        help="run only this block (repeatable): "
        + ", ".join(f"{key} ({label})" for key, label in BLOCKS.items()),
    )
    arguments = parser.parse_args()
    anyio.run(main, arguments.rounds, arguments.only, backend="asyncio")
