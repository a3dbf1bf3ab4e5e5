"""``dsh-lsp run "<prompt>"``: the headless runner (cli layer).

It validates the settings its flags produce (the same ``DshSettings`` the editor's ``dsh``
section produces for the server; ``settings_from_flags``), loads the default plugin set
(``dsh_lsp.app``) plus the local file system confined to ``--cwd`` and terminal approval
(``approvals``), sends one prompt to a new agent (or to the session ``--session`` names), and
streams the turn to stdout (``TurnPrinter``) — reasoning dimmed on a terminal, text, tool
calls and their outcomes. The session id goes to stderr at the end. Exit status: 0 when the
turn completed (or stopped at max-tokens or max-steps, with a warning), 1 when it failed or
was rejected, 2 when the settings were invalid, the kernel could not start or the session
could not be opened, 130 when interrupted. Runner mode is not LSP, so stdout is free for the
answer; logs go to stderr.
"""

from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import anyio

from dsh_lsp.agent import AGENTS, Agent, AgentHandle, AgentSpec
from dsh_lsp.app import build_kernel_plugins
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin
from dsh_lsp.kernel import DshError, Kernel, PluginFailedError
from dsh_lsp.llm import JsonObject, JsonValue, ReasoningDelta, SessionId, TextBlock, TextDelta
from dsh_lsp.server import DshSettings, SettingsError, parse_settings
from dsh_lsp.session import (
    SESSION_EVENT,
    AssistantChunkPayload,
    ExtensionTurnEnd,
    SessionEventNotice,
    ToolCallPayload,
    ToolResultPayload,
    TurnAborted,
    TurnCompleted,
    TurnDisposed,
    TurnEndPayload,
    TurnEndReason,
    TurnFailed,
    TurnMaxSteps,
    TurnMaxTokens,
    TurnRejected,
)
from dsh_lsp.tools import TOOLS, ToolRegistry, parse_arguments

from .approvals import TerminalApprovalPlugin, TerminalPermissions

DIM, RESET = "\x1b[2m", "\x1b[0m"


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRequest:
    """The parsed ``run`` command line: what to do, and the ``dsh`` settings its flags set
    (a JSON object in the section's camelCase spelling, validated by ``run``)."""

    prompt: str
    cwd: Path
    session: str | None
    yes: bool
    settings: JsonObject


def settings_from_flags(args: argparse.Namespace) -> JsonObject:
    """The ``dsh`` section the ``run`` flags spell (unset flags are left out)."""
    model: dict[str, JsonValue] = {}
    for flag, key in (
        ("model", "name"),
        ("base_url", "baseUrl"),
        ("api_key_env", "apiKeyEnv"),
        ("thinking", "thinking"),
        ("reasoning_effort", "reasoningEffort"),
        ("temperature", "temperature"),
        ("max_tokens", "maxTokens"),
        ("stop", "stop"),
    ):
        value = getattr(args, flag)
        if value is not None:
            model[key] = value
    section: dict[str, JsonValue] = {"model": model} if model else {}
    if args.max_steps is not None:
        section["maxStepsPerTurn"] = args.max_steps
    if args.session_dir is not None:
        section["sessionDir"] = args.session_dir
    return section


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed ``run`` command line (see the module docstring); the exit status."""
    request = RunRequest(
        prompt=args.prompt,
        cwd=args.cwd.resolve(),
        session=args.session,
        yes=args.yes,
        settings=settings_from_flags(args),
    )
    return anyio.run(run, request, sys.stdout, sys.stderr, backend="asyncio")


class TurnPrinter:
    """Renders one session's events as they are logged (a ``session/event`` listener)."""

    def __init__(self, out: TextIO, tools: ToolRegistry, *, color: bool) -> None:
        self._out = out
        self._tools = tools
        self._color = color
        self._mode: str | None = None
        self.session: SessionId | None = None
        self.reason: TurnEndReason | None = None

    def _write(self, mode: str, text: str) -> None:
        if self._mode not in (None, mode):
            self._out.write("\n")
        self._mode = mode
        dim = self._color and mode == "reasoning"
        self._out.write(f"{DIM}{text}{RESET}" if dim else text)
        self._out.flush()

    def on_event(self, notice: SessionEventNotice) -> None:
        """Print the parts of the turn a person reads; ignore other sessions."""
        if notice.session.id != self.session:
            return
        match notice.event.payload:
            case AssistantChunkPayload(chunk=ReasoningDelta(text=text)):
                self._write("reasoning", text)
            case AssistantChunkPayload(chunk=TextDelta(text=text)):
                self._write("text", text)
            case ToolCallPayload(name=name, arguments=arguments):
                view = self._tools.present_call(name, parse_arguments(arguments))
                self._write("tool", f"→ {view.title}\n")
                self._mode = None
            case ToolResultPayload() as result:
                self._write("tool", f"  {_outcome(result)}\n")
                self._mode = None
            case TurnEndPayload(reason=reason):
                self.reason = reason
                if self._mode is not None:
                    self._out.write("\n")
                    self._out.flush()
                self._mode = None
            case _:
                pass  # other chunks and events, plugin payloads included, print nothing


