"""JSON bodies as the wire accepts them (server layer): no ``NaN``/``Infinity`` and no number
beyond a double, since neither could be stored or echoed back as JSON. Imports only the
standard library, so the early ``initialize`` path can use it before pygls is loaded."""

from __future__ import annotations

import json
import math
from typing import Any


def strict_loads(body: bytes | str) -> Any:  # Any: whatever JSON the peer sent
    """The JSON value of ``body``. Raises ValueError (not JSON, bad UTF-8, a non-finite
    number) or RecursionError (nested too deep)."""
    return json.loads(body, parse_float=_finite, parse_constant=_no_constant)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} does not fit a double")
    return value


def _no_constant(text: str) -> Any:  # Any: json's parse_constant hook
    raise ValueError(f"{text} is not JSON")
