"""The durability checkpoints of a turn: ``session/flush`` and its write-behind form (agent_loop).

The rule (docs/rfc/implemented/architecture/2026-12-01-durable-turns.md): the loop awaits a
flush once the turn's opening events are logged (``turn/start``, the user messages; the first
one also writes the header of a new session) and once a step's tool calls are logged, before
any of them runs (a background flush instead when every call is read-only); it asks for a
background flush (``session/flush-soon``) after each tool result and at each step end; and
it awaits a last flush after ``turn/end``. A failure of an
awaited flush inside the turn fails the turn; the last one has no place in the log (the turn
is closed), so it is reported on ``agent/error`` with step 0 and logged, never appended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from dsh_lsp.session import SESSION_FLUSH, SESSION_FLUSH_SOON

if TYPE_CHECKING:
    from .loop_agent import LoopAgent


async def make_durable(agent: LoopAgent) -> None:
    """Store everything the agent's session logged so far, shielded from cancellation.

    Raises what the persistence backend raises (``SessionError``): the turn fails then.
    """
    with anyio.CancelScope(shield=True):
        await agent.services.ctx.parallel(SESSION_FLUSH, agent.session)


def flush_soon(agent: LoopAgent) -> None:
    """Ask for a background flush of the agent's session. Never raises."""
    agent.services.ctx.emit_contained(SESSION_FLUSH_SOON, agent.session)


async def flush_session(agent: LoopAgent, turn: int) -> None:
    """Run ``session/flush`` for the agent's session, shielded from cancellation. Never
    raises (failures go to ``agent/error``)."""
    try:
        await make_durable(agent)
    except Exception as exc:
        agent.report_error(turn, 0, exc)
