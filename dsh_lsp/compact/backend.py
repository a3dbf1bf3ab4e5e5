"""The compaction seam and its basic backend (compact layer).

``Compactor`` is the seam (service ``COMPACTION``): ``compact_if_needed`` runs before every
step (``agent/pre-step``) and compacts when the next request would pass ``threshold_ratio``
of the model's window; ``compact_now`` compacts on request (``dsh/session/compact``), inside
the open turn or, when the agent is idle, in a one-turn ``compaction`` turn of its own;
``compact_at_next_step`` asks for a compaction at a running turn's next step boundary (the
next ``compact_if_needed``), since the surface must not change under a step in flight.

``BasicCompactor`` summarizes the oldest region of the surface (``region``) through the model
with a fixed checkpoint prompt (text only: reasoning is dropped, tool calls and results
become short text) and logs, in order:

- ``compact/start {start, end, reason, tokensBefore}``;
- ``compact/summary {summary, start, end}``, then a ``user/message`` whose ``surface_op``
  replaces the region (seqs ``start`` … ``end``) with ``<compacted-summary>…``, so the log
  keeps every original event and the model sees the summary plus the tail;
- ``compact/end {ok: true, tokensBefore, tokensAfter}``.

A summary that fails, comes back empty or is cut off by the output limit fails closed:
``compact/end {ok: false, error}`` and the surface is unchanged.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal, Protocol

import anyio

from dsh_lsp.agent import Agent
from dsh_lsp.kernel import DshError
from dsh_lsp.llm import (
    ContentBlock,
    FinishChunk,
    FinishMaxTokens,
    FinishStop,
    LlmError,
    LlmRequest,
    LlmService,
    Message,
    PluginSource,
    SessionId,
    TextBlock,
    TextDelta,
    ToolCallBlock,
)
from dsh_lsp.session import (
    TURN_END,
    TURN_START,
    USER_MESSAGE,
    AssistantMessagePayload,
    ContextMessagePayload,
    Session,
    SessionEvent,
    SteeringMessagePayload,
    SurfaceReplace,
    ToolResultPayload,
    UserMessagePayload,
    end_reason,
    turn_end_data,
    turn_start_data,
    user_message_data,
)

from .accounting import ContextUsage, context_usage, surface_events, window_of
from .events import (
    CompactEndPayload,
    CompactionTrigger,
    CompactStartPayload,
    CompactSummaryPayload,
)
from .region import choose_region

_log = logging.getLogger(__name__)

SOURCE: Final = PluginSource(plugin="compaction")
MAX_ITEM_CHARS: Final = 2000
"""Characters of one tool result or call quoted to the summarizer."""

CHECKPOINT_PROMPT = """\
You are compacting the history of a coding session so that it can continue in a fresh \
context. Write a checkpoint another engineer could continue from, with exactly these \
sections (short, factual, no speculation):

1. Goal: what the user asked for, in their words where it matters.
2. Decisions: what was decided and why.
3. Files: the files read, created or changed, with what changed.
4. Commands: commands run and what they showed (failures verbatim, briefly).
5. Errors: problems hit and how they were resolved, or that they are open.
6. State: where the work stands now.
7. Next: the concrete next steps.
8. User notes: preferences or constraints the user stated.

