"""The driver: one background task per agent that turns queued messages into turns (agent_loop).

Per iteration: park until something is queued; window 1 — a cancel that came while parked
dropped the queue, so re-park; status ``running``; window 2 — a cancel from a status listener
sends it back to ``idle``; run one turn; disarm the marker, move leftover steering to the
queue, and go ``idle`` unless more is queued. The driver never dies of a turn's failure (the
turn contains it) and exits only on disposal (or when its task is cancelled).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .turn import run_turn

if TYPE_CHECKING:
    from .loop_agent import LoopAgent

_log = logging.getLogger(__name__)


async def drive(agent: LoopAgent) -> None:
    """Run the agent until it is disposed; sets ``agent.exited`` when it returns."""
    inbox = agent.inbox
    try:
        while not agent.disposing:
            if not inbox.has_queued:
                agent.reset_cancel()
                agent.set_status("idle")
                agent.notify()
                await inbox.wait()
                continue
            if agent.cancel_requested:  # window 1: cancelled, then something new was queued
                agent.reset_cancel()
            agent.set_status("running")
            if agent.cancel_requested:  # window 2: cancelled from a status listener
                agent.reset_cancel()
                continue
            try:
                await run_turn(agent)
            except Exception:  # run_turn contains turn failures; this is a loop bug
                _log.exception("agent %r: the turn machinery failed", agent.id)
            agent.reset_cancel()
            inbox.requeue_steering()
    finally:
        agent.exited.set()
        agent.notify()
