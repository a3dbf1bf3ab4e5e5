"""CompactionPlugin: the basic compaction backend on ``agent/pre-step`` (compact layer).

Injects ``LLM``; provides ``COMPACTION`` (a ``BasicCompactor``) and listens to
``agent/pre-step``, so a session that nears its model's context window is compacted before
the step that would overflow it; when the provider still refuses a request as too long
(``agent/context-overflow``) it compacts once and the step's call is retried. A compaction
started outside a turn
(``compact_now`` on an idle agent) is flushed to persistence at once.
"""

from __future__ import annotations

import logging
from typing import ClassVar

import anyio
from pydantic import BaseModel, ConfigDict, Field

from dsh_lsp.agent import AGENT_CONTEXT_OVERFLOW, AGENT_PRE_STEP, Agent, ContextOverflow, PreStep
from dsh_lsp.kernel import Context, Plugin, ServiceKey
from dsh_lsp.llm import LLM
from dsh_lsp.session import EVENT_PAYLOADS, SESSION_FLUSH, TURN_TRIGGERS

from .accounting import DEFAULT_WINDOW
from .backend import (
    BasicCompactor,
    BasicSettings,
    CompactionError,
    CompactionOutcome,
    Compactor,
    Reason,
)
from .events import (
    CompactEndPayload,
    CompactionTrigger,
    CompactStartPayload,
    CompactSummaryPayload,
)

_log = logging.getLogger(__name__)


class CompactionConfig(BaseModel):
    """``threshold_ratio``: compact before a step whose request would fill this share of the
    window; ``retain_tokens``: the recent tail kept verbatim; ``chars_per_token``: the
    estimate's ratio; ``summary_max_tokens``: the summary's output budget (a longer summary
    fails closed); ``windows``: context windows by model name on top of the known ones;
    ``default_window``: for unknown models; ``enabled``: compact automatically."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold_ratio: float = Field(default=0.8, gt=0, le=1)
    retain_tokens: int = Field(default=8000, ge=0)
    chars_per_token: float = Field(default=4.0, gt=0)
    summary_max_tokens: int = Field(default=4000, ge=64)
    windows: dict[str, int] = Field(default_factory=dict)
    default_window: int = Field(default=DEFAULT_WINDOW, ge=1024)
    summary_model: str | None = None
    enabled: bool = True


COMPACTION: ServiceKey[Compactor] = ServiceKey("compaction")
"""The compaction seam."""


class CompactionPlugin(Plugin[CompactionConfig]):
    """See the module docstring."""

    name: ClassVar[str] = "compaction"
    config_model = CompactionConfig
    inject = (LLM,)

    async def apply(self, ctx: Context, config: CompactionConfig) -> None:
        """Provide ``COMPACTION``, register the pre-step listener and the ``compact/*``
        payload classes."""
        ctx.effect(lambda: EVENT_PAYLOADS.register(CompactStartPayload))
        ctx.effect(lambda: EVENT_PAYLOADS.register(CompactSummaryPayload))
        ctx.effect(lambda: EVENT_PAYLOADS.register(CompactEndPayload))
        ctx.effect(lambda: TURN_TRIGGERS.register(CompactionTrigger))
        compactor = BasicCompactor(
            ctx.require(LLM),
            BasicSettings(
                threshold_ratio=config.threshold_ratio,
                retain_tokens=config.retain_tokens,
                chars_per_token=config.chars_per_token,
                summary_max_tokens=config.summary_max_tokens,
                windows=dict(config.windows),
                default_window=config.default_window,
                summary_model=config.summary_model,
                automatic=config.enabled,
            ),
        )

        async def before_step(step: PreStep) -> None:
            await compactor.compact_if_needed(step.agent, step.system_prompt)

        async def on_overflow(overflow: ContextOverflow) -> bool | None:
            try:
                await compactor.compact_now(overflow.agent, "overflow")
            except CompactionError as exc:
                _log.warning("compaction after a context overflow failed: %s", exc)
                return None
            return True

        ctx.on(AGENT_PRE_STEP, before_step)
        ctx.on(AGENT_CONTEXT_OVERFLOW, on_overflow)
        ctx.provide(COMPACTION, compactor)


async def compact_and_flush(
    ctx: Context, compactor: Compactor, agent: Agent, reason: Reason = "request"
) -> CompactionOutcome:
    """``compact_now`` then a durability flush of the session (when the agent was idle the
    loop will not flush it). Raises CompactionError like ``compact_now``."""
    try:
        return await compactor.compact_now(agent, reason)
    finally:
        if agent.session.open_turn() is None:
            with anyio.CancelScope(shield=True):
                await ctx.parallel(SESSION_FLUSH, agent.session)
