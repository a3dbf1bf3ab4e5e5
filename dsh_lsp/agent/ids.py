"""The agent id: a branded string naming one live agent in the registry (agent layer)."""

from __future__ import annotations

from typing import NewType

AgentId = NewType("AgentId", str)
"""The id of one agent; by default the id of the session it drives."""
