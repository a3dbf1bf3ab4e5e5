"""``dsh-lsp run "<prompt>"``: the headless runner (cli layer).

It checks its arguments (``check_arguments``: an empty prompt, a ``--cwd`` that is not a
folder, a ``--shell-allow`` prefix that is not one simple command, ``--instructions`` with
``--no-instructions``, a ``--log-file`` whose folder does not exist), validates the
settings its flags produce (the same ``DshSettings`` the editor's ``dsh`` section produces
for the server; ``settings_from_flags``), loads the default plugin set (``dsh_lsp.app``)
plus the local file system confined to the workspace and terminal approval (``approvals``,
with the ``--edit``/``--shell``/``--read-outside`` levels and the ``--shell-allow``
prefixes), sends one prompt to a new agent (or to the session ``--session`` names), and
streams the turn to stdout (``TurnPrinter``) — reasoning dimmed on a terminal, text, tool
calls and their outcomes. The session id goes to stderr at the end.

One workspace per session: a new session's is ``--cwd`` (default: the current folder); a
resumed session's is the one its header states, used both to resolve paths and to confine
the file tools, wherever the runner starts; a ``--cwd`` naming another folder is refused.

Exit status: 0 when the turn completed (or stopped at max-tokens or max-steps, with a
warning), 1 when it failed or was rejected, 2 for a bad argument, invalid settings, a kernel
that could not start or a session that could not be opened (one line on stderr naming the
argument or setting), 130 when interrupted (also during start-up). Errors are shown with
their fix (``dsh_lsp.server.user_message``, the rule every front end shares). Runner mode is
not LSP, so stdout is free for the answer; logs go to stderr (or ``--log-file``) at
``--log-level``.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import anyio

from dsh_lsp.agent import AGENTS, Agent, AgentHandle, AgentSpec
from dsh_lsp.app import build_kernel_plugins
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin
from dsh_lsp.kernel import DshError, Kernel, PluginFailedError, loop_options
from dsh_lsp.llm import JsonObject, JsonValue, ReasoningDelta, SessionId, TextBlock, TextDelta
from dsh_lsp.server import DshSettings, SettingsError, parse_settings, user_message
from dsh_lsp.session import (
    SESSION_EVENT,
    AssistantChunkPayload,
    ExtensionTurnEnd,
    JsonlPersistence,
    SessionError,
    SessionEventNotice,
    SessionHeader,
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
from dsh_lsp.shell import valid_prefix
from dsh_lsp.tools import TOOLS, ToolRegistry, parse_arguments

from .approvals import RunnerPermissions, TerminalApprovalPlugin, TerminalPermissions
from .entry import TIMEOUT_FLAGS

DIM, RESET = "\x1b[2m", "\x1b[0m"


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRequest:
    """The parsed ``run`` command line: what to do, and the ``dsh`` settings its flags set
    (a JSON object in the section's camelCase spelling, validated by ``run``)."""

    prompt: str
    cwd: Path | None
    """``--cwd`` resolved, or None when it was not given."""
    session: str | None
    yes: bool
    settings: JsonObject
    permissions: RunnerPermissions = field(default_factory=RunnerPermissions)


class ArgumentError(ValueError):
    """A ``run`` argument that cannot work; the message names it (one line)."""


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
        ("context_window", "contextWindow"),
    ):
        value = getattr(args, flag)
        if value is not None:
            model[key] = value
    timeouts: dict[str, JsonValue] = {
        key: value
        for _, key, _ in TIMEOUT_FLAGS
        if (value := getattr(args, f"timeout_{key}", None)) is not None
    }
    if timeouts:
        model["timeouts"] = timeouts
    section: dict[str, JsonValue] = {"model": model} if model else {}
    permissions: dict[str, JsonValue] = {}
    for flag, key in (
        ("edit", "edit"),
        ("shell", "shell"),
        ("read_outside", "readOutsideWorkspace"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            permissions[key] = value
    if args.shell_allow:
        permissions["shellAllow"] = list(args.shell_allow)
    if permissions:
        section["permissions"] = permissions
    shell: dict[str, JsonValue] = {}
    if args.shell_timeout is not None:
        shell["defaultTimeout"] = args.shell_timeout
    if args.shell_max_timeout is not None:
        shell["maxTimeout"] = args.shell_max_timeout
    if shell:
        section["shell"] = shell
    if args.no_instructions:
        section["instructions"] = {"files": []}
    elif args.instructions:
        section["instructions"] = {"files": list(args.instructions)}
    if args.compact_threshold is not None:
        section["compaction"] = {"threshold": args.compact_threshold}
    if args.max_steps is not None:
        section["maxStepsPerTurn"] = args.max_steps
    if args.session_dir is not None:
        section["sessionDir"] = args.session_dir
    return section


FLAGS: dict[str, str] = {
    "dsh.model.name": "--model",
    "dsh.model.baseUrl": "--base-url",
    "dsh.model.apiKeyEnv": "--api-key-env",
    "dsh.model.temperature": "--temperature",
    "dsh.model.maxTokens": "--max-tokens",
    "dsh.model.stop": "--stop",
    "dsh.maxStepsPerTurn": "--max-steps",
    "dsh.sessionDir": "--session-dir",
    "dsh.model.timeouts.connect": "--connect-timeout",
    "dsh.model.timeouts.firstByte": "--first-byte-timeout",
    "dsh.model.timeouts.readIdle": "--read-timeout",
    "dsh.model.timeouts.retryBudget": "--retry-budget",
    "dsh.model.contextWindow": "--context-window",
    "dsh.permissions.shellAllow": "--shell-allow",
    "dsh.shell.defaultTimeout": "--shell-timeout",
    "dsh.shell.maxTimeout": "--shell-max-timeout",
    "dsh.instructions.files": "--instructions",
    "dsh.compaction.threshold": "--compact-threshold",
}
"""The flag that sets each settings path (named next to it in a settings error)."""


def _with_flags(message: str) -> str:
    for path, flag in FLAGS.items():
        message = re.sub(rf"{re.escape(path)}(\[\d+\])?:", rf"{path}\1 ({flag}):", message)
    return message


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse arguments that cannot work before anything starts (``main`` calls it; the
    log file is ``entry.log_file_problem``'s).

    Raises ArgumentError naming the argument: an empty prompt, a ``--cwd`` that does not
    exist or is not a folder.
    """
    if not args.prompt.strip():
        raise ArgumentError('the prompt is empty: dsh-lsp run "<what to do>"')
    for prefix in args.shell_allow or ():
        if not valid_prefix(prefix):
            raise ArgumentError(
                f"--shell-allow {prefix!r}: a prefix is the start of one simple command "
                "(no ;, &&, |, $(…) or redirections)"
            )
    if args.instructions and args.no_instructions:
        raise ArgumentError("--instructions and --no-instructions contradict each other")
    if args.cwd is not None:
        if not args.cwd.exists():
            raise ArgumentError(f"--cwd {args.cwd}: no such folder")
        if not args.cwd.is_dir():
            raise ArgumentError(f"--cwd {args.cwd}: not a folder")


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed ``run`` command line, checked by ``check_arguments`` (see the module
    docstring); the exit status."""
    settings = settings_from_flags(args)
    request = RunRequest(
        prompt=args.prompt,
        cwd=None if args.cwd is None else args.cwd.resolve(),
        session=args.session,
        yes=args.yes,
        settings=settings,
        permissions=RunnerPermissions(
            edit=args.edit or "ask",
            shell=args.shell or "ask",
            read_outside=args.read_outside or "ask",
            shell_allow=tuple(args.shell_allow or ()),
        ),
    )
    try:
        return anyio.run(
            run,
            request,
            sys.stdout,
            sys.stderr,
            backend="asyncio",
            backend_options=loop_options(),
        )
    except KeyboardInterrupt:
        sys.stderr.write("dsh-lsp: interrupted\n")
        return 130


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
    """``✓ (n lines)`` for a result, ``✗ <first line>`` for an error result; a read's lines
    are the file lines it returned, not its framing."""
    text = "".join(block.text for block in result.content if isinstance(block, TextBlock))
    if result.is_error:
        return f"✗ {text.split(chr(10), 1)[0][:160]}"
    return f"✓ ({_line_count(text)} lines)"


def _line_count(text: str) -> int:
    start, end = text.find("<content>\n"), text.rfind("</content>")
    if 0 <= start < end:
        body = text[start + len("<content>\n") : end]
        return sum(1 for line in body.splitlines() if line.split(": ", 1)[0].isdigit())
    return len(text.splitlines())


async def stored_header(settings: DshSettings, session: str) -> SessionHeader:
    """The stored header of ``session`` in the settings' session folder.

    Raises SessionError ``SESSION_NOT_FOUND`` (or ``SESSION_IO``) when it cannot be read.
    """
    store = JsonlPersistence(settings.session_dir)
    for entry in await store.list():
        if entry.header.id == session:
            return entry.header
    raise SessionError(
        f"no stored session {session!r} in {store.directory} (dsh-lsp sessions lists them)",
        code="SESSION_NOT_FOUND",
    )


def workspace_of(request: RunRequest, header: SessionHeader | None) -> Path:
    """The one workspace of the run (see the module docstring).

    Raises ArgumentError when ``--cwd`` contradicts the resumed session's workspace.
    """
    if header is None or header.cwd is None:
        return request.cwd if request.cwd is not None else Path.cwd().resolve()
    stored = Path(header.cwd)
    if request.cwd is not None and request.cwd != stored.resolve():
        raise ArgumentError(
            f"--cwd {request.cwd}: session {header.id} belongs to the workspace {stored}; "
            "leave --cwd out to use it"
        )
    if not stored.is_dir():
        raise ArgumentError(f"--session {header.id}: its workspace {stored} no longer exists")
    return stored


async def _open(
    request: RunRequest, settings: DshSettings, kernel: Kernel, cwd: Path
) -> AgentHandle:
    agents = kernel.context.require(AGENTS)
    options = settings.agent_options()
    if request.session is not None:
        return await agents.resume(SessionId(request.session), options=options)
    return await agents.create(AgentSpec(options=options, cwd=str(cwd)))


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
        err.write(f"dsh-lsp: invalid settings: {_with_flags(str(exc))}\n")
        return 2
    try:
        header = None
        if request.session is not None:
            header = await stored_header(settings, request.session)
        cwd = workspace_of(request, header)
    except SessionError as exc:
        err.write(f"dsh-lsp run: --session {request.session}: {exc}\n")
        return 2
    except ArgumentError as exc:
        err.write(f"dsh-lsp run: {exc}\n")
        return 2
    interactive = sys.stdin is not None and sys.stdin.isatty()
    permissions = TerminalPermissions(
        yes=request.yes, interactive=interactive, prompt=err, answer=lambda: sys.stdin.readline()
    )
    async with Kernel() as kernel:
        ctx = kernel.context
        try:
            await build_kernel_plugins(ctx, settings)
            await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(cwd)]})
            await ctx.plugin(TerminalApprovalPlugin(permissions, request.permissions))
            await kernel.wait_settled()  # the file tools activate once FS is provided
        except PluginFailedError as exc:
            cause = exc.__cause__ or exc
            code = cause.code if isinstance(cause, DshError) else "UNKNOWN"
            err.write(f"dsh-lsp: cannot start: {user_message(str(cause), code)}\n")
            return 2
        printer = TurnPrinter(out, ctx.require(TOOLS), color=out.isatty())
        ctx.on(SESSION_EVENT, printer.on_event)
        try:
            handle = await _open(request, settings, kernel, cwd)
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
        case TurnFailed(message=detail, code=code):
            shown = user_message(detail, code or "UNKNOWN")
            err.write(f"dsh-lsp: the turn failed ({reason.kind}): {shown}\n")
            return 1
        case TurnRejected(reason=detail):
            err.write(f"dsh-lsp: the turn failed ({reason.kind}): {detail}\n")
            return 1
        case _:  # no turn/end, or one written by crash repair
            kind = None if reason is None else reason.kind
            err.write(f"dsh-lsp: the turn failed ({kind}): \n")
            return 1
