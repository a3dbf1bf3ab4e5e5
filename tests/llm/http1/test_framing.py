"""HTTP/1.1 framing (llm.http1): heads and chunked bodies cut anywhere, bad input refused."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm.http1 import (
    MAX_HEAD_BYTES,
    BodyKind,
    ChunkedDecoder,
    FramingError,
    body_framing,
    find_head_end,
    parse_response_head,
    request_head,
)

TOKEN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-0123456789", min_size=1, max_size=12)
VALUE = st.text(alphabet="abcdefghij klmnop=;,/0123456789", max_size=30).map(str.strip)


def chunked(
    pieces: list[bytes], *, trailers: Sequence[bytes] = (), extension: bytes = b""
) -> bytes:
    """``pieces`` as a chunked body (an empty piece would end it, so they are skipped)."""
    out = b"".join(b"%x%s\r\n%s\r\n" % (len(p), extension, p) for p in pieces if p)
    return out + b"0\r\n" + b"".join(t + b"\r\n" for t in trailers) + b"\r\n"


def decode_split(encoded: bytes, cuts: list[int]) -> tuple[bytes, ChunkedDecoder]:
    decoder = ChunkedDecoder()
    bounds = sorted({min(c, len(encoded)) for c in cuts} | {0, len(encoded)})
    out = b"".join(decoder.feed(encoded[a:b]) for a, b in itertools.pairwise(bounds))
    return out, decoder


@given(
    pieces=st.lists(st.binary(max_size=300), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=20),
    extension=st.sampled_from([b"", b";name=value", b" ; x"]),
    trailers=st.lists(st.sampled_from([b"X-Checksum: 1", b"Server-Timing: a"]), max_size=2),
)
def test_a_chunked_body_cut_anywhere_decodes_to_its_data(
    pieces: list[bytes], cuts: list[int], extension: bytes, trailers: list[bytes]
) -> None:
    encoded = chunked(pieces, trailers=trailers, extension=extension)
    out, decoder = decode_split(encoded, cuts)
    assert out == b"".join(pieces)
    assert decoder.done
    assert decoder.excess == b""


@given(st.binary(min_size=1, max_size=50), st.integers(min_value=0, max_value=80))
def test_bytes_after_the_last_chunk_are_excess_not_body(extra: bytes, cut: int) -> None:
    encoded = chunked([b"data"]) + extra
    out, decoder = decode_split(encoded, [cut])
    assert out == b"data"
    assert decoder.done
    assert decoder.excess == extra


@given(st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=5), st.data())
def test_a_body_that_stops_early_is_not_done(pieces: list[bytes], data: st.DataObject) -> None:
    encoded = chunked(pieces)
    stop = data.draw(st.integers(min_value=0, max_value=len(encoded) - 1))
    decoder = ChunkedDecoder()
    out = decoder.feed(encoded[:stop])
    assert not decoder.done
    assert b"".join(pieces).startswith(out)


@pytest.mark.parametrize(
    "encoded",
    [
        b"zz\r\nab\r\n0\r\n\r\n",  # not hex
        b"\r\n",  # no size
        b"2\r\nabXY0\r\n\r\n",  # data not followed by CRLF
        b"11111111111111111\r\n",  # 17 hex digits
        b"-1\r\n",
    ],
)
def test_a_malformed_chunked_body_is_refused(encoded: bytes) -> None:
    with pytest.raises(FramingError):
        ChunkedDecoder().feed(encoded)


def test_an_endless_chunk_size_line_is_refused_not_buffered() -> None:
    decoder = ChunkedDecoder()
    for _ in range(4):
        assert decoder.feed(b"1" * 1000) == b""
    with pytest.raises(FramingError, match="over"):
        decoder.feed(b"1" * 1000)


@given(
    headers=st.lists(st.tuples(TOKEN, VALUE), max_size=8),
    status=st.integers(min_value=100, max_value=599),
    newline=st.sampled_from([b"\r\n", b"\n"]),
    body=st.binary(max_size=20),
    cut=st.integers(min_value=0, max_value=400),
)
def test_a_head_parses_whatever_its_line_ends_and_wherever_it_is_cut(
    headers: list[tuple[str, str]], status: int, newline: bytes, body: bytes, cut: int
) -> None:
    lines = [b"HTTP/1.1 %d Some Reason" % status]
    lines += [name.encode() + b": " + value.encode() for name, value in headers]
    head = newline.join(lines) + newline + newline
    raw = head + body
    assert find_head_end(raw[: min(cut, len(head) - 1)]) == -1
    assert find_head_end(raw) == len(head)
    parsed = parse_response_head(raw[: len(head)])
    assert (parsed.version, parsed.status, parsed.reason) == (b"HTTP/1.1", status, b"Some Reason")
    assert parsed.headers == [(n.lower().encode(), v.encode()) for n, v in headers]


def test_a_folded_header_joins_the_previous_value() -> None:
    head = parse_response_head(b"HTTP/1.1 200 OK\r\nX-Long: one\r\n  two\r\n\r\n")
    assert head.values(b"x-long") == [b"one two"]


def test_an_endless_head_is_refused_not_buffered() -> None:
    with pytest.raises(FramingError, match="longer than"):
        find_head_end(b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * (MAX_HEAD_BYTES // 6))


OK = b"HTTP/1.1 200 OK\r\n"
LENGTH_3 = (BodyKind.LENGTH, 3, False)
"""A length-framed body whose connection closes after it."""
CHUNKED_ONCE = (BodyKind.CHUNKED, 0, False)
"""A chunked body whose connection closes after it."""


def framing_of(head: bytes, method: str = "POST") -> tuple[BodyKind, int, bool]:
    framing = body_framing(parse_response_head(head + b"\r\n"), method)
    return framing.kind, framing.length, framing.keep_alive


@pytest.mark.parametrize(
    ("head", "method", "expected"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n", "POST", (BodyKind.LENGTH, 12, True)),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n", "POST", (BodyKind.CHUNKED, 0, True)),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n", "GET", (BodyKind.CHUNKED, 0, True)),
        (b"HTTP/1.1 200 OK\r\n", "POST", (BodyKind.UNTIL_CLOSE, 0, False)),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n", "POST", (BodyKind.LENGTH, 3, False)),
        (OK + b"Connection: keep-alive, Close\r\nContent-Length: 3\r\n", "POST", LENGTH_3),
        (OK + b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", "POST", CHUNKED_ONCE),
        (b"HTTP/1.1 204 No Content\r\n", "POST", (BodyKind.NONE, 0, True)),
        (b"HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n", "GET", (BodyKind.NONE, 0, True)),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n", "HEAD", (BodyKind.NONE, 0, True)),
        (OK + b"Content-Length: 5\r\nContent-Length: 5\r\n", "POST", (BodyKind.LENGTH, 5, True)),
    ],
)
def test_the_body_framing_follows_rfc_9112(
    head: bytes, method: str, expected: tuple[BodyKind, int, bool]
) -> None:
    assert framing_of(head, method) == expected


@pytest.mark.parametrize(
    ("read", "head"),
    [
        (parse_response_head, b"HTTP/2 200 OK\r\n\r\n"),
        (parse_response_head, b"HTTP/1.1 20 OK\r\n\r\n"),
        (parse_response_head, b"SSH-2.0-OpenSSH\r\n\r\n"),
        (parse_response_head, b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"),
        (parse_response_head, b"HTTP/1.1 200 OK\r\n : empty name\r\n\r\n"),
        (parse_response_head, b"HTTP/1.1 200 OK\r\nName : space before colon\r\n\r\n"),
        (framing_of, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n"),
        (framing_of, b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n"),
        (framing_of, b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n"),
        (framing_of, b"HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n"),
    ],
)
def test_a_head_or_framing_we_cannot_follow_is_refused(
    read: Callable[[bytes], object], head: bytes
) -> None:
    with pytest.raises(FramingError):
        read(head)


def test_a_request_head_spells_the_line_and_headers() -> None:
    head = request_head("POST", b"/v1/chat?x=1", [(b"Host", b"h:1"), (b"Content-Length", b"2")])
    assert head == b"POST /v1/chat?x=1 HTTP/1.1\r\nHost: h:1\r\nContent-Length: 2\r\n\r\n"
