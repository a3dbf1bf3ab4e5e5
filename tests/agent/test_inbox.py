"""The inbox: FIFO order, draining, steering requeue, clearing and the wake signal."""

from __future__ import annotations

import anyio
import pytest

from dsh_lsp.agent import Inbox, InboxMessage, as_blocks
from dsh_lsp.llm import PluginSource, TextBlock, UserSource


def _msg(text: str) -> InboxMessage:
    return InboxMessage(content=as_blocks(text), source=UserSource())


def _texts(messages: tuple[InboxMessage, ...]) -> list[str]:
    out = []
    for message in messages:
        block = message.content[0]
        assert isinstance(block, TextBlock)
        out.append(block.text)
    return out


def test_as_blocks_wraps_text_and_keeps_blocks() -> None:
    assert as_blocks("hi") == (TextBlock(text="hi"),)
    blocks = [TextBlock(text="a"), TextBlock(text="b")]
    assert as_blocks(blocks) == tuple(blocks)


def test_queued_drains_whole_fifo_in_order() -> None:
    inbox = Inbox()
    for text in ("a", "b", "c"):
        inbox.queue(_msg(text))
    assert inbox.has_queued
    assert _texts(inbox.drain_queued()) == ["a", "b", "c"]
    assert not inbox.has_queued
    assert inbox.drain_queued() == ()


def test_steering_is_separate_and_requeues_ahead_of_queued() -> None:
    inbox = Inbox()
    inbox.steer(_msg("s1"))
    inbox.steer(_msg("s2"))
    inbox.queue(_msg("q"))
    assert inbox.has_steering
    inbox.requeue_steering()
    assert not inbox.has_steering
    assert _texts(inbox.drain_queued()) == ["s1", "s2", "q"]


def test_clear_drops_both_fifos() -> None:
    inbox = Inbox()
    inbox.queue(_msg("q"))
    inbox.steer(InboxMessage(content=as_blocks("s"), source=PluginSource(plugin="p")))
    inbox.clear()
    assert not inbox.has_queued
    assert not inbox.has_steering


@pytest.mark.parametrize("signal", ["queue", "wake"])
async def test_wait_returns_after_queue_or_wake_and_rearms(signal: str) -> None:
    inbox = Inbox()
    returns = 0

    async def waiter() -> None:
        nonlocal returns
        await inbox.wait()
        returns += 1

    async with anyio.create_task_group() as group:
        group.start_soon(waiter)
        await anyio.wait_all_tasks_blocked()
        assert returns == 0
        if signal == "queue":
            inbox.queue(_msg("x"))
        else:
            inbox.wake()
        await anyio.wait_all_tasks_blocked()
        assert returns == 1
        group.start_soon(waiter)
        await anyio.wait_all_tasks_blocked()
        assert returns == 1, "wait must park again once it has returned"
        inbox.wake()
    assert returns == 2
