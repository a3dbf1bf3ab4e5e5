"""Per-target critical sections for the local provider (fs_tools layer).

One ``anyio.Lock`` per target key, created on demand and dropped when its last holder leaves,
so concurrent writes and edits of one file serialize while other files proceed in parallel.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio


class KeyedLocks:
    """Mutual exclusion per key; keys with no holder cost nothing."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, tuple[anyio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Hold ``key``'s lock for the ``async with`` body; cancellation while waiting is safe."""
        lock, users = self._entries.get(key, (None, 0))
        if lock is None:
            lock = anyio.Lock()
        self._entries[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            _, users = self._entries[key]
            if users == 1:
                del self._entries[key]
            else:
                self._entries[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._entries)
