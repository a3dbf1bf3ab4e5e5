"""ScriptedModel: an in-process model adapter that answers from a script (testing kit).

Each model call takes the next script entry: ``Reply`` streams its chunks, ``Fail`` streams
some and then raises ``LlmError``, ``Hang`` streams some and then blocks until the consumer
is cancelled (for cancellation tests), ``Respond`` computes the entry from the request. Every
request is recorded in ``requests`` before anything streams. The builders (``text_reply``,
``tool_reply``…; calls are the kit's ``ToolCallSpec``) produce the chunk sequences the
DeepSeek adapter would: one block per kind, deltas, authoritative ``BlockEnd``s, usage, then
the finish reason.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import assert_never

import anyio
import anyio.lowlevel

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import (
    LLM,
    BlockEnd,
    BlockStart,
    CallId,
    ContentBlock,
    FinishChunk,
    FinishError,
    FinishMaxTokens,
    FinishReason,
    FinishStop,
    FinishToolCalls,
    LlmError,
    LlmRequest,
    ReasoningBlock,
    ReasoningDelta,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    UsageChunk,
)

from .openai_chunks import ToolCallSpec


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """Stream ``chunks`` and end."""

    chunks: tuple[StreamChunk, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Fail:
    """Stream ``chunks``, then raise ``LlmError(message, code=code)``."""

    message: str
    code: str = "SERVER"
    chunks: tuple[StreamChunk, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Hang:
    """Stream ``chunks``, set ``reached``, then wait until the consumer is cancelled."""

    chunks: tuple[StreamChunk, ...] = ()
    reached: anyio.Event = field(default_factory=anyio.Event)


@dataclass(frozen=True, slots=True, kw_only=True)
class Respond:
    """Compute the entry for this call from its request (``fn`` may record or assert)."""

    fn: Callable[[LlmRequest], Reply | Fail | Hang]


ScriptEntry = Reply | Fail | Hang | Respond
"""One model call's scripted behaviour."""


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _text_like(index: int, block: TextBlock | ReasoningBlock, size: int) -> list[StreamChunk]:
    chunks: list[StreamChunk] = [BlockStart(index=index, block_type=block.kind)]
    for piece in _pieces(block.text, size):
        if isinstance(block, TextBlock):
            chunks.append(TextDelta(index=index, text=piece))
        else:
            chunks.append(ReasoningDelta(index=index, text=piece))
    return chunks


def reply(
    *,
    reasoning: str | None = None,
    text: str | None = None,
    calls: Iterable[ToolCallSpec] = (),
    finish: FinishReason | None = None,
    usage: TokenUsage | None = None,
    piece_size: int = 4,
    fragment_size: int = 3,
    interleave: bool = False,
) -> Reply:
    """A whole answer: reasoning, text and tool calls (arguments cut into ``fragment_size``
    pieces, parallel calls interleaved when asked), each block closed by its ``BlockEnd``,
    then usage (when given) and ``finish`` (default: tool-calls if any call, else stop)."""
    specs = tuple(calls)
    chunks: list[StreamChunk] = []
    blocks: list[tuple[int, ContentBlock]] = []
    index = 0
    for block in (
        ReasoningBlock(text=reasoning) if reasoning is not None else None,
        TextBlock(text=text) if text is not None else None,
    ):
        if block is not None:
            chunks.extend(_text_like(index, block, piece_size))
            blocks.append((index, block))
            index += 1
    per_call: list[list[StreamChunk]] = []
    for spec in specs:
        call = ToolCallBlock(id=CallId(spec.id), name=spec.name, arguments=spec.arguments)
        first: list[StreamChunk] = [
            BlockStart(index=index, block_type="tool-call"),
            ToolCallDelta(index=index, id=call.id, name=call.name, arguments_delta=""),
        ]
        first.extend(
            ToolCallDelta(index=index, arguments_delta=piece)
            for piece in _pieces(spec.arguments, fragment_size)
        )
        per_call.append(first)
        blocks.append((index, call))
        index += 1
    if interleave:
        longest = max((len(c) for c in per_call), default=0)
        chunks.extend(c[i] for i in range(longest) for c in per_call if i < len(c))
    else:
        chunks.extend(chunk for c in per_call for chunk in c)
    chunks.extend(BlockEnd(index=i, block=block) for i, block in blocks)
    if usage is not None:
        chunks.append(UsageChunk(usage=usage))
    default: FinishReason = FinishToolCalls() if specs else FinishStop()
    chunks.append(FinishChunk(reason=finish if finish is not None else default))
    return Reply(chunks=tuple(chunks))


