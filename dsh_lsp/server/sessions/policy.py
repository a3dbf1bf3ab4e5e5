"""The ``dsh.permissions`` policy as a ``tools/pre-execute`` listener (server layer).

Registered ahead of every other listener, it lets the rest of the chain decide first and then
applies the user's settings to the answer:

- ``Allow`` for an edit-kind call (edit, delete, move) becomes ``Ask`` when
  ``permissions.edit`` is ``ask``;
- ``Allow`` for an execute-kind call becomes ``Ask`` or ``Deny`` per ``permissions.shell``;
  with ``ask``, a simple ``bash`` command (no chaining, pipes, substitution or redirection)
  that a ``permissions.shellAllow`` prefix or a prefix remembered for the session's
  workspace (``ShellAllowList``) covers runs without asking; the question names the exact
  command, its folder and its description;
- ``Ask`` for a read-only tool (the file tools' gate for paths outside the workspace) becomes
  ``Allow`` or ``Deny`` per ``permissions.readOutsideWorkspace``.

The settings are read on every call, so a configuration change applies from the next call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from dsh_lsp.server.settings import PermissionSettings
from dsh_lsp.shell import prefix_allows
from dsh_lsp.tools import (
    Allow,
    Ask,
    Deny,
    PreToolDecision,
    ToolExecution,
    ToolRegistry,
    outside_read_decision,
)

from .shell_rules import ShellAllowList

PreExecuteListener = Callable[
    [ToolExecution, Callable[[], Awaitable[PreToolDecision]]], Awaitable[PreToolDecision]
]

_EDIT_KINDS = frozenset({"edit", "delete", "move"})


def permission_policy(
    current: Callable[[], PermissionSettings],
    tools: ToolRegistry,
    shell_rules: ShellAllowList | None = None,
) -> PreExecuteListener:
    """The listener described in the module docstring."""

    async def policy(
        execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        decision = await proceed()
        settings = current()
        name = execution.name
        if isinstance(decision, Ask) and tools.is_read_only(name):
            return outside_read_decision(
                decision,
                settings.read_outside_workspace,
                name,
                "dsh.permissions.readOutsideWorkspace",
            )
        if not isinstance(decision, Allow) or tools.is_read_only(name):
            return decision  # a read-only tool edits nothing and runs nothing
        kind = tools.present_call(name, execution.arguments).kind
        if kind in _EDIT_KINDS and settings.edit == "ask":
            return Ask(reason="dsh.permissions.edit is 'ask'")
        if kind == "execute":
            match settings.shell:
                case "ask":
                    return _shell_decision(execution, settings, shell_rules)
                case "deny":
                    return Deny(reason="running commands is off (dsh.permissions.shell is 'deny')")
                case "allow":
                    return decision
        return decision

    return policy


def shell_command(execution: ToolExecution) -> str | None:
    """The command of a ``bash`` call, if that is what ``execution`` is."""
    args = execution.arguments
    if execution.name != "bash" or not isinstance(args, dict):
        return None
    command = args.get("command")
    return command if isinstance(command, str) else None


def shell_question(execution: ToolExecution) -> str:
    """Why a command asks: the exact command, its folder and its description."""
    args = execution.arguments if isinstance(execution.arguments, dict) else {}
    command = shell_command(execution) or ""
    session = execution.session
    where = session.header.cwd if session is not None and session.header.cwd else "?"
    workdir = args.get("workdir")
    if isinstance(workdir, str) and workdir:
        where = f"{where}/{workdir}"
    description = args.get("description")
    about = f" — {description}" if isinstance(description, str) and description else ""
    return f"runs `{command}` in {where}{about} (dsh.permissions.shell is 'ask')"


def _shell_decision(
    execution: ToolExecution, settings: PermissionSettings, rules: ShellAllowList | None
) -> PreToolDecision:
    command = shell_command(execution)
    if command is None:
        return Ask(reason="dsh.permissions.shell is 'ask'")
    session = execution.session
    workspace = None if session is None else session.header.cwd
    remembered = () if rules is None else rules.prefixes(workspace)
    if any(prefix_allows(prefix, command) for prefix in (*settings.shell_allow, *remembered)):
        return Allow()
    return Ask(reason=shell_question(execution))
