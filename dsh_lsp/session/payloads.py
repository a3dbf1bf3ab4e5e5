"""Typed event payloads: one frozen dataclass per core event type, decoded once (session layer).

Every ``SessionEvent`` carries its ``data`` twice: as lossless JSON (``event.data``, what the
log stores) and typed (``event.payload``). The two meet only here. Writers build a payload
and log it with ``Session.write``, which encodes it once (``to_json``); events that arrive
as JSON (``Session.append``, a seed, a stored log) are decoded once, by type, by
``decode_payload`` when the log admits them (a load defers a stored chunk to its first
reader, ``check_stored_chunk``). Readers ``match`` on ``event.payload`` and never read the
JSON.

The payload union is an open vocabulary like the model layer's (see
``dsh_lsp.llm.vocabulary``): a plugin that logs its own event type subclasses
``ExtensionPayload`` (``kind`` = the event type) and registers the class with
``EVENT_PAYLOADS`` inside ``ctx.effect``. A type nobody registered decodes to a
``RawPayload``, which keeps the JSON as logged; that is also how a plugin logs a type
without a class. A ``match`` over payloads ends in ``case ExtensionPayload():``, the
documented default: a reader that does not know a plugin type skips it.

Records use camelCase keys and omit absent optionals. Decoders raise ``LlmError``
(``MALFORMED_RECORD``) naming the event type and the field; the log turns that into a refused
event.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final, Literal, Self

from dsh_lsp.llm import (
    CallId,
    ContentBlock,
    Extension,
    JsonObject,
    JsonValue,
    MessageSource,
    Opaque,
    StreamChunk,
    TokenUsage,
    Vocabulary,
    block_from_json,
    block_to_json,
    chunk_from_json,
    chunk_to_json,
    malformed,
    read_bool,
    read_list,
    read_str,
    source_from_json,
    source_to_json,
    usage_from_json,
    usage_to_json,
)

from . import events as ev
from .turn_kinds import (
    InjectionTrigger,
    MessageTrigger,
    TurnEndReason,
    TurnTrigger,
    end_reason_from_json,
    end_reason_to_json,
    trigger_from_json,
    trigger_to_json,
)

# --- core payloads -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStartPayload:
    """``turn/start {turn, trigger}``."""

    kind: ClassVar[Literal["turn/start"]] = "turn/start"
    turn: int
    trigger: TurnTrigger

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {"turn": self.turn, "trigger": trigger_to_json(self.trigger)}


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEndPayload:
    """``turn/end {turn, reason}``."""

    kind: ClassVar[Literal["turn/end"]] = "turn/end"
    turn: int
    reason: TurnEndReason

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {"turn": self.turn, "reason": end_reason_to_json(self.reason)}


@dataclass(frozen=True, slots=True, kw_only=True)
class StepStartPayload:
    """``step/start {turn, step}``."""

    kind: ClassVar[Literal["step/start"]] = "step/start"
    turn: int
    step: int

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {"turn": self.turn, "step": self.step}


@dataclass(frozen=True, slots=True, kw_only=True)
class StepEndPayload:
    """``step/end {turn, step}``."""

    kind: ClassVar[Literal["step/end"]] = "step/end"
    turn: int
    step: int

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {"turn": self.turn, "step": self.step}


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessagePayload:
    """``user/message {content, source}`` (surface)."""

    kind: ClassVar[Literal["user/message"]] = "user/message"
    content: tuple[ContentBlock, ...]
    source: MessageSource

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {"content": blocks_json(self.content), "source": source_to_json(self.source)}


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptBlockedPayload:
    """``prompt/blocked {content, source, reason}``: a message a prompt-submit hook refused."""

    kind: ClassVar[Literal["prompt/blocked"]] = "prompt/blocked"
    content: tuple[ContentBlock, ...]
    source: MessageSource
    reason: str

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {
            "content": blocks_json(self.content),
            "source": source_to_json(self.source),
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantChunkPayload:
    """``assistant/chunk {turn, step, chunk}``: one streamed chunk, as received."""

    kind: ClassVar[Literal["assistant/chunk"]] = "assistant/chunk"
    turn: int
    step: int
    chunk: StreamChunk

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {"turn": self.turn, "step": self.step, "chunk": chunk_to_json(self.chunk)}


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessagePayload:
    """``assistant/message {turn, step, content, usage?}`` (surface)."""

    kind: ClassVar[Literal["assistant/message"]] = "assistant/message"
    turn: int
    step: int
    content: tuple[ContentBlock, ...]
    usage: TokenUsage | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        record: dict[str, JsonValue] = {
            "turn": self.turn,
            "step": self.step,
            "content": blocks_json(self.content),
        }
        if self.usage is not None:
            record["usage"] = usage_to_json(self.usage)
        return record


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallPayload:
    """``tool/call {turn, step, callId, name, arguments}``; ``arguments`` is raw JSON text."""

    kind: ClassVar[Literal["tool/call"]] = "tool/call"
    turn: int
    step: int
    call_id: CallId
    name: str
    arguments: str

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {
            "turn": self.turn,
            "step": self.step,
            "callId": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultError:
    """The error classification of a failed tool result (``{name, code}``)."""

    name: str
    code: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultPayload:
    """``tool/result {turn, step, callId, content, isError, error?, meta?}`` (surface).

    ``call_id`` is the model's id of the call this result answers.
    """

    kind: ClassVar[Literal["tool/result"]] = "tool/result"
    turn: int
    step: int
    call_id: CallId
    content: tuple[ContentBlock, ...]
    is_error: bool = False
    error: ResultError | None = None
    meta: JsonObject | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        record: dict[str, JsonValue] = {
            "turn": self.turn,
            "step": self.step,
            "callId": self.call_id,
            "content": blocks_json(self.content),
            "isError": self.is_error,
        }
        if self.error is not None:
            record["error"] = {"name": self.error.name, "code": self.error.code}
        if self.meta is not None:
            record["meta"] = dict(self.meta)
        return record


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextMessagePayload:
    """``context/message {content, source}`` (surface): durable context, in an envelope."""

    kind: ClassVar[Literal["context/message"]] = "context/message"
    content: tuple[ContentBlock, ...]
    source: MessageSource

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {"content": blocks_json(self.content), "source": source_to_json(self.source)}


@dataclass(frozen=True, slots=True, kw_only=True)
class SteeringMessagePayload:
    """``steering/message {turn, content, source}`` (surface): a message sent mid-turn."""

    kind: ClassVar[Literal["steering/message"]] = "steering/message"
    turn: int
    content: tuple[ContentBlock, ...]
    source: MessageSource

    def to_json(self) -> dict[str, JsonValue]:
        """The event's data record."""
        return {
            "turn": self.turn,
            "content": blocks_json(self.content),
            "source": source_to_json(self.source),
        }


