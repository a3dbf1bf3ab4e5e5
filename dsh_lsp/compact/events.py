"""The typed payloads of the ``compact/*`` session events (compact layer).

``CompactionPlugin`` registers them with ``EVENT_PAYLOADS`` for as long as it is loaded (the
server registers them too, since it renders them); without either they decode as
``RawPayload``. Decoding is lenient, as a display's should be: a missing or mistyped field
becomes its default. ``decode`` never raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, Self

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.session import ExtensionPayload, ExtensionTrigger

COMPACT_START: Final = "compact/start"
COMPACT_SUMMARY: Final = "compact/summary"
COMPACT_END: Final = "compact/end"


def _int(data: JsonObject, key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactStartPayload(ExtensionPayload):
    """``compact/start {start, end, reason, tokensBefore}``: a compaction of seqs
    ``start`` … ``end`` began."""

    kind: ClassVar[str] = COMPACT_START
    start: int | None
    end: int | None
    reason: str
    tokens_before: int | None

    def to_json(self) -> dict[str, JsonValue]:
        """The logged record."""
        return {
            "start": self.start,
            "end": self.end,
            "reason": self.reason,
            "tokensBefore": self.tokens_before,
        }

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """Lenient decode; never raises."""
        return cls(
            start=_int(data, "start"),
            end=_int(data, "end"),
            reason=str(data.get("reason", "")),
            tokens_before=_int(data, "tokensBefore"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactSummaryPayload(ExtensionPayload):
    """``compact/summary {summary, start, end}``: the summary that replaced the region."""

    kind: ClassVar[str] = COMPACT_SUMMARY
    summary: str
    start: int | None
    end: int | None

    def to_json(self) -> dict[str, JsonValue]:
        """The logged record."""
        return {"summary": self.summary, "start": self.start, "end": self.end}

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """Lenient decode; never raises."""
        return cls(
            summary=str(data.get("summary", "")),
            start=_int(data, "start"),
            end=_int(data, "end"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactEndPayload(ExtensionPayload):
    """``compact/end {ok: true, tokensBefore, tokensAfter}`` or ``{ok: false, error}``."""

    kind: ClassVar[str] = COMPACT_END
    ok: bool
    tokens_before: int | None = None
    tokens_after: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The logged record."""
        if not self.ok:
            return {"ok": False, "error": self.error}
        return {"ok": True, "tokensBefore": self.tokens_before, "tokensAfter": self.tokens_after}

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """Lenient decode; never raises."""
        error = data.get("error")
        return cls(
            ok=data.get("ok") is True,
            tokens_before=_int(data, "tokensBefore"),
            tokens_after=_int(data, "tokensAfter"),
            error=None if error is None else str(error),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionTrigger(ExtensionTrigger):
    """The trigger of the one-turn wrapper around a compaction of an idle session."""

    kind: ClassVar[str] = "compaction"

    def to_json(self) -> dict[str, JsonValue]:
        """No fields."""
        return {}

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """No fields; never raises."""
        return cls()


COMPACT_PAYLOADS: Final = (CompactStartPayload, CompactSummaryPayload, CompactEndPayload)
"""Every ``compact/*`` payload class, for ``EVENT_PAYLOADS.register``."""
