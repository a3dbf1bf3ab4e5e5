"""An incremental Server-Sent-Events decoder: bytes in, event payloads out (llm layer).

Pure and I/O-free. Feed it the body in pieces of any size — a line, a CRLF pair or a UTF-8
sequence may be split anywhere — and it returns each complete event's ``data`` as text. Lines
end with LF, CRLF or a lone CR; a blank line ends an event; ``data:`` lines (one optional space
after the colon dropped) join with ``\\n``; comments (``: keep-alive``) and other fields are
ignored; an event without data lines yields nothing. Decoding happens per event, after the
bytes are complete, so split multi-byte characters come out whole; invalid UTF-8 is replaced.
"""

from __future__ import annotations


class SseDecoder:
    """Turns a byte stream into event data strings; one instance per response body."""

    __slots__ = ("_data", "_pending")

    def __init__(self) -> None:
        self._pending = b""
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[str]:
        """Consume ``chunk``; return the data of every event it completed, in order."""
        buffer = self._pending + chunk if self._pending else chunk
        if b"\r" in buffer:
            # A CR at the very end may be the first half of a CRLF: keep it for the next feed.
            tail = b"\r" if buffer.endswith(b"\r") else b""
            if tail:
                buffer = buffer[:-1]
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n") + tail
        lines = buffer.split(b"\n")
        self._pending = lines.pop()
        return self._lines(lines)

    @property
    def buffered(self) -> int:
        """Bytes held for an event not yet complete (a partial line and its data lines)."""
        return len(self._pending) + sum(len(line) for line in self._data)

    def close(self) -> list[str]:
        """End of body: flush a final line and event that lacked their terminators."""
        lines = [self._pending.rstrip(b"\r")] if self._pending else []
        self._pending = b""
        return self._lines([*lines, b""])

    def _lines(self, lines: list[bytes]) -> list[str]:
        events: list[str] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    joined = data[0] if len(data) == 1 else b"\n".join(data)
                    events.append(joined.decode("utf-8", "replace"))
                    data = self._data = []
            elif line[:5] == b"data:":
                data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif line == b"data":
                data.append(b"")
        return events
