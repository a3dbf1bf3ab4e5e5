"""The DeepSeek plugin's configuration, validated at the trust boundary (llm.deepseek layer).

Field names are snake_case in Python and camelCase in JSON (``baseUrl``, ``apiKeyEnv``…); both
spellings are accepted. The credential itself is never part of the configuration: the config
names the environment variable that holds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from .endpoint import normalize_base_url
from .serialize import ReasoningEffort, Thinking

DEFAULT_MODELS: Final = ("deepseek-v4-flash", "deepseek-v4-pro")
DEFAULT_BASE_URL: Final = "https://api.deepseek.com"
BASE_URL_ENV: Final = "DEEPSEEK_BASE_URL"

MissingKey = Literal["fail", "defer"]
"""What the plugin does when the key variable is unset or empty: ``fail`` to load, or
``defer``: load, and fail each model call with ``LlmError`` (``AUTH``) naming the variable."""


class ModelTimeouts(BaseModel):
    """The timeouts a user controls (``dsh.model.timeouts`` in the editor, ``--*-timeout``
    flags of ``dsh-lsp run``); ``None`` keeps the endpoint's default."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    connect: float | None = Field(default=None, gt=0)
    """Seconds allowed to open the connection (default 10)."""
    first_byte: float | None = Field(default=None, gt=0)
    """Seconds from sending the request to the response's first byte (default 30)."""
    read_idle: float | None = Field(default=None, gt=0)
    """Seconds the stream may stay silent once it started (default 120)."""
    retry_budget: float | None = Field(default=None, ge=0)
    """Total seconds one call may spend on failed attempts and their backoff before it gives
    up (default 120)."""

    def plugin_config(self) -> dict[str, float]:
        """The ``DeepSeekConfig`` fields these timeouts set (camelCase)."""
        fields = {
            "connectTimeout": self.connect,
            "firstByteTimeout": self.first_byte,
            "readTimeout": self.read_idle,
            "retryBudget": self.retry_budget,
        }
        return {key: value for key, value in fields.items() if value is not None}


class DeepSeekConfig(BaseModel):
    """Settings of one OpenAI-compatible endpoint (DeepSeek by default)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    models: tuple[str, ...] = Field(default=DEFAULT_MODELS, min_length=1)
    """Model names this endpoint serves; each is sent verbatim."""
    base_url: str | None = None
    """The API root; ``None`` reads ``DEEPSEEK_BASE_URL``, else the DeepSeek default. Must be
    an ``http(s)://`` URL; one without a path gets ``/v1`` (``endpoint.normalize_base_url``)."""
    api_key_env: str = Field(default="DEEPSEEK_API_KEY", min_length=1)
    """The environment variable holding the API key."""
    missing_key: MissingKey = "fail"
    """Without a key: refuse to load (``fail``), or load and fail every call (``defer``)."""
    thinking: Thinking | None = None
    """Turn thinking mode on or off; ``None`` leaves the provider default."""
    reasoning_effort: ReasoningEffort | None = None
    """How hard the model thinks; ``None`` leaves the provider default."""
    connect_timeout: float = Field(default=10.0, gt=0)
    """Seconds allowed to open the connection."""
    first_byte_timeout: float = Field(default=30.0, gt=0)
    """Seconds from sending the request to the response's first byte (``TIMEOUT``): a server
    that accepts the connection and says nothing fails the attempt this soon."""
    read_timeout: float = Field(default=120.0, gt=0)
    """Seconds the stream may stay silent before the call fails with ``TIMEOUT``."""
    retry_budget: float = Field(default=120.0, ge=0)
    """Total seconds one call may spend on failed attempts and backoff before giving up."""
    max_retries: int = Field(default=5, ge=0)
    """Retries of a call that failed before its first chunk."""
    retry_initial_delay: float = Field(default=0.5, ge=0)
    """Backoff before the first retry, in seconds; it doubles per retry."""
    retry_max_delay: float = Field(default=10.0, ge=0)
    """Cap on the computed backoff, in seconds."""
    max_retry_after: float = Field(default=60.0, ge=0)
    """The longest ``Retry-After`` honoured; a longer one fails the call instead."""

    @field_validator("models")
    @classmethod
    def _unique_models(cls, models: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(models)) != len(models) or not all(models):
            raise ValueError("model names must be non-empty and unique")
        return models

    @field_validator("base_url")
    @classmethod
    def _valid_base_url(cls, base_url: str | None) -> str | None:
        return None if base_url is None else normalize_base_url(base_url, setting="baseUrl")

    def resolved_base_url(self, environ: Mapping[str, str]) -> str:
        """The API root to use: the configured one, ``$DEEPSEEK_BASE_URL``, or the default,
        normalised by ``endpoint.normalize_base_url``.

        Raises ``ValueError`` naming ``DEEPSEEK_BASE_URL`` when that variable breaks the rule.
        """
        if self.base_url:
            return self.base_url
        from_env = environ.get(BASE_URL_ENV)
        if from_env:
            return normalize_base_url(from_env, setting=BASE_URL_ENV)
        return normalize_base_url(DEFAULT_BASE_URL, setting="the default base URL")
