"""The translator from session events to ``dsh/session/update`` payloads (server layer).

Pure and synchronous: one ``UpdateTranslator`` per session turns each logged event into zero
or more updates, the same way live and during a resume's replay. It renders tool calls with
the tools' own presenters (titles relative to the session's cwd, paths absolute) and keeps
the call id → (name, arguments) map a ``tool/result`` needs, since results do not repeat them.

============================  ==========================================================
event                         update(s)
============================  ==========================================================
``turn/start``                ``state_update{state: running}``
``turn/end``                  ``tool_call{cancelled}`` for each card still open, then
                              ``state_update{state: idle, stopReason?, interrupted?, error?}``
                              (the error's message with its fix, ``errors.user_message``)
``user/message``,             ``user_message{content}`` (attachments as ``resource_link``)
``steering/message``
``assistant/chunk``           ``agent_message_chunk{text}`` / ``agent_thought_chunk{text}``;
                              the first fragment of a tool call: ``tool_call{pending}``
``assistant/message``         ``usage_update`` when it carries usage (with ``used``, and
                              ``window`` when known: the context meter)
``compact/start``             ``compaction_update{state: started, reason, tokensBefore}``
``compact/end``               ``compaction_update{state: completed | failed}``, and a
                              ``usage_update{used, window}`` after a completed one
``tool/call``                 ``tool_call{in_progress, title, kind, rawInput, locations…}``
``tool/result``               ``tool_call{completed | failed | cancelled, content}``
``todo/write``                ``plan_update{entries}``
``instructions/loaded``       ``instructions_update{sources}``
============================  ==========================================================

Live command output is not a logged event: ``live_output_update`` renders ``shell/output``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final, Literal

from dsh_lsp.compact import CompactEndPayload, CompactStartPayload
from dsh_lsp.instructions import InstructionsLoadedPayload
from dsh_lsp.llm import (
    CallId,
    ContentBlock,
    JsonObject,
    JsonValue,
    PluginSource,
    ReasoningDelta,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallDelta,
    usage_to_json,
)
from dsh_lsp.server.errors import user_message
from dsh_lsp.session import (
    AssistantChunkPayload,
    AssistantMessagePayload,
    SessionEvent,
    SteeringMessagePayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnEndPayload,
    TurnEndReason,
    TurnFailed,
    TurnInterrupted,
    TurnStartPayload,
    UserMessagePayload,
)
from dsh_lsp.shell import ShellOutput
from dsh_lsp.todo import TodoWritePayload
from dsh_lsp.tools import (
    FileDiff,
    ToolCallView,
    ToolErrorInfo,
    ToolLocation,
    ToolRegistry,
    ToolResult,
    generic_call_view,
    generic_result_view,
    parse_arguments,
)

from .attachment_frame import attachment_link
from .display_paths import relative_title
from .outcome import stop_reason

MAX_RESULT_TEXT: Final = 20_000
"""Characters of a tool result's text shown on its card (the model saw all of it)."""

COMPACTION_SOURCE: Final = PluginSource(plugin="compaction")
"""The source of the user message a compaction puts in place of the history."""

CANCELLED_CODES: Final = frozenset({"ABORTED", "interrupted"})
"""Error codes of results the loop or crash repair recorded for calls that were cut off."""

ToolStatus = Literal["pending", "in_progress", "completed", "failed", "cancelled"]

TEXT_CHUNK: Final = "agent_message_chunk"
THOUGHT_CHUNK: Final = "agent_thought_chunk"


