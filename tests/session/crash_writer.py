"""A session writer for the crash test, run as a child process and killed with SIGKILL.

Usage: ``python crash_writer.py <jsonl|sqlite> <storage path>``. It loads the session and
persistence plugins into a kernel and logs turns that each span two flushes (so a kill can
land inside an open turn), with large tool results so each write takes a while. Protocol on
stdout, one line each: ``appending <seq>`` right before the backend starts writing a batch,
``flushed <count>`` once a flush returned (everything before ``count`` is durable). The
events are a pure function of the turn number and a counting clock, so the test rebuilds
them with ``expected_session``.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Iterator, Sequence
from itertools import count
from pathlib import Path

import anyio

from dsh_lsp.kernel import Context, Kernel, Plugin
from dsh_lsp.llm import CallId, SessionId, TextBlock, ToolCallBlock, UserSource
from dsh_lsp.session import (
    ASSISTANT_MESSAGE,
    SESSION_FLUSH,
    SESSION_PERSISTENCE,
    SESSIONS,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
    JsonlPersistence,
    LoadedSession,
    PersistenceCoordinatorPlugin,
    Session,
    SessionEvent,
    SessionHeader,
    SessionPersistence,
    SessionPlugin,
    SqlitePersistence,
    StoredSession,
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

SESSION_ID = SessionId("crash")
PAYLOAD = "x" * 2_000_000
"""Size of each tool result: large enough that a write is still running when the kill lands."""


def counting_clock() -> Iterator[int]:
    """The clock both processes use: 1000, 1001, ... (one tick per read)."""
    return count(1000)


def append_half_turn(session: Session, turn: int, half: int) -> None:
    """Log half ``half`` (0: request and call, 1: result and end) of turn ``turn``."""
    call_id = CallId(f"call-{turn}")
    if half == 0:
        session.append(TURN_START, turn_start_data(turn, message_trigger(UserSource())))
        data = user_message_data([TextBlock(text=f"task {turn}")], UserSource())
        session.append(USER_MESSAGE, data, surface_op="append")
        session.append(STEP_START, step_start_data(turn, 1))
        call = ToolCallBlock(id=call_id, name="read", arguments="{}")
        session.append(
            ASSISTANT_MESSAGE, assistant_message_data(turn, 1, [call]), surface_op="append"
        )
        session.append(TOOL_CALL, tool_call_data(turn, 1, call_id, "read", "{}"))
    else:
        result = tool_result_data(turn, 1, call_id, [TextBlock(text=PAYLOAD)])
        session.append(
            TOOL_RESULT, result, source_event_seqs=[len(session) - 1], surface_op="append"
        )
        session.append(STEP_END, step_end_data(turn, 1))
        session.append(TURN_END, turn_end_data(turn, end_reason("completed")))


def expected_session(halves: int) -> Session:
    """The session the writer has logged after ``halves`` half-turns."""
    ticks = counting_clock()
    header = SessionHeader(id=SESSION_ID, created_at=next(ticks), cwd="/crash")
    session = Session(header, clock=lambda: next(ticks))
    for index in range(halves):
        append_half_turn(session, index // 2 + 1, index % 2)
    return session


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Announcing:
    """Wraps a backend and says ``appending <seq>`` before each append starts."""

    def __init__(self, inner: SessionPersistence) -> None:
        self._inner = inner

    async def create(self, header: SessionHeader) -> None:
        await self._inner.create(header)

    async def append(self, session_id: SessionId, events: Sequence[SessionEvent]) -> None:
        say(f"appending {events[0].seq}")
        await self._inner.append(session_id, events)

    async def load(self, session_id: SessionId) -> LoadedSession:
        return await self._inner.load(session_id)

    async def list(self) -> builtins.list[StoredSession]:
        return await self._inner.list()


class AnnouncingPlugin(Plugin[None]):
    name = "announcing-persistence"

    def __init__(self, inner: SessionPersistence) -> None:
        self._inner = inner

    async def apply(self, ctx: Context, config: None) -> None:
        ctx.provide(SESSION_PERSISTENCE, Announcing(self._inner))


async def main(kind: str, storage: Path) -> None:
    backend: SessionPersistence = (
        JsonlPersistence(storage) if kind == "jsonl" else SqlitePersistence(storage)
    )
    ticks = counting_clock()
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin(clock=lambda: next(ticks)))
        await ctx.plugin(AnnouncingPlugin(backend))
        await ctx.plugin(PersistenceCoordinatorPlugin())
        session = ctx.require(SESSIONS).create(session_id=SESSION_ID, cwd="/crash")
        for index in count():
            append_half_turn(session, index // 2 + 1, index % 2)
            await ctx.parallel(SESSION_FLUSH, session)
            say(f"flushed {len(session)}")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], Path(sys.argv[2]))
