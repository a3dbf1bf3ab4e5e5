"""Terminal approvals: the runner's permission service, asking on stderr/stdin (cli layer).

``TerminalApprovalPlugin`` provides ``PERMISSIONS`` (``TerminalPermissions``) and applies the
runner's permission levels (``RunnerPermissions``, the ``--edit``/``--shell``/
``--read-outside`` flags) as a ``tools/pre-execute`` listener: an edit-kind call asks unless
edits are ``allow``; a command asks, runs or is refused per ``shell`` (a simple command
starting with a ``--shell-allow`` prefix runs without asking); a read outside the
workspace asks, runs or is refused per ``read_outside``; any other call of a tool that is not
read-only asks. ``--yes`` approves every question. Without a terminal to answer, a question
is never asked: the model reads ``not approved: no terminal to ask (use --yes or a
permission setting)``.

A question shows what will happen (``describe_call``): the diff of an edit, the command and
its folder for a command, the path of a read outside the workspace; the answers are allow
once, always (for this session) and deny.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar, Final, Literal, TextIO

import anyio
import anyio.to_thread

from dsh_lsp.fs_tools import diff_texts, render_unified
from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import JsonObject
from dsh_lsp.shell import prefix_allows
from dsh_lsp.tools import (
    PERMISSIONS,
    TOOLS,
    TOOLS_PRE_EXECUTE,
    Allow,
    Ask,
    Deny,
    PermissionOutcome,
    PreToolDecision,
    ToolCallView,
    ToolExecution,
    outside_read_decision,
)

NO_TERMINAL: Final = "not approved: no terminal to ask (use --yes or a permission setting)"
"""What the model reads when a call needs approval and nobody can be asked."""
PROMPT: Final = "Allow? [y] once / [a] always for this session / [N] deny: "
MAX_SHOWN_LINES: Final = 60
"""Longer diffs and argument dumps are cut at this many lines (the rest is counted)."""

_EDIT_KINDS = frozenset({"edit", "delete", "move"})


@dataclass(frozen=True, slots=True, kw_only=True)
class RunnerPermissions:
    """The runner's permission level per kind of call (the ``dsh.permissions`` values)."""

    edit: Literal["allow", "ask"] = "ask"
    shell: Literal["ask", "allow", "deny"] = "ask"
    read_outside: Literal["ask", "allow", "deny"] = "ask"
    shell_allow: tuple[str, ...] = ()
    """Command prefixes that run without asking while ``shell`` is ``ask`` (simple
    commands only: ``dsh_lsp.shell.prefix_allows``)."""


class TerminalPermissions:
    """A ``PermissionService`` for a terminal: approve everything (``yes``), or ask on
    ``prompt``/``answer`` (stderr/stdin). ``interactive`` tells whether anyone can answer;
    the plugin never asks when nobody can (see the module docstring)."""

    __slots__ = ("_answer", "_lock", "_prompt", "_yes", "interactive")

    def __init__(
        self,
        *,
        yes: bool,
        interactive: bool,
        prompt: TextIO,
        answer: Callable[[], str],
    ) -> None:
        self._yes = yes
        self.interactive = interactive
        self._prompt = prompt
        self._answer = answer
        self._lock = anyio.Lock()
        """One question at a time: concurrent read-only calls must not race for stdin."""

    @property
    def approves_everything(self) -> bool:
        """``--yes``: every question is answered ``allow_once`` without asking."""
        return self._yes

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        """The answer for one call: ``y`` once, ``a`` always (this session), else reject.

        Shows what the call will do first (``describe_call``). Questions are asked one at a
        time. Cancelling the turn (Ctrl-C) abandons a pending question at once; the line the
        user may still type is discarded. Never raises but for cancellation.
        """
        if self._yes:
            return "allow_once"
        if not self.interactive:
            return "reject_once"
        why = f" ({reason})" if reason else ""
        async with self._lock:
            self._prompt.write(f"{view.title}{why}\n{describe_call(exec, view)}{PROMPT}")
            self._prompt.flush()
            answer = await anyio.to_thread.run_sync(self._answer, abandon_on_cancel=True)
        reply = answer.strip().lower()
        if reply in ("y", "yes"):
            return "allow_once"
        if reply in ("a", "always"):
            # "always" for a command would approve every later command, chains included
            return "allow_once" if exec.name == "bash" else "allow_always"
        return "reject_once"


