"""Test helpers: a fake clock and event sequences shaped like real agent turns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dsh_lsp.llm import (
    CallId,
    Message,
    PluginSource,
    SessionId,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolResultBlock,
    UserSource,
)
from dsh_lsp.session import (
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    CONTEXT_MESSAGE,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
    Session,
    SessionHeader,
    assistant_chunk_data,
    assistant_message_data,
    context_message_data,
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


@dataclass(slots=True)
class FakeClock:
    """A clock that moves only when told to (milliseconds); each read ticks by ``step``."""

    now: int = 1_700_000_000_000
    step: int = 1

    def __call__(self) -> int:
        value = self.now
        self.now += self.step
        return value


def new_session(session_id: str = "s-1", *, clock: FakeClock | None = None) -> Session:
    """An empty session with a fake clock."""
    clock = clock or FakeClock()
    header = SessionHeader(id=SessionId(session_id), created_at=clock.now, cwd="/work")
    return Session(header, clock=clock)


def complete_turn(session: Session, text: str = "hello") -> None:
    """Log one finished turn: a tool call and its result, then a final answer."""
    turn = session.last_turn() + 1
    session.append(TURN_START, turn_start_data(turn, message_trigger(UserSource())))
    session.append(
        USER_MESSAGE, user_message_data([TextBlock(text=text)], UserSource()), surface_op="append"
    )
    session.append(STEP_START, step_start_data(turn, 1))
    chunk = session.append(
        ASSISTANT_CHUNK, assistant_chunk_data(turn, 1, TextDelta(index=0, text="ok"))
    )
    call_id = CallId(f"call-{turn}")
    call = ToolCallBlock(id=call_id, name="read", arguments='{"path":"a.txt"}')
    session.append(
        ASSISTANT_MESSAGE,
        assistant_message_data(
            turn, 1, [TextBlock(text="ok"), call], TokenUsage(input_tokens=3, output_tokens=2)
        ),
        source_event_seqs=[chunk.seq],
        surface_op="append",
    )
    tool_call = session.append(TOOL_CALL, tool_call_data(turn, 1, call_id, "read", call.arguments))
    session.append(
        TOOL_RESULT,
        tool_result_data(turn, 1, call_id, [TextBlock(text="contents")]),
        source_event_seqs=[tool_call.seq],
        surface_op="append",
    )
    session.append(STEP_END, step_end_data(turn, 1))
    session.append(STEP_START, step_start_data(turn, 2))
    session.append(
        ASSISTANT_MESSAGE,
        assistant_message_data(turn, 2, [TextBlock(text=f"done {turn}")]),
        surface_op="append",
    )
    session.append(STEP_END, step_end_data(turn, 2))
    session.append(TURN_END, turn_end_data(turn, end_reason("completed")))


def open_turn_with_calls(session: Session) -> tuple[CallId, ...]:
    """Start a turn whose step asked for three tools; answer only the first.

    Returns the ids of the two unanswered calls. The turn and its step stay open.
    """
    turn = session.last_turn() + 1
    session.append(TURN_START, turn_start_data(turn, message_trigger(UserSource())))
    session.append(
        USER_MESSAGE, user_message_data([TextBlock(text="go")], UserSource()), surface_op="append"
    )
    session.append(
        CONTEXT_MESSAGE,
        context_message_data([TextBlock(text="hook says hi")], PluginSource(plugin="hooks")),
        surface_op="append",
    )
    session.append(STEP_START, step_start_data(turn, 1))
    ids = tuple(CallId(f"t{turn}-{n}") for n in range(3))
    calls = [ToolCallBlock(id=i, name="read", arguments="{}") for i in ids]
    session.append(ASSISTANT_MESSAGE, assistant_message_data(turn, 1, calls), surface_op="append")
    first = session.append(TOOL_CALL, tool_call_data(turn, 1, ids[0], "read", "{}"))
    session.append(
        TOOL_RESULT,
        tool_result_data(turn, 1, ids[0], [TextBlock(text="r0")]),
        source_event_seqs=[first.seq],
        surface_op="append",
    )
    session.append(TOOL_CALL, tool_call_data(turn, 1, ids[1], "read", "{}"))
    session.append(TOOL_CALL, tool_call_data(turn, 1, ids[2], "read", "{}"))
    return ids[1:]


def open_turn_torn_after_message(session: Session, logged: int) -> tuple[CallId, ...]:
    """Start a turn whose step asked for three tools, as a crash after the assistant message
    leaves it: only the first ``logged`` calls have a ``tool/call``, none has a result.

    Returns the ids of the three calls. The turn and its step stay open.
    """
    turn = session.last_turn() + 1
    session.append(TURN_START, turn_start_data(turn, message_trigger(UserSource())))
    session.append(
        USER_MESSAGE, user_message_data([TextBlock(text="go")], UserSource()), surface_op="append"
    )
    session.append(STEP_START, step_start_data(turn, 1))
    ids = tuple(CallId(f"t{turn}-{n}") for n in range(3))
    calls = [ToolCallBlock(id=i, name="read", arguments=f'{{"n":{n}}}') for n, i in enumerate(ids)]
    session.append(
        ASSISTANT_MESSAGE,
        assistant_message_data(turn, 1, [TextBlock(text="reading"), *calls]),
        surface_op="append",
    )
    for call in calls[:logged]:
        session.append(TOOL_CALL, tool_call_data(turn, 1, call.id, call.name, call.arguments))
    return ids


def unanswered_calls(messages: Sequence[Message]) -> set[CallId]:
    """Ids of the tool calls in ``messages`` that no tool result answers."""
    calls = {b.id for m in messages for b in m.content if isinstance(b, ToolCallBlock)}
    results = {
        b.tool_call_id for m in messages for b in m.content if isinstance(b, ToolResultBlock)
    }
    return calls - results
