"""Crash recovery details: the scan's torn/corrupt split, closers, and the bulk loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_lsp.llm import LlmCode, LlmError, UserSource
from dsh_lsp.session import (
    ASSISTANT_CHUNK,
    STEP_END,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    USER_MESSAGE,
    JsonlPersistence,
    LoadedSession,
    Session,
    SessionError,
    SessionEvent,
    encode_event,
    user_message_data,
)
from dsh_lsp.session.recovery import interrupted_turn_closers, scan

from .scenarios import (
    complete_turn,
    new_session,
    open_turn_torn_after_message,
    open_turn_with_calls,
    unanswered_calls,
)


def _texts(session: Session) -> list[str]:
    return [encode_event(event) for event in session.events]


def test_scan_keeps_everything_when_nothing_is_bad() -> None:
    session = new_session()
    complete_turn(session)
    assert scan(_texts(session), str) == list(session.events)


def test_a_bad_record_after_the_last_turn_end_cuts_the_tail() -> None:
    session = new_session()
    complete_turn(session)
    texts = [*_texts(session), '{"type":"note/x","seq":12,"time":0,"data":{}}', "{torn", "[]"]
    kept = scan(texts, str)
    assert [encode_event(e) for e in kept] == texts[:13]


def test_a_bad_record_before_a_good_turn_end_names_its_place() -> None:
    session = new_session()
    complete_turn(session)
    texts = _texts(session)
    texts[3] = texts[3].replace('"seq":3', '"seq":30')
    with pytest.raises(SessionError, match=r"^place 3: expected seq 3, found seq 30;") as caught:
        scan(texts, lambda index: f"place {index}")
    assert caught.value.code == "SESSION_CORRUPT"


def test_known_damage_counts_as_bad_and_bytes_records_decode() -> None:
    session = new_session()
    complete_turn(session)
    texts: list[str | bytes] = [text.encode() for text in _texts(session)]
    assert scan(texts, str) == list(session.events)
    assert len(scan(texts, str, damaged={11: "row stored under seq 99"})) == 11
    with pytest.raises(SessionError, match="row stored under seq 99"):
        scan(texts, str, damaged={2: "row stored under seq 99"})


def test_a_load_checks_a_stored_chunks_envelope_and_decodes_the_chunk_when_read() -> None:
    session = new_session()
    complete_turn(session)
    texts = _texts(session)
    (chunk,) = [event for event in scan(texts, str) if event.type == ASSISTANT_CHUNK]
    assert chunk.payload == session.events[chunk.seq].payload
    after = len(texts)
    record = texts[chunk.seq].replace(f'"seq":{chunk.seq},', f'"seq":{after},')
    odd = record.replace('"text-delta"', '"no-such-chunk"')
    (loaded,) = scan([*texts, odd], str)[after:]
    with pytest.raises(LlmError, match="unknown chunk type") as caught:
        loaded.payload  # noqa: B018
    assert caught.value.code == LlmCode.MALFORMED_RECORD
    no_object = record.replace('{"type":"text-delta","index":0,"text":"ok"}', '"ok"')
    for torn in (record.replace('"step":1', '"step":0'), no_object):
        assert torn != record
        assert len(scan([*texts, torn], str)) == after, torn


def test_no_closers_without_an_open_turn() -> None:
    session = new_session()
    assert interrupted_turn_closers(list(session.events)) == []
    session.append(USER_MESSAGE, user_message_data([], UserSource()), surface_op="append")
    assert interrupted_turn_closers(list(session.events)) == []
    complete_turn(session)
    assert interrupted_turn_closers(list(session.events)) == []


def test_an_open_turn_without_calls_or_step_gets_only_its_end() -> None:
    session = new_session()
    complete_turn(session)
    session.append("turn/start", {"turn": 2, "trigger": {"kind": "injection"}})
    (closer,) = interrupted_turn_closers(list(session.events))
    assert (closer.type, closer.seq) == (TURN_END, len(session))
    assert closer.data == {"turn": 2, "reason": {"kind": "interrupted"}}


async def test_a_tail_torn_inside_a_multibyte_character_is_cut(tmp_path: Path) -> None:
    session = new_session("utf8")
    complete_turn(session)
    backend = JsonlPersistence(tmp_path)
    await backend.create(session.header)
    await backend.append(session.id, session.events[:])
    path = _tear_inside_a_character(tmp_path)
    loaded = await JsonlPersistence(tmp_path).load(session.id)
    assert loaded.repaired
    assert [encode_event(e) for e in loaded.events] == _texts(session)
    assert path.read_bytes().endswith(b"\n")


def _tear_inside_a_character(root: Path) -> Path:
    (path,) = root.glob("*/*.jsonl")
    with path.open("ab") as handle:
        handle.write('{"type":"note/x","data":{"t":"é'.encode()[:-1])
    return path


def test_restore_rebuilds_the_same_session_without_copying() -> None:
    session = new_session()
    complete_turn(session)
    open_turn_with_calls(session)
    loaded = LoadedSession(header=session.header, events=tuple(session.events))
    restored = Session.restore(loaded)
    assert restored.stored_length == len(session)
    assert restored.events[0] is session.events[0]
    assert restored.derive_messages() == session.derive_messages()
    assert restored.pending_tool_calls() == session.pending_tool_calls()
    assert restored.last_turn() == session.last_turn()
    assert restored.append("note/x", {}).seq == len(session)


def test_restore_refuses_misplaced_or_unrenderable_events() -> None:
    header = new_session().header
    misplaced = SessionEvent(type="note/x", seq=1, time=0, data={})
    with pytest.raises(SessionError, match="stored event 0 has seq 1"):
        Session.restore(LoadedSession(header=header, events=(misplaced,)))
    broken = SessionEvent(
        type=USER_MESSAGE, seq=0, time=0, data={"content": 1}, surface_op="append"
    )
    with pytest.raises(SessionError, match="cannot join the surface") as caught:
        Session.restore(LoadedSession(header=header, events=(broken,)))
    assert caught.value.code == "SESSION_INVALID_SEED"


def test_closers_answer_calls_in_order() -> None:
    session = new_session()
    pending = open_turn_with_calls(session)
    closers = interrupted_turn_closers(list(session.events))
    assert [c.data.get("callId") for c in closers[:2]] == list(pending)
    assert closers[0].data["content"] == [
        {"type": "text", "text": "Tool call interrupted before it produced a result."}
    ]


@pytest.mark.parametrize("logged", [0, 1, 3])
def test_closers_log_the_calls_a_crash_left_only_in_the_assistant_message(logged: int) -> None:
    session = new_session()
    complete_turn(session)
    ids = open_turn_torn_after_message(session, logged)
    closers = interrupted_turn_closers(list(session.events))
    new_calls = [c for c in closers if c.type == TOOL_CALL]
    assert [c.data["callId"] for c in new_calls] == list(ids[logged:])
    assert [c.data["arguments"] for c in new_calls] == [f'{{"n":{n}}}' for n in range(logged, 3)]
    assert all(c.source_event_seqs is None and c.surface_op is None for c in new_calls)
    assert all(c.data["step"] == 1 for c in closers if c.type in (TOOL_CALL, TOOL_RESULT))
    results = [c for c in closers if c.type == TOOL_RESULT]
    assert [r.data["callId"] for r in results] == list(ids)
    call_seqs = {
        e.data["callId"]: e.seq for e in (*session.events, *closers) if e.type == TOOL_CALL
    }
    assert [r.source_event_seqs for r in results] == [(call_seqs[i],) for i in ids]
    assert [c.type for c in closers[-2:]] == [STEP_END, TURN_END]
    assert [c.seq for c in closers] == list(range(len(session), len(session) + len(closers)))
    resumed = Session(session.header, seed=(*session.events, *closers))
    assert resumed.open_turn() is None
    assert resumed.pending_tool_calls() == ()
    assert unanswered_calls(resumed.derive_messages()) == set()


async def test_a_tear_after_the_assistant_message_leaves_no_call_unanswered(
    tmp_path: Path,
) -> None:
    session = new_session("torn-calls")
    complete_turn(session)
    open_turn_torn_after_message(session, 1)
    backend = JsonlPersistence(tmp_path)
    await backend.create(session.header)
    await backend.append(session.id, session.events[:])
    _tear_last_record(tmp_path)
    loaded = await JsonlPersistence(tmp_path).load(session.id)
    assert loaded.repaired
    resumed = Session.restore(loaded)
    assert resumed.open_turn() is None
    assert unanswered_calls(resumed.derive_messages()) == set()


def _tear_last_record(root: Path) -> None:
    """Cut the last record of the only log under ``root`` after its first 19 bytes."""
    (path,) = root.glob("*/*.jsonl")
    data = path.read_bytes()
    path.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 20])


async def test_list_skips_files_without_a_valid_header(tmp_path: Path) -> None:
    session = new_session("listed")
    complete_turn(session)
    backend = JsonlPersistence(tmp_path)
    await backend.create(session.header)
    await backend.append(session.id, session.events[:])
    _plant_garbage(tmp_path)
    assert [s.header for s in await JsonlPersistence(tmp_path).list()] == [session.header]


def _plant_garbage(root: Path) -> None:
    bucket = root / "_no-cwd"
    bucket.mkdir()
    (bucket / "garbage.jsonl").write_text("not json\n")
    (bucket / "future.jsonl").write_text('{"type":"session","version":9,"id":"f","createdAt":1}\n')