def describe_call(exec: ToolExecution, view: ToolCallView) -> str:
    """What a call will do, as lines ending in ``\\n``: the unified diff of each change for
    an edit, ``$ command`` and ``in folder`` for a command, the paths for a read, else the
    arguments as JSON. Never raises."""
    raw = exec.arguments
    args: JsonObject = raw if isinstance(raw, dict) else {}
    lines: list[str] = []
    if view.diffs:
        for diff in view.diffs:
            old = diff.old_text or ""
            label = diff.path if diff.old_text is not None else f"{diff.path} (new content)"
            lines.extend(render_unified(label, diff_texts(old, diff.new_text).hunks).splitlines())
    elif view.kind == "execute":
        command = args.get("command")
        lines.append(f"$ {command if isinstance(command, str) else json.dumps(command)}")
        folder: str | None = None
        for key in ("cwd", "workdir", "directory"):
            value = args.get(key)
            if isinstance(value, str):
                folder = value
                break
        lines.append(f"in {folder if folder is not None else 'the workspace root'}")
    elif view.locations:
        lines.extend(f"path: {location.path}" for location in view.locations)
    elif raw:
        lines.extend(json.dumps(raw, indent=2, ensure_ascii=False).splitlines())
    if len(lines) > MAX_SHOWN_LINES:
        rest = len(lines) - MAX_SHOWN_LINES
        lines = [*lines[:MAX_SHOWN_LINES], f"… ({rest} more lines)"]
    return "".join(f"  {line}\n" for line in lines)


class TerminalApprovalPlugin(Plugin[None]):
    """Provides ``PERMISSIONS`` (``TerminalPermissions``) and applies ``RunnerPermissions``
    to every call (a ``tools/pre-execute`` listener, see the module docstring); injects
    ``TOOLS``."""

    name: ClassVar[str] = "terminal-approval"
    inject = (TOOLS,)

    def __init__(
        self, permissions: TerminalPermissions, levels: RunnerPermissions | None = None
    ) -> None:
        self.permissions = permissions
        self.levels = RunnerPermissions() if levels is None else levels

    async def apply(self, ctx: Context, config: None) -> None:
        """Provide the service and the policy listener, owned by this plugin's fiber."""
        tools = ctx.require(TOOLS)
        levels = self.levels
        permissions = self.permissions
        ctx.provide(PERMISSIONS, permissions)

        def level(decision: PreToolDecision, execution: ToolExecution) -> PreToolDecision:
            name = execution.name
            if isinstance(decision, Ask) and tools.is_read_only(name):
                return outside_read_decision(decision, levels.read_outside, name, "--read-outside")
            if not isinstance(decision, Allow) or tools.is_read_only(name):
                return decision
            kind = tools.present_call(name, execution.arguments).kind
            if kind in _EDIT_KINDS:
                return decision if levels.edit == "allow" else Ask(reason="--edit is 'ask'")
            if kind == "execute":
                match levels.shell:
                    case "allow":
                        return decision
                    case "deny":
                        return Deny(reason="running commands is off (--shell is 'deny')")
                    case "ask":
                        command = _command(execution)
                        if any(prefix_allows(p, command) for p in levels.shell_allow):
                            return decision
                        return Ask(reason="--shell is 'ask'")
            return Ask(reason="it may change files or run commands")

        async def apply_levels(
            execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
        ) -> PreToolDecision:
            decision = level(await proceed(), execution)
            if (
                isinstance(decision, Ask)
                and not permissions.approves_everything
                and not permissions.interactive
            ):
                return Deny(reason=NO_TERMINAL)
            return decision

        ctx.on(TOOLS_PRE_EXECUTE, apply_levels)


def _command(execution: ToolExecution) -> str:
    raw = execution.arguments
    command = raw.get("command") if isinstance(raw, dict) else None
    return command if isinstance(command, str) else ""
