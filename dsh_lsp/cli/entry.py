"""The ``dsh-lsp`` command line: the parser and the dispatch to a command (cli layer).

``dsh-lsp`` with no command serves the Language Server Protocol on stdio (``--stdio``, which
VS Code appends, is accepted and changes nothing), or to one client on ``--tcp HOST:PORT``;
logs go to stderr or ``--log-file`` at ``--log-level``, never to stdout; started on a
terminal, it says so on stderr (it speaks LSP, for editors) and how to stop it. ``dsh-lsp
demo`` runs a whole agent turn offline (``demo``). ``dsh-lsp run "<prompt>"`` is the headless
runner (``runner``); its flags produce the same settings the editor's ``dsh`` section does,
and ``--log-level``/``--log-file`` apply to it too (before or after ``run``). ``dsh-lsp
sessions`` lists, shows and deletes stored sessions (``sessions``).

Every bad argument is one line on stderr naming it, with exit status 2 (argparse's usage
errors too); Ctrl-C while a command starts exits 130 without a traceback.

The command line is parsed before anything heavy is imported: ``--version`` and ``--help``
load no layer, the server path loads the language server (which answers ``initialize``
before it loads the layers below it), and only the chosen command loads its own modules.
"""

from __future__ import annotations

import argparse
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
EDIT_LEVELS = ("allow", "ask")
LEVELS = ("ask", "allow", "deny")
"""``dsh_lsp.server.settings.EditPolicy`` / ``ShellPolicy`` (a test keeps them equal)."""


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
    _log_flags(parser, default=True)
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
    run.add_argument(
        "--cwd",
        type=Path,
        help="workspace root (default: the current folder; a resumed session's own workspace)",
    )
    run.add_argument(
        "--session", metavar="ID", help="resume this session (dsh-lsp sessions lists them)"
    )
    run.add_argument("--yes", action="store_true", help="approve every question without asking")
    _log_flags(run, default=False)
    levels = run.add_argument_group("permissions (without a terminal, 'ask' refuses)")
    levels.add_argument(
        "--edit", choices=EDIT_LEVELS, help="file edits (permissions.edit; default here: ask)"
    )
    levels.add_argument(
        "--shell", choices=LEVELS, help="running commands (permissions.shell; default: ask)"
    )
    levels.add_argument(
        "--read-outside",
        choices=LEVELS,
        help="reads outside the workspace (permissions.readOutsideWorkspace; default: ask)",
    )
    levels.add_argument(
        "--shell-allow",
        action="append",
        metavar="PREFIX",
        help="run simple commands starting with PREFIX without asking, repeatable "
        "(permissions.shellAllow; never chains, pipes or redirections)",
    )
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
    model.add_argument(
        "--context-window",
        type=int,
        metavar="TOKENS",
        help="the model's context window (model.contextWindow; default: known, else 128000)",
    )
    model.add_argument(
        "--shell-timeout",
        type=float,
        metavar="SECONDS",
        help="a command's timeout when the model names none (shell.defaultTimeout; default: 120)",
    )
    model.add_argument(
        "--shell-max-timeout",
        type=float,
        metavar="SECONDS",
        help="the longest timeout the model may ask for (shell.maxTimeout; default: 600)",
    )
    model.add_argument(
        "--instructions",
        action="append",
        metavar="NAME",
        help="an instruction file name to look for, repeatable; replaces the default list "
        "(instructions.files; default: AGENTS.md, CLAUDE.md, .github/copilot-instructions.md)",
    )
    model.add_argument(
        "--no-instructions",
        action="store_true",
        help="read no project instruction file (instructions.files: [])",
    )
    model.add_argument(
        "--compact-threshold",
        type=float,
        metavar="RATIO",
        help="compact before a request would fill this share of the window, 0 to 1 "
        "(compaction.threshold; default: 0.8)",
    )
    for flag, key, default in TIMEOUT_FLAGS:
        model.add_argument(
            f"--{flag}",
            dest=f"timeout_{key}",
            type=float,
            metavar="SECONDS",
            help=f"model call timeout (model.timeouts.{key}; default: {default})",
        )
    sessions = commands.add_parser(
        "sessions", help="list, show or delete stored sessions (default: list)"
    )
    sessions.add_argument(
        "--session-dir",
        metavar="DIR",
        help="the session folder (sessionDir; default: the server's)",
    )
    actions = sessions.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", help="one line per session, newest first")
    show = actions.add_parser("show", help="a session's header and conversation")
    show.add_argument("ids", nargs=1, metavar="ID")
    delete = actions.add_parser("delete", help="remove stored sessions")
    delete.add_argument("ids", nargs="+", metavar="ID")
    return parser