class UpdateTranslator:
    """Turns one session's events into updates; see the module docstring."""

    __slots__ = ("_calls", "_cwd", "_open", "_tools", "window")

    def __init__(
        self, tools: ToolRegistry | None, cwd: str | None, window: int | None = None
    ) -> None:
        self._tools = tools
        self._cwd = cwd
        self._calls: dict[str, tuple[str, JsonValue | str]] = {}
        self._open: dict[str, None] = {}
        """Ids of cards shown pending or in progress and not finished yet, in order."""
        self.window = window
        """The model's context window, shown with every usage (None: unknown)."""

    def translate(self, event: SessionEvent) -> list[JsonObject]:
        """The updates ``event`` produces (often none)."""
        payload = event.payload
        if type(payload) is AssistantChunkPayload:  # most events: no class-pattern walk
            return self._chunk(payload.chunk)
        match payload:
            case AssistantChunkPayload(chunk=chunk):
                return self._chunk(chunk)
            case TurnStartPayload():
                return [{"kind": "state_update", "state": "running"}]
            case TurnEndPayload(reason=reason):
                return [*self._close_open_cards(), _idle(reason)]
            case (
                UserMessagePayload(content=content, source=source)
                | SteeringMessagePayload(content=content, source=source)
            ):
                if source == COMPACTION_SOURCE:
                    return []  # the summary that replaces history; compaction_update says so
                return [{"kind": "user_message", "content": _content(content)}]
            case AssistantMessagePayload(usage=usage):
                return [] if usage is None else [self._usage(usage)]
            case CompactStartPayload(reason=reason, tokens_before=before):
                update: JsonObject = {
                    "kind": "compaction_update",
                    "state": "started",
                    "reason": reason,
                    "tokensBefore": before,
                }
                return [update]
            case CompactEndPayload() as end:
                return self._compacted(end)
            case ToolCallPayload() as call:
                self._open[call.call_id] = None
                return [self._call(call)]
            case ToolResultPayload() as result:
                self._open.pop(result.call_id, None)
                return [self._result(result)]
            case TodoWritePayload(entries=entries):
                return [{"kind": "plan_update", "entries": [e.shown() for e in entries]}]
            case InstructionsLoadedPayload(sources=sources):
                return [{"kind": "instructions_update", "sources": list(sources)}]
            case _:
                return []  # default: other core types and plugin payloads show nothing

    def _usage(self, usage: TokenUsage) -> JsonObject:
        update: dict[str, JsonValue] = {"kind": "usage_update", **usage_to_json(usage)}
        update["used"] = usage.input_tokens + (usage.cache_read_tokens or 0) + usage.output_tokens
        if self.window is not None:
            update["window"] = self.window
        return update

    def _compacted(self, end: CompactEndPayload) -> list[JsonObject]:
        if not end.ok:
            return [{"kind": "compaction_update", "state": "failed", "message": end.error}]
        done: dict[str, JsonValue] = {
            "kind": "compaction_update",
            "state": "completed",
            "tokensBefore": end.tokens_before,
            "tokensAfter": end.tokens_after,
        }
        meter: dict[str, JsonValue] = {"kind": "usage_update", "used": end.tokens_after}
        if self.window is not None:
            meter["window"] = self.window
        return [done, meter]

    def _chunk(self, chunk: StreamChunk) -> list[JsonObject]:
        match chunk:
            case TextDelta(text=text):
                return [{"kind": TEXT_CHUNK, "text": text}]
            case ReasoningDelta(text=text):
                return [{"kind": THOUGHT_CHUNK, "text": text}]
            case ToolCallDelta(id=call_id, name=name) if call_id is not None and name:
                self._open[call_id] = None
                card: dict[str, JsonValue] = {
                    "toolCallId": call_id,
                    "name": name,
                    "title": name,
                    "kind": "other",
                    "status": "pending",
                }
                return [tool_call_update(card)]
            case _:
                return []

    def _close_open_cards(self) -> list[JsonObject]:
        """``cancelled`` for every card still open when its turn ends: a call the model
        streamed but never finished (a failed or cut-off stream, a max-tokens answer, a crash
        mid-stream), whose call no result will ever answer."""
        closing = [
            tool_call_update({"toolCallId": call_id, "status": "cancelled"})
            for call_id in self._open
        ]
        self._open.clear()
        return closing

    def _call(self, call: ToolCallPayload) -> JsonObject:
        args = parse_arguments(call.arguments)
        self._calls[call.call_id] = (call.name, args if args is not None else {})
        view = (
            self._tools.present_call(call.name, args)
            if self._tools is not None
            else generic_call_view(call.name)
        )
        card = self.card(call.call_id, call.name, view, "in_progress")
        if isinstance(args, dict):
            card["rawInput"] = args
        return tool_call_update(card)

    def _result(self, logged: ToolResultPayload) -> JsonObject:
        call_id = logged.call_id
        name, args = self._calls.get(call_id, ("", {}))
        error = logged.error
        result = ToolResult(
            content=logged.content,
            is_error=logged.is_error,
            error=None if error is None else ToolErrorInfo(name=error.name, code=error.code),
            meta=logged.meta,
        )
        if self._tools is not None and name:
            view = self._tools.present_result(name, args, result)
        else:
            view = generic_result_view(generic_call_view(name or "tool"))
        text = view.summary if view.summary is not None else _result_text(result)
        content: list[JsonValue] = [self._diff(diff) for diff in view.diffs]
        if text:
            content.append({"type": "text", "text": _clip(text)})
        card: dict[str, JsonValue] = {
            "toolCallId": call_id,
            "status": _status(result),
            "content": content,
        }
        if view.locations:
            card["locations"] = [self._location(loc) for loc in view.locations]
        return tool_call_update(card)

    def card(
        self, call_id: CallId, name: str, view: ToolCallView, status: ToolStatus
    ) -> dict[str, JsonValue]:
        """The full tool call object of a call shown as ``view`` with ``status``."""
        card: dict[str, JsonValue] = {
            "toolCallId": call_id,
            "name": name,
            "title": self._title(view.title),
            "kind": view.kind,
            "status": status,
        }
        if view.locations:
            card["locations"] = [self._location(loc) for loc in view.locations]
        if view.diffs:
            card["content"] = [self._diff(diff) for diff in view.diffs]
        return card

    def _title(self, title: str) -> str:
        return relative_title(title, self._cwd)

    def _path(self, path: str) -> str:
        if self._cwd and not os.path.isabs(path):
            return os.path.normpath(os.path.join(self._cwd, path))
        return path

    def _location(self, location: ToolLocation) -> JsonValue:
        out: dict[str, JsonValue] = {"path": self._path(location.path)}
        if location.line is not None:
            out["line"] = location.line
        return out

    def _diff(self, diff: FileDiff) -> JsonValue:
        return {
            "type": "diff",
            "path": self._path(diff.path),
            "oldText": diff.old_text,
            "newText": diff.new_text,
        }


