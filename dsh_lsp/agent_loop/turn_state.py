"""TurnState: what one running turn knows beyond its log, and the interruption signal (agent_loop).

The log stays the authority on what is open (Pitfall: an append whose listener raises is still
logged); the state holds what the log cannot say cheaply: the current step's tool calls and
which of them have a logged call or a finished outcome, context waiting for a safe point, and
whether any step hit the output budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dsh_lsp.llm import CallId, ContentBlock, ToolCallBlock
from dsh_lsp.tools import ExecutionOutcome


class TurnInterrupted(Exception):
    """Raised at a cancellation window when the turn must stop (cancel or dispose).

    Internal to the loop: the turn catches it and ends ``aborted`` or ``disposed``.
    """


@dataclass(slots=True)
class TurnState:
    """Mutable bookkeeping of the running turn; one per turn, owned by the driver."""

    turn: int
    step: int = 0
    calls: tuple[ToolCallBlock, ...] = ()
    """The current step's tool calls, once its assistant message is logged."""
    call_seqs: dict[CallId, int] = field(default_factory=dict)
    """The seq of each current call's ``tool/call`` event."""
    outcomes: dict[CallId, ExecutionOutcome] = field(default_factory=dict)
    """Finished calls whose result is not logged yet (released in call order)."""
    answered: set[CallId] = field(default_factory=set)
    """Current calls whose ``tool/result`` is logged."""
    additional_context: list[tuple[ContentBlock, ...]] = field(default_factory=list)
    """Post-execute context of the current step, logged after all its results."""
    max_tokens: bool = False
    """Some step of this turn ran out of output budget."""
    failed: bool = False
    """An error was recorded for this turn (recorded once)."""

    def begin_step(self) -> int:
        """Advance to the next step and forget the previous step's calls."""
        self.step += 1
        self.calls = ()
        self.call_seqs = {}
        self.outcomes = {}
        self.answered = set()
        self.additional_context = []
        return self.step
