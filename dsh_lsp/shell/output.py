"""OutputBuffer: a command's output with bounded memory, overflow kept on disk (shell layer).

The first ``cap // 2`` bytes stay in memory as the head and the last ``cap // 2`` as the
tail; once the output outgrows ``cap`` everything is also appended to a spill file in a
private directory (mode 0700), so the model can page through all of it with ``bash_output``
while memory stays flat however much a command prints. ``close`` deletes the spill file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from typing import BinaryIO


class OutputBuffer:
    """See the module docstring. Not thread-safe; one writer (the pump), any readers."""

    __slots__ = ("_cap", "_dir", "_head", "_read", "_spill", "_spill_path", "_tail", "_total")

    def __init__(self, cap: int) -> None:
        self._cap = max(cap, 2)
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._read = 0
        self._dir: str | None = None
        self._spill: BinaryIO | None = None
        self._spill_path: str | None = None

    @property
    def total(self) -> int:
        """Bytes written so far."""
        return self._total

    @property
    def spilled(self) -> bool:
        """Whether the output outgrew the cap (the whole of it is in the spill file)."""
        return self._spill_path is not None

    def write(self, data: bytes) -> None:
        """Append ``data``. Raises OSError when the spill file cannot be written."""
        if not data:
            return
        half = self._cap // 2
        if self._spill is None and self._total + len(data) > self._cap:
            self._start_spill()
        if self._spill is not None:
            self._spill.write(data)
        self._total += len(data)
        room = half - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            if len(self._tail) > half:
                del self._tail[: len(self._tail) - half]

    def _start_spill(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="dsh-shell-")
        os.chmod(self._dir, 0o700)
        self._spill_path = os.path.join(self._dir, "output")
        self._spill = open(self._spill_path, "wb")  # noqa: SIM115 - closed by close()
        # everything so far is in memory (it fitted the cap): head, then the tail after it
        self._spill.write(bytes(self._head))
        self._spill.write(bytes(self._tail))

    def text(self) -> str:
        """The output as the model reads it: all of it when it fits the cap, else head,
        an omission marker naming how to page, and tail."""
        if not self.spilled:
            return _decode(bytes(self._head) + bytes(self._tail))
        omitted = self._total - len(self._head) - len(self._tail)
        return (
            _decode(bytes(self._head))
            + f"\n[… {omitted} bytes omitted; the whole output ({self._total} bytes) can be "
            "paged with bash_output offset/limit …]\n" + _decode(bytes(self._tail))
        )

    def tail(self, chars: int) -> str:
        """The last ``chars`` characters or so (live cards)."""
        data = bytes(self._tail) if self.spilled else bytes(self._head) + bytes(self._tail)
        text = _decode(data[-chars * 4 :] if len(data) > chars * 4 else data)
        return text[-chars:]

    def page(self, offset: int, limit: int) -> str:
        """Bytes ``offset`` … ``offset + limit`` of the whole output, decoded.

        Raises OSError when the spill file cannot be read.
        """
        if self._spill_path is None:
            data = bytes(self._head) + bytes(self._tail)
            return _decode(data[offset : offset + limit])
        if self._spill is not None:
            self._spill.flush()
        with open(self._spill_path, "rb") as handle:
            handle.seek(offset)
            return _decode(handle.read(limit))

    def unread(self, limit: int) -> tuple[str, int]:
        """Output not returned by an earlier ``unread`` (at most ``limit`` bytes), and how
        many bytes remain unread after it. Raises OSError like ``page``."""
        start = self._read
        size = min(limit, self._total - start)
        if size <= 0:
            return "", 0
        text = self.page(start, size)
        self._read = start + size
        return text, self._total - self._read

    def close(self) -> None:
        """Close and delete the spill file. Idempotent; never raises."""
        if self._spill is not None:
            with contextlib.suppress(OSError):
                self._spill.close()
            self._spill = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
