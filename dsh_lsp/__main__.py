"""Command-line entry point: ``dsh-lsp`` and ``python -m dsh_lsp``.

``dsh-lsp`` with no command serves the Language Server Protocol on stdio (``--stdio``, which
VS Code appends, is accepted and changes nothing), or to one client on ``--tcp HOST:PORT``;
logs go to stderr or ``--log-file`` at ``--log-level``, never to stdout. ``dsh-lsp demo``
runs a whole agent turn offline: the real server, a scripted model server and an LSP client
(``dsh_lsp.server.run_demo`` with ``dsh_lsp.app.demo_plan``); it exits 0 when the turn ended
normally and edited the file.

``dsh-lsp run "<prompt>"`` is the headless runner: it loads the default plugin set
(``dsh_lsp.app``) plus the local file system confined to ``--cwd`` and terminal approval,
sends one prompt to a new agent (or to the session ``--session`` names), and streams the turn
to stdout — reasoning dimmed on a terminal, text, tool calls and their outcomes. The session
id goes to stderr at the end. Exit status: 0 when the turn completed (or stopped at max-tokens
or max-steps, with a warning), 1 when it failed or was rejected, 2 when the kernel could not
start or the session could not be opened, 130 when interrupted. Runner mode is not LSP, so
stdout is free for the answer; logs go to stderr.

The command line is parsed before anything heavy is imported: ``--version`` and ``--help``
load no layer, the server path loads the language server (which answers ``initialize``
before it loads the layers below it), and only the chosen command loads its own modules.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from dsh_lsp import __version__

if TYPE_CHECKING:
    from dsh_lsp.agent import Agent, AgentHandle
    from dsh_lsp.app import AppSettings
    from dsh_lsp.kernel import Context, Kernel
    from dsh_lsp.llm import JsonObject, SessionId
    from dsh_lsp.server import DshSettings, LogLevel
    from dsh_lsp.session import SessionEventNotice
    from dsh_lsp.tools import ToolRegistry

DIM, RESET = "\x1b[2m", "\x1b[0m"
LOG_LEVELS = ("debug", "info", "warning", "error")
"""``dsh_lsp.server.LogLevel`` (a test keeps them equal), spelled here so that parsing the
command line imports no layer."""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser for the ``dsh-lsp`` command."""
    parser = argparse.ArgumentParser(
        prog="dsh-lsp",
        description="Coding-agent backend served over the Language Server Protocol.",
    )
    parser.add_argument("--version", action="version", version=f"dsh-lsp {__version__}")
    parser.add_argument(
        "--stdio", action="store_true", help="serve LSP on stdin/stdout (the default)"
    )
    parser.add_argument(
        "--tcp", metavar="HOST:PORT", type=_tcp_address, help="serve one LSP client over TCP"
    )
    parser.add_argument("--log-file", type=Path, help="append logs here instead of stderr")
    parser.add_argument(
        "--log-level", choices=LOG_LEVELS, default="warning", help="default: warning"
    )
    parser.add_argument(
        "--max-message-bytes",
        type=_positive_int,
        default=64 << 20,
        metavar="N",
        help="skip LSP messages larger than this (default: 64 MiB)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo", help="run an offline agent turn over LSP against a scripted model"
    )
    demo.add_argument("--keep", action="store_true", help="keep the temporary workspace")
    run = commands.add_parser(
        "run", help="run one prompt headless and stream the turn to the terminal"
    )
    run.add_argument("prompt", help="the message to send")
    run.add_argument("--cwd", type=Path, default=Path.cwd(), help="workspace root (default: .)")
    run.add_argument("--session", metavar="ID", help="resume this session instead of a new one")
    run.add_argument("--model", help="model name (default: deepseek-v4-flash)")
    run.add_argument("--base-url", help="OpenAI-compatible API root (default: DeepSeek)")
    run.add_argument("--yes", action="store_true", help="approve every tool call without asking")
    for flag, key, default in TIMEOUT_FLAGS:
        run.add_argument(
            f"--{flag}",
            dest=f"timeout_{key}",
            type=float,
            metavar="SECONDS",
            help=f"model call timeout (default: {default})",
        )
    return parser


