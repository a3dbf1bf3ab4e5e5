"""Compact: token accounting, the compaction seam and its basic backend.

``accounting`` says how full a session's context is (provider usage, else an estimate) and
knows the shipped models' windows; ``region`` picks the oldest tool-pairing-balanced part
of the surface; ``backend`` has the ``Compactor`` seam and ``BasicCompactor`` (summary
through the model, logged as ``compact/*`` events, typed by ``events``, plus a surface
replace, failing closed);
``plugin`` runs it on ``agent/pre-step`` and provides ``COMPACTION``.
"""

from __future__ import annotations

from .accounting import KNOWN_WINDOWS as KNOWN_WINDOWS
from .accounting import ContextUsage as ContextUsage
from .accounting import context_usage as context_usage
from .accounting import window_of as window_of
from .backend import CHECKPOINT_PROMPT as CHECKPOINT_PROMPT
from .backend import BasicCompactor as BasicCompactor
from .backend import CompactionError as CompactionError
from .backend import CompactionOutcome as CompactionOutcome
from .backend import Compactor as Compactor
from .events import COMPACT_END as COMPACT_END
from .events import COMPACT_PAYLOADS as COMPACT_PAYLOADS
from .events import COMPACT_START as COMPACT_START
from .events import COMPACT_SUMMARY as COMPACT_SUMMARY
from .events import CompactEndPayload as CompactEndPayload
from .events import CompactStartPayload as CompactStartPayload
from .events import CompactSummaryPayload as CompactSummaryPayload
from .plugin import COMPACTION as COMPACTION
from .plugin import CompactionConfig as CompactionConfig
from .plugin import CompactionPlugin as CompactionPlugin
from .plugin import compact_and_flush as compact_and_flush
from .region import Region as Region
from .region import balanced_prefixes as balanced_prefixes
from .region import choose_region as choose_region

__all__ = (
    "CHECKPOINT_PROMPT",
    "COMPACTION",
    "COMPACT_END",
    "COMPACT_PAYLOADS",
    "COMPACT_START",
    "COMPACT_SUMMARY",
    "KNOWN_WINDOWS",
    "BasicCompactor",
    "CompactEndPayload",
    "CompactStartPayload",
    "CompactSummaryPayload",
    "CompactionConfig",
    "CompactionError",
    "CompactionOutcome",
    "CompactionPlugin",
    "Compactor",
    "ContextUsage",
    "Region",
    "balanced_prefixes",
    "choose_region",
    "compact_and_flush",
    "context_usage",
    "window_of",
)
