"""Draining the rest of a response body after ``[DONE]`` so its connection is reused (llm.deepseek).

``[DONE]`` ends the event stream, but the HTTP body still has its end to come — for a chunked
body the ``0\\r\\n\\r\\n`` terminator, usually in the same read or the next. httpx returns a
connection to its pool only when the body was read to the end before the response closed; a
response closed one read early closes the connection, and the next model call pays for a new
one (TCP, and TLS against a remote provider).

``drain_body`` reads that rest within a ``DrainBudget``: a byte cap, so a server that keeps
streaming after ``[DONE]`` is not read for long, and a deadline, so one that stalls cannot
hold the call. Past either, it gives up and the caller's response close drops the connection.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio
import httpx

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class DrainBudget:
    """How much of a body ``drain_body`` reads after ``[DONE]`` before it gives up.

    The deadline is paid in full only by a server that stalls after ``[DONE]``; the usual
    rest is one read that is already there or arrives with the next packet.
    """

    max_bytes: int = 16 * 1024
    """Bytes read before giving up on a body that keeps coming."""
    seconds: float = 0.1
    """Time before giving up on a body that does not end."""


async def drain_body(body: AsyncIterator[bytes], budget: DrainBudget, *, already: int = 0) -> bool:
    """Read ``body`` to its end within ``budget``; ``True`` if it ended, ``False`` if not.
    ``already`` counts bytes past ``[DONE]`` read before the call (the rest of the last read).

    ``body`` is the response's byte iterator, part-consumed; the caller owns the response and
    closes it afterwards either way — which returns the connection to the pool after a full
    read and closes it otherwise. Raises nothing of its own: httpx errors while draining (a
    connection cut after ``[DONE]``) count as giving up. Cancellation of the caller propagates.
    """
    read = already
    if read > budget.max_bytes:
        _log.debug("body continues past [DONE] beyond %d bytes; closing", read)
        return False
    with anyio.move_on_after(budget.seconds):
        try:
            async for raw in body:
                read += len(raw)
                if read > budget.max_bytes:
                    _log.debug("body continues past [DONE] beyond %d bytes; closing", read)
                    return False
        except httpx.HTTPError as exc:
            _log.debug("body after [DONE] failed (%s); closing", type(exc).__name__)
            return False
        return True
    _log.debug("body did not end within %.3fs of [DONE]; closing", budget.seconds)
    return False