TIMEOUT_FLAGS = (
    ("connect-timeout", "connect", "10"),
    ("first-byte-timeout", "firstByte", "30"),
    ("read-timeout", "readIdle", "120, silence allowed once the answer streams"),
    ("retry-budget", "retryBudget", "120, total seconds spent on failed attempts"),
)
"""``dsh-lsp run`` flags → ``model.timeouts`` keys (defaults as the DeepSeek config has them)."""


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) == 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def _log_flags(parser: argparse.ArgumentParser, *, default: bool) -> None:
    """``--log-file`` and ``--log-level``; on a subcommand they default to the top level's."""
    if default:
        parser.add_argument("--log-file", type=Path, help="append logs here instead of stderr")
        parser.add_argument(
            "--log-level", choices=LOG_LEVELS, default="warning", help="default: warning"
        )
        return
    parser.add_argument(
        "--log-file", type=Path, default=argparse.SUPPRESS, help="as before the command"
    )
    parser.add_argument(
        "--log-level", choices=LOG_LEVELS, default=argparse.SUPPRESS, help="as before the command"
    )


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
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        sys.stderr.write("dsh-lsp: interrupted\n")
        return 130


def _dispatch(args: argparse.Namespace) -> int:
    problem = log_file_problem(args.log_file)
    if problem is not None:
        sys.stderr.write(f"dsh-lsp: {problem}\n")
        return 2
    if args.command == "sessions":
        from .sessions import sessions_command

        return sessions_command(args)
    if args.command == "run":
        from .runner import ArgumentError, check_arguments, run_command

        try:
            check_arguments(args)
        except ArgumentError as exc:
            sys.stderr.write(f"dsh-lsp run: {exc}\n")
            return 2
        return run_command(args) if _configure_logging(args) else 2
    if not _configure_logging(args):
        return 2
    from dsh_lsp import server  # the layers below it load after ``initialize``

    if args.command == "demo":
        from .demo import run_demo_command

        return run_demo_command(keep=args.keep)
    tcp = None if args.tcp is None else server.TcpAddress(host=args.tcp[0], port=args.tcp[1])
    return server.serve(
        _load_plugins,
        tcp=tcp,
        max_message_bytes=args.max_message_bytes,
        preload=_import_app,
    )


def log_file_problem(path: Path | None) -> str | None:
    """Why ``--log-file path`` cannot be a log file (it is a folder, or its folder does not
    exist), naming the flag; None when it can."""
    if path is None:
        return None
    if path.is_dir():
        return f"--log-file {path}: is a folder"
    folder = path.resolve().parent
    if not folder.is_dir():
        return f"--log-file {path}: the folder {folder} does not exist"
    return None


def _configure_logging(args: argparse.Namespace) -> bool:
    """``--log-level``/``--log-file`` for the chosen command; False (after one line on
    stderr) when the log file cannot be opened."""
    from dsh_lsp import server

    try:
        server.configure_logging(cast("LogLevel", args.log_level), args.log_file)
    except OSError as exc:
        sys.stderr.write(f"dsh-lsp: --log-file {args.log_file}: {exc.strerror or exc}\n")
        return False
    return True


def _import_app() -> None:
    """Import the composition root (and so every layer) ahead of the server's start-up."""
    import dsh_lsp.app  # noqa: F401


async def _load_plugins(ctx: Context, settings: DshSettings, roots: tuple[str, ...]) -> None:
    """``dsh_lsp.app.load_server_plugins``, imported when the server's start-up needs it."""
    from dsh_lsp.app import load_server_plugins

    await load_server_plugins(ctx, settings, roots)
