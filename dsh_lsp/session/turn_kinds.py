"""Why a turn started and why it ended: two open vocabularies (session layer).

``TurnTrigger`` (the ``trigger`` of ``turn/start``) and ``TurnEndReason`` (the ``reason`` of
``turn/end``) are tagged by ``kind`` and open like every vocabulary of the model layer (see
``dsh_lsp.llm.vocabulary``): the core kinds are the classes below; a plugin adds a kind by
subclassing ``ExtensionTrigger`` / ``ExtensionTurnEnd`` and registering the class with
``TURN_TRIGGERS`` / ``TURN_END_REASONS`` inside ``ctx.effect``; a kind nobody registered
decodes to ``OpaqueTrigger`` / ``OpaqueTurnEnd``, which keep the record as read.

Documented defaults for plugin kinds: a plugin trigger starts a turn that belongs to no
prompt (like ``injection``); a plugin turn-end reason reads as a turn that ended without an
error (editors are told ``end_turn``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, Literal, assert_never, get_args

from dsh_lsp.llm import (
    Extension,
    JsonObject,
    JsonValue,
    MessageSource,
    Opaque,
    Vocabulary,
    malformed,
    read_int,
    read_opt_str,
    read_str,
    source_from_json,
    source_to_json,
)

# --- turn triggers -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageTrigger:
    """The turn answers queued messages; ``source`` is the first message's source."""

    kind: ClassVar[Literal["message"]] = "message"
    source: MessageSource


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectionTrigger:
    """A one-turn wrapper around context injected while the agent was idle."""

    kind: ClassVar[Literal["injection"]] = "injection"


class ExtensionTrigger(Extension):
    """Base of every plugin-defined turn trigger kind."""

    __slots__ = ()


class OpaqueTrigger(Opaque, ExtensionTrigger):
    """A trigger of a kind no loaded plugin registered: its record (tag ``kind``), as read."""

    __slots__ = ()
    tag: ClassVar[str] = "kind"


TurnTrigger = MessageTrigger | InjectionTrigger | ExtensionTrigger
"""Why a turn started: a core kind, or a plugin kind."""

TURN_TRIGGERS: Final = Vocabulary[ExtensionTrigger](
    "turn trigger",
    ("message", "injection"),
    OpaqueTrigger,
)
"""Plugin turn trigger kinds: ``ctx.effect(lambda: TURN_TRIGGERS.register(cls))``."""


def trigger_to_json(trigger: TurnTrigger) -> dict[str, JsonValue]:
    """The JSON record of ``trigger``: ``{kind, ...}``."""
    match trigger:
        case MessageTrigger(source=source):
            return {"kind": "message", "source": source_to_json(source)}
        case InjectionTrigger():
            return {"kind": "injection"}
        case ExtensionTrigger():
            return TURN_TRIGGERS.encode(trigger)
        case _:
            assert_never(trigger)


def trigger_from_json(value: object) -> TurnTrigger:
    """Decode a trigger record; raises ``LlmError`` (``MALFORMED_RECORD``)."""
    obj, kind = TURN_TRIGGERS.read_kind(value)
    if kind == "message":
        return MessageTrigger(source=source_from_json(obj.get("source")))
    if kind == "injection":
        return InjectionTrigger()
    return TURN_TRIGGERS.decode(kind, obj)


# --- turn-end reasons ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnCompleted:
    """The model answered without asking for more tool calls."""

    kind: ClassVar[Literal["completed"]] = "completed"


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnAborted:
    """The turn was cancelled; ``reason`` is the canceller's word for why, if any."""

    kind: ClassVar[Literal["aborted"]] = "aborted"
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnFailed:
    """The turn failed in step ``step`` (0: before any step); record kind ``error``."""

    kind: ClassVar[Literal["error"]] = "error"
    step: int
    message: str
    code: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnDisposed:
    """The agent was disposed while the turn ran."""

    kind: ClassVar[Literal["disposed"]] = "disposed"


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnMaxTokens:
    """The model's output budget ran out."""

    kind: ClassVar[Literal["max-tokens"]] = "max-tokens"


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnMaxSteps:
    """The turn used up its step budget."""

    kind: ClassVar[Literal["max-steps"]] = "max-steps"


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnRejected:
    """A listener refused the turn; ``reason`` says why."""

    kind: ClassVar[Literal["rejected"]] = "rejected"
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnInterrupted:
    """A crash cut the turn short (written only by crash repair)."""

    kind: ClassVar[Literal["interrupted"]] = "interrupted"


class ExtensionTurnEnd(Extension):
    """Base of every plugin-defined turn-end reason kind."""

    __slots__ = ()


