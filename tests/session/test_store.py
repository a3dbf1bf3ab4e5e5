"""The kernel wiring: SessionPlugin, the store, the session events and the coordinator."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from dsh_lsp.kernel import Context, Kernel, PluginFailedError, ServiceConflictError
from dsh_lsp.llm import SessionId
from dsh_lsp.session import (
    SESSION_CREATED,
    SESSION_EVENT,
    SESSION_FLUSH,
    SESSION_FLUSH_SOON,
    SESSION_PERSISTENCE,
    SESSION_STORED,
    SESSIONS,
    TURN_END,
    JsonlPersistence,
    JsonlPersistencePlugin,
    PersistenceCoordinatorPlugin,
    Session,
    SessionError,
    SessionEventNotice,
    SessionPlugin,
    SessionStored,
    SqlitePersistencePlugin,
    completed_prefix,
    encode_event,
)
from tests.heard import Heard

from .scenarios import FakeClock, complete_turn, open_turn_with_calls


@asynccontextmanager
async def _persistent(root: Path, clock: FakeClock) -> AsyncIterator[Context]:
    """A kernel with the store, JSONL logs under ``root`` and the coordinator: its context."""
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin(clock=clock, new_id=lambda: SessionId("generated")))
        await ctx.plugin(JsonlPersistencePlugin(clock=clock), {"directory": str(root)})
        await ctx.plugin(PersistenceCoordinatorPlugin())
        yield ctx


def _blocker(tmp_path: Path) -> Path:
    """A file standing where a log directory's parent belongs: writes fail until it goes."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    return blocker


async def test_create_registers_announces_and_notifies(clock: FakeClock) -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin(clock=clock, new_id=lambda: SessionId("generated")))
        created: list[Session] = []
        notices: list[SessionEventNotice] = []
        ctx.on(SESSION_CREATED, created.append)
        ctx.on(SESSION_EVENT, notices.append)
        store = ctx.require(SESSIONS)
        session = store.create(cwd="/w", title="t")
        assert session.id == "generated"
        assert session.header.created_at == clock.now - 1
        assert (session.header.cwd, session.header.title) == ("/w", "t")
        assert created == [session]
        assert store.get(session.id) is session
        event = session.append("note/x", {})
        assert notices == [SessionEventNotice(session=session, event=event)]
        with pytest.raises(SessionError) as caught:
            store.create(session_id=session.id)
        assert caught.value.code == "SESSION_EXISTS"
        store.close(session.id)
        assert store.get(session.id) is None
        assert store.sessions() == ()


async def test_fork_seeds_the_completed_prefix(clock: FakeClock) -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin(clock=clock))
        store = ctx.require(SESSIONS)
        parent = store.create()
        complete_turn(parent)
        open_turn_with_calls(parent)
        prefix = completed_prefix(parent.events)
        child = store.create(seed=prefix, parent_session=parent.id)
        assert child.header.parent_session == parent.id
        assert child.header.seed_length == len(prefix)
        assert list(child.events) == list(prefix)
        assert child.id != parent.id


async def test_resume_without_persistence_fails_clearly() -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin())
        with pytest.raises(SessionError) as caught:
            await ctx.require(SESSIONS).resume(SessionId("x"))
        assert caught.value.code == "SESSION_NO_PERSISTENCE"


async def test_flush_writes_lazily_and_resume_continues(tmp_path: Path, clock: FakeClock) -> None:
    async with _persistent(tmp_path, clock) as ctx:
        store = ctx.require(SESSIONS)
        backend = ctx.require(SESSION_PERSISTENCE)
        idle = store.create()
        await ctx.parallel(SESSION_FLUSH, idle)
        assert await backend.list() == []

        session = store.create(session_id=SessionId("live"), cwd="/w")
        complete_turn(session)
        assert await backend.list() == []  # write-behind: nothing before the checkpoint
        await ctx.parallel(SESSION_FLUSH, session)
        await ctx.parallel(SESSION_FLUSH, session)  # nothing new: no second write
        complete_turn(session)
        await ctx.parallel(SESSION_FLUSH, session)
        reader = JsonlPersistence(tmp_path)
        stored = await reader.load(session.id)
        assert [encode_event(e) for e in stored.events] == [encode_event(e) for e in session.events]

        store.close(session.id)
        resumed = await store.resume(session.id)
        assert resumed.header == session.header
        assert resumed.stored_length == len(session)
        with pytest.raises(SessionError) as caught:
            await store.resume(session.id)
        assert caught.value.code == "SESSION_EXISTS"
        complete_turn(resumed)
        await ctx.parallel(SESSION_FLUSH, resumed)
        again = await JsonlPersistence(tmp_path).load(session.id)
        assert [encode_event(e) for e in again.events] == [encode_event(e) for e in resumed.events]
        assert resumed.last_turn() == 3


