"""HTTP/1.1 message framing, pure and I/O-free (llm.http1): request heads out, response heads
and bodies in.

``request_head`` spells a request line and its headers. ``find_head_end`` and
``parse_response_head`` cut a response head off the bytes read so far; ``body_framing`` says,
per RFC 9112 section 6.3, how the body that follows ends (no body, a length, chunked, or the
connection's close) and whether the connection may carry another request after it.
``ChunkedDecoder`` takes a chunked body in pieces split anywhere and returns its data.

Every malformed input raises ``FramingError`` (a ``ValueError``) saying what was wrong; the
transport turns it into ``httpx.RemoteProtocolError``. Limits bound what a hostile server can
make us buffer: a head of ``MAX_HEAD_BYTES``, a chunk-size line of ``MAX_LINE_BYTES``, trailers
of ``MAX_HEAD_BYTES``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

MAX_HEAD_BYTES = 64 * 1024
"""The largest response head (status line and headers) accepted; trailers share the cap."""
MAX_LINE_BYTES = 4 * 1024
"""The longest chunk-size line (size and extensions) accepted."""
_NO_BODY_STATUSES = frozenset({204, 304})
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")


class FramingError(ValueError):
    """A response that breaks HTTP/1.1 framing; the message says how."""


def request_head(method: str, target: bytes, headers: Iterable[tuple[bytes, bytes]]) -> bytes:
    """The request line and header block of a request, ending with the blank line."""
    lines = [method.encode("ascii") + b" " + target + b" HTTP/1.1"]
    lines.extend(name + b": " + value for name, value in headers)
    return b"\r\n".join(lines) + b"\r\n\r\n"


def find_head_end(buffer: bytes) -> int:
    """The offset just past the blank line that ends the head at the start of ``buffer``, or
    ``-1`` when it has not arrived yet. Lines may end with CRLF or a bare LF.

    Raises ``FramingError`` when ``buffer`` holds more than ``MAX_HEAD_BYTES`` without one.
    """
    end = buffer.find(b"\n\r\n")
    bare = buffer.find(b"\n\n", 0, end + 2 if end >= 0 else len(buffer))
    if bare >= 0 and (end < 0 or bare < end):
        found = bare + 2
    elif end >= 0:
        found = end + 3
    else:
        found = -1
    if found > MAX_HEAD_BYTES or (found < 0 and len(buffer) > MAX_HEAD_BYTES):
        raise FramingError(f"the response head is longer than {MAX_HEAD_BYTES} bytes")
    return found


@dataclass(frozen=True, slots=True)
class ResponseHead:
    """A parsed status line and its headers (names lower-cased, values as sent)."""

    version: bytes
    status: int
    reason: bytes
    headers: list[tuple[bytes, bytes]]

    def values(self, name: bytes) -> list[bytes]:
        """Every value of header ``name`` (lower-case), in order."""
        return [value for key, value in self.headers if key == name]

    def tokens(self, name: bytes) -> list[bytes]:
        """The comma-separated, lower-cased tokens of every ``name`` header."""
        return [
            token.strip().lower()
            for value in self.values(name)
            for token in value.split(b",")
            if token.strip()
        ]


def parse_response_head(head: bytes) -> ResponseHead:
    """Parse a head as ``find_head_end`` cut it (blank line included).

    Raises ``FramingError`` for a status line that is not ``HTTP/1.x NNN reason`` or a header
    line without a name and colon. Folded header lines (obsolete, a leading space or tab) join
    the previous value with one space.
    """
    lines = [line[:-1] if line.endswith(b"\r") else line for line in head.split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise FramingError("the response has no status line")
    version, _, rest = lines[0].partition(b" ")
    code, _, reason = rest.partition(b" ")
    if not version.startswith(b"HTTP/1.") or len(code) != 3 or not code.isdigit():
        raise FramingError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t"):
            if not headers:
                raise FramingError("a folded header line before any header")
            name, value = headers[-1]
            headers[-1] = (name, value + b" " + line.strip())
            continue
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise FramingError(f"a malformed header line: {line[:80]!r}")
        headers.append((name.lower(), value.strip(b" \t")))
    return ResponseHead(version, int(code), reason.strip(), headers)


class BodyKind(enum.Enum):
    """How a response body ends."""

    NONE = "none"
    LENGTH = "length"
    CHUNKED = "chunked"
    UNTIL_CLOSE = "until-close"


@dataclass(frozen=True, slots=True)
class BodyFraming:
    """What ends the body of a response and whether its connection may be reused after it."""

    kind: BodyKind
    length: int = 0
    keep_alive: bool = False


def body_framing(head: ResponseHead, method: str) -> BodyFraming:
    """The framing of the body after ``head``, for a request of ``method``.

    Raises ``FramingError`` for a transfer coding other than ``chunked`` (no other is
    decoded), or a ``Content-Length`` that is not one non-negative integer.
    """
    keep_alive = head.version == b"HTTP/1.1" and b"close" not in head.tokens(b"connection")
    if method == "HEAD" or head.status < 200 or head.status in _NO_BODY_STATUSES:
        return BodyFraming(BodyKind.NONE, keep_alive=keep_alive)
    codings = head.tokens(b"transfer-encoding")
    if codings:
        if codings != [b"chunked"]:
            raise FramingError(f"unsupported transfer coding: {b', '.join(codings).decode()!r}")
        # A Content-Length beside it is ignored; such a message must not be followed by another.
        lengths_too = bool(head.values(b"content-length"))
        return BodyFraming(BodyKind.CHUNKED, keep_alive=keep_alive and not lengths_too)
    lengths = {value.strip() for value in head.values(b"content-length")}
    if not lengths:
        return BodyFraming(BodyKind.UNTIL_CLOSE)
    length = lengths.pop() if len(lengths) == 1 else b""
    if not length.isdigit():
        sent = b", ".join(head.values(b"content-length"))
        raise FramingError(f"an invalid Content-Length: {sent!r}")
    return BodyFraming(BodyKind.LENGTH, int(length), keep_alive=keep_alive)


class _State(enum.Enum):
    SIZE = 1
    DATA = 2
    DATA_END = 3
    TRAILER = 4
    DONE = 5


class ChunkedDecoder:
    """Decodes one chunked body fed in pieces of any size; one instance per response."""

    __slots__ = ("_pending", "_remaining", "_state", "_trailer_bytes")

    def __init__(self) -> None:
        self._pending = b""
        self._remaining = 0
        self._state = _State.SIZE
        self._trailer_bytes = 0

    @property
    def done(self) -> bool:
        """Whether the last chunk and the trailers arrived."""
        return self._state is _State.DONE

    @property
    def excess(self) -> bytes:
        """Bytes fed after the end of the body (none from a well-behaved server)."""
        return self._pending if self._state is _State.DONE else b""

    def feed(self, data: bytes) -> bytes:
        """Consume ``data``; return the body bytes it completed (possibly ``b""``).

        Raises ``FramingError`` for a bad chunk size, a chunk not followed by CRLF, or a
        chunk-size line or trailer block over its limit.
        """
        buffer = self._pending + data if self._pending else data
        size = len(buffer)
        position = 0
        out: list[bytes] = []
        state = self._state
        while position < size and state is not _State.DONE:
            if state is _State.DATA:
                take = min(self._remaining, size - position)
                out.append(buffer[position : position + take])
                position += take
                self._remaining -= take
                if not self._remaining:
                    state = _State.DATA_END
            elif state is _State.DATA_END:
                if size - position < 2:
                    break
                if buffer[position : position + 2] != b"\r\n":
                    raise FramingError("a chunk is not followed by CRLF")
                position += 2
                state = _State.SIZE
            else:
                end = buffer.find(b"\r\n", position)
                limit = MAX_LINE_BYTES if state is _State.SIZE else MAX_HEAD_BYTES
                if end < 0:
                    if size - position > limit - self._trailer_bytes:
                        raise FramingError(f"a chunk line or trailer over {limit} bytes")
                    break
                line = buffer[position:end]
                position = end + 2
                if state is _State.SIZE:
                    self._remaining = _chunk_size(line)
                    state = _State.DATA if self._remaining else _State.TRAILER
                elif line:
                    self._trailer_bytes += len(line) + 2
                    if self._trailer_bytes > MAX_HEAD_BYTES:
                        raise FramingError(f"trailers over {MAX_HEAD_BYTES} bytes")
                else:
                    state = _State.DONE
        self._state = state
        self._pending = buffer[position:] if position < size else b""
        if len(out) == 1:
            return out[0]
        return b"".join(out)


def _chunk_size(line: bytes) -> int:
    """The size on a chunk-size line (extensions after ``;`` ignored)."""
    digits = line.split(b";", 1)[0].strip(b" \t")
    if not digits or len(digits) > 16 or not _HEX_DIGITS.issuperset(digits):
        raise FramingError(f"an invalid chunk size line: {line[:40]!r}")
    return int(digits, 16)
