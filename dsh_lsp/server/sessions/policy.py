"""The ``dsh.permissions`` policy as a ``tools/pre-execute`` listener (server layer).

Registered ahead of every other listener, it lets the rest of the chain decide first and then
applies the user's settings to the answer:

- ``Allow`` for an edit-kind call (edit, delete, move) becomes ``Ask`` when
  ``permissions.edit`` is ``ask``;
- ``Allow`` for an execute-kind call becomes ``Ask`` or ``Deny`` per ``permissions.shell``;
- ``Ask`` for a read-only tool (the file tools' gate for paths outside the workspace) becomes
  ``Allow`` or ``Deny`` per ``permissions.readOutsideWorkspace``.

The settings are read on every call, so a configuration change applies from the next call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from dsh_lsp.server.settings import PermissionSettings
from dsh_lsp.tools import Allow, Ask, Deny, PreToolDecision, ToolExecution, ToolRegistry

PreExecuteListener = Callable[
    [ToolExecution, Callable[[], Awaitable[PreToolDecision]]], Awaitable[PreToolDecision]
]

_EDIT_KINDS = frozenset({"edit", "delete", "move"})


def permission_policy(
    current: Callable[[], PermissionSettings], tools: ToolRegistry
) -> PreExecuteListener:
    """The listener described in the module docstring."""

    async def policy(
        execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        decision = await proceed()
        settings = current()
        name = execution.name
        if isinstance(decision, Ask) and tools.is_read_only(name):
            match settings.read_outside_workspace:
                case "allow":
                    return Allow()
                case "deny":
                    why = decision.reason or f"{name} would read outside the workspace"
                    return Deny(reason=f"{why}, and dsh.permissions.readOutsideWorkspace is 'deny'")
                case "ask":
                    return decision
        if not isinstance(decision, Allow):
            return decision
        kind = tools.present_call(name, execution.arguments).kind
        if kind in _EDIT_KINDS and settings.edit == "ask":
            return Ask(reason="dsh.permissions.edit is 'ask'")
        if kind == "execute":
            match settings.shell:
                case "ask":
                    return Ask(reason="dsh.permissions.shell is 'ask'")
                case "deny":
                    return Deny(reason="running commands is off (dsh.permissions.shell is 'deny')")
                case "allow":
                    return decision
        return decision

    return policy
