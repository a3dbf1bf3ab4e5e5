"""Shared test doubles for adapter tests: the API key, a request, a fake clock, ``collect``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

import anyio.lowlevel

from dsh_lsp.llm import LlmRequest, LlmRetry, Message, RetryPolicy, StreamChunk, TextBlock
from dsh_lsp.llm.deepseek import DeepSeekAdapter, DrainBudget, ReasoningEffort, Thinking

API_KEY = "sk-test-0123456789abcdef"
REQUEST = LlmRequest(
    model="deepseek-v4-flash", messages=(Message(role="user", content=(TextBlock(text="hi"),)),)
)


class FakeClock:
    """Records requested sleeps instead of sleeping; fixed wall time; jitter draw 0.5."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.now = 1_800_000_000.0

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        await anyio.lowlevel.checkpoint()

    def time(self) -> float:
        return self.now

    def random(self) -> float:
        return 0.5


class MakeAdapter(Protocol):
    def __call__(
        self,
        *,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        thinking: Thinking | None = None,
        reasoning_effort: ReasoningEffort | None = None,
        drain: DrainBudget | None = None,
        retry_budget: float | None = None,
        on_retry: Callable[[LlmRetry], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> DeepSeekAdapter: ...


async def collect(adapter: DeepSeekAdapter, request: LlmRequest = REQUEST) -> list[StreamChunk]:
    """Every chunk of one call."""
    return [chunk async for chunk in adapter.stream(request)]