TIMEOUT_FLAGS = (
    ("connect-timeout", "connect", "10"),
    ("first-byte-timeout", "first_byte", "30"),
    ("read-timeout", "read_idle", "120, silence allowed once the answer streams"),
    ("retry-budget", "retry_budget", "120, total seconds spent on failed attempts"),
)
"""``dsh-lsp run`` flags → ``ModelTimeouts`` fields (defaults as the DeepSeek config has them)."""


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) == 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def _tcp_address(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRequest:
    """The parsed ``run`` command line."""

    prompt: str
    cwd: Path
    session: str | None
    model: str | None
    base_url: str | None
    timeouts: dict[str, float] = field(default_factory=dict)
    """``ModelTimeouts`` fields given on the command line."""
    yes: bool


class TurnPrinter:
    """Renders one session's events as they are logged (a ``session/event`` listener)."""

    def __init__(self, out: TextIO, tools: ToolRegistry, *, color: bool) -> None:
        self._out = out
        self._tools = tools
        self._color = color
        self._mode: str | None = None
        self.session: SessionId | None = None
        self.reason: JsonObject | None = None

    def _write(self, mode: str, text: str) -> None:
        if self._mode not in (None, mode):
            self._out.write("\n")
        self._mode = mode
        dim = self._color and mode == "reasoning"
        self._out.write(f"{DIM}{text}{RESET}" if dim else text)
        self._out.flush()

    def on_event(self, notice: SessionEventNotice) -> None:
        """Print the parts of the turn a person reads; ignore other sessions."""
        from dsh_lsp.llm import ReasoningDelta, TextDelta, chunk_from_json
        from dsh_lsp.tools import parse_arguments

        if notice.session.id != self.session:
            return
        data = notice.event.data
        match notice.event.type:
            case "assistant/chunk":
                chunk = chunk_from_json(data["chunk"])
                if isinstance(chunk, ReasoningDelta):
                    self._write("reasoning", chunk.text)
                elif isinstance(chunk, TextDelta):
                    self._write("text", chunk.text)
            case "tool/call":
                args = parse_arguments(str(data["arguments"]))
                view = self._tools.present_call(str(data["name"]), args)
                self._write("tool", f"→ {view.title}\n")
                self._mode = None
            case "tool/result":
                self._write("tool", f"  {_outcome(data)}\n")
                self._mode = None
            case "turn/end":
                reason = data["reason"]
                self.reason = reason if isinstance(reason, dict) else None
                if self._mode is not None:
                    self._out.write("\n")
                    self._out.flush()
                self._mode = None


def _outcome(data: JsonObject) -> str:
    """``✓ (n lines)`` for a result, ``✗ <first line>`` for an error result."""
    content = data.get("content")
    text = ""
    if isinstance(content, list):
        text = "".join(
            str(block["text"]) for block in content if isinstance(block, dict) and "text" in block
        )
    if data.get("isError"):
        return f"✗ {text.split(chr(10), 1)[0][:160]}"
    return f"✓ ({text.count(chr(10)) + 1 if text else 0} lines)"


async def _open(request: RunRequest, settings: AppSettings, kernel: Kernel) -> AgentHandle:
    from dsh_lsp.agent import AGENTS, AgentSpec
    from dsh_lsp.llm import SessionId

    agents = kernel.context.require(AGENTS)
    if request.session is not None:
        return await agents.resume(SessionId(request.session), options=settings.agent_options())
    spec = AgentSpec(options=settings.agent_options(), cwd=str(request.cwd))
    return await agents.create(spec)


async def _watch_interrupts(agent: Agent) -> None:
    import signal

    import anyio

    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            agent.cancel("interrupted")


async def run(request: RunRequest, out: TextIO, err: TextIO) -> int:
    """Run one prompt (see the module docstring); returns the exit status. Never raises
    for failures it can explain: it reports them on ``err``."""
    import anyio

    from dsh_lsp.app import (
        AppSettings,
        TerminalApprovalPlugin,
        TerminalPermissions,
        build_kernel_plugins,
    )
    from dsh_lsp.fs_tools.local import LocalFileSystemPlugin
    from dsh_lsp.kernel import DshError, Kernel, PluginFailedError
    from dsh_lsp.session import SESSION_EVENT
    from dsh_lsp.tools import TOOLS

    overrides: dict[str, object] = {}
    if request.model is not None:
        overrides["model"] = request.model
    if request.base_url is not None:
        overrides["base_url"] = request.base_url
    if request.timeouts:
        overrides["timeouts"] = request.timeouts
    settings = AppSettings.model_validate(overrides)
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


def _status(reason: JsonObject | None, err: TextIO) -> int:
    kind = None if reason is None else reason.get("kind")
    match kind:
        case "completed":
            return 0
        case "max-tokens" | "max-steps":
            err.write(f"dsh-lsp: the turn stopped early ({kind})\n")
            return 0
        case "aborted" | "disposed":
            err.write("dsh-lsp: interrupted\n")
            return 130
        case _:
            detail = "" if reason is None else reason.get("message") or reason.get("reason")
            err.write(f"dsh-lsp: the turn failed ({kind}): {detail}\n")
            return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    Raises:
        SystemExit: from argparse for ``--help``, ``--version`` and usage errors.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        import anyio

        from dsh_lsp.kernel import install_log_filter

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
        install_log_filter()
        request = RunRequest(
            prompt=args.prompt,
            cwd=args.cwd.resolve(),
            session=args.session,
            model=args.model,
            base_url=args.base_url,
            yes=args.yes,
            timeouts={
                key: value
                for _, key, _ in TIMEOUT_FLAGS
                if (value := getattr(args, f"timeout_{key}")) is not None
            },
        )
        return anyio.run(run, request, sys.stdout, sys.stderr, backend="asyncio")
    from dsh_lsp import server  # the layers below it load after ``initialize``

    server.configure_logging(cast("LogLevel", args.log_level), args.log_file)
    if args.command == "demo":
        return _demo(keep=args.keep)
    tcp = None if args.tcp is None else server.TcpAddress(host=args.tcp[0], port=args.tcp[1])
    return server.serve(_load_plugins, tcp=tcp, max_message_bytes=args.max_message_bytes)


async def _load_plugins(ctx: Context, settings: DshSettings, roots: tuple[str, ...]) -> None:
    """``dsh_lsp.app.load_server_plugins``, imported when the server's start-up needs it."""
    from dsh_lsp.app import load_server_plugins

    await load_server_plugins(ctx, settings, roots)


def _demo(*, keep: bool) -> int:
    from functools import partial

    import anyio

    from dsh_lsp.app import demo_plan
    from dsh_lsp.server import run_demo

    return anyio.run(partial(run_demo, demo_plan(), sys.stdout, keep=keep), backend="asyncio")


if __name__ == "__main__":
    raise SystemExit(main())
