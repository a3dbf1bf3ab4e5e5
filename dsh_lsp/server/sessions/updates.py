"""The translator from session events to ``dsh/session/update`` payloads (server layer).

Pure and synchronous: one ``UpdateTranslator`` per session turns each logged event into zero
or more updates, the same way live and during a resume's replay. It renders tool calls with
the tools' own presenters (titles relative to the session's cwd, paths absolute) and keeps
the call id → (name, arguments) map a ``tool/result`` needs, since results do not repeat them.

============================  ==========================================================
event                         update(s)
============================  ==========================================================
``turn/start``                ``state_update{state: running}``
``turn/end``                  ``state_update{state: idle, stopReason?, error?}``
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

import logging
import os
from collections.abc import Sequence
from typing import Final, Literal

from dsh_lsp.llm import (
    CallId,
    JsonObject,
    JsonValue,
    LlmError,
    TextBlock,
    block_from_json,
)
from dsh_lsp.session import SessionEvent
from dsh_lsp.shell import ShellOutput
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

_log = logging.getLogger(__name__)

MAX_RESULT_TEXT: Final = 20_000
"""Characters of a tool result's text shown on its card (the model saw all of it)."""

COMPACTION_SOURCE: Final = {"kind": "plugin", "plugin": "compaction"}
"""The source of the user message a compaction puts in place of the history."""

CANCELLED_CODES: Final = frozenset({"ABORTED", "interrupted"})
"""Error codes of results the loop or crash repair recorded for calls that were cut off."""

ToolStatus = Literal["pending", "in_progress", "completed", "failed", "cancelled"]

TEXT_CHUNK: Final = "agent_message_chunk"
THOUGHT_CHUNK: Final = "agent_thought_chunk"


class UpdateTranslator:
    """Turns one session's events into updates; see the module docstring."""

    __slots__ = ("_calls", "_cwd", "_tools", "window")

    def __init__(
        self, tools: ToolRegistry | None, cwd: str | None, window: int | None = None
    ) -> None:
        self._tools = tools
        self._cwd = cwd
        self._calls: dict[str, tuple[str, JsonValue | str]] = {}
        self.window = window
        """The model's context window, shown with every usage (None: unknown)."""

    def translate(self, event: SessionEvent) -> list[JsonObject]:
        """The updates ``event`` produces (often none)."""
        data = event.data
        match event.type:
            case "assistant/chunk":
                return self._chunk(data.get("chunk"))
            case "turn/start":
                return [{"kind": "state_update", "state": "running"}]
            case "turn/end":
                return [_idle(data.get("reason"))]
            case "user/message" | "steering/message":
                if data.get("source") == COMPACTION_SOURCE:
                    return []  # the summary that replaces history; compaction_update says so
                return [{"kind": "user_message", "content": _content(data.get("content"))}]
            case "assistant/message":
                usage = data.get("usage")
                return [self._usage(usage)] if isinstance(usage, dict) else []
            case "compact/start":
                return [
                    {
                        "kind": "compaction_update",
                        "state": "started",
                        "reason": data.get("reason"),
                        "tokensBefore": data.get("tokensBefore"),
                    }
                ]
            case "compact/end":
                return self._compacted(data)
            case "tool/call":
                return [self._call(data)]
            case "tool/result":
                return [self._result(data)]
            case "todo/write":
                return [{"kind": "plan_update", "entries": _plan(data.get("todos"))}]
            case "instructions/loaded":
                sources = data.get("sources")
                return [{"kind": "instructions_update", "sources": sources or []}]
            case _:
                return []

    def _usage(self, usage: JsonObject) -> JsonObject:
        update: dict[str, JsonValue] = {"kind": "usage_update", **usage}
        used = sum(
            value
            for key in ("inputTokens", "cacheReadTokens", "outputTokens")
            if isinstance(value := usage.get(key), int)
        )
        update["used"] = used
        if self.window is not None:
            update["window"] = self.window
        return update

    def _compacted(self, data: JsonObject) -> list[JsonObject]:
        if data.get("ok") is not True:
            return [{"kind": "compaction_update", "state": "failed", "message": data.get("error")}]
        done: dict[str, JsonValue] = {
            "kind": "compaction_update",
            "state": "completed",
            "tokensBefore": data.get("tokensBefore"),
            "tokensAfter": data.get("tokensAfter"),
        }
        meter: dict[str, JsonValue] = {"kind": "usage_update", "used": data.get("tokensAfter")}
        if self.window is not None:
            meter["window"] = self.window
        return [done, meter]

    def _chunk(self, chunk: JsonValue) -> list[JsonObject]:
        if not isinstance(chunk, dict):
            return []
        match chunk.get("type"):
            case "text-delta":
                return [{"kind": TEXT_CHUNK, "text": chunk.get("text", "")}]
            case "reasoning-delta":
                return [{"kind": THOUGHT_CHUNK, "text": chunk.get("text", "")}]
            case "tool-call-delta":
                call_id, name = chunk.get("id"), chunk.get("name")
                if isinstance(call_id, str) and isinstance(name, str) and name:
                    return [
                        tool_call_update(
                            {
                                "toolCallId": call_id,
                                "name": name,
                                "title": name,
                                "kind": "other",
                                "status": "pending",
                            }
                        )
                    ]
                return []
            case _:
                return []

    def _call(self, data: JsonObject) -> JsonObject:
        call_id, name = str(data.get("callId")), str(data.get("name"))
        raw = data.get("arguments")
        args = parse_arguments(raw) if isinstance(raw, str) else raw
        self._calls[call_id] = (name, args if args is not None else {})
        view = (
            self._tools.present_call(name, args)
            if self._tools is not None
            else generic_call_view(name)
        )
        card = self.card(CallId(call_id), name, view, "in_progress")
        if isinstance(args, dict):
            card["rawInput"] = args
        return tool_call_update(card)

    def _result(self, data: JsonObject) -> JsonObject:
        call_id = str(data.get("callId"))
        name, args = self._calls.get(call_id, ("", {}))
        result = _tool_result(data)
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