# --- plugin payloads -----------------------------------------------------------------------


class ExtensionPayload(Extension):
    """Base of every plugin-defined event payload; ``kind`` is the event type it types.

    ``to_json`` gives the event's whole data object (there is no tag inside it: the event's
    ``type`` is the tag).
    """

    __slots__ = ()


class RawPayload(Opaque, ExtensionPayload):
    """The data of an event type no loaded plugin registered (``record``), kept as logged.

    Also the way to log a plugin type without a class: ``Session.write(RawPayload(...))``
    logs the JSON as given (and decodes it by type like ``Session.append``). The event's
    ``type`` is its kind; nothing inside ``record`` names it.
    """

    __slots__ = ()

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """Not decodable without its type: build ``RawPayload(kind=..., record=...)``."""
        raise ValueError("a RawPayload needs its event type; construct it directly")


EventPayload = (
    TurnStartPayload
    | TurnEndPayload
    | StepStartPayload
    | StepEndPayload
    | UserMessagePayload
    | PromptBlockedPayload
    | AssistantChunkPayload
    | AssistantMessagePayload
    | ToolCallPayload
    | ToolResultPayload
    | ContextMessagePayload
    | SteeringMessagePayload
    | ExtensionPayload
)
"""The typed data of one session event: a core payload, or a plugin payload."""

