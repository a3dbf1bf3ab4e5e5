"""Session.append validation, push-then-notify, seeds, and the turn helpers read from the log."""

from __future__ import annotations

import math

import pytest

from dsh_lsp.llm import CallId, SessionId, TextBlock, UserSource
from dsh_lsp.session import (
    STEP_START,
    TOOL_RESULT,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
    Session,
    SessionError,
    SessionEvent,
    SessionHeader,
    SurfaceReplace,
    completed_prefix,
    end_reason,
    injection_trigger,
    turn_end_data,
    turn_start_data,
    user_message_data,
)

from .scenarios import FakeClock, complete_turn, new_session, open_turn_with_calls

USER = user_message_data([TextBlock(text="hi")], UserSource())


def test_append_assigns_contiguous_seqs_and_clock_times() -> None:
    clock = FakeClock(now=100, step=10)
    session = new_session(clock=clock)
    first = session.append("note/x", {"n": 1})
    second = session.append(USER_MESSAGE, USER, surface_op="append")
    assert (first.seq, first.time) == (0, 100)
    assert (second.seq, second.time) == (1, 110)
    assert list(session.events) == [first, second]
    assert len(session) == 2


def test_data_is_deep_copied_in() -> None:
    session = new_session()
    data: dict[str, object] = {"items": [1, {"k": "v"}]}
    event = session.append("note/x", data)  # type: ignore[arg-type]  # JSON-shaped dict
    data["items"].append(2)  # type: ignore[attr-defined]  # the caller's list
    assert event.data == {"items": [1, {"k": "v"}]}


@pytest.mark.parametrize(
    ("kind", "data", "kwargs", "message"),
    [
        ("note/x", {"x": math.inf}, {}, r"not lossless JSON: at \$\.x"),
        ("note/x", {"x": (1, 2)}, {}, "tuple is not a JSON type"),
        ("", {}, {}, "non-empty string"),
        (USER_MESSAGE, USER, {}, "needs a surface_op"),
        ("note/x", {}, {"surface_op": "append"}, "may not carry a surface_op"),
        (TURN_START, {"turn": "1"}, {}, "positive integer 'turn'"),
        (TURN_START, {"turn": True}, {}, "positive integer 'turn'"),
        (STEP_START, {"turn": 1}, {}, "positive integer 'step'"),
        (TURN_END, {"turn": 1}, {}, "reason object"),
        (TOOL_RESULT, {"turn": 1, "step": 1, "content": []}, {"surface_op": "append"}, "callId"),
        ("note/x", {}, {"source_event_seqs": [0]}, "must name earlier events"),
        (
            USER_MESSAGE,
            {"content": "hi", "source": {"kind": "user"}},
            {"surface_op": "append"},
            "cannot join the surface",
        ),
        (
            USER_MESSAGE,
            {"content": [{"type": "bogus"}], "source": {}},
            {"surface_op": "append"},
            "cannot join the surface",
        ),
        (
            USER_MESSAGE,
            USER,
            {"surface_op": SurfaceReplace(start=5, end=5)},
            "does not name live surface nodes",
        ),
    ],
)
def test_invalid_appends_are_refused_and_leave_the_log_unchanged(
    kind: str, data: dict[str, object], kwargs: dict[str, object], message: str
) -> None:
    notified: list[SessionEvent] = []
    session = Session(
        SessionHeader(id=SessionId("s"), created_at=0), notify=lambda _, e: notified.append(e)
    )
    with pytest.raises(SessionError, match=message) as caught:
        session.append(kind, data, **kwargs)  # type: ignore[arg-type]  # deliberately invalid
    assert caught.value.code == "SESSION_INVALID_EVENT"
    assert len(session) == 0
    assert notified == []
    assert session.derive_messages() == ()


