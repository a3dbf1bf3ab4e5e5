"""PlainClient: agent turns for editors that will never ship a dsh plugin (server layer).

Helix, Emacs (eglot, lsp-mode), Sublime LSP, Zed and any other LSP client reach the agent
through standard LSP only: ``workspace/executeCommand`` (``commands``) and
``textDocument/codeAction`` (``code_actions``) call this service. It keeps one *active*
session per connection (made by ``dsh.newSession`` or ``dsh.resumeLast``, or on the first
prompt) and runs each prompt as a background task of its plugin, so the command answers at
once (eglot and Helix block or time out on long requests). While the turn runs, a
cancellable work-done progress shows what it does; cancelling that progress (or
``dsh.cancel``) cancels the turn; the plan (``todo_write``) goes to ``window/logMessage``
and its current item into the progress. A client without work-done progress (eglot 1.9)
gets a ``window/showMessage`` when the turn starts instead, so something shows that it runs.
When it ends, the answer's first line goes to ``window/showMessage`` and the whole answer to
``window/logMessage`` (and stays readable with the ``dsh.lastAnswer`` command, for editors
that keep the log out of sight, like eglot); approvals arrive as
``window/showMessageRequest`` (``permissions``).
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import ClassVar, Final

from lsprotocol import types

from dsh_lsp.instructions import InstructionsLoadedPayload
from dsh_lsp.kernel import Context, DshError, Plugin, ServiceKey
from dsh_lsp.llm import ContentBlock, JsonValue, SessionId, TextBlock
from dsh_lsp.server.errors import TurnRunningError
from dsh_lsp.server.sessions import BRIDGE, SessionBridge
from dsh_lsp.server.wire import ClientChannel
from dsh_lsp.session import (
    SESSION_EVENT,
    AssistantMessagePayload,
    SessionEventNotice,
    ToolCallPayload,
)
from dsh_lsp.shell import SHELL_OUTPUT, ShellOutput
from dsh_lsp.todo import TodoWritePayload, checklist
from dsh_lsp.tools import TOOLS, ToolRegistry

from .progress import TurnProgress, progress_message

_log = logging.getLogger(__name__)

LIVE_LINE_CHARS: Final = 120
"""The longest output line a progress report quotes while a command runs."""
SUMMARY_CHARS: Final = 200
"""The longest answer shown whole in ``window/showMessage``."""

_ENDINGS: Final[dict[str, tuple[int, str]]] = {
    "end_turn": (types.MessageType.Info, "done"),
    "max_tokens": (types.MessageType.Warning, "stopped: the answer hit the token limit"),
    "max_turn_requests": (types.MessageType.Warning, "stopped: the turn hit its step limit"),
    "cancelled": (types.MessageType.Info, "cancelled"),
    "refusal": (types.MessageType.Warning, "the model refused"),
}


@dataclass(slots=True, kw_only=True)
class _Turn:
    session_id: SessionId
    cwd: str | None
    progress: TurnProgress | None = None
    answer: str = ""


class PlainClient:
    """See the module docstring. Built and owned by ``PlainClientPlugin``."""

    def __init__(
        self,
        ctx: Context,
        bridge: SessionBridge,
        tools: ToolRegistry,
        channel: ClientChannel,
        *,
        progress: bool,
        default_cwd: Callable[[], str | None],
    ) -> None:
        self._ctx = ctx
        self._bridge = bridge
        self._tools = tools
        self._channel = channel
        self._progress = progress
        self._default_cwd = default_cwd
        self._turns: dict[SessionId, _Turn] = {}
        self._tokens: dict[str, SessionId] = {}
        self._counter = itertools.count(1)
        self.active: SessionId | None = None
        """The session prompts go to."""
        self.last_answer: str | None = None
        """The whole text of the last answer a turn ended with."""

    async def new_session(self) -> SessionId:
        """Start a session in the first workspace folder and make it active."""
        self.active = await self._bridge.new_session(None)
        return self.active

    async def resume_last(self) -> SessionId | None:
        """Resume the most recently updated session and make it active (None: there is
        none). Raises what ``SessionBridge.resume`` raises."""
        sessions = await self._bridge.list_sessions()
        if not sessions:
            return None
        first = sessions[0]
        assert isinstance(first, dict)
        self.active = await self._bridge.resume(SessionId(str(first["sessionId"])))
        return self.active

    async def prompt(self, content: tuple[ContentBlock, ...], excerpt: str) -> SessionId:
        """Start a turn of the active session (a new one if none) in the background and
        return its id. Raises TurnRunningError while that session still answers."""
        session_id = self.active or await self.new_session()
        if session_id in self._turns:
            raise TurnRunningError(session_id)
        turn = self._turns[session_id] = _Turn(session_id=session_id, cwd=self._default_cwd())
        self._ctx.start_soon(self._run, turn, content, excerpt, name=f"dsh.prompt {session_id}")
        return session_id

    def cancel(self, session_id: SessionId | None = None) -> bool:
        """Cancel the turn of ``session_id`` (default: the active session); True when one
        was running."""
        target = session_id or self.active
        if target is None:
            return False
        self._bridge.cancel(target)
        return target in self._turns

    def cancel_progress(self, token: str) -> None:
        """``window/workDoneProgress/cancel``: cancel the turn the progress belongs to."""
        session_id = self._tokens.get(token)
        if session_id is not None:
            self.cancel(session_id)

    def on_session_event(self, notice: SessionEventNotice) -> None:
        """``SESSION_EVENT`` listener: progress reports and the answer text. Never raises."""
        turn = self._turns.get(notice.session.id)
        if turn is None:
            return
        event = notice.event
        try:
            match event.payload:
                case ToolCallPayload(name=name, arguments=arguments) if turn.progress is not None:
                    view = self._tools.present_call(name, _arguments(arguments))
                    turn.progress.report(progress_message(view, turn.cwd))
                case InstructionsLoadedPayload(sources=sources):
                    message = f"dsh: following the project instructions in {', '.join(sources)}"
                    self._log_message(message)
                case TodoWritePayload(entries=entries):
                    self._plan(turn, tuple((e.content, e.status) for e in entries))
                case AssistantMessagePayload(content=content):
                    text = _text(content)
                    if text:
                        turn.answer = text
                case _:
                    pass  # nothing else, plugin payloads included, shows in a plain editor
        except Exception:
            _log.exception("progress for event %s of %s failed", event.seq, turn.session_id)

    def _plan(self, turn: _Turn, items: tuple[tuple[str, str], ...]) -> None:
        """The plan ((content, status) pairs): in full in the log, its current item as
        progress."""
        self._log_message(f"dsh: {checklist(items)}")
        if turn.progress is not None and items:
            done = sum(1 for _, status in items if status == "completed")
            current = next((c for c, status in items if status == "in_progress"), None)
            message = f"Plan {done}/{len(items)}" + (f": {current}" if current else "")
            turn.progress.report(message)

    def on_shell_output(self, update: ShellOutput) -> None:
        """``SHELL_OUTPUT`` listener: the running command's last output line as progress."""
        turn = None if update.session_id is None else self._turns.get(update.session_id)
        if turn is None or turn.progress is None:
            return
        lines = [line for line in update.tail.splitlines() if line.strip()]
        last = lines[-1].strip()[:LIVE_LINE_CHARS] if lines else ""
        turn.progress.report(f"Running ({update.elapsed_s:.0f}s): {last}" if last else "Running")

    async def _run(self, turn: _Turn, content: tuple[ContentBlock, ...], excerpt: str) -> None:
        token = f"dsh-turn-{next(self._counter)}"
        try:
            if self._progress:
                turn.progress = await TurnProgress.start(self._channel, token, "dsh", excerpt)
                self._tokens[token] = turn.session_id
            else:
                started = f"dsh: working on: {excerpt} (the dsh.cancel command stops it)"
                self._show(types.MessageType.Info, started)
            try:
                result = await self._bridge.prompt(turn.session_id, content)
            except DshError as exc:
                self._end(turn, types.MessageType.Error, f"failed: {exc}", None)
                return
            kind, ending = _ENDINGS.get(
                result.stop_reason, (types.MessageType.Info, result.stop_reason)
            )
            self._end(turn, kind, ending, turn.answer or None)
        finally:
            self._turns.pop(turn.session_id, None)
            self._tokens.pop(token, None)

    def _end(self, turn: _Turn, kind: int, ending: str, answer: str | None) -> None:
        if turn.progress is not None:
            turn.progress.end(ending)
        if answer is None:
            self._show(kind, f"dsh: {ending}")
            return
        self.last_answer = answer
        self._log_message(f"dsh: {answer}")
        self._show(kind, summary(answer))

    def _show(self, kind: int, message: str) -> None:
        """``window/showMessage`` (``kind``: a ``MessageType``)."""
        self._channel.notify(types.WINDOW_SHOW_MESSAGE, {"type": kind, "message": message})

    def _log_message(self, message: str) -> None:
        """``window/logMessage`` at the info level."""
        info = types.MessageType.Info
        self._channel.notify(types.WINDOW_LOG_MESSAGE, {"type": info, "message": message})