Reply with the checkpoint only."""

Reason = Literal["threshold", "request", "overflow"]


class CompactionError(DshError):
    """A compaction could not be done (no region, summary failed); the history is unchanged."""

    code: ClassVar[str] = "COMPACTION_FAILED"


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionOutcome:
    """What a compaction did: the replaced seqs and the estimated tokens before and after."""

    start: int
    end: int
    tokens_before: int
    tokens_after: int
    seconds: float


class Compactor(Protocol):
    """The seam; see the module docstring."""

    async def compact_if_needed(self, agent: Agent, system_prompt: str) -> CompactionOutcome | None:
        """Compact when the next request passes the threshold. Raises only cancellation
        (a failed summary is logged as a failed compaction and the step goes on)."""
        ...

    async def compact_now(self, agent: Agent, reason: Reason = "request") -> CompactionOutcome:
        """Compact now. Raises CompactionError (nothing to compact, or the summary failed;
        the history is unchanged)."""
        ...

    async def compact_at_next_step(self, agent: Agent) -> CompactionOutcome:
        """Compact ``agent``'s session at its next step boundary: the next
        ``compact_if_needed`` for it compacts (reason ``request``) whatever the threshold,
        and this returns its outcome. Callers asking for one session meanwhile share one
        compaction. Cancelling withdraws the request (once no other caller waits).
        Raises CompactionError like ``compact_now`` (also when the step was cancelled)."""
        ...

    def usage(self, session: Session, model: str, system_prompt: str = "") -> ContextUsage:
        """How full the session's context is for ``model``."""
        ...

    def window(self, model: str) -> int:
        """The context window of ``model`` (tokens)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class BasicSettings:
    """The basic backend's knobs (see ``CompactionConfig``)."""

    threshold_ratio: float
    retain_tokens: int
    chars_per_token: float
    summary_max_tokens: int
    windows: Mapping[str, int]
    default_window: int
    summary_model: str | None
    automatic: bool = True
    """Compact on the threshold; off, ``compact_if_needed`` only serves requests."""


@dataclass(slots=True, eq=False)
class _StepRequest:
    """A compaction asked for at a session's next step boundary, and its result."""

    waiters: int = 0
    done: anyio.Event = field(default_factory=anyio.Event)
    outcome: CompactionOutcome | None = None
    error: CompactionError | None = None


