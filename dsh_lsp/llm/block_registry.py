"""The vocabulary of plugin block kinds, consulted when JSON records decode (llm layer).

``BLOCK_KINDS`` is the content-block instance of the shared open-vocabulary registry (see
``vocabulary``). ``register_block_type`` returns the matching unregister callable, which a
plugin hands to ``ctx.effect`` so the kind lives exactly as long as the plugin; a kind nobody
registered decodes to an ``OpaqueBlock``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .blocks import CORE_BLOCK_KINDS, ExtensionBlock, OpaqueBlock
from .errors import LlmCode
from .vocabulary import Vocabulary

BLOCK_KINDS: Final = Vocabulary[ExtensionBlock](
    "block",
    CORE_BLOCK_KINDS,
    OpaqueBlock,
    duplicate_code=LlmCode.DUPLICATE_BLOCK_TYPE,
)
"""Plugin block kinds (``ExtensionBlock`` subclasses)."""


def register_block_type(cls: type[ExtensionBlock]) -> Callable[[], None]:
    """Make ``cls`` decodable under ``cls.kind``; return the single-shot unregister callable.

    Raises ``LlmError`` (``DUPLICATE_BLOCK_TYPE``) when the kind is a core kind or belongs to a
    different class. The caller owns the returned callable (usually through ``ctx.effect``).
    """
    return BLOCK_KINDS.register(cls)


def block_type(kind: str) -> type[ExtensionBlock] | None:
    """The registered class for ``kind``, or ``None`` when no plugin registered it."""
    return BLOCK_KINDS.lookup(kind)
