"""Event and header records: exact round trips, camelCase keys, and precise rejections."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm import JsonValue, SessionId, dumps_compact, loads_strict
from dsh_lsp.session import (
    SessionError,
    SessionEvent,
    SessionHeader,
    SurfaceReplace,
    encode_event,
    event_from_json,
    event_to_json,
    header_from_json,
    header_to_json,
)


def test_event_record_uses_camel_case_and_omits_absent_optionals() -> None:
    plain = SessionEvent(type="turn/start", seq=0, time=5, data={"turn": 1})
    assert encode_event(plain) == '{"type":"turn/start","seq":0,"time":5,"data":{"turn":1}}'
    full = SessionEvent(
        type="user/message",
        seq=3,
        time=6,
        data={"content": []},
        source_event_seqs=(1, 2),
        surface_op=SurfaceReplace(start=0, end=2),
    )
    assert event_to_json(full) == {
        "type": "user/message",
        "seq": 3,
        "time": 6,
        "data": {"content": []},
        "sourceEventSeqs": [1, 2],
        "surfaceOp": {"op": "replace", "start": 0, "end": 2},
    }


@given(
    seq=st.integers(min_value=0),
    time=st.integers(),
    sources=st.none() | st.lists(st.integers()).map(tuple),
    op=st.none()
    | st.just("append")
    | st.builds(SurfaceReplace, start=st.integers(), end=st.integers()),
    text=st.text(),
)
def test_event_records_round_trip(
    seq: int,
    time: int,
    sources: tuple[int, ...] | None,
    op: SurfaceReplace | str | None,
    text: str,
) -> None:
    event = SessionEvent(
        type="x/y",
        seq=seq,
        time=time,
        data={"text": text, "nested": [{"a": None}]},
        source_event_seqs=sources,
        surface_op=op,  # type: ignore[arg-type]  # "append" is the literal SurfaceOp
    )
    line = encode_event(event)
    back = event_from_json(loads_strict(line))
    assert back == event
    assert encode_event(back) == line


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], "not a JSON object"),
        ({"seq": 0, "time": 0, "data": {}}, "'type'"),
        ({"type": "a", "seq": True, "time": 0, "data": {}}, "'seq'"),
        ({"type": "a", "seq": -1, "time": 0, "data": {}}, "'seq'"),
        ({"type": "a", "seq": 0, "time": 1.5, "data": {}}, "'time'"),
        ({"type": "a", "seq": 0, "time": 0, "data": []}, "'data'"),
        ({"type": "a", "seq": 0, "time": 0, "data": {}, "sourceEventSeqs": [True]}, "sourceEvent"),
        ({"type": "a", "seq": 0, "time": 0, "data": {}, "surfaceOp": "prepend"}, "surfaceOp"),
    ],
)
def test_malformed_event_records_are_corrupt(record: object, message: str) -> None:
    with pytest.raises(SessionError, match=message) as caught:
        event_from_json(record)
    assert caught.value.code == "SESSION_CORRUPT"


def test_header_round_trip_and_shape() -> None:
    header = SessionHeader(
        id=SessionId("abc"),
        created_at=7,
        cwd="/w",
        parent_session=SessionId("p"),
        seed_length=4,
        title="t",
    )
    record = header_to_json(header)
    assert dumps_compact(record) == (
        '{"type":"session","version":0,"id":"abc","createdAt":7,"cwd":"/w",'
        '"parentSession":"p","seedLength":4,"title":"t"}'
    )
    assert header_from_json(record) == header
    minimal = SessionHeader(id=SessionId("m"), created_at=1)
    assert header_to_json(minimal) == {"type": "session", "version": 0, "id": "m", "createdAt": 1}
    assert header_from_json(header_to_json(minimal)) == minimal


def test_header_of_another_version_is_refused() -> None:
    with pytest.raises(SessionError, match="version 1 is not supported") as caught:
        header_from_json({"type": "session", "version": 1, "id": "a", "createdAt": 0})
    assert caught.value.code == "SESSION_UNSUPPORTED_VERSION"


@pytest.mark.parametrize(
    "record",
    [
        {"type": "event", "version": 0, "id": "a", "createdAt": 0},
        {"type": "session", "version": 0, "createdAt": 0},
        {"type": "session", "version": 0, "id": "a", "createdAt": "now"},
        {"type": "session", "version": 0, "id": "a", "createdAt": 0, "cwd": 3},
    ],
)
def test_malformed_headers_are_corrupt(record: dict[str, object]) -> None:
    with pytest.raises(SessionError) as caught:
        header_from_json(record)
    assert caught.value.code == "SESSION_CORRUPT"


@given(
    text=st.text(st.characters(exclude_categories=["Cs"])),
    kind=st.sampled_from(["text-delta", "reasoning-delta", "tool-call-delta"]),
    numbers=st.tuples(*[st.integers(min_value=0, max_value=2**70) for _ in range(5)]),
    order=st.booleans(),
)
def test_a_streamed_delta_record_is_the_generic_encoding(
    text: str, kind: str, numbers: tuple[int, int, int, int, int], order: bool
) -> None:
    seq, time, turn, step, index = numbers
    chunk: dict[str, JsonValue] = {"type": kind, "index": index, "text": text}
    data: dict[str, JsonValue] = {"turn": turn, "step": step, "chunk": chunk}
    if order:  # another key order, or another shape, takes the generic path
        data = {"step": step, "turn": turn, "chunk": chunk}
    event = SessionEvent(type="assistant/chunk", seq=seq, time=time, data=data)
    assert encode_event(event) == dumps_compact(event_to_json(event))
    assert event_from_json(loads_strict(encode_event(event))) == event
