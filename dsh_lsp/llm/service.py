"""LlmService: the adapter registry and the ``llm/stream`` seam (llm layer).

Adapters register per model name; a request's ``model`` picks one. ``stream`` always goes
through the ``llm/stream`` stream waterfall, so plugins wrap every model call — replay
(short-circuit without calling ``next``), retry (call ``next`` again), caching, logging — and
the adapter is only the innermost step. ``LlmPlugin`` provides the service under ``LLM``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable

from dsh_lsp.kernel import Context, Disposer, Plugin, ServiceKey, StreamWaterfallEvent

from .adapter import LlmAdapter
from .chunks import StreamChunk
from .errors import LlmCode, LlmError
from .request import LlmRequest


class LlmService:
    """Routes requests to adapters by model name, through the ``llm/stream`` waterfall.

    Registrations are effects of the registering plugin's context, so an adapter disappears
    with the plugin that registered it.
    """

    __slots__ = ("_adapters", "_ctx")

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._adapters: dict[str, LlmAdapter] = {}

    def __repr__(self) -> str:
        return f"LlmService(models={sorted(self._adapters)!r})"

    def register_adapter(
        self, ctx: Context, models: Iterable[str], adapter: LlmAdapter
    ) -> Disposer:
        """Serve every name in ``models`` with ``adapter``, as an effect of ``ctx``.

        All names are registered or none. Raises ``LlmError`` (``DUPLICATE_ADAPTER``) naming
        the model when one already has an adapter or appears twice. Disposing the returned
        disposer (or unloading ``ctx``'s plugin) unregisters them.
        """
        names = tuple(models)
        return ctx.effect(lambda: self._add(names, adapter))

    def _add(self, names: tuple[str, ...], adapter: LlmAdapter) -> Callable[[], None]:
        seen: set[str] = set()
        for name in names:
            if name in self._adapters or name in seen:
                raise LlmError(
                    f"model {name!r} already has an adapter", code=LlmCode.DUPLICATE_ADAPTER
                )
            seen.add(name)
        for name in names:
            self._adapters[name] = adapter

        def remove() -> None:
            for name in names:
                if self._adapters.get(name) is adapter:
                    del self._adapters[name]

        return remove

    def models(self) -> tuple[str, ...]:
        """Every model name with an adapter, sorted."""
        return tuple(sorted(self._adapters))

    def adapter_for(self, model: str) -> LlmAdapter | None:
        """The adapter serving ``model``, or ``None``."""
        return self._adapters.get(model)

    def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        """The chunk stream for ``request``: ``llm/stream`` listeners around the adapter.

        Lazy: nothing runs before the first ``__anext__``. Iteration raises ``LlmError``
        (``NO_ADAPTER`` when no listener answered and no adapter serves ``request.model``,
        or whatever the adapter raises). The caller owns the iterator and closes it if it
        stops early; cancelling the consuming task closes the adapter's connection.
        """
        return self._ctx.stream_waterfall(LLM_STREAM, request, lambda: self._direct(request))

    def _direct(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        adapter = self._adapters.get(request.model)
        if adapter is None:
            known = ", ".join(sorted(self._adapters)) or "none"
            error = LlmError(
                f"no adapter serves model {request.model!r} (registered: {known})",
                code=LlmCode.NO_ADAPTER,
            )
            return _failing(error)
        return adapter.stream(request)


async def _failing(error: LlmError) -> AsyncIterator[StreamChunk]:
    raise error
    yield  # pragma: no cover - makes this an async generator that raises on first use


LLM: ServiceKey[LlmService] = ServiceKey("llm")
"""The model service."""

LLM_STREAM: StreamWaterfallEvent[LlmRequest, StreamChunk] = StreamWaterfallEvent("llm/stream")
"""Every model call; listeners wrap, transform, replay or replace the downstream stream."""


class LlmPlugin(Plugin[None]):
    """Provides ``LlmService`` under ``LLM``; adapters come from other plugins."""

    name = "llm"

    async def apply(self, ctx: Context, config: None) -> None:
        """Provide the service, owned by this plugin's fiber."""
        ctx.provide(LLM, LlmService(ctx))
