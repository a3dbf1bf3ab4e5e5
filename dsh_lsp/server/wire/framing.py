"""Base-protocol framing: ``Content-Length`` headers around JSON bodies (server layer).

``FrameDecoder`` is a pure incremental decoder: feed it bytes as they arrive, in pieces of
any size, and it returns the complete bodies, in order. A header block without a valid
``Content-Length`` cannot be resynchronised with certainty; the decoder skips that block,
reports it as a ``BadHeader`` and carries on with the bytes after it. Header blocks longer
than ``MAX_HEADER_BYTES`` and bodies longer than ``max_body`` are reported and skipped too,
so a confused peer costs memory bounded by those limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MAX_HEADER_BYTES: Final = 8192
"""The longest header block accepted (LSP headers are two short lines)."""
DEFAULT_MAX_BODY: Final = 256 << 20
"""The largest body accepted by default (256 MiB)."""

_END: Final = b"\r\n\r\n"


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
                        del self._buffer[:]
                        frames.append(BadHeader(reason="header block too long"))
                    return frames
                header = bytes(self._buffer[:end])
                del self._buffer[: end + len(_END)]
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
            frames.append(bytes(self._buffer[: self._need]))
            del self._buffer[: self._need]
            self._need = None


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
