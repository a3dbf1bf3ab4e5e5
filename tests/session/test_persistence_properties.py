"""Property: any valid event sequence survives store and load byte-identically, on both
backends, and the history derived from the loaded log equals the live one."""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_lsp.llm import CallId, PluginSource, UserSource, dumps_compact
from dsh_lsp.session import (
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    CONTEXT_MESSAGE,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
    JsonlPersistence,
    Session,
    SessionPersistence,
    SqlitePersistence,
    assistant_chunk_data,
    assistant_message_data,
    context_message_data,
    encode_event,
    end_reason,
    header_to_json,
    injection_trigger,
    tool_result_data,
    turn_end_data,
    turn_start_data,
    user_message_data,
)
from tests.llm.strategies import blocks, chunks, usages

from .scenarios import new_session

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
_content = st.lists(blocks, max_size=3)
_steps = st.one_of(
    st.tuples(st.just("note"), st.dictionaries(st.text(), _json, max_size=4)),
    st.tuples(st.just("user"), _content),
    st.tuples(st.just("assistant"), st.tuples(_content, st.none() | usages)),
    st.tuples(st.just("chunk"), chunks),
    st.tuples(st.just("result"), st.tuples(st.text(min_size=1), _content, st.booleans())),
    st.tuples(st.just("context"), st.tuples(_content, st.text())),
)


def _build(steps: list[tuple[str, object]]) -> Session:
    session = new_session("prop-\u00e9/\u2603")
    session.append(TURN_START, turn_start_data(1, injection_trigger()))
    for kind, arg in steps:
        match kind, arg:
            case "note", dict() as data:
                session.append("plugin/note", data)
            case "user", list() as content:
                session.append(
                    USER_MESSAGE, user_message_data(content, UserSource()), surface_op="append"
                )
            case "assistant", (list() as content, usage):
                data = assistant_message_data(1, 1, content, usage)  # type: ignore[arg-type]  # drawn from usages
                session.append(ASSISTANT_MESSAGE, data, surface_op="append")
            case "chunk", chunk:
                session.append(ASSISTANT_CHUNK, assistant_chunk_data(1, 1, chunk))  # type: ignore[arg-type]  # drawn from chunks
            case "result", (str() as call_id, list() as content, bool() as failed):
                data = tool_result_data(1, 1, CallId(call_id), content, is_error=failed)
                session.append(TOOL_RESULT, data, surface_op="append")
            case "context", (list() as content, str() as plugin):
                data = context_message_data(content, PluginSource(plugin=plugin))
                session.append(CONTEXT_MESSAGE, data, surface_op="append")
    session.append(TURN_END, turn_end_data(1, end_reason("completed")))
    return session


async def _round_trip(
    backend: SessionPersistence, reader: SessionPersistence, session: Session, batch: int
) -> list[str]:
    await backend.create(session.header)
    events = list(session.events)
    for start in range(0, len(events), batch):
        await backend.append(session.id, events[start : start + batch])
    loaded = await reader.load(session.id)
    assert loaded.header == session.header
    assert not loaded.repaired
    assert Session(loaded.header, seed=loaded.events).derive_messages() == (
        session.derive_messages()
    )
    return [encode_event(event) for event in loaded.events]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_steps, max_size=12), st.integers(min_value=1, max_value=6))
def test_event_sequences_survive_store_and_load_byte_identically(
    steps: list[tuple[str, object]], batch: int
) -> None:
    session = _build(steps)
    expected = [encode_event(event) for event in session.events]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        jsonl = JsonlPersistence(root / "jsonl")
        lines = anyio.run(_round_trip, jsonl, JsonlPersistence(root / "jsonl"), session, batch)
        assert lines == expected
        (log,) = (root / "jsonl").glob("*/*.jsonl")
        header_line = dumps_compact(header_to_json(session.header))
        assert log.read_text(encoding="utf-8") == "".join(
            line + "\n" for line in [header_line, *expected]
        )

        writer, reader = SqlitePersistence(root / "db"), SqlitePersistence(root / "db")

        async def through_sqlite() -> list[str]:
            try:
                return await _round_trip(writer, reader, session, batch)
            finally:
                await writer.aclose()
                await reader.aclose()

        assert anyio.run(through_sqlite) == expected