def _outcome(result: ToolResultPayload) -> str:
    """``✓ (n lines)`` for a result, ``✗ <first line>`` for an error result."""
    text = "".join(block.text for block in result.content if isinstance(block, TextBlock))
    if result.is_error:
        return f"✗ {text.split(chr(10), 1)[0][:160]}"
    return f"✓ ({text.count(chr(10)) + 1 if text else 0} lines)"


async def _open(request: RunRequest, settings: DshSettings, kernel: Kernel) -> AgentHandle:
    agents = kernel.context.require(AGENTS)
    options = settings.agent_options()
    if request.session is not None:
        return await agents.resume(SessionId(request.session), options=options)
    return await agents.create(AgentSpec(options=options, cwd=str(request.cwd)))


async def _watch_interrupts(agent: Agent) -> None:
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            agent.cancel("interrupted")


async def run(request: RunRequest, out: TextIO, err: TextIO) -> int:
    """Run one prompt (see the module docstring); returns the exit status. Never raises
    for failures it can explain: it reports them on ``err``."""
    try:
        settings = parse_settings(request.settings)
    except SettingsError as exc:
        err.write(f"dsh-lsp: invalid settings: {exc}\n")
        return 2
    interactive = sys.stdin is not None and sys.stdin.isatty()
    permissions = TerminalPermissions(
        yes=request.yes, interactive=interactive, prompt=err, answer=lambda: sys.stdin.readline()
    )
    async with Kernel() as kernel:
        ctx = kernel.context
        try:
            await build_kernel_plugins(ctx, settings)
            await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(request.cwd)]})
            await ctx.plugin(TerminalApprovalPlugin(permissions))
            await kernel.wait_settled()  # the file tools activate once FS is provided
        except PluginFailedError as exc:
            err.write(f"dsh-lsp: cannot start: {exc.__cause__ or exc}\n")
            return 2
        printer = TurnPrinter(out, ctx.require(TOOLS), color=out.isatty())
        ctx.on(SESSION_EVENT, printer.on_event)
        try:
            handle = await _open(request, settings, kernel)
        except DshError as exc:
            err.write(f"dsh-lsp: cannot open the session: {exc}\n")
            return 2
        agent = handle.agent
        printer.session = agent.session.id
        async with anyio.create_task_group() as group:
            group.start_soon(_watch_interrupts, agent)
            agent.send(request.prompt)
            await agent.when_idle()
            group.cancel_scope.cancel()
        await handle.dispose()
    err.write(f"session: {agent.session.id}\n")
    return _status(printer.reason, err)


def _status(reason: TurnEndReason | None, err: TextIO) -> int:
    match reason:
        case TurnCompleted():
            return 0
        case TurnMaxTokens() | TurnMaxSteps():
            err.write(f"dsh-lsp: the turn stopped early ({reason.kind})\n")
            return 0
        case TurnAborted() | TurnDisposed():
            err.write("dsh-lsp: interrupted\n")
            return 130
        case ExtensionTurnEnd():  # default for plugin kinds: the turn ended without an error
            err.write(f"dsh-lsp: the turn ended ({reason.kind})\n")
            return 0
        case TurnFailed(message=detail) | TurnRejected(reason=detail):
            err.write(f"dsh-lsp: the turn failed ({reason.kind}): {detail}\n")
            return 1
        case _:  # no turn/end, or one written by crash repair
            kind = None if reason is None else reason.kind
            err.write(f"dsh-lsp: the turn failed ({kind}): \n")
            return 1
