"""LlmRequest → chat-completions request body (llm.deepseek layer).

Pure. The body is always streaming with usage reporting on; optional fields are omitted, not
sent as null, so provider defaults apply. Message mapping:

* ``request.system`` becomes the first ``system`` message; system messages send their text;
* a user message sends its tool results first, each as a ``tool`` message whose content is the
  result's text or ``(no output)`` (the wire has no error flag, so a failed result whose text
  does not already say so is prefixed ``Error: ``), then its text if it has any (or if it had
  no tool results at all);
* an assistant message sends its text as ``content`` — ``""`` when there is none, never null,
  which the API would reject forever from a session's history — and its tool calls (empty
  arguments become ``{}``);
* text joins without separators; plugin block kinds are not sent.

Reasoning goes back by the history rule (``WireRules``; the adapter's RFC explains it). The
wire history is cut into *stretches* at every wire ``user`` message. In a stretch where the
model called a tool, every assistant message carries its reasoning under
``WireRules.reasoning_field``; elsewhere reasoning is not sent (servers ignore it there). Under
DeepSeek thinking mode (``WireRules.deepseek_thinking``) an assistant message of such a stretch
with no reasoning — thinking was empty, the answer came from another model, or thinking was
off then — carries ``""``: DeepSeek answers 400 for a missing field and accepts an empty one.
With DeepSeek thinking off, reasoning is never sent. DeepSeek ignores ``temperature`` in
thinking mode, so it is not sent there.

The JSON is compact UTF-8; ``NaN`` or ``Infinity`` anywhere is an ``INVALID_REQUEST``.

``RequestEncoder`` gives the same bytes as ``serialize_request`` (in parts, joined once where
the request is framed) without re-encoding a long session's history on every call: it keeps
the wire JSON of a session's messages up to the last wire ``user`` message (no later message
can change how they read) and encodes only the rest
(docs/rfc/implemented/architecture/2026-12-02-request-body-prefix-cache.md). The JSON after
``messages`` (tools and options) is kept too and reused while those stay the same.
"""

from __future__ import annotations

import logging
import marshal
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, assert_never

