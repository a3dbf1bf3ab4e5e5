"""Injected context: logged into the running turn at a safe point, or as its own turn (agent_loop).

``inject`` never wakes the model. While a turn is open in the log the context joins it: at
once between steps, or — while a step is open, so that a call and its result stay adjacent —
after that step's tool results. While no turn is open it is logged at once as a one-turn
``injection`` turn (``turn/start{trigger: injection}`` → ``context/message`` →
``turn/end{completed}``) and flushed in the background; a flush failure is reported on
``agent/error`` with step 0.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from dsh_lsp.agent import InboxMessage, error_code
from dsh_lsp.kernel import KernelClosedError
from dsh_lsp.session import (
    ContextMessagePayload,
    InjectionTrigger,
    TurnEndPayload,
    TurnStartPayload,
    end_reason,
)

from .flush import flush_session

if TYPE_CHECKING:
    from .loop_agent import LoopAgent


def log_context(agent: LoopAgent, message: InboxMessage) -> None:
    """Append one ``context/message`` now. Raises what ``Session.append`` raises."""
    agent.session.write(
        ContextMessagePayload(content=tuple(message.content), source=message.source),
        surface_op="append",
    )


def inject_now(agent: LoopAgent, message: InboxMessage) -> None:
    """Route injected context (see the module docstring). Raises what ``Session.append``
    raises for an idle injection (the injection turn is still closed)."""
    session = agent.session
    if session.open_turn() is not None:
        if session.open_step() is not None:
            agent.pending_context.append(message)
        else:
            log_context(agent, message)
        return
    turn = session.last_turn() + 1
    failure: Exception | None = None
    size = len(session.events)
    try:
        session.write(TurnStartPayload(turn=turn, trigger=InjectionTrigger()))
        log_context(agent, message)
    except Exception as exc:
        failure = exc
    finally:
        if session.open_turn() == turn:
            logged = len(session.events) - size >= 2
            if logged or failure is None:
                reason = end_reason("completed")
            else:
                reason = end_reason("error", step=0, message=str(failure), code=error_code(failure))
            session.write(TurnEndPayload(turn=turn, reason=reason))
    with contextlib.suppress(KernelClosedError):  # the loop is unloading: nothing to flush to
        agent.services.ctx.start_soon(flush_session, agent, turn, name="injection flush")
    if failure is not None:
        raise failure
