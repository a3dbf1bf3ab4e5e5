"""Property: any sequence of load / provide / withdraw / dispose keeps the books straight.

After every step (once deferred activations settled) each fiber's state agrees with the
services present, and the kernel holds exactly the listeners, services and tasks of the
active fibers plus the root's own; after disposing everything, nothing is left behind.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_lsp.kernel import (
    Context,
    Disposer,
    EmitEvent,
    Fiber,
    FiberState,
    Kernel,
    Plugin,
    PluginFailedError,
    ServiceKey,
)

from .support import plugin

KEYS: tuple[ServiceKey[str], ...] = tuple(ServiceKey(f"svc{i}") for i in range(2))
EVENTS: tuple[EmitEvent[str], ...] = tuple(EmitEvent(f"evt{i}") for i in range(2))


def ignore(payload: str) -> None:
    """A listener that does nothing."""


@dataclass(frozen=True)
class Spec:
    """What one generated plugin does in its apply."""

    inject: frozenset[int]
    provides: frozenset[int]
    listens: tuple[int, ...]
    task: bool
    child: bool
    fails: bool


@dataclass(frozen=True)
class Load:
    spec: Spec


@dataclass(frozen=True)
class RootProvide:
    key: int


@dataclass(frozen=True)
class RootListen:
    event: int


@dataclass(frozen=True)
class RootWithdraw:
    key: int


@dataclass(frozen=True)
class RootUnlisten:
    index: int


@dataclass(frozen=True)
class DisposeFiber:
    index: int


Op = Load | RootProvide | RootWithdraw | RootListen | RootUnlisten | DisposeFiber

indices = st.integers(min_value=0, max_value=1)
specs = st.builds(
    Spec,
    inject=st.frozensets(indices, max_size=1),
    provides=st.frozensets(indices, max_size=1),
    listens=st.lists(indices, max_size=2).map(tuple),
    task=st.booleans(),
    child=st.booleans(),
    fails=st.sampled_from([False, False, False, True]),
)
positions = st.integers(min_value=0, max_value=9)
ops: st.SearchStrategy[Op] = st.one_of(
    st.builds(Load, specs),
    st.builds(Load, specs),
    st.builds(RootProvide, indices),
    st.builds(RootProvide, indices),
    st.builds(RootWithdraw, indices),
    st.builds(RootWithdraw, indices),
    st.builds(RootListen, indices),
    st.builds(RootUnlisten, positions),
    st.builds(DisposeFiber, positions),
)


async def idle() -> None:
    await anyio.sleep_forever()


def build(spec: Spec, index: int) -> Plugin[None]:
    async def child(ctx: Context) -> None:
        ctx.on(EVENTS[0], ignore)
        ctx.start_soon(idle)

    async def apply(ctx: Context) -> None:
        for key in spec.inject:
            ctx.require(KEYS[key])
        for event in spec.listens:
            ctx.on(EVENTS[event], ignore)
        if spec.task:
            ctx.start_soon(idle)
        for key in sorted(spec.provides):
            ctx.provide(KEYS[key], f"p{index}")
        if spec.child:
            await ctx.plugin(plugin(f"p{index}-child", child))
        if spec.fails:
            raise RuntimeError("generated failure")

    return plugin(f"p{index}", apply, inject=tuple(KEYS[k] for k in spec.inject))


async def run(sequence: list[Op]) -> None:
    async with Kernel() as kernel:
        root = kernel.context
        fibers: list[tuple[Spec, Fiber]] = []
        root_services: dict[int, Disposer] = {}
        root_listeners: list[tuple[int, Disposer]] = []
        for op in sequence:
            match op:
                case Load(spec=spec):
                    try:
                        fiber = await root.plugin(build(spec, len(fibers)))
                    except PluginFailedError as exc:
                        fiber = exc.fiber
                    fibers.append((spec, fiber))
                case RootProvide(key=key):
                    if root.get(KEYS[key]) is None:
                        root_services[key] = root.provide(KEYS[key], "root")
                case RootWithdraw(key=key):
                    if key in root_services:
                        await root_services.pop(key)()
                case RootListen(event=event):
                    root_listeners.append((event, root.on(EVENTS[event], ignore)))
                case RootUnlisten(index=index):
                    if root_listeners:
                        _, handle = root_listeners.pop(index % len(root_listeners))
                        await handle()
                case DisposeFiber(index=index):
                    if fibers:
                        _, fiber = fibers.pop(index % len(fibers))
                        await fiber.dispose()
            await kernel.wait_settled()
            check_books(kernel, fibers, set(root_services), [e for e, _ in root_listeners])

        for _, fiber in fibers:
            await fiber.dispose()
        for handle in [*root_services.values(), *(h for _, h in root_listeners)]:
            await handle()
        assert_empty(kernel)
    assert_empty(kernel)


def check_books(
    kernel: Kernel,
    fibers: list[tuple[Spec, Fiber]],
    root_keys: set[int],
    root_listens: list[int],
) -> None:
    provided = set(kernel.service_keys())
    active = [spec for spec, fiber in fibers if fiber.state is FiberState.ACTIVE]
    for spec, fiber in fibers:
        ready = all(KEYS[k].name in provided for k in spec.inject)
        if fiber.state is FiberState.ACTIVE:
            assert ready
        elif fiber.state is FiberState.PENDING:
            assert not ready
        else:
            assert fiber.state is FiberState.FAILED
    expected_keys = {KEYS[k].name for k in root_keys}
    for spec in active:
        mine = {KEYS[k].name for k in spec.provides}
        assert not mine & expected_keys  # no two providers ever share a key
        expected_keys |= mine
    assert provided == expected_keys
    for event_index, event in enumerate(EVENTS):
        expected = root_listens.count(event_index)
        expected += sum(spec.listens.count(event_index) for spec in active)
        if event_index == 0:
            expected += sum(1 for spec in active if spec.child)
        assert kernel.listener_count(event) == expected
    assert kernel.task_count() == sum(int(s.task) + int(s.child) for s in active)


def assert_empty(kernel: Kernel) -> None:
    assert kernel.service_keys() == frozenset()
    assert all(kernel.listener_count(event) == 0 for event in EVENTS)
    assert kernel.task_count() == 0
    assert kernel.fiber_count() == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(ops, max_size=20))
def test_random_lifecycles_leave_nothing_behind(sequence: list[Op]) -> None:
    anyio.run(run, sequence, backend="asyncio")
