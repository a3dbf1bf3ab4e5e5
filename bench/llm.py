"""Benchmark: chunks/s through the DeepSeek adapter + BlockAssembler vs a bare httpx reader.

Both read the same 20,000-event stream from the scripted server, in the same run, over real
sockets. The server runs in a child process (so it does not share the GIL with the readers);
``--in-process`` serves from a thread instead. The bare reader only splits lines
(``aiter_lines``) and counts ``data:`` lines — no SSE decoding, validation or translation —
so the ratio is the adapter's overhead on top of receiving the stream.

Two server modes run one after the other. ``per-event`` writes every event separately, as a
live provider streams (the target applies here). ``coalesced`` packs events into 64 KiB
writes, so reading is pure CPU work and the ratio shows the raw cost of the adapter's
per-event pipeline. Peak memory of one adapter run is measured with tracemalloc (which slows
the code it traces, so it is a separate run).

A third figure, ``sequential``, makes ``--calls`` short calls one after another through one
client — first bare httpx, then the adapter — and reports the latency per call and how many
TCP connections the adapter's calls used (from the server's record of each request's client
port): with keep-alive working they all share one.

    .venv/bin/python bench/llm.py [--events 20000] [--rounds 7] [--calls 50] [--in-process]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx

from dsh_lsp.llm import BlockAssembler, LlmRequest, Message, RetryPolicy, TextBlock
from dsh_lsp.llm.deepseek import DeepSeekAdapter
from dsh_lsp.testing import (
    DONE,
    Event,
    ScriptedServer,
    StreamResponse,
    completion,
    delta_payload,
    script_to_json,
    usage_payload,
    wire_usage,
)

REQUEST = LlmRequest(
    model="bench", messages=(Message(role="user", content=(TextBlock(text="go"),)),)
)


def build_stream(events: int) -> StreamResponse:
    """``events`` SSE events: reasoning, text, one tool call in fragments, usage, [DONE]."""
    body = events - 4  # opener, finish, usage, [DONE]
    reasoning, text = body * 3 // 10, body // 2
    fragments = body - reasoning - text - 1
    steps = [
        Event(data=delta_payload({"role": "assistant", "content": None, "reasoning_content": ""}))
    ]
    steps += [
        Event(data=delta_payload({"content": None, "reasoning_content": f"thought {i} "}))
        for i in range(reasoning)
    ]
    steps += [Event(data=delta_payload({"content": f"word{i} "})) for i in range(text)]
    head = {"index": 0, "id": "call_bench", "type": "function"}
    call = {**head, "function": {"name": "write", "arguments": ""}}
    steps.append(Event(data=delta_payload({"tool_calls": [call]})))
    steps += [
        Event(data=delta_payload({"tool_calls": [{"index": 0, "function": {"arguments": "ab"}}]}))
        for _ in range(fragments)
    ]
    steps.append(Event(data=delta_payload({}, finish_reason="tool_calls")))
    steps.append(Event(data=usage_payload(wire_usage(prompt=100, completion=events, cached=40))))
    steps.append(DONE)
    assert len(steps) == events
    return StreamResponse(steps=tuple(steps))


@contextmanager
def serve(
    stream: StreamResponse, *, in_process: bool, coalesce: bool, record: Path | None = None
) -> Iterator[str]:
    """The base URL of a scripted server answering every request with ``stream``.

    With ``record``, the server appends every request (with its client address) there.
    """
    if in_process:
        with ScriptedServer([stream], cycle=True, coalesce=coalesce, record_to=record) as server:
            yield server.base_url
        return
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(script_to_json([stream])), encoding="utf-8")
        command = [sys.executable, "-m", "dsh_lsp.testing.scripted_server"]
        command += ["--script", str(script), "--cycle"] + (["--coalesce"] if coalesce else [])
        command += [] if record is None else ["--record", str(record)]
        with subprocess.Popen(command, stderr=subprocess.PIPE) as process:
            try:
                assert process.stderr is not None
                port = int(process.stderr.readline().decode().rsplit(" ", 1)[1])
                yield f"http://127.0.0.1:{port}"
            finally:
                process.terminate()
                process.wait(timeout=10)


async def bare_reader(client: httpx.AsyncClient, base_url: str) -> int:
    """Count ``data:`` lines of one response."""
    count = 0
    body = {"model": "bench", "messages": [], "stream": True}
    async with client.stream("POST", f"{base_url}/chat/completions", json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                count += 1
    return count


async def adapter_run(adapter: DeepSeekAdapter) -> int:
    """Stream one call through the adapter into an assembler; return the chunks seen."""
    assembler = BlockAssembler()
    count = 0
    async for chunk in adapter.stream(REQUEST):
        assembler.feed(chunk)
        count += 1
    assembler.result()
    return count


async def measure(base_url: str, events: int, rounds: int, label: str) -> None:
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0)) as client:
        adapter = DeepSeekAdapter(
            client, base_url=base_url, api_key="bench", retry=RetryPolicy(max_retries=0)
        )
        assert await bare_reader(client, base_url) == events  # warm-up and sanity check
        chunks = await adapter_run(adapter)
        bare: list[float] = []
        ours: list[float] = []
        for _ in range(rounds):
            start = time.perf_counter()
            await bare_reader(client, base_url)
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            await adapter_run(adapter)
            ours.append(time.perf_counter() - start)
        tracemalloc.start()
        await adapter_run(adapter)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    bare_rate = events / statistics.median(bare)
    our_rate = events / statistics.median(ours)
    print(f"[{label}] {events} SSE events -> {chunks} harness chunks; median of {rounds} rounds")
    print(f"bare httpx line reader : {bare_rate:>10,.0f} events/s")
    print(
        f"adapter + assembler    : {our_rate:>10,.0f} events/s"
        f"  ({chunks / statistics.median(ours):,.0f} harness chunks/s)"
    )
    print(f"ratio adapter / bare   : {our_rate / bare_rate:>10.1%}  (target >= 70%)")
    print(f"peak traced memory, one adapter run: {peak / 1024:,.0f} KiB")


async def sequential(base_url: str, calls: int) -> tuple[list[float], list[float]]:
    """Per-call seconds of ``calls`` bare reads, then ``calls`` adapter calls, one client."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0)) as client:
        adapter = DeepSeekAdapter(
            client, base_url=base_url, api_key="bench", retry=RetryPolicy(max_retries=0)
        )
        bare: list[float] = []
        ours: list[float] = []
        await bare_reader(client, base_url)  # warm-up: connect once
        for _ in range(calls):
            start = time.perf_counter()
            await bare_reader(client, base_url)
            bare.append(time.perf_counter() - start)
        for _ in range(calls):
            start = time.perf_counter()
            await adapter_run(adapter)
            ours.append(time.perf_counter() - start)
    return bare, ours


