"""Static checks: the kernel's types reject wrong listeners, payloads, services and configs.

Nothing here runs; mypy checks it. Every deliberate misuse carries a ``type: ignore[code]``,
and mypy's strict mode fails on an unused ignore, so if the kernel's annotations stopped
catching one of these mistakes, ``mypy tests/kernel`` would fail.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

import pydantic

from dsh_lsp.kernel import (
    Context,
    EmitEvent,
    ParallelEvent,
    Plugin,
    SerialEvent,
    ServiceKey,
    StreamWaterfallEvent,
    WaterfallEvent,
)

SAID: EmitEvent[str] = EmitEvent("typing/said")
ASK: WaterfallEvent[str, int] = WaterfallEvent("typing/ask")
STREAM: StreamWaterfallEvent[str, bytes] = StreamWaterfallEvent("typing/stream")
DECIDE: SerialEvent[str, bool] = SerialEvent("typing/decide")
FLUSH: ParallelEvent[str] = ParallelEvent("typing/flush")
COUNT: ServiceKey[int] = ServiceKey("typing/count")


class Settings(pydantic.BaseModel):
    retries: int = 3


class Configured(Plugin[Settings]):
    """A pydantic model satisfies ``config_model`` without the kernel knowing pydantic."""

    name = "configured"
    config_model = Settings

    async def apply(self, ctx: Context, config: Settings) -> None:
        ctx.provide(COUNT, config.retries)


class Mismatched(Plugin[int]):
    config_model = Settings  # type: ignore[assignment]

    async def apply(self, ctx: Context, config: int) -> None:
        """Declares int config but validates with Settings."""


if TYPE_CHECKING:

    def right_and_wrong(ctx: Context) -> str | None:
        def heard(payload: str) -> None: ...
        def heard_int(payload: int) -> None: ...
        async def heard_async(payload: str) -> None: ...
        async def ask(payload: str, next: Callable[[], Awaitable[int]]) -> int:
            return await next()

        async def ask_str(payload: str, next: Callable[[], Awaitable[int]]) -> str:
            return str(await next())

        async def stream(
            payload: str, next: Callable[[], AsyncIterator[bytes]]
        ) -> AsyncIterator[bytes]:
            async for chunk in next():
                yield chunk

        async def decide(payload: str) -> bool | None:
            return None

        async def flush(payload: str) -> None: ...

        ctx.on(SAID, heard)
        ctx.on(ASK, ask)
        ctx.on(STREAM, stream)
        ctx.on(DECIDE, decide)
        ctx.on(FLUSH, flush)
        ctx.emit(SAID, "text")
        ctx.provide(COUNT, 1)

        ctx.on(SAID, heard_int)  # type: ignore[arg-type]
        ctx.on(SAID, heard_async)  # type: ignore[arg-type]
        ctx.on(ASK, ask_str)  # type: ignore[arg-type]
        ctx.on(FLUSH, heard)  # type: ignore[arg-type]
        ctx.emit(SAID, 42)  # type: ignore[misc]
        ctx.emit(ASK, "text")  # type: ignore[arg-type]
        ctx.provide(COUNT, "one")  # type: ignore[misc]
        wrong: str | None = ctx.get(COUNT)  # type: ignore[assignment]
        return wrong
