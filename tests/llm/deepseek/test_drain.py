"""drain_body on in-memory bodies: the byte cap, the deadline, errors and cancellation."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm.deepseek import DrainBudget, drain_body


class Body:
    """A response body's byte iterator: ``pieces``, then the end, an error or a stall."""

    def __init__(self, pieces: list[bytes], *, then: BaseException | None = None) -> None:
        self._pieces = pieces
        self._then = then
        self.read = 0
        self.stalled = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self._pieces:
            self.read += 1
            yield piece
        if self._then is not None:
            raise self._then

    async def stall(self) -> AsyncIterator[bytes]:
        async for piece in self:
            yield piece
        self.stalled = True
        await anyio.sleep_forever()
        yield b""  # unreachable: makes this an async generator


@given(
    sizes=st.lists(st.integers(min_value=0, max_value=300), max_size=12),
    cap=st.integers(min_value=0, max_value=1200),
)
def test_a_body_ends_within_the_cap_or_reading_stops_at_the_read_that_crosses_it(
    sizes: list[int], cap: int
) -> None:
    body = Body([b"x" * size for size in sizes])
    ended = anyio.run(drain_body, aiter(body), DrainBudget(max_bytes=cap, seconds=30))
    assert ended == (sum(sizes) <= cap)
    crossing = next((n for n in range(1, len(sizes) + 1) if sum(sizes[:n]) > cap), len(sizes))
    assert body.read == crossing


async def test_a_stalled_body_is_given_up_at_the_deadline() -> None:
    body = Body([b"0\r\n"])
    with anyio.fail_after(10):
        assert not await drain_body(body.stall(), DrainBudget(seconds=0.01))
    assert body.stalled


@pytest.mark.parametrize(
    "failure",
    [httpx.RemoteProtocolError("peer closed"), httpx.ReadTimeout("slow")],
    ids=["cut", "read-timeout"],
)
async def test_an_httpx_error_while_draining_gives_up_quietly(failure: httpx.HTTPError) -> None:
    assert not await drain_body(aiter(Body([b"1"], then=failure)), DrainBudget())


async def test_other_errors_are_not_swallowed() -> None:
    with pytest.raises(ValueError, match="bug"):
        await drain_body(aiter(Body([], then=ValueError("bug"))), DrainBudget())


async def test_the_callers_cancellation_is_not_taken_for_the_deadline() -> None:
    body = Body([])
    returned = False
    with anyio.CancelScope() as outer:
        async with anyio.create_task_group() as tasks:

            async def drain() -> None:
                nonlocal returned
                await drain_body(body.stall(), DrainBudget(seconds=60))
                returned = True

            tasks.start_soon(drain)
            await anyio.wait_all_tasks_blocked()
            outer.cancel()
    assert outer.cancelled_caught
    assert body.stalled
    assert not returned
