"""The session clock: milliseconds since the Unix epoch, injectable for tests (session layer)."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], int]
"""Returns the current time in milliseconds since the Unix epoch."""


def wall_clock_ms() -> int:
    """The system's wall-clock time in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000
