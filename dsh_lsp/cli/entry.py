"""The ``dsh-lsp`` command line: the parser and the dispatch to a command (cli layer).

``dsh-lsp`` with no command serves the Language Server Protocol on stdio (``--stdio``, which
VS Code appends, is accepted and changes nothing), or to one client on ``--tcp HOST:PORT``;
logs go to stderr or ``--log-file`` at ``--log-level``, never to stdout. ``dsh-lsp demo``
runs a whole agent turn offline (``demo``). ``dsh-lsp run "<prompt>"`` is the headless
runner (``runner``); its flags produce the same settings the editor's ``dsh`` section does.

The command line is parsed before anything heavy is imported: ``--version`` and ``--help``
load no layer, the server path loads the language server (which answers ``initialize``
before it loads the layers below it), and only the chosen command loads its own modules.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from dsh_lsp import __version__

if TYPE_CHECKING:
    from dsh_lsp.kernel import Context
    from dsh_lsp.server import DshSettings, LogLevel

LOG_LEVELS = ("debug", "info", "warning", "error")
"""``dsh_lsp.server.LogLevel`` (a test keeps them equal), spelled here so that parsing the
command line imports no layer."""
THINKING = ("enabled", "disabled")
REASONING_EFFORTS = ("low", "medium", "high", "max")
"""``dsh_lsp.llm.deepseek.Thinking`` / ``ReasoningEffort`` (a test keeps them equal)."""


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
    run.add_argument("--yes", action="store_true", help="approve every tool call without asking")
    model = run.add_argument_group("settings (the dsh section's keys; default: the server's)")
    model.add_argument("--model", help="model name (model.name; default: deepseek-v4-flash)")
    model.add_argument("--base-url", help="OpenAI-compatible API root (model.baseUrl)")
    model.add_argument(
        "--api-key-env", metavar="VAR", help="variable holding the API key (model.apiKeyEnv)"
    )
    model.add_argument("--thinking", choices=THINKING, help="thinking mode (model.thinking)")
    model.add_argument(
        "--reasoning-effort", choices=REASONING_EFFORTS, help="model.reasoningEffort"
    )
    model.add_argument("--temperature", type=float, help="0 to 2 (model.temperature)")
    model.add_argument(
        "--max-tokens", type=int, metavar="N", help="output budget (model.maxTokens)"
    )
    model.add_argument(
        "--stop", action="append", metavar="TEXT", help="stop sequence, repeatable (model.stop)"
    )
    model.add_argument(
        "--max-steps", type=int, metavar="N", help="model requests per turn (maxStepsPerTurn)"
    )
    model.add_argument("--session-dir", metavar="DIR", help="where session logs live (sessionDir)")
    return parser


def _tcp_address(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    Raises:
        SystemExit: from argparse for ``--help``, ``--version`` and usage errors.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        from .runner import run_command

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
        return run_command(args)
    from dsh_lsp import server  # the layers below it load after ``initialize``

    server.configure_logging(cast("LogLevel", args.log_level), args.log_file)
    if args.command == "demo":
        from .demo import run_demo_command

        return run_demo_command(keep=args.keep)
    tcp = None if args.tcp is None else server.TcpAddress(host=args.tcp[0], port=args.tcp[1])
    return server.serve(_load_plugins, tcp=tcp)


async def _load_plugins(ctx: Context, settings: DshSettings, roots: tuple[str, ...]) -> None:
    """``dsh_lsp.app.load_server_plugins``, imported when the server's start-up needs it."""
    from dsh_lsp.app import load_server_plugins

    await load_server_plugins(ctx, settings, roots)