EVENT_PAYLOADS: Final = Vocabulary[ExtensionPayload](
    "event payload",
    ev.CORE_EVENT_TYPES,
    RawPayload,
)
"""Plugin event payload classes: ``ctx.effect(lambda: EVENT_PAYLOADS.register(cls))``."""

TURN_SCOPED: Final = (
    TurnStartPayload,
    TurnEndPayload,
    StepStartPayload,
    StepEndPayload,
    AssistantChunkPayload,
    AssistantMessagePayload,
    ToolCallPayload,
    ToolResultPayload,
    SteeringMessagePayload,
)
"""The payload classes that carry a ``turn`` (all but the first three kinds carry a ``step``
too, except ``steering/message``)."""


# --- decoding: the one boundary ------------------------------------------------------------


def blocks_json(content: Sequence[ContentBlock]) -> list[JsonValue]:
    """The records of ``content``, in order."""
    return [block_to_json(block) for block in content]


def decode_payload(kind: str, data: JsonObject) -> EventPayload:
    """The typed payload of an event of type ``kind`` whose data is ``data``.

    Core types decode to their class; a registered plugin type to its class; any other type
    to a ``RawPayload`` holding ``data``. Raises ``LlmError`` (``MALFORMED_RECORD``) when the
    data does not hold the type's fields.
    """
    decoder = _DECODERS.get(kind)
    if decoder is None:
        return EVENT_PAYLOADS.decode(kind, data)
    return decoder(data)


def _count(obj: JsonObject, key: str, what: str) -> int:
    value = obj.get(key)
    if type(value) is not int or value < 1:
        malformed(what, f"needs a positive integer {key!r}")
    return value


def _blocks(obj: JsonObject, what: str) -> tuple[ContentBlock, ...]:
    return tuple(block_from_json(item) for item in read_list(obj, "content", what))


def _call_id(obj: JsonObject, what: str) -> CallId:
    return CallId(read_str(obj, "callId", what))


def _turn_start(obj: JsonObject) -> TurnStartPayload:
    return TurnStartPayload(
        turn=_count(obj, "turn", ev.TURN_START), trigger=trigger_from_json(obj.get("trigger"))
    )


def _turn_end(obj: JsonObject) -> TurnEndPayload:
    return TurnEndPayload(
        turn=_count(obj, "turn", ev.TURN_END), reason=end_reason_from_json(obj.get("reason"))
    )


def _step_start(obj: JsonObject) -> StepStartPayload:
    what = ev.STEP_START
    return StepStartPayload(turn=_count(obj, "turn", what), step=_count(obj, "step", what))


def _step_end(obj: JsonObject) -> StepEndPayload:
    what = ev.STEP_END
    return StepEndPayload(turn=_count(obj, "turn", what), step=_count(obj, "step", what))


def _user_message(obj: JsonObject) -> UserMessagePayload:
    return UserMessagePayload(
        content=_blocks(obj, ev.USER_MESSAGE), source=source_from_json(obj.get("source"))
    )


def _prompt_blocked(obj: JsonObject) -> PromptBlockedPayload:
    what = ev.PROMPT_BLOCKED
    return PromptBlockedPayload(
        content=_blocks(obj, what),
        source=source_from_json(obj.get("source")),
        reason=read_str(obj, "reason", what),
    )


def _assistant_chunk(obj: JsonObject) -> AssistantChunkPayload:
    turn, step = obj.get("turn"), obj.get("step")
    if type(turn) is int and type(step) is int and turn > 0 and step > 0:  # a log is mostly this
        return AssistantChunkPayload(turn=turn, step=step, chunk=chunk_from_json(obj.get("chunk")))
    what = ev.ASSISTANT_CHUNK  # the careful path names the bad field
    return AssistantChunkPayload(
        turn=_count(obj, "turn", what),
        step=_count(obj, "step", what),
        chunk=chunk_from_json(obj.get("chunk")),
    )


