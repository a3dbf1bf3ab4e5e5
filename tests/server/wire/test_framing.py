"""Base-protocol framing: bodies come out whole and in order however the bytes are split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.server.wire import FrameDecoder, encode_frame
from dsh_lsp.server.wire.framing import MAX_HEADER_BYTES, BadHeader

bodies = st.lists(st.binary(max_size=300), max_size=8)


@given(bodies, st.data())
def test_any_split_of_a_stream_yields_every_body_in_order(
    messages: list[bytes], data: st.DataObject
) -> None:
    stream = b"".join(encode_frame(body) for body in messages)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=12)))
    decoder = FrameDecoder()
    frames = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        frames.extend(decoder.feed(stream[start:end]))
    assert frames == messages


def test_extra_headers_and_header_case_are_accepted() -> None:
    frame = b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{}"
    assert FrameDecoder().feed(frame) == [b"{}"]


def test_a_header_without_content_length_is_reported_and_skipped() -> None:
    stream = b"X-Nothing: 1\r\n\r\n" + encode_frame(b"{}")
    assert FrameDecoder().feed(stream) == [BadHeader(reason="no Content-Length header"), b"{}"]


def test_a_non_numeric_length_is_reported() -> None:
    frames = FrameDecoder().feed(b"Content-Length: ten\r\n\r\n" + encode_frame(b"[]"))
    assert frames == [BadHeader(reason="Content-Length is not a number"), b"[]"]


def test_an_endless_header_is_dropped_without_growing_forever() -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(b"A" * (MAX_HEADER_BYTES + 1))
    assert frames == [BadHeader(reason="header block too long")]
    assert decoder.feed(encode_frame(b"1")) == [b"1"]


def test_an_oversized_body_is_skipped_and_the_next_frame_survives() -> None:
    decoder = FrameDecoder(max_body=4)
    frames = decoder.feed(encode_frame(b"123456") + encode_frame(b"ok"))
    assert frames == [BadHeader(reason="body of 6 bytes is too large"), b"ok"]


def test_after_a_bad_length_the_decoder_resynchronises_on_the_next_header() -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"x"}'
    frames = FrameDecoder().feed(b"Content-Length: abc\r\n\r\n" + body + encode_frame(b"[1]"))
    assert frames[0] == BadHeader(reason="Content-Length is not a number")
    assert frames[-1] == b"[1]"


def test_a_long_unframed_tail_keeps_a_header_that_starts_in_it() -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(b"Content-Length: x\r\n\r\n" + b"z" * MAX_HEADER_BYTES + b"Content-Le")
    assert decoder.feed(b"ngth: 2\r\n\r\n{}")[-1] == b"{}"
    assert BadHeader(reason="header block too long") in frames