class OpaqueTurnEnd(Opaque, ExtensionTurnEnd):
    """A turn-end reason of a kind no loaded plugin registered: its record (tag ``kind``)."""

    __slots__ = ()
    tag: ClassVar[str] = "kind"


TurnEndReason = (
    TurnCompleted
    | TurnAborted
    | TurnFailed
    | TurnDisposed
    | TurnMaxTokens
    | TurnMaxSteps
    | TurnRejected
    | TurnInterrupted
    | ExtensionTurnEnd
)
"""Why a turn ended: a core kind, or a plugin kind."""

TurnEndKind = Literal[
    "completed",
    "aborted",
    "error",
    "disposed",
    "max-tokens",
    "max-steps",
    "rejected",
    "interrupted",
]
"""The core turn-end kinds (``interrupted`` is written only by crash repair)."""

TURN_END_REASONS: Final = Vocabulary[ExtensionTurnEnd](
    "turn-end reason",
    get_args(TurnEndKind),
    OpaqueTurnEnd,
)
"""Plugin turn-end reason kinds: ``ctx.effect(lambda: TURN_END_REASONS.register(cls))``."""

_FIELDLESS: Final[dict[str, TurnEndReason]] = {
    "completed": TurnCompleted(),
    "disposed": TurnDisposed(),
    "max-tokens": TurnMaxTokens(),
    "max-steps": TurnMaxSteps(),
    "interrupted": TurnInterrupted(),
}


def end_reason(
    kind: TurnEndKind,
    *,
    reason: str | None = None,
    step: int | None = None,
    message: str | None = None,
    code: str | None = None,
) -> TurnEndReason:
    """The core turn-end reason of ``kind`` with its fields.

    ``aborted`` takes an optional ``reason``; ``error`` requires ``step`` and ``message``
    (``code`` optional); ``rejected`` requires ``reason``. Raises ``ValueError`` when a
    required field is missing or a field is given to a kind that has none.
    """
    match kind:
        case "aborted":
            if step is not None or message is not None or code is not None:
                raise ValueError("aborted reasons carry only 'reason'")
            return TurnAborted(reason=reason)
        case "rejected":
            if step is not None or message is not None or code is not None:
                raise ValueError("rejected reasons carry only 'reason'")
            if reason is None:
                raise ValueError("a rejected turn needs a reason")
            return TurnRejected(reason=reason)
        case "error":
            if step is None or message is None or reason is not None:
                raise ValueError("an error reason needs step and message (and no reason)")
            return TurnFailed(step=step, message=message, code=code)
        case _:
            if reason is not None or step is not None or message is not None or code is not None:
                raise ValueError(f"{kind} reasons carry no fields")
            return _FIELDLESS[kind]


def end_reason_to_json(reason: TurnEndReason) -> dict[str, JsonValue]:
    """The JSON record of ``reason``: ``{kind, ...}`` (absent optionals omitted)."""
    match reason:
        case TurnAborted(reason=why):
            return {"kind": "aborted"} if why is None else {"kind": "aborted", "reason": why}
        case TurnRejected(reason=why):
            return {"kind": "rejected", "reason": why}
        case TurnFailed(step=step, message=message, code=code):
            record: dict[str, JsonValue] = {"kind": "error", "step": step, "message": message}
            if code is not None:
                record["code"] = code
            return record
        case TurnCompleted() | TurnDisposed() | TurnMaxTokens() | TurnMaxSteps():
            return {"kind": reason.kind}
        case TurnInterrupted():
            return {"kind": reason.kind}
        case ExtensionTurnEnd():
            return TURN_END_REASONS.encode(reason)
        case _:
            assert_never(reason)


def end_reason_from_json(value: object) -> TurnEndReason:
    """Decode a turn-end reason record; raises ``LlmError`` (``MALFORMED_RECORD``)."""
    if type(value) is not dict or type(value.get("kind")) is not str:
        malformed("turn/end", "needs a reason object with a string 'kind'")
    obj: JsonObject = value
    kind = str(obj["kind"])
    what = f"{kind} turn-end reason"
    match kind:
        case "aborted":
            return TurnAborted(reason=read_opt_str(obj, "reason", what))
        case "rejected":
            return TurnRejected(reason=read_str(obj, "reason", what))
        case "error":
            return TurnFailed(
                step=read_int(obj, "step", what),
                message=read_str(obj, "message", what),
                code=read_opt_str(obj, "code", what),
            )
    fieldless = _FIELDLESS.get(kind)
    if fieldless is not None:
        return fieldless
    return TURN_END_REASONS.decode(kind, obj)