def test_events_are_logged_before_listeners_run_and_stay_when_one_raises() -> None:
    seen: list[int] = []

    def listener(session: Session, event: SessionEvent) -> None:
        seen.append(len(session))
        assert session.events[-1] is event
        raise RuntimeError("listener broke")

    session = Session(SessionHeader(id=SessionId("s"), created_at=0), notify=listener)
    with pytest.raises(RuntimeError, match="listener broke"):
        session.append(TURN_START, turn_start_data(1, injection_trigger()))
    assert seen == [1]
    assert session.open_turn() == 1


def test_turn_helpers_follow_the_log() -> None:
    session = new_session()
    assert (session.last_turn(), session.open_turn(), session.open_step()) == (0, None, None)
    complete_turn(session)
    assert (session.last_turn(), session.open_turn(), session.open_step()) == (1, None, None)
    assert session.pending_tool_calls() == ()
    pending = open_turn_with_calls(session)
    assert session.last_turn() == 2
    assert session.open_turn() == 2
    assert session.open_step() == (2, 1)
    assert tuple(e.data["callId"] for e in session.pending_tool_calls()) == pending
    session.append(TURN_END, turn_end_data(2, end_reason("aborted", reason="user")))
    assert session.open_turn() is None
    assert session.pending_tool_calls() == ()


def test_idle_injection_turns_count_for_turn_numbers() -> None:
    session = new_session()
    session.append(TURN_START, turn_start_data(1, injection_trigger()))
    session.append(TURN_END, turn_end_data(1, end_reason("completed")))
    assert session.last_turn() + 1 == 2


def test_completed_prefix_stops_at_the_last_turn_end() -> None:
    session = new_session()
    assert completed_prefix(session.events) == ()
    complete_turn(session)
    done = len(session)
    open_turn_with_calls(session)
    prefix = completed_prefix(session.events)
    assert len(prefix) == done
    assert prefix[-1].type == TURN_END
    fork = Session(SessionHeader(id=SessionId("fork"), created_at=0), seed=prefix)
    assert fork.derive_messages() == session.derive_messages()[: len(fork.derive_messages())]
    assert fork.open_turn() is None


def test_seed_is_validated_copied_and_not_announced() -> None:
    source = new_session()
    complete_turn(source)
    notified: list[SessionEvent] = []
    seeded = Session(
        SessionHeader(id=SessionId("copy"), created_at=0),
        seed=source.events,
        notify=lambda _, e: notified.append(e),
        stored_length=3,
    )
    assert list(seeded.events) == list(source.events)
    assert seeded.events[0].data is not source.events[0].data
    assert seeded.derive_messages() == source.derive_messages()
    assert seeded.stored_length == 3
    assert notified == []
    nxt = seeded.append("note/x", {})
    assert nxt.seq == len(source)


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ([SessionEvent(type="note/x", seq=1, time=0, data={})], "seq 1"),
        ([SessionEvent(type="note/x", seq=0, time=0, data={"x": math.nan})], "lossless JSON"),
        ([SessionEvent(type=USER_MESSAGE, seq=0, time=0, data=USER)], "surface_op"),
    ],
)
def test_invalid_seeds_are_refused(seed: list[SessionEvent], message: str) -> None:
    with pytest.raises(SessionError, match=message) as caught:
        Session(SessionHeader(id=SessionId("s"), created_at=0), seed=seed)
    assert caught.value.code == "SESSION_INVALID_SEED"


def test_events_view_is_read_only_and_slices_to_tuples() -> None:
    session = new_session()
    complete_turn(session)
    view = session.events
    assert isinstance(view[1:3], tuple)
    assert view[-1].type == TURN_END
    assert not hasattr(view, "append")
    assert "12 events" in repr(view)


def test_tool_results_answer_calls_by_call_id_only() -> None:
    session = new_session()
    pending = open_turn_with_calls(session)
    turn = session.open_turn()
    assert turn is not None
    session.append(
        TOOL_RESULT,
        {"turn": turn, "step": 1, "callId": CallId("unknown"), "content": [], "isError": False},
        surface_op="append",
    )
    assert tuple(e.data["callId"] for e in session.pending_tool_calls()) == pending
