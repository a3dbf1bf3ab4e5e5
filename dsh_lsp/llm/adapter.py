"""The model-adapter seam: one streaming method per provider (llm layer)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from .chunks import StreamChunk
from .request import LlmRequest


class LlmAdapter(Protocol):
    """Turns an ``LlmRequest`` into a chunk stream for one or more model names.

    ``stream`` returns an async iterator that follows the chunk protocol (see ``chunks``) and
    raises ``LlmError`` on failure. The caller owns the iterator: it either exhausts it or
    closes it (``aclose``); cancelling the consuming task closes any underlying connection.
    Non-streaming use is ``assemble(adapter.stream(request))`` — there is no second path.
    """

    def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        """Start one model call; see the class docstring for ownership and errors."""
        ...
