"""Timeouts a user controls (issue 16): a server that accepts and never answers fails the
attempt at the first-byte deadline, each retry is announced with a "retrying (n/m) after
<status>" notice, and the total retry budget ends a call that keeps failing."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx
import pytest
from anyio.abc import SocketStream

from dsh_lsp.llm import LlmCode, LlmError, LlmRetry, RetryPolicy, SessionId
from dsh_lsp.llm.deepseek import DeepSeekAdapter, ModelTimeouts
from dsh_lsp.testing import ScriptedServer, completion, error
from tests.llm.deepseek.fakes import API_KEY, REQUEST, FakeClock, MakeAdapter, collect

BACKOFF = RetryPolicy(max_retries=5, initial_delay=0.5)


@asynccontextmanager
async def silent_server() -> AsyncIterator[str]:
    """A server that accepts connections and never sends a byte."""

    async def hold(stream: SocketStream) -> None:
        async with stream:
            await anyio.sleep_forever()

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, hold)
        yield f"http://127.0.0.1:{port}/v1"
        group.cancel_scope.cancel()


async def test_a_server_that_never_answers_fails_at_the_first_byte_deadline() -> None:
    async with (
        silent_server() as silent_url,
        httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0)) as client,
    ):
        adapter = DeepSeekAdapter(
            client,
            base_url=silent_url,
            api_key=API_KEY,
            retry=RetryPolicy(max_retries=0),
            first_byte_timeout=0.3,
        )
        with anyio.fail_after(10), pytest.raises(LlmError) as caught:
            await collect(adapter)
    assert caught.value.code == LlmCode.TIMEOUT
    assert "first-byte timeout" in str(caught.value)


async def test_each_retry_is_announced_with_its_number_and_cause(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    server.enqueue(
        error(429, "slow down", retry_after="1"), error(503, "busy"), completion(text="ok")
    )
    notices: list[LlmRetry] = []
    adapter = make_adapter(retry=BACKOFF, on_retry=notices.append)
    await collect(adapter, dataclasses.replace(REQUEST, session_id=SessionId("s1")))
    assert [n.message for n in notices] == ["retrying (1/5) after 429", "retrying (2/5) after 503"]
    assert {n.session_id for n in notices} == {"s1"}


async def test_the_retry_budget_ends_a_call_that_keeps_failing(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    server.enqueue(error(503, "busy"), error(503, "busy"), error(503, "busy"))
    ticks = iter([0.0, 0.4, 5.0])
    adapter = make_adapter(retry=BACKOFF, retry_budget=2.0, monotonic=lambda: next(ticks))
    with pytest.raises(LlmError) as caught:
        await collect(adapter)
    assert caught.value.code == LlmCode.SERVER
    assert clock.sleeps == [0.5]  # the second retry would overrun the 2 s budget
    assert len(server.requests) == 2


def test_timeouts_map_to_the_endpoint_config() -> None:
    timeouts = ModelTimeouts.model_validate({"firstByte": 5, "retryBudget": 30})
    assert timeouts.plugin_config() == {"firstByteTimeout": 5.0, "retryBudget": 30.0}
