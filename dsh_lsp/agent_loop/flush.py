"""The durability checkpoint after a turn: ``session/flush`` (agent_loop).

A flush failure has no place in the log (the turn is already closed), so it is reported on
``agent/error`` with step 0 and logged, never appended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from dsh_lsp.session import SESSION_FLUSH

if TYPE_CHECKING:
    from .loop_agent import LoopAgent


async def flush_session(agent: LoopAgent, turn: int) -> None:
    """Run ``session/flush`` for the agent's session, shielded from cancellation. Never
    raises (failures go to ``agent/error``)."""
    try:
        with anyio.CancelScope(shield=True):
            await agent.services.ctx.parallel(SESSION_FLUSH, agent.session)
    except Exception as exc:
        agent.report_error(turn, 0, exc)
