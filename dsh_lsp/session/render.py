"""How one surface event reads to the model: its message, or none (session layer).

``user/message`` is a user message; ``assistant/message`` an assistant message (none when its
content is empty); ``tool/result`` a user message holding one tool-result block; and
``context/message`` / ``steering/message`` a user message whose content sits between two text
blocks, ``<context source="plugin" plugin="hooks">`` … ``</context>`` (tag ``steering``). The
attribute values are JSON strings, so the source label, which tells the model who spoke,
cannot break out of the tag; a plugin source kind is labelled by its kind alone (the
documented default). Messages are built from the logged payload only.
"""

from __future__ import annotations

from typing import assert_never

from dsh_lsp.llm import (
    ContentBlock,
    ExtensionSource,
    Message,
    MessageSource,
    PluginSource,
    TextBlock,
    ToolResultBlock,
    UserSource,
    dumps_compact,
)

from .event import SessionEvent
from .payloads import (
    AssistantMessagePayload,
    ContextMessagePayload,
    SteeringMessagePayload,
    ToolResultPayload,
    UserMessagePayload,
)


def render_event(event: SessionEvent) -> Message | None:
    """The message ``event`` contributes to the model history, or None.

    Raises ``LlmError`` (``MALFORMED_RECORD``) when the data does not decode, or
    ``ValueError`` when ``event`` is not a surface event; ``Session.append`` turns either
    into a refused append.
    """
    match event.payload:
        case UserMessagePayload(content=content):
            return Message(role="user", content=content)
        case AssistantMessagePayload(content=content):
            return Message(role="assistant", content=content) if content else None
        case ToolResultPayload(call_id=call_id, content=content, is_error=is_error):
            block = ToolResultBlock(tool_call_id=call_id, content=content, is_error=is_error)
            return Message(role="user", content=(block,))
        case ContextMessagePayload(content=content, source=source):
            return _envelope("context", content, source)
        case SteeringMessagePayload(content=content, source=source):
            return _envelope("steering", content, source)
    raise ValueError(f"{event.type!r} is not a surface event type")


def _envelope(tag: str, content: tuple[ContentBlock, ...], source: MessageSource) -> Message:
    match source:
        case UserSource():
            attributes = f"source={dumps_compact(source.kind)}"
        case PluginSource(plugin=plugin):
            attributes = f"source={dumps_compact(source.kind)} plugin={dumps_compact(plugin)}"
        case ExtensionSource():  # default for plugin source kinds: labelled by kind alone
            attributes = f"source={dumps_compact(source.kind)}"
        case _:
            assert_never(source)
    opening = TextBlock(text=f"<{tag} {attributes}>")
    closing = TextBlock(text=f"</{tag}>")
    return Message(role="user", content=(opening, *content, closing))
