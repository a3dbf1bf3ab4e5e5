"""``merge_deltas``: one network read's deltas joined per block (llm layer). Pure.

A provider streams one SSE event per token or so, and a read off the socket often holds many
of them. Each delta costs the same to log, render and send whatever its length, so an
adapter may hand a read's chunks through ``merge_deltas`` first: every run of consecutive
deltas of one block becomes one delta with the joined text. Nothing is reordered and no text
changes: the assembled message, the session's text and what the client shows are the same,
in fewer, larger pieces. Consumers never depend on where a stream cut its deltas (see
``chunks``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .chunks import ReasoningDelta, StreamChunk, TextDelta, ToolCallDelta


def merge_deltas(chunks: Sequence[StreamChunk]) -> list[StreamChunk]:
    """``chunks`` with each run of consecutive ``TextDelta``s (or ``ReasoningDelta``s) of one
    index joined into one, and each ``ToolCallDelta`` followed by argument-only deltas of its
    index joined into one (its id and name kept). Everything else is passed through in order.
    """
    out: list[StreamChunk] = []
    parts: list[str] = []  # the pieces of the run that ends out[-1]
    for chunk in chunks:
        if out and _extends(out[-1], chunk):
            parts.append(_piece(chunk))
            continue
        if len(parts) > 1:
            out[-1] = _joined(out[-1], "".join(parts))
        parts = [_piece(chunk)]
        out.append(chunk)
    if len(parts) > 1:
        out[-1] = _joined(out[-1], "".join(parts))
    return out


def _extends(last: StreamChunk, chunk: StreamChunk) -> bool:
    """Whether ``chunk`` continues the delta ``last``."""
    if isinstance(chunk, TextDelta):
        return isinstance(last, TextDelta) and last.index == chunk.index
    if isinstance(chunk, ReasoningDelta):
        return isinstance(last, ReasoningDelta) and last.index == chunk.index
    if isinstance(chunk, ToolCallDelta):
        return (
            isinstance(last, ToolCallDelta)
            and last.index == chunk.index
            and chunk.id is None
            and chunk.name is None
        )
    return False


def _piece(chunk: StreamChunk) -> str:
    """A delta's text ("" for any other chunk, which starts no run)."""
    if isinstance(chunk, ToolCallDelta):
        return chunk.arguments_delta
    if isinstance(chunk, TextDelta | ReasoningDelta):
        return chunk.text
    return ""


def _joined(first: StreamChunk, text: str) -> StreamChunk:
    """The run that ``first`` starts, as one delta of ``text``."""
    if isinstance(first, ToolCallDelta):
        return ToolCallDelta(index=first.index, id=first.id, name=first.name, arguments_delta=text)
    if isinstance(first, ReasoningDelta):
        return ReasoningDelta(index=first.index, text=text)
    assert isinstance(first, TextDelta), first
    return TextDelta(index=first.index, text=text)