def summary(answer: str) -> str:
    """The answer as one short line for a message box, pointing to the log for the rest."""
    first = answer.strip().split("\n", 1)[0].strip()
    cut = len(first) > SUMMARY_CHARS or first != answer.strip()
    if len(first) > SUMMARY_CHARS:
        first = first[: SUMMARY_CHARS - 1].rstrip() + "\u2026"
    more = " (full answer: the dsh.lastAnswer command, or the dsh-lsp log)"
    return f"dsh: {first}" + (more if cut else "")


def _arguments(raw: str) -> JsonValue:
    try:
        parsed: JsonValue = json.loads(raw)
    except ValueError:
        return raw
    return parsed


def _text(content: tuple[ContentBlock, ...]) -> str:
    return "".join(block.text for block in content if isinstance(block, TextBlock)).strip()


PLAIN_CLIENT: ServiceKey[PlainClient] = ServiceKey("lsp-plain-client")
"""The plain-LSP front end of the connection."""


@dataclass(frozen=True, eq=False)
class PlainClientPlugin(Plugin[None]):
    """Provides ``PLAIN_CLIENT``; injects ``BRIDGE`` and ``TOOLS``; its fiber owns the
    background turns (unloading it cancels them)."""

    name: ClassVar[str] = "lsp-plain-client"
    inject = (BRIDGE, TOOLS)

    channel: ClientChannel
    _: KW_ONLY
    progress: bool
    """Whether the client shows work-done progress (else a message says a turn started)."""
    default_cwd: Callable[[], str | None]

    async def apply(self, ctx: Context, config: None) -> None:
        """Provide the service and listen to the session events it reports from."""
        plain = PlainClient(
            ctx,
            ctx.require(BRIDGE),
            ctx.require(TOOLS),
            self.channel,
            progress=self.progress,
            default_cwd=self.default_cwd,
        )
        ctx.on(SESSION_EVENT, plain.on_session_event)
        ctx.on(SHELL_OUTPUT, plain.on_shell_output)
        ctx.provide(PLAIN_CLIENT, plain)
