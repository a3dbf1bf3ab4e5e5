"""Benchmark: the agent loop's overhead per model request, and loading a 100,000-event session.

Part 1 runs a 10-step turn (nine steps each calling a read-only in-memory ``read`` tool, then
a text answer) with the model in-process (``ScriptedModel``), through the default plugin set
(invariants included), and reports the time per step. The baseline, measured in the same run,
does the same work with no harness: it streams the same scripted chunks through a
``BlockAssembler`` and calls the same tool function directly. Overhead per step = loop minus
baseline. It runs once without persistence (target: under 1 ms per step) and once with JSONL
persistence and its fsyncs (target: under 3 ms per step): the durable-turns rule awaits a
flush at the turn's opening, before each step's tool calls run and at its end, and writes
behind after each result and step end. In the same run, in alternating rounds, it measures
the rule before durable turns (one flush after the turn closed) and reports the ratio of the
two overheads (target: at most 1.5x).

Part 2 writes a 100,000-event session log, then times ``SessionStore.resume`` (read, parse,
validate, build the session) plus ``derive_messages()`` (target: under 2 s). The baseline is
``json.loads`` of every line of the same file.

Run: ``.venv/bin/python bench/loop.py [--turns 30]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import anyio
import anyio.to_thread

from dsh_lsp.agent import AGENTS, AgentOptions, AgentSpec, AgentsPlugin, InvariantsPlugin
from dsh_lsp.agent_loop import AgentLoopPlugin
from dsh_lsp.kernel import Context, Kernel, Plugin
from dsh_lsp.llm import (
    BlockAssembler,
    CallId,
    JsonObject,
    LlmPlugin,
    LlmRequest,
    SessionId,
    TextBlock,
    ToolCallBlock,
    UserSource,
)
from dsh_lsp.session import (
    SESSION_CREATED,
    SESSION_EVENT,
    SESSION_FLUSH,
    SESSION_PERSISTENCE,
    SESSIONS,
    JsonlPersistencePlugin,
    PersistenceCoordinator,
    PersistenceCoordinatorPlugin,
    Session,
    SessionHeader,
    SessionPlugin,
    assistant_chunk_data,
    assistant_message_data,
    end_reason,
    message_trigger,
    step_end_data,
    step_start_data,
    tool_call_data,
    tool_result_data,
    turn_end_data,
    turn_start_data,
    user_message_data,
)
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import (
    Reply,
    ScriptedModel,
    ScriptedModelPlugin,
    text_reply,
    tool_reply,
)
from dsh_lsp.tools import TOOLS, Prop, ToolExecution, ToolsPlugin, define_tool

STEPS = 10
TARGET_MS = 1.0
TARGET_PERSISTED_MS = 3.0
MAX_DURABLE_RATIO = 1.5
"""Per-step overhead with the durable-turns flushes over that of one flush per turn."""
EVENTS = 100_000
TARGET_LOAD_S = 2.0
FILE_TEXT = "line one\nline two\nline three\n"


def script() -> list[Reply]:
    """Nine read calls, then an answer: one 10-step turn."""
    calls = [
        tool_reply(
            ToolCallSpec(id=f"call_{i}", name="read", arguments='{"path": "src/app.py"}'),
            reasoning="I should read the file.",
        )
        for i in range(STEPS - 1)
    ]
    return [*calls, text_reply("All read.", reasoning="Done.")]


async def read(args: JsonObject, call: ToolExecution) -> list[TextBlock]:
    return [TextBlock(text=FILE_TEXT)]


async def baseline_turn() -> None:
    """The same model chunks and tool calls with no harness around them."""
    model = ScriptedModel(*script())
    for _ in range(STEPS):
        assembler = BlockAssembler()
        async for chunk in model.stream(LlmRequest(model="scripted", messages=())):
            assembler.feed(chunk)
        for block in assembler.result().message.content:
            if isinstance(block, ToolCallBlock):
                call = ToolExecution(call_id=block.id, name=block.name, arguments={})
                await read({"path": "src/app.py"}, call)


class TurnEndFlushPlugin(Plugin[None]):
    """The flush rule before durable turns, for comparison in the same run: the coordinator
    writes only at a flush after the turn closed (one write per turn, none inside it)."""

    name = "bench-turn-end-flush"
    inject = (SESSION_PERSISTENCE,)

    async def apply(self, ctx: Context, config: None) -> None:
        coordinator = PersistenceCoordinator(ctx.require(SESSION_PERSISTENCE))

        async def flush(session: Session) -> None:
            if session.open_turn() is None:
                await coordinator.flush(session)

        ctx.on(SESSION_CREATED, coordinator.track)
        ctx.on(SESSION_EVENT, coordinator.note)
        ctx.on(SESSION_FLUSH, flush)


async def loop_turns(
    turns: int, directory: Path | None, *, turn_end_only: bool = False
) -> list[float]:
    """Seconds per 10-step turn, one fresh agent per turn (creation not timed)."""
    model = ScriptedModel()
    timings: list[float] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(InvariantsPlugin)
        await ctx.plugin(LlmPlugin)
        await ctx.plugin(ScriptedModelPlugin(model))
        await ctx.plugin(SessionPlugin)
        if directory is not None:
            await ctx.plugin(JsonlPersistencePlugin, {"directory": str(directory)})
            await ctx.plugin(TurnEndFlushPlugin if turn_end_only else PersistenceCoordinatorPlugin)
        await ctx.plugin(ToolsPlugin)
        await ctx.plugin(AgentsPlugin)
        await ctx.plugin(AgentLoopPlugin)
        params = {"path": Prop(type="string", required=True)}
        ctx.require(TOOLS).register(
            define_tool("read", "Read a file.", params, read, read_only=True)
        )
        agents = ctx.require(AGENTS)
        for _ in range(turns):
            model.add(*script())
            handle = await agents.create(AgentSpec(options=AgentOptions(model="scripted")))
            start = time.perf_counter()
            handle.agent.send("Read src/app.py ten times.")
            await handle.agent.when_idle()
            timings.append(time.perf_counter() - start)
            assert len(model.requests) % STEPS == 0
            await handle.dispose()
    return timings


async def timed(turns: int, fn: Callable[[], Awaitable[None]]) -> list[float]:
    out = []
    for _ in range(turns):
        start = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - start)
    return out


def big_session() -> Session:
    """A 100,000-event log of 10-step turns shaped like real ones."""
    clock = iter(range(10**9))
    session = Session(
        SessionHeader(id=SessionId("bench-big"), created_at=0, cwd="/work"),
        clock=lambda: next(clock),
    )
    chunks = script()[0].chunks
    turn = 0
    while len(session) < EVENTS:
        turn += 1
        session.append("turn/start", turn_start_data(turn, message_trigger(UserSource())))
        content = (TextBlock(text=f"question {turn}"),)
        session.append(
            "user/message", user_message_data(content, UserSource()), surface_op="append"
        )
        for step in range(1, STEPS + 1):
            if len(session) >= EVENTS - 40:
                break
            session.append("step/start", step_start_data(turn, step))
            assembler = BlockAssembler()
            for chunk in chunks:
                session.append("assistant/chunk", assistant_chunk_data(turn, step, chunk))
                assembler.feed(chunk)
            message = assembler.result().message
            session.append(
                "assistant/message",
                assistant_message_data(turn, step, message.content),
                surface_op="append",
            )
            call_id = CallId(f"c{turn}-{step}")
            session.append("tool/call", tool_call_data(turn, step, call_id, "read", "{}"))
            result = (TextBlock(text=FILE_TEXT),)
            session.append(
                "tool/result",
                tool_result_data(turn, step, call_id, result),
                surface_op="append",
            )
            session.append("step/end", step_end_data(turn, step))
        session.append("turn/end", turn_end_data(turn, end_reason("completed")))
    return session


def _parse_lines(directory: Path) -> None:
    path = next(directory.rglob("*.jsonl"))
    for line in path.read_text(encoding="utf-8").splitlines():
        json.loads(line)


async def load_big(directory: Path) -> tuple[float, float, int]:
    """(resume + derive seconds, json.loads baseline seconds, event count)."""
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin)
        await ctx.plugin(JsonlPersistencePlugin, {"directory": str(directory)})
        persistence = ctx.require(SESSION_PERSISTENCE)
        source = big_session()
        await persistence.create(source.header)
        await persistence.append(source.id, tuple(source.events))
    start = time.perf_counter()
    await anyio.to_thread.run_sync(_parse_lines, directory)
    baseline = time.perf_counter() - start
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin)
        await ctx.plugin(JsonlPersistencePlugin, {"directory": str(directory)})
        start = time.perf_counter()
        session = await ctx.require(SESSIONS).resume(SessionId("bench-big"))
        messages = session.derive_messages()
        elapsed = time.perf_counter() - start
        assert messages
    return elapsed, baseline, len(session)


def report(label: str, loop: Sequence[float], base: Sequence[float], target: float) -> None:
    loop_ms = statistics.median(loop) * 1000 / STEPS
    base_ms = statistics.median(base) * 1000 / STEPS
    overhead = loop_ms - base_ms
    verdict = "ok" if overhead < target else "OVER TARGET"
    print(
        f"{label:<28} {loop_ms:8.3f} ms/step   baseline {base_ms:7.3f} ms/step   "
        f"overhead {overhead:7.3f} ms/step (target < {target} ms: {verdict})"
    )


async def main(turns: int) -> None:
    await loop_turns(3, None)  # warm-up: imports, first-use caches
    base = await timed(turns, baseline_turn)
    memory: list[float] = []
    persisted: list[float] = []
    turn_end: list[float] = []
    rounds = 3  # the three configurations take turns, so load on the machine hits all alike
    for _ in range(rounds):
        memory += await loop_turns(turns // rounds, None)
        with tempfile.TemporaryDirectory() as tmp:
            persisted += await loop_turns(turns // rounds, Path(tmp))
        with tempfile.TemporaryDirectory() as tmp:
            turn_end += await loop_turns(turns // rounds, Path(tmp), turn_end_only=True)
    print(f"10-step read-tool turn, median of {len(memory)} turns")
    report("loop, no persistence", memory, base, TARGET_MS)
    report("loop, JSONL + fsync", persisted, base, TARGET_PERSISTED_MS)
    report("  (flushed at turn end only)", turn_end, base, TARGET_PERSISTED_MS)
    durable = statistics.median(persisted) - statistics.median(base)
    before = statistics.median(turn_end) - statistics.median(base)
    ratio = durable / before
    verdict = "ok" if ratio <= MAX_DURABLE_RATIO else "OVER TARGET"
    print(
        f"durable turns cost {ratio:4.2f}x the overhead of flushing at turn end only"
        f" (target <= {MAX_DURABLE_RATIO}x: {verdict})"
    )
    with tempfile.TemporaryDirectory() as tmp:
        elapsed, baseline, count = await load_big(Path(tmp))
    verdict = "ok" if elapsed < TARGET_LOAD_S else "OVER TARGET"
    print(
        f"load + derive {count:,} events   {elapsed:6.3f} s   "
        f"baseline json.loads per line {baseline:6.3f} s   ratio {elapsed / baseline:5.1f}x "
        f"(target < {TARGET_LOAD_S} s: {verdict})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    anyio.run(main, parser.parse_args().turns, backend="asyncio")
