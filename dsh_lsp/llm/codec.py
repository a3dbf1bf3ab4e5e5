"""JSON records for blocks, messages and sources (llm layer).

The record shape is the persisted form the session log stores: an object tagged by ``type``
with camelCase fields, optional fields omitted when absent. ``*_to_json`` returns plain dicts
ready for ``dumps_compact``; ``*_from_json`` accepts any decoded JSON value and raises
``LlmError`` (``MALFORMED_RECORD``) for anything that does not decode to a vocabulary value.
Plugin block and source kinds decode through their vocabularies (``vocabulary``): a registered
class, or the opaque value that keeps the record.
"""

from __future__ import annotations

from typing import assert_never

from .block_registry import BLOCK_KINDS
from .blocks import (
    ContentBlock,
    ExtensionBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .ids import CallId
from .json_fields import as_object, malformed, read_bool, read_list, read_str
from .json_value import JsonValue
from .message import (
    MESSAGE_SOURCES,
    ExtensionSource,
    Message,
    MessageSource,
    PluginSource,
    Role,
    UserSource,
)

_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant"}


def block_to_json(block: ContentBlock) -> dict[str, JsonValue]:
    """The JSON record of ``block``."""
    match block:
        case TextBlock(text=text):
            return {"type": "text", "text": text}
        case ReasoningBlock(text=text):
            return {"type": "reasoning", "text": text}
        case ToolCallBlock(id=call_id, name=name, arguments=arguments):
            return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
        case ToolResultBlock(tool_call_id=call_id, content=content, is_error=is_error):
            record: dict[str, JsonValue] = {
                "type": "tool-result",
                "toolCallId": call_id,
                "content": [block_to_json(b) for b in content],
            }
            if is_error:
                record["isError"] = True
            return record
        case ExtensionBlock():
            return BLOCK_KINDS.encode(block)
        case _:
            assert_never(block)


def block_from_json(value: object) -> ContentBlock:
    """Decode a block record; raises ``LlmError`` (``MALFORMED_RECORD``)."""
    obj, kind = BLOCK_KINDS.read_kind(value)
    match kind:
        case "text":
            return TextBlock(text=read_str(obj, "text", "text block"))
        case "reasoning":
            return ReasoningBlock(text=read_str(obj, "text", "reasoning block"))
        case "tool-call":
            what = "tool-call block"
            return ToolCallBlock(
                id=CallId(read_str(obj, "id", what)),
                name=read_str(obj, "name", what),
                arguments=read_str(obj, "arguments", what),
            )
        case "tool-result":
            what = "tool-result block"
            return ToolResultBlock(
                tool_call_id=CallId(read_str(obj, "toolCallId", what)),
                content=tuple(block_from_json(b) for b in read_list(obj, "content", what)),
                is_error=read_bool(obj, "isError", what, default=False),
            )
    return BLOCK_KINDS.decode(kind, obj)


def message_to_json(message: Message) -> dict[str, JsonValue]:
    """The JSON record of ``message``."""
    return {"role": message.role, "content": [block_to_json(b) for b in message.content]}


def message_from_json(value: object) -> Message:
    """Decode a message record; raises ``LlmError`` (``MALFORMED_RECORD``)."""
    obj = as_object(value, "message")
    role = _ROLES.get(read_str(obj, "role", "message"))
    if role is None:
        malformed("message", f"unknown role {obj['role']!r}")
    content = tuple(block_from_json(b) for b in read_list(obj, "content", "message"))
    return Message(role=role, content=content)


def source_to_json(source: MessageSource) -> dict[str, JsonValue]:
    """The JSON record of ``source``."""
    match source:
        case UserSource():
            return {"kind": "user"}
        case PluginSource(plugin=plugin):
            return {"kind": "plugin", "plugin": plugin}
        case ExtensionSource():
            return MESSAGE_SOURCES.encode(source)
        case _:
            assert_never(source)


def source_from_json(value: object) -> MessageSource:
    """Decode a source record; raises ``LlmError`` (``MALFORMED_RECORD``)."""
    obj, kind = MESSAGE_SOURCES.read_kind(value, "source")
    if kind == "user":
        return UserSource()
    if kind == "plugin":
        return PluginSource(plugin=read_str(obj, "plugin", "plugin source"))
    return MESSAGE_SOURCES.decode(kind, obj)