from dsh_lsp.llm.blocks import (
    ContentBlock,
    ExtensionBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from dsh_lsp.llm.errors import LlmCode, LlmError
from dsh_lsp.llm.json_value import JsonValue, dumps_compact
from dsh_lsp.llm.message import Message
from dsh_lsp.llm.request import LlmRequest

from .endpoint import ReasoningField, is_deepseek, thinks_by_default

_log = logging.getLogger(__name__)

NO_OUTPUT = "(no output)"
"""The content sent for a tool result without text; the API rejects an empty one."""

Thinking = Literal["enabled", "disabled"]
ReasoningEffort = Literal["low", "medium", "high", "max"]


@dataclass(frozen=True, slots=True, kw_only=True)
class WireRules:
    """The provider rules one request body follows (see the module docstring)."""

    reasoning_field: ReasoningField | None = "reasoning_content"
    """Where reasoning goes back in assistant messages; ``None``: never sent."""
    deepseek_thinking: bool = False
    """DeepSeek thinking mode: ``""`` for missing reasoning in tool stretches, no temperature."""


def wire_rules(
    model: str,
    *,
    base_url: str = "",
    thinking: Thinking | None = None,
    reasoning_field: ReasoningField = "reasoning_content",
) -> WireRules:
    """The rules for ``model`` at ``base_url``: DeepSeek's when ``is_deepseek`` says so.

    DeepSeek thinking is on when ``thinking`` is ``"enabled"``, or unset for a model that
    thinks by default (V4, ``deepseek-reasoner``); ``"disabled"`` turns it off and reasoning
    is then not sent at all.
    """
    if not is_deepseek(base_url, model):
        return WireRules(reasoning_field=reasoning_field)
    on = thinking == "enabled" or (thinking is None and thinks_by_default(model))
    if not on and thinking == "disabled":
        return WireRules(reasoning_field=None)
    return WireRules(reasoning_field=reasoning_field, deepseek_thinking=on)


def _text(blocks: Iterable[ContentBlock]) -> str:
    return "".join(block.text for block in blocks if isinstance(block, TextBlock))


def _tool_message(result: ToolResultBlock) -> dict[str, JsonValue]:
    text = _text(result.content)
    if result.is_error and not text.startswith("Error"):
        text = f"Error: {text}" if text else "Error: (no output)"
    return {"role": "tool", "tool_call_id": result.tool_call_id, "content": text or NO_OUTPUT}


def _assistant_message(message: Message) -> tuple[dict[str, JsonValue], str]:
    """The wire message without reasoning, and the message's reasoning text."""
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[JsonValue] = []
    for block in message.content:
        match block:
            case TextBlock(text=text):
                texts.append(text)
            case ReasoningBlock(text=text):
                reasoning.append(text)
            case ToolCallBlock(id=call_id, name=name, arguments=arguments):
                function = {"name": name, "arguments": arguments or "{}"}
                calls.append({"id": call_id, "type": "function", "function": function})
            case ToolResultBlock() | ExtensionBlock():
                _log.debug("not sending %s block in an assistant message", block.kind)
            case _:
                assert_never(block)
    wire: dict[str, JsonValue] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        wire["tool_calls"] = calls
    return wire, "".join(reasoning)


def _give_back_reasoning(
    wire: list[dict[str, JsonValue]], reasoning: dict[int, str], rules: WireRules
) -> None:
    """Add reasoning to the assistant messages of every stretch that called a tool."""
    field = rules.reasoning_field
    if field is None:
        return
    stretch: list[int] = []
    for position in [*range(len(wire)), len(wire)]:
        if position == len(wire) or wire[position]["role"] == "user":
            if any("tool_calls" in wire[i] for i in stretch):
                for i in stretch:
                    text = reasoning[i]
                    if text or rules.deepseek_thinking:
                        wire[i][field] = text
            stretch = []
        elif position in reasoning:
            stretch.append(position)


def wire_messages(request: LlmRequest, rules: WireRules | None = None) -> list[JsonValue]:
    """The ``messages`` array for ``request`` (system prompt first), reasoning per ``rules``
    (default: ``wire_rules(request.model)``)."""
    rules = wire_rules(request.model) if rules is None else rules
    wire: list[dict[str, JsonValue]] = []
    reasoning: dict[int, str] = {}
    if request.system:
        wire.append({"role": "system", "content": request.system})
    for message in request.messages:
        parts, thought = _message_wire(message)
        if thought is not None:
            reasoning[len(wire)] = thought
        wire.extend(parts)
    _give_back_reasoning(wire, reasoning, rules)
    return list(wire)


def _message_wire(message: Message) -> tuple[list[dict[str, JsonValue]], str | None]:
    """One message's wire messages (a user message: its tool results, then its text when it
    has some or no results), and an assistant message's reasoning (None for other roles),
    which ``_give_back_reasoning`` or the encoder adds per the rules."""
    match message.role:
        case "system":
            return [{"role": "system", "content": _text(message.content)}], None
        case "assistant":
            assistant, thought = _assistant_message(message)
            return [assistant], thought
        case "user":
            results = [b for b in message.content if isinstance(b, ToolResultBlock)]
            wire = [_tool_message(result) for result in results]
            text = _text(message.content)
            if text or not results:
                wire.append({"role": "user", "content": text})
            return wire, None
        case _:
            assert_never(message.role)


def serialize_request(
    request: LlmRequest,
    *,
    thinking: Thinking | None = None,
    reasoning_effort: ReasoningEffort | None = None,
    rules: WireRules | None = None,
) -> bytes:
    """The UTF-8 JSON body of a streaming chat-completions call for ``request``.

    ``thinking`` and ``reasoning_effort`` come from the adapter's configuration and are sent
    only when set. ``rules`` default to ``wire_rules(request.model, thinking=thinking)``.
    Raises ``LlmError`` (``INVALID_REQUEST``) when the body cannot be JSON
    (``NaN``/``Infinity`` in a number, a non-JSON value in a tool schema).
    """
    rules = wire_rules(request.model, thinking=thinking) if rules is None else rules
    body: dict[str, JsonValue] = {"model": request.model, "messages": wire_messages(request, rules)}
    body.update(_options(request, thinking, reasoning_effort, rules))
    try:
        return dumps_compact(body).encode("utf-8")
    except (ValueError, TypeError) as exc:
        raise _unencodable(exc) from exc


def _unencodable(exc: Exception) -> LlmError:
    return LlmError(
        f"the request cannot be encoded as JSON: {exc}", code=LlmCode.INVALID_REQUEST, cause=exc
    )


def _options(
    request: LlmRequest,
    thinking: Thinking | None,
    reasoning_effort: ReasoningEffort | None,
    rules: WireRules,
) -> dict[str, JsonValue]:
    """The body's fields after ``messages``, in their wire order."""
    body: dict[str, JsonValue] = {"stream": True, "stream_options": {"include_usage": True}}
    if thinking is not None:
        body["thinking"] = {"type": thinking}
    if reasoning_effort is not None:
        body["reasoning_effort"] = reasoning_effort
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    if request.temperature is not None:
        if rules.deepseek_thinking:
            _log.debug("not sending temperature: DeepSeek ignores it in thinking mode")
        else:
            body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.stop is not None:
        body["stop"] = list(request.stop)
    return body


def _encoded(value: JsonValue) -> bytes:
    return dumps_compact(value).encode("utf-8")


@dataclass(frozen=True, slots=True)
class _Encoded:
    """One message's wire JSON, encoded once.

    ``pieces`` are whole wire messages (a user message's tool results, then its text, or a
    system message). An assistant message has ``head``: its wire JSON without the closing
    brace, and ``reasoning``: ``,"<field>":"<text>"`` to add when its stretch called a tool
    (empty when the rules send none for it).
    """

    pieces: tuple[bytes, ...] = ()
    cuts: bool = False
    """A wire ``user`` message ends ``pieces``: the stretch before it is closed."""
    head: bytes | None = None
    reasoning: bytes = b""
    calls: bool = False


def _encode_message(message: Message, rules: WireRules) -> _Encoded:
    """Raises ``ValueError``/``TypeError`` when a value cannot be JSON."""
    parts, thought = _message_wire(message)
    if thought is None:
        cuts = bool(parts) and parts[-1]["role"] == "user"  # a wire user message closes
        return _Encoded(pieces=tuple(_encoded(part) for part in parts), cuts=cuts)
    (wire,) = parts
    field = rules.reasoning_field
    reasoning = b""
    if field is not None and (thought or rules.deepseek_thinking):
        reasoning = b"," + _encoded(field) + b":" + _encoded(thought)
    return _Encoded(head=_encoded(wire)[:-1], reasoning=reasoning, calls="tool_calls" in wire)


_Entries = dict[int, tuple[Message, _Encoded]]
"""Encoded messages by ``id``; each entry holds its message, so the id cannot be reused."""


@dataclass(frozen=True, slots=True)
class _Prefix:
    """What one request of a session left to reuse.

    ``messages`` are the request's messages up to its last wire ``user`` message (the stretches
    before it are closed: no later message can change how they read); ``closed`` is their
    wire JSON in a few chunks (``_appended``), to be comma-joined. ``open`` holds the encoded
    messages after them, whose reasoning still depends on what follows.
    """

    messages: tuple[Message, ...]
    closed: tuple[bytes, ...]
    open: _Entries


_NOTHING = _Prefix(messages=(), closed=(), open={})


def _appended(chunks: tuple[bytes, ...], chunk: bytes) -> tuple[bytes, ...]:
    """``chunks`` with ``chunk`` after them, the newest merged (comma-joined) into the one
    before while it is at least half that one's size, as a binary counter carries.

    So a session's closed history stays in a number of chunks that grows with the logarithm
    of its length, and each byte is copied that many times over the session: a request lists
    a handful of chunks, not one per earlier request.
    """
    merged = [*chunks, chunk]
    while len(merged) > 1 and 2 * len(merged[-1]) >= len(merged[-2]):
        newest = merged.pop()
        merged[-1] = b",".join((merged[-1], newest))
    return tuple(merged)


class RequestEncoder:
    """``serialize_request`` reusing what a session's earlier bodies encoded (llm.deepseek).

    Per calling session (``LlmRequest.session_id``; at most ``sessions`` of them, the least
    recently used dropped) it keeps the last two requests' ``_Prefix``: a request whose
    messages start with a kept prefix (``==``, which is an identity check for the objects a
    session's history hands every request) reuses its bytes and encodes only the rest, so a
    turn costs what its new messages cost, not the session's length. Equal messages encode
    equally (messages and their blocks are immutable values), so a match can never be stale;
    a request matching neither (after a compaction, a reload, a listener's rewrite) is encoded
    in full. The second kept prefix covers a one-off request in between (a compaction's
    summary call). Everything is dropped when the ``WireRules`` change.

    The fields after ``messages`` (the tool schemas above all, which every step sends again)
    are encoded again only when they change: the last two distinct ones are kept under a
    ``marshal`` image of what they are made of, which tells ``1``, ``1.0`` and ``True`` apart
    as JSON does, where ``==`` would not (two, so that a request with other options in
    between, such as a compaction's summary call, does not push out the steps' own). Not
    thread-safe: one event loop calls it.
    """

    __slots__ = ("_sessions", "_size", "_tails")

    def __init__(self, sessions: int = 16) -> None:
        self._size = max(1, sessions)
        self._sessions: OrderedDict[object, tuple[WireRules, tuple[_Prefix, ...]]] = OrderedDict()
        self._tails: list[tuple[bytes, bytes]] = []
        """The last two ``_options`` keys and their JSON without the opening brace, newest
        first."""

    def encode(
        self,
        request: LlmRequest,
        *,
        thinking: Thinking | None = None,
        reasoning_effort: ReasoningEffort | None = None,
        rules: WireRules | None = None,
    ) -> tuple[bytes, ...]:
        """The bytes ``serialize_request`` gives for the same arguments, in parts to be sent
        in order: a long session's history stays in the pieces it was kept in, so the only
        copy of the whole body is the one the transport makes when it frames the request.

        Raises ``LlmError`` (``INVALID_REQUEST``) when the body cannot be JSON.
        """
        rules = wire_rules(request.model, thinking=thinking) if rules is None else rules
        key = request.session_id
        held = self._sessions.pop(key, None)
        kept = held[1] if held is not None and held[0] == rules else ()
        messages = request.messages
        base = _NOTHING
        for prefix in kept:
            size = len(prefix.messages)
            if size <= len(messages) and messages[:size] == prefix.messages:
                base = prefix
                break
        try:
            after, pieces = self._rest(messages, len(base.messages), base.open, rules)
            tail = self._options(request, thinking, reasoning_effort, rules)
            model = _encoded(request.model)
            system = _encoded({"role": "system", "content": request.system})
        except (ValueError, TypeError) as exc:
            self._keep(key, rules, kept)
            raise _unencodable(exc) from exc
        closed = _appended(base.closed, after.closed) if after.closed else base.closed
        prefix = _Prefix(messages=messages[: after.size], closed=closed, open=after.open)
        self._keep(key, rules, (prefix, *(p for p in kept if p is not base))[:2])
        listed = (system, *closed, *pieces) if request.system else (*closed, *pieces)
        parts = [b'{"model":', model, b',"messages":[']
        for index, piece in enumerate(listed):
            if index:
                parts.append(b",")
            parts.append(piece)
        parts += (b"],", tail)
        return tuple(parts)

    def _options(
        self,
        request: LlmRequest,
        thinking: Thinking | None,
        reasoning_effort: ReasoningEffort | None,
        rules: WireRules,
    ) -> bytes:
        """``_options`` as JSON without its opening brace, reused while its inputs stay the
        same. Raises ``ValueError``/``TypeError`` when a value cannot be JSON."""
        try:
            key = marshal.dumps(
                (
                    tuple((t.name, t.description, dict(t.parameters)) for t in request.tools),
                    thinking,
                    reasoning_effort,
                    request.temperature,
                    request.max_tokens,
                    request.stop,
                    rules.deepseek_thinking,
                )
            )
        except ValueError:  # a value marshal cannot hold is no JSON either: encode, not kept
            key = None
        tails = self._tails
        if key is not None:
            for held in tails:
                if held[0] == key:
                    if held is not tails[0]:
                        tails.reverse()  # two entries: the one used goes first
                    return held[1]
        tail = dumps_compact(_options(request, thinking, reasoning_effort, rules))[1:].encode()
        if key is not None:
            self._tails = [(key, tail), *tails[:1]]
        return tail

    def _keep(self, key: object, rules: WireRules, prefixes: tuple[_Prefix, ...]) -> None:
        self._sessions[key] = (rules, prefixes)
        while len(self._sessions) > self._size:
            self._sessions.popitem(last=False)

    @staticmethod
    def _rest(
        messages: tuple[Message, ...], start: int, known: _Entries, rules: WireRules
    ) -> tuple[_Rest, list[bytes]]:
        """Encode ``messages[start:]``: what closes (``_Rest``) and the open wire messages.

        Raises ``ValueError``/``TypeError`` when a value cannot be JSON.
        """
        pieces: list[bytes] = []
        opened: _Entries = {}
        slots: list[tuple[int, _Encoded]] = []
        """The open stretch's assistant messages: their index in ``pieces``, their entry."""
        calls = False
        closed_pieces = 0
        size = start
        for index in range(start, len(messages)):
            message = messages[index]
            ident = id(message)
            held = known.get(ident)
            entry = held[1] if held is not None and held[0] is message else None
            if entry is None:
                entry = _encode_message(message, rules)
            opened[ident] = (message, entry)
            if entry.head is not None:
                slots.append((len(pieces), entry))
                pieces.append(entry.head + b"}")
                calls = calls or entry.calls
                continue
            if entry.cuts:
                if calls:
                    for slot, held_entry in slots:
                        pieces[slot] = b"".join(
                            (held_entry.head or b"", held_entry.reasoning, b"}")
                        )
                slots, calls = [], False
                pieces.extend(entry.pieces)
                closed_pieces, size = len(pieces), index + 1
                opened = {}
            else:
                pieces.extend(entry.pieces)
        if calls:
            for slot, held_entry in slots:
                pieces[slot] = b"".join((held_entry.head or b"", held_entry.reasoning, b"}"))
        rest = _Rest(size=size, closed=b",".join(pieces[:closed_pieces]), open=opened)
        return rest, pieces[closed_pieces:]


@dataclass(frozen=True, slots=True)
class _Rest:
    size: int
    """Messages up to and including the last that closes a stretch."""
    closed: bytes
    open: _Entries
