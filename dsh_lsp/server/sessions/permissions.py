"""EditorPermissions: the ``PERMISSIONS`` service that asks the user in the editor (server).

When a tool call needs approval, the session shows it as a pending ``tool_call`` and a
``state_update{requires_action}``, then asks:

- a client with the ``dsh`` permission capability gets ``dsh/requestPermission`` with the
  call (title, kind, raw input, diffs) and four options (allow / reject, once / always);
- any other client gets ``window/showMessageRequest`` with one action per option.

The answer goes back to the tool registry, which remembers "always" answers for the session.
A ``bash`` call is different: its "always allow" names the command prefix it would approve
(``Always allow `npm test` in this workspace``; a rich client gets the prefix as ``prefix``
and may answer with an edited one), which is remembered for the workspace in the
``ShellAllowList`` — never as a blanket "allow bash" — and a compound command is offered no
"always allow" at all.
A dismissed message box counts as "reject once"; a client error or an answer that names no
offered option is logged and counts as "reject once" too. When the turn is cancelled, the
awaiting call is cancelled, which withdraws the request (``$/cancelRequest``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Final

from lsprotocol import types
from pydantic import ValidationError

from dsh_lsp.llm import CallId, JsonObject, JsonValue, SessionId
from dsh_lsp.server.wire import (
    CancelledOutcome,
    ClientChannel,
    ClientRequestError,
    MessageActionAnswer,
    PermissionAnswer,
)
from dsh_lsp.shell import prefix_allows, suggest_prefix, valid_prefix
from dsh_lsp.tools import PermissionOutcome, ToolCallView, ToolExecution

from .policy import shell_command
from .shell_rules import ShellAllowList
from .sink import UpdateSink
from .updates import UpdateTranslator, tool_call_update

_log = logging.getLogger(__name__)

REQUEST_METHOD: Final = "dsh/requestPermission"

OPTIONS: Final[tuple[tuple[PermissionOutcome, str], ...]] = (
    ("allow_once", "Allow"),
    ("allow_always", "Always allow"),
    ("reject_once", "Reject"),
    ("reject_always", "Always reject"),
)
"""(optionId and kind, button name) of every option offered, in order."""

TranslatorLookup = Callable[[SessionId], UpdateTranslator | None]
"""The live translator of a session bridged to this client, or None."""


class EditorPermissions:
    """A ``PermissionService``; see the module docstring."""

    __slots__ = ("_channel", "_shell_rules", "_shown", "_sink", "_translators")

    def __init__(
        self,
        channel: ClientChannel,
        sink: UpdateSink,
        translators: TranslatorLookup,
        shell_rules: ShellAllowList | None = None,
        *,
        shown: Callable[[SessionId], Awaitable[None]] | None = None,
    ) -> None:
        """``shown(session_id)`` returns once the session's held updates are sent (the
        call's own card first, then the question)."""
        self._channel = channel
        self._sink = sink
        self._translators = translators
        self._shown = shown
        self._shell_rules = shell_rules

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        """Ask the user about ``exec``; never raises except on cancellation."""
        session_id = None if exec.session is None else exec.session.id
        translator = None if session_id is None else self._translators(session_id)
        if session_id is None or translator is None:
            _log.info("refused %s: its session is not open in this editor", exec.name)
            return "reject_once"
        if self._shown is not None:
            await self._shown(session_id)
        card = translator.card(exec.call_id, exec.name, view, "pending")
        if isinstance(exec.arguments, dict):
            card["rawInput"] = exec.arguments
        self._sink.send(session_id, tool_call_update(card))
        self._sink.send(session_id, {"kind": "state_update", "state": "requires_action"})
        command = shell_command(exec)
        prefix = None if command is None else suggest_prefix(command)
        options = _options(command, prefix)
        confirmed = prefix
        try:
            if self._channel.features.permissions:
                outcome, answered = await self._ask_rich(session_id, card, reason, options, prefix)
                if answered is not None and command is not None:
                    confirmed = answered if _covers(answered, command) else prefix
            else:
                outcome = await self._ask_plain(str(card["title"]), reason, options)
        except ClientRequestError as exc:
            _log.warning("permission request failed, refusing the call: %s", exc)
            outcome = "reject_once"
        if command is not None and outcome == "allow_always":
            outcome = self._remember(exec, confirmed)
        self._sink.send(session_id, {"kind": "state_update", "state": "running"})
        if outcome in ("allow_once", "allow_always"):
            update = {"toolCallId": CallId(exec.call_id), "status": "in_progress"}
            self._sink.send(session_id, tool_call_update(update))
        return outcome

    def _remember(self, exec: ToolExecution, prefix: str | None) -> PermissionOutcome:
        """Record a shell prefix rule for the session's workspace; the call itself runs
        once (the registry must not remember a blanket "allow bash")."""
        workspace = None if exec.session is None else exec.session.header.cwd
        if prefix is None or workspace is None or self._shell_rules is None:
            return "allow_once"
        try:
            self._shell_rules.add(workspace, prefix)
        except OSError as exc:
            _log.warning("could not remember the shell prefix: %s", exc)
        return "allow_once"

    async def _ask_rich(
        self,
        session_id: SessionId,
        card: JsonObject,
        reason: str | None,
        options: tuple[tuple[PermissionOutcome, str], ...],
        prefix: str | None,
    ) -> tuple[PermissionOutcome, str | None]:
        tool_call = {
            key: card[key]
            for key in ("toolCallId", "title", "kind", "rawInput", "content")
            if key in card
        }
        params: dict[str, JsonValue] = {
            "sessionId": session_id,
            "toolCall": tool_call,
            "options": [
                {"optionId": option, "name": name, "kind": option} for option, name in options
            ],
        }
        if reason:
            params["reason"] = reason
        if prefix is not None:
            params["prefix"] = prefix
        answer = await self._channel.request(REQUEST_METHOD, params)
        try:
            parsed = PermissionAnswer.model_validate(answer)
        except ValidationError:
            _log.warning("unreadable %s answer, refusing the call", REQUEST_METHOD)
            return "reject_once", None
        if isinstance(parsed.outcome, CancelledOutcome):
            return "cancelled", None
        return _option(parsed.outcome.option_id, options), parsed.outcome.prefix

    async def _ask_plain(
        self, title: str, reason: str | None, options: tuple[tuple[PermissionOutcome, str], ...]
    ) -> PermissionOutcome:
        why = f" ({reason})" if reason else ""
        params: dict[str, JsonValue] = {
            "type": types.MessageType.Warning,
            "message": f"dsh-lsp wants to run: {title}{why}. Allow it?",
            "actions": [{"title": name} for _, name in options],
        }
        answer: JsonValue = await self._channel.request(types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        if answer is None:
            return "reject_once"
        try:
            title = MessageActionAnswer.model_validate(answer).title
        except ValidationError:
            _log.warning(
                "unreadable %s answer, refusing the call", types.WINDOW_SHOW_MESSAGE_REQUEST
            )
            return "reject_once"
        for option, name in options:
            if name == title:
                return option
        _log.warning("the client picked an action that was not offered: refusing the call")
        return "reject_once"


def _options(command: str | None, prefix: str | None) -> tuple[tuple[PermissionOutcome, str], ...]:
    """The options of a question: the four, except for a shell command, whose "always"
    names the prefix it remembers (and is missing for a compound command)."""
    if command is None:
        return OPTIONS
    out: list[tuple[PermissionOutcome, str]] = []
    for option, name in OPTIONS:
        if option == "allow_always":
            if prefix is None:
                continue
            name = f"Always allow `{prefix}` in this workspace"
        out.append((option, name))
    return tuple(out)


def _covers(prefix: str, command: str) -> bool:
    return valid_prefix(prefix) and prefix_allows(prefix, command)


def _option(
    option_id: str, options: tuple[tuple[PermissionOutcome, str], ...]
) -> PermissionOutcome:
    for option, _ in options:
        if option == option_id:
            return option
    _log.warning("the client chose an option that was not offered: refusing the call")
    return "reject_once"
