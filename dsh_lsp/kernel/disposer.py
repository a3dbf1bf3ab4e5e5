"""Disposer: the single-shot, memoized undo handle every kernel registration returns (kernel).

``await d()`` runs the teardown once. Concurrent and later callers wait for that same run and
see its outcome (they re-raise its error, if any). The teardown runs shielded from
cancellation so an undo is never left half done; a cancelled *waiter* stops waiting, but the
run it joined completes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import anyio


class Disposer:
    """Undo handle for one registration; ``await d()`` disposes, at most once.

    ``teardown`` is a zero-argument callable, sync or returning an awaitable. ``on_done`` runs
    synchronously when the teardown has finished, failed or not (the owning scope uses it to
    forget the handle). The
    teardown's exception propagates to every caller. Do not await a disposer from inside its
    own teardown: that waits for itself.
    """

    __slots__ = ("_done", "_error", "_label", "_on_done", "_started", "_teardown")

    def __init__(
        self,
        teardown: Callable[[], object],
        *,
        label: str = "",
        on_done: Callable[[], None] | None = None,
    ) -> None:
        self._teardown = teardown
        self._label = label
        self._on_done = on_done
        self._started = False
        self._done: anyio.Event | None = None
        self._error: Exception | None = None

    @property
    def disposed(self) -> bool:
        """True once disposal has begun; await the disposer to wait for it to finish."""
        return self._started

    @property
    def label(self) -> str:
        """What this disposer undoes, for logs (e.g. ``service 'llm'``)."""
        return self._label

    def __repr__(self) -> str:
        state = "disposed" if self._started else "live"
        return f"<Disposer {self._label or '?'} {state}>"

    async def __call__(self) -> None:
        """Run the teardown, or wait for the run already in progress.

        Raises whatever the teardown raised (to every caller).
        """
        if self._started:
            assert self._done is not None
            await self._done.wait()
            if self._error is not None:
                raise self._error
            return
        self._started = True
        self._done = anyio.Event()
        try:
            with anyio.CancelScope(shield=True):
                result = self._teardown()
                if inspect.isawaitable(result):
                    await result
        except Exception as exc:
            self._error = exc
            raise
        finally:
            self._done.set()
            if self._on_done is not None:
                self._on_done()
