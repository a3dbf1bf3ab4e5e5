"""The persistence contract, run against every backend (JSONL and SQLite)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from dsh_lsp.llm import SessionId, TextBlock, ToolResultBlock
from dsh_lsp.session import (
    INTERRUPTED_RESULT_TEXT,
    STEP_END,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    Session,
    SessionError,
    SessionEvent,
    SessionHeader,
    SessionPersistence,
    encode_event,
)

from .backends import Harness
from .scenarios import (
    FakeClock,
    complete_turn,
    new_session,
    open_turn_torn_after_message,
    open_turn_with_calls,
    unanswered_calls,
)


def _lines(events: Sequence[SessionEvent]) -> list[str]:
    return [encode_event(event) for event in events]


async def _store(persistence: SessionPersistence, session: Session, *, batch: int = 5) -> None:
    await persistence.create(session.header)
    events = list(session.events)
    for start in range(0, len(events), batch):
        await persistence.append(session.id, events[start : start + batch])


async def test_round_trip_keeps_header_and_events_byte_identical(harness: Harness) -> None:
    session = new_session("round-trip")
    complete_turn(session)
    complete_turn(session, "again")
    backend = harness.open()
    await _store(backend, session)
    for reader in (backend, harness.open()):
        loaded = await reader.load(session.id)
        assert loaded.header == session.header
        assert _lines(loaded.events) == _lines(session.events)
        assert not loaded.repaired


async def test_nothing_is_written_before_the_first_append(harness: Harness) -> None:
    backend = harness.open()
    header = SessionHeader(id=SessionId("lazy"), created_at=1)
    await backend.create(header)
    await backend.append(header.id, [])
    assert await backend.list() == []
    with pytest.raises(SessionError) as caught:
        await harness.open().load(header.id)
    assert caught.value.code == "SESSION_NOT_FOUND"
    await backend.append(header.id, [SessionEvent(type="note/x", seq=0, time=2, data={})])
    assert [s.header for s in await backend.list()] == [header]


async def test_a_stored_id_cannot_be_created_again(harness: Harness) -> None:
    session = new_session("taken")
    complete_turn(session)
    await _store(harness.open(), session)
    for backend in (harness.open(), harness.open()):
        with pytest.raises(SessionError) as caught:
            await backend.create(session.header)
        assert caught.value.code == "SESSION_EXISTS"


async def test_two_creators_race_and_only_the_first_append_wins(harness: Harness) -> None:
    first, second = harness.open(), harness.open()
    header = SessionHeader(id=SessionId("race"), created_at=1)
    await first.create(header)
    await second.create(header)
    event = SessionEvent(type="note/x", seq=0, time=2, data={"by": "first"})
    await first.append(header.id, [event])
    with pytest.raises(SessionError) as caught:
        await second.append(header.id, [SessionEvent(type="note/x", seq=0, time=3, data={})])
    assert caught.value.code == "SESSION_EXISTS"
    assert _lines((await harness.open().load(header.id)).events) == _lines([event])


@pytest.mark.parametrize("first_seq", [0, 4, 6])
async def test_appends_must_continue_at_the_stored_count(harness: Harness, first_seq: int) -> None:
    session = new_session("seq")
    complete_turn(session)
    backend = harness.open()
    await backend.create(session.header)
    await backend.append(session.id, session.events[:5])
    with pytest.raises(SessionError) as caught:
        await backend.append(session.id, session.events[first_seq : first_seq + 2])
    assert caught.value.code == "SESSION_SEQ_MISMATCH"
    gap = (session.events[5], session.events[7])
    with pytest.raises(SessionError) as caught:
        await backend.append(session.id, gap)
    assert caught.value.code == "SESSION_SEQ_MISMATCH"
    await backend.append(session.id, session.events[5:])
    assert _lines((await harness.open().load(session.id)).events) == _lines(session.events)


@pytest.mark.parametrize(
    "data",
    [{"x": math.nan}, {"x": (1,)}, {"x": "\ud800"}, {1: "int key"}],
)
async def test_non_json_data_is_rejected_and_nothing_is_stored(
    harness: Harness, data: dict[object, object]
) -> None:
    session = new_session("json")
    complete_turn(session)
    backend = harness.open()
    await _store(backend, session)
    bad = SessionEvent(type="note/x", seq=len(session), time=9, data=data)  # type: ignore[arg-type]  # deliberately not JSON
    with pytest.raises(SessionError) as caught:
        await backend.append(session.id, [bad])
    assert caught.value.code == "SESSION_INVALID_EVENT"
    assert len((await harness.open().load(session.id)).events) == len(session)


async def test_appending_to_an_unknown_session_fails(harness: Harness) -> None:
    with pytest.raises(SessionError) as caught:
        await harness.open().append(SessionId("ghost"), [])
    assert caught.value.code == "SESSION_NOT_FOUND"


async def test_a_new_instance_continues_a_stored_log(harness: Harness) -> None:
    session = new_session("continue")
    complete_turn(session)
    await _store(harness.open(), session)
    before = len(session)
    complete_turn(session, "more")
    await harness.open().append(session.id, session.events[before:])
    assert _lines((await harness.open().load(session.id)).events) == _lines(session.events)


async def test_a_torn_tail_after_the_last_turn_end_is_cut(harness: Harness) -> None:
    session = new_session("torn")
    complete_turn(session)
    await _store(harness.open(), session)
    harness.tear_tail(session.id, '{"type":"turn/start","seq":')
    loaded = await harness.open().load(session.id)
    assert loaded.repaired
    assert _lines(loaded.events) == _lines(session.events)
    again = await harness.open().load(session.id)
    assert not again.repaired
    assert _lines(again.events) == _lines(session.events)


async def test_damage_after_the_last_turn_end_is_a_torn_tail(harness: Harness) -> None:
    session = new_session("tail")
    complete_turn(session)
    done = len(session)
    open_turn_with_calls(session)
    await _store(harness.open(), session)
    harness.damage(session.id, done + 2)
    loaded = await harness.open().load(session.id)
    assert loaded.repaired
    assert _lines(loaded.events[: done + 2]) == _lines(session.events[: done + 2])
    assert [e.type for e in loaded.events[done + 2 :]] == [TURN_END]


@pytest.mark.parametrize("seq", [0, 5, 11])
async def test_corruption_before_the_last_turn_end_names_the_place(
    harness: Harness, seq: int
) -> None:
    session = new_session("broken")
    complete_turn(session)
    complete_turn(session)
    await _store(harness.open(), session)
    harness.damage(session.id, seq)
    with pytest.raises(SessionError) as caught:
        await harness.open().load(session.id)
    assert caught.value.code == "SESSION_CORRUPT"
    assert str(caught.value).startswith(harness.location(session.id, seq) + ":")


async def test_an_interrupted_turn_is_closed_durably(harness: Harness, clock: FakeClock) -> None:
    session = new_session("crashed", clock=clock)
    complete_turn(session)
    pending = open_turn_with_calls(session)
    await _store(harness.open(), session)
    clock.now += 1_000_000  # repairs take the last event's time, not the clock's
    loaded = await harness.open().load(session.id)
    assert loaded.repaired
    assert _lines(loaded.events[: len(session)]) == _lines(session.events)
    closers = loaded.events[len(session) :]
    last = session.events[-1]
    assert [e.type for e in closers] == [TOOL_RESULT, TOOL_RESULT, STEP_END, TURN_END]
    assert all(e.time == last.time for e in closers)
    calls = session.pending_tool_calls()
    for result, call_id, call in zip(closers[:2], pending, calls, strict=True):
        assert result.data["callId"] == call_id
        assert result.data["isError"] is True
        assert result.data["error"] == {"name": "InterruptedError", "code": "interrupted"}
        assert result.source_event_seqs == (call.seq,)
        assert result.surface_op == "append"
    assert closers[2].data == {"turn": 2, "step": 1}
    assert closers[3].data == {"turn": 2, "reason": {"kind": "interrupted"}}
    again = await harness.open().load(session.id)
    assert not again.repaired
    assert _lines(again.events) == _lines(loaded.events)
    resumed = Session(loaded.header, seed=loaded.events)
    assert resumed.open_turn() is None
    results = [
        m.content[0] for m in resumed.derive_messages() if isinstance(m.content[0], ToolResultBlock)
    ]
    assert [r.content for r in results[-2:]] == [(TextBlock(text=INTERRUPTED_RESULT_TEXT),)] * 2
    assert unanswered_calls(resumed.derive_messages()) == set()


async def test_calls_only_in_the_assistant_message_are_answered_durably(
    harness: Harness,
) -> None:
    session = new_session("torn-calls")
    complete_turn(session)
    ids = open_turn_torn_after_message(session, 1)
    await _store(harness.open(), session)
    loaded = await harness.open().load(session.id)
    assert loaded.repaired
    closers = loaded.events[len(session) :]
    assert [e.type for e in closers] == [
        TOOL_CALL, TOOL_CALL, TOOL_RESULT, TOOL_RESULT, TOOL_RESULT, STEP_END, TURN_END
    ]  # fmt: skip
    assert [e.data["callId"] for e in closers[:5]] == [*ids[1:], *ids]
    again = await harness.open().load(session.id)
    assert not again.repaired
    assert _lines(again.events) == _lines(loaded.events)
    resumed = Session.restore(again)
    assert resumed.open_turn() is None
    assert unanswered_calls(resumed.derive_messages()) == set()


async def test_list_reports_headers_newest_first(harness: Harness, clock: FakeClock) -> None:
    backend = harness.open()
    sessions = [new_session(f"s{n}", clock=clock) for n in range(3)]
    stamps: dict[str, int] = {}
    for session in sessions:
        complete_turn(session)
        stamps[session.id] = clock.now
        await _store(backend, session, batch=100)
    older = sessions[0]
    before = len(older)
    complete_turn(older)
    stamps[older.id] = clock.now
    await backend.append(older.id, older.events[before:])
    listed = await harness.open().list()
    assert [s.header.id for s in listed] == ["s0", "s2", "s1"]
    assert [s.header for s in listed] == [
        sessions[0].header,
        sessions[2].header,
        sessions[1].header,
    ]
    assert all(s.updated_at == stamps[s.header.id] for s in listed)


async def test_another_format_version_is_refused(harness: Harness) -> None:
    session = new_session("future")
    complete_turn(session)
    await _store(harness.open(), session)
    harness.set_version(session.id, 1)
    with pytest.raises(SessionError) as caught:
        await harness.open().load(session.id)
    assert caught.value.code == "SESSION_UNSUPPORTED_VERSION"


async def test_unknown_sessions_are_not_found(harness: Harness) -> None:
    with pytest.raises(SessionError) as caught:
        await harness.open().load(SessionId("nobody"))
    assert caught.value.code == "SESSION_NOT_FOUND"


def test_the_fake_clock_ticks() -> None:
    clock = FakeClock(now=5)
    assert (clock(), clock()) == (5, 6)