def check_stored_chunk(obj: JsonObject) -> None:
    """Check a stored ``assistant/chunk`` record's envelope without decoding its chunk.

    A load's share of admission for the type that makes up most of a log: positive integer
    ``turn`` and ``step`` and an object ``chunk``. Nothing a load runs reads a chunk, so the
    chunk itself is decoded when the event's ``payload`` is first read. Raises ``LlmError``
    (``MALFORMED_RECORD``) naming the field, like the decoders.
    """
    turn, step = obj.get("turn"), obj.get("step")
    if type(turn) is int and type(step) is int and turn > 0 and step > 0:  # a log is mostly this
        if type(obj.get("chunk")) is not dict:
            malformed(ev.ASSISTANT_CHUNK, "field 'chunk' must be an object")
        return
    _count(obj, "turn", ev.ASSISTANT_CHUNK)
    _count(obj, "step", ev.ASSISTANT_CHUNK)


def _assistant_message(obj: JsonObject) -> AssistantMessagePayload:
    what = ev.ASSISTANT_MESSAGE
    usage = obj.get("usage")
    return AssistantMessagePayload(
        turn=_count(obj, "turn", what),
        step=_count(obj, "step", what),
        content=_blocks(obj, what),
        usage=None if usage is None else usage_from_json(usage),
    )


def _tool_call(obj: JsonObject) -> ToolCallPayload:
    what = ev.TOOL_CALL
    return ToolCallPayload(
        turn=_count(obj, "turn", what),
        step=_count(obj, "step", what),
        call_id=_call_id(obj, what),
        name=read_str(obj, "name", what),
        arguments=read_str(obj, "arguments", what),
    )


def _tool_result(obj: JsonObject) -> ToolResultPayload:
    what = ev.TOOL_RESULT
    error = obj.get("error")
    meta = obj.get("meta")
    if meta is not None and type(meta) is not dict:
        malformed(what, "field 'meta' must be an object")
    return ToolResultPayload(
        turn=_count(obj, "turn", what),
        step=_count(obj, "step", what),
        call_id=_call_id(obj, what),
        content=_blocks(obj, what),
        is_error=read_bool(obj, "isError", what, default=False),
        error=None if error is None else _result_error(error),
        meta=meta,
    )


def _result_error(value: JsonValue) -> ResultError:
    what = "tool/result error"
    if type(value) is not dict:
        malformed(what, "expected a JSON object")
    return ResultError(name=read_str(value, "name", what), code=read_str(value, "code", what))


def _context_message(obj: JsonObject) -> ContextMessagePayload:
    return ContextMessagePayload(
        content=_blocks(obj, ev.CONTEXT_MESSAGE), source=source_from_json(obj.get("source"))
    )


def _steering_message(obj: JsonObject) -> SteeringMessagePayload:
    what = ev.STEERING_MESSAGE
    return SteeringMessagePayload(
        turn=_count(obj, "turn", what),
        content=_blocks(obj, what),
        source=source_from_json(obj.get("source")),
    )


_DECODERS: Final[dict[str, Callable[[JsonObject], EventPayload]]] = {
    ev.TURN_START: _turn_start,
    ev.TURN_END: _turn_end,
    ev.STEP_START: _step_start,
    ev.STEP_END: _step_end,
    ev.USER_MESSAGE: _user_message,
    ev.PROMPT_BLOCKED: _prompt_blocked,
    ev.ASSISTANT_CHUNK: _assistant_chunk,
    ev.ASSISTANT_MESSAGE: _assistant_message,
    ev.TOOL_CALL: _tool_call,
    ev.TOOL_RESULT: _tool_result,
    ev.CONTEXT_MESSAGE: _context_message,
    ev.STEERING_MESSAGE: _steering_message,
}


def counts_problem(payload: EventPayload) -> str | None:
    """The first turn/step field of a typed payload that is not a positive integer, or None.

    The typed write path's share of admission: what it accepts must decode when read back.
    """
    if not isinstance(payload, TURN_SCOPED):
        return None
    turn = payload.turn
    if type(turn) is not int or turn < 1:
        return f"{payload.kind} needs a positive integer 'turn'"
    step = getattr(payload, "step", 1)
    if type(step) is not int or step < 1:
        return f"{payload.kind} needs a positive integer 'step'"
    return None


