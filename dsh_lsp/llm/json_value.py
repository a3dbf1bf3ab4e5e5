"""JSON values and their one canonical encoding (llm layer).

``JsonValue`` types data that must survive a JSON round trip unchanged. ``dumps_compact`` is the
only encoder the model layer uses for wire and log text: compact separators, UTF-8 kept as is,
and ``NaN``/``Infinity`` rejected because JSON has no spelling for them. ``storable_text``
makes a string UTF-8 can hold (the session log's and the editor mirror's one rule for
surrogates).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

JsonValue = None | bool | int | float | str | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
"""Any value ``json.loads`` can produce (read-only views: lists and dicts both fit)."""

JsonObject = Mapping[str, JsonValue]
"""A JSON object."""


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
"""One encoder for every call: ``json.dumps`` with options builds a new one each time,
which costs as much as encoding a streamed chunk's record."""


def dumps_compact(value: object) -> str:
    """Encode ``value`` as compact JSON text (``","``/``":"`` separators, non-ASCII kept).

    Raises ``ValueError`` for ``NaN``/``Infinity`` and ``TypeError`` for values JSON cannot hold.
    """
    return _COMPACT.encode(value)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str | bytes) -> object:
    """Decode JSON text, rejecting the ``NaN``/``Infinity`` literals Python accepts by default.

    Raises ``ValueError`` (``json.JSONDecodeError`` included) for anything that is not JSON.
    """
    return json.loads(text, parse_constant=_reject_constant)


def storable_text(text: str) -> str:
    """``text`` with a surrogate pair joined into the one character it encodes and each
    unpaired surrogate as U+FFFD (one UTF-16 unit for one, so positions still land).

    Text with nothing to change is returned itself (compare with ``is``). Never raises.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
