"""AgentError: failures of the agent vocabulary and of a turn's own machinery (agent layer).

Tree (the root lives in the kernel)::

    DshError                 dsh_lsp.kernel
     └── AgentError          registry misuse, a disposed agent, a model request without a model

A turn that fails records ``error{step, message, code}`` from whatever it caught; ``code`` is
the error's own code for a ``DshError`` and ``UNKNOWN`` otherwise.
"""

from __future__ import annotations

from typing import ClassVar, Final

from dsh_lsp.kernel import DshError


class AgentCode:
    """The stable codes an ``AgentError`` carries (a namespace of plain strings)."""

    AGENT_EXISTS: Final = "AGENT_EXISTS"
    """An agent with that id is already registered."""
    NO_AGENT_FACTORY: Final = "NO_AGENT_FACTORY"
    """``create``/``resume`` was called while no agent loop plugin fills the factory slot."""
    FACTORY_EXISTS: Final = "FACTORY_EXISTS"
    """A second agent loop tried to fill the factory slot."""
    AGENT_DISPOSED: Final = "AGENT_DISPOSED"
    """A message was sent to, or context injected into, an agent that is disposed."""
    NO_MODEL: Final = "NO_MODEL"
    """A model request was about to go out with an empty model name."""
    MODEL_FAILED: Final = "MODEL_FAILED"
    """The model ended its stream with an in-band error that carried no code of its own."""
    ABORTED: Final = "ABORTED"
    """The model ended its stream as aborted without the agent having been cancelled."""
    UNKNOWN: Final = "UNKNOWN"
    """A turn failed with an exception that is not a ``DshError``."""


class AgentError(DshError):
    """Misuse of the agent registry or of a disposed agent, or a turn-level failure.

    Raised by ``AgentRegistry`` (``AGENT_EXISTS``, ``NO_AGENT_FACTORY``, ``FACTORY_EXISTS``),
    by ``Agent.send``/``steer``/``inject`` on a disposed agent (``AGENT_DISPOSED``), and inside
    a turn by the loop (``NO_MODEL``, ``MODEL_FAILED``, ``ABORTED``), where it ends that turn.
    """

    code: ClassVar[str] = "AGENT_ERROR"


def error_code(error: BaseException) -> str:
    """The code a failed turn records for ``error``: its own for a ``DshError``, else UNKNOWN."""
    return error.code if isinstance(error, DshError) else AgentCode.UNKNOWN