# --- JSON builders, for ``Session.append`` of raw data -------------------------------------


def message_trigger(source: MessageSource) -> MessageTrigger:
    """A turn started by queued messages; ``source`` is the first message's source."""
    return MessageTrigger(source=source)


def injection_trigger() -> InjectionTrigger:
    """A one-turn wrapper around context injected while the agent was idle."""
    return InjectionTrigger()


def turn_start_data(turn: int, trigger: TurnTrigger) -> dict[str, JsonValue]:
    """The data of ``turn/start {turn, trigger}``."""
    return TurnStartPayload(turn=turn, trigger=trigger).to_json()


def turn_end_data(turn: int, reason: TurnEndReason) -> dict[str, JsonValue]:
    """The data of ``turn/end {turn, reason}`` (build ``reason`` with ``end_reason``)."""
    return TurnEndPayload(turn=turn, reason=reason).to_json()


def step_start_data(turn: int, step: int) -> dict[str, JsonValue]:
    """The data of ``step/start {turn, step}``."""
    return StepStartPayload(turn=turn, step=step).to_json()


def step_end_data(turn: int, step: int) -> dict[str, JsonValue]:
    """The data of ``step/end {turn, step}``."""
    return StepEndPayload(turn=turn, step=step).to_json()


def user_message_data(
    content: Sequence[ContentBlock], source: MessageSource
) -> dict[str, JsonValue]:
    """The data of ``user/message {content, source}``."""
    return UserMessagePayload(content=tuple(content), source=source).to_json()


def prompt_blocked_data(
    content: Sequence[ContentBlock], source: MessageSource, reason: str
) -> dict[str, JsonValue]:
    """The data of ``prompt/blocked {content, source, reason}``."""
    return PromptBlockedPayload(content=tuple(content), source=source, reason=reason).to_json()


def assistant_chunk_data(turn: int, step: int, chunk: StreamChunk) -> dict[str, JsonValue]:
    """The data of ``assistant/chunk {turn, step, chunk}``."""
    return AssistantChunkPayload(turn=turn, step=step, chunk=chunk).to_json()


def assistant_message_data(
    turn: int, step: int, content: Sequence[ContentBlock], usage: TokenUsage | None = None
) -> dict[str, JsonValue]:
    """The data of ``assistant/message {turn, step, content, usage?}``."""
    return AssistantMessagePayload(
        turn=turn, step=step, content=tuple(content), usage=usage
    ).to_json()


def tool_call_data(
    turn: int, step: int, call_id: CallId, name: str, arguments: str
) -> dict[str, JsonValue]:
    """The data of ``tool/call {turn, step, callId, name, arguments}``."""
    return ToolCallPayload(
        turn=turn, step=step, call_id=call_id, name=name, arguments=arguments
    ).to_json()


def result_error(error: ev.ErrorInfo | None) -> ResultError | None:
    """``error`` (any ``{name, code}`` object, the tools layer's ``ToolErrorInfo``) as logged."""
    return None if error is None else ResultError(name=error.name, code=error.code)


def tool_result_data(
    turn: int,
    step: int,
    call_id: CallId,
    content: Sequence[ContentBlock],
    *,
    is_error: bool = False,
    error: ev.ErrorInfo | None = None,
    meta: JsonObject | None = None,
) -> dict[str, JsonValue]:
    """The data of ``tool/result {turn, step, callId, content, isError, error?, meta?}``."""
    return ToolResultPayload(
        turn=turn,
        step=step,
        call_id=call_id,
        content=tuple(content),
        is_error=is_error,
        error=result_error(error),
        meta=meta,
    ).to_json()


def context_message_data(
    content: Sequence[ContentBlock], source: MessageSource
) -> dict[str, JsonValue]:
    """The data of ``context/message {content, source}``."""
    return ContextMessagePayload(content=tuple(content), source=source).to_json()


def steering_message_data(
    turn: int, content: Sequence[ContentBlock], source: MessageSource
) -> dict[str, JsonValue]:
    """The data of ``steering/message {turn, content, source}``."""
    return SteeringMessagePayload(turn=turn, content=tuple(content), source=source).to_json()
