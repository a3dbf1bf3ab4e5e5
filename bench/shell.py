"""Benchmark: the shell tool's overhead, 50 MB of output, and compaction.

1. ``bash`` calls through the tool registry (validation, pipeline, scrubbed environment,
   process group, output buffer, live-output loop) against a bare
   ``subprocess.run(["bash", "-c", …])`` of the same command, in the same run. Target: at
   most 1.3 times the bare call (calls alternate, so both see the same machine load).
2. A command printing 50 MB: wall time and the Python heap's peak while it streams
   (``tracemalloc``): the output buffer keeps head and tail in memory and spills the rest,
   so the peak must stay flat (a few hundred kB), not grow with the output.
3. Compaction of a 200-turn session: region choice, transcript and the log/surface work
   around one summary request (the model answers at once, so this is our share).

Run: ``.venv/bin/python bench/shell.py [--calls 40] [--megabytes 50] [--turns 200]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import cast

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dsh_lsp.agent import Agent, AgentOptions
from dsh_lsp.compact import BasicCompactor
from dsh_lsp.compact.backend import BasicSettings
from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import (
    CallId,
    FinishChunk,
    FinishStop,
    LlmRequest,
    LlmService,
    SessionId,
    StreamChunk,
    TextBlock,
    TextDelta,
    UserSource,
)
from dsh_lsp.session import (
    ASSISTANT_MESSAGE,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
    MessageTrigger,
    Session,
    SessionHeader,
    assistant_message_data,
    end_reason,
    turn_end_data,
    turn_start_data,
    user_message_data,
)
from dsh_lsp.shell import ShellPlugin
from dsh_lsp.tools import TOOLS, ToolExecution, ToolsPlugin

_ids = count()
COMMAND = "echo ok"


async def overhead(root: str, calls: int) -> tuple[list[float], list[float]]:
    """Seconds of each ``bash`` tool call and of each bare ``subprocess.run`` of the same
    command, alternating one of each."""
    tool: list[float] = []
    bare: list[float] = []
    async with Kernel() as kernel:
        await kernel.context.plugin(ToolsPlugin)
        await kernel.context.plugin(ShellPlugin)
        registry = kernel.context.require(TOOLS)
        session = Session(SessionHeader(id=SessionId("bench"), created_at=0, cwd=root))
        for _ in range(calls + 3):
            execution = ToolExecution(
                call_id=CallId(f"c{next(_ids)}"),
                name="bash",
                arguments={"command": COMMAND, "description": "bench"},
                session=session,
            )
            began = time.perf_counter()
            outcome = await registry.execute(execution)
            tool.append(time.perf_counter() - began)
            assert not outcome.result.is_error
            began = time.perf_counter()
            subprocess.run(["bash", "-c", COMMAND], cwd=root, capture_output=True, check=True)  # noqa: ASYNC221
            bare.append(time.perf_counter() - began)
    return tool[3:], bare[3:]


async def big_output(root: str, megabytes: int) -> tuple[float, int, int]:
    """Seconds, bytes seen and the heap's peak (bytes) while a command prints ``megabytes``."""
    size = megabytes * 1_000_000
    command = f"head -c {size} /dev/zero | tr '\\0' 'a'"
    async with Kernel() as kernel:
        await kernel.context.plugin(ToolsPlugin)
        await kernel.context.plugin(ShellPlugin)
        registry = kernel.context.require(TOOLS)
        session = Session(SessionHeader(id=SessionId("big"), created_at=0, cwd=root))
        execution = ToolExecution(
            call_id=CallId("big"),
            name="bash",
            arguments={"command": command, "description": "bench"},
            session=session,
        )
        tracemalloc.start()
        began = time.perf_counter()
        outcome = await registry.execute(execution)
        elapsed = time.perf_counter() - began
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    meta = outcome.result.meta or {}
    total = meta.get("bytes")
    return elapsed, total if isinstance(total, int) else -1, peak


class _InstantModel:
    """Answers every request with a short checkpoint at once."""

    def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        async def chunks() -> AsyncIterator[StreamChunk]:
            yield TextDelta(index=0, text="CHECKPOINT: goal, files, state, next.")
            yield FinishChunk(reason=FinishStop())

        return chunks()


@dataclass
class _Agent:
    session: Session
    options: AgentOptions


def long_session(turns: int) -> Session:
    """A session of ``turns`` closed turns, each a prompt and a 2 kB answer."""
    session = Session(SessionHeader(id=SessionId("long"), created_at=0, cwd="/w"))
    for turn in range(1, turns + 1):
        session.append(TURN_START, turn_start_data(turn, MessageTrigger(source=UserSource())))
        content = (TextBlock(text=f"prompt {turn}"),)
        session.append(USER_MESSAGE, user_message_data(content, UserSource()), surface_op="append")
        answer = (TextBlock(text=f"answer {turn} " + "x" * 2000),)
        session.append(
            ASSISTANT_MESSAGE, assistant_message_data(turn, 1, answer), surface_op="append"
        )
        session.append(TURN_END, turn_end_data(turn, end_reason("completed")))
    return session


async def compaction(turns: int) -> tuple[float, int, int]:
    """Seconds of one compaction of a ``turns``-turn session, tokens before and after."""
    compactor = BasicCompactor(
        cast(LlmService, _InstantModel()),
        BasicSettings(
            threshold_ratio=0.8,
            retain_tokens=8000,
            chars_per_token=4.0,
            summary_max_tokens=4000,
            windows={},
            default_window=128_000,
            summary_model=None,
        ),
    )
    agent = cast(Agent, _Agent(session=long_session(turns), options=AgentOptions(model="m")))
    began = time.perf_counter()
    outcome = await compactor.compact_now(agent)
    return time.perf_counter() - began, outcome.tokens_before, outcome.tokens_after


async def run(args: argparse.Namespace) -> None:
    """Run the three measurements and print them."""
    with tempfile.TemporaryDirectory(prefix="dsh-bench-shell-") as root:
        tool, bare = await overhead(root, args.calls)
        tool_median, tool_best = statistics.median(tool), min(tool)
        bare_median, bare_best = statistics.median(bare), min(bare)
        ratio = tool_median / bare_median
        print(f"== {args.calls} calls of `{COMMAND}` (median / best)")
        print(f"bash tool        {tool_median * 1000:7.2f} ms / {tool_best * 1000:6.2f} ms")
        print(f"subprocess.run   {bare_median * 1000:7.2f} ms / {bare_best * 1000:6.2f} ms")
        verdict = "ok" if ratio <= 1.3 else "ABOVE TARGET"
        print(f"overhead         {ratio:7.2f}x (target <= 1.3x: {verdict})")
        print(
            f"overhead, best   {tool_best / bare_best:7.2f}x (the machine's load affects it least)"
        )
        seconds, total, peak = await big_output(root, args.megabytes)
        rate = total / seconds / 1e6
        print(f"\n== a command printing {args.megabytes} MB")
        print(f"wall time        {seconds:7.2f} s ({rate:.0f} MB/s), {total:,} bytes seen")
        print(f"Python heap peak {peak / 1e6:7.2f} MB while streaming (flat: head+tail only)")
    seconds, before, after = await compaction(args.turns)
    print(f"\n== compaction of a {args.turns}-turn session (instant model)")
    print(f"time             {seconds * 1000:7.1f} ms, ~{before:,} -> ~{after:,} tokens")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--megabytes", type=int, default=50)
    parser.add_argument("--turns", type=int, default=200)
    anyio.run(run, parser.parse_args())


if __name__ == "__main__":
    main()
