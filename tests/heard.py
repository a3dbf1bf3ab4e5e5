"""A listener for the tests: it keeps what an event hands it and wakes whoever waits for one."""

from __future__ import annotations

from typing import Generic, TypeVar

import anyio

T = TypeVar("T")


class Heard(Generic[T]):
    """Pass as the listener (``ctx.on(EVENT, heard)``): ``items`` holds every payload so far,
    in order, and ``await heard.wait()`` returns once the first has come. Raises nothing."""

    def __init__(self) -> None:
        self.items: list[T] = []
        self._any = anyio.Event()

    def __call__(self, item: T) -> None:
        self.items.append(item)
        self._any.set()

    async def wait(self) -> None:
        """Return once at least one payload has come."""
        await self._any.wait()
