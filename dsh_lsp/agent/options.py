"""AgentOptions: the per-agent knobs a turn reads on every step (agent layer)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_STEPS = 64
"""Steps one turn may take before it ends with reason ``max-steps``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentOptions:
    """How an agent calls its model.

    ``system_prompt`` is appended after the assembled prompt sections on every step.
    ``max_steps`` caps the model requests of one turn (at least 1). ``temperature`` and
    ``max_tokens`` go into every ``LlmRequest`` unchanged (``None``: provider default), and
    so do ``stop`` sequences (``None``: none).
    """

    model: str
    system_prompt: str | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {self.max_steps!r}")
