"""Test helpers for the kernel tests: ad-hoc plugins and shared keys and events."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from dsh_lsp.kernel import Context, Fiber, FiberState, Plugin, ServiceKey

Body = Callable[[Context], Awaitable[None]]

K: ServiceKey[str] = ServiceKey("k")
M: ServiceKey[str] = ServiceKey("m")


def plugin(name: str, body: Body, *, inject: tuple[ServiceKey[Any], ...] = ()) -> Plugin[None]:
    """A config-less plugin named ``name`` whose apply awaits ``body(ctx)``."""

    class AdHoc(Plugin[None]):
        async def apply(self, ctx: Context, config: None) -> None:
            await body(ctx)

    AdHoc.name = name
    AdHoc.inject = inject
    return AdHoc()


async def nothing(ctx: Context) -> None:
    """An apply body that registers nothing."""


def state(fiber: Fiber) -> FiberState:
    """The fiber's state, read fresh (keeps mypy from carrying an earlier narrowing over)."""
    return fiber.state
