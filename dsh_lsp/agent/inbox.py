"""The inbox: an agent's two FIFOs of user-side messages waiting for the loop (agent layer).

``queued`` holds messages that start a turn: the loop drains the whole FIFO when a turn
begins. ``steering`` holds messages for the running turn: the loop drains it between steps.
``wake`` is set whenever a message is queued, so an idle driver parks on it. The inbox is a
plain synchronous value; one agent owns one and only its event loop thread touches it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from dsh_lsp.llm import ContentBlock, MessageSource, TextBlock

PromptContent = str | Sequence[ContentBlock]
"""What callers hand to ``send``/``steer``/``inject``: plain text or content blocks."""


def as_blocks(content: PromptContent) -> tuple[ContentBlock, ...]:
    """``content`` as a tuple of blocks; a string becomes one ``TextBlock``."""
    if isinstance(content, str):
        return (TextBlock(text=content),)
    return tuple(content)


@dataclass(frozen=True, slots=True, kw_only=True)
class InboxMessage:
    """One message waiting in the inbox, with who queued it."""

    content: tuple[ContentBlock, ...]
    source: MessageSource


class Inbox:
    """The queued and steering FIFOs of one agent."""

    __slots__ = ("_queued", "_steering", "_wake")

    def __init__(self) -> None:
        self._queued: deque[InboxMessage] = deque()
        self._steering: deque[InboxMessage] = deque()
        self._wake = anyio.Event()

    @property
    def has_queued(self) -> bool:
        """True when a message waits to start a turn."""
        return bool(self._queued)

    @property
    def has_steering(self) -> bool:
        """True when a message waits to steer the running turn."""
        return bool(self._steering)

    def queue(self, message: InboxMessage) -> None:
        """Append to the queued FIFO and wake a parked driver."""
        self._queued.append(message)
        self._wake.set()

    def steer(self, message: InboxMessage) -> None:
        """Append to the steering FIFO."""
        self._steering.append(message)

    def drain_queued(self) -> tuple[InboxMessage, ...]:
        """Remove and return every queued message, oldest first."""
        drained = tuple(self._queued)
        self._queued.clear()
        return drained

    def drain_steering(self) -> tuple[InboxMessage, ...]:
        """Remove and return every steering message, oldest first."""
        drained = tuple(self._steering)
        self._steering.clear()
        return drained

    def requeue_steering(self) -> None:
        """Move leftover steering messages to the front of the queued FIFO (they start the
        next turn, ahead of anything queued meanwhile)."""
        if self._steering:
            self._queued.extendleft(reversed(self._steering))
            self._steering.clear()
            self._wake.set()

    def clear(self) -> None:
        """Drop every waiting message (cancellation)."""
        self._queued.clear()
        self._steering.clear()

    def wake(self) -> None:
        """Wake a parked driver without queuing anything (disposal)."""
        self._wake.set()

    async def wait(self) -> None:
        """Park until ``queue``/``wake`` was called since the last ``wait`` returned."""
        await self._wake.wait()
        self._wake = anyio.Event()