def live_output_update(output: ShellOutput) -> JsonObject:
    """The ``tool_call`` update showing a running command's output tail: the card's
    ``content`` is the tail as text (any client renders it; the result replaces it), and
    ``terminal`` says how much there is so far."""
    return tool_call_update(
        {
            "toolCallId": output.call_id,
            "status": "in_progress",
            "content": [{"type": "text", "text": output.tail}],
            "terminal": {
                "taskId": output.task_id,
                "bytes": output.total_bytes,
                "elapsedMs": int(output.elapsed_s * 1000),
            },
        }
    )


def tool_call_update(card: JsonObject) -> JsonObject:
    """The ``tool_call`` update carrying ``card``: an upsert keyed by ``card["toolCallId"]``
    (the card sits under ``toolCall`` because ``kind`` names the update itself)."""
    return {"kind": "tool_call", "toolCall": card}


def fold_cards(updates: Sequence[JsonObject]) -> list[JsonObject]:
    """``updates`` with each card's later ``tool_call`` updates folded into its first one.

    A ``tool_call`` is an upsert whose fields replace the card's, so the folded update
    leaves a client with the same cards, each where it first appeared; a card whose states
    go out together (its ``pending``, ``in_progress`` and ``completed`` after one write)
    costs one update instead of three. The updates given are not changed."""
    first: dict[JsonValue, int] = {}
    folded: list[JsonObject] = []
    for update in updates:
        card = update.get("toolCall") if update.get("kind") == "tool_call" else None
        if not isinstance(card, dict):
            folded.append(update)
            continue
        call_id = card.get("toolCallId")
        at = first.get(call_id)
        if at is None:
            first[call_id] = len(folded)
            folded.append(update)
            continue
        shown = folded[at]["toolCall"]
        assert isinstance(shown, dict)  # only cards are indexed
        folded[at] = tool_call_update({**shown, **card})
    return folded


def _idle(reason: TurnEndReason) -> JsonObject:
    update: dict[str, JsonValue] = {"kind": "state_update", "state": "idle"}
    if isinstance(reason, TurnFailed):
        code = reason.code or "UNKNOWN"
        update["error"] = {"code": code, "message": user_message(reason.message, code)}
    else:
        update["stopReason"] = stop_reason(reason)
        if isinstance(reason, TurnInterrupted):  # closed by crash repair when the log was loaded
            update["interrupted"] = True
    return update


def _content(blocks: tuple[ContentBlock, ...]) -> list[JsonValue]:
    """The prompt blocks of a logged user message: its text, and each attachment as the
    ``resource_link`` the user sent (other blocks are not shown)."""
    out: list[JsonValue] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            out.append(attachment_link(block.text) or {"type": "text", "text": block.text})
    return out


def _result_text(result: ToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextBlock))


def _status(result: ToolResult) -> ToolStatus:
    if not result.is_error:
        return "completed"
    if result.error is not None and result.error.code in CANCELLED_CODES:
        return "cancelled"
    return "failed"


def _clip(text: str) -> str:
    if len(text) <= MAX_RESULT_TEXT:
        return text
    return f"{text[:MAX_RESULT_TEXT]}\n… ({len(text) - MAX_RESULT_TEXT} more characters)"


def texts(updates: Sequence[JsonObject]) -> str:
    """The concatenated text of the ``agent_message_chunk`` updates in ``updates``."""
    return "".join(str(u.get("text", "")) for u in updates if u.get("kind") == TEXT_CHUNK)