def report_sequential(bare: list[float], ours: list[float], record: Path, events: int) -> None:
    lines = record.read_text(encoding="utf-8").splitlines()
    clients = {tuple(json.loads(line)["client"]) for line in lines[-len(ours) :]}

    def ms(samples: list[float]) -> str:
        p90 = statistics.quantiles(samples, n=10)[-1]
        return f"{statistics.median(samples) * 1000:>6.2f} ms/call  (p90 {p90 * 1000:.2f} ms)"

    print(f"[sequential] {len(ours)} short calls ({events} SSE events each), one client")
    print(f"bare httpx, reads to the end : {ms(bare)}")
    print(f"adapter + assembler          : {ms(ours)}")
    extra = (statistics.median(ours) - statistics.median(bare)) * 1000
    print(f"adapter's extra per call     : {extra:>6.2f} ms (difference of the medians)")
    print(f"TCP connections used by the adapter's {len(ours)} calls: {len(clients)}  (target 1)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=50, help="calls in the sequential figure")
    parser.add_argument("--in-process", action="store_true", help="serve from a thread")
    args = parser.parse_args()
    stream = build_stream(args.events)
    for label, coalesce in (("per-event", False), ("coalesced", True)):
        with serve(stream, in_process=args.in_process, coalesce=coalesce) as base_url:
            anyio.run(measure, base_url, args.events, args.rounds, label)
    short = completion(text="ok")
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "requests.jsonl"
        with serve(short, in_process=args.in_process, coalesce=False, record=record) as base_url:
            bare, ours = anyio.run(sequential, base_url, args.calls)
        report_sequential(bare, ours, record, len(short.steps))


if __name__ == "__main__":
    main()
