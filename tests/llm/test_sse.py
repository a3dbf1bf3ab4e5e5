"""The incremental SSE decoder: framing rules, the reference streams, arbitrary byte splits."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_lsp.llm import SseDecoder

from .reference_streams import TEXT_PAYLOADS, TOOL_CALL_PAYLOADS, sse_bytes


def decode(*pieces: bytes) -> list[str]:
    decoder = SseDecoder()
    events: list[str] = []
    for piece in pieces:
        events.extend(decoder.feed(piece))
    events.extend(decoder.close())
    return events


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(b"data: a\n\n", ["a"], id="lf"),
        pytest.param(b"data: a\r\n\r\n", ["a"], id="crlf"),
        pytest.param(b"data: a\r\rdata: b\r\r", ["a", "b"], id="lone-cr"),
        pytest.param(b"data:a\n\n", ["a"], id="no-space"),
        pytest.param(b"data:  a\n\n", [" a"], id="only-one-space-dropped"),
        pytest.param(b"data: a\ndata: b\n\n", ["a\nb"], id="multi-line-data"),
        pytest.param(b"data\n\n", [""], id="bare-data-field"),
        pytest.param(b": keep-alive\n\ndata: a\n\n", ["a"], id="comment"),
        pytest.param(b"event: x\nid: 3\nretry: 9\ndata: a\n\n", ["a"], id="other-fields"),
        pytest.param(b"event: x\n\n", [], id="event-without-data"),
        pytest.param(b"\n\n\ndata: a\n\n", ["a"], id="leading-blank-lines"),
        pytest.param(b"data: a\n\ndata: b", ["a", "b"], id="unterminated-tail"),
        pytest.param(b"data: a\n", ["a"], id="missing-blank-line"),
        pytest.param("data: héllo ✓\n\n".encode(), ["héllo ✓"], id="utf8"),
        pytest.param(b"data: \xff\n\n", ["\ufffd"], id="invalid-utf8-replaced"),
        pytest.param(b"data: [DONE]\n\n", ["[DONE]"], id="done"),
    ],
)
def test_framing(body: bytes, expected: list[str]) -> None:
    assert decode(body) == expected


def test_split_utf8_sequence_comes_out_whole() -> None:
    body = "data: ✓\n\n".encode()
    cut = body.index(b"\xe2") + 1
    assert decode(body[:cut], body[cut:]) == ["✓"]


def test_crlf_split_between_cr_and_lf() -> None:
    assert decode(b"data: a\r", b"\n\r", b"\n") == ["a"]


def test_events_are_returned_as_soon_as_complete() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert decoder.feed(b"\ndata: b\n\nda") == ["a", "b"]
    assert decoder.feed(b"ta: c\n\n") == ["c"]
    assert decoder.close() == []


@pytest.mark.parametrize("payloads", [TOOL_CALL_PAYLOADS, TEXT_PAYLOADS], ids=["tool", "text"])
def test_reference_streams(payloads: list[str]) -> None:
    assert decode(sse_bytes(payloads)) == payloads


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@settings(deadline=None)  # CI machines are shared: no per-example deadline
@given(
    payloads=st.sampled_from([TOOL_CALL_PAYLOADS, TEXT_PAYLOADS]),
    crlf=st.booleans(),
    cuts=st.lists(st.integers(min_value=0), max_size=40),
)
def test_any_byte_split_gives_the_same_events(
    payloads: list[str], crlf: bool, cuts: list[int]
) -> None:
    body = sse_bytes(payloads)
    if crlf:
        body = body.replace(b"\n", b"\r\n")
    assert decode(*_split(body, cuts)) == payloads


@settings(deadline=None)  # CI machines are shared: no per-example deadline
@given(
    texts=st.lists(
        st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n")), max_size=5
    ),
    cuts=st.lists(st.integers(min_value=0), max_size=20),
)
def test_arbitrary_text_survives_any_split(texts: list[str], cuts: list[int]) -> None:
    body = "".join(f"data: {text}\n\n" for text in texts).encode()
    assert decode(*_split(body, cuts)) == texts
