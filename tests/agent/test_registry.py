"""AgentRegistry: the factory slot, registration with its announcements, and lookups."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio
import pytest

from dsh_lsp.agent import (
    AGENT_CREATED,
    AGENT_DISPOSED,
    AGENTS,
    Agent,
    AgentCode,
    AgentError,
    AgentHandle,
    AgentId,
    AgentOptions,
    AgentRegistry,
    AgentSpec,
    AgentsPlugin,
    ResumeSpec,
)
from dsh_lsp.kernel import Kernel


@dataclass
class _Agent:
    """Just enough of an agent for the registry (it reads only ``id``)."""

    id: AgentId


@dataclass
class _Factory:
    created: list[AgentSpec] = field(default_factory=list)
    resumed: list[ResumeSpec] = field(default_factory=list)

    async def create(self, spec: AgentSpec) -> AgentHandle:
        self.created.append(spec)
        return AgentHandle(_agent("new"), _noop)

    async def resume(self, spec: ResumeSpec) -> AgentHandle:
        self.resumed.append(spec)
        return AgentHandle(_agent("old"), _noop)


async def _noop() -> None:
    return None


def _agent(name: str) -> Agent:
    # The registry reads only ``id``; the stand-in is not a full Agent.
    return _Agent(id=AgentId(name))  # type: ignore[return-value]


@contextlib.asynccontextmanager
async def _registry() -> AsyncIterator[AgentRegistry]:
    # Kernels are entered inside each test: a fixture's setup and teardown run in different
    # tasks, and the kernel's task group must be exited by the task that entered it.
    async with Kernel() as kernel:
        await kernel.context.plugin(AgentsPlugin)
        yield kernel.context.require(AGENTS)


async def test_create_and_resume_without_a_loop_fail_with_a_code() -> None:
    async with _registry() as registry:
        await _without_factory(registry)


async def _without_factory(registry: AgentRegistry) -> None:
    options = AgentOptions(model="m")
    with pytest.raises(AgentError) as caught:
        await registry.create(AgentSpec(options=options))
    assert caught.value.code == AgentCode.NO_AGENT_FACTORY
    with pytest.raises(AgentError) as caught:
        await registry.resume(AgentId("s"), options=options)  # type: ignore[arg-type]
    assert caught.value.code == AgentCode.NO_AGENT_FACTORY


async def test_factory_slot_takes_one_factory_and_delegates() -> None:
    async with _registry() as registry:
        await _with_factory(registry)


async def _with_factory(registry: AgentRegistry) -> None:
    factory = _Factory()
    clear = registry.set_factory(factory)
    with pytest.raises(AgentError) as caught:
        registry.set_factory(_Factory())
    assert caught.value.code == AgentCode.FACTORY_EXISTS
    options = AgentOptions(model="m")
    handle = await registry.create(AgentSpec(options=options, cwd="/w"))
    assert handle.agent.id == "new"
    assert factory.created[0].cwd == "/w"
    await registry.resume(AgentId("s"), options=options)  # type: ignore[arg-type]
    assert factory.resumed[0].session_id == "s"
    clear()
    with pytest.raises(AgentError):
        await registry.create(AgentSpec(options=options))
    registry.set_factory(_Factory())


async def test_register_announces_and_rejects_duplicates() -> None:
    seen: list[tuple[str, AgentId]] = []
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(AgentsPlugin)
        ctx.on(AGENT_CREATED, lambda agent: seen.append(("created", agent.id)))
        ctx.on(AGENT_DISPOSED, lambda agent: seen.append(("disposed", agent.id)))
        registry = ctx.require(AGENTS)
        first = _agent("a")
        unregister = registry.register(first)
        assert registry.get(AgentId("a")) is first
        assert registry.agents() == (first,)
        with pytest.raises(AgentError) as caught:
            registry.register(_agent("a"))
        assert caught.value.code == AgentCode.AGENT_EXISTS
        unregister()
        unregister()
        assert registry.get(AgentId("a")) is None
        registry.register(_agent("a"))
    assert seen == [("created", "a"), ("disposed", "a"), ("created", "a")]


async def test_handle_dispose_runs_once_for_concurrent_callers() -> None:
    runs = 0
    release = anyio.Event()

    async def teardown() -> None:
        nonlocal runs
        runs += 1
        await release.wait()

    handle = AgentHandle(_agent("a"), teardown)
    finished = 0

    async def dispose() -> None:
        nonlocal finished
        await handle.dispose()
        finished += 1

    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(dispose)
        await anyio.wait_all_tasks_blocked()
        assert handle.disposed
        assert finished == 0
        release.set()
    assert (runs, finished) == (1, 3)
    await handle.dispose()
    assert runs == 1


async def test_handle_dispose_reraises_the_teardown_error_to_every_caller() -> None:
    async def teardown() -> None:
        raise RuntimeError("boom")

    handle = AgentHandle(_agent("a"), teardown)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="boom"):
            await handle.dispose()