async def test_a_fork_is_materialized_with_its_seed(tmp_path: Path, clock: FakeClock) -> None:
    async with _persistent(tmp_path, clock) as ctx:
        store = ctx.require(SESSIONS)
        parent = store.create(session_id=SessionId("parent"))
        complete_turn(parent)
        child = store.create(session_id=SessionId("child"), seed=completed_prefix(parent.events))
        await ctx.parallel(SESSION_FLUSH, child)
        loaded = await JsonlPersistence(tmp_path).load(child.id)
        assert len(loaded.events) == len(parent)
        assert loaded.header.seed_length == len(parent)


async def test_unloading_the_coordinator_flushes_every_session(
    tmp_path: Path, clock: FakeClock
) -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin(clock=clock))
        await ctx.plugin(SqlitePersistencePlugin(clock=clock), {"path": str(tmp_path / "db")})
        coordinator = await ctx.plugin(PersistenceCoordinatorPlugin())
        store = ctx.require(SESSIONS)
        first = store.create(session_id=SessionId("a"))
        second = store.create(session_id=SessionId("b"))
        complete_turn(first)
        complete_turn(second)
        await ctx.parallel(SESSION_FLUSH, first)
        complete_turn(first)
        expected = {s.id: [encode_event(e) for e in s.events] for s in (first, second)}
        await coordinator.dispose()
        backend = ctx.require(SESSION_PERSISTENCE)
        for sid, lines in expected.items():
            loaded = await backend.load(sid)
            assert [encode_event(e) for e in loaded.events] == lines


async def test_a_failed_flush_keeps_the_events_and_the_next_flush_retries(
    tmp_path: Path, clock: FakeClock
) -> None:
    blocker = _blocker(tmp_path)
    async with _persistent(blocker / "x", clock) as ctx:
        session = ctx.require(SESSIONS).create(session_id=SessionId("retry"))
        complete_turn(session)
        with pytest.raises(SessionError) as caught:
            await ctx.parallel(SESSION_FLUSH, session)
        assert caught.value.code == "SESSION_IO"
        blocker.unlink()
        await ctx.parallel(SESSION_FLUSH, session)
        loaded = await JsonlPersistence(blocker / "x").load(session.id)
        assert loaded.events[-1].type == TURN_END
        assert len(loaded.events) == len(session)


async def test_two_coordinators_cannot_write_the_same_logs(
    tmp_path: Path, clock: FakeClock
) -> None:
    async with _persistent(tmp_path, clock) as ctx:
        with pytest.raises(PluginFailedError) as caught:
            await ctx.plugin(PersistenceCoordinatorPlugin())
        assert isinstance(caught.value.__cause__, ServiceConflictError)


async def test_flush_soon_writes_in_the_background_coalescing_and_reports_each_write(
    tmp_path: Path, clock: FakeClock
) -> None:
    async with _persistent(tmp_path, clock) as ctx:
        written: Heard[SessionStored] = Heard()
        ctx.on(SESSION_STORED, written)
        session = ctx.require(SESSIONS).create(session_id=SessionId("soon"))
        complete_turn(session)
        for _ in range(5):  # one write serves every request made before it starts
            ctx.emit(SESSION_FLUSH_SOON, session)
        assert written.items == []  # nothing was written on the caller's time
        await written.wait()
        assert [(n.stored, n.error) for n in written.items] == [(len(session), None)]
        loaded = await JsonlPersistence(tmp_path).load(session.id)
        assert len(loaded.events) == len(session)


async def test_a_failed_write_is_reported_on_session_stored(
    tmp_path: Path, clock: FakeClock
) -> None:
    blocker = _blocker(tmp_path)
    async with _persistent(blocker / "x", clock) as ctx:
        notices: list[SessionStored] = []
        ctx.on(SESSION_STORED, notices.append)
        session = ctx.require(SESSIONS).create(session_id=SessionId("fails"))
        complete_turn(session)
        with pytest.raises(SessionError):
            await ctx.parallel(SESSION_FLUSH, session)
        (notice,) = notices
        assert notice.stored == 0
        assert isinstance(notice.error, SessionError)
        assert notice.error.code == "SESSION_IO"
