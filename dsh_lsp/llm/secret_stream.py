"""``redact_chunks``: a chunk stream with every registered secret masked (llm layer).

Model text arrives in pieces: a key the endpoint echoes can be split across deltas, so
redacting each delta alone would let it through in halves. ``redact_chunks`` redacts per
block: each text, reasoning or tool-argument delta is joined to what that block held back,
redacted, and the tail that could still start a secret (``Redactor.unsafe_tail``) is held
until the next piece or the block's end; the ``BlockEnd`` block is redacted whole. With no
secret registered the stream passes through untouched.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncGenerator

from dsh_lsp.kernel import SECRETS, Redactor

from .blocks import ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock
from .chunks import BlockEnd, ReasoningDelta, StreamChunk, TextDelta, ToolCallDelta


async def redact_chunks(
    chunks: AsyncGenerator[StreamChunk, None], redactor: Redactor = SECRETS
) -> AsyncGenerator[StreamChunk, None]:
    """``chunks`` with secrets masked (see the module docstring); closing this stream closes
    ``chunks``. Raises what ``chunks`` raises."""
    held: dict[int, str] = {}
    kinds: dict[int, type[StreamChunk]] = {}
    async with contextlib.aclosing(chunks):
        async for chunk in chunks:
            if not redactor:
                yield chunk
                continue
            if isinstance(chunk, TextDelta | ReasoningDelta):
                text = _release(held, chunk.index, chunk.text, redactor)
                kinds[chunk.index] = type(chunk)
                if text == chunk.text:  # nothing masked or held back: the same chunk
                    yield chunk
                elif text:
                    yield dataclasses.replace(chunk, text=text)
            elif isinstance(chunk, ToolCallDelta):
                text = _release(held, chunk.index, chunk.arguments_delta, redactor)
                kinds[chunk.index] = ToolCallDelta
                if text or chunk.id is not None or chunk.name is not None:
                    yield dataclasses.replace(chunk, arguments_delta=text)
            elif isinstance(chunk, BlockEnd):
                rest = held.pop(chunk.index, "")
                kind = kinds.pop(chunk.index, None)
                if rest and kind is ToolCallDelta:
                    yield ToolCallDelta(index=chunk.index, arguments_delta=rest)
                elif rest and kind is ReasoningDelta:
                    yield ReasoningDelta(index=chunk.index, text=rest)
                elif rest:
                    yield TextDelta(index=chunk.index, text=rest)
                yield BlockEnd(index=chunk.index, block=_redacted_block(chunk.block, redactor))
            else:
                yield chunk


def _release(held: dict[int, str], index: int, piece: str, redactor: Redactor) -> str:
    before = held.pop(index, None)
    text = redactor.redact(piece if before is None else before + piece)
    keep = redactor.unsafe_tail(text)
    if keep:
        held[index] = text[-keep:]
        return text[:-keep]
    return text


def _redacted_block(block: ContentBlock, redactor: Redactor) -> ContentBlock:
    if isinstance(block, TextBlock | ReasoningBlock):
        return dataclasses.replace(block, text=redactor.redact(block.text))
    if isinstance(block, ToolCallBlock):
        return dataclasses.replace(block, arguments=redactor.redact(block.arguments))
    return block