def text_reply(
    text: str, *, reasoning: str | None = None, usage: TokenUsage | None = None
) -> Reply:
    """A plain answer that stops."""
    return reply(reasoning=reasoning, text=text, usage=usage)


def tool_reply(
    *calls: ToolCallSpec,
    text: str | None = None,
    reasoning: str | None = None,
    interleave: bool = False,
    fragment_size: int = 3,
) -> Reply:
    """An answer that asks for ``calls`` (split arguments) and finishes with tool-calls."""
    return reply(
        reasoning=reasoning,
        text=text,
        calls=calls,
        interleave=interleave,
        fragment_size=fragment_size,
    )


def max_tokens_reply(text: str, *calls: ToolCallSpec) -> Reply:
    """An answer cut off by the output budget (any calls' arguments may be truncated)."""
    return reply(text=text, calls=calls, finish=FinishMaxTokens())


def finish_error_reply(message: str, code: str | None = None, *, text: str | None = None) -> Reply:
    """An answer the provider ends with an in-band error."""
    return reply(text=text, finish=FinishError(message=message, code=code))


class ScriptedModel:
    """An ``LlmAdapter`` that plays ``entries`` in order, one per ``stream`` call.

    When the script is exhausted a call raises ``LlmError`` (``REPLAY_EXHAUSTED``). Not
    thread-safe; use it from the event loop that runs the agents.
    """

    __slots__ = ("_entries", "requests")

    def __init__(self, *entries: ScriptEntry) -> None:
        self._entries: deque[ScriptEntry] = deque(entries)
        self.requests: list[LlmRequest] = []
        """Every request received, oldest first."""

    def add(self, *entries: ScriptEntry) -> None:
        """Append entries to the script."""
        self._entries.extend(entries)

    @property
    def remaining(self) -> int:
        """Entries not yet played."""
        return len(self._entries)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        """Play the next entry. Raises LlmError (scripted, or ``REPLAY_EXHAUSTED``)."""
        self.requests.append(request)
        if not self._entries:
            raise LlmError("the scripted model has no entry left", code="REPLAY_EXHAUSTED")
        entry = self._entries.popleft()
        if isinstance(entry, Respond):
            entry = entry.fn(request)
        for chunk in entry.chunks:
            await anyio.lowlevel.checkpoint()
            yield chunk
        match entry:
            case Reply():
                return
            case Fail(message=message, code=code):
                raise LlmError(message, code=code)
            case Hang(reached=reached):
                reached.set()
                await anyio.sleep_forever()
            case _:
                assert_never(entry)


class ScriptedModelPlugin(Plugin[None]):
    """Serves ``models`` with one ``ScriptedModel``; injects ``LLM``."""

    name = "scripted-model"
    inject = (LLM,)

    def __init__(self, model: ScriptedModel, *, models: Iterable[str] = ("scripted",)) -> None:
        self.model = model
        self._models = tuple(models)

    async def apply(self, ctx: Context, config: None) -> None:
        """Register the adapter, owned by this plugin's fiber. Raises LlmError
        (``DUPLICATE_ADAPTER``) when a model name is taken."""
        ctx.require(LLM).register_adapter(ctx, self._models, self.model)
