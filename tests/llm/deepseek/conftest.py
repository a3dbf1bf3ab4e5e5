"""Fixtures for adapter tests: a scripted server on a real socket, a client over each
transport, a fake clock."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest

from dsh_lsp.llm import LlmRetry, RetryPolicy
from dsh_lsp.llm.deepseek import DeepSeekAdapter, DrainBudget, ReasoningEffort, Thinking
from dsh_lsp.llm.http1 import KeepAliveTransport
from dsh_lsp.testing import ScriptedServer
from tests.llm.deepseek.fakes import API_KEY, FakeClock, MakeAdapter


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as scripted:
        yield scripted


@pytest.fixture(params=["lean", "httpcore"])
def transport(request: pytest.FixtureRequest) -> KeepAliveTransport | None:
    """How the plugin sends: straight to the lean transport, or (with a proxy variable set)
    through httpx's client and its own transport. Every adapter test runs both ways."""
    return KeepAliveTransport() if request.param == "lean" else None


@pytest.fixture
async def client(transport: KeepAliveTransport | None) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(10.0, connect=5.0), transport=transport
    ) as http:
        yield http


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_adapter(
    server: ScriptedServer,
    client: httpx.AsyncClient,
    transport: KeepAliveTransport | None,
    clock: FakeClock,
) -> MakeAdapter:
    def make(
        *,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        thinking: Thinking | None = None,
        reasoning_effort: ReasoningEffort | None = None,
        drain: DrainBudget | None = None,
        retry_budget: float | None = None,
        on_retry: Callable[[LlmRetry], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> DeepSeekAdapter:
        return DeepSeekAdapter(
            client,
            base_url=server.base_url if base_url is None else base_url,
            api_key=API_KEY,
            thinking=thinking,
            reasoning_effort=reasoning_effort,
            retry=RetryPolicy(max_retries=3) if retry is None else retry,
            sleep=clock.sleep,
            clock=clock.time,
            random=clock.random,
            drain=drain,
            retry_budget=retry_budget,
            on_retry=on_retry,
            monotonic=monotonic,
            transport=transport,
        )

    return make
