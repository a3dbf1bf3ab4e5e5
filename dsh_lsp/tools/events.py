"""The events of the tools layer: the interception seams around tool calls and prompt assembly.

=============================  ===============================================  ============
event                          payload → result                                 mode
=============================  ===============================================  ============
``TOOLS_PRE_EXECUTE``          ``ToolExecution`` → ``PreToolDecision``          waterfall
``TOOLS_POST_EXECUTE``         ``PostExecutePayload`` → ``PostToolDecision``    waterfall
``TOOLS_CHANGE``               ``None`` (a tool was registered or removed)      emit
``SYSTEM_PROMPT_ASSEMBLE``     ``PromptAssembly`` → ``PromptAssembly``          waterfall
``SYSTEM_PROMPT_CHANGE``       ``None`` (a section or tool provider changed)    emit
=============================  ===============================================  ============

The waterfalls' innermost results are ``Allow()``, ``Accept()`` and the assembly unchanged.
"""

from __future__ import annotations

from dsh_lsp.kernel import EmitEvent, WaterfallEvent

from .decisions import PostExecutePayload, PostToolDecision, PreToolDecision
from .definition import ToolExecution
from .prompt import PromptAssembly

TOOLS_PRE_EXECUTE: WaterfallEvent[ToolExecution, PreToolDecision] = WaterfallEvent(
    "tools/pre-execute"
)
"""Before a call runs: allow it, deny it with a reason, or ask the permission service."""

TOOLS_POST_EXECUTE: WaterfallEvent[PostExecutePayload, PostToolDecision] = WaterfallEvent(
    "tools/post-execute"
)
"""After a call produced its result (failures included): accept, replace or block it."""

TOOLS_CHANGE: EmitEvent[None] = EmitEvent("tools/change")
"""The set of registered tools changed."""

SYSTEM_PROMPT_ASSEMBLE: WaterfallEvent[PromptAssembly, PromptAssembly] = WaterfallEvent(
    "system-prompt/assemble"
)
"""One assembly per step: listeners return a rewritten assembly (edit sections, filter tools)."""

SYSTEM_PROMPT_CHANGE: EmitEvent[None] = EmitEvent("system-prompt/change")
"""A prompt section or tool provider was registered or removed."""
