"""Base-protocol framing: ``Content-Length`` headers around JSON bodies (server layer).

``FrameDecoder`` is a pure incremental decoder: feed it bytes as they arrive, in pieces of
any size, and it returns the complete bodies, in order. A header block without a valid
``Content-Length`` is reported as a ``BadHeader``; the decoder then resynchronises on the
next ``Content-Length:`` it sees: the body that followed the bad header (whose length is
unknown) is skipped up to the next header line, so one bad header costs one message, not the
connection. Header blocks longer than ``MAX_HEADER_BYTES`` and bodies longer than
``max_body`` are reported and skipped too (an oversized body is dropped as it arrives, never
buffered), so a confused peer costs memory bounded by those limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MAX_HEADER_BYTES: Final = 8192
"""The longest header block accepted (LSP headers are two short lines)."""
DEFAULT_MAX_BODY: Final = 64 << 20
"""The largest body accepted by default (64 MiB; ``dsh-lsp --max-message-bytes``)."""

_END: Final = b"\r\n\r\n"
_NAME: Final = b"content-length:"


@dataclass(frozen=True, slots=True, kw_only=True)
class BadHeader:
    """A header block the decoder had to skip, with the reason."""

    reason: str


Frame = bytes | BadHeader
"""What ``feed`` yields: a body, or the report of a skipped header block."""


class FrameDecoder:
    """Incremental ``Content-Length`` decoder; see the module docstring."""

    __slots__ = ("_buffer", "_max_body", "_need", "_skip")

    def __init__(self, *, max_body: int = DEFAULT_MAX_BODY) -> None:
        self._buffer = bytearray()
        self._need: int | None = None
        self._skip = 0
        self._max_body = max_body

    def feed(self, data: bytes) -> list[Frame]:
        """Add ``data``; return every frame it completes, oldest first."""
        self._buffer += data
        frames: list[Frame] = []
        while True:
            if self._skip:
                dropped = min(self._skip, len(self._buffer))
                del self._buffer[:dropped]
                self._skip -= dropped
                if self._skip:
                    return frames
            if self._need is None:
                end = self._buffer.find(_END)
                if end < 0:
                    if len(self._buffer) > MAX_HEADER_BYTES:
                        # Keep a header that may have started in the tail.
                        start = self._buffer.lower().rfind(_NAME)
                        frames.append(BadHeader(reason="header block too long"))
                        if start > 0:
                            self._buffer = self._buffer[start:]
                            continue
                        self._buffer = _partial_name(self._buffer)
                    return frames
                header = bytes(self._buffer[:end])
                del self._buffer[: end + len(_END)]
                start = header.lower().rfind(_NAME)
                if start > 0:
                    # Resynchronise: what precedes the last header line is the tail of a body
                    # whose length was unknown (it followed a bad header).
                    frames.append(BadHeader(reason=f"skipped {start} bytes before a header"))
                    header = header[start:]
                length = _content_length(header)
                if isinstance(length, BadHeader):
                    frames.append(length)
                    continue
                if length > self._max_body:
                    frames.append(BadHeader(reason=f"body of {length} bytes is too large"))
                    self._skip = length
                    continue
                self._need = length
            if len(self._buffer) < self._need:
                return frames
            with memoryview(self._buffer) as view:
                frames.append(bytes(view[: self._need]))
            del self._buffer[: self._need]
            self._need = None
            if not self._buffer:
                self._buffer = bytearray()  # give a large body's capacity back at once


def _partial_name(buffer: bytearray) -> bytearray:
    """The tail of ``buffer`` that may be the start of a ``Content-Length:`` line."""
    tail = bytes(buffer[-len(_NAME) :]).lower()
    for size in range(min(len(tail), len(_NAME) - 1), 0, -1):
        if _NAME.startswith(tail[-size:]):
            return bytearray(buffer[-size:])
    return bytearray()


def _content_length(header: bytes) -> int | BadHeader:
    for line in header.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"content-length":
            text = value.strip()
            if text.isdigit():
                return int(text)
            return BadHeader(reason="Content-Length is not a number")
    return BadHeader(reason="no Content-Length header")


def encode_frame(body: bytes) -> bytes:
    """``body`` with its ``Content-Length`` header (what a client sends)."""
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
