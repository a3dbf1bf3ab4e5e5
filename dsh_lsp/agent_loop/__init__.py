"""The default agent loop, one swappable plugin. Only the composition root imports it.

``AgentLoopPlugin`` fills the agent registry's factory slot; each agent is a ``LoopAgent``
whose driver task runs turns (``turn``) made of steps (``step``): model call
(``model_call``), tool dispatch (``dispatch``), closing and flushing (``closing``, ``flush``).
"""

from __future__ import annotations

from .loop_agent import LoopAgent as LoopAgent
from .plugin import AgentLoopPlugin as AgentLoopPlugin

__all__ = ("AgentLoopPlugin", "LoopAgent")
