"""LoopServices: the services one agent loop works with, resolved per activation (agent_loop)."""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.agent import AgentRegistry
from dsh_lsp.kernel import Context
from dsh_lsp.llm import LlmService
from dsh_lsp.session import SessionStore
from dsh_lsp.tools import SystemPrompt, ToolRegistry


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopServices:
    """The loop plugin's context and the services it injects.

    ``ctx`` owns every driver task and agent lifecycle effect; it dispatches the loop's
    events.
    """

    ctx: Context
    agents: AgentRegistry
    sessions: SessionStore
    llm: LlmService
    tools: ToolRegistry
    system_prompt: SystemPrompt
