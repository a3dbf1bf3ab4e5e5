"""How one surface event reads to the model: its message, or none (session layer).

``user/message`` is a user message; ``assistant/message`` an assistant message (none when its
content is empty); ``tool/result`` a user message holding one tool-result block; and
``context/message`` / ``steering/message`` a user message whose content sits between two text
blocks, ``<context source="plugin" plugin="hooks">`` … ``</context>`` (tag ``steering``). The
attribute values are JSON strings, so the source label, which tells the model who spoke,
cannot break out of the tag. Messages are built from the logged data only.
"""

from __future__ import annotations

from typing import assert_never

from dsh_lsp.llm import (
    CallId,
    ContentBlock,
    JsonObject,
    Message,
    PluginSource,
    TextBlock,
    ToolResultBlock,
    UserSource,
    block_from_json,
    dumps_compact,
    source_from_json,
)

from . import events as ev
from .event import SessionEvent


def render_event(event: SessionEvent) -> Message | None:
    """The message ``event`` contributes to the model history, or None.

    Raises ``LlmError`` (``MALFORMED_RECORD``) or ``ValueError`` when the data does not hold
    the type's fields; ``Session.append`` turns that into a refused append.
    """
    data = event.data
    match event.type:
        case ev.USER_MESSAGE:
            return Message(role="user", content=_blocks(data))
        case ev.ASSISTANT_MESSAGE:
            content = _blocks(data)
            return Message(role="assistant", content=content) if content else None
        case ev.TOOL_RESULT:
            call_id = data.get("callId")
            is_error = data.get("isError", False)
            if type(call_id) is not str or type(is_error) is not bool:
                raise ValueError("tool/result needs a string callId and a boolean isError")
            block = ToolResultBlock(
                tool_call_id=CallId(call_id), content=_blocks(data), is_error=is_error
            )
            return Message(role="user", content=(block,))
        case ev.CONTEXT_MESSAGE:
            return _envelope("context", data)
        case ev.STEERING_MESSAGE:
            return _envelope("steering", data)
    raise ValueError(f"{event.type!r} is not a surface event type")


def _blocks(data: JsonObject) -> tuple[ContentBlock, ...]:
    content = data.get("content")
    if type(content) is not list:
        raise ValueError("surface event data needs a 'content' array")
    return tuple(block_from_json(item) for item in content)


def _envelope(tag: str, data: JsonObject) -> Message:
    source = source_from_json(data.get("source"))
    match source:
        case UserSource():
            attributes = f"source={dumps_compact(source.kind)}"
        case PluginSource(plugin=plugin):
            attributes = f"source={dumps_compact(source.kind)} plugin={dumps_compact(plugin)}"
        case _:
            assert_never(source)
    opening = TextBlock(text=f"<{tag} {attributes}>")
    closing = TextBlock(text=f"</{tag}>")
    return Message(role="user", content=(opening, *_blocks(data), closing))
