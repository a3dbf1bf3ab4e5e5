"""Agent: the handle UIs and plugins drive; the loop plugin is its only implementation (agent).

An agent owns one session (its append-only log) and an inbox. ``send`` queues a message that
starts a turn; ``steer`` adds one to the running turn (a plain ``send`` while not running);
``inject`` records context without waking the model; ``cancel`` stops the current turn and
drops what waits. None of these block: progress is observed through ``agent/status`` and the
session's ``turn/*`` events, or awaited with ``when_idle``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from dsh_lsp.llm import MessageSource

from .ids import AgentId
from .inbox import PromptContent
from .options import AgentOptions

if TYPE_CHECKING:
    from dsh_lsp.session import Session

AgentStatus = Literal["idle", "running", "disposed"]
"""``running`` while the driver works through turns; ``disposed`` for good."""


class Agent(Protocol):
    """One live agent. Obtain it from ``AgentRegistry.create``/``resume``; never construct it."""

    @property
    def id(self) -> AgentId:
        """The registry id."""
        ...

    @property
    def options(self) -> AgentOptions:
        """The model and prompt settings every step uses."""
        ...

    @property
    def session(self) -> Session:
        """The agent's session log (read it; only the loop appends turn events)."""
        ...

    @property
    def status(self) -> AgentStatus:
        """The current status; changes are announced on ``agent/status``."""
        ...

    def send(self, content: PromptContent, *, source: MessageSource | None = None) -> None:
        """Queue a message that starts (or joins the batch of) the next turn.

        ``source`` defaults to ``UserSource()``. Returns at once; the status does not flip
        synchronously. Raises AgentError (``AGENT_DISPOSED``) on a disposed agent.
        """
        ...

    def steer(self, content: PromptContent, *, source: MessageSource | None = None) -> None:
        """Add a message to the running turn, seen before its next model request; while the
        agent is not running this is ``send``. Raises AgentError (``AGENT_DISPOSED``)."""
        ...

    def inject(self, content: PromptContent, *, source: MessageSource | None = None) -> None:
        """Record context the model sees from its next request on, without waking it.

        While a turn runs the context joins that turn (after the current step's tool
        results); while idle it is logged at once as a one-turn ``injection`` turn.
        Raises AgentError (``AGENT_DISPOSED``).
        """
        ...

    def cancel(self, reason: str | None = None) -> None:
        """Stop the current turn (it ends ``aborted``) and drop every waiting message.

        A no-op when nothing runs or waits. Never raises.
        """
        ...

    async def when_idle(self) -> None:
        """Return once the agent is idle with nothing queued, or disposed and its driver has
        exited. Returns at once when that already holds."""
        ...
