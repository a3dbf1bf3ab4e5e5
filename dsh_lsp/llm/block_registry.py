"""The registry of plugin block kinds, consulted when JSON records decode (llm layer).

The registry is process-wide because decoding happens wherever a record is read (session
load, replay), far from any plugin context. Registration is reference-counted per class, so
the same plugin loaded into two kernels shares one entry; a *different* class claiming a kind
already in use is rejected. ``register_block_type`` returns the matching unregister callable,
which a plugin hands to ``ctx.effect`` so the kind lives exactly as long as the plugin.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .blocks import CORE_BLOCK_KINDS, ExtensionBlock
from .errors import LlmCode, LlmError

_lock = threading.Lock()
_classes: dict[str, type[ExtensionBlock]] = {}
_counts: dict[str, int] = {}


def register_block_type(cls: type[ExtensionBlock]) -> Callable[[], None]:
    """Make ``cls`` decodable under ``cls.kind``; return the single-shot unregister callable.

    Raises ``LlmError`` (``DUPLICATE_BLOCK_TYPE``) when the kind is a core kind or belongs to a
    different class. The caller owns the returned callable (usually through ``ctx.effect``).
    """
    kind = cls.kind
    with _lock:
        current = _classes.get(kind)
        if kind in CORE_BLOCK_KINDS or (current is not None and current is not cls):
            owner = "the core vocabulary" if current is None else current.__qualname__
            raise LlmError(
                f"block kind {kind!r} is already registered by {owner}",
                code=LlmCode.DUPLICATE_BLOCK_TYPE,
            )
        _classes[kind] = cls
        _counts[kind] = _counts.get(kind, 0) + 1
    done = False

    def unregister() -> None:
        nonlocal done
        with _lock:
            if done:
                return
            done = True
            _counts[kind] -= 1
            if _counts[kind] == 0:
                del _counts[kind]
                del _classes[kind]

    return unregister


def block_type(kind: str) -> type[ExtensionBlock] | None:
    """The registered class for ``kind``, or ``None`` when no plugin registered it."""
    with _lock:
        return _classes.get(kind)