class BasicCompactor:
    """See the module docstring."""

    __slots__ = ("_llm", "_requests", "_settings")

    def __init__(self, llm: LlmService, settings: BasicSettings) -> None:
        self._llm = llm
        self._settings = settings
        self._requests: dict[SessionId, _StepRequest] = {}

    def window(self, model: str) -> int:
        """See ``Compactor.window``."""
        return window_of(model, self._settings.windows, self._settings.default_window)

    def usage(self, session: Session, model: str, system_prompt: str = "") -> ContextUsage:
        """See ``Compactor.usage``."""
        window = self.window(model)
        return context_usage(
            session,
            window=window,
            system_prompt=system_prompt,
            chars_per_token=self._settings.chars_per_token,
        )

    async def compact_if_needed(self, agent: Agent, system_prompt: str) -> CompactionOutcome | None:
        """See ``Compactor.compact_if_needed``; a pending ``compact_at_next_step`` request
        for the session is served first, whatever the threshold."""
        request = self._requests.pop(agent.session.id, None)
        if request is not None:
            return await self._serve(agent, request)
        if not self._settings.automatic:
            return None
        usage = self.usage(agent.session, agent.options.model, system_prompt)
        if usage.ratio < self._settings.threshold_ratio:
            return None
        try:
            return await self._compact(agent, "threshold")
        except CompactionError as exc:
            _log.warning("compaction before a step failed: %s", exc)
            return None

    async def compact_now(self, agent: Agent, reason: Reason = "request") -> CompactionOutcome:
        """See ``Compactor.compact_now``."""
        session = agent.session
        if session.open_turn() is not None:
            return await self._compact(agent, reason)
        turn = session.last_turn() + 1
        session.append(TURN_START, turn_start_data(turn, CompactionTrigger()))
        try:
            return await self._compact(agent, reason)
        finally:
            session.append(TURN_END, turn_end_data(turn, end_reason("completed")))

    async def compact_at_next_step(self, agent: Agent) -> CompactionOutcome:
        """See ``Compactor.compact_at_next_step``."""
        session_id = agent.session.id
        request = self._requests.setdefault(session_id, _StepRequest())
        request.waiters += 1
        try:
            await request.done.wait()
        finally:
            request.waiters -= 1
            if not request.waiters and self._requests.get(session_id) is request:
                del self._requests[session_id]  # withdrawn before a step served it
        if request.error is not None:
            raise request.error
        assert request.outcome is not None
        return request.outcome

    async def _serve(self, agent: Agent, request: _StepRequest) -> CompactionOutcome | None:
        try:
            request.outcome = await self._compact(agent, "request")
        except CompactionError as exc:
            _log.warning("the requested compaction before a step failed: %s", exc)
            request.error = exc
        except BaseException:
            request.error = CompactionError("the step was cancelled before it compacted")
            raise
        finally:
            request.done.set()
        return request.outcome

    async def _compact(self, agent: Agent, reason: Reason) -> CompactionOutcome:
        settings = self._settings
        session = agent.session
        began = time.perf_counter()
        nodes = surface_events(session)
        region = choose_region(
            nodes, retain_tokens=settings.retain_tokens, chars_per_token=settings.chars_per_token
        )
        if region is None:
            raise CompactionError("there is nothing to compact yet")
        before = self.usage(session, agent.options.model).used
        session.write(
            CompactStartPayload(
                start=region.start_seq, end=region.end_seq, reason=reason, tokens_before=before
            )
        )
        try:
            summary = await self._summarize(agent, nodes[: region.end])
        except CompactionError as exc:
            session.write(CompactEndPayload(ok=False, error=str(exc)))
            raise
        session.write(
            CompactSummaryPayload(summary=summary, start=region.start_seq, end=region.end_seq)
        )
        text = f"<compacted-summary>\n{summary}\n</compacted-summary>"
        session.append(
            USER_MESSAGE,
            user_message_data((TextBlock(text=text),), SOURCE),
            surface_op=SurfaceReplace(start=region.start_seq, end=region.end_seq),
        )
        after = self.usage(session, agent.options.model).used
        session.write(CompactEndPayload(ok=True, tokens_before=before, tokens_after=after))
        return CompactionOutcome(
            start=region.start_seq,
            end=region.end_seq,
            tokens_before=before,
            tokens_after=after,
            seconds=time.perf_counter() - began,
        )

    async def _summarize(self, agent: Agent, nodes: list[SessionEvent]) -> str:
        transcript = "\n\n".join(line for line in map(_as_text, nodes) if line)
        request = LlmRequest(
            model=self._settings.summary_model or agent.options.model,
            system=CHECKPOINT_PROMPT,
            messages=(
                Message(role="user", content=(TextBlock(text=transcript),)),
                Message(role="user", content=(TextBlock(text="Write the checkpoint now."),)),
            ),
            max_tokens=self._settings.summary_max_tokens,
            session_id=agent.session.id,
        )
        parts: list[str] = []
        finish: object = None
        try:
            stream = self._llm.stream(request)
            async for chunk in stream:
                if isinstance(chunk, TextDelta):
                    parts.append(chunk.text)
                elif isinstance(chunk, FinishChunk):
                    finish = chunk.reason
        except LlmError as exc:
            raise CompactionError(f"the summary request failed: {exc}") from exc
        summary = "".join(parts).strip()
        if isinstance(finish, FinishMaxTokens):
            raise CompactionError("the summary was cut off by the output limit")
        if not isinstance(finish, FinishStop) or not summary:
            raise CompactionError("the model returned no summary")
        return summary


def _clip(text: str) -> str:
    if len(text) <= MAX_ITEM_CHARS:
        return text
    return f"{text[:MAX_ITEM_CHARS]} … ({len(text) - MAX_ITEM_CHARS} more characters)"


def _texts(content: tuple[ContentBlock, ...]) -> list[str]:
    out: list[str] = []
    for block in content:
        match block:
            case TextBlock(text=text):
                out.append(text)
            case ToolCallBlock(name=name, arguments=arguments):
                out.append(f"[called {name}({_clip(arguments)})]")
            case _:
                pass
    return out


def _body(content: tuple[ContentBlock, ...]) -> str:
    return _clip("\n".join(_texts(content)))


def _as_text(event: SessionEvent) -> str:
    match event.payload:
        case UserMessagePayload(content=content):
            return f"USER: {_body(content)}"
        case AssistantMessagePayload(content=content):
            return f"ASSISTANT: {_body(content)}"
        case ToolResultPayload(content=content, is_error=is_error):
            failed = " (error)" if is_error else ""
            return f"TOOL RESULT{failed}: {_body(content)}"
        case ContextMessagePayload(content=content) | SteeringMessagePayload(content=content):
            return f"CONTEXT: {_body(content)}"
        case payload:
            return json.dumps(payload.to_json())[:MAX_ITEM_CHARS]