def _idle(reason: JsonValue) -> JsonObject:
    update: dict[str, JsonValue] = {"kind": "state_update", "state": "idle"}
    kind = reason.get("kind") if isinstance(reason, dict) else None
    stop = stop_reason(str(kind))
    if stop is not None:
        update["stopReason"] = stop
    elif isinstance(reason, dict) and kind == "error":
        update["error"] = {"code": reason.get("code", "UNKNOWN"), "message": reason.get("message")}
    return update


def _content(blocks: JsonValue) -> list[JsonValue]:
    """The prompt blocks of a logged user message: its text, and each attachment as the
    ``resource_link`` the user sent."""
    if not isinstance(blocks, list):
        return []
    out: list[JsonValue] = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "text":
            text = str(block.get("text", ""))
            out.append(attachment_link(text) or {"type": "text", "text": text})
    return out


def _plan(todos: JsonValue) -> list[JsonValue]:
    if not isinstance(todos, list):
        return []
    return [
        {
            "content": todo.get("content", ""),
            "status": todo.get("status", "pending"),
            "priority": todo.get("priority", "medium"),
        }
        for todo in todos
        if isinstance(todo, dict)
    ]


def _tool_result(data: JsonObject) -> ToolResult:
    blocks = data.get("content")
    content = []
    for record in blocks if isinstance(blocks, list) else ():
        try:
            content.append(block_from_json(record))
        except LlmError:
            _log.debug("skipped an undecodable block of a tool result")
    error = data.get("error")
    info = None
    if isinstance(error, dict):
        info = ToolErrorInfo(name=str(error.get("name", "")), code=str(error.get("code", "")))
    meta = data.get("meta")
    return ToolResult(
        content=tuple(content),
        is_error=data.get("isError") is True,
        error=info,
        meta=meta if isinstance(meta, dict) else None,
    )


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
