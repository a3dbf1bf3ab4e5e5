"""Disposer: single-shot, memoized for concurrent callers, shielded, errors shared."""

from __future__ import annotations

import anyio
import pytest

from dsh_lsp.kernel import Disposer


async def test_a_sync_teardown_runs_once() -> None:
    runs: list[str] = []
    disposer = Disposer(lambda: runs.append("ran"), label="thing")
    assert not disposer.disposed
    await disposer()
    await disposer()
    assert runs == ["ran"]
    assert disposer.disposed
    assert disposer.label == "thing"
    assert "disposed" in repr(disposer)


async def test_an_async_teardown_is_awaited() -> None:
    runs: list[str] = []

    async def teardown() -> None:
        await anyio.lowlevel.checkpoint()
        runs.append("ran")

    await Disposer(teardown)()
    assert runs == ["ran"]


async def test_concurrent_callers_share_one_run_and_all_wait_for_it() -> None:
    release = anyio.Event()
    started = anyio.Event()
    runs: list[str] = []
    returned: list[str] = []

    async def teardown() -> None:
        started.set()
        await release.wait()
        runs.append("ran")

    disposer = Disposer(teardown)

    async def call(who: str) -> None:
        await disposer()
        returned.append(who)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, "first")
        await started.wait()
        tg.start_soon(call, "second")
        await anyio.wait_all_tasks_blocked()
        assert returned == []
        release.set()
    assert runs == ["ran"]
    assert sorted(returned) == ["first", "second"]


async def test_every_caller_sees_the_teardown_error() -> None:
    def teardown() -> None:
        raise ValueError("undo failed")

    disposer = Disposer(teardown)
    with pytest.raises(ValueError, match="undo failed"):
        await disposer()
    with pytest.raises(ValueError, match="undo failed"):
        await disposer()


async def test_a_cancelled_caller_does_not_abort_the_teardown() -> None:
    release = anyio.Event()
    started = anyio.Event()
    finished: list[str] = []

    async def teardown() -> None:
        started.set()
        await release.wait()
        finished.append("done")

    disposer = Disposer(teardown)
    async with anyio.create_task_group() as tg:
        tg.start_soon(disposer)
        await started.wait()
        tg.cancel_scope.cancel()
        release.set()
    assert finished == ["done"]
    await disposer()  # already finished: returns at once


async def test_on_done_runs_after_the_teardown_even_when_it_fails() -> None:
    seen: list[str] = []

    def teardown() -> None:
        seen.append("teardown")
        raise RuntimeError("boom")

    disposer = Disposer(teardown, on_done=lambda: seen.append("done"))
    with pytest.raises(RuntimeError):
        await disposer()
    assert seen == ["teardown", "done"]
